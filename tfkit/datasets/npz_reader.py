"""Read expected arrays from an ``.npz`` file without trusting its sizes.

    arrays = read_expected(path, {"x": ("uint8", (60000, 28, 28))})

``np.load`` decompresses a member before anyone sees its shape, so a small
file can expand to gigabytes, and a forged header can ask for a terabyte.
Here each member's ``.npy`` header is read and checked against the expected
dtype and shape first; then exactly that many bytes are decompressed (never
more), and a member holding anything beyond them is refused. Members must be
stored or deflated: zipfile inflates bzip2 and LZMA data without an output
limit, so those are refused unread. Every failure is
a ``ValueError`` naming the array (callers add the file's name).
"""

from __future__ import annotations

import os
import tokenize
import zipfile
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from tfkit.files.zip_errors import ZIP_READ_ERRORS

MAX_MEMBERS = 64
MAX_ELEMENTS = 200_000_000  # an array whose length the file decides holds at most this many elements
_MAX_HEADER_BYTES = 65536
# numpy parses a .npy header with ast.literal_eval: a damaged one raises these besides ValueError
HEADER_ERRORS = (SyntaxError, tokenize.TokenError, RecursionError, MemoryError)


def read_expected(
    file: str | os.PathLike, expected: Mapping[str, tuple[Any, tuple[int | None, ...]]]
) -> tuple[set[str], dict[str, np.ndarray]]:
    """Reads the expected arrays of an `.npz` file, checking each header before decompressing.

    Unlike `np.load`, which decompresses a member before its shape is known (so a small
    file can expand to gigabytes), each member's `.npy` header is read and checked against
    the expected dtype and shape first; then exactly that many bytes are decompressed, and
    a member holding more is refused. Object arrays (pickles) are never loaded, and only
    stored or deflated members are read (at most `MAX_MEMBERS` entries). Expected names
    absent from the archive are simply left out of the result.

    Args:
        file: The path of the `.npz` file.
        expected: A mapping from array name to `(dtype, shape)`. The dtype may be a tuple
            of allowed dtypes, and the shape may hold `None` for a length the file decides
            (at most `MAX_ELEMENTS` elements in all), e.g.
            `{"x": (("float32", "float64"), (None, 13))}`.

    Returns:
        A tuple `(names, arrays)`: the set of every array name in the archive, and a dict
        of the expected arrays it holds.

    Raises:
        ValueError: If the file is not a readable `.npz` archive, or an expected array has
            another dtype or shape, holds objects, is compressed otherwise, is truncated
            or holds extra bytes. The message names the array (not the file).

    Example:
        >>> from tfkit.datasets import npz_reader
        >>> np.savez("arrays.npz", x=np.ones((4, 3), np.float32), y=np.arange(4.0))
        >>> names, arrays = npz_reader.read_expected("arrays.npz", {"x": ("float32", (None, 3))})
        >>> sorted(names), arrays["x"].shape
        (['x', 'y'], (4, 3))
        >>> npz_reader.read_expected("arrays.npz", {"x": ("uint8", (None, 3))})
        Traceback (most recent call last):
        ...
        ValueError: expected x uint8 (None, 3), got float32 (4, 3)
    """
    file = Path(file)
    try:
        archive = zipfile.ZipFile(file)
    except OSError as exc:
        raise ValueError(f"it cannot be read ({exc.strerror or type(exc).__name__})") from exc
    except ZIP_READ_ERRORS as exc:
        if _is_single_npy(file):
            raise ValueError("it holds a single array, not an .npz archive of arrays") from exc
        raise ValueError(f"it is not an .npz archive (not a readable zip file: {type(exc).__name__})") from exc
    with archive:
        members = archive.namelist()
        if len(members) > MAX_MEMBERS:
            raise ValueError(f"it holds {len(members)} entries; an .npz of arrays holds at most {MAX_MEMBERS}")
        names = {m[:-4] if m.endswith(".npy") else m for m in members}
        arrays = {}
        for name, (dtype, shape) in expected.items():
            member = f"{name}.npy" if f"{name}.npy" in members else name if name in members else None
            if member is not None:
                allowed = tuple(np.dtype(d) for d in (dtype if isinstance(dtype, tuple) else (dtype,)))
                arrays[name] = _read_member(archive, member, file, name, allowed, tuple(shape))
        return names, arrays


def _is_single_npy(file: Path) -> bool:
    try:
        with open(file, "rb") as handle:
            return handle.read(6) == b"\x93NUMPY"
    except OSError:
        return False


def _fits(header_shape: tuple[int, ...], shape: tuple[int | None, ...]) -> bool:
    return len(header_shape) == len(shape) and all(
        want is None or want == got for got, want in zip(header_shape, shape)
    )


def _read_member(
    archive: zipfile.ZipFile,
    member: str,
    file: Path,
    name: str,
    allowed: tuple[np.dtype, ...],
    shape: tuple[int | None, ...],
) -> np.ndarray:
    method = archive.getinfo(member).compress_type
    if method not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        # zipfile hands bzip2/LZMA data to a decompressor with no output limit: refused before any byte is read
        raise ValueError(
            f"array {name} is compressed with zip method {method}; .npz files hold stored or "
            f"deflate members (numpy writes nothing else)"
        )
    try:
        with archive.open(member) as stream:
            major, _ = np.lib.format.read_magic(stream)
            if major == 1:
                header_shape, fortran, header_dtype = np.lib.format.read_array_header_1_0(
                    stream, max_header_size=_MAX_HEADER_BYTES
                )
            elif major in (2, 3):
                header_shape, fortran, header_dtype = np.lib.format.read_array_header_2_0(
                    stream, max_header_size=_MAX_HEADER_BYTES
                )
            else:
                raise ValueError(f"unknown .npy format version {major}")
            if header_dtype.hasobject:
                raise ValueError("it holds Python objects (pickles are never loaded)")
            if header_dtype not in allowed or not _fits(tuple(header_shape), shape):
                wanted = " or ".join(str(d) for d in allowed)
                raise ValueError(f"expected {name} {wanted} {shape}, got {header_dtype} {tuple(header_shape)}")
            dtype, shape = header_dtype, tuple(header_shape)
            if int(np.prod(shape, dtype=object)) > MAX_ELEMENTS:
                raise ValueError(f"expected {name} with at most {MAX_ELEMENTS:,} elements, got shape {shape}")
            nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            data = stream.read(nbytes)
            if len(data) != nbytes:
                raise ValueError(f"the data stops after {len(data)} of {nbytes} bytes")
            if stream.read(1):
                raise ValueError("the entry holds more bytes than its header declares")
    except ZIP_READ_ERRORS + HEADER_ERRORS as exc:
        raise ValueError(f"array {name} is unreadable ({type(exc).__name__}: {exc})") from exc
    except ValueError as exc:
        message = str(exc)
        raise ValueError(message if message.startswith("expected ") else f"array {name}: {message}") from exc
    array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    return np.ascontiguousarray(array) if fortran else array.copy()
