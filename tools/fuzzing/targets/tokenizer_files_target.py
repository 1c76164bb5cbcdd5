"""Target ``tokenizer_files``: ``tfkit.hub.tokenizers.asset_files``, the readers of a preset's vocabulary files.

Each input is read both ways a preset's tokenizer files are: as a byte-pair ``vocabulary.json`` (a token -> id
object) and as a line file (``vocabulary.txt``, ``merges.txt``). Reference: Python's own ``json`` and text
line splitting. Wherever tfkit accepts a file it equals the reference; wherever the reference reads a file
within tfkit's limits (its size, entry and id bounds), tfkit reads it too.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from fuzzing.target import Finding, Target, as_file, read_guarded, write_seeds

NAME = "fuzz-vocabulary.json"


def _reference_vocabulary(data: bytes) -> dict | None:
    from tfkit.hub.tokenizers import asset_files

    try:
        value = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or len(value) > asset_files.MAX_ENTRIES:
        return None
    for token, index in value.items():
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < asset_files.MAX_ENTRIES:
            return None
    return value


def _reference_lines(data: bytes) -> list[str] | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return [line.rstrip() for line in io.StringIO(text, newline=None)]


def check(data: bytes) -> None:
    from tfkit.hub.tokenizers import asset_files

    path = as_file(data, NAME)
    accepted, vocabulary = read_guarded(
        frozenset(), (), NAME, lambda: asset_files.read_vocabulary_json(path, "vocabulary")
    )
    expected = _reference_vocabulary(data)
    if accepted and vocabulary != expected:
        raise Finding("read_vocabulary_json disagrees with json.loads")
    if not accepted and expected is not None and data.count(b",") < asset_files.MAX_ENTRIES:
        raise Finding("read_vocabulary_json refused a vocabulary json.loads reads within the limits")
    accepted, lines = read_guarded(frozenset(), (), NAME, lambda: asset_files.read_lines(path, "merges"))
    expected_lines = _reference_lines(data)
    if accepted and lines != expected_lines:
        raise Finding("read_lines disagrees with Python's text lines")
    if not accepted and expected_lines is not None and len(expected_lines) < asset_files.MAX_ENTRIES // 2:
        raise Finding("read_lines refused a UTF-8 text file within the limits")


def seeds(folder: Path) -> int:
    vocabulary = {"<|endoftext|>": 0, "Ġthe": 1, "he": 2, "\u00e9": 3, 'a"b': 4}
    named = [
        ("vocabulary-json", json.dumps(vocabulary).encode()),
        ("vocabulary-json-unicode", json.dumps(vocabulary, ensure_ascii=False, indent=1).encode()),
        ("merges", "#version: 0.2\nĠ t\nh e\nĠt he\n".encode()),
        ("wordpiece-crlf", b"[PAD]\r\n[UNK]\r\nthe\r\n##s\r\n"),
        ("empty-object", b"{}"),
    ]
    return write_seeds(folder, named)


def setup() -> None:
    import tfkit.hub.tokenizers.asset_files  # noqa: F401  (imported before the guard is armed)


TARGET = Target(
    name="tokenizer_files",
    reader="tfkit.hub.tokenizers.asset_files (vocabulary.json, vocabulary.txt, merges.txt)",
    modules=("tfkit.hub.tokenizers.asset_files",),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=16384,
    dictionary=(b'{"', b'":', b", ", b"\\u", b"\r\n", b"#version"),
    suite_runs=3000,
)
