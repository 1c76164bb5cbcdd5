"""A TensorFlow checkpoint's index read in Python, trusting nothing, before TensorFlow's reader sees it.

    entries = check_checkpoint("ckpt/w")            # ValueError unless every entry is sound and backed by data
    entries["model/_layers/1/kernel/.ATTRIBUTES/VARIABLE_VALUE"].shape   # (6, 8)

TensorFlow's C++ checkpoint reader (``tf.train.list_variables``,
``tf.train.Checkpoint.read``) trusts the index: an entry that does not parse,
a negative dimension or an element count that overflows fails a ``CHECK`` and
aborts the whole process; a string tensor's lengths are believed before they
are compared with anything (an allocation of terabytes, also an abort); a FIFO
in place of the index blocks forever. So tfkit reads ``prefix.index`` itself
first (a small, well-documented format: an SSTable of ``BundleEntryProto``
messages) and hands a checkpoint to TensorFlow only when every entry holds up:

- the index and every data shard it names are regular files;
- the table's footer, block handles, restart arrays and keys lie inside the
  file, keys are strictly increasing, blocks are uncompressed (as TensorFlow
  writes them) and match their checksums;
- the header names 1 to ``MAX_SHARDS`` shards; every entry parses, names a
  known, non-reference dtype, a shape of non-negative dimensions whose size
  fits, a shard that exists, and a byte range inside that shard's file; a
  numeric entry's size is its element count times its dtype's size; a string
  entry's lengths (read from the data file) add up to its size.

What TensorFlow then allocates is bounded by the files' sizes. The index's
block checksums are checked here; the data's are left to TensorFlow, which
checks them and fails cleanly.
"""

from __future__ import annotations

import os
import stat
import struct
from dataclasses import dataclass
from typing import Any

import tensorflow as tf
from google.protobuf.message import DecodeError
from tensorflow.core.protobuf import tensor_bundle_pb2

MAGIC = 0xDB4775248B80FB57
FOOTER_BYTES = 48
BUNDLE_CONSUMER = 1  # tensor_bundle.cc's kTensorBundleVersion: the consumer version TensorFlow reads as
BLOCK_TRAILER_BYTES = 5  # compression type + CRC
MAX_SHARDS = 10_000
MAX_RANK = 254  # TensorFlow's own limit
MAX_INDEX_BYTES = 1 << 30
_DT_STRING = 7


@dataclass(frozen=True)
class IndexEntry:
    """One tensor of a checkpoint: its dtype name, shape, shard and byte range."""

    dtype: str
    shape: tuple[int, ...]
    shard: int
    offset: int
    size: int


def check_checkpoint(prefix: str) -> dict[str, IndexEntry]:
    """Every tensor in the checkpoint at ``prefix`` by key; ``ValueError`` naming the file for anything unsound."""
    prefix = os.fspath(prefix)
    index = prefix + ".index"
    data = _read_regular(index, MAX_INDEX_BYTES)
    try:
        raw = _table_entries(data)
        return _entries(prefix, raw)
    except _Damaged as error:
        raise ValueError(f"{index} is not a sound TensorFlow checkpoint index ({error}); nothing was loaded") from None


class _Damaged(Exception):
    pass


def _regular_size(path: str) -> int:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise ValueError(f"{path} could not be read ({error.strerror or type(error).__name__})") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{path} is not a regular file (a FIFO, device or folder); a checkpoint is made of files")
    return info.st_size


def _read_regular(path: str, limit: int) -> bytes:
    size = _regular_size(path)
    if size > limit:
        raise ValueError(f"{path} is {size} bytes; a checkpoint index larger than {limit} bytes is refused")
    with open(path, "rb") as handle:
        return handle.read(size + 1)  # read(n) allocates n bytes up front: the file's size, not the limit


# ------------------------------------------------------------------ the table (LevelDB's SSTable layout)


def _varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise _Damaged("a length runs past its block")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _handle(buffer: bytes, pos: int, end: int) -> tuple[int, int, int]:
    """A block handle (offset, size) at ``pos``; returns it and the position after it."""
    offset, pos = _varint(buffer, pos, end)
    size, pos = _varint(buffer, pos, end)
    return offset, size, pos


