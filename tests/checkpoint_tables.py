"""Write TensorFlow's table format (a checkpoint's ``.index``) from entries, with valid block checksums.

    entries = read_index("ckpt/w.index")                # [(key, value)], the header entry first
    write_index("ckpt/w.index", entries)                # one data block, checksums right

For tests that damage a checkpoint's entries themselves: a bit flipped in the
file only breaks a checksum, which TensorFlow reports cleanly; a damaged entry
behind a valid checksum reaches the parser.
"""

import struct

from tfkit.files.checkpoint_index import MAGIC, _masked_crc32c, _table_entries


def _varint(n):
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _block(entries):
    body, restarts = bytearray(), []
    for key, value in entries:
        restarts.append(len(body))
        body += _varint(0) + _varint(len(key)) + _varint(len(value)) + key + value
    for point in restarts or [0]:
        body += struct.pack("<I", point)
    return bytes(body + struct.pack("<I", len(restarts or [0])))


def encode_index(entries):
    """The bytes of a table holding ``entries`` [(key, value)] in one data block."""
    out = bytearray()

    def put(block):
        handle = _varint(len(out)) + _varint(len(block))
        out.extend(block + b"\0" + struct.pack("<I", _masked_crc32c(block + b"\0")))
        return handle

    data = put(_block(entries))
    meta = put(_block([]))
    index = put(_block([((entries[-1][0] if entries else b"") + b"\xff", data)]))
    footer = meta + index
    out.extend(footer + b"\0" * (40 - len(footer)) + struct.pack("<Q", MAGIC))
    return bytes(out)


def write_index(path, entries):
    with open(path, "wb") as handle:
        handle.write(encode_index(entries))


def read_index(path):
    with open(path, "rb") as handle:
        return _table_entries(handle.read())
