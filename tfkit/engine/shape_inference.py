"""A built-in layer's symbolic outputs from ``compute_output_shape``, without tracing its ``call``.

    specs = shape_inference.infer(dense, (x,), {})     # builds dense; [((None, 4), float32, None)]
    specs is None                                      # when tracing the call is the only safe answer
    @shape_inference.always_trace                      # a class whose outputs only a trace can tell

This is how Keras 3 keeps a functional model's definition cheap: a layer call
on symbolic tensors builds the layer's weights (``build``, exactly as the first
call would) and asks ``compute_output_shape`` for the outputs instead of running
``call`` in a scratch graph. Only calls whose answer is certain take this path:
the layer's ``call`` and every nested layer's ``call`` are tfkit's own (a user's
layer is traced, as before: only its call knows its outputs' dtypes and the
weights it makes), every symbolic input already has the layer's compute dtype
(so the outputs have it too), and the non-tensor arguments are the defaults.
Masks come from ``compute_mask`` alone, run on placeholders when the layer
computes one. A node made this way is checked against its first real call
(``functional_graph.Node.check_outputs``), so a wrong ``compute_output_shape``
(a subclass of a built-in may override it) is an error naming the layer, never
a silently wrong graph.

A call that must be traced runs inside ``symbolic_trace()``: its outputs only
give shapes and dtypes, the scratch graph never runs. A layer that cannot
compute yet (a preprocessing layer before ``adapt``) answers such a trace with
``stand_in(shape, dtype)`` (what Keras's ``compute_output_spec`` would say)
and raises on a real call, as Keras 3 builds a model of un-adapted layers and
refuses to run it.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import threading
import weakref
from typing import Any, Iterator

import tensorflow as tf
from tensorflow.python.framework.func_graph import FuncGraph

from tfkit.base.argument_validation import is_shape
from tfkit.base.symbolic import SymbolicTensor
from tfkit.engine import call_context, masking, tracking
from tfkit.engine.call_signature import call_signature
from tfkit.engine.config_cost import MAX_SAMPLE_ELEMENTS
from tfkit.engine.layer import Layer

_TRACED_CLASSES: list[type] = []
_NESTED_CHECKED: "weakref.WeakSet[Layer]" = weakref.WeakSet()  # layers whose nested layers passed the check
_TRACE = threading.local()  # depth of symbolic_trace() blocks in this thread


@contextlib.contextmanager
def symbolic_trace() -> Iterator[None]:
    """The block traces calls in a scratch graph only for their outputs' shapes, dtypes and masks (never run)."""
    _TRACE.depth = getattr(_TRACE, "depth", 0) + 1
    try:
        yield
    finally:
        _TRACE.depth -= 1


def in_symbolic_trace() -> bool:
    """Whether the current call is traced by ``symbolic_trace()`` (its graph never runs), not run or compiled."""
    return getattr(_TRACE, "depth", 0) > 0


def stand_in(shape: Any, dtype: Any) -> tf.Tensor:
    """An output of ``shape`` (``None`` for unknown axes) and ``dtype`` with no value, for a symbolic trace only.

    A layer that cannot compute yet answers ``symbolic_trace()`` with it; anywhere else it is a bug in the caller.
    """
    if not in_symbolic_trace() or tf.executing_eagerly():
        raise RuntimeError("shape_inference.stand_in is for symbolic traces only (a graph that never runs)")
    return tf.compat.v1.placeholder(tf.as_dtype(dtype), tf.TensorShape(shape))


def always_trace(cls: type) -> type:
    """Class decorator: symbolic calls of ``cls`` (and its subclasses) are always traced.

    For built-ins whose outputs depend on more than their input shapes: ``Lambda``
    (a user's function), models (their graph or ``call``); and for ``RNN``, whose
    call charges an unrolled loop to the load budget (``base.load_budget``).
    """
    _TRACED_CLASSES.append(cls)
    _class_plan.cache_clear()
    return cls


def _owner(cls: type, method: str) -> type:
    return next(c for c in cls.__mro__ if method in c.__dict__)


@functools.lru_cache(maxsize=None)
def _builtin_call(cls: type) -> bool:
    """Whether ``cls.call`` is tfkit's own code (a class of the tfkit package defines it)."""
    return _owner(cls, "call").__module__.split(".")[0] == "tfkit"


