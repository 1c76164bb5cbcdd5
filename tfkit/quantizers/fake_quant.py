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
_FLOAT8_MAX = {
    "float8_e4m3fn": 448.0,
    "float8_e5m2": 57344.0,
    "float8_e4m3fnuz": 240.0,
    "float8_e5m2fnuz": 57344.0,
    "float8_e4m3b11fnuz": 30.0,
}


def fake_quant_with_min_max_vars(
    inputs: Any, min_vals: Any, max_vals: Any, num_bits: int = 8, narrow_range: bool = False, axis: int | None = None
) -> tf.Tensor:
    """Simulates quantization: clamps, rounds to an integer grid, and returns floats.

    The range `[min_vals, max_vals]` is first nudged so that 0 is exactly representable; inputs
    are clamped to it and rounded to one of `2**num_bits` evenly spaced levels (one fewer with
    `narrow_range`). This runs TensorFlow's `tf.quantization.fake_quant_with_min_max_vars`
    kernels (the forms the TFLite converter recognises), with gradients for the inputs and for
    `min_vals` and `max_vals`, so it can be used in quantization-aware training.

    Args:
        inputs: The float tensor to quantize.
        min_vals: The lower end of the range: a scalar, or a 1-D tensor with one value per channel
            of `axis`.
        max_vals: The upper end of the range, shaped like `min_vals`.
        num_bits: The number of bits of the grid, from 2 to 16. Defaults to `8`.
        narrow_range: Whether to leave out the lowest level (e.g. `[1, 255]` instead of
            `[0, 255]` for 8 bits). Defaults to `False`.
        axis: `None` to quantize per tensor (scalar limits), or the channel axis to quantize per
            channel along. Defaults to `None`.

    Returns:
        A tensor of `inputs`' shape and dtype holding the quantized-then-dequantized values.

    Raises:
        ValueError: If `axis` is outside the rank of `inputs`.

    Example:
        >>> x = np.array([-1.5, -0.3, 0.0, 0.26, 2.0], np.float32)
        >>> y = tfkit.quantizers.fake_quant_with_min_max_vars(x, -1.0, 1.0, num_bits=2)
        >>> np.round(y.numpy(), 4)
        array([-1.3333,  0.    ,  0.    ,  0.    ,  0.6667], dtype=float32)
    """
    inputs = tf.convert_to_tensor(inputs)
    dtype = inputs.dtype
    x = tf.cast(inputs, tf.float32)
    low = tf.cast(tf.convert_to_tensor(min_vals), tf.float32)
    high = tf.cast(tf.convert_to_tensor(max_vals), tf.float32)
    num_bits = int(num_bits)
    if axis is None:
        out = tf.quantization.fake_quant_with_min_max_vars(
            x, tf.reshape(low, ()), tf.reshape(high, ()), num_bits=num_bits, narrow_range=narrow_range
        )
        return tf.cast(out, dtype)
    rank = x.shape.rank
    if not -rank <= axis < rank:
        raise ValueError(f"fake_quant_with_min_max_vars expected axis in [{-rank}, {rank}), got {axis}")
    axis %= rank
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    out = tf.quantization.fake_quant_with_min_max_vars_per_channel(
        tf.transpose(x, perm), low, high, num_bits=num_bits, narrow_range=narrow_range
    )
    return tf.cast(tf.transpose(out, perm), dtype)


