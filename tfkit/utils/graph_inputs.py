"""``get_source_inputs``: the ``tfkit.Input`` tensors a symbolic tensor was computed from.

x = tfkit.Input((4,)); y = tfkit.layers.Dense(2)(x)
tfkit.utils.get_source_inputs(y)      # [x]
tfkit.utils.is_keras_tensor(y)        # True
"""

from __future__ import annotations

from typing import Any

from tfkit.base.symbolic import SymbolicTensor


def is_keras_tensor(x: Any) -> bool:
    """Checks whether `x` is a symbolic tensor (`tfkit.KerasTensor`): from `tfkit.Input` or a layer called on one.

    Args:
        x: Any object.

    Returns:
        `True` for a symbolic tensor; `False` otherwise, eager tensors
        included.

    Example:
        >>> x = tfkit.Input((3,))
        >>> tfkit.utils.is_keras_tensor(tfkit.layers.Dense(2)(x))
        True
        >>> tfkit.utils.is_keras_tensor(np.ones(3))
        False
    """
    return isinstance(x, SymbolicTensor)


def get_source_inputs(tensor: Any) -> Any:
    """Returns the input tensors a symbolic tensor was computed from.

    Walks the recorded layer calls back to the tensors that no call
    produced (the `tfkit.Input` tensors), in the order first reached.

    Args:
        tensor: A symbolic tensor.

    Returns:
        A list of the source input tensors; a tensor that is not symbolic
        comes back as it is (as in Keras).

    Example:
        >>> a, b = tfkit.Input((2,), name="a"), tfkit.Input((2,), name="b")
        >>> out = tfkit.layers.Add()([a, tfkit.layers.Dense(2)(b)])
        >>> [t.name for t in tfkit.utils.get_source_inputs(out)]
        ['a', 'b']
    """
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
