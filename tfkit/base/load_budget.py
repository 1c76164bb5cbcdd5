"""Work a model file can multiply, counted while the model is rebuilt from that file.

    with rebuilding("model.h5"):                    # opened by the loader (guard.variable_budget)
        model = model_from_config(config)           # an RNN(unroll=True) charges its timesteps here
    charge(UNROLLED_STEPS, 30_000, "LSTM layer 'lstm'", "unroll=True over 30000 timesteps")  # ValueError inside
    charge_operation("TFOpLambda layer 'tf.ones'", tf.ones, ([2**31],), {})  # 2**31 elements: ValueError inside

A config is small data, but some of its numbers multiply the work of
rebuilding: ``unroll=True`` over a static time axis of 30,000 builds 30,000
copies of the cell's graph (a 414-byte config grew past 800 MB), and a
recorded ``tf.unstack`` over a 3,000,000-wide axis makes 3,000,000 tensors
before any op can be looked at. Others multiply the work of every later call:
``tf.ones([2**31])`` in a config rebuilds in a millisecond, then asks 8 GB of
every ``predict``. Such costs are only known once shapes flow, so the layer
that incurs one charges it here *before* building or running anything; outside
a load there is no budget and ``charge`` does nothing: models built in code
are never limited. Like the registry, this module imports nothing of tfkit,
so layers may use it.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import math
from typing import Any, Callable, Iterator

import numpy as np
import tensorflow as tf

__all__ = [
    "UNROLLED_STEPS",
    "FAN_OUT",
    "DECLARED_ELEMENTS",
    "LIMITS",
    "SIZE_ARGUMENTS",
    "charge",
    "charge_operation",
    "rebuilding",
    "scratch_graph",
    "in_scratch_graph",
]

UNROLLED_STEPS = "unrolled RNN timesteps"
FAN_OUT = "tensors made by splitting operations (tf.unstack, tf.split, ...)"
DECLARED_ELEMENTS = "tensor elements that operations' constant size arguments add (tf.ones, tf.range, tf.tile, ...)"
# An unrolled step builds ~15 graph ops, about what rebuilding one layer costs (ops cost ~1 ms and a few KB
# each): the limit keeps a file's unrolled loops within the cost of about a thousand layers. The Keras guides
# unroll a few dozen steps. A split tensor costs a few hundred bytes before any op sees it: tf.unstack over a
# 3,000,000-wide axis named in a 7 KB file took 23 s and 2 GB. Declared elements are allocated by every call
# (unknown axes, such as the batch, counted as 1): 2**28 is 1 GiB of float32, a 16,384 x 16,384 causal mask,
# far above the constant-shaped tensors of real models (position ranges, masks, one-hot widths).
LIMITS = {UNROLLED_STEPS: 1_000, FAN_OUT: 10_000, DECLARED_ELEMENTS: 2**28}
# Arguments that set how many tensors an operation returns (tf.split, tfkit.ops.split, tf.dynamic_partition, ...;
# tf.unstack's num, below: elsewhere num is a length, as in tf.linspace).
_COUNT_ARGUMENTS = ("num_or_size_splits", "indices_or_sections", "num_split", "num_partitions")
# Arguments that may set the size of an operation's result (TensorFlow's and tfkit.ops's names): a call giving
# one of them an integer is sized before it runs. Sizing is exact (a trace in a scratch graph), so a name here
# that does not enlarge anything (tf.reshape's shape) costs only that trace; a missing one is a hole, which
# tools/tf_operations_table.py shows by listing each allowed function's size arguments (docs/TF_OPERATIONS.md).
SIZE_ARGUMENTS = frozenset(
    {
        "shape", "dims", "batch_shape", "noise_shape", "output_shape", "output_size", "image_size",
        "num_rows", "num_columns", "num_cols", "N", "M", "n", "dim",
        "start", "limit", "delta", "stop", "step", "num", "num_results",
        "multiples", "repeats", "depth", "num_classes", "num_segments", "num_samples", "num_sampled",
        "maxlen", "minlength", "maxlength", "nbins", "bins",
        "size", "sizes", "crop_size", "target_height", "target_width", "paddings", "pad_width",
        "top_padding", "bottom_padding", "left_padding", "right_padding",
        "window_length", "frame_length", "fft_length", "sequence_length", "length",
        "num_mel_bins", "num_spectrogram_bins", "block_shape", "block_size", "kernel_size", "strides",
        "pooling_ratio", "ngram_width", "beam_width", "top_paths", "k",
        "max_output_size", "max_output_size_per_class", "max_total_size",
    }
)  # fmt: skip
HINTS = {
    UNROLLED_STEPS: "If the model is yours, save it with unroll=False (the loop computes the same values), "
    "or build it in code, call it on a batch and load the weights with model.load_weights(path).",
    DECLARED_ELEMENTS: "Every call of the model would allocate them, whatever its input. If the model is yours, "
    "build it in code and load the weights with model.load_weights(path).",
}

_ACTIVE: contextvars.ContextVar["_Budget | None"] = contextvars.ContextVar("tfkit_load_budget", default=None)
_SCRATCH: contextvars.ContextVar[bool] = contextvars.ContextVar("tfkit_scratch_graph", default=False)


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
            f"multiplies the work of loading or running the model far beyond its size. {HINTS.get(counter, '')}".rstrip()
        )


def charge_operation(where: str, function: Callable, args: Any, kwargs: dict) -> None:
    """Charge what ``function(*args, **kwargs)`` will make, worked out before it runs (in a load only).

    Two counters: the tensors a split returns (``FAN_OUT``), and, when the call gives one of
    ``SIZE_ARGUMENTS`` an integer, the elements its result holds beyond its tensor inputs
    (``DECLARED_ELEMENTS``, sized by tracing the call in a scratch graph: nothing is allocated).
    """
    if _ACTIVE.get() is None:
        return
    bound = _bind(function, args, kwargs)
    if bound is None:
        return
    name = getattr(inspect.unwrap(function), "__name__", "operation")
    count = _fan_out(function, bound)
    if count:
        charge(FAN_OUT, count, where, f"{name}(...) making {count} tensors")
    declared = {key: bound[key] for key in sorted(SIZE_ARGUMENTS & set(bound)) if _holds_int(bound[key])}
    if not declared:
        return
    added = _added_elements(function, args, kwargs, declared)
    if added:
        shown = ", ".join(f"{key}={value!r}"[:80] for key, value in declared.items())
        charge(DECLARED_ELEMENTS, added, where, f"{name}({shown}) asking for {added} tensor elements at every call")


def _bind(function: Callable, args: Any, kwargs: dict) -> dict[str, Any] | None:
    try:
        bound = inspect.signature(inspect.unwrap(function)).bind_partial(*args, **kwargs).arguments
    except (TypeError, ValueError):
        return None
    for key, parameter in inspect.signature(inspect.unwrap(function)).parameters.items():
        if parameter.kind is parameter.VAR_KEYWORD and isinstance(bound.get(key), dict):
            bound.update(bound.pop(key))  # tfkit.ops.multi_hot(..., **kwargs)
    return dict(bound)


def _fan_out(function: Callable, bound: dict[str, Any]) -> int:
    for name in _COUNT_ARGUMENTS:
        value = bound.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, (list, tuple)):
            return len(value)
    if getattr(inspect.unwrap(function), "__name__", "") == "unstack":  # as many tensors as the axis is long
        if isinstance(bound.get("num"), int) and not isinstance(bound.get("num"), bool):
            return bound["num"]
        shape = getattr(bound.get("value", bound.get("x")), "shape", None)
        axis = bound.get("axis", 0)
        try:
            length = shape[axis] if shape is not None else None
        except (IndexError, TypeError):
            return 0
        return int(length) if isinstance(length, int) else 0
    return 0


def _holds_int(value: Any) -> bool:
    """Whether a constant argument holds an integer (a number, a list or an integer array): a size it may set."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_int(item) for item in value)
    return isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.size > 0


