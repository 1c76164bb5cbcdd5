"""A bounded, seeded fuzz campaign in CI (tests/fuzz_loaders.py; run it by hand for a longer one).

Byte mutations of tfkit's files and config mutations (tests/fuzz_configs.py: repeated vocabularies, huge
unroll lengths, multiplying arguments, nested calls, wide split axes), every class a few times.

    python tests/fuzz_loaders.py --count 5000 --seed 3
"""

import os

import pytest
from fuzz_configs import CLASSES
from fuzz_loaders import PEAK_LIMIT, run_campaign
from long_checks import LONG_RUN


@pytest.mark.slow
def test_mutated_files_are_loaded_or_refused_with_value_error(tmp_path):
    # 5 files of each mutation class (10 with TFKIT_LONG_TESTS=1): tools/fuzz.py's targets fuzz the same
    # readers coverage-guided, so this seeded campaign need not be long in the default suite
    count = int(os.environ.get("TFKIT_FUZZ_COUNT", "110" if LONG_RUN else "55"))
    report = run_campaign(tmp_path, count=count, seed=int(os.environ.get("TFKIT_FUZZ_SEED", "2024")))
    assert report["bad"] == [], report
    assert set(report["outcomes"]) <= {"loaded", "ValueError"}, report
    assert report["outcomes"].get("ValueError", 0) > count // 4, report  # the mutations do reach the checks
    assert report["peak_bytes"] < PEAK_LIMIT, report
    assert {f"config:{kind}" for kind in CLASSES} <= set(report["by_class"]), report
    assert report["config_mutations_with_altered_weights"] == [], report  # a config edit never changes weights
