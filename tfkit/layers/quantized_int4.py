"""The int4 layout of a 2-D weight, as Keras 3 stores it: values packed in pairs along the last axis.

    packed, scale, zero = int4_values(kernel, scale_axis=0, block_size=128)    # Dense: groups of input rows
    weight = dequantized(packed, scale, zero, g_idx, columns, scale_axis=0)    # back to floats (compute dtype)

Per channel (``block_size`` None or -1): symmetric, one scale per output column (Dense,
``scale_axis=0``) or per row (Embedding, ``scale_axis=-1``); ``weight ~= q / scale``. Per group
of ``block_size`` (Keras's default, 128): asymmetric with a zero point, groups along the input
rows (Dense) or along the output columns (Embedding); ``weight ~= (q - zero[g]) * scale[g]`` where
``g_idx`` names each row's (column's) group.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import quantizers


def grouped(block_size: int | None) -> bool:
    return block_size is not None and block_size > 0


def int4_shapes(shape: tuple[int, int], scale_axis: int, block_size: int | None) -> dict[str, tuple]:
    """The shapes of the stored weights: packed values, scale, and (grouped) zero point and g_idx."""
    rows, columns = shape
    shapes: dict[str, tuple] = {"packed": (rows, (columns + 1) // 2)}
    if not grouped(block_size):
        shapes["scale"] = (columns,) if scale_axis == 0 else (rows,)
        return shapes
    if scale_axis == 0:
        shapes["scale"] = shapes["zero"] = (math.ceil(rows / block_size), columns)
        shapes["g_idx"] = (rows,)
    else:
        shapes["scale"] = shapes["zero"] = (rows, math.ceil(columns / block_size))
        shapes["g_idx"] = (columns,)
    return shapes


def group_index(length: int, block_size: int) -> np.ndarray:
    return np.floor_divide(np.arange(length, dtype="float32"), block_size)


def int4_values(
    weight: Any, scale_axis: int, block_size: int | None, weight_quantizer: Any = None
) -> tuple[Any, np.ndarray, np.ndarray | None]:
    """``(packed, scale, zero)`` of a float weight (``zero`` is None per channel)."""
    if not grouped(block_size):
        quantizer = weight_quantizer or quantizers.AbsMaxQuantizer(
            axis=scale_axis, value_range=(-8, 7), output_dtype="int8"
        )
        values, scale = quantizer(weight, to_numpy=True)
        packed, _, _ = quantizers.pack_int4(values, axis=-1)
        return packed, np.squeeze(np.asarray(scale), axis=scale_axis), None
    if scale_axis == 0:
        values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
            weight, block_size=block_size, value_range=(-8, 7), dtype="int8", to_numpy=True
        )
    else:  # groups along the columns: quantize the transpose, turn the results back
        values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
            np.transpose(np.asarray(weight)), block_size=block_size, value_range=(-8, 7), dtype="int8", to_numpy=True
        )
        values, scale, zero = (tf.transpose(values), np.transpose(np.asarray(scale)), np.transpose(np.asarray(zero)))
    packed, _, _ = quantizers.pack_int4(values, axis=-1)
    return packed, np.asarray(scale), np.asarray(zero)


def dequantized(
    packed: Any, scale: Any, zero: Any, g_idx: Any, columns: int, scale_axis: int, dtype: tf.DType
) -> tf.Tensor:
    """The float weight the int4 values stand for, in ``dtype``."""
    values = tf.cast(quantizers.unpack_int4(packed, columns, axis=-1), dtype)
    scale = tf.cast(scale, dtype)
    if zero is None:
        return values / scale if scale_axis == 0 else values / tf.expand_dims(scale, -1)
    groups = tf.cast(g_idx, tf.int32)
    axis = 0 if scale_axis == 0 else 1
    return (values - tf.cast(tf.gather(zero, groups, axis=axis), dtype)) * tf.gather(scale, groups, axis=axis)
