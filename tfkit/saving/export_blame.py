"""Which layers produced the TensorFlow ops a converter refused: op names carry the layer name scopes.

blame(concrete_function, {"StatelessRandomNormalV2"}, model)
# -> {"StatelessRandomNormalV2": ["autoencoder/encoder/sampling"]}
describe(...)  # "StatelessRandomNormalV2 (from layer autoencoder/encoder/sampling)"
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from tfkit.engine.layer import Layer

RANDOM_PREFIXES = (
    "StatelessRandom",
    "RandomStandardNormal",
    "RandomUniform",
    "StatelessTruncated",
    "StatelessMultinomial",
    "StatelessParameterized",
    "TruncatedNormal",
)


def _nodes(graph_def: Any) -> Iterable[Any]:
    yield from graph_def.node
    for function in graph_def.library.function:
        yield from function.node_def


def _layer_names(model: Any) -> set[str]:
    return {m.name for m in [model, *model.submodules] if isinstance(m, Layer)}


def _layer_path(node_name: str, names: set[str]) -> str:
    parts = node_name.split("/")
    path = []
    for part in parts[:-1]:
        if part not in names and part.rsplit("_", 1)[0] not in names:
            break
        path.append(part)
    return "/".join(path) or node_name


def blame(concrete: Any, op_types: Iterable[str], model: Any) -> dict[str, list[str]]:
    """``{op type: [layer paths]}`` for the given op types in the traced function (and its nested functions)."""
    wanted, names = set(op_types), _layer_names(model)
    found: dict[str, list[str]] = {op: [] for op in wanted}
    for node in _nodes(concrete.graph.as_graph_def()):
        if node.op in wanted:
            path = _layer_path(node.name, names)
            if path not in found[node.op]:
                found[node.op].append(path)
    return found


def describe(found: dict[str, list[str]]) -> str:
    """``"Op (from layer a/b), Other (from layers c, d)"`` for an error message."""
    items = []
    for op, paths in sorted(found.items()):
        where = f" (from layer{'s' if len(paths) > 1 else ''} {', '.join(paths)})" if paths else ""
        items.append(op + where)
    return ", ".join(items)


def is_random(op_types: Iterable[str]) -> bool:
    """Whether any of the ops draws random numbers."""
    return any(op.startswith(RANDOM_PREFIXES) for op in op_types)


def failing_layer(error: BaseException, model: Any) -> str:
    """``" in layer a/b"`` (with a hint for recurrent loops) when a runtime's error names a graph node."""
    match = re.search(r"Node \(([^)]+)\)", str(error))
    if match is None:
        return ""
    path = _layer_path(match.group(1), _layer_names(model))
    if path == match.group(1):
        return ""
    hint = ""
    if "while" in match.group(1) and "Loop" in str(error):
        hint = (
            " (tf2onnx's Loop for a recurrent layer with return_sequences=False; build it with unroll=True, "
            "or return_sequences=True and keep the last step)"
        )
    return f" in layer {path}{hint}"
