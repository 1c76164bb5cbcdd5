"""Hostile KerasHub presets and Hugging Face checkpoints: every one refused as tfkit's other loaders refuse files.

Each family's clean preset or checkpoint (made by KerasHub) is copied and altered the way an attacker would
(``tests/hostile_presets.py``: configs asking for huge or inconsistent models, names and links leading out of
the folder, tokenizer files of millions of entries, a SentencePiece model whose trie crashes the kernel,
weights of another model, code in configs), then loaded by ``tfkit.hub`` in one separate process, each case in
a thread under a time limit, with its memory sampled. Every case must be refused with a ``ValueError`` naming
the preset, in bounded time and memory, without running code, reading or writing outside, opening a
connection or changing a global setting; every clean control must load. The suite runs each kind of case
once (the families taking turns); ``TFKIT_HOSTILE_PRESETS=all`` runs all of them (700), and
``tools/hostile_presets.py`` runs them one process a case, beside KerasHub.
"""

import os

import pytest
import time_limits

pytest.importorskip("keras_hub")
pytest.importorskip("safetensors")
pytest.importorskip("sentencepiece")

from hostile_presets import FAILURE_CLASSES, FAMILIES, Listener, build_corpus, judge, make_clean, run_cases  # noqa: E402

pytestmark = pytest.mark.slow  # one separate loading process for the whole set
CASE_TIMEOUT_S = 60


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile_presets")
    clean = make_clean(root)
    with Listener(root) as listener:
        cases = build_corpus(root, clean, listener.port, subset=os.environ.get("TFKIT_HOSTILE_PRESETS") != "all")
        results = run_cases(cases, root, "tfkit", time_limits.seconds(CASE_TIMEOUT_S))
    return {case["name"]: (case, results.get(case["name"]), judge(case, results.get(case["name"]))) for case in cases}


def test_every_family_has_a_clean_control_that_loads(outcomes):
    controls = {case["family"]: (failure, result) for case, result, failure in outcomes.values() if not case["tries"]}
    assert sorted(controls) == sorted(FAMILIES)
    assert {family: outcome for family, outcome in controls.items() if outcome[0]} == {}


def test_every_hostile_case_is_refused_with_a_value_error_naming_the_preset(outcomes):
    failures = {name: (failure, result) for name, (case, result, failure) in outcomes.items() if failure}
    assert failures == {}


def test_every_failure_class_is_tried(outcomes):
    tried = {case["tries"] for case, _, _ in outcomes.values() if case["tries"]}
    assert tried == set(FAILURE_CLASSES)
