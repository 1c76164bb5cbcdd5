"""Signatures as the API reference shows them (tools/api_signatures.py): no ``Any``, aliases written out, tfkit types named
by their documented paths. The site's strict build (tests/test_docs_site.py) checks the pages; this checks the rules."""

from __future__ import annotations

import pathlib
import sys
from collections.abc import Sequence
from typing import Any, Callable

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
pytest.importorskip("sphinx")
import api_signatures  # noqa: E402

import tfkit  # noqa: E402

IntOrTuple = int | Sequence[int]
NAMESPACE = {
    "Any": Any,
    "Callable": Callable,
    "Sequence": Sequence,
    "IntOrTuple": IntOrTuple,
    "Layer": tfkit.layers.Layer,
    "tfkit": tfkit,
}


def documented(obj):
    return {tfkit.layers.Layer: "tfkit.layers.Layer"}.get(obj)


@pytest.mark.parametrize(
    "annotation, shown",
    [
        ("Any", None),
        ("Any | None", None),
        ("Optional[Any]", None),
        ("dict[str, Any] | None", "dict | None"),
        ("Callable[..., Any]", "Callable"),
        ("Callable[[Any], Any]", "Callable"),
        ("Sequence[Any] | None", "Sequence | None"),
        ("tuple[Any, Any]", "tuple"),
        ("int | str", "int | str"),
        ("tf.Tensor", "tf.Tensor"),
        ("IntOrTuple | None", "int | ~collections.abc.Sequence[int] | None"),
        ("Layer", "~tfkit.layers.Layer"),
        ("'Layer'", "~tfkit.layers.Layer"),
        ("~tfkit.engine.layer.Layer | None", "~tfkit.layers.Layer | None"),
        ("Callable[[Layer], Layer]", "Callable[[~tfkit.layers.Layer], ~tfkit.layers.Layer]"),
    ],
)
def test_an_annotation_reads_as_a_real_type_or_nothing(annotation, shown):
    annotation = annotation.replace("tfkit.engine.layer.Layer", tfkit.layers.Layer.__module__ + ".Layer")
    assert api_signatures.clean_annotation(annotation, NAMESPACE, documented) == shown


def test_a_signature_drops_any_and_keeps_its_defaults():
    signature, returns = api_signatures.clean_signature(
        "(units: int, activation: Any = 'tanh', *args: Any, layer: Layer | None = None, **kwargs: Any)",
        "Any",
        NAMESPACE,
        documented,
    )
    assert signature == "(units: int, activation='tanh', *args, layer: ~tfkit.layers.Layer | None = None, **kwargs)"
    assert returns == ""


def test_the_classes_an_annotation_names_include_those_behind_an_alias():
    clone_function = Callable[[tfkit.layers.Layer], tfkit.layers.Layer]
    found = api_signatures.referenced_classes("CloneFunction | None", {"CloneFunction": clone_function})
    assert found == [tfkit.layers.Layer]