def _always_traced(cls: type) -> bool:
    return any(issubclass(cls, traced) for traced in _TRACED_CLASSES)


@functools.lru_cache(maxsize=None)
def _class_plan(cls: type) -> tuple[str, ...] | None:
    """``compute_output_shape``'s parameter names when ``cls`` may skip tracing, else None."""
    if _always_traced(cls) or not _builtin_call(cls):
        return None
    if _owner(cls, "compute_output_shape") is Layer:
        return None
    params = list(inspect.signature(cls.compute_output_shape).parameters.values())[1:]
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) or not params:
        return None
    return tuple(p.name for p in params)


@functools.lru_cache(maxsize=None)
def _call_defaults(cls: type) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The call's positional names after the first, and every parameter's default."""
    params = list(inspect.signature(cls.call).parameters.values())[2:]
    positional = tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
    return positional, defaults


@functools.lru_cache(maxsize=None)
def _shape_defaults(cls: type) -> frozenset[str]:
    params = list(inspect.signature(cls.compute_output_shape).parameters.values())[1:]
    return frozenset(p.name for p in params if p.default is not inspect.Parameter.empty)


def _shape_of(value: Any) -> Any:
    """The shape structure ``compute_output_shape`` takes for an argument; None if a leaf is not symbolic."""
    leaves = tf.nest.flatten(value)
    if not leaves or not all(isinstance(t, SymbolicTensor) for t in leaves):
        return None
    return tf.nest.map_structure(lambda t: tuple(t.shape), value)


def _shape_arguments(cls: type, params: tuple[str, ...], first: Any, rest: tuple, kwargs: dict) -> list[Any] | None:
    """``compute_output_shape``'s arguments for this call, or None when the call has arguments it cannot see."""
    positional, defaults = _call_defaults(cls)
    if len(rest) > len(positional):
        return None
    bound = {**dict(zip(positional, rest)), **kwargs}
    first_shape = _shape_of(first)
    if first_shape is None:
        return None
    shapes = [first_shape]
    used = set()
    for name in params[1:]:
        source = name[: -len("_shape")] if name.endswith("_shape") else None
        if source is not None and bound.get(source) is not None:
            shape = _shape_of(bound[source])
            if shape is None:
                return None
            shapes.append(shape)
            used.add(source)
        elif name in _shape_defaults(cls):
            break  # the rest keep their defaults
        else:
            return None
    for name, value in bound.items():
        if name in used or name == "training":
            continue
        if name not in defaults or _differs(value, defaults[name]):
            return None  # a tensor compute_output_shape does not take, or a non-default option
    return shapes


def _differs(value: Any, default: Any) -> bool:
    if isinstance(value, SymbolicTensor) or isinstance(value, (list, tuple, dict)):
        return True
    try:
        return bool(value != default)
    except Exception:  # an object without a plain comparison
        return True


def _output_specs(result: Any) -> Any:
    """``compute_output_shape``'s answer as a structure of ``tf.TensorShape`` leaves, or None when it is not one."""
    if isinstance(result, tf.TensorShape):
        return None if result.rank is None else result
    if is_shape(result):
        return tf.TensorShape([None if d is None else int(d) for d in result])
    if isinstance(result, (list, tuple)) and result:
        items = [_output_specs(r) for r in result]
        return None if any(i is None for i in items) else type(result)(items)
    if isinstance(result, dict) and result:
        items = {k: _output_specs(v) for k, v in result.items()}
        return None if any(i is None for i in items.values()) else items
    return None


def _elements(shape: tf.TensorShape) -> int:
    """Elements per sample as the load's graph budget counts them (unknown axes count 1)."""
    return math.prod(d for d in shape.as_list() if d is not None and d > 0)


def _nested_calls_builtin(layer: Layer) -> bool:
    """Every nested layer runs tfkit's code and holds no state its call would still create.

    Asked once per layer: a shared layer called 4,000 times keeps the sub-layers it had.
    """
    if layer in _NESTED_CHECKED:
        return True
    for sub in tracking.flatten_layers(layer, include_self=False):
        cls = type(sub)
        unbuilt_state = not sub.built and cls.build is not Layer.build and getattr(cls, "_build_creates_state", True)
        if not _builtin_call(cls) or _always_traced(cls) or unbuilt_state:
            return False
    _NESTED_CHECKED.add(layer)
    return True


