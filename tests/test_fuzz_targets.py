"""The coverage-guided fuzz targets (tools/fuzz.py) in the suite: corpora replayed, each target fuzzed briefly.

Every committed input (seeds: real files Keras 3, tf-keras and tfkit write; regressions: each input a
campaign found a problem with, kept after the fix) goes through its target's checks: loaded or refused
with ValueError naming the input, no import or call outside the allowed ones, and agreement with the
reference reader. With TFKIT_LONG_TESTS=1 (or TFKIT_FUZZ_RUNS_SCALE set), atheris also fuzzes each target
briefly from that corpus: a fixed count of inputs from a fixed seed (Target.suite_runs, about two seconds
each; TFKIT_FUZZ_RUNS_SCALE multiplies it). The default suite leaves that out to stay within its 20
minutes: it re-finds nothing the corpus replay does not, and the campaigns are what find new problems.

    python tools/fuzz.py run all --seconds 1800     # the long campaign (README, "Fuzzing")
"""

import os
import pickle
import sys
from pathlib import Path

import pytest
from long_checks import LONG_RUN

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from fuzzing import corpus, engine, guard, replay  # noqa: E402
from fuzzing.target import Finding, get, names  # noqa: E402

RUNS_SCALE = float(os.environ.get("TFKIT_FUZZ_RUNS_SCALE", "1"))  # 10: ten times the inputs
BRIEF_RUNS = bool(LONG_RUN or os.environ.get("TFKIT_FUZZ_RUNS_SCALE"))


@pytest.mark.parametrize("name", names())
def test_committed_inputs_pass_their_target(name):
    inputs = corpus.committed_inputs(name)
    assert len([p for p in inputs if p.parent.name == "seeds"]) >= 4, f"{name} has too few seeds"
    assert replay.replay(get(name), inputs) == []


def test_every_finding_is_kept_as_a_regression_input():
    kept = {
        name: len(list(corpus.regressions_dir(name).glob("*")))
        for name in names()
        if corpus.regressions_dir(name).is_dir()
    }
    assert sum(kept.values()) >= 10, kept  # the campaigns' findings (see each folder's file names)


def test_the_guard_refuses_a_pickle_global_and_a_new_import(tmp_path):
    with pytest.raises(Finding, match="pickle.find_class"):
        with guard.armed():
            pickle.loads(pickle.dumps(os.getcwd))
    sys.modules.pop("colorsys", None)
    with pytest.raises(Finding, match="imported 'colorsys'"):
        with guard.armed():
            import colorsys  # noqa: F401
    with pytest.raises(Finding, match="for writing"):
        with guard.armed(write_roots=(str(tmp_path / "inside"),)):
            (tmp_path / "outside.txt").write_text("x")
    with guard.armed(allowed_imports=("colorsys",)):  # what a target allows passes
        sys.modules.pop("colorsys", None)
        import colorsys  # noqa: F401,F811


def test_the_checkpoint_mutator_repairs_every_block_checksum():
    """Mutated indexes get past the CRC-32C test to the entry checks behind it (tools/fuzzing/targets)."""
    from fuzzing.targets import checkpoint_index_target as target

    from tfkit.files import checkpoint_index as ci

    seed = sorted(corpus.seeds_dir("checkpoint_index").iterdir())[0].read_bytes()
    index, _ = target.split(seed)
    data = bytearray(index)
    footer_at = len(data) - ci.FOOTER_BYTES
    meta_offset, meta_size, pos = ci._handle(data, footer_at, footer_at + 40)
    index_offset, index_size, _ = ci._handle(data, pos, footer_at + 40)
    blocks = [(meta_offset, meta_size), (index_offset, index_size)] + [
        ci._handle(handle, 0, len(handle))[:2] for _, handle in ci._block(index, index_offset, index_size)
    ]
    for offset, size in blocks:  # every stored checksum wrong
        data[offset + size + 1 : offset + size + 5] = b"\0\0\0\0"
    assert bytes(data) != index and target.repair_checksums(bytes(data)) == index
    assert target.repair_checksums(b"short") == b"short"  # nothing to find: left as it is


@pytest.mark.slow
@pytest.mark.skipif(not BRIEF_RUNS, reason="about 2.5 minutes: run with TFKIT_LONG_TESTS=1")
def test_each_target_fuzzes_briefly_without_findings(tmp_path):
    """Each target's ``suite_runs`` inputs from seed 1 (about two seconds each): the same inputs on every machine,
    so that the suite does not fail on a finding a faster machine happened to reach (a campaign finds those)."""
    pytest.importorskip("atheris")
    failures = {}
    for name in names():
        target = get(name)
        summary = engine.run(target, 120, tmp_path, runs=int(target.suite_runs * RUNS_SCALE), seed=1)
        assert summary["executions"] > 0, summary
        if summary["exit_code"] != 0:
            failures[name] = summary["finding"][:2000] or summary["exit_code"]
    assert failures == {}
