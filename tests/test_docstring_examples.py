"""Every ``Example:`` in a public docstring runs, and prints what it says it prints.

The examples are doctests (``>>>`` lines with their output). Each docstring runs
in a fresh namespace holding ``tfkit``, ``tf`` and ``np``, after
``tfkit.backend.clear_session(free_memory=False)`` and ``tfkit.utils.set_random_seed(0)``, in a
temporary working folder. Output is compared with ``ELLIPSIS`` and
``NORMALIZE_WHITESPACE``. One test per namespace:
``python -m pytest tests/test_docstring_examples.py -k layers``; the generating families beyond
``GENERATION_EXAMPLES_KEPT`` are a group of their own (``hub_generation``), run by the long mode.
"""

from __future__ import annotations

import contextlib
import copy
import doctest
import pathlib
import sys

import numpy as np
import pytest
import tensorflow as tf

import tfkit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import api_reference  # noqa: E402

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# The generating tasks whose examples the default run keeps: the base classes and one family of each way of
# decoding (learned positions, rotary with experts, an encoder-decoder, speech, images and text). The other
# families' examples trace and compile a generation loop each (2-5 s on 2 cores), repeating these; their own
# test files generate against KerasHub in every run, and the long mode runs their examples too.
GENERATION_EXAMPLES_KEPT = frozenset(
    ("CausalLM", "Seq2SeqLM", "AudioToText", "GPT2CausalLM", "MixtralCausalLM", "T5Seq2SeqLM")
    + ("WhisperAudioToText", "PaliGemmaCausalLM")
)
MORE_GENERATION = "hub_generation"  # the group of the other generating families' examples


def _group_of(entry: api_reference.ApiEntry) -> str:
    namespace = entry.namespace.split(".")[0] or "toplevel"
    if namespace == "hub" and isinstance(entry.obj, type) and entry.obj.__name__ not in GENERATION_EXAMPLES_KEPT:
        from tfkit.hub.models import CausalLM, Seq2SeqLM

        if issubclass(entry.obj, (CausalLM, Seq2SeqLM)):
            return MORE_GENERATION
    return namespace


def _by_namespace() -> dict[str, list[api_reference.ApiEntry]]:
    groups: dict[str, list[api_reference.ApiEntry]] = {}
    for entry in api_reference.unique_objects():
        groups.setdefault(_group_of(entry), []).append(entry)
    return groups


GROUPS = _by_namespace()


PUBLIC_IDS = {id(entry.obj) for entry in api_reference.public_api()}
_SEEN: set[int] = set()  # docstrings already run in this process (a private base shared by several classes)


def doctests_of(entry: api_reference.ApiEntry) -> list[doctest.DocTest]:
    """The doctests in an object's docstring; for a class, also its methods' and those of its private bases.

    ``Model.fit`` is defined on a private base (the training engine): its example runs with ``Model``'s.
    """
    owners = [entry.obj]
    if isinstance(entry.obj, type):
        owners += [
            base for base in entry.obj.__mro__[1:] if base.__module__.startswith("tfkit") and id(base) not in PUBLIC_IDS
        ]
    tests = []
    for owner in owners:
        finder = doctest.DocTestFinder(recurse=isinstance(owner, type), exclude_empty=True)
        name = entry.path if owner is entry.obj else f"{entry.path}({owner.__name__})"
        for test in finder.find(owner, name, module=False, globs={}):
            if test.examples and id(test.docstring) not in _SEEN:
                _SEEN.add(id(test.docstring))
                tests.append(test)
    return tests


@contextlib.contextmanager
def global_settings_restored():
    """Keras's global settings as they were, after an example that changes them (``disable_flash_attention()``).

    Tests of the same worker process run after these; a switch left flipped would fail them.
    """
    from tfkit.base import settings

    saved = {name: copy.deepcopy(getattr(settings, name)) for name in ("_config", "_caps", "_switches")}
    policy = tfkit.config.dtype_policy()
    try:
        yield
    finally:
        for name, value in saved.items():
            getattr(settings, name).clear()
            getattr(settings, name).update(value)
        tfkit.config.set_dtype_policy(policy)


def run_examples(entry: api_reference.ApiEntry) -> str:
    """Run ``entry``'s doctests; returns the runner's report of failures ('' when all pass)."""
    report = []
    for test in doctests_of(entry):
        # Names start over; no garbage collection: with the whole suite's modules loaded, one took
        # ~0.14 s, and the ops' 352 docstrings ran 52 s instead of 4 s.
        tfkit.backend.clear_session(free_memory=False)
        tfkit.utils.set_random_seed(0)
        test.globs = {"tfkit": tfkit, "tf": tf, "np": np}
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        with global_settings_restored():
            runner.run(test, out=report.append)
        test.globs.clear()
    return "".join(report)


@pytest.mark.parametrize(
    "namespace",
    [
        pytest.param(
            name,
            marks=pytest.mark.long(reason="a generating family's example beyond one of each way of decoding")
            if name == MORE_GENERATION
            else (),
        )
        for name in sorted(GROUPS)
    ],
)
def test_examples_run(namespace, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    failures = {entry.path: run_examples(entry) for entry in GROUPS[namespace]}
    failures = {path: text for path, text in failures.items() if text}
    assert not failures, "\n".join(failures.values())


def test_a_wrong_output_is_reported():
    def shows_two():
        """Two.

        Example:
            >>> 1 + 1
            3
        """

    report = run_examples(api_reference.ApiEntry("", "shows_two", shows_two))
    assert "Expected:\n    3\nGot:\n    2" in report


def test_examples_leave_the_global_settings_as_they_found_them():
    before = (
        tfkit.config.is_flash_attention_enabled(),
        tfkit.config.image_data_format(),
        tfkit.config.dtype_policy().name,
        tfkit.config.floatx(),
    )
    for name in ("disable_flash_attention", "set_image_data_format", "set_dtype_policy", "set_floatx"):
        entry = api_reference.ApiEntry("config", name, getattr(tfkit.config, name))
        _SEEN.discard(id(entry.obj.__doc__))
        assert run_examples(entry) == ""
    assert (
        tfkit.config.is_flash_attention_enabled(),
        tfkit.config.image_data_format(),
        tfkit.config.dtype_policy().name,
        tfkit.config.floatx(),
    ) == before
