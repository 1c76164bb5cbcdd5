"""A budget on the variables a model may create while it is rebuilt from a file.

    with variable_budget(per_variable=10_000, total=50_000, count=20, source="m.h5"):
        model = model_from_config(config)          # a Dense(10**12) in the config fails here

A config is data, but data can still say ``Dense(units=10**12)``: building
that would try to allocate terabytes before any weight is compared with the
file. Inside this context every new ``tf.Variable`` has its shape worked out
*before* its initializer runs (the initializer is traced in a throwaway graph,
which allocates nothing) and is refused when it is larger than anything the
file actually stores (a variable created with a declared ``shape``, as ``add_weight``
makes them, is sized from it: TensorFlow refuses an initial value of another
shape). The same context opens the file's ``load_budget``, which
counts the work that layers can only size once shapes flow (unrolled RNN
timesteps) and refuses it before that work is done, and its ``graph_budget``
on the graph ops that rebuilding traces (their number and output sizes).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np
import tensorflow as tf

from tfkit.base import load_budget
from tfkit.saving.graph_budget import graph_budget


def _static_size(initial_value: Any) -> int | None:
    """Number of elements ``initial_value`` would produce, without allocating it."""
    if callable(initial_value):
        try:
            with load_budget.scratch_graph():
                value = initial_value()
                shape = getattr(value, "shape", None)
                if shape is None:
                    return int(np.size(value))
                shape = tf.TensorShape(shape)
                if not shape.is_fully_defined():
                    return None
                return int(np.prod(shape.as_list(), dtype=object))
        except Exception:  # an initializer that cannot be traced: size unknown, decided after creation
            return None
    shape = getattr(initial_value, "shape", None)
    if shape is not None and tf.TensorShape(shape).is_fully_defined():
        return int(np.prod(tf.TensorShape(shape).as_list(), dtype=object))
    return int(np.size(initial_value)) if initial_value is not None else None


@contextlib.contextmanager
def variable_budget(per_variable: int, total: int, count: int, source: str) -> Iterator[None]:
    """Refuse variables with more than ``per_variable`` elements, ``total`` overall, or more than ``count`` variables.

    Inside, ``load_budget.charge`` counts against this load's budgets (``load_budget.LIMITS``), and
    every graph op traced is counted and sized by ``graph_budget``.
    """
    used = {"elements": 0, "count": 0}

    def check(size: int, name: str) -> None:
        if size > per_variable:
            raise ValueError(
                f"Rebuilding the model from {source} would create variable {name!r} with {size} elements, "
                f"more than the largest array stored in the file ({per_variable}); the config does not match its data"
            )
        used["elements"] += size
        if used["elements"] > total:
            raise ValueError(
                f"Rebuilding the model from {source} would create more than {total} variable elements, "
                f"more than the file stores; the config does not match its data"
            )

    def creator(next_creator: Any, **kwargs: Any) -> Any:
        used["count"] += 1
        if used["count"] > count:
            raise ValueError(
                f"Rebuilding the model from {source} would create more than {count} variables, "
                f"far more than the file stores; the config does not match its data"
            )
        name = str(kwargs.get("name") or "variable")
        declared = kwargs.get("shape")
        if declared is not None and tf.TensorShape(declared).is_fully_defined():
            size = int(np.prod(tf.TensorShape(declared).as_list(), dtype=object))  # tf.Variable holds it to this
        else:
            size = _static_size(kwargs.get("initial_value"))
        if size is not None:
            check(size, name)
        variable = next_creator(**kwargs)
        if size is None:
            check(
                int(np.prod(variable.shape.as_list(), dtype=object)) if variable.shape.is_fully_defined() else 0, name
            )
        return variable

    with tf.variable_creator_scope(creator), load_budget.rebuilding(source), graph_budget(source, per_variable):
        yield