def _output_masks(layer: Layer, first: Any, structure: Any) -> Any:
    """Mask specs for the outputs (a list matching ``tf.nest.flatten(structure)``), or False to trace instead."""
    flat_out = len(tf.nest.flatten(structure))
    overrides = type(layer).compute_mask is not Layer.compute_mask
    symbols = tf.nest.flatten(first)
    has_mask = any(t.mask_spec is not None for t in symbols)
    if not has_mask and not (overrides and layer.supports_masking):
        return [None] * flat_out
    if not overrides:
        if not layer.supports_masking:
            return False  # the call alone decides whether an input's mask comes through
        in_masks = [t.mask_spec for t in symbols]
        if not isinstance(first, SymbolicTensor):
            return [None] * flat_out if len(in_masks) != flat_out else in_masks
        return [first.mask_spec] * flat_out
    # The layer computes its mask: run compute_mask alone on placeholders (a few ops, not the whole call).
    with FuncGraph("tfkit_symbolic_mask").as_default():
        placeholders = []
        for t in symbols:
            p = tf.compat.v1.placeholder(t.dtype, t.shape)
            if t.mask_spec is not None:
                masking.set_mask(p, tf.compat.v1.placeholder(t.mask_spec.dtype, t.mask_spec.shape))
            placeholders.append(p)
        inputs = tf.nest.pack_sequence_as(first, placeholders)
        out_mask = layer.compute_mask(inputs, masking.get_mask_structure(inputs))
    if out_mask is None:
        return [None] * flat_out
    if tf.is_tensor(out_mask):
        return [tf.TensorSpec(out_mask.shape, out_mask.dtype)] * flat_out
    flat_masks = tf.nest.flatten(out_mask)
    if len(flat_masks) != flat_out:
        return [None] * flat_out
    return [None if m is None else tf.TensorSpec(m.shape, m.dtype) for m in flat_masks]


def infer(layer: Layer, args: tuple, kwargs: dict) -> tuple[Any, list[Any]] | None:
    """Build ``layer`` for a symbolic call and return ``(output shapes, flat output mask specs)``.

    The output dtype is ``layer.compute_dtype``. None when the call must be traced
    (the layer may have been built by then; tracing finds it built, as a second call would).
    A class may name call arguments that never change its outputs' shapes (a transformer
    block's padding mask) in ``_shape_free_call_arguments``: those do not stop the inference.
    """
    cls = type(layer)
    params = _class_plan(cls)
    if params is None or not args:
        return None
    first, rest = args[0], args[1:]
    free = getattr(cls, "_shape_free_call_arguments", ())
    kwargs = {name: value for name, value in kwargs.items() if name not in free}
    symbols = [t for t in tf.nest.flatten((args, kwargs)) if isinstance(t, SymbolicTensor)]
    compute = tf.as_dtype(layer.compute_dtype)
    if any(t.dtype != compute for t in symbols):
        return None  # inputs the call would cast, or integer/string inputs: only a trace tells the dtype
    if any(t.mask_spec is not None for t in symbols if not any(t is s for s in tf.nest.flatten(first))):
        return None  # masks on other arguments: the call decides
    shape_args = _shape_arguments(cls, params, first, rest, kwargs)
    if shape_args is None:
        return None
    if "mask" in kwargs and call_signature(cls)[2]:
        return None
    with call_context.enter(layer, kwargs.get("training")):
        if not layer.built:
            if layer.input_spec is not None:
                layer._check_inputs(first)
            layer._build_from_call(first, rest, kwargs)
        else:
            layer._check_inputs(first)
    if not _nested_calls_builtin(layer):
        return None
    try:
        shapes = _output_specs(layer.compute_output_shape(*shape_args))
    except NotImplementedError:
        return None
    if shapes is None or any(_elements(s) > MAX_SAMPLE_ELEMENTS for s in tf.nest.flatten(shapes)):
        return None  # an output past what a model file may ask for: the trace meets the load's graph budget
    masks = _output_masks(layer, first, shapes)
    if masks is False:
        return None
    return shapes, masks
