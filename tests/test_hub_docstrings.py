"""Every docstring example in tfkit.hub runs, and every docstring there follows the rules; one test per module.

    python -m pytest tests/test_hub_docstrings.py -k gemma_attention     # one module's examples

The modules are found by walking the ``tfkit.hub`` package (``pkgutil.walk_packages``), so a module that is
added, renamed or moved is checked without a list to keep. The examples of the public names of the hub
namespaces (``tools/api_reference.py``'s ``HUB_NAMESPACES``; a class's methods and private bases too) already
run in ``tests/test_docstring_examples.py`` and are left out here; every other doctest found in a module (its
functions, classes, methods and the module's own docstring) runs as those do: in a fresh namespace holding
``tfkit``, ``tf`` and ``np``, after ``clear_session`` and seed 0, in a temporary working folder.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pathlib
import pkgutil
import sys
import types

import numpy as np
import pytest
import tensorflow as tf

import tfkit
import tfkit.hub

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import api_reference  # noqa: E402

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def hub_module_names() -> list[str]:
    """Every module and package under ``tfkit.hub``, ``tfkit.hub`` itself first."""
    found = ["tfkit.hub"]
    found += [info.name for info in pkgutil.walk_packages(tfkit.hub.__path__, "tfkit.hub.")]
    return found


def public_docstrings() -> set[str]:
    """The docstrings ``test_docstring_examples`` runs for the hub namespaces' public names."""
    public_ids = {id(entry.obj) for entry in api_reference.public_api()}
    texts = set()
    for entry in api_reference.unique_objects():
        if entry.namespace.split(".")[0] != "hub":
            continue
        owners = [entry.obj]
        if isinstance(entry.obj, type):  # its private tfkit bases' methods run with it there
            owners += [b for b in entry.obj.__mro__[1:] if b.__module__.startswith("tfkit") and id(b) not in public_ids]
        for owner in owners:
            finder = doctest.DocTestFinder(recurse=isinstance(owner, type), exclude_empty=True)
            texts.update(test.docstring for test in finder.find(owner, owner.__name__, module=False, globs={}))
    return texts


MODULES = hub_module_names()
PUBLIC_DOCSTRINGS = public_docstrings()


def private_doctests(module: types.ModuleType) -> list[doctest.DocTest]:
    """The doctests of ``module``'s own objects (and its docstring) that ``test_docstring_examples`` does not run."""
    tests = doctest.DocTestFinder(exclude_empty=True).find(module, module.__name__, globs={})
    return [test for test in tests if test.examples and test.docstring not in PUBLIC_DOCSTRINGS]


def documented_objects(module: types.ModuleType) -> list[object]:
    """The classes and functions ``module`` defines."""
    return [
        value
        for _, value in sorted(vars(module).items())
        if (inspect.isclass(value) or inspect.isfunction(value)) and value.__module__ == module.__name__
    ]


# modules holding examples to run, decided when the module is imported (a failing import fails its test)
RUNNABLE = []
for _name in MODULES:
    try:
        if private_doctests(importlib.import_module(_name)):
            RUNNABLE.append(_name)
    except Exception:  # noqa: BLE001 - reported by the test of that module below
        RUNNABLE.append(_name)


@pytest.mark.parametrize("module_name", RUNNABLE)
def test_the_private_examples_run(module_name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    report = []
    for test in private_doctests(importlib.import_module(module_name)):
        tfkit.backend.clear_session(free_memory=False)
        tfkit.utils.set_random_seed(0)
        test.globs = {"tfkit": tfkit, "tf": tf, "np": np}
        doctest.DocTestRunner(optionflags=FLAGS).run(test, out=report.append)
        test.globs.clear()
    assert not report, "".join(report)


def test_every_private_object_with_an_example_is_found():
    """The walk reaches the examples the families' files used to list by hand, and leaves the public ones out."""
    from tfkit.hub.layers.kv_cache import update_cache
    from tfkit.hub.models.gemma.gemma_attention import CachedGemmaAttention

    names = {test.name for name in RUNNABLE for test in private_doctests(importlib.import_module(name))}
    assert {
        "tfkit.hub.layers.kv_cache.update_cache",
        "tfkit.hub.models.gemma.gemma_attention.CachedGemmaAttention",
    } <= names
    assert update_cache.__doc__ not in PUBLIC_DOCSTRINGS and CachedGemmaAttention.__doc__ not in PUBLIC_DOCSTRINGS
    assert tfkit.hub.models.GemmaBackbone.__doc__ in PUBLIC_DOCSTRINGS
    assert not any(name.startswith("tfkit.hub.models.gemma.gemma_backbone.GemmaBackbone") for name in names)


@pytest.mark.parametrize("module_name", MODULES)
def test_public_docstrings_follow_the_rules_and_parse_as_the_site_renders_them(module_name):
    """Each public name a module defines (a class's methods too) has a summary, every argument and an example;
    every class and function a module defines parses without a warning through napoleon and docutils, as the
    site renders it."""
    module = importlib.import_module(module_name)
    public_ids = {id(entry.obj) for entry in api_reference.public_api()}
    broken = []
    for obj in documented_objects(module):
        name = f"{module_name}.{obj.__qualname__}"
        if id(obj) in public_ids:
            broken += [f"{name}: {problem}" for problem in api_reference.problems(obj)]
        # every docstring, private ones too, parses without a warning (a private one is read in the source)
        broken += [f"{name}: {warning}" for warning in api_reference.restructured_text_warnings(obj)]
    assert not broken, "\n".join(broken)
