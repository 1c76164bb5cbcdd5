"""Rearranging images into patches and back: depth/space blocks, and PyTorch-style unfold/fold.

y = tfkit.ops.depth_to_space(x, 2)          # (1, 4, 4, 8) -> (1, 8, 8, 2)
cols = tfkit.ops.unfold(images_nchw, 3)     # (N, C, H, W) -> (N, C*9, L) sliding 3x3 blocks
back = tfkit.ops.fold(cols, (H, W), 3)      # sums the blocks back into (N, C, H, W)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base.data_format import from_channels_last, to_channels_last
from tfkit.ops._convert import export, tensor
from tfkit.ops.nn_conv import data_format_of, tuple_of


def _blocks(x: Any, block_size: int, data_format: str, op: str) -> tuple[tf.Tensor, str]:
    if not isinstance(block_size, int) or block_size < 2:
        raise ValueError(f"{op}: block_size must be an int >= 2, got {block_size!r}")
    x = tensor(x)
    if len(x.shape) != 4:
        raise ValueError(f"{op}: x must have rank 4 (batch, height, width, channels), got shape {tuple(x.shape)}")
    data_format = data_format_of(data_format, op)
    return to_channels_last(x, data_format), data_format


def depth_to_space(x: Any, block_size: int, data_format: str = "channels_last") -> tf.Tensor:
    """Rearranges data from depth into blocks of spatial data.

    This operation moves blocks of channels into `block_size x block_size`
    spatial blocks: `(batch, height, width, channels)` becomes
    `(batch, height * block_size, width * block_size,
    channels // block_size**2)`. It is the inverse of `space_to_depth`.

    Args:
        x: Input tensor of rank 4.
        block_size: An int `>= 2`, the size of the spatial blocks.
        data_format: A string, either `"channels_last"` (the default) or
            `"channels_first"`: whether `x` is `(batch, height, width, channels)`
            or `(batch, channels, height, width)`. Unlike most ops, `None` is
            not the default here; it means `tfkit.backend.image_data_format()`.

    Returns:
        A tensor of rank 4, rearranged.

    Raises:
        ValueError: If `block_size` is not an int `>= 2`, if `x` is not of
            rank 4, if `data_format` is not one of the values above, or if
            the channels do not divide by `block_size**2`.

    Example:
        >>> x = np.ones((1, 4, 4, 8), "float32")
        >>> tfkit.ops.depth_to_space(x, 2).shape
        TensorShape([1, 8, 8, 2])
        >>> tfkit.ops.depth_to_space(np.arange(4).reshape(1, 1, 1, 4), 2)[0, :, :, 0].numpy()
        array([[0, 1],
               [2, 3]])
    """
    x, data_format = _blocks(x, block_size, data_format, "depth_to_space")
    channels = x.shape[-1]
    if channels is not None and channels % block_size**2:
        raise ValueError(
            f"depth_to_space: the channel count {channels} is not divisible by block_size**2 = {block_size**2}"
        )
    y = tf.nn.depth_to_space(x, block_size)
    return from_channels_last(y, data_format)


def space_to_depth(x: Any, block_size: int, data_format: str = "channels_last") -> tf.Tensor:
    """Rearranges data from spatial blocks into depth.

    Each `block_size x block_size` spatial block is moved into channels:
    `(batch, height, width, channels)` becomes
    `(batch, height // block_size, width // block_size,
    channels * block_size**2)`. It is the inverse of `depth_to_space`.

    Args:
        x: Input tensor of rank 4.
        block_size: An int `>= 2`, the size of the spatial blocks.
        data_format: A string, either `"channels_last"` (the default) or
            `"channels_first"`: whether `x` is `(batch, height, width, channels)`
            or `(batch, channels, height, width)`. Unlike most ops, `None` is
            not the default here; it means `tfkit.backend.image_data_format()`.

    Returns:
        A tensor of rank 4, rearranged.

    Raises:
        ValueError: If `block_size` is not an int `>= 2`, if `x` is not of
            rank 4, if `data_format` is not one of the values above, or if
            the height or width does not divide by `block_size`.

    Example:
        >>> x = np.ones((1, 8, 8, 2), "float32")
        >>> tfkit.ops.space_to_depth(x, 2).shape
        TensorShape([1, 4, 4, 8])
    """
    x, data_format = _blocks(x, block_size, data_format, "space_to_depth")
    for name, size in (("height", x.shape[1]), ("width", x.shape[2])):
        if size is not None and size % block_size:
            raise ValueError(f"space_to_depth: the {name} {size} is not divisible by block_size={block_size}")
    y = tf.nn.space_to_depth(x, block_size)
    return from_channels_last(y, data_format)


def _pairs(kernel_size: Any, dilation: Any, padding: Any, stride: Any, op: str) -> tuple:
    kernel = tuple_of(kernel_size, 2, "kernel_size", op)
    dilation = tuple_of(dilation, 2, "dilation", op)
    stride = tuple_of(stride, 2, "stride", op)
    pad = (padding, padding) if isinstance(padding, int) else tuple(padding)
    if len(pad) != 2 or not all(isinstance(p, int) and p >= 0 for p in pad):
        raise ValueError(f"{op}: padding must be a non-negative int or 2 of them, got {padding!r}")
    return kernel, dilation, pad, stride


def unfold(x: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> tf.Tensor:
    """Extract sliding local blocks from a 4-D input (batched image).

    This operation is known as `im2col` when used with convolution layers, and
    matches PyTorch's `torch.nn.functional.unfold`: each block of
    `kernel_size` pixels over all channels becomes one column of the output.
    The input is channels-first, `(N, C, H, W)`, whatever the image data
    format.

    Args:
        x: 4-D tensor, shape `(N, C, H, W)`; `C` must be static.
        kernel_size: int or tuple of 2 ints, the size of the sliding blocks.
        dilation: int or tuple of 2 ints, the spacing between the elements of a
            block. Defaults to `1`.
        padding: non-negative int or tuple of 2 ints, the implicit zero padding
            added on both sides of each spatial axis. Defaults to `0`.
        stride: int or tuple of 2 ints, the step between blocks. Defaults to
            `1`.

    Returns:
        A 3-D tensor of shape `(N, C * kh * kw, L)`, where `L` is the number of
        blocks. The column index runs over the channel first, then the kernel
        positions in row-major order.

    Raises:
        ValueError: If `x` is not of rank 4 or its channels are not static, or
            if an argument is not a valid int or pair of ints.

    Example:
        >>> x = np.ones((2, 3, 5, 5), "float32")
        >>> tfkit.ops.unfold(x, kernel_size=3).shape
        TensorShape([2, 27, 9])
        >>> x = np.arange(16.0, dtype="float32").reshape(1, 1, 4, 4)
        >>> tfkit.ops.unfold(x, kernel_size=2, stride=2)[0].numpy()
        array([[ 0.,  2.,  8., 10.],
               [ 1.,  3.,  9., 11.],
               [ 4.,  6., 12., 14.],
               [ 5.,  7., 13., 15.]], dtype=float32)
    """
    x = tensor(x)
    if len(x.shape) != 4:
        raise ValueError(f"unfold: x must have rank 4 (N, C, H, W), got shape {tuple(x.shape)}")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = _pairs(kernel_size, dilation, padding, stride, "unfold")
    channels = x.shape[1]
    if channels is None:
        raise ValueError(f"unfold: the channel axis of x must have a static size, got shape {tuple(x.shape)}")
    padded = tf.pad(x, [[0, 0], [0, 0], [ph, ph], [pw, pw]])
    patches = tf.image.extract_patches(
        to_channels_last(padded, "channels_first"), [1, kh, kw, 1], [1, sh, sw, 1], [1, dh, dw, 1], "VALID"
    )  # (N, nh, nw, kh * kw * C), the channel varying fastest
    shape = tf.shape(patches)
    blocks = tf.reshape(patches, [shape[0], shape[1] * shape[2], kh * kw, channels])
    return tf.reshape(tf.transpose(blocks, [0, 3, 2, 1]), [shape[0], channels * kh * kw, shape[1] * shape[2]])


def fold(x: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> tf.Tensor:
    """Combines an array of sliding local blocks into a large containing tensor.

    The inverse of `unfold` (`col2im`), as PyTorch's
    `torch.nn.functional.fold`: the columns are placed back at their block
    positions, and values of overlapping blocks are summed.

    Args:
        x: 3-D tensor, shape `(N, C * kh * kw, L)`, as `unfold` returns it.
        output_size: int or tuple of 2 ints, the spatial size `(H, W)` of the
            output.
        kernel_size: int or tuple of 2 ints, the size of the sliding blocks.
        dilation: int or tuple of 2 ints, the spacing between the elements of a
            block. Defaults to `1`.
        padding: non-negative int or tuple of 2 ints, the implicit zero padding
            added on both sides of each spatial axis. Defaults to `0`.
        stride: int or tuple of 2 ints, the step between blocks. Defaults to
            `1`.

    Returns:
        A 4-D tensor of shape `(N, C, H, W)`.

    Raises:
        ValueError: If `x` is not of rank 3, if `x.shape[1]` does not divide
            by `kh * kw`, if `x.shape[2]` is not the number of blocks the other
            arguments give, or if an argument is not a valid int or pair of
            ints.

    Example:
        >>> ones = np.ones((1, 1, 3, 3), "float32")
        >>> columns = tfkit.ops.unfold(ones, kernel_size=2)
        >>> tfkit.ops.fold(columns, output_size=(3, 3), kernel_size=2)[0, 0].numpy()
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]], dtype=float32)
    """
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
        raise ValueError(
            f"fold: x.shape[2] = {length} but output_size={output_size!r} with these kernel, "
            f"dilation, padding and stride gives {nh * nw} blocks"
        )
    channels = columns // (kh * kw)
    # where each (kernel row, kernel column, block row, block column) lands in the padded output
    i, j, a, b = np.meshgrid(np.arange(kh), np.arange(kw), np.arange(nh), np.arange(nw), indexing="ij")
    target = ((i * dh + a * sh) * cols + (j * dw + b * sw)).reshape(-1)
    n = tf.shape(x)[0]
    values = tf.transpose(tf.reshape(x, [n, channels, kh * kw * nh * nw]), [2, 0, 1])
    summed = tf.math.unsorted_segment_sum(values, tf.constant(target, tf.int32), rows * cols)  # (rows*cols, N, C)
    image = tf.reshape(tf.transpose(summed, [1, 2, 0]), [n, channels, rows, cols])
    return image[:, :, ph : ph + oh, pw : pw + ow]


__all__ = ["depth_to_space", "space_to_depth", "unfold", "fold"]
export(globals(), __all__)
