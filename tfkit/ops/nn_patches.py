"""Rearranging images into patches and back: depth/space blocks, and PyTorch-style unfold/fold.

    y = tfkit.ops.depth_to_space(x, 2)          # (1, 4, 4, 8) -> (1, 8, 8, 2)
    cols = tfkit.ops.unfold(images_nchw, 3)     # (N, C, H, W) -> (N, C*9, L) sliding 3x3 blocks
    back = tfkit.ops.fold(cols, (H, W), 3)      # sums the blocks back into (N, C, H, W)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.nn_conv import (
    data_format_of,
    to_channels_first,
    to_channels_last,
    tuple_of,
)


def _blocks(x: Any, block_size: int, data_format: str, op: str) -> tuple[tf.Tensor, str]:
    if not isinstance(block_size, int) or block_size < 2:
        raise ValueError(f"{op}: block_size must be an int >= 2, got {block_size!r}")
    x = tensor(x)
    if len(x.shape) != 4:
        raise ValueError(f"{op}: x must have rank 4 (batch, height, width, channels), got shape {tuple(x.shape)}")
    data_format = data_format_of(data_format, op)
    return (to_channels_last(x) if data_format == "channels_first" else x), data_format


def depth_to_space(x: Any, block_size: int, data_format: str = "channels_last") -> tf.Tensor:
    """Channels moved into ``block_size x block_size`` spatial blocks (channels must divide by ``block_size**2``)."""
    x, data_format = _blocks(x, block_size, data_format, "depth_to_space")
    channels = x.shape[-1]
    if channels is not None and channels % block_size ** 2:
        raise ValueError(f"depth_to_space: the channel count {channels} is not divisible by "
                         f"block_size**2 = {block_size ** 2}")
    y = tf.nn.depth_to_space(x, block_size)
    return to_channels_first(y) if data_format == "channels_first" else y


def space_to_depth(x: Any, block_size: int, data_format: str = "channels_last") -> tf.Tensor:
    """Each ``block_size x block_size`` spatial block moved into channels (height and width must divide)."""
    x, data_format = _blocks(x, block_size, data_format, "space_to_depth")
    for name, size in (("height", x.shape[1]), ("width", x.shape[2])):
        if size is not None and size % block_size:
            raise ValueError(f"space_to_depth: the {name} {size} is not divisible by block_size={block_size}")
    y = tf.nn.space_to_depth(x, block_size)
    return to_channels_first(y) if data_format == "channels_first" else y


def _pairs(kernel_size: Any, dilation: Any, padding: Any, stride: Any, op: str) -> tuple:
    kernel = tuple_of(kernel_size, 2, "kernel_size", op)
    dilation = tuple_of(dilation, 2, "dilation", op)
    stride = tuple_of(stride, 2, "stride", op)
    pad = (padding, padding) if isinstance(padding, int) else tuple(padding)
    if len(pad) != 2 or not all(isinstance(p, int) and p >= 0 for p in pad):
        raise ValueError(f"{op}: padding must be a non-negative int or 2 of them, got {padding!r}")
    return kernel, dilation, pad, stride


def unfold(x: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> tf.Tensor:
    """Sliding blocks of a ``(N, C, H, W)`` tensor as columns: ``(N, C * kh * kw, number of blocks)``."""
    x = tensor(x)
    if len(x.shape) != 4:
        raise ValueError(f"unfold: x must have rank 4 (N, C, H, W), got shape {tuple(x.shape)}")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = _pairs(kernel_size, dilation, padding, stride, "unfold")
    channels = x.shape[1]
    if channels is None:
        raise ValueError(f"unfold: the channel axis of x must have a static size, got shape {tuple(x.shape)}")
    padded = tf.pad(x, [[0, 0], [0, 0], [ph, ph], [pw, pw]])
    patches = tf.image.extract_patches(to_channels_last(padded), [1, kh, kw, 1], [1, sh, sw, 1], [1, dh, dw, 1],
                                       "VALID")  # (N, nh, nw, kh * kw * C), the channel varying fastest
    shape = tf.shape(patches)
    blocks = tf.reshape(patches, [shape[0], shape[1] * shape[2], kh * kw, channels])
    return tf.reshape(tf.transpose(blocks, [0, 3, 2, 1]), [shape[0], channels * kh * kw, shape[1] * shape[2]])


def fold(x: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> tf.Tensor:
    """The inverse of ``unfold``: columns ``(N, C * kh * kw, L)`` summed back into ``(N, C, *output_size)``."""
    x = tensor(x)
    if len(x.shape) != 3:
        raise ValueError(f"fold: x must have rank 3 (N, C * kh * kw, L), got shape {tuple(x.shape)}")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = _pairs(kernel_size, dilation, padding, stride, "fold")
    oh, ow = tuple_of(output_size, 2, "output_size", "fold")
    rows, cols = oh + 2 * ph, ow + 2 * pw
    nh, nw = (rows - dh * (kh - 1) - 1) // sh + 1, (cols - dw * (kw - 1) - 1) // sw + 1
    columns, length = x.shape[1], x.shape[2]
    if columns is not None and columns % (kh * kw):
        raise ValueError(f"fold: x.shape[1] = {columns} is not divisible by kernel_size product {kh * kw}")
    if length is not None and length != nh * nw:
        raise ValueError(f"fold: x.shape[2] = {length} but output_size={output_size!r} with these kernel, "
                         f"dilation, padding and stride gives {nh * nw} blocks")
    channels = columns // (kh * kw)
    # where each (kernel row, kernel column, block row, block column) lands in the padded output
    i, j, a, b = np.meshgrid(np.arange(kh), np.arange(kw), np.arange(nh), np.arange(nw), indexing="ij")
    target = ((i * dh + a * sh) * cols + (j * dw + b * sw)).reshape(-1)
    n = tf.shape(x)[0]
    values = tf.transpose(tf.reshape(x, [n, channels, kh * kw * nh * nw]), [2, 0, 1])
    summed = tf.math.unsorted_segment_sum(values, tf.constant(target, tf.int32), rows * cols)  # (rows*cols, N, C)
    image = tf.reshape(tf.transpose(summed, [1, 2, 0]), [n, channels, rows, cols])
    return image[:, :, ph:ph + oh, pw:pw + ow]


__all__ = ["depth_to_space", "space_to_depth", "unfold", "fold"]
export(globals(), __all__)
