"""Work a model file can multiply, counted while the model is rebuilt from that file.

    with rebuilding("model.h5"):                    # opened by the loader (guard.variable_budget)
        model = model_from_config(config)           # an RNN(unroll=True) charges its timesteps here
    charge(UNROLLED_STEPS, 30_000, "LSTM layer 'lstm'", "unroll=True over 30000 timesteps")  # ValueError inside
    charge_fan_out("TFOpLambda layer 'tf.unstack'", tf.unstack, (x,), {"axis": 1})            # x.shape[1] tensors

A config is small data, but some of its numbers multiply the work of
rebuilding: ``unroll=True`` over a static time axis of 30,000 builds 30,000
copies of the cell's graph (a 414-byte config grew past 800 MB), and a
recorded ``tf.unstack`` over a 3,000,000-wide axis makes 3,000,000 tensors
before any op can be looked at. Such costs are only known once shapes flow,
so the layer that incurs one charges it here *before* building anything;
outside a load there is no budget and ``charge`` does nothing: models built
in code are never limited. Like the registry, this module imports nothing of
tfkit, so layers may use it.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
from typing import Callable, Iterator

__all__ = ["UNROLLED_STEPS", "FAN_OUT", "LIMITS", "charge", "charge_fan_out", "rebuilding"]

UNROLLED_STEPS = "unrolled RNN timesteps"
FAN_OUT = "tensors made by splitting operations (tf.unstack, tf.split, ...)"
# An unrolled step builds ~15 graph ops, about what rebuilding one layer costs (ops cost ~1 ms and a few KB
# each): the limit keeps a file's unrolled loops within the cost of about a thousand layers. The Keras guides
# unroll a few dozen steps. A split tensor costs a few hundred bytes before any op sees it: tf.unstack over a
# 3,000,000-wide axis named in a 7 KB file took 23 s and 2 GB.
LIMITS = {UNROLLED_STEPS: 1_000, FAN_OUT: 10_000}
# Arguments that set how many tensors an operation returns (tf.split, tfkit.ops.split, tf.dynamic_partition, ...).
_COUNT_ARGUMENTS = ("num", "num_or_size_splits", "indices_or_sections", "num_split", "num_partitions")
HINTS = {
    UNROLLED_STEPS: "If the model is yours, save it with unroll=False (the loop computes the same values), "
    "or build it in code, call it on a batch and load the weights with model.load_weights(path)."
}

_ACTIVE: contextvars.ContextVar["_Budget | None"] = contextvars.ContextVar("tfkit_load_budget", default=None)


class _Budget:
    def __init__(self, source: str) -> None:
        self.source = source
        self.used: dict[str, int] = {}


def charge(counter: str, amount: int, where: str, argument: str) -> None:
    """Count ``amount`` of ``counter`` for ``where`` (a layer) in the running load; ``ValueError`` past its limit.

    ``argument`` says which setting of the layer asks for the work (``"unroll=True over 30000 timesteps"``).
    """
    budget = _ACTIVE.get()
    if budget is None:
        return
    limit = LIMITS[counter]
    used = budget.used.get(counter, 0) + int(amount)
    budget.used[counter] = used
    if used > limit:
        raise ValueError(
            f"Rebuilding the model from {budget.source}: {where} has {argument}, which would bring the "
            f"{counter} built by this load to {used}; a model file may ask for at most {limit}: the config "
            f"multiplies the work of loading far beyond its size. {HINTS.get(counter, '')}".rstrip()
        )


def charge_fan_out(where: str, function: Callable, args: tuple, kwargs: dict) -> None:
    """Charge the tensors that ``function(*args, **kwargs)`` will return, worked out before it runs (in a load)."""
    if _ACTIVE.get() is None:
        return
    count = _fan_out(function, args, kwargs)
    if count:
        name = getattr(function, "__name__", "operation")
        charge(FAN_OUT, count, where, f"{name}(...) making {count} tensors")


def _fan_out(function: Callable, args: tuple, kwargs: dict) -> int:
    try:
        bound = inspect.signature(inspect.unwrap(function)).bind_partial(*args, **kwargs).arguments
    except (TypeError, ValueError):
        return 0
    for name in _COUNT_ARGUMENTS:
        value = bound.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, (list, tuple)):
            return len(value)
    if getattr(inspect.unwrap(function), "__name__", "") == "unstack":  # as many tensors as the axis is long
        shape = getattr(bound.get("value"), "shape", None)
        axis = bound.get("axis", 0)
        try:
            length = shape[axis] if shape is not None else None
        except (IndexError, TypeError):
            return 0
        return int(length) if isinstance(length, int) else 0
    return 0


@contextlib.contextmanager
def rebuilding(source: str) -> Iterator[None]:
    """Open a budget for one load of ``source``; a load inside another shares the outer one."""
    if _ACTIVE.get() is not None:
        yield
        return
    token = _ACTIVE.set(_Budget(source))
    try:
        yield
    finally:
        _ACTIVE.reset(token)
