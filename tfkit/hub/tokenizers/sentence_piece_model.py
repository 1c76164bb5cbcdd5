"""A serialized SentencePiece model checked in Python before native code parses or runs it.

    check_model(proto, "GemmaTokenizer 'gemma_tokenizer': proto")    # ValueError naming the field, or nothing

TensorFlow Text's SentencePiece kernel trusts the model it is given. Its
normalizer walks a double-array trie stored in the model
(``normalizer_spec.precompiled_charsmap``) with no bounds checks, so a model
whose trie points outside itself loads without complaint and then crashes the
process on the first text it tokenizes. This check parses the model with
protobuf (memory-safe, and bounded: the file is already size-limited), bounds
its pieces, and walks every path of both character maps' tries as the kernel
would, for every byte it could be fed, refusing any read the kernel would make
outside the map: a node outside the array, more matches along one path than
the kernel's 32-entry result buffer holds, a replacement string outside the
map or without its terminating NUL; and paths without end (a cycle: the
tries darts-clone builds share their common suffixes, but never loop). A model
that passes is read by the kernel only where the check has read.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfkit.hub.tokenizers.asset_files import MAX_ENTRIES

MAX_PIECE_BYTES = 1024
MAX_RULE_BYTES = 1024  # the deepest path of a character map's trie: NFKC's longest rule is under 40 bytes
MAX_MATCHES = 32  # the kernel's results buffer for one prefix search (sentencepiece's kMaxTrieResultsSize)
_CHUNK = 4096  # trie nodes expanded at once (each to 256 children): memory stays at a few MB
_BYTES = np.arange(256, dtype=np.int64)


def _model_proto() -> Any:
    try:
        from sentencepiece import sentencepiece_model_pb2
    except ImportError as error:
        raise ImportError(
            "tfkit checks SentencePiece models before TensorFlow Text runs them, with the sentencepiece "
            "package's model schema: pip install sentencepiece (or pip install tfkit[hub])"
        ) from error
    return sentencepiece_model_pb2.ModelProto()


def check_model(proto: bytes, what: str) -> None:
    """Refuses a serialized SentencePiece ``ModelProto`` that TensorFlow Text's kernel could not run safely.

    Args:
        proto: The serialized model.
        what: The model as errors name it (the tokenizer and its field).

    Raises:
        ValueError: naming ``what`` and the part of the model at fault.
        ImportError: If the `sentencepiece` package (the model's schema)
            is not installed.
    """
    model = _model_proto()
    try:
        model.ParseFromString(proto)
    except Exception as error:  # noqa: BLE001  protobuf's DecodeError, or a message over its limits
        raise ValueError(f"{what} is not a SentencePiece model (protobuf: {error})") from None
    if not model.pieces:
        raise ValueError(f"{what}: the model has no pieces")
    if len(model.pieces) > MAX_ENTRIES:
        raise ValueError(f"{what}: the model has {len(model.pieces)} pieces; the limit is {MAX_ENTRIES}")
    for index, piece in enumerate(model.pieces):
        text = piece.piece  # protobuf hands over a piece that is not UTF-8 as bytes
        size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_PIECE_BYTES or not math.isfinite(piece.score):
            raise ValueError(
                f"{what}: piece {index} ({text[:40]!r}, score {piece.score}) is over {MAX_PIECE_BYTES} "
                f"bytes long or has a score that is not finite"
            )
    for spec in ("normalizer_spec", "denormalizer_spec"):
        check_charsmap(getattr(model, spec).precompiled_charsmap, f"{what}: {spec}.precompiled_charsmap")


def check_charsmap(blob: bytes, what: str) -> None:
    """Refuses a precompiled character map (``uint32`` trie length, the trie's units, NUL-terminated replacement
    strings) that the kernel's normalizer would read outside of, for any input.

    Args:
        blob: The map, as the model stores it (empty: no normalization).
        what: The field, for errors.

    Raises:
        ValueError: naming ``what`` and the fault.
    """
    if not blob:
        return
    if len(blob) < 8:
        raise ValueError(f"{what} is {len(blob)} bytes: too short to hold a trie")
    trie_bytes = int.from_bytes(blob[:4], "little")
    if trie_bytes < 4 or 4 + trie_bytes > len(blob):
        raise ValueError(f"{what}: its trie claims {trie_bytes} bytes of the {len(blob) - 4} that follow")
    units = np.frombuffer(blob, "<u4", count=trie_bytes // 4, offset=4).astype(np.int64)
    strings = blob[4 + trie_bytes :]
    last_nul = strings.rfind(b"\0")  # a replacement is read up to its NUL: one must follow it inside the map
    offsets = (units >> 10) << ((units & (1 << 9)) >> 6)
    labels = units & 0x800000FF  # a value unit (bit 31) never matches a byte
    leaves = (units >> 8) & 1
    values = units & 0x7FFFFFFF
    size = len(units)
    budget = 4 * size + 4096  # (node, depth) pairs expanded: a trie (or a darts-clone DAG) expands each node once
    bases, matches = np.array([offsets[0]]), np.zeros(1, dtype=np.int64)  # the root's children's base
    for depth in range(MAX_RULE_BYTES + 1):
        if not bases.size:
            return
        budget -= bases.size
        if depth == MAX_RULE_BYTES or budget < 0:
            raise ValueError(f"{what}: its trie has paths over {MAX_RULE_BYTES} bytes long, or too many (a cycle?)")
        next_bases, next_matches = [], []
        for start in range(0, len(bases), _CHUNK):
            base, count = bases[start : start + _CHUNK], matches[start : start + _CHUNK]
            if int((base | 0xFF).max()) >= size:  # every byte's child is read, matched or not
                raise ValueError(f"{what}: its trie reads unit {int((base | 0xFF).max())} of {size}")
            children = base[:, None] ^ _BYTES
            rows, columns = np.nonzero(np.equal(labels[children], _BYTES))
            nodes = children[rows, columns]
            child_bases = nodes ^ offsets[nodes]
            counts = count[rows] + leaves[nodes]
            if counts.size and int(counts.max()) > MAX_MATCHES:
                raise ValueError(f"{what}: a path of its trie has over {MAX_MATCHES} matches")
            value_units = child_bases[leaves[nodes].astype(bool)]
            if value_units.size and int(value_units.max()) >= size:
                raise ValueError(f"{what}: its trie reads a value at unit {int(value_units.max())} of {size}")
            if value_units.size and int(values[value_units].max()) > last_nul:
                raise ValueError(
                    f"{what}: a replacement starts at byte {int(values[value_units].max())} of {len(strings)}, "
                    f"past the last terminated one"
                )
            next_bases.append(child_bases)
            next_matches.append(counts)
        bases, inverse = np.unique(np.concatenate(next_bases), return_inverse=True)  # shared suffixes: once
        matches = np.zeros(bases.size, dtype=np.int64)
        np.maximum.at(matches, inverse, np.concatenate(next_matches))  # the most matches any path brings
