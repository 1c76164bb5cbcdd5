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


def abs_max_quantize(inputs: Any, axis: Any, value_range: tuple[int, int] = (-127, 127), dtype: str = "int8",
                     epsilon: float | None = None, to_numpy: bool = False) -> tuple[tf.Tensor, tf.Tensor]:
    """``(quantized, scale)``: ``quantized = clip(round(inputs * scale))``, ``scale`` keeps ``axis`` as size 1.

    ``to_numpy=True`` computes on the host with numpy (the same numbers).
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
    inputs: Any, block_size: int, value_range: tuple[int, int] = (-8, 7), dtype: str = "int8",
    epsilon: float | None = None, to_numpy: bool = False,
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """Asymmetric quantization of a 2-D ``(input_dim, output_dim)`` tensor in groups of ``block_size`` rows.

    Returns ``(quantized, scale, zero_point)``; ``scale`` and ``zero_point`` have shape
    ``(ceil(input_dim / block_size), output_dim)`` and ``inputs ~= (quantized - zero_point) * scale``.
    """
    epsilon = _epsilon() if epsilon is None else epsilon
    if not isinstance(block_size, int) or isinstance(block_size, bool) or block_size <= 0:
        raise ValueError(f"abs_max_quantize_grouped_with_zero_point expected block_size to be a positive "
                         f"integer, got {block_size!r}")
    tensor = tf.convert_to_tensor(inputs)
    if tensor.shape.rank != 2:
        raise ValueError(f"abs_max_quantize_grouped_with_zero_point expects a 2-D (input_dim, output_dim) "
                         f"tensor, got shape {tensor.shape}")
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
    """Base class: ``quantizer(x)`` returns the quantized form of ``x`` (here: ``x`` unchanged)."""

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
    """Symmetric per-axis quantizer: ``AbsMaxQuantizer()(x, axis=-1) -> (quantized, scale)``.

        quantizer = AbsMaxQuantizer(value_range=(-127, 127))
        q, scale = quantizer(activations, axis=-1)
    """

    def __init__(self, axis: Any = None, value_range: tuple[int, int] = (-127, 127),
                 epsilon: float | None = None, output_dtype: str = "int8") -> None:
        super().__init__(output_dtype=output_dtype)
        self.axis = None if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
        self.value_range = tuple(value_range)
        self.epsilon = _epsilon() if epsilon is None else epsilon
        if output_dtype == "int8" and (self.value_range[0] < -128 or self.value_range[1] > 127):
            raise ValueError(f"AbsMaxQuantizer with output_dtype='int8' needs value_range within [-128, 127], "
                             f"got value_range={value_range}")

    def __call__(self, x: Any, axis: Any = None, to_numpy: bool = False) -> tuple[tf.Tensor, tf.Tensor]:
        axis = self.axis if axis is None else axis
        return abs_max_quantize(x, -1 if axis is None else axis, self.value_range, self.output_dtype,
                                self.epsilon, to_numpy)

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