def compute_float8_scale(amax: Any, scale: Any, dtype_max: Any, margin: int = 0) -> tf.Tensor:
    """Computes the next float8 scale from the recent absolute maximum (delayed scaling).

    Transformer Engine's rule, as Keras 3: the new scale is `amax * 2**margin / dtype_max`, so
    that `amax / scale` lands on the largest float8 value less the margin. Where `amax` is zero
    or not finite, the previous `scale` is kept.

    Args:
        amax: The recent absolute maximum of the values (e.g. the maximum of an amax history).
        scale: The current scale.
        dtype_max: The largest finite value of the float8 dtype (448 for `float8_e4m3fn`, 57344
            for `float8_e5m2`).
        margin: A power of two of headroom: the scale is multiplied by `2**margin`. Defaults to
            `0`.

    Returns:
        The new scale, a tensor in `amax`'s dtype.

    Example:
        >>> scale = tfkit.quantizers.compute_float8_scale(tf.constant(2.0), tf.constant(1.0), 448.0)
        >>> round(float(scale), 6)
        0.004464
        >>> float(tfkit.quantizers.compute_float8_scale(tf.constant(0.0), tf.constant(0.5), 448.0))
        0.5
    """
    amax = tf.convert_to_tensor(amax)
    previous = tf.math.reciprocal(tf.cast(scale, amax.dtype))
    factor = tf.cast(dtype_max, amax.dtype) / amax / (2.0**margin)
    factor = tf.where(amax > 0.0, factor, previous)
    factor = tf.where(tf.math.is_finite(amax), factor, previous)
    return tf.math.reciprocal(factor)


def compute_float8_amax_history(x: Any, amax_history: Any) -> tf.Tensor:
    """Updates an amax history with the absolute maximum of `x`.

    The history is rolled left by one step and `max(abs(x))` is written in its first slot, as
    Keras 3 does for float8 training.

    Args:
        x: The tensor whose absolute maximum is recorded.
        amax_history: The 1-D history of absolute maxima.

    Returns:
        The new history, a tensor of `amax_history`'s shape and dtype.

    Example:
        >>> history = tfkit.quantizers.compute_float8_amax_history(
        ...     np.array([-3.0, 1.0], np.float32), tf.constant([1.0, 2.0, 0.0]))
        >>> history.numpy()
        array([3., 0., 1.], dtype=float32)
    """
    amax_history = tf.convert_to_tensor(amax_history)
    amax = tf.cast(tf.reduce_max(tf.abs(x)), amax_history.dtype)
    rolled = tf.roll(amax_history, shift=-1, axis=0)
    return tf.tensor_scatter_nd_update(rolled, [[0]], tf.reshape(amax, [1]))


def quantize_and_dequantize(inputs: Any, scale: Any, quantized_dtype: str, compute_dtype: str) -> tf.Tensor:
    """Quantizes to `quantized_dtype` with a scale, then dequantizes back.

    Computes `cast(clip(inputs / scale, -limit, limit), quantized_dtype) * scale` in
    `compute_dtype`, where `limit` is the largest finite value of the float8 dtype (e.g. 448 for
    `float8_e4m3fn`) or the maximum of the integer dtype. The result shows the precision lost to
    the quantized dtype.

    Args:
        inputs: The tensor to quantize.
        scale: The scale the values are divided by before the cast.
        quantized_dtype: A float8 dtype (`"float8_e4m3fn"`, `"float8_e5m2"`, ...) or an integer
            dtype.
        compute_dtype: The float dtype the computation and the result use.

    Returns:
        A tensor of `inputs`' shape in `compute_dtype`.

    Raises:
        ValueError: If `quantized_dtype` is neither float8 nor an integer dtype.

    Example:
        >>> x = np.array([0.1, 1.0, 1000.0], np.float32)
        >>> tfkit.quantizers.quantize_and_dequantize(x, 1.0, "float8_e4m3fn", "float32").numpy()
        array([1.015625e-01, 1.000000e+00, 4.480000e+02], dtype=float32)
    """
    name = tf.as_dtype(quantized_dtype).name
    if name not in _FLOAT8_MAX:
        info = tf.as_dtype(quantized_dtype)
        if not info.is_integer:
            raise ValueError(
                f"quantize_and_dequantize expected a float8 or integer quantized_dtype, got {quantized_dtype!r}"
            )
        limit = float(info.max)
    else:
        limit = _FLOAT8_MAX[name]
    compute = tf.as_dtype(compute_dtype)
    scale = tf.cast(scale, compute)
    x = tf.clip_by_value(tf.cast(inputs, compute) / scale, -limit, limit)
    return tf.cast(tf.cast(x, quantized_dtype), compute) * scale
