"""The test suite's writers of dataset-shaped files (``tests/dataset_files.py``), for the seed corpora."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[3] / "tests"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import dataset_files  # noqa: E402

__all__ = ["dataset_files"]
