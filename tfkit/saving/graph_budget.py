"""A budget on the TensorFlow graph that rebuilding a model from a file builds.

    with graph_budget("model.h5"):              # entered by guard.variable_budget, around every rebuild
        model = model_from_config(config)       # each graph op traced here is counted and its outputs sized
    # ValueError: ... op 'repeat_vector/Repeat/Tile' (Tile) would output a tensor of shape (None, 1, ...

Rebuilding traces every layer into a graph: that allocates no tensor data,
but each op costs about a millisecond and a few KB, and the graph fixes the
shapes that ``predict`` will later allocate. ``config_cost`` bounds the
config's arguments one by one; this bounds what they add up to once shapes
flow, whatever layer or operation they come from:

- ``MAX_OP_OUTPUTS`` tensors from one op (``tf.unstack`` of a 300,000-wide axis
  in a functional model's config makes 300,000 tensors and hangs the load);
- ``config_cost.MAX_SAMPLE_ELEMENTS`` elements in one output (unknown axes
  counted as 1), or the largest array the file stores if that is larger:
  ``RepeatVector(10**10)`` on 4 features loads, then asks 160 GB of every
  sample of ``predict``;
- ``MAX_GRAPH_OPS`` ops in all: a backstop for any multiplier not bounded by
  name elsewhere.

A refusal names the op, whose name scope is the layer's path
(``outer/inner_block/dense/MatMul``). Only graph construction is counted
(TensorFlow's op callbacks, the hook ``tf.debugging.enable_check_numerics``
uses); eager ops are not, nor the ops of ``load_budget.scratch_graph()``,
where tfkit sizes something without building it (a variable's initializer, an
operation whose config sets the size of its result).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from typing import Any, Iterator

from tfkit.base import load_budget
from tfkit.engine.config_cost import MAX_SAMPLE_ELEMENTS

try:  # TensorFlow's hook on op creation; without it, the config and load budgets still apply
    from tensorflow.python.framework import op_callbacks as _op_callbacks
except ImportError:  # pragma: no cover
    _op_callbacks = None

__all__ = ["graph_budget", "MAX_GRAPH_OPS", "MAX_OP_OUTPUTS"]

# Real models build about 20 ops a layer (a 12-block transformer: 1,842); a model at the object limit of a
# model file (10,000 objects and calls) stays well under this.
MAX_GRAPH_OPS = 250_000
MAX_OP_OUTPUTS = 10_000

_ACTIVE: contextvars.ContextVar[bool] = contextvars.ContextVar("tfkit_graph_budget_active", default=False)


def _elements(tensor: Any) -> int:
    shape = getattr(tensor, "shape", None)
    dims = getattr(shape, "dims", None) if shape is not None else None
    if dims is None:
        return 0
    return math.prod(d for d in (getattr(d, "value", d) for d in dims) if d is not None and d > 0)


class _Counter:
    def __init__(self, source: str, largest_array: int) -> None:
        self.source = source
        self.max_elements = max(MAX_SAMPLE_ELEMENTS, largest_array)  # reading a stored weight is never refused
        self.ops = 0
        self.refusal: str | None = None

    def __call__(
        self, op_type: str, inputs: Any, attrs: Any, outputs: Any, op_name: str | None = None, graph: Any = None
    ) -> None:
        # None: the op's outputs stay as they are (TensorFlow's protocol; it hands callbacks a tuple of them).
        if graph is None or load_budget.in_scratch_graph():  # eager execution, or a graph tfkit sizes things in
            return None
        if self.refusal is None:
            self.refusal = self._problem(op_type, outputs, op_name)
        if self.refusal is not None:  # sticky: a caller that swallows the error cannot go on building
            raise ValueError(self.refusal)
        return None

    def _problem(self, op_type: str, outputs: Any, op_name: str | None) -> str | None:
        self.ops += 1
        where = f"Rebuilding the model from {self.source}: op {op_name!r} ({op_type})"
        if self.ops > MAX_GRAPH_OPS:
            return (
                f"{where} is graph op number {self.ops}; a model file may make tfkit build at most "
                f"{MAX_GRAPH_OPS}. The config multiplies its layers (a nested model called many times, a long "
                f"unrolled loop, ...) far beyond any real model's; tfkit refuses to rebuild it."
            )
        outputs = tuple(outputs or ())
        if len(outputs) > MAX_OP_OUTPUTS:
            return (
                f"{where} would make {len(outputs)} tensors; one op of a model file may make at most "
                f"{MAX_OP_OUTPUTS} (an axis of that length is unstacked or split, by the config's shapes)."
            )
        for tensor in outputs:
            elements = _elements(tensor)
            if elements > self.max_elements:
                return (
                    f"{where} would output a tensor of shape {tensor.shape} ({elements} elements per sample, "
                    f"unknown axes counted as 1); a model file may ask for at most {self.max_elements}. The "
                    f"config's sizes multiply far beyond any real model's; tfkit refuses to rebuild it."
                )
        return None


@contextlib.contextmanager
def graph_budget(source: str, largest_array: int = 0) -> Iterator[None]:
    """Count and size the graph ops built in this thread while the model from ``source`` is rebuilt.

    ``largest_array``: the elements of the largest array the file stores; a tensor that large is allowed too.
    """
    if _op_callbacks is None or _ACTIVE.get():  # a load inside a load shares the outer budget
        yield
        return
    counter = _Counter(source, largest_array)
    token = _ACTIVE.set(True)
    _op_callbacks.add_op_callback(counter)
    try:
        yield
    finally:
        _op_callbacks.remove_op_callback(counter)
        _ACTIVE.reset(token)
