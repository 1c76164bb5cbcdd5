"""Target ``npz``: the ``.npz`` readers of the data sets (``npz_reader``, ``sequences``, ``tabular``).

One input is one ``.npz`` file, read as a table (boston/california housing), as
imdb/reuters sequences (object arrays, through ``pickle_data``) and labels, and as
MNIST-shaped arrays. Reference: numpy's ``.npy`` reader (``np.lib.format.read_array``,
``allow_pickle=False``) on each member tfkit accepted, and for the object arrays the member's pickle read by Python's
unpickler restricted to numpy's globals (``pickle_target.reference_loads``):
wherever both accept, the arrays are equal.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np

from fuzzing.target import Finding, Target, as_file, equal, read_guarded, write_seeds
from fuzzing.targets import pickle_target
from fuzzing.targets.test_files import dataset_files

NAME = "fuzz-data.npz"
MNIST = {
    "x_train": ("uint8", (None, 28, 28)),
    "y_train": ("uint8", (None,)),
    "x_test": ("uint8", (None, 28, 28)),
    "y_test": ("uint8", (None,)),
}


def _reference_array(path: str, name: str) -> tuple[bool | None, object]:
    """The array as numpy reads it: ``np.load`` for plain arrays, the restricted unpickler for objects."""
    with zipfile.ZipFile(path) as archive:
        member = f"{name}.npy" if f"{name}.npy" in archive.namelist() else name  # as numpy's NpzFile looks
        with archive.open(member) as stream:
            version = np.lib.format.read_magic(stream)
            reader = np.lib.format.read_array_header_1_0 if version[0] == 1 else np.lib.format.read_array_header_2_0
            _, _, dtype = reader(stream)
            if dtype.hasobject:
                return pickle_target.reference_loads(stream.read())
        with archive.open(member) as stream:  # numpy's own reader of a member, from its start
            return True, np.lib.format.read_array(stream, allow_pickle=False)


def _compare(path: str, arrays: dict[str, np.ndarray]) -> None:
    for name, array in arrays.items():
        try:
            known, reference = _reference_array(path, name)
        except (
            ValueError,
            OSError,
            EOFError,
            zipfile.BadZipFile,
            KeyError,
            RuntimeError,
            NotImplementedError,
        ) as error:
            raise Finding(f"tfkit read {name} from an .npz that numpy refuses ({type(error).__name__}: {error})")
        if known is False:
            raise Finding(f"tfkit read the object array {name} whose pickle Python's unpickler refuses")
        if known and not equal(np.asarray(array), np.asarray(reference)):
            raise Finding(f"tfkit and numpy read {name} differently: {array!r:.200} != {reference!r:.200}")


def check(data: bytes) -> None:
    from tfkit.datasets import npz_reader, sequences, tabular

    path = as_file(data, NAME)
    readers = {
        "table": lambda: tabular.read_xy(path, 13, "boston_housing.npz"),
        "sequences": lambda: sequences.read_sequence_arrays(path, ["x_train", "x_test"], "imdb.npz"),
        "labels": lambda: sequences.read_labels(path, ["y_train", "y_test"], "imdb.npz"),
    }
    for kind, reader in readers.items():
        accepted, value = read_guarded(frozenset(), (), NAME, reader)
        if accepted:
            _compare(path, dict(zip(("x", "y"), value)) if kind == "table" else value)
    # npz_reader's own errors name the array (its callers add the file): any ValueError is a refusal
    accepted, value = read_guarded(frozenset(), (), "", lambda: npz_reader.read_expected(path, MNIST))
    if accepted:
        _compare(path, value[1])


def _npz(compressed: bool = False, **arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **arrays)
    return buffer.getvalue()


def _npy_v2_member(name: str, array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        with archive.open(f"{name}.npy", "w") as member:
            np.lib.format.write_array(member, array, version=(2, 0))
    return buffer.getvalue()


def seeds(folder: Path) -> int:
    rng = np.random.RandomState(0)
    rows = dataset_files.object_array([[1, 14, 22, 16, 43], [1, 194, 1153, 194], [1, 4]])
    labels = np.array([1, 0, 1], np.int64)
    named = [
        ("table", _npz(x=rng.rand(4, 13), y=rng.rand(4))),
        ("table-float32-compressed", _npz(True, x=rng.rand(3, 13).astype(np.float32), y=rng.rand(3))),
        ("table-fortran", _npz(x=np.asfortranarray(rng.rand(2, 13)), y=rng.rand(2))),
        ("imdb", _npz(x_train=rows, x_test=rows[:2], y_train=labels, y_test=labels[:2])),
        ("imdb-compressed", _npz(True, x_train=rows, x_test=rows, y_train=labels, y_test=labels)),
        (
            "mnist",
            _npz(
                True,
                x_train=rng.randint(0, 256, (2, 28, 28)).astype(np.uint8),
                y_train=np.array([3, 7], np.uint8),
                x_test=np.zeros((1, 28, 28), np.uint8),
                y_test=np.array([1], np.uint8),
            ),
        ),
        ("labels-int32-v2", _npy_v2_member("y_train", np.arange(5, dtype=np.int32))),
        ("empty", _npz(x=np.zeros((0, 13)), y=np.zeros(0))),
    ]
    return write_seeds(folder, named)


def setup() -> None:
    import tfkit.datasets.tabular  # noqa: F401  (imported before the guard is armed)


TARGET = Target(
    name="npz",
    reader="tfkit.datasets npz_reader / sequences / tabular (.npz of arrays and pickled sequences)",
    modules=("tfkit.datasets.npz_reader", "tfkit.datasets.sequences", "tfkit.datasets.tabular"),
    guide_modules=("zipfile", "numpy.lib.format"),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=65536,
    dictionary=(
        b"PK\x03\x04",
        b"PK\x01\x02",
        b"PK\x05\x06",
        b"\x93NUMPY",
        b"'descr': '<f8'",
        b"'descr': '|O'",
        b"'fortran_order': True",
        b"'shape': (",
        b"x_train.npy",
        b"y_train.npy",
        b"x.npy",
    ),
    suite_runs=800,
)
