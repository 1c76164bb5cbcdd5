"""What IMDB and Reuters share: ragged word-index sequences read from an ``.npz`` without unpickling.

    rows = read_sequence_arrays(path, ["x_train", "x_test"], dataset="imdb.npz")   # {name: object array}
    rows = index_words(list(rows["x_train"]), start_char=1, index_from=3)
    rows = clip_vocabulary(rows, num_words=10000, skip_top=0, oov_char=2)

``imdb.npz`` and ``reuters.npz`` store each split as a 1-D ``object`` array of lists of ints,
which numpy saves as a pickle inside the ``.npy`` member. Each such member's header is checked
(1-D, object dtype, at most ``MAX_ROWS`` rows), its pickle is read with ``pickle_data`` (never
unpickled), and every row must be a list of ints. Labels are plain integer arrays read by
``npz_reader``. The word-index steps below compute what Keras's loaders compute, step for step.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from tfkit.datasets import npz_reader, pickle_data
from tfkit.files.zip_errors import ZIP_READ_ERRORS

MAX_ROWS = 1_000_000
MAX_MEMBER_BYTES = 256 << 20  # a genuine imdb split's pickle is about 20 MB
MAX_JSON_BYTES = 64 << 20
_HEADER_BYTES = 65536
_INT_TYPE = {int}
_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _invalid(file: Path, dataset: str, what: str) -> ValueError:
    return ValueError(f"{file} is not a valid {dataset}: {what}. Delete it to download a fresh copy.")


def read_sequence_arrays(file: str | os.PathLike, names: Sequence[str], dataset: str) -> dict[str, np.ndarray]:
    """Reads ragged word-index sequences from an `.npz` file without unpickling them.

    Each named member must be a 1-D object array of at most `MAX_ROWS` rows (checked from
    its header first), stored or deflated, whose pickle (at most `MAX_MEMBER_BYTES` bytes)
    is read by `tfkit.datasets.pickle_data`; every row must be a list of ints.

    Args:
        file: The path of the `.npz` file.
        names: The array names to read (without `.npy`).
        dataset: The data set's file name, used in error messages.

    Returns:
        A dict from name to a 1-D object array of lists of ints.

    Raises:
        ValueError: If the file is not an `.npz` archive, a named array is missing or not
            of that layout; the message names `file` and `dataset`.

    Example:
        >>> from tfkit.datasets import sequences
        >>> x = np.empty(2, dtype=object)
        >>> x[:] = [[1, 2, 3], [4]]
        >>> np.savez("rows.npz", x=x)
        >>> sequences.read_sequence_arrays("rows.npz", ["x"], dataset="rows.npz")
        {'x': array([list([1, 2, 3]), list([4])], dtype=object)}
    """
    file = Path(file)
    try:
        archive = zipfile.ZipFile(file)
    except ZIP_READ_ERRORS as exc:
        raise _invalid(file, dataset, f"it is not an .npz archive ({type(exc).__name__})") from exc
    arrays = {}
    with archive:
        members = archive.namelist()
        if len(members) > npz_reader.MAX_MEMBERS:
            raise _invalid(file, dataset, f"it holds {len(members)} entries")
        for name in names:
            member = f"{name}.npy"
            if member not in members:
                raise _invalid(file, dataset, f"the array {name} is missing (found {sorted(members)})")
            try:
                arrays[name] = _read_object_member(archive, member, f"{file}:{member}")
            except ZIP_READ_ERRORS + npz_reader.HEADER_ERRORS as exc:
                raise _invalid(file, dataset, f"the array {name} is unreadable ({type(exc).__name__}: {exc})") from exc
            except ValueError as exc:
                raise _invalid(file, dataset, f"the array {name}: {exc}") from exc
    return arrays


def _read_object_member(archive: zipfile.ZipFile, member: str, source: str) -> np.ndarray:
    info = archive.getinfo(member)
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ValueError(f"compressed with zip method {info.compress_type}; .npz files hold stored or deflate members")
    with archive.open(member) as stream:
        major, _ = np.lib.format.read_magic(stream)
        if major == 1:
            shape, _, dtype = np.lib.format.read_array_header_1_0(stream, max_header_size=_HEADER_BYTES)
        elif major in (2, 3):
            shape, _, dtype = np.lib.format.read_array_header_2_0(stream, max_header_size=_HEADER_BYTES)
        else:
            raise ValueError(f"unknown .npy format version {major}")
        if dtype != np.dtype(object) or len(shape) != 1 or shape[0] > MAX_ROWS:
            raise ValueError(f"expected a 1-D object array of at most {MAX_ROWS:,} sequences, got {dtype} {shape}")
        data = stream.read(MAX_MEMBER_BYTES + 1)
    if len(data) > MAX_MEMBER_BYTES:
        raise ValueError(f"it holds more than {MAX_MEMBER_BYTES:,} bytes")
    array = pickle_data.loads(data, source=source)
    if not isinstance(array, np.ndarray) or array.dtype != object or array.shape != tuple(shape):
        got = f"{array.dtype} {array.shape}" if isinstance(array, np.ndarray) else type(array).__name__
        raise ValueError(f"the pickle holds {got}, the header declares object {tuple(shape)}")
    for index, row in enumerate(array):
        if not isinstance(row, list) or not set(map(type, row)) <= _INT_TYPE:
            raise ValueError(f"sequence {index} is a {type(row).__name__}, not a list of ints")
    return array


def read_labels(file: str | os.PathLike, names: Sequence[str], dataset: str) -> dict[str, np.ndarray]:
    """Reads 1-D integer label arrays from an `.npz` file.

    The arrays are read by `tfkit.datasets.npz_reader.read_expected` (no pickles, headers
    checked before decompressing); any signed or unsigned integer dtype is accepted.

    Args:
        file: The path of the `.npz` file.
        names: The array names to read.
        dataset: The data set's file name, used in error messages.

    Returns:
        A dict from name to a 1-D integer array.

    Raises:
        ValueError: If the file is not valid or a named array is missing; the message names
            `file` and `dataset`.

    Example:
        >>> from tfkit.datasets import sequences
        >>> np.savez("labels.npz", y=np.array([0, 1, 1]))
        >>> sequences.read_labels("labels.npz", ["y"], dataset="labels.npz")
        {'y': array([0, 1, 1])}
    """
    file = Path(file)
    expected = {name: (_INTS, (None,)) for name in names}
    try:
        found, arrays = npz_reader.read_expected(file, expected)
    except ValueError as exc:
        raise _invalid(file, dataset, str(exc)) from exc
    missing = [name for name in names if name not in arrays]
    if missing:
        raise _invalid(file, dataset, f"the arrays {missing} are missing (found {sorted(found)})")
    return arrays


def shuffled(rng: np.random.RandomState, *arrays: np.ndarray) -> list[np.ndarray]:
    """Reorders arrays by one shuffle of their indices, as Keras's loaders shuffle them.

    Args:
        rng: The `np.random.RandomState` that shuffles the indices (it advances).
        *arrays: Arrays of the same length, reordered alike.

    Returns:
        A list of the reordered arrays.

    Example:
        >>> from tfkit.datasets import sequences
        >>> sequences.shuffled(np.random.RandomState(0), np.arange(4), np.arange(4) * 10)
        [array([2, 3, 1, 0]), array([20, 30, 10,  0])]
    """
    indices = np.arange(len(arrays[0]))
    rng.shuffle(indices)
    return [array[indices] for array in arrays]


def index_words(rows: Iterable[Any], start_char: int | None, index_from: int) -> list[list[int]]:
    """Shifts every word index by `index_from` and puts `start_char` in front of each row.

    Args:
        rows: The rows, each an iterable of ints.
        start_char: The index put in front of every row; `None` for none.
        index_from: Added to every word index.

    Returns:
        A list of lists of ints.

    Example:
        >>> from tfkit.datasets import sequences
        >>> sequences.index_words([[1, 2], [3]], start_char=1, index_from=3)
        [[1, 4, 5], [1, 6]]
    """
    if start_char is not None:
        return [[start_char] + [w + index_from for w in row] for row in rows]
    if index_from:
        return [[w + index_from for w in row] for row in rows]
    return [list(row) for row in rows]


def drop_long(maxlen: int, rows: list, labels: Any) -> tuple[list, list]:
    """Keeps the rows shorter than `maxlen` (strictly) and their labels, as Keras's `remove_long_seq`.

    Args:
        maxlen: The length a row must stay below.
        rows: The rows, each a list.
        labels: The labels, one per row.

    Returns:
        A tuple `(kept_rows, kept_labels)` of lists.

    Example:
        >>> from tfkit.datasets import sequences
        >>> sequences.drop_long(3, [[1, 2], [1, 2, 3], [4]], [0, 1, 2])
        ([[1, 2], [4]], [0, 2])
    """
    kept_rows, kept_labels = [], []
    for row, label in zip(rows, labels):
        if len(row) < maxlen:
            kept_rows.append(row)
            kept_labels.append(label)
    return kept_rows, kept_labels


def clip_vocabulary(rows: list, num_words: int | None, skip_top: int, oov_char: int | None) -> list[list[int]]:
    """Replaces the word indices outside `[skip_top, num_words)` with `oov_char`, or drops them.

    Args:
        rows: The rows, each a list of ints.
        num_words: The index words must stay below. `None` or `0` means the largest index
            present, as Keras computes it (so that largest word itself also becomes
            `oov_char`).
        skip_top: The index words must be at least.
        oov_char: The index replacing words outside the range; `None` drops them instead.

    Returns:
        A list of lists of ints.

    Example:
        >>> from tfkit.datasets import sequences
        >>> sequences.clip_vocabulary([[1, 4, 5, 9]], num_words=6, skip_top=2, oov_char=2)
        [[2, 4, 5, 2]]
        >>> sequences.clip_vocabulary([[1, 4, 5, 9]], num_words=6, skip_top=2, oov_char=None)
        [[4, 5]]
    """
    if not num_words:
        num_words = max(max(row) for row in rows)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in row] for row in rows]
    return [[w for w in row if skip_top <= w < num_words] for row in rows]


def read_word_index(file: str | os.PathLike, dataset: str) -> dict[str, int]:
    """Reads a `{word: index}` JSON file, checked to be exactly that.

    Args:
        file: The path of the JSON file, at most `MAX_JSON_BYTES` bytes.
        dataset: The data set's file name, used in error messages.

    Returns:
        A dict from word (`str`) to index (`int`).

    Raises:
        ValueError: If the file is too large, not JSON, or not an object of word to
            integer; the message names `file` and `dataset`.

    Example:
        >>> import pathlib
        >>> from tfkit.datasets import sequences
        >>> _ = pathlib.Path("words.json").write_text('{"the": 1, "and": 2}')
        >>> sequences.read_word_index("words.json", "words.json")
        {'the': 1, 'and': 2}
        >>> _ = pathlib.Path("words.json").write_text("[1, 2]")
        >>> sequences.read_word_index("words.json", "words.json")
        Traceback (most recent call last):
        ...
        ValueError: words.json is not a valid words.json: expected a JSON object of word -> integer index. ...
    """
    file = Path(file)
    if file.stat().st_size > MAX_JSON_BYTES:
        raise _invalid(file, dataset, f"it is larger than {MAX_JSON_BYTES:,} bytes")
    try:
        with open(file, encoding="utf-8") as handle:
            index = json.load(handle)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise _invalid(file, dataset, f"it is not JSON ({exc})") from exc
    if not isinstance(index, dict) or not all(isinstance(k, str) and type(v) is int for k, v in index.items()):
        raise _invalid(file, dataset, "expected a JSON object of word -> integer index")
    return index
