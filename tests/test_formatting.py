"""The house style holds: ``ruff format`` would change nothing and ``ruff check`` finds nothing.

Both read their settings from ``pyproject.toml`` (``[tool.ruff]``) and cover the whole repository
(files git ignores are skipped); run them yourself with ``ruff format .`` and ``ruff check .``
(``docs/contributing.md``).
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import ruff  # noqa: F401  the test extra installs it: a missing formatter fails here, not silently
import time_limits

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(300),
    )


def test_the_code_is_formatted():
    result = _ruff("format", "--check", "--no-cache")
    assert result.returncode == 0, (
        f"run `ruff format .`; it would change:\n{result.stdout[-3000:]}{result.stderr[-2000:]}"
    )


def test_the_linter_finds_nothing():
    result = _ruff("check", "--no-cache")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
