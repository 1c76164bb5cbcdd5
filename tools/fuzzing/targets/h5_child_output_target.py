"""Target ``h5_child_output``: what tfkit makes of the guarded HDF5 reader's answer.

The HDF5 parser runs in a child process (``h5_snapshot``); the caller parses the
child's answer (``TFKSNAP1`` | length | JSON header | array bytes) and loads
models and weights from it. A child that libhdf5 subverted could answer
anything, so the answer is untrusted bytes too. Here the child is replaced by the
fuzz input, and the input goes through ``tfkit.load_model``, ``load_weights`` into
a small model and ``tfkit inspect``'s ``describe``: each returns or raises
``ValueError`` naming the file. No reference exists for this private format.

An input's first byte picks how it becomes the answer: even, the rest is the
answer as it is (the framing is fuzzed too); odd, the rest is a JSON header, a
zero byte and the array bytes, framed here (mutations of the header's JSON keep
a valid length, so they reach the loaders).
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

from fuzzing.target import Target, as_file, read_guarded, scratch_path, write_seeds
from fuzzing.targets import model_files

NAME = "fuzz-model.h5"
EVENTS = frozenset({"subprocess.Popen", "os.posix_spawn", "os.fork"})  # legacy files: the layer-order child
_state: dict = {"answer": b"", "model": None}


def answer_of(data: bytes) -> bytes:
    from tfkit.saving import h5_snapshot

    if not data or data[0] % 2 == 0:
        return data[1:]
    header, _, body = data[1:].partition(b"\x00")
    return h5_snapshot.MAGIC + struct.pack("<Q", len(header)) + header + body


def _fake_child(env, path, limits, data_paths, timeout):
    return 0, _state["answer"]


def check(data: bytes) -> None:
    from tfkit.saving import h5_snapshot
    from tfkit.saving.file_description import describe

    _state["answer"] = answer_of(data)
    path = str(scratch_path(NAME))
    real_child, h5_snapshot._run_child = h5_snapshot._run_child, _fake_child  # only while this input runs
    try:
        for load in (
            lambda: __import__("tfkit").load_model(path),
            lambda: _state["model"].load_weights(path),
            lambda: describe(path),
        ):
            read_guarded(EVENTS, ("tensorflow.", "tfkit."), path, load)
    finally:
        h5_snapshot._run_child = real_child


def _child_answer(path: str, groups: tuple[str, ...] | None) -> bytes:
    from tfkit.saving import h5_snapshot

    limits = h5_snapshot.limits_for(path)
    if groups is not None:
        limits["groups"] = list(groups)
    done = subprocess.run(
        [sys.executable, "-I", h5_snapshot.CHILD_SCRIPT, path, json.dumps(limits), "[]"],
        capture_output=True,
        timeout=120,
    )
    return done.stdout


def seeds(folder: Path) -> int:
    files = {f"tfkit-{k}": v for k, v in model_files.tfkit_files().items() if not k.endswith(".keras")}
    files.update({f"tf_keras-{k}": v for k, v in model_files.tf_keras_files().items()})
    files.update({f"keras3-{k}": v for k, v in model_files.keras3_files().items() if k.endswith(".h5")})
    named = []
    for name, data in sorted(files.items()):
        path = as_file(data, "seed.h5")
        answer = _child_answer(path, None if name.startswith("tfkit") else ("*",))
        (length,) = struct.unpack("<Q", answer[8:16])
        named.append((f"{name}.raw", b"\x00" + answer))
        named.append((f"{name}.framed", b"\x01" + answer[16 : 16 + length] + b"\x00" + answer[16 + length :]))
    os.remove(path)
    return write_seeds(folder, named)


def setup() -> None:
    import h5py
    import numpy as np

    import tfkit
    from tfkit.saving.file_description import describe  # noqa: F401  (imported before the guard is armed)

    with h5py.File(scratch_path(NAME), "w") as f:  # a real HDF5 file: the signature checks pass
        f.attrs["note"] = "the fuzz input stands in for the reader's answer"
        f["x"] = np.zeros(1)
    _state["model"] = tfkit.Sequential(
        [tfkit.Input((4,)), tfkit.layers.Dense(3, activation="relu"), tfkit.layers.Dense(2)]
    )


TARGET = Target(
    name="h5_child_output",
    reader="the guarded HDF5 reader's answer, through load_model / load_weights / inspect",
    modules=(
        "tfkit.saving.h5_snapshot",
        "tfkit.saving.h5_format",
        "tfkit.saving.h5",
        "tfkit.saving.weights_io",
        "tfkit.saving.file_description",
        "tfkit.saving.keras_files.importer",
        "tfkit.saving.keras_files.weights_layout",
    ),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=65536,
    timeout=30,
    allowed_events=EVENTS,
    dictionary=(
        b"TFKSNAP1",
        b'"attrs"',
        b'"datasets"',
        b'"dtype"',
        b'"shape"',
        b'"nbytes"',
        b'"group"',
        b'"path"',
        b'"crc32"',
        b'"dtype_attr"',
        b'"data_file"',
        b'"error"',
        b'"resource"',
        b'"weights"',
        b'"model_config"',
        b'"format_version"',
        b'"keras_version"',
        b'"layer_names"',
        b'"<f4"',
        b'"<i8"',
    ),
    suite_runs=150,
)
