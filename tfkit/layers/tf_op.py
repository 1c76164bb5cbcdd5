"""Operators and TensorFlow functions on symbolic tensors become graph nodes.

    x = tfkit.Input((8,))
    y = tf.nn.relu(tfkit.layers.Dense(8)(x) + x)    # nodes "tf.__operators__.add" and "tf.nn.relu"
    model = tfkit.Model(x, y)                       # saves as data: operation names and plain arguments

Each operation is a ``TFOpLambda`` layer: its config names the operation
(``op_names``) and holds its non-tensor arguments (``op_arguments``); its
call takes the node's symbolic inputs. TensorFlow functions are caught by a
global TensorFlow op dispatcher, which TensorFlow consults when a function
is given an argument it cannot convert to a tensor (a symbolic tensor).
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit.base import load_budget, registry, symbolic
from tfkit.engine.layer import Layer, unique_name
from tfkit.layers import op_arguments, op_names

__all__ = ["TFOpLambda"]


@registry.builtin("layers", "SlicingOpLambda")
class TFOpLambda(Layer):
    """Wraps one TensorFlow operation applied to symbolic tensors as a layer.

    You rarely build it yourself: in a functional model, an operator
    (`x + y`, `x[:, 0]`) or a TensorFlow function (`tf.nn.relu(x)`) applied
    to symbolic tensors becomes a `TFOpLambda` node, named after the
    operation. Its config names the operation and holds its non-tensor
    arguments, so the model saves as data and reloads without code. The
    layer does not autocast its inputs: an operation keeps their dtypes. It
    is also registered under Keras's older name `SlicingOpLambda`.

    Args:
        function: The operation: a stored name such as `"tf.nn.relu"` or
            `"tf.math.multiply"`, or the TensorFlow callable itself (which
            must have a stored name for the layer to be saved).
        arguments: The call's arguments as data: `{"args": [...], "kwargs":
            {...}}`, where `{"__input__": i}` stands for the layer's `i`-th
            input tensor. Defaults to `None`, meaning the single input as the
            only positional argument.
        **kwargs: Base layer keyword arguments, such as `name` (defaults to
            the operation's name) and `dtype`.

    Call arguments:
        inputs: The input tensor, or a list of tensors that the
            `{"__input__": i}` placeholders index.

    Input shape:
        Whatever the operation accepts.

    Output shape:
        Whatever the operation returns.

    Raises:
        ValueError: If `function` is neither a name nor a callable, names an
            operation that is not allowed (a model file may name only the
            pure tensor functions of `docs/TF_OPERATIONS.md`, Python's
            operators and `tfkit.ops`), or `arguments` is malformed.

    Example:
        >>> layer = tfkit.layers.TFOpLambda("tf.math.multiply", {"args": [{"__input__": 0}, 5.0], "kwargs": {}})
        >>> layer(tf.ones((2,))).numpy()
        array([5., 5.], dtype=float32)
        >>> x = tfkit.Input((3,))
        >>> model = tfkit.Model(x, tf.nn.relu(x))
        >>> [type(layer).__name__ for layer in model.layers]
        ['InputLayer', 'TFOpLambda']
    """

    def __init__(self, function: str | Callable, arguments: dict[str, Any] | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("autocast", False)  # an operation keeps its inputs' dtypes
        kwargs.setdefault("name", unique_name(_display_name(function)))
        super().__init__(**kwargs)
        if not isinstance(function, str) and not callable(function):
            raise ValueError(f"function must be an operation name such as 'tf.nn.relu', got {function!r}")
        if isinstance(function, str):
            self._tfkit_function = op_names.resolve(function)  # refused here, before anything of the model runs
            self._tfkit_function_name: str | None = function
        else:
            self._tfkit_function = function
            self._tfkit_function_name = None
        self._tfkit_arguments = arguments if arguments is not None else {"args": [{"__input__": 0}], "kwargs": {}}
        op_arguments.decode(self._tfkit_arguments, [None] * _input_count(self._tfkit_arguments))  # validate now
        self.built = True

    @property
    def function(self) -> str:
        """The operation's stored name (``tf.nn.relu``); ``ValueError`` if it cannot be stored."""
        if self._tfkit_function_name is None:
            try:
                self._tfkit_function_name = op_names.name_of(self._tfkit_function)
            except ValueError as error:
                raise ValueError(f"Layer '{self.name}' cannot be saved: {error}") from error
        return self._tfkit_function_name

    def call(self, inputs: Any) -> Any:
        tensors = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        args, kwargs = op_arguments.decode(self._tfkit_arguments, tensors)
        # While a model file is loaded, the tensors a split makes and the elements a size argument asks for
        # (tf.ones([2**31])) count against the file's budget, before the operation runs.
        load_budget.charge_operation(f"TFOpLambda layer '{self.name}'", self._tfkit_function, args, kwargs)
        return self._tfkit_function(*args, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": Layer.get_config(self)["dtype"],
            "function": self.function,
            "arguments": self._tfkit_arguments,
        }


def _input_count(arguments: Any) -> int:
    count = 0

    def walk(value: Any) -> None:
        nonlocal count
        if isinstance(value, dict):
            if "__input__" in value and isinstance(value["__input__"], int):
                count = max(count, value["__input__"] + 1)
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(arguments)
    return count


def _display_name(function: str | Callable) -> str:
    if isinstance(function, str):
        name = function
    else:
        try:
            name = op_names.name_of(function)
        except ValueError:
            name = f"tf.{getattr(function, '__name__', 'op')}"
    return "tf." + name if name.startswith("__operators__.") else name


def record_operation(name: str | None, function: Callable | None, args: tuple, kwargs: dict) -> Any:
    """Apply ``function`` to arguments holding symbolic tensors: one ``TFOpLambda`` node.

    ``name`` is the operation's stored name when the caller knows it (operators,
    tfkit ops); TensorFlow functions caught by the dispatcher are named on save.
    """
    arguments, symbols = op_arguments.encode(args, kwargs)
    if function is None:
        function = op_names.resolve(name)
    layer = TFOpLambda(function, arguments, name=unique_name(_display_name(name or function)))
    if name is not None:
        layer._tfkit_function_name = name
    return layer(symbols[0] if len(symbols) == 1 else symbols)


class _SymbolicDispatcher(tf.__internal__.dispatch.GlobalOpDispatcher):
    """Sends TensorFlow API calls on symbolic tensors to :func:`record_operation`."""

    def handle(self, op: Callable, args: tuple, kwargs: dict) -> Any:
        if symbolic._has_symbol(tuple(args), dict(kwargs)):
            return record_operation(None, op, tuple(args), dict(kwargs))
        return self.NOT_SUPPORTED


symbolic.register_op_hook(record_operation)
_SymbolicDispatcher().register()
