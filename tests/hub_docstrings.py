"""Runs the ``Example:`` doctests of tfkit.hub's private parts, as ``test_docstring_examples`` runs the public ones.

    report = run_private_docstring_examples([LlamaAttention, tk_hub.models.LlamaBackbone])
    assert not report, "".join(report)

A family's test lists the objects whose examples belong to it. The public
ones (reachable from a ``tfkit.hub`` namespace) are skipped: their examples
already run in ``test_docstring_examples[hub]``, and running them twice cost
the suite about 40 s. Each docstring runs in a fresh namespace holding
``tfkit``, ``tf`` and ``np``, after ``clear_session`` and seed 0.
"""

from __future__ import annotations

import doctest
import importlib
import pathlib
import sys
from typing import Any

import numpy as np
import tensorflow as tf

import tfkit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import api_reference  # noqa: E402


def is_public(obj: Any) -> bool:
    """Whether ``obj`` is a public name of a ``tfkit.hub`` namespace (``tfkit.hub.models.GPT2Backbone``)."""
    name = getattr(obj, "__name__", None)
    for namespace in api_reference.HUB_NAMESPACES:
        module = importlib.import_module(f"tfkit.{namespace}")
        if name is not None and getattr(module, name, None) is obj:
            return True
    return False


def run_private_docstring_examples(objects: list[Any]) -> list[str]:
    """Runs the doctests of the objects that are not public (a class's methods too); returns the failure reports.

    Raises:
        AssertionError: If none of the private objects has an example (a list that tests nothing).
    """
    report: list[str] = []
    ran = 0
    for obj in objects:
        if is_public(obj):
            continue
        finder = doctest.DocTestFinder(recurse=isinstance(obj, type), exclude_empty=True)
        for test in finder.find(obj, obj.__name__, module=False, globs={}):
            if not test.examples:
                continue
            tfkit.backend.clear_session(free_memory=False)
            tfkit.utils.set_random_seed(0)
            test.globs = {"tfkit": tfkit, "tf": tf, "np": np}
            doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE).run(
                test, out=report.append
            )
            ran += 1
    assert ran, "no private object of the list has an example"
    return report
