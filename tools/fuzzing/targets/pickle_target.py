"""Target ``pickle``: ``tfkit.datasets.pickle_data.loads`` and the CIFAR batch reader built on it.

Reference: ``pickle.Unpickler(encoding="bytes")`` whose ``find_class`` allows only the
globals tfkit interprets (numpy's array and dtype reconstructors, ``_codecs.encode``,
``bytes``). Wherever both accept a pickle, they build equal data.
"""

from __future__ import annotations

import io
import pickle
import pickletools
from pathlib import Path

import numpy as np

from fuzzing.target import Finding, Target, equal, read_guarded, write_seeds
from fuzzing.targets.test_files import dataset_files

SOURCE = "fuzz-batch.pkl"


def _reference_globals() -> dict[tuple[str, str], object]:
    import _codecs

    multiarray = np._core.multiarray if hasattr(np, "_core") else np.core.multiarray
    numeric = np._core.numeric if hasattr(np, "_core") else np.core.numeric
    found = {
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): np.dtype,
        ("_codecs", "encode"): _codecs.encode,
        ("builtins", "bytes"): bytes,
        ("__builtin__", "bytes"): bytes,
    }
    for module in ("numpy.core.multiarray", "numpy._core.multiarray"):
        found[(module, "_reconstruct")] = multiarray._reconstruct
    for module in ("numpy.core.numeric", "numpy._core.numeric"):
        found[(module, "_frombuffer")] = numeric._frombuffer
    return found


class RestrictedUnpickler(pickle.Unpickler):
    """Python's own unpickler, allowed only the globals ``pickle_data`` interprets."""

    allowed = _reference_globals()

    def find_class(self, module: str, name: str) -> object:
        if (module, name) not in self.allowed:
            raise pickle.UnpicklingError(f"global {module}.{name} refused")
        return self.allowed[(module, name)]


MAX_REFERENCE_MEMO_INDEX = 1 << 20


def _largest_memo_index(data: bytes) -> int:
    largest = 0
    try:
        for opcode, arg, _ in pickletools.genops(data):
            if opcode.name in ("BINPUT", "LONG_BINPUT", "PUT") and isinstance(arg, int):
                largest = max(largest, arg)
    except Exception:  # noqa: BLE001  (a malformed stream: the unpickler refuses it too, at the same place)
        pass
    return largest


def reference_loads(data: bytes) -> tuple[bool | None, object]:
    """``(True, value)``, ``(False, None)`` when Python refuses the pickle, ``(None, None)`` when it could not
    decide: it ran out of memory or recursion, or would have (a memo index of 2**30 makes CPython's unpickler
    allocate a table that long, gigabytes, before it reads on: such pickles are not given to it)."""
    if _largest_memo_index(data) > MAX_REFERENCE_MEMO_INDEX:
        return None, None
    try:
        return True, RestrictedUnpickler(io.BytesIO(data), encoding="bytes").load()
    except (MemoryError, RecursionError):
        return None, None
    except Exception:  # noqa: BLE001  (the reference refusing, in whatever way it refuses)
        return False, None


def check(data: bytes) -> None:
    from tfkit.datasets import cifar, pickle_data

    accepted, value = read_guarded(frozenset(), (), SOURCE, lambda: pickle_data.loads(data, source=SOURCE))
    if not accepted:
        return
    reference_ok, reference = reference_loads(data)
    if reference_ok is None:
        return
    if not reference_ok:
        raise Finding("pickle_data accepted a pickle that Python's unpickler (same globals) refuses")
    if not equal(value, reference):
        raise Finding(f"pickle_data and Python's unpickler disagree: {str(value)[:300]} != {str(reference)[:300]}")
    if isinstance(value, dict):
        for key in ("labels", "fine_labels"):
            read_guarded(frozenset(), (), SOURCE, lambda key=key: cifar.read_batch(data, key, SOURCE))


def _batch(rows: int, fine: bool = False) -> dict:
    rng = np.random.RandomState(rows)
    batch = {
        b"batch_label": b"testing batch 1 of 1",
        b"data": rng.randint(0, 256, (rows, 3072)).astype(np.uint8),
        b"filenames": [f"img_{i}.png".encode() for i in range(rows)],
    }
    if fine:
        batch[b"fine_labels"], batch[b"coarse_labels"] = list(range(rows)), [i % 20 for i in range(rows)]
    else:
        batch[b"labels"] = [int(v) for v in rng.randint(0, 10, rows)]
    return batch


def _plain_values() -> dict:
    shared = [1, 2, 3]
    return {
        "ints": [0, 1, 255, 256, 65535, 65536, -1, 2**31 - 1, -(2**31), 2**40, -(2**70)],
        "floats": [0.5, -1e300],
        "text": "naïve",
        "bytes": b"",
        "nested": ({"a": (None, True, False)}, [[], {}]),
        "shared": (shared, shared),
        "empty_tuple": (),
    }


def _arrays() -> dict:
    return {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
        "fortran": np.asfortranarray(np.ones((2, 3))),
        "bool": np.array([True, False]),
        "i64be": np.arange(3, dtype=">i8"),
        "scalar": np.float64(2.5),
        "complex": np.array([1 + 2j], np.complex64),
        "objects": dataset_files.object_array([[1, 2], [3]]),
    }


def seeds(folder: Path) -> int:
    named = []
    for protocol in (2, 3, 4, 5):
        named.append((f"cifar10-batch-p{protocol}", pickle.dumps(_batch(3), protocol=protocol)))
        named.append((f"cifar100-batch-p{protocol}", pickle.dumps(_batch(2, fine=True), protocol=protocol)))
        named.append(
            (
                f"imdb-rows-p{protocol}",
                pickle.dumps(dataset_files.object_array([[1, 14, 22, 16], [1, 194, 1153], [1, 2]]), protocol=protocol),
            )
        )
        named.append((f"plain-p{protocol}", pickle.dumps(_plain_values(), protocol=protocol)))
        named.append((f"arrays-p{protocol}", pickle.dumps(_arrays(), protocol=protocol)))
        named.append((f"dtype-p{protocol}", pickle.dumps(np.dtype(">f4"), protocol=protocol)))
    named.append(("cifar10-batch-py2", dataset_files.dumps_py2(_batch(2))))
    named.append(("py2-long-string", dataset_files.dumps_py2({b"k": b"x" * 300})))
    return write_seeds(folder, named)


def setup() -> None:
    import tfkit.datasets.cifar  # noqa: F401  (imported before the guard is armed)


TARGET = Target(
    name="pickle",
    reader="tfkit.datasets.pickle_data.loads + cifar.read_batch",
    modules=("tfkit.datasets.pickle_data", "tfkit.datasets.cifar"),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=32768,
    dictionary=(
        b"\x80\x02",
        b"\x80\x05",
        b"\x95",
        b"cnumpy.core.multiarray\n_reconstruct\n",
        b"cnumpy\nndarray\n",
        b"cnumpy\ndtype\n",
        b"c_codecs\nencode\n",
        b"latin1",
        b"\x8c\x0bnumpy._core\x94",
        b"q\x00",
        b"h\x00",
        b"(",
        b"t",
        b"R",
        b"b",
        b".",
    ),
    suite_runs=3000,
)
