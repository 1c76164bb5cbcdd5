"""Symbolic tensors: shapes and dtypes flowing through a functional model's definition.

    x = tfkit.Input(shape=(3,))          # SymbolicTensor(shape=(None, 3), dtype=float32)
    y = tfkit.layers.Dense(4)(x)         # SymbolicTensor(shape=(None, 4)); records a node
    y.shape, y.dtype, y.name

A symbolic tensor carries no data. It remembers the layer call that made it
(``node``, ``index``), which is how ``Model(inputs, outputs)`` finds its graph.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import tensorflow as tf


class SymbolicTensor:
    """A symbolic tensor: the shape and dtype of a tensor in a functional graph, and the call that made it.

    `tfkit.KerasTensor` (also `tfkit.backend.SymbolicTensor`). `tfkit.Input`
    returns one, and calling a layer on symbolic tensors returns new ones
    (their shapes and dtypes inferred without running any data);
    `tfkit.Model(inputs, outputs)` makes a model of the recorded calls. A
    symbolic tensor holds no values, and tfkit's are always dense. You rarely
    create one directly.

    Args:
        shape: Shape tuple, batch dimension included (`None` for unknown
            dimensions).
        dtype: Dtype of the tensor. Defaults to `"float32"`.
        name: Optional name. Defaults to `None`.
        node: The recorded layer call that produced it (set by tfkit).
            Defaults to `None`.
        index: Which output of that call it is. Defaults to `0`.
        mask_spec: Optional `tf.TensorSpec` of its Keras mask. Defaults to
            `None`.
        sparse: Must be `False` (sparse symbolic tensors are not
            implemented). Defaults to `False`.
        ragged: Must be `False` (ragged symbolic tensors are not
            implemented). Defaults to `False`.
        record_history: Keras's flag, stored; tfkit records layer calls
            only. Defaults to `True`.

    Raises:
        ValueError: If `sparse` or `ragged` is `True`.

    Example:
        >>> x = tfkit.Input((3,), name="x")
        >>> x
        <SymbolicTensor shape=(None, 3), dtype=float32, name=x>
        >>> isinstance(x, tfkit.KerasTensor), x.ndim
        (True, 2)
        >>> tfkit.layers.Dense(4)(x).shape
        (None, 4)
    """

    def __init__(
        self,
        shape: Any,
        dtype: Any = "float32",
        name: str | None = None,
        node: Any = None,
        index: int = 0,
        mask_spec: Any = None,
        sparse: bool = False,
        ragged: bool = False,
        record_history: bool = True,
    ) -> None:
        if sparse or ragged:
            raise ValueError(
                "tfkit's symbolic tensors are dense: sparse=True and ragged=True are not implemented "
                f"(got sparse={sparse}, ragged={ragged})"
            )
        self.sparse = self.ragged = False
        self.record_history = bool(record_history)  # Keras's flag; tfkit records layer calls only
        self.shape = tuple(tf.TensorShape(shape).as_list())
        self.dtype = tf.as_dtype(dtype)
        self.name = name
        self.node = node
        self.index = index
        self.mask_spec = mask_spec

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def spec(self) -> tf.TensorSpec:
        return tf.TensorSpec(self.shape, self.dtype, name=self.name)

    def __repr__(self) -> str:
        return f"<SymbolicTensor shape={self.shape}, dtype={self.dtype.name}, name={self.name}>"

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: Any) -> bool:
        return self is other

    # numpy defers to our reflected operators: ``np.ones(3) + x`` records a node
    __array_ufunc__ = None

    def __iter__(self) -> Any:
        raise TypeError(f"A symbolic tensor (shape {self.shape}) cannot be iterated; index it instead, e.g. x[:, 0]")

    def __bool__(self) -> bool:
        raise TypeError(
            "A symbolic tensor (from tfkit.Input) has no value: it cannot be used as a Python bool. "
            "Use it inside a layer's call instead."
        )


def is_symbolic(value: Any) -> bool:
    """True if ``value`` (or anything nested in it) is a ``SymbolicTensor``."""
    if isinstance(value, SymbolicTensor):
        return True
    if isinstance(value, (list, tuple, dict)):
        return any(isinstance(v, SymbolicTensor) for v in tf.nest.flatten(value))
    return False


# ------------------------------------------------------------ operations on symbols
#
# ``x + y``, ``x[:, 0]``, ``tf.nn.relu(x)`` or ``tfkit.ops.mean(x)`` on symbolic
# tensors record a graph node. The node is made by a hook that a higher module
# (``tfkit.layers.tf_op``) registers, so this module stays at the bottom.

_op_hook: Any = None


def register_op_hook(hook: Any) -> None:
    """``hook(name, function, args, kwargs)`` turns an operation on symbols into symbolic outputs."""
    global _op_hook
    _op_hook = hook


def apply_op(name: str, function: Any, args: tuple, kwargs: dict) -> Any:
    """Record ``function(*args, **kwargs)`` (some arguments symbolic) as a node named ``name``."""
    if _op_hook is None:
        raise TypeError(f"{name} cannot be applied to symbolic tensors before tfkit.layers is imported")
    return _op_hook(name, function, args, kwargs)


def _has_symbol(args: tuple, kwargs: dict) -> bool:
    for value in (*args, *kwargs.values()):
        if isinstance(value, SymbolicTensor):
            return True
        if isinstance(value, (list, tuple, dict)) and is_symbolic(value):
            return True
    return False


def traceable(namespace: str, decompose: Any = None) -> Any:
    """Decorator: calls on symbolic tensors record a node named ``namespace.<function name>``.

    @traceable("tfkit.activations")
    def relu(x): ...          # relu(tfkit.Input((3,))) is a node "tfkit.activations.relu"

    ``decompose``, if given, is called first with the symbolic call's arguments: it returns
    the outputs made of other recorded operations (what Keras 3 records for the function,
    so that a ``.keras`` file can hold it: ``mish(x)`` as ``x * tanh(softplus(x))``), or
    ``NotImplemented`` to record the one node after all. The function keeps its node name,
    so files that recorded it as one node still load.
    """

    def decorate(function: Any) -> Any:
        name = f"{namespace}.{function.__name__}"

        @functools.wraps(function)
        def maybe_symbolic(*args: Any, **kwargs: Any) -> Any:
            if _has_symbol(args, kwargs):
                if decompose is not None:
                    outputs = decompose(*args, **kwargs)
                    if outputs is not NotImplemented:
                        return outputs
                return apply_op(name, function, args, kwargs)
            return function(*args, **kwargs)

        maybe_symbolic._tfkit_op_name = name  # read by op_name_of
        return maybe_symbolic

    return decorate


def op_name_of(function: Any) -> str | None:
    """The node name a :func:`traceable` function records (``"tfkit.ops.mean"``), or None for others."""
    return getattr(function, "_tfkit_op_name", None)


def _binary(op_name: str, reverse: bool = False) -> Any:
    function = getattr(operator, op_name)
    name = f"__operators__.{op_name}"

    def method(self: SymbolicTensor, other: Any) -> Any:
        args = (other, self) if reverse else (self, other)
        return apply_op(name, function, args, {})

    method.__name__ = f"__r{op_name}__" if reverse else f"__{op_name}__"
    return method


def _unary(op_name: str) -> Any:
    function = getattr(operator, op_name)
    name = f"__operators__.{op_name}"

    def method(self: SymbolicTensor) -> Any:
        return apply_op(name, function, (self,), {})

    method.__name__ = f"__{op_name}__"
    return method


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor"):
    _dunder = _op.rstrip("_")
    setattr(SymbolicTensor, f"__{_dunder}__", _binary(_op))
    setattr(SymbolicTensor, f"__r{_dunder}__", _binary(_op, reverse=True))
for _op in ("lt", "le", "gt", "ge"):
    setattr(SymbolicTensor, f"__{_op}__", _binary(_op))
for _op in ("neg", "pos", "abs", "invert"):
    setattr(SymbolicTensor, f"__{_op}__", _unary(_op))


def _getitem(self: SymbolicTensor, key: Any) -> Any:
    return apply_op("__operators__.getitem", operator.getitem, (self, key), {})


SymbolicTensor.__getitem__ = _getitem
# Keras code reads a symbolic tensor's mask as ``x._keras_mask`` (a symbolic
# boolean tensor of the same leading shape, or None).
SymbolicTensor._keras_mask = property(lambda self: _mask_of(self))


def _mask_of(tensor: SymbolicTensor) -> Any:
    if tensor.mask_spec is None:
        return None
    return apply_op("__operators__.keras_mask", None, (tensor,), {})
