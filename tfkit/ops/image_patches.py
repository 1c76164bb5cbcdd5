"""Patch extraction of ``tfkit.ops.image``: 2-D patches of images, 3-D patches of volumes.

patches = tfkit.ops.image.extract_patches(images, 16)          # (b, 224, 224, 3) -> (b, 14, 14, 768)
patches = tfkit.ops.image.extract_patches(images, (3, 3), strides=1, padding="same")
cubes = tfkit.ops.image.extract_patches_3d(volumes, (2, 4, 4))
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit.ops import image_common as ic


def _tuple(value: Any, n: int, op: str, what: str) -> tuple[int, ...]:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        values: tuple = (int(value),) * n
    elif (
        isinstance(value, (list, tuple))
        and len(value) == n
        and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value)
    ):
        values = tuple(int(v) for v in value)
    else:
        raise ValueError(f"tfkit.ops.image.{op}: {what} must be an integer or a tuple of {n} integers, got {value!r}")
    if any(v <= 0 for v in values):
        raise ValueError(f"tfkit.ops.image.{op}: {what} must be positive, got {value!r}")
    return values


def _padding(padding: Any, op: str) -> str:
    if not isinstance(padding, str) or padding.lower() not in ("valid", "same"):
        raise ValueError(f"tfkit.ops.image.{op}: padding must be 'valid' or 'same', got {padding!r}")
    return padding.upper()


def extract_patches(
    images: Any,
    size: Any,
    strides: Any = None,
    dilation_rate: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
) -> tf.Tensor:
    """Extracts patches from the image(s) or volume(s).

    This function supports both 2D and 3D patch extraction based on the
    `size` argument length, similar to how `tfkit.ops.conv` handles
    different dimensions: a 3-tuple `size` extracts volume patches, as
    `extract_patches_3d` does. Each patch is laid out along the channel axis,
    in row, column, channel order (the channel varying fastest). Unlike Keras's
    TensorFlow backend, tfkit accepts `dilation_rate > 1` together with
    `strides > 1`.

    Args:
        images: Input image/volume or batch of images/volumes.
            For 2D patches: 3D `(H, W, C)` or 4D `(N, H, W, C)`.
            For 3D patches: 4D `(D, H, W, C)` or 5D `(N, D, H, W, C)`.
        size: Patch size as int or tuple.
            Length 2 tuple `(patch_height, patch_width)` or int for 2D patches.
            Length 3 tuple `(patch_depth, patch_height, patch_width)` for
            3D patches.
        strides: Strides for patch extraction, an int or a tuple like `size`.
            If not specified (`None`, the default), defaults to `size`
            (non-overlapping patches).
        dilation_rate: Dilation rate for patch extraction, an int or a tuple
            like `size`: how far apart two consecutive samples of a patch are in
            the input. Defaults to `1`.
        padding: The type of padding algorithm to use: `"same"` or `"valid"`.
            Defaults to `"valid"`.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`. With
            `"channels_first"` the patches are laid out along axis 1 of the
            result. If not specified (`None`, the default), defaults to
            `tfkit.backend.image_data_format()`.

    Returns:
        Extracted patches with shape depending on input and `size`:
        3D (unbatched) or 4D (batched) for 2D patches, 4D (unbatched) or 5D
        (batched) for 3D patches. The last axis (channels-last) has size
        `prod(size) * channels`.

    Raises:
        TypeError: If `size` is not an int or a tuple, if `images` is not
            numeric (bool, string or complex) or cannot be converted to a
            tensor.
        ValueError: If `size`, `strides` or `dilation_rate` is not a positive
            int or tuple of the right length, if `padding` or `data_format` is
            not one of the values above, or if `images` has the wrong rank.

    Example:
        >>> image = np.random.random((2, 20, 20, 3)).astype("float32")
        >>> tfkit.ops.image.extract_patches(image, (5, 5)).shape
        TensorShape([2, 4, 4, 75])
        >>> image = np.random.random((20, 20, 3)).astype("float32")
        >>> tfkit.ops.image.extract_patches(image, (3, 3), (1, 1)).shape
        TensorShape([18, 18, 27])
        >>> volumes = np.random.random((2, 10, 10, 10, 3)).astype("float32")
        >>> tfkit.ops.image.extract_patches(volumes, (3, 3, 3)).shape
        TensorShape([2, 3, 3, 3, 81])
        >>> x = np.arange(16).reshape(1, 4, 4, 1)
        >>> tfkit.ops.image.extract_patches(x, 2)[0, 0].numpy()
        array([[0, 1, 4, 5],
               [2, 3, 6, 7]])
    """
    if isinstance(size, (list, tuple)) and len(size) == 3:
        return extract_patches_3d(images, size, strides, dilation_rate, padding, data_format)
    if not isinstance(size, (numbers.Integral, list, tuple)) or isinstance(size, bool):
        raise TypeError(
            f"tfkit.ops.image.extract_patches: size must be an int or a tuple of 2 (or 3) ints, "
            f"got {type(size).__name__}: {size!r}"
        )
    if isinstance(size, (list, tuple)) and len(size) != 2:
        raise ValueError(f"tfkit.ops.image.extract_patches: size must have length 2 (or 3 for volumes), got {size!r}")
    op = "extract_patches"
    patch = _tuple(size, 2, op, "size")
    stride = _tuple(strides, 2, op, "strides") if strides else patch
    rate = _tuple(dilation_rate, 2, op, "dilation_rate")
    padding = _padding(padding, op)
    data_format = ic.standard_format(data_format, op)
    images = ic.as_tensor(images, op)
    ic.check_rank(images, op)
    ic.check_numeric(images, op)
    batch, unbatched = ic.to_batch_last(images, data_format)
    patches = tf.image.extract_patches(
        batch, sizes=[1, *patch, 1], strides=[1, *stride, 1], rates=[1, *rate, 1], padding=padding
    )
    return ic.from_batch_last(patches, unbatched, data_format)


def extract_patches_3d(
    volumes: Any,
    size: Any,
    strides: Any = None,
    dilation_rate: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
) -> tf.Tensor:
    """Extracts patches from the volume(s).

    Each patch is laid out along the channel axis, in depth, row, column,
    channel order. Unlike Keras's TensorFlow backend, tfkit accepts
    `dilation_rate > 1` together with `strides > 1`.

    Args:
        volumes: Input volume or batch of volumes. Must be 4D or 5D.
        size: Patch size int or tuple `(patch_depth, patch_height, patch_width)`.
        strides: strides along depth, height, and width. If not specified, or
            if `None` (the default), it defaults to the same value as `size`.
        dilation_rate: This is the input stride, specifying how far two
            consecutive patch samples are in the input: an int or a tuple of 3
            ints. Defaults to `1`.
        padding: The type of padding algorithm to use: `"same"` or `"valid"`.
            Defaults to `"valid"`.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, depth, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape
            `(batch, channels, depth, height, width)`. If not specified (`None`,
            the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        Extracted patches 4D (if not batched) or 5D (if batched).

    Raises:
        ValueError: If `size`, `strides` or `dilation_rate` is not a positive
            int or tuple of 3 ints, if `padding` or `data_format` is not one of
            the values above, if `volumes` is not 4D or 5D, or if a dilated
            extraction meets an unknown number of channels.
        TypeError: If `volumes` is not numeric (bool, string or complex) or
            cannot be converted to a tensor.

    Example:
        >>> volumes = np.random.random((2, 10, 10, 10, 3)).astype("float32")
        >>> tfkit.ops.image.extract_patches_3d(volumes, 3).shape
        TensorShape([2, 3, 3, 3, 81])
        >>> volume = np.random.random((10, 10, 10, 3)).astype("float32")
        >>> tfkit.ops.image.extract_patches_3d(volume, (2, 5, 5), strides=1).shape
        TensorShape([9, 6, 6, 150])
    """
    op = "extract_patches_3d"
    patch = _tuple(size, 3, op, "size")
    stride = _tuple(strides, 3, op, "strides") if strides is not None else patch
    rate = _tuple(dilation_rate, 3, op, "dilation_rate")
    padding = _padding(padding, op)
    data_format = ic.standard_format(data_format, op)
    volumes = ic.as_tensor(volumes, op, "volumes")
    rank = ic.check_rank(volumes, op, "volumes", ranks=(4, 5))
    ic.check_numeric(volumes, op, "volumes")
    unbatched = rank == 4
    batch = volumes[tf.newaxis] if unbatched else volumes
    if data_format == "channels_first":
        batch = tf.transpose(batch, (0, 2, 3, 4, 1))
    if rate == (1, 1, 1):
        patches = tf.extract_volume_patches(batch, ksizes=[1, *patch, 1], strides=[1, *stride, 1], padding=padding)
    else:
        patches = _dilated_volume_patches(batch, patch, stride, rate, padding, op)
    if data_format == "channels_first":
        patches = tf.transpose(patches, (0, 4, 1, 2, 3))
    return patches[0] if unbatched else patches


def _dilated_volume_patches(
    batch: tf.Tensor, patch: tuple[int, ...], stride: tuple[int, ...], rate: tuple[int, ...], padding: str, op: str
) -> tf.Tensor:
    """Dilated volume patches (``ExtractVolumePatches`` has no dilation): a convolution with a one-hot kernel.

    The input is padded explicitly as ``"SAME"`` would pad it, convolved with
    stride 1 and then subsampled, since TensorFlow refuses dilation together
    with strides in one convolution.
    """
    channels = batch.shape[-1]
    if channels is None:
        raise ValueError(
            f"tfkit.ops.image.{op}: dilation_rate {rate} needs a known number of channels, "
            f"got volumes of shape {tuple(batch.shape)}"
        )
    if padding == "SAME":
        shape = tf.shape(batch)
        pads = [[0, 0]]
        for axis, (k, s, r) in enumerate(zip(patch, stride, rate)):
            size = shape[axis + 1]
            out = (size + s - 1) // s
            total = tf.maximum((out - 1) * s + (k - 1) * r + 1 - size, 0)
            pads.append([total // 2, total - total // 2])
        batch = tf.pad(batch, pads + [[0, 0]])
    depth = patch[0] * patch[1] * patch[2] * channels
    work = ic.work_dtype(batch.dtype)
    kernel = tf.reshape(tf.eye(depth, dtype=work), (*patch, channels, depth))
    patches = tf.nn.convolution(tf.cast(batch, work), kernel, padding="VALID", dilations=list(rate))
    patches = patches[:, :: stride[0], :: stride[1], :: stride[2], :]
    return ic.cast_back(patches, batch.dtype)
