"""Benchmark tfkit against Keras 3, tf-keras and a hand-written TensorFlow loop.

    pip install -e ".[bench]"
    python tools/bench.py --quick             # smoke run, a few minutes
    python tools/bench.py                     # full run, writes docs/PERFORMANCE.md

Each measurement runs in its own subprocess; runners are interleaved and the plan
is repeated (``--repeats``); the table holds medians and ratios to tfkit. See
``python tools/bench.py --help`` and the ``bench`` package beside this file.
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench.cli import main  # noqa: E402  (the package ``tools/bench/``)

if __name__ == "__main__":
    sys.exit(main())
