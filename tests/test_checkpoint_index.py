"""Damaged TensorFlow checkpoint indexes: a ValueError from load_weights, tfkit inspect and BackupAndRestore,
never an abort or a hang.

TensorFlow's C++ reader fails a CHECK (and aborts the process) on an index
entry that does not parse, a negative dimension or an element count that
overflows, and blocks forever on a FIFO. ``tfkit.files.checkpoint_index``
reads the index first; these tests rewrite real indexes entry by entry (with
valid block checksums, so the damage reaches the entries) and load each one in
a separate process, where an abort or a hang fails the test instead of pytest.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
import time_limits
from checkpoint_tables import read_index, write_index

import tfkit
from tfkit.files.checkpoint_index import check_checkpoint

pytestmark = pytest.mark.slow  # one loading process for all cases


def _edit(path, change):
    """Rewrite every variable entry of the index at ``path`` with ``change(BundleEntryProto)``."""
    from tensorflow.core.protobuf import tensor_bundle_pb2

    entries = []
    for key, value in read_index(path):
        if b"VARIABLE_VALUE" in key:
            entry = tensor_bundle_pb2.BundleEntryProto()
            entry.ParseFromString(value)
            change(entry)
            value = entry.SerializeToString()
        entries.append((key, value))
    write_index(path, entries)


def _replace_values(path, garbage):
    write_index(path, [(key, garbage if b"VARIABLE_VALUE" in key else value) for key, value in read_index(path)])


def _header(path, num_shards):
    from tensorflow.core.protobuf import tensor_bundle_pb2

    entries = read_index(path)
    header = tensor_bundle_pb2.BundleHeaderProto()
    header.ParseFromString(entries[0][1])
    header.num_shards = num_shards
    write_index(path, [(b"", header.SerializeToString())] + entries[1:])


def _dims(*sizes):
    def change(entry):
        del entry.shape.dim[:]
        for size in sizes:
            entry.shape.dim.add(size=size)

    return change


def _special(kind):
    def make(path):
        os.remove(path)
        os.mkfifo(path) if kind == "fifo" else os.symlink("/dev/zero", path)

    return make


DAMAGE = {
    "entry_does_not_parse": lambda path: _replace_values(path, b"\xff\xff\xff"),
    "negative_dimension": lambda path: _edit(path, _dims(-7, 8)),
    "element_count_overflows": lambda path: _edit(path, _dims(2**40, 2**40, 2**40)),
    "dtype_9999": lambda path: _edit(path, lambda entry: setattr(entry, "dtype", 9999)),
    "dtype_variant": lambda path: _edit(path, lambda entry: setattr(entry, "dtype", 21)),
    "size_beyond_the_data_file": lambda path: _edit(path, lambda entry: setattr(entry, "offset", 2**40)),
    "a_billion_shards": lambda path: _header(path, 10**9),
    "fifo": _special("fifo"),
    "dev_zero": _special("zero"),
}

WORKER = textwrap.dedent("""
    import json, os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tfkit
    from tfkit.saving.file_description import describe
    for line in sys.stdin:
        kind, path = json.loads(line)
        try:
            model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
            if kind == "checkpoint":
                model.load_weights(path)
            elif kind == "backup":
                model.compile("sgd", "mse")
                backup = tfkit.callbacks.BackupAndRestore(path)
                backup.set_model(model)
                backup.on_train_begin()
            else:
                describe(path)
            outcome, message = "loaded", ""
        except Exception as error:
            outcome, message = type(error).__name__, str(error)
        print(json.dumps([outcome, message]), flush=True)
""")


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    folder = tmp_path_factory.mktemp("originals")
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    model.save_weights(str(folder / "ckpt" / "w"))
    model.export(str(folder / "export"))
    model.compile("sgd", "mse")
    backup = tfkit.callbacks.BackupAndRestore(str(folder / "backup"))
    backup.set_model(model)
    backup.on_train_begin()
    backup.on_epoch_end(0)
    return folder


def test_sound_indexes_are_read(originals):
    entries = check_checkpoint(str(originals / "ckpt" / "w"))
    assert {entry.shape for name, entry in entries.items() if "VARIABLE_VALUE" in name} == {(3, 2), (2,)}
    assert check_checkpoint(str(originals / "export" / "variables" / "variables"))


def test_damaged_indexes_are_value_errors_in_every_reader(originals, tmp_path):
    jobs = []
    for name, damage in DAMAGE.items():
        ckpt = tmp_path / name / "ckpt"
        shutil.copytree(originals / "ckpt", ckpt)
        damage(str(ckpt / "w.index"))
        export = tmp_path / name / "export"
        shutil.copytree(originals / "export", export)
        damage(str(export / "variables" / "variables.index"))
        backup = tmp_path / name / "backup"
        shutil.copytree(originals / "backup", backup)
        damage(str(next(backup.glob("*.index"))))
        jobs += [(name, "checkpoint", str(ckpt / "w")), (name, "inspect", str(export)), (name, "backup", str(backup))]
    for kind in ("fifo", "dev_zero"):  # saved_model.pb itself
        export = tmp_path / f"pb_{kind}"
        shutil.copytree(originals / "export", export)
        _special(kind)(str(export / "saved_model.pb"))
        jobs.append((f"saved_model.pb {kind}", "inspect", str(export)))
    done = subprocess.run(
        [sys.executable, "-c", WORKER],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(300),
        input="".join(json.dumps([kind, path]) + "\n" for _, kind, path in jobs),
    )
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == len(jobs), (
        f"the loading process died (exit {done.returncode}) after {jobs[len(results)][:2]}: {done.stderr[-2000:]}"
    )
    for (name, kind, path), (outcome, message) in zip(jobs, results):
        assert outcome == "ValueError", (name, kind, outcome, message)
        assert path in message or os.path.dirname(path) in message, (name, kind, message)
