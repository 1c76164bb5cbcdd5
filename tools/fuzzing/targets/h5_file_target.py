"""Target ``h5_file``: whole HDF5 files through the guarded reader (``h5_snapshot.read_snapshot``).

libhdf5 parses each input in the reader's child process (forked by the zygote)
under memory, CPU and time limits; a crash, hang or refusal there must come
back as ``ValueError`` naming the file. Reference: h5py, run in this process on
every file the child accepted: each dataset tfkit returns equals h5py's read of
it (dtype, shape, values), and each text or integer root attribute equals h5py's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fuzzing.target import Finding, Target, as_file, equal, read_guarded, write_seeds
from fuzzing.targets import model_files

NAME = "fuzz-file.h5"
# the reader's child: forked by its zygote (started once, during warm-up) or, without one, a fresh python
EVENTS = frozenset({"subprocess.Popen", "os.posix_spawn", "os.fork"})


def _compare(path: str, snapshot) -> None:
    import h5py

    with h5py.File(path, "r") as f:
        for group, tables in snapshot.tables.items():
            for relative, dataset in tables.items():
                stored = f[f"/{group}/{relative}"][()]
                if not equal(np.asarray(dataset.array), np.asarray(stored)):
                    raise Finding(f"/{group}/{relative}: tfkit's reader and h5py disagree")
        for name, value in snapshot.attrs.items():
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                stored = f.attrs[name]
                stored = stored.decode("utf-8") if isinstance(stored, bytes) else stored
                stored = stored.item() if isinstance(stored, np.generic) else stored
                if stored != value:
                    raise Finding(f"attribute {name!r}: tfkit's reader gives {value!r:.100}, h5py {stored!r:.100}")


def check(data: bytes) -> None:
    from tfkit.saving.h5_snapshot import read_snapshot

    path = as_file(data, NAME)
    accepted, snapshot = read_guarded(EVENTS, (), path, lambda: read_snapshot(path, ("*",)))
    if accepted:
        _compare(path, snapshot)


def seeds(folder: Path) -> int:
    files = {f"tfkit-{k}": v for k, v in model_files.tfkit_files().items() if k.endswith((".h5",))}
    files.update({f"tf_keras-{k}": v for k, v in model_files.tf_keras_files().items()})
    files.update({f"keras3-{k}": v for k, v in model_files.keras3_files().items() if k.endswith(".h5")})
    return write_seeds(folder, sorted(files.items()))


def setup() -> None:
    import tfkit.saving.h5_snapshot  # noqa: F401  (imported before the guard is armed)


TARGET = Target(
    name="h5_file",
    reader="tfkit.saving.h5_snapshot.read_snapshot (libhdf5 in a limited child)",
    modules=("tfkit.saving.h5_snapshot", "tfkit.saving.h5_reader_zygote"),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=65536,
    timeout=60,
    allowed_events=EVENTS,
    dictionary=(b"\x89HDF\r\n\x1a\n", b"TREE", b"HEAP", b"SNOD", b"OHDR", b"GCOL", b"FRHP", b"BTHD"),
    suite_runs=50,
)
