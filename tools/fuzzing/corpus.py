"""Where each target's corpora live: committed seeds and regressions, and a campaign's own corpus.

tests/fuzz_corpus/<target>/seeds/         written by ``tools/fuzz.py seeds`` (real files the project makes)
tests/fuzz_corpus/<target>/regressions/   every input a campaign found a problem with, kept after the fix
<workdir>/<target>/corpus/                what a campaign adds (libFuzzer writes its new inputs here)
<workdir>/<target>/crashes/               the inputs of findings (crash-*, timeout-*, oom-*)
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "tests" / "fuzz_corpus"
DEFAULT_WORKDIR = Path(os.environ.get("TFKIT_FUZZ_WORKDIR", Path.home() / ".cache" / "tfkit-fuzz"))


def seeds_dir(target: str) -> Path:
    return COMMITTED / target / "seeds"


def regressions_dir(target: str) -> Path:
    return COMMITTED / target / "regressions"


def committed_inputs(target: str) -> list[Path]:
    """Every committed input of ``target``: seeds, then regressions, each in name order."""
    return [
        p
        for folder in (seeds_dir(target), regressions_dir(target))
        if folder.is_dir()
        for p in sorted(folder.iterdir())
        if p.is_file()
    ]


def campaign_dirs(workdir: Path, target: str) -> tuple[Path, Path]:
    """The campaign's ``(corpus, crashes)`` folders, created if missing."""
    corpus, crashes = workdir / target / "corpus", workdir / target / "crashes"
    corpus.mkdir(parents=True, exist_ok=True)
    crashes.mkdir(parents=True, exist_ok=True)
    return corpus, crashes
