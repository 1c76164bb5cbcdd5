"""Activation layers with arguments: ``ReLU``, ``LeakyReLU``, ``PReLU``, ``ELU``, ``Softmax``.

    relu6 = tfkit.layers.ReLU(max_value=6.0)
    y = tfkit.layers.PReLU(shared_axes=[1, 2])(images)     # one learned slope per channel
    probs = tfkit.layers.Softmax()(scores, mask=keep)      # masked positions get probability 0

The plain ``Activation("relu")`` layer lives in :mod:`tfkit.layers.core`.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, Sequence

import tensorflow as tf

from tfkit import activations, constraints, initializers, regularizers
from tfkit.base import registry
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config

__all__ = ["ReLU", "LeakyReLU", "PReLU", "ELU", "Softmax"]


def _number(value: Any, what: str, who: str, allow_none: bool = False) -> Any:
    """``value`` when it is a non-negative real number (or None when allowed), else a ValueError."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value < 0:
        expected = "a non-negative number" + (" or None" if allow_none else "")
        raise ValueError(f"{who} expected {what} to be {expected}, got {value!r}")
    return value


class _Elementwise(Layer):
    """Shared parts: masks pass through, the output shape is the input shape."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


@registry.builtin("layers")
class ReLU(_Elementwise):
    """Rectified linear unit activation layer, with Keras's options.

    With the defaults this is the plain `max(x, 0)`. In general the output is
    `negative_slope * (x - threshold)` for `x < threshold`, `x` for
    `threshold <= x < max_value`, and `max_value` for `x >= max_value`.

    Args:
        max_value: Non-negative float or `None`, the largest output value
            (e.g. `6.0` for ReLU6). `None` means no cap. Defaults to `None`.
        negative_slope: Non-negative float, the slope below `threshold`.
            Defaults to `0.0`.
        threshold: Non-negative float, the value below which the output is
            damped by `negative_slope`. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of any shape. A mask passes through unchanged.

    Input shape:
        Any shape.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `max_value` (unless `None`), `negative_slope` or
            `threshold` is not a non-negative number.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 3.0, 8.0], dtype="float32")
        >>> tfkit.layers.ReLU()(x).numpy()
        array([0., 0., 0., 3., 8.], dtype=float32)
        >>> tfkit.layers.ReLU(max_value=6.0)(x).numpy()
        array([0., 0., 0., 3., 6.], dtype=float32)
        >>> tfkit.layers.ReLU(negative_slope=0.5)(x).numpy()
        array([-1.  , -0.25,  0.  ,  3.  ,  8.  ], dtype=float32)
    """

    def __init__(
        self, max_value: float | None = None, negative_slope: float = 0.0, threshold: float = 0.0, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        who = f"ReLU layer '{self.name}'"
        self.max_value = _number(max_value, "max_value", who, allow_none=True)
        self.negative_slope = _number(negative_slope, "negative_slope", who)
        self.threshold = _number(threshold, "threshold", who)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return activations.relu(
            inputs, negative_slope=self.negative_slope, max_value=self.max_value, threshold=self.threshold
        )

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(max_value=self.max_value, negative_slope=self.negative_slope, threshold=self.threshold)
        return config


@registry.builtin("layers")
class LeakyReLU(_Elementwise):
    """Leaky version of a rectified linear unit activation layer.

    Computes `x` for `x >= 0` and `negative_slope * x` otherwise, so a small
    gradient flows for negative inputs. Keras's default slope is `0.3`.

    Args:
        negative_slope: Non-negative float, the slope for negative inputs.
            Defaults to `0.3`. The legacy keyword `alpha` is accepted in its
            place with a deprecation warning, as in Keras 3.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of any shape. A mask passes through unchanged.

    Input shape:
        Any shape.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `negative_slope` is not a non-negative number.

    Example:
        >>> layer = tfkit.layers.LeakyReLU(negative_slope=0.5)
        >>> layer(np.array([-3.0, -1.0, 0.0, 2.0], dtype="float32")).numpy()
        array([-1.5, -0.5,  0. ,  2. ], dtype=float32)
    """

    def __init__(self, negative_slope: float = 0.3, **kwargs: Any) -> None:
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warnings.warn("LeakyReLU: the argument `alpha` is deprecated; use `negative_slope` instead.", stacklevel=2)
        super().__init__(**kwargs)
        self.negative_slope = _number(negative_slope, "negative_slope", f"LeakyReLU layer '{self.name}'")

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["negative_slope"] = self.negative_slope
        return config


@registry.builtin("layers")
class PReLU(_Elementwise):
    """Parametric rectified linear unit activation layer.

    Computes `x` for `x >= 0` and `alpha * x` otherwise, where `alpha` is a
    learned weight. `alpha` has the input's shape without the batch axis;
    axes listed in `shared_axes` (1-based, the batch is axis 0) get size 1,
    so one slope serves that whole axis.

    Args:
        alpha_initializer: Initializer for the `alpha` weight. Defaults to
            `"Zeros"` (so the layer starts as a plain ReLU).
        alpha_regularizer: Regularizer for the `alpha` weight. Defaults to
            `None`.
        alpha_constraint: Constraint for the `alpha` weight. Defaults to
            `None`.
        shared_axes: An int or a list of ints, the axes (1-based) along which
            `alpha` is shared. For example, with images of shape
            `(batch, height, width, channels)`, `shared_axes=[1, 2]` learns one
            slope per channel. Defaults to `None` (no sharing).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 2 or more. A mask passes through unchanged.

    Input shape:
        Any shape. Every non-shared axis must have a known size.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `shared_axes` holds something other than positive
            ints, names an axis beyond the input's rank, or a non-shared axis
            has an unknown size (when the layer is built).

    Example:
        >>> layer = tfkit.layers.PReLU(alpha_initializer=tfkit.initializers.Constant(0.25))
        >>> layer(np.array([[-4.0, 2.0]], dtype="float32")).numpy()
        array([[-1.,  2.]], dtype=float32)
        >>> layer.alpha.shape
        TensorShape([2])
        >>> tfkit.layers.PReLU(shared_axes=[1, 2])(np.ones((1, 4, 4, 3))).shape
        TensorShape([1, 4, 4, 3])
    """

    def __init__(
        self,
        alpha_initializer: Any = "Zeros",
        alpha_regularizer: Any = None,
        alpha_constraint: Any = None,
        shared_axes: int | Sequence[int] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        else:
            axes = list(shared_axes) if isinstance(shared_axes, (list, tuple)) else [shared_axes]
            if not all(isinstance(a, int) and not isinstance(a, bool) and a >= 1 for a in axes):
                raise ValueError(
                    f"PReLU layer '{self.name}' expected shared_axes to be positive axis numbers "
                    f"(the batch axis 0 cannot be shared), got {shared_axes!r}"
                )
            self.shared_axes = axes

    def build(self, input_shape: Any) -> None:
        input_shape = tuple(input_shape)
        param_shape = list(input_shape[1:])
        for axis in self.shared_axes or ():
            if axis >= len(input_shape):
                raise ValueError(
                    f"PReLU layer '{self.name}' got shared_axes={self.shared_axes} for an input of rank "
                    f"{len(input_shape)} (shape {input_shape}); axes must be in 1..{len(input_shape) - 1}"
                )
            param_shape[axis - 1] = 1
        if any(d is None for d in param_shape):
            raise ValueError(
                f"PReLU layer '{self.name}' needs known sizes for every non-shared axis, got input shape "
                f"{input_shape}; share the unknown axes with shared_axes"
            )
        self.alpha = self.add_weight(
            shape=tuple(param_shape),
            name="alpha",
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )
        shared = set(self.shared_axes or ())
        axes = {i: input_shape[i] for i in range(1, len(input_shape)) if i not in shared}
        self.input_spec = InputSpec(ndim=len(input_shape), axes=axes)
        self.built = True

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        alpha = tf.cast(self.alpha, inputs.dtype)
        return tf.nn.relu(inputs) - alpha * tf.nn.relu(-inputs)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(
            alpha_initializer=initializers.serialize(self.alpha_initializer),
            alpha_regularizer=regularizers.serialize(self.alpha_regularizer),
            alpha_constraint=constraints.serialize(self.alpha_constraint),
            shared_axes=self.shared_axes,
        )
        return config


@registry.builtin("layers")
class ELU(_Elementwise):
    """Exponential linear unit activation layer.

    Computes `x` for `x > 0` and `alpha * (exp(x) - 1)` otherwise.

    Args:
        alpha: Float, the scale of the negative part. Defaults to `1.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of any shape. A mask passes through unchanged.

    Input shape:
        Any shape.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `alpha` is not a number.

    Example:
        >>> layer = tfkit.layers.ELU(alpha=2.0)
        >>> np.round(layer(np.array([-1.0, 0.0, 1.5], dtype="float32")).numpy(), 4)
        array([-1.2642,  0.    ,  1.5   ], dtype=float32)
    """

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
            raise ValueError(f"ELU layer '{self.name}' expected alpha to be a number, got {alpha!r}")
        self.alpha = alpha

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return activations.elu(inputs, alpha=self.alpha)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["alpha"] = self.alpha
        return config


def _large_negative(dtype: tf.DType) -> float:
    """What masked logits are replaced with: -1e9, or -3e4 where float16 would overflow."""
    return -3e4 if dtype == tf.float16 else -1e9


@registry.builtin("layers")
class Softmax(_Elementwise):
    """Softmax activation layer.

    Computes `exp(x) / sum(exp(x))` over `axis`. An optional `mask` excludes
    positions: masked logits are sent to a large negative number (`-1e9`, or
    `-3e4` for float16) before the softmax and their probabilities are set to
    zero after it, so a fully masked row gives all zeros.

    Args:
        axis: Integer, or list of integers, the axis or axes along which the
            softmax normalization is applied. Defaults to `-1`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: The logits: a tensor of any shape.
        mask: Optional boolean or numeric tensor broadcastable to `inputs`;
            `True` (or a value above 0.5) keeps a position, `False` masks it.
            Defaults to `None`.

    Input shape:
        Any shape.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `axis` is not an int or a non-empty list of ints, or
            (on call) `mask` is not broadcastable to `inputs`.

    Example:
        >>> layer = tfkit.layers.Softmax()
        >>> x = np.array([[1.0, 2.0, 3.0]], dtype="float32")
        >>> np.round(layer(x).numpy(), 4)
        array([[0.09  , 0.2447, 0.6652]], dtype=float32)
        >>> np.round(layer(x, mask=np.array([[True, True, False]])).numpy(), 4)
        array([[0.2689, 0.7311, 0.    ]], dtype=float32)
    """

    def __init__(self, axis: int | Sequence[int] = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        if not axes or not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
            raise ValueError(f"Softmax layer '{self.name}' expected axis to be an int or a list of ints, got {axis!r}")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis

    def _check_mask(self, inputs: tf.Tensor, mask: tf.Tensor) -> None:
        if mask.shape.rank is None or inputs.shape.rank is None:
            return
        fits = mask.shape.rank <= inputs.shape.rank and all(
            m is None or i is None or m in (1, i) for m, i in zip(mask.shape[::-1], inputs.shape[::-1])
        )
        if not fits:
            raise ValueError(
                f"Softmax layer '{self.name}' needs a mask broadcastable to its inputs (each mask axis 1 or "
                f"the input's size, and no more axes); got inputs {tuple(inputs.shape)}, mask {tuple(mask.shape)}"
            )

    def call(self, inputs: tf.Tensor, mask: Any = None) -> tf.Tensor:
        if mask is not None:
            mask = tf.convert_to_tensor(mask)
            self._check_mask(inputs, mask)
            if mask.dtype != tf.bool:
                mask = mask > tf.cast(0.5, mask.dtype)
            inputs = tf.where(mask, inputs, tf.cast(_large_negative(inputs.dtype), inputs.dtype))
        axis = tuple(self.axis) if isinstance(self.axis, list) else self.axis
        if isinstance(axis, tuple) and len(axis) == 1:
            axis = axis[0]
        outputs = activations.softmax(inputs, axis=axis)
        if mask is not None:
            outputs = tf.where(mask, outputs, tf.zeros_like(outputs))
        return outputs

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["axis"] = self.axis
        return config
