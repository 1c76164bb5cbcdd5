"""Every public name's docstring follows the rules the API reference is built on.

The names are those ``tools/api_reference.py`` counts (the Keras-named
namespaces, ``distillation`` and the dataset loaders). A name passes when its
docstring has a summary, an ``Args:`` entry for every parameter and an
``Example:`` doctest; names not yet written up are listed in
``tools/docstring_debt.txt``, which may only shrink. Every docstring must also
parse as the site renders it (napoleon, then docutils) without a warning.
The examples themselves run in ``tests/test_docstring_examples.py``.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import api_reference  # noqa: E402


@pytest.fixture(scope="module")
def audit():
    return list(api_reference.audit())


def test_every_name_not_listed_as_debt_follows_the_rules(audit):
    debt = api_reference.read_debt()
    breaking = [
        f"{entry.path}: {'; '.join(found)}"
        for entry, found in audit
        if found and not api_reference.rule_names(found) <= debt.get(entry.path, set())
    ]
    assert not breaking, (
        "public names whose docstrings break the rules (a summary, Args: for every parameter, an Example: "
        "doctest; see docs/contributing.md):\n" + "\n".join(breaking)
    )


def test_debt_list_only_shrinks(audit):
    found_by_path = {entry.path: api_reference.rule_names(found) for entry, found in audit}
    stale = [
        f"{path}: {', '.join(sorted(rules - found_by_path.get(path, set())))}"
        for path, rules in api_reference.read_debt().items()
        if path not in found_by_path or rules - found_by_path[path]
    ]
    assert not stale, (
        "tools/docstring_debt.txt lists rules these names now meet (or names that are gone); "
        "run `python tools/api_reference.py --write-debt`:\n" + "\n".join(stale)
    )


def test_every_docstring_parses_as_the_site_renders_it():
    warnings = []
    for entry in api_reference.unique_objects():
        warnings += [f"{entry.path}: {w}" for w in api_reference.restructured_text_warnings(entry.obj)]
    assert not warnings, "\n".join(warnings)


def test_counts_are_those_of_the_public_namespaces():
    entries = api_reference.public_api()
    paths = {e.path for e in entries}
    assert {
        "tfkit.layers.Dense",
        "tfkit.ops.add",
        "tfkit.ops.numpy.add",
        "tfkit.Model",
        "tfkit.datasets.mnist.load_data",
        "tfkit.distillation.Distiller",
    } <= paths
    assert len(paths) == len(entries)
    assert not any(name.split(".")[-1].startswith("_") for name in paths)


def test_rules_read_google_style_sections():
    def documented(x, y=1, *args, **kwargs):
        """Add.

        Args:
            x: A tensor.
            y: Another. Defaults to `1`.
            *args: Ignored.
            **kwargs: Ignored.

        Example:
            >>> documented(1)
        """

    def undocumented(x, y=1):
        """Add ``x`` and ``y``."""

    assert api_reference.problems(documented) == []
    assert api_reference.problems(undocumented) == ["arguments: x, y", "example"]
    assert api_reference.problems(lambda: None) == ["docstring", "example"]
