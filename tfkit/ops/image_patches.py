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
    elif isinstance(value, (list, tuple)) and len(value) == n and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
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


def extract_patches(images: Any, size: Any, strides: Any = None, dilation_rate: Any = 1, padding: str = "valid",
                    data_format: str | None = None) -> tf.Tensor:
    """Patches of ``size = (height, width)`` (or an int) laid out along the last axis, in row, column, channel order.

    ``strides`` defaults to ``size`` (non-overlapping patches). A 3-tuple
    ``size`` extracts volume patches, as :func:`extract_patches_3d`.
    """
    if isinstance(size, (list, tuple)) and len(size) == 3:
        return extract_patches_3d(images, size, strides, dilation_rate, padding, data_format)
    if not isinstance(size, (numbers.Integral, list, tuple)) or isinstance(size, bool):
        raise TypeError(f"tfkit.ops.image.extract_patches: size must be an int or a tuple of 2 (or 3) ints, "
                        f"got {type(size).__name__}: {size!r}")
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
    patches = tf.image.extract_patches(batch, sizes=[1, *patch, 1], strides=[1, *stride, 1], rates=[1, *rate, 1],
                                       padding=padding)
    return ic.from_batch_last(patches, unbatched, data_format)


def extract_patches_3d(volumes: Any, size: Any, strides: Any = None, dilation_rate: Any = 1,
                       padding: str = "valid", data_format: str | None = None) -> tf.Tensor:
    """Patches of ``size = (depth, height, width)`` (or an int) of volumes ``(b, d, h, w, c)`` or ``(d, h, w, c)``."""
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


def _dilated_volume_patches(batch: tf.Tensor, patch: tuple[int, ...], stride: tuple[int, ...],
                            rate: tuple[int, ...], padding: str, op: str) -> tf.Tensor:
    """Dilated volume patches (``ExtractVolumePatches`` has no dilation): a convolution with a one-hot kernel.

    The input is padded explicitly as ``"SAME"`` would pad it, convolved with
    stride 1 and then subsampled, since TensorFlow refuses dilation together
    with strides in one convolution.
    """
    channels = batch.shape[-1]
    if channels is None:
        raise ValueError(f"tfkit.ops.image.{op}: dilation_rate {rate} needs a known number of channels, "
                         f"got volumes of shape {tuple(batch.shape)}")
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
    patches = patches[:, ::stride[0], ::stride[1], ::stride[2], :]
    return ic.cast_back(patches, batch.dtype)
