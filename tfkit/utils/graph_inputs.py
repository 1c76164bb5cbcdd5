"""``get_source_inputs``: the ``tfkit.Input`` tensors a symbolic tensor was computed from.

    x = tfkit.Input((4,)); y = tfkit.layers.Dense(2)(x)
    tfkit.utils.get_source_inputs(y)      # [x]
    tfkit.utils.is_keras_tensor(y)        # True
"""

from __future__ import annotations

from typing import Any

from tfkit.base.symbolic import SymbolicTensor


def is_keras_tensor(x: Any) -> bool:
    """Whether ``x`` is a symbolic tensor of a functional model (``tfkit.Input`` or a layer called on one)."""
    return isinstance(x, SymbolicTensor)


def get_source_inputs(tensor: Any) -> Any:
    """The input tensors at the start of ``tensor``'s graph, in the order first reached; a tensor that is not
    symbolic comes back as it is (as in Keras)."""
    if not isinstance(tensor, SymbolicTensor):
        return tensor
    sources: list[SymbolicTensor] = []
    seen: set[int] = set()
    pending = [tensor]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        node = current.node
        parents = node.input_tensors if node is not None else []
        if not parents:
            sources.append(current)
        pending.extend(reversed(parents))
    return sources
