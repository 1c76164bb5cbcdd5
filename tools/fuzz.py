"""Coverage-guided fuzzing of every tfkit reader of untrusted bytes, with atheris (libFuzzer).

    pip install -e ".[fuzz]"
    python tools/fuzz.py list                          # the targets
    python tools/fuzz.py run all --seconds 30          # each target in turn, 30 s each
    python tools/fuzz.py run pickle --seconds 14400    # four hours on one reader
    python tools/fuzz.py coverage pickle               # line coverage of its reader over the corpora

Campaign corpora, crash inputs and logs go to ``~/.cache/tfkit-fuzz`` (``--workdir``
or ``TFKIT_FUZZ_WORKDIR``). A finding stops the run and prints the traceback; fix it,
then copy its input into ``tests/fuzz_corpus/<target>/regressions/``, where the suite
replays it. See the ``fuzzing`` package beside this file.
"""

from __future__ import annotations

import os
import pathlib
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from fuzzing.cli import main  # noqa: E402  (the package ``tools/fuzzing/``)

if __name__ == "__main__":
    sys.exit(main())