def _checked_block(data: bytes, offset: int, size: int, file_end: int) -> tuple[int, int]:
    if offset + size + BLOCK_TRAILER_BYTES > file_end:
        raise _Damaged("a block lies outside the file")
    if data[offset + size] != 0:
        raise _Damaged("a block is compressed; TensorFlow writes checkpoint indexes uncompressed")
    stored = struct.unpack_from("<I", data, offset + size + 1)[0]
    if _masked_crc32c(data[offset : offset + size + 1]) != stored:
        raise _Damaged("a block's checksum does not match its bytes")
    return offset, size


def _crc32c_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC32C = _crc32c_table()


def _masked_crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) as LevelDB stores it in block trailers (rotated and offset)."""
    crc, table = 0xFFFFFFFF, _CRC32C
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    crc ^= 0xFFFFFFFF
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _block(data: bytes, offset: int, size: int) -> list[tuple[bytes, bytes]]:
    end = offset + size
    if size < 4:
        raise _Damaged("a block is too short")
    restarts = struct.unpack_from("<I", data, end - 4)[0]
    if restarts == 0 or restarts > (size - 4) // 4:
        raise _Damaged("a block's restart array does not fit it")
    entries_end = end - 4 - 4 * restarts
    points = [struct.unpack_from("<I", data, entries_end + 4 * i)[0] for i in range(restarts)]
    if any(point >= max(entries_end - offset, 1) for point in points):
        raise _Damaged("a restart point lies outside its block")
    pos, key, out, fresh_starts = offset, b"", [], set()
    while pos < entries_end:
        start = pos - offset
        shared, pos = _varint(data, pos, entries_end)
        if shared == 0:
            fresh_starts.add(start)  # where TensorFlow's seek may begin decoding
        fresh, pos = _varint(data, pos, entries_end)
        length, pos = _varint(data, pos, entries_end)
        if shared > len(key) or pos + fresh + length > entries_end:
            raise _Damaged("an entry runs past its block")
        key = key[:shared] + data[pos : pos + fresh]
        pos += fresh
        out.append((key, data[pos : pos + length]))
        pos += length
    if out and (points[0] != 0 or not fresh_starts.issuperset(points)):
        # TensorFlow seeks through the restart points: one inside an entry, or at an entry that shares a
        # prefix with the one before, is "bad entry in block" there
        raise _Damaged("a restart point is not at the start of an entry with a full key")
    return out


def _table_entries(data: bytes) -> list[tuple[bytes, bytes]]:
    if len(data) < FOOTER_BYTES:
        raise _Damaged("the file is too short to be an index")
    footer_at = len(data) - FOOTER_BYTES
    if struct.unpack_from("<Q", data, len(data) - 8)[0] != MAGIC:
        raise _Damaged("it does not end with the table signature")
    meta_offset, meta_size, pos = _handle(data, footer_at, footer_at + 40)
    _checked_block(data, meta_offset, meta_size, footer_at)  # the meta-index block: checked, not used
    index_offset, index_size, _ = _handle(data, pos, footer_at + 40)
    _checked_block(data, index_offset, index_size, footer_at)
    entries: list[tuple[bytes, bytes]] = []
    for _, handle in _block(data, index_offset, index_size):
        offset, size, used = _handle(handle, 0, len(handle))
        if used != len(handle):
            raise _Damaged("a block handle is malformed")
        entries += _block(data, *_checked_block(data, offset, size, footer_at))
    keys = [key for key, _ in entries]
    if any(a >= b for a, b in zip(keys, keys[1:])):
        raise _Damaged("its keys are not in strictly increasing order")
    return entries


# ------------------------------------------------------------------ the entries (tensor_bundle.proto)


def _entries(prefix: str, raw: list[tuple[bytes, bytes]]) -> dict[str, IndexEntry]:
    if not raw or raw[0][0] != b"":
        raise _Damaged("it has no header entry")
    header = tensor_bundle_pb2.BundleHeaderProto()
    try:
        header.ParseFromString(raw[0][1])
    except DecodeError as error:
        raise _Damaged(f"its header does not parse: {error}") from None
    version = header.version  # TensorFlow's CheckVersions for tensor bundles: consumer 1, producer >= 0
    if version.min_consumer > BUNDLE_CONSUMER or BUNDLE_CONSUMER in version.bad_consumers or version.producer < 0:
        raise _Damaged(
            f"its header's version (producer {version.producer}, min_consumer {version.min_consumer}, "
            f"bad_consumers {list(version.bad_consumers)}) rules out TensorFlow's reader "
            f"(consumer version {BUNDLE_CONSUMER})"
        )
    shards = header.num_shards
    if not 1 <= shards <= MAX_SHARDS:
        raise _Damaged(f"its header names {shards} data shards (1 to {MAX_SHARDS} expected)")
    shard_sizes: dict[int, int] = {}
    out: dict[str, IndexEntry] = {}
    for key, value in raw[1:]:
        try:
            name = key.decode("utf-8")
        except UnicodeDecodeError:
            raise _Damaged("a tensor name is not UTF-8 text") from None
        entry = tensor_bundle_pb2.BundleEntryProto()
        try:
            entry.ParseFromString(value)
        except DecodeError as error:
            raise _Damaged(f"the entry of {name!r} does not parse: {error}") from None
        where = f"tensor {name!r}"
        try:
            dtype = tf.as_dtype(entry.dtype)
        except TypeError:
            raise _Damaged(f"{where} has dtype {entry.dtype}, not a TensorFlow dtype") from None
        if dtype._is_ref_dtype or dtype in (tf.resource, tf.variant) or not dtype.is_numpy_compatible:
            raise _Damaged(f"{where} has dtype {dtype.name}; a checkpoint holds plain tensors")
        if entry.slices:
            raise _Damaged(f"{where} is a slice of a partitioned variable; tfkit reads whole tensors only")
        if entry.shape.unknown_rank or len(entry.shape.dim) > MAX_RANK:
            raise _Damaged(f"{where} has no known shape of at most {MAX_RANK} dimensions")
        shape = tuple(int(d.size) for d in entry.shape.dim)
        elements = 1
        for size in shape:
            if size < 0:
                raise _Damaged(f"{where} has a negative dimension in shape {shape}")
            elements *= size
        if elements >= 2**62:
            raise _Damaged(f"{where} declares {elements} elements")
        if not 0 <= entry.shard_id < shards:
            raise _Damaged(f"{where} is in shard {entry.shard_id} of {shards}")
        if entry.shard_id not in shard_sizes:
            shard_path = f"{prefix}.data-{entry.shard_id:05d}-of-{shards:05d}"
            try:
                shard_sizes[entry.shard_id] = _regular_size(shard_path)
            except FileNotFoundError:
                raise _Damaged(f"its data file {os.path.basename(shard_path)} is missing") from None
        if entry.offset < 0 or entry.size < 0 or entry.offset + entry.size > shard_sizes[entry.shard_id]:
            raise _Damaged(f"{where} lies outside its data file (bytes {entry.offset}..{entry.offset + entry.size})")
        if entry.dtype == _DT_STRING:
            _check_strings(prefix, entry, shards, elements, where)
        elif entry.size != elements * dtype.size:
            raise _Damaged(f"{where} stores {entry.size} bytes for {elements} {dtype.name} values")
        out[name] = IndexEntry(dtype.name, shape, entry.shard_id, entry.offset, entry.size)
    return out


def _check_strings(prefix: str, entry: Any, shards: int, elements: int, where: str) -> None:
    """A string tensor is its lengths (varints), a 4-byte checksum, then the bytes: they must add up."""
    if entry.size == 0 and elements == 0:
        return
    if elements > entry.size:  # every length takes at least one byte
        raise _Damaged(f"{where} declares {elements} strings in {entry.size} bytes")
    with open(f"{prefix}.data-{entry.shard_id:05d}-of-{shards:05d}", "rb") as handle:
        handle.seek(entry.offset)
        data = handle.read(entry.size)
    pos, total = 0, 0
    for _ in range(elements):
        length, pos = _varint(data, pos, len(data))
        total += length
    if pos + 4 + total != entry.size:
        raise _Damaged(f"{where}: its string lengths add up to {pos + 4 + total} bytes, not {entry.size}")
