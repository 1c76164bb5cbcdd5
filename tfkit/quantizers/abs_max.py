"""Absolute-maximum quantization: a float tensor to integers and the scale that maps them back.

    q, scale = abs_max_quantize(kernel, axis=0)            # int8 in [-127, 127]
    approx = tf.cast(q, tf.float32) / scale                 # ~= kernel
    q, scale, zero = abs_max_quantize_grouped_with_zero_point(kernel, block_size=128)   # int4 groups

As Keras 3: ``scale = value_range[1] / (max|x| + epsilon)`` along ``axis`` (kept), outputs
rounded half to even and clipped to ``value_range``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.base.settings import epsilon as _epsilon

_KIND = "quantizers"


def _axes(axis: Any, rank: int) -> tuple[int, ...]:
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(a % rank for a in axes)


def abs_max_quantize(
    inputs: Any,
    axis: Any,
    value_range: tuple[int, int] = (-127, 127),
    dtype: str = "int8",
    epsilon: float | None = None,
    to_numpy: bool = False,
) -> tuple[tf.Tensor, tf.Tensor]:
    """Quantizes a tensor symmetrically by its absolute maximum along `axis`.

    As Keras 3: `scale = value_range[1] / (max(abs(inputs)) + epsilon)`, reduced over `axis`
    (kept with size 1), and `quantized = clip(round(inputs * scale), *value_range)` (rounding half
    to even), cast to `dtype`. `quantized / scale` approximates `inputs`.

    Args:
        inputs: The float tensor (or array) to quantize.
        axis: The axis or axes to reduce to find the absolute maximum, e.g. `0` for one scale per
            output column of a `(input_dim, units)` kernel, `-1` for one scale per row.
        value_range: The `(min, max)` integer range of the outputs. Defaults to `(-127, 127)`.
        dtype: The dtype of the quantized output. Defaults to `"int8"`.
        epsilon: Added to the maximum to avoid a division by zero. Defaults to `None`, for
            `tfkit.backend.epsilon()`.
        to_numpy: Whether to compute on the host with NumPy (the same numbers; useful for large
            weights quantized once). Defaults to `False`.

    Returns:
        A tuple `(quantized, scale)` of tensors: `quantized` of `inputs`' shape and `dtype`, and
        `scale` in `inputs`' float dtype with the size of `axis` reduced to 1.

    Example:
        >>> x = np.array([[1.0, -2.0], [0.5, 4.0]], np.float32)
        >>> quantized, scale = tfkit.quantizers.abs_max_quantize(x, axis=-1)
        >>> quantized.numpy()
        array([[  64, -127],
               [  16,  127]], dtype=int8)
        >>> np.round(scale.numpy(), 4)
        array([[63.5 ],
               [31.75]], dtype=float32)
    """
    epsilon = _epsilon() if epsilon is None else epsilon
    if to_numpy:
        array = np.asarray(inputs.numpy() if hasattr(inputs, "numpy") else inputs)
        original = array.dtype
        axes = _axes(axis, array.ndim)
        scale = np.divide(value_range[1], np.max(np.abs(array), axis=axes, keepdims=True) + epsilon)
        outputs = np.clip(np.round(array * scale), value_range[0], value_range[1]).astype(dtype)
        return tf.convert_to_tensor(outputs), tf.convert_to_tensor(scale, dtype=original)
    inputs = tf.convert_to_tensor(inputs)
    axes = _axes(axis, inputs.shape.rank)
    peak = tf.reduce_max(tf.abs(inputs), axis=axes, keepdims=True)
    scale = tf.cast(tf.math.divide(tf.cast(value_range[1], peak.dtype), peak + epsilon), inputs.dtype)
    outputs = tf.clip_by_value(tf.round(inputs * scale), value_range[0], value_range[1])
    return tf.cast(outputs, dtype), scale


def abs_max_quantize_grouped_with_zero_point(
    inputs: Any,
    block_size: int,
    value_range: tuple[int, int] = (-8, 7),
    dtype: str = "int8",
    epsilon: float | None = None,
    to_numpy: bool = False,
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """Quantizes a 2-D tensor asymmetrically, in groups of `block_size` input rows.

    The rows of a `(input_dim, output_dim)` kernel are split into groups of `block_size`
    (the last one padded with zeros). Each group and column gets `scale = (max - min + epsilon)
    / (qmax - qmin)` and `zero_point = clip(round(-min / scale) + qmin, qmin, qmax)`, and
    `quantized = clip(round(inputs / scale) + zero_point, qmin, qmax)`, so that
    `inputs ~= (quantized - zero_point) * scale`. This is the grouped int4 scheme of
    `Int4QuantizationConfig(block_size=...)`.

    Args:
        inputs: The 2-D float tensor `(input_dim, output_dim)` to quantize.
        block_size: The number of input rows per group, a positive integer.
        value_range: The `(qmin, qmax)` integer range of the outputs. Defaults to `(-8, 7)`, int4.
        dtype: The dtype of the quantized output. Defaults to `"int8"`.
        epsilon: Added to each group's range to avoid a division by zero. Defaults to `None`, for
            `tfkit.backend.epsilon()`.
        to_numpy: Accepted for Keras compatibility; the computation always runs in TensorFlow.
            Defaults to `False`.

    Returns:
        A tuple `(quantized, scale, zero_point)`: `quantized` of `inputs`' shape and `dtype`, and
        `scale` (in `inputs`' dtype) and `zero_point` (`int8`) of shape
        `(ceil(input_dim / block_size), output_dim)`.

    Raises:
        ValueError: If `block_size` is not a positive integer, or `inputs` is not 2-D.

    Example:
        >>> kernel = np.array([[0.0, 1.0], [1.0, -1.0], [2.0, 0.5]], np.float32)
        >>> quantized, scale, zero_point = tfkit.quantizers.abs_max_quantize_grouped_with_zero_point(
        ...     kernel, block_size=2)
        >>> quantized.numpy()
        array([[-8,  6],
               [ 7, -8],
               [ 7,  7]], dtype=int8)
        >>> scale.shape, zero_point.numpy()
        (TensorShape([2, 2]), array([[-8, -1],
               [-8, -8]], dtype=int8))
    """
    epsilon = _epsilon() if epsilon is None else epsilon
    if not isinstance(block_size, int) or isinstance(block_size, bool) or block_size <= 0:
        raise ValueError(
            f"abs_max_quantize_grouped_with_zero_point expected block_size to be a positive integer, got {block_size!r}"
        )
    tensor = tf.convert_to_tensor(inputs)
    if tensor.shape.rank != 2:
        raise ValueError(
            f"abs_max_quantize_grouped_with_zero_point expects a 2-D (input_dim, output_dim) "
            f"tensor, got shape {tensor.shape}"
        )
    qmin, qmax = value_range
    input_dim, output_dim = tensor.shape
    groups = math.ceil(input_dim / block_size)
    padded = tf.concat([tensor, tf.zeros((groups * block_size - input_dim, output_dim), tensor.dtype)], axis=0)
    blocks = tf.reshape(padded, (groups, block_size, output_dim))
    low = tf.reduce_min(blocks, axis=1, keepdims=True)
    high = tf.reduce_max(blocks, axis=1, keepdims=True)
    scale = (high - low + epsilon) / (qmax - qmin)
    zero_point = tf.clip_by_value(tf.round(-low / scale) + qmin, qmin, qmax)
    outputs = tf.clip_by_value(tf.round(blocks / scale) + zero_point, qmin, qmax)
    outputs = tf.cast(tf.reshape(outputs, (groups * block_size, output_dim))[:input_dim], dtype)
    return outputs, tf.squeeze(scale, 1), tf.cast(tf.squeeze(zero_point, 1), tf.int8)


@registry.base(_KIND)
class Quantizer:
    """Base class of quantizers: `quantizer(x)` returns the quantized form of `x`.

    Subclasses implement `__call__` (the base class returns `x` unchanged) and `get_config`
    (the base class raises `NotImplementedError`); `from_config(config)` calls the class with
    the config's entries. Subclasses are serialized with `tfkit.quantizers.serialize`.

    Args:
        output_dtype: The dtype of the quantized values. Defaults to `"int8"`.

    Example:
        >>> quantizer = tfkit.quantizers.Quantizer()
        >>> quantizer.output_dtype
        'int8'
        >>> quantizer(np.array([0.5, 1.0]))
        array([0.5, 1. ])
    """

    def __init__(self, output_dtype: str = "int8") -> None:
        self.output_dtype = output_dtype

    def __call__(self, x: Any) -> Any:
        return x

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Quantizer":
        return cls(**config)

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError(f"{type(self).__name__} does not implement get_config()")


@registry.builtin(_KIND, "abs_max_quantizer")
class AbsMaxQuantizer(Quantizer):
    """Quantizer that scales by the absolute maximum along an axis, symmetrically.

    `quantizer(x, axis=None, to_numpy=False)` returns `(quantized, scale)` as
    `tfkit.quantizers.abs_max_quantize` computes them, along the `axis` given to the call, else
    the quantizer's `axis`, else the last axis. It is the default weight and activation quantizer
    of `Int8QuantizationConfig`.

    Args:
        axis: The axis or axes (an int or a tuple) reduced to find the absolute maximum. Defaults
            to `None`: the call's `axis`, else `-1`.
        value_range: The `(min, max)` integer range of the outputs. Defaults to `(-127, 127)`.
        epsilon: Added to the maximum to avoid a division by zero. Defaults to `None`, for
            `tfkit.backend.epsilon()`.
        output_dtype: The dtype of the quantized values. Defaults to `"int8"`.

    Raises:
        ValueError: If `output_dtype` is `"int8"` and `value_range` leaves `[-128, 127]`.

    Example:
        >>> quantizer = tfkit.quantizers.AbsMaxQuantizer(axis=-1)
        >>> quantized, scale = quantizer(np.array([[1.0, -2.0], [0.5, 4.0]], np.float32))
        >>> quantized.numpy()
        array([[  64, -127],
               [  16,  127]], dtype=int8)
        >>> quantizer.get_config()["axis"]
        (-1,)
    """

    def __init__(
        self,
        axis: Any = None,
        value_range: tuple[int, int] = (-127, 127),
        epsilon: float | None = None,
        output_dtype: str = "int8",
    ) -> None:
        super().__init__(output_dtype=output_dtype)
        self.axis = None if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
        self.value_range = tuple(value_range)
        self.epsilon = _epsilon() if epsilon is None else epsilon
        if output_dtype == "int8" and (self.value_range[0] < -128 or self.value_range[1] > 127):
            raise ValueError(
                f"AbsMaxQuantizer with output_dtype='int8' needs value_range within [-128, 127], "
                f"got value_range={value_range}"
            )

    def __call__(self, x: Any, axis: Any = None, to_numpy: bool = False) -> tuple[tf.Tensor, tf.Tensor]:
        axis = self.axis if axis is None else axis
        return abs_max_quantize(
            x, -1 if axis is None else axis, self.value_range, self.output_dtype, self.epsilon, to_numpy
        )

    def get_config(self) -> dict[str, Any]:
        config = {"value_range": self.value_range, "epsilon": self.epsilon, "output_dtype": self.output_dtype}
        if self.axis is not None:
            config["axis"] = self.axis
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "AbsMaxQuantizer":
        config = dict(config)
        if "value_range" in config:
            config["value_range"] = tuple(config["value_range"])
        return cls(**config)
