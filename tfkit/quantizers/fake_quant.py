"""Simulated quantization: float in, float out, rounded to the grid an integer type would keep.

    y = fake_quant_with_min_max_vars(x, -1.0, 1.0, num_bits=8)              # per tensor
    y = fake_quant_with_min_max_vars(x, mins, maxs, num_bits=8, axis=-1)    # per channel
    x8 = quantize_and_dequantize(x, scale, "float8_e4m3fn", "float32")

``fake_quant_with_min_max_vars`` runs TensorFlow's ``tf.quantization.fake_quant_*`` kernels (the
forms the TFLite converter recognises), with gradients for ``min_vals`` and ``max_vals``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

# Largest finite value of each float8 type, as ml_dtypes.finfo(...).max reports it.
_FLOAT8_MAX = {"float8_e4m3fn": 448.0, "float8_e5m2": 57344.0, "float8_e4m3fnuz": 240.0,
               "float8_e5m2fnuz": 57344.0, "float8_e4m3b11fnuz": 30.0}


def fake_quant_with_min_max_vars(inputs: Any, min_vals: Any, max_vals: Any, num_bits: int = 8,
                                 narrow_range: bool = False, axis: int | None = None) -> tf.Tensor:
    """Clamp to ``[min_vals, max_vals]`` (nudged so 0 is exact), round to ``2**num_bits`` levels, dequantize.

    ``axis=None`` quantizes per tensor (scalar limits); an ``axis`` quantizes per channel along it.
    """
    inputs = tf.convert_to_tensor(inputs)
    dtype = inputs.dtype
    x = tf.cast(inputs, tf.float32)
    low = tf.cast(tf.convert_to_tensor(min_vals), tf.float32)
    high = tf.cast(tf.convert_to_tensor(max_vals), tf.float32)
    num_bits = int(num_bits)
    if axis is None:
        out = tf.quantization.fake_quant_with_min_max_vars(x, tf.reshape(low, ()), tf.reshape(high, ()),
                                                           num_bits=num_bits, narrow_range=narrow_range)
        return tf.cast(out, dtype)
    rank = x.shape.rank
    if not -rank <= axis < rank:
        raise ValueError(f"fake_quant_with_min_max_vars expected axis in [{-rank}, {rank}), got {axis}")
    axis %= rank
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    out = tf.quantization.fake_quant_with_min_max_vars_per_channel(
        tf.transpose(x, perm), low, high, num_bits=num_bits, narrow_range=narrow_range)
    return tf.cast(tf.transpose(out, perm), dtype)


def compute_float8_scale(amax: Any, scale: Any, dtype_max: Any, margin: int = 0) -> tf.Tensor:
    """The next float8 scale from the recent absolute maximum ``amax`` (Transformer Engine's rule).

    Where ``amax`` is zero or not finite the previous ``scale`` is kept.
    """
    amax = tf.convert_to_tensor(amax)
    previous = tf.math.reciprocal(tf.cast(scale, amax.dtype))
    factor = tf.cast(dtype_max, amax.dtype) / amax / (2.0 ** margin)
    factor = tf.where(amax > 0.0, factor, previous)
    factor = tf.where(tf.math.is_finite(amax), factor, previous)
    return tf.math.reciprocal(factor)


def compute_float8_amax_history(x: Any, amax_history: Any) -> tf.Tensor:
    """Roll ``amax_history`` left by one and put ``max(|x|)`` first."""
    amax_history = tf.convert_to_tensor(amax_history)
    amax = tf.cast(tf.reduce_max(tf.abs(x)), amax_history.dtype)
    rolled = tf.roll(amax_history, shift=-1, axis=0)
    return tf.tensor_scatter_nd_update(rolled, [[0]], tf.reshape(amax, [1]))


def quantize_and_dequantize(inputs: Any, scale: Any, quantized_dtype: str, compute_dtype: str) -> tf.Tensor:
    """``cast(clip(inputs / scale), quantized_dtype) * scale`` computed in ``compute_dtype``."""
    name = tf.as_dtype(quantized_dtype).name
    if name not in _FLOAT8_MAX:
        info = tf.as_dtype(quantized_dtype)
        if not info.is_integer:
            raise ValueError(f"quantize_and_dequantize expected a float8 or integer quantized_dtype, "
                             f"got {quantized_dtype!r}")
        limit = float(info.max)
    else:
        limit = _FLOAT8_MAX[name]
    compute = tf.as_dtype(compute_dtype)
    scale = tf.cast(scale, compute)
    x = tf.clip_by_value(tf.cast(inputs, compute) / scale, -limit, limit)
    return tf.cast(tf.cast(x, quantized_dtype), compute) * scale