def _elements(tensor: Any) -> int:
    """A tensor's static number of elements, unknown axes counted as 1 (0 for an unknown rank)."""
    shape = getattr(tensor, "shape", None)
    if shape is None or shape.rank is None:
        return 0
    return math.prod(d if d is not None and d > 0 else (0 if d == 0 else 1) for d in shape.as_list())


def _ints_product(value: Any) -> int:
    if isinstance(value, (list, tuple)):
        return math.prod(_ints_product(item) for item in value)
    if isinstance(value, np.ndarray):
        return math.prod(int(v) for v in value.reshape(-1) if v > 0)
    return int(value) if _holds_int(value) and value > 0 else 1


def _added_elements(function: Callable, args: Any, kwargs: dict, declared: dict[str, Any]) -> int:
    """The elements ``function``'s results hold beyond its tensor inputs (static shapes, unknown axes as 1).

    The call is traced in a scratch graph, with placeholders of the inputs' static shapes for its
    tensors: exact for every function, and nothing is allocated. A call that cannot be traced so
    (it needs an input's value) is charged the product of its size arguments instead.
    """
    inputs = {id(t): t for t in tf.nest.flatten((args, kwargs), expand_composites=True) if tf.is_tensor(t)}
    before = sum(_elements(t) for t in inputs.values())
    try:
        with scratch_graph():
            stand_ins = {key: tf.compat.v1.placeholder(t.dtype, t.shape) for key, t in inputs.items()}
            scratch_args, scratch_kwargs = tf.nest.map_structure(
                lambda v: stand_ins.get(id(v), v), (list(args), dict(kwargs)), expand_composites=True
            )
            outputs = function(*scratch_args, **scratch_kwargs)
            after = sum(_elements(t) for t in tf.nest.flatten(outputs, expand_composites=True) if tf.is_tensor(t))
    except Exception:  # the real call raises its own error, or needs a value: the declared sizes themselves
        after = before + math.prod(_ints_product(value) for value in declared.values())
    return max(0, after - before)


@contextlib.contextmanager
def scratch_graph() -> Iterator[tf.Graph]:
    """A throwaway graph, for sizing something without running it; no budget counts the ops built in it."""
    token = _SCRATCH.set(True)
    try:
        with tf.Graph().as_default() as graph:
            yield graph
    finally:
        _SCRATCH.reset(token)


def in_scratch_graph() -> bool:
    """Whether this thread is building ops in a :func:`scratch_graph` (``graph_budget`` skips them)."""
    return _SCRATCH.get()


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
