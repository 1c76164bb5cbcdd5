"""Pooling of ``keras.ops.nn``: max and average windows, and adaptive pooling to a fixed output size.

    y = tfkit.ops.max_pool(images, pool_size=2)                    # (2, 8, 8, 3) -> (2, 4, 4, 3)
    y = tfkit.ops.average_pool(images, 3, strides=1, padding="same")
    y = tfkit.ops.adaptive_average_pool(images, output_size=(7, 7))

Adaptive pooling splits axis ``n`` into windows ``[floor(i n / out), ceil((i + 1) n / out))``
as PyTorch does; it needs the spatial sizes known when the op is built.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base.data_format import from_channels_last, to_channels_last
from tfkit.ops._convert import export, float_of, tensor
from tfkit.ops.nn_conv import data_format_of, padding_of, spatial_rank, tuple_of


def _pool(inputs: Any, pool_size: Any, strides: Any, padding: str, data_format: str | None, kind: str) -> tf.Tensor:
    op = f"{kind}_pool"
    inputs = tensor(inputs)
    if kind == "average":
        inputs = float_of(inputs)
    rank = spatial_rank(inputs, (1, 2, 3), op)
    data_format = data_format_of(data_format, op)
    padding = padding_of(padding, op)
    window = tuple_of(pool_size, rank, "pool_size", op)
    strides = window if strides is None else tuple_of(strides, rank, "strides", op)
    inputs = to_channels_last(inputs, data_format)
    pool = tf.nn.max_pool if kind == "max" else tf.nn.avg_pool
    outputs = pool(inputs, window, strides, padding.upper())
    return from_channels_last(outputs, data_format)


def max_pool(
    inputs: Any, pool_size: Any, strides: Any = None, padding: str = "valid", data_format: str | None = None
) -> tf.Tensor:
    """Max pooling operation.

    Integer inputs keep their dtype.

    Args:
        inputs: Tensor of rank N+2. `inputs` has shape
            `(batch_size,) + inputs_spatial_shape + (num_channels,)` if
            `data_format="channels_last"`, or
            `(batch_size, num_channels) + inputs_spatial_shape` if
            `data_format="channels_first"`. Pooling happens over the spatial
            dimensions only (1, 2 or 3 of them).
        pool_size: int or tuple/list of integers of size
            `len(inputs_spatial_shape)`, specifying the size of the pooling
            window for each spatial dimension of the input tensor. If
            `pool_size` is int, then every spatial dimension shares the same
            `pool_size`.
        strides: int or tuple/list of integers of size
            `len(inputs_spatial_shape)`. The stride of the sliding window for
            each spatial dimension of the input tensor. If `strides` is int,
            then every spatial dimension shares the same `strides`. `None` (the
            default) uses `pool_size`.
        padding: string, either `"valid"` or `"same"`. `"valid"` means no
            padding is applied, and `"same"` results in padding evenly to the
            left/right or up/down of the input such that output has the
            same height/width dimension as the input when `strides=1`.
            Defaults to `"valid"`.
        data_format: A string, either `"channels_last"` or `"channels_first"`.
            `data_format` determines the ordering of the dimensions in the
            inputs. If `data_format="channels_last"`, `inputs` is of shape
            `(batch_size, ..., channels)` while if
            `data_format="channels_first"`, `inputs` is of shape
            `(batch_size, channels, ...)`. `None` (the default) means
            `tfkit.backend.image_data_format()`.

    Returns:
        A tensor of rank N+2, the result of the max pooling operation.

    Raises:
        ValueError: If `inputs` is not of rank 3, 4 or 5, if `padding` or
            `data_format` is not one of the values above, or if `pool_size` or
            `strides` is not a positive int or one positive int per spatial
            axis.

    Example:
        >>> x = np.arange(16.0, dtype="float32").reshape(1, 4, 4, 1)
        >>> tfkit.ops.max_pool(x, pool_size=2)[0, :, :, 0].numpy()
        array([[ 5.,  7.],
               [13., 15.]], dtype=float32)
        >>> tfkit.ops.max_pool(x, 3, strides=1, padding="same").shape
        TensorShape([1, 4, 4, 1])
    """
    return _pool(inputs, pool_size, strides, padding, data_format, "max")


def average_pool(
    inputs: Any, pool_size: Any, strides: Any = None, padding: str = "valid", data_format: str | None = None
) -> tf.Tensor:
    """Average pooling operation.

    Integer inputs are computed in float32. With `"same"` padding, the padded
    positions are left out of each average.

    Args:
        inputs: Tensor of rank N+2. `inputs` has shape
            `(batch_size,) + inputs_spatial_shape + (num_channels,)` if
            `data_format="channels_last"`, or
            `(batch_size, num_channels) + inputs_spatial_shape` if
            `data_format="channels_first"`. Pooling happens over the spatial
            dimensions only (1, 2 or 3 of them).
        pool_size: int or tuple/list of integers of size
            `len(inputs_spatial_shape)`, specifying the size of the pooling
            window for each spatial dimension of the input tensor. If
            `pool_size` is int, then every spatial dimension shares the same
            `pool_size`.
        strides: int or tuple/list of integers of size
            `len(inputs_spatial_shape)`. The stride of the sliding window for
            each spatial dimension of the input tensor. If `strides` is int,
            then every spatial dimension shares the same `strides`. `None` (the
            default) uses `pool_size`.
        padding: string, either `"valid"` or `"same"`. `"valid"` means no
            padding is applied, and `"same"` results in padding evenly to the
            left/right or up/down of the input such that output has the
            same height/width dimension as the input when `strides=1`.
            Defaults to `"valid"`.
        data_format: A string, either `"channels_last"` or `"channels_first"`.
            `data_format` determines the ordering of the dimensions in the
            inputs. If `data_format="channels_last"`, `inputs` is of shape
            `(batch_size, ..., channels)` while if
            `data_format="channels_first"`, `inputs` is of shape
            `(batch_size, channels, ...)`. `None` (the default) means
            `tfkit.backend.image_data_format()`.

    Returns:
        A tensor of rank N+2, the result of the average pooling operation.

    Raises:
        ValueError: If `inputs` is not of rank 3, 4 or 5, if `padding` or
            `data_format` is not one of the values above, or if `pool_size` or
            `strides` is not a positive int or one positive int per spatial
            axis.

    Example:
        >>> x = np.arange(16.0, dtype="float32").reshape(1, 4, 4, 1)
        >>> tfkit.ops.average_pool(x, pool_size=2)[0, :, :, 0].numpy()
        array([[ 2.5,  4.5],
               [10.5, 12.5]], dtype=float32)
    """
    return _pool(inputs, pool_size, strides, padding, data_format, "average")


def _adaptive_axis(x: tf.Tensor, axis: int, size: int, out: int, kind: str) -> tf.Tensor:
    """Pool axis ``axis`` (static length ``size``) of ``x`` down to ``out`` windows."""
    starts = [math.floor(i * size / out) for i in range(out)]
    ends = [math.ceil((i + 1) * size / out) for i in range(out)]
    width = max(e - s for s, e in zip(starts, ends))
    # each window's indices, padded with its own first index (harmless for max, weighted out for average)
    index = np.array([[s + j if s + j < e else s for j in range(width)] for s, e in zip(starts, ends)], np.int32)
    windows = tf.gather(x, index, axis=axis)  # (..., out, width, ...)
    if kind == "max":
        return tf.reduce_max(windows, axis=axis + 1)
    shape = [1] * len(windows.shape)
    shape[axis], shape[axis + 1] = out, width
    weights = np.array([[1.0 if s + j < e else 0.0 for j in range(width)] for s, e in zip(starts, ends)])
    weights = tf.constant((weights / weights.sum(1, keepdims=True)).reshape(shape), windows.dtype)
    return tf.reduce_sum(windows * weights, axis=axis + 1)


def _adaptive(inputs: Any, output_size: Any, data_format: str | None, kind: str) -> tf.Tensor:
    op = f"adaptive_{kind}_pool"
    inputs = tensor(inputs)
    if kind == "average":
        inputs = float_of(inputs)
    rank = spatial_rank(inputs, (1, 2, 3), op)
    data_format = data_format_of(data_format, op)
    sizes = tuple_of(output_size, rank, "output_size", op)
    x = to_channels_last(inputs, data_format)
    for i, out in enumerate(sizes):
        size = x.shape[i + 1]
        if size is None:
            raise ValueError(
                f"{op}: spatial axis {i} of inputs has no static size (shape {tuple(inputs.shape)}); "
                f"adaptive pooling needs the spatial sizes when the op is built"
            )
        x = _adaptive_axis(x, i + 1, size, out, kind)
    return from_channels_last(x, data_format)


def adaptive_max_pool(inputs: Any, output_size: Any, data_format: str | None = None) -> tf.Tensor:
    """Adaptive max pooling operation.

    Pools `inputs` to a fixed output size whatever its spatial size: each
    output element is the maximum of its window. Integer inputs keep their
    dtype.

    A spatial axis of size `n` pooled to size `out` is split into
    the windows `[floor(i * n / out), ceil((i + 1) * n / out))` for `i` in
    `range(out)`, as PyTorch does; neighbouring windows may overlap. The spatial sizes of `inputs` must be
    static.

    Args:
        inputs: Tensor of rank N+2. `inputs` has shape
            `(batch_size,) + inputs_spatial_shape + (num_channels,)` if
            `data_format="channels_last"`, or
            `(batch_size, num_channels) + inputs_spatial_shape` if
            `data_format="channels_first"`. Pooling happens over the spatial
            dimensions only (1, 2 or 3 of them).
        output_size: int or tuple/list of integers of size
            `len(inputs_spatial_shape)`, the size of the output along each
            spatial dimension. If `output_size` is int, then every spatial
            dimension shares the same `output_size`.
        data_format: A string, either `"channels_last"` or `"channels_first"`.
            `data_format` determines the ordering of the dimensions in the
            inputs. If `data_format="channels_last"`, `inputs` is of shape
            `(batch_size, ..., channels)` while if
            `data_format="channels_first"`, `inputs` is of shape
            `(batch_size, channels, ...)`. `None` (the default) means
            `tfkit.backend.image_data_format()`.

    Returns:
        A tensor of rank N+2 with spatial shape `output_size`.

    Raises:
        ValueError: If `inputs` is not of rank 3, 4 or 5, if `data_format` is
            not one of the values above, if `output_size` is not a positive int
            or one positive int per spatial axis, or if a spatial axis of
            `inputs` has no static size.

    Example:
        >>> x = np.arange(5.0, dtype="float32").reshape(1, 5, 1)
        >>> tfkit.ops.adaptive_max_pool(x, output_size=2)[0, :, 0].numpy()
        array([2., 4.], dtype=float32)
        >>> tfkit.ops.adaptive_max_pool(np.ones((2, 7, 9, 3)), (2, 3)).shape
        TensorShape([2, 2, 3, 3])
    """
    return _adaptive(inputs, output_size, data_format, "max")


def adaptive_average_pool(inputs: Any, output_size: Any, data_format: str | None = None) -> tf.Tensor:
    """Adaptive average pooling operation.

    Pools `inputs` to a fixed output size whatever its spatial size: each
    output element is the mean of its window. Integer inputs are computed in
    float32.

    A spatial axis of size `n` pooled to size `out` is split into
    the windows `[floor(i * n / out), ceil((i + 1) * n / out))` for `i` in
    `range(out)`, as PyTorch does; neighbouring windows may overlap. The spatial sizes of `inputs` must be
    static.

    Args:
        inputs: Tensor of rank N+2. `inputs` has shape
            `(batch_size,) + inputs_spatial_shape + (num_channels,)` if
            `data_format="channels_last"`, or
            `(batch_size, num_channels) + inputs_spatial_shape` if
            `data_format="channels_first"`. Pooling happens over the spatial
            dimensions only (1, 2 or 3 of them).
        output_size: int or tuple/list of integers of size
            `len(inputs_spatial_shape)`, the size of the output along each
            spatial dimension. If `output_size` is int, then every spatial
            dimension shares the same `output_size`.
        data_format: A string, either `"channels_last"` or `"channels_first"`.
            `data_format` determines the ordering of the dimensions in the
            inputs. If `data_format="channels_last"`, `inputs` is of shape
            `(batch_size, ..., channels)` while if
            `data_format="channels_first"`, `inputs` is of shape
            `(batch_size, channels, ...)`. `None` (the default) means
            `tfkit.backend.image_data_format()`.

    Returns:
        A tensor of rank N+2 with spatial shape `output_size`.

    Raises:
        ValueError: If `inputs` is not of rank 3, 4 or 5, if `data_format` is
            not one of the values above, if `output_size` is not a positive int
            or one positive int per spatial axis, or if a spatial axis of
            `inputs` has no static size.

    Example:
        >>> x = np.arange(5.0, dtype="float32").reshape(1, 5, 1)
        >>> tfkit.ops.adaptive_average_pool(x, output_size=2)[0, :, 0].numpy()
        array([1., 3.], dtype=float32)
        >>> tfkit.ops.adaptive_average_pool(np.ones((2, 7, 9, 3)), (2, 3)).shape
        TensorShape([2, 2, 3, 3])
    """
    return _adaptive(inputs, output_size, data_format, "average")


__all__ = ["max_pool", "average_pool", "adaptive_max_pool", "adaptive_average_pool"]
export(globals(), __all__)
