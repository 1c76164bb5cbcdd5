"""A tokenizer's vocabulary files, read as data with errors naming the file and the entry.

    tokens = read_lines("assets/tokenizer/vocabulary.txt", "WordPieceTokenizer 'wp': vocabulary")
    vocabulary = read_vocabulary_json("assets/tokenizer/vocabulary.json", "BytePairTokenizer 'bpe': vocabulary")
    refuse_path_in_safe_mode(config, ("vocabulary",), "WordPieceTokenizer")   # in from_config

The files are those KerasHub writes under a preset's ``assets/tokenizer/``:
``vocabulary.txt`` (one WordPiece token a line), ``vocabulary.json`` (a byte-pair
token -> id object) and ``merges.txt`` (one merge rule a line), and
``vocabulary.spm`` (a serialized SentencePiece model). Nothing in them is run;
a file over :data:`MAX_ASSET_BYTES` is refused before it is read, and one of
more than :data:`MAX_ENTRIES` tokens or merge rules (counted on its bytes)
before it is parsed: the largest real vocabularies hold about 262,000 tokens,
and a file of ten million would take gigabytes to hold in Python.
"""

from __future__ import annotations

import io
import json
import os
from typing import Any, Iterable

from tfkit.base import safe_mode

MAX_ASSET_BYTES = (
    64 * 2**20
)  # Gemma 3's tokenizer.json is 33 MB, its SentencePiece model 4.7 MB, Llama 3's merges 1.7 MB
MAX_ENTRIES = (
    2**21
)  # tokens of a vocabulary, rules of a merges file: Gemma 3 has 262,144 tokens, Llama 3 280,000 merges


def read_bytes(path: str, what: str) -> bytes:
    """The content of file ``path``; ``what`` names it in errors (a missing file, one over the size limit)."""
    try:
        size = os.path.getsize(path)
    except OSError as error:
        raise ValueError(f"{what}: cannot read file {path!r} ({error})") from None
    if size > MAX_ASSET_BYTES:
        raise ValueError(f"{what}: file {path!r} is {size} bytes; the limit is {MAX_ASSET_BYTES}")
    with open(path, "rb") as handle:
        data = handle.read(MAX_ASSET_BYTES + 1)  # never more, should the file grow meanwhile
    if len(data) > MAX_ASSET_BYTES:
        raise ValueError(f"{what}: file {path!r} is over {MAX_ASSET_BYTES} bytes; the limit")
    return data


def _text(path: str, what: str, separator: bytes) -> str:
    r"""The file's text, refused unread past :data:`MAX_ASSET_BYTES` and unparsed past :data:`MAX_ENTRIES` entries
    (``separator``\ s, one between two entries: an upper bound on them)."""
    data = read_bytes(path, what)
    entries = data.count(separator) + (separator == b"\n" and data.count(b"\r"))  # old Macs' line ends
    if entries > MAX_ENTRIES:
        raise ValueError(f"{what}: file {path!r} holds up to {entries} entries; the limit is {MAX_ENTRIES}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{what}: file {path!r} is not UTF-8 text ({error})") from None


def read_lines(path: str, what: str) -> list[str]:
    """The lines of text file ``path``, trailing whitespace removed (as KerasHub reads vocabularies and merges)."""
    # Lines as Python's text files split them (\n, \r\n, \r), not str.splitlines (which also splits on \x85).
    return [line.rstrip() for line in io.StringIO(_text(path, what, b"\n"), newline=None)]


def read_vocabulary_json(path: str, what: str) -> dict[str, int]:
    """A byte-pair vocabulary file: a JSON object from token strings to integer ids."""
    text = _text(path, what, b",")
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"{what}: file {path!r} is nested too deeply to be a vocabulary") from None
    except ValueError as error:
        raise ValueError(f"{what}: file {path!r} is not valid JSON ({error})") from None
    return checked_vocabulary(value, f"{what} (file {path!r})")


def checked_vocabulary(value: Any, what: str) -> dict[str, int]:
    """A copy of ``value`` as a token -> id dict; ``ValueError`` naming the first entry that is not one."""
    if not isinstance(value, dict):
        raise ValueError(f"{what}: expected a mapping from token strings to integer ids, got {type(value).__name__}")
    if len(value) > MAX_ENTRIES:
        raise ValueError(f"{what}: {len(value)} tokens; the limit is {MAX_ENTRIES}")
    for token, index in value.items():
        if (
            not isinstance(token, str)
            or isinstance(index, bool)
            or not isinstance(index, int)
            or not 0 <= index < MAX_ENTRIES
        ):
            raise ValueError(
                f"{what}: expected a mapping from token strings to integer ids from 0 to {MAX_ENTRIES - 1}, "
                f"got the entry {str(token)[:100]!r}: {str(index)[:40]}"
            )
    return dict(value)


def checked_lines(value: Any, what: str) -> list[str]:
    """A copy of ``value`` (an iterable of strings, not a string) as a list; ``ValueError`` otherwise."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"{what}: expected a list of strings, got {type(value).__name__}")
    lines = []
    for line in value:  # no more than the limit is ever listed
        lines.append(line)
        if len(lines) > MAX_ENTRIES:
            raise ValueError(f"{what}: more than {MAX_ENTRIES} entries; the limit is {MAX_ENTRIES}")
    for i, line in enumerate(lines):
        if not isinstance(line, str):
            raise ValueError(f"{what}: expected a list of strings, item {i} is {line!r}")
    return lines


def write_lines(path: str, lines: Iterable[str]) -> None:
    """One line per string, UTF-8, as KerasHub writes ``vocabulary.txt`` and ``merges.txt``."""
    with open(path, "w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(f"{line}\n")


def refuse_path_in_safe_mode(config: dict[str, Any], keys: tuple[str, ...], who: str) -> None:
    """A ``ValueError`` if a config being loaded in safe mode names a file (``vocabulary="/etc/..."``) to read.

    A preset's config holds ``None`` there (its vocabulary travels as an asset
    file); a path in a config would make loading read a file outside the
    preset, which safe mode refuses, as KerasHub does.
    """
    for key in keys:
        value = config.get(key)
        if isinstance(value, str) and safe_mode.in_safe_mode():
            raise ValueError(
                f"Refused to rebuild {who} '{config.get('name')}' from a config whose `{key}` names a file "
                f"({value[:200]!r}): loading would read a file outside the saved object. This is refused in "
                f"safe mode. If you trust the file, load with safe_mode=False or call "
                f"tfkit.config.enable_unsafe_deserialization()"
            )
