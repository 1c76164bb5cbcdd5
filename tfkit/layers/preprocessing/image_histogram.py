"""Histogram-based image layers of Keras 3: ``AutoContrast``, ``Equalization`` and CLAHE.

    stretch = tfkit.layers.AutoContrast(value_range=(0, 1))            # also at inference, as in Keras
    equalize = tfkit.layers.Equalization(value_range=(0, 255))          # only while training
    clahe = tfkit.layers.ContrastLimitedAdaptiveHistogramEqualization(clip_limit=2.0, tile_grid_size=(4, 4))

All three are deterministic and work per image and channel on the
``[0, 255]`` scale (values are mapped from ``value_range`` and back).
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.layers.preprocessing import image_augment_base as base
from tfkit.layers.preprocessing.image_augment_base import BaseImageAugmentation

__all__ = ["AutoContrast", "Equalization", "ContrastLimitedAdaptiveHistogramEqualization"]


def _histograms(indices: tf.Tensor, groups: Any, bins: int) -> tf.Tensor:
    """``(groups, bins)`` counts of ``indices`` ``(groups, n)`` in ``[0, bins)`` (XLA-friendly segment sums)."""
    flat = tf.reshape(indices + bins * tf.range(groups)[:, tf.newaxis], [-1])
    counts = tf.math.unsorted_segment_sum(tf.ones_like(flat, tf.float32), flat, groups * bins)
    return tf.reshape(counts, [groups, bins])


class _ValueRangeLayer(BaseImageAugmentation):
    def __init__(self, value_range: Any = (0, 255), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.value_range = base.value_range_pair(value_range, self._who())

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["value_range"] = list(self.value_range)
        return config


@registry.builtin("layers")
class AutoContrast(_ValueRangeLayer):
    """Performs the auto-contrast operation on an image.

    Auto contrast stretches the values of an image across the entire
    available `value_range`: for each channel of each image, the lowest
    value is mapped to `low` and the highest to `high`. This makes
    differences between pixels more obvious. A flat channel is left as it
    is. Keras applies this layer at inference too, and so does tfkit. The
    output is in the layer's float compute dtype.

    Args:
        value_range: The range of values the input images can take, a pair
            `(low, high)`. Use `(0, 255)` for 8-bit pixel values and `(0, 1)`
            for images in `[0, 1]`. Defaults to `(0, 255)`.
        **kwargs: Base layer keyword arguments, such as `name`, `dtype` and
            `data_format` (images' layout; `None`, the default, means
            `tfkit.backend.image_data_format()`).

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"`,
            `"segmentation_masks"` and `"bounding_boxes"` (the other entries
            pass through unchanged); a dict input returns a dict.
        training: Ignored: as in Keras, this layer is applied in training and
            at inference alike. Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `value_range` is not a pair of distinct numbers or
            `data_format` is unknown; on call, if the images are not 3D or 4D
            or a dict input has unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.AutoContrast(value_range=(0, 255))
        >>> layer(np.array([[[50.0], [100.0], [150.0]]])).numpy()[0, :, 0]
        array([  0. , 127.5, 255. ], dtype=float32)
    """

    applies_at_inference = True

    def transform_images(self, images: tf.Tensor, transformation: Any) -> tf.Tensor:
        pixels = base.to_range(images, self.value_range, (0.0, 255.0))
        low = tf.reduce_min(pixels, axis=[1, 2], keepdims=True)
        high = tf.reduce_max(pixels, axis=[1, 2], keepdims=True)
        spread = high - low
        stretched = (pixels - low) * (255.0 / tf.where(spread > 0, spread, tf.ones_like(spread)))
        stretched = base.to_range(tf.clip_by_value(stretched, 0.0, 255.0), (0.0, 255.0), self.value_range)
        return tf.where(spread > 0, stretched, images)


@registry.builtin("layers")
class Equalization(_ValueRangeLayer):
    """Preprocessing layer for histogram equalization on image channels.

    Histogram equalization is a technique to adjust image intensities to
    enhance contrast by effectively spreading out the most frequent
    intensity values. This layer applies it to each channel of each image
    while training (identity at inference, as floats). Values fall into
    `bins` bins of the `[0, 255]` scale (mapped from `value_range`); each
    bin maps to `round(255 * (cdf - cdf_min) / (n - cdf_min))`, as in PIL
    and Keras. A channel with a single occupied bin is left as it is.

    Args:
        value_range: The range of values the input images can take, a pair
            `(low, high)`. Defaults to `(0, 255)`.
        bins: Integer >= 2, the number of histogram bins. Defaults to `256`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()` (`"channels_last"` unless
            configured otherwise).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"`,
            `"segmentation_masks"` and `"bounding_boxes"` (the other entries
            pass through unchanged). Images are computed on in the
            layer's float compute dtype; a dict input returns a dict.
        training: Python boolean or boolean tensor: whether to augment. As
            in Keras 3, it defaults to `True`, so a layer called on its own
            augments; `fit` calls it with `True`, `predict`, `evaluate` and
            exports with `False`, which returns the images unchanged (as floats).
            Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `value_range` is not a pair of distinct numbers,
            `bins` is not an integer >= 2, or `data_format` is unknown; on
            call, if the images are not 3D or 4D or a dict input has unknown
            keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.Equalization()
        >>> layer(np.array([[[10.0], [10.0], [20.0], [30.0]]])).numpy()[0, :, 0]
        array([  0.,   0., 128., 255.], dtype=float32)
    """

    def __init__(
        self, value_range: Any = (0, 255), bins: int = 256, data_format: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(value_range=value_range, data_format=data_format, **kwargs)
        if isinstance(bins, bool) or not isinstance(bins, numbers.Integral) or bins < 2:
            raise ValueError(f"{self._who()} expected bins to be an integer >= 2, got {bins!r}")
        self.bins = int(bins)

    def transform_images(self, images: tf.Tensor, transformation: Any) -> tf.Tensor:
        bins = self.bins
        pixels = tf.cast(base.to_range(images, self.value_range, (0.0, 255.0)), tf.float32)
        b, h, w, c = tf.unstack(tf.shape(pixels))
        per_channel = tf.reshape(tf.transpose(pixels, (0, 3, 1, 2)), [b * c, h * w])  # one row per channel
        found = tf.clip_by_value(tf.cast(per_channel * (bins - 1) / 255.0, tf.int32), 0, bins - 1)
        counts = _histograms(found, b * c, bins)
        cdf = tf.cumsum(counts, axis=-1)
        cdf_min = tf.reduce_min(tf.where(cdf > 0, cdf, cdf[:, -1:]), axis=-1, keepdims=True)
        denominator = cdf[:, -1:] - cdf_min
        table = tf.round((cdf - cdf_min) * 255.0 / tf.where(denominator == 0, tf.ones_like(denominator), denominator))
        table = tf.clip_by_value(table, 0.0, 255.0)
        lookup = tf.cast(tf.clip_by_value(per_channel / 255.0 * (bins - 1), 0.0, bins - 1.0), tf.int32)
        equalized = tf.gather(table, lookup, batch_dims=1)
        occupied = tf.math.count_nonzero(counts, axis=-1, keepdims=True)
        equalized = tf.where(occupied <= 1, per_channel, equalized)
        equalized = tf.transpose(tf.reshape(equalized, [b, c, h, w]), (0, 2, 3, 1))
        return tf.ensure_shape(
            base.to_range(tf.cast(equalized, images.dtype), (0.0, 255.0), self.value_range), images.shape
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["bins"] = self.bins
        return config


@registry.builtin("layers")
class ContrastLimitedAdaptiveHistogramEqualization(_ValueRangeLayer):
    """Adaptive histogram equalization with contrast limiting (CLAHE).

    The image is split into a grid of `tile_grid_size` tiles; each tile of
    each channel is equalized with its own clipped histogram, and the tiles'
    mappings are blended bilinearly so that no tile borders show. Histogram
    counts above `clip_limit * pixels_per_tile / 256` are cut and spread
    evenly over all bins (`clip_limit <= 0` disables clipping), which limits
    the amplification of noise. Applied at inference too, as in Keras; the
    result keeps the input's dtype.

    Args:
        value_range: The range of values the input images can take, a pair
            `(low, high)`. Defaults to `(0, 255)`.
        clip_limit: Float, the contrast limit (relative to a flat histogram).
            Defaults to `4.0`.
        tile_grid_size: A pair of positive integers, the number of tiles
            along the height and the width. Defaults to `(8, 8)`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()` (`"channels_last"` unless
            configured otherwise).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"`,
            `"segmentation_masks"` and `"bounding_boxes"` (the other entries
            pass through unchanged); a dict input returns a dict.
        training: Ignored: as in Keras, this layer is applied in training and
            at inference alike. Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `value_range` is not a pair of distinct numbers,
            `clip_limit` is not a number, `tile_grid_size` is not a pair of
            positive integers, or `data_format` is unknown; on call, if the
            images are not 3D or 4D or a dict input has unknown keys or no
            `"images"`.

    Example:
        >>> layer = tfkit.layers.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(2, 2))
        >>> images = np.arange(64, dtype="uint8").reshape((1, 8, 8, 1))
        >>> y = layer(images)
        >>> y.shape, y.dtype
        (TensorShape([1, 8, 8, 1]), tf.uint8)
    """

    applies_at_inference = True

    def __init__(
        self,
        value_range: Any = (0, 255),
        clip_limit: float = 4.0,
        tile_grid_size: Any = (8, 8),
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(value_range=value_range, data_format=data_format, **kwargs)
        if isinstance(clip_limit, bool) or not isinstance(clip_limit, numbers.Real):
            raise ValueError(f"{self._who()} expected clip_limit to be a number, got {clip_limit!r}")
        if (
            not isinstance(tile_grid_size, (list, tuple))
            or len(tile_grid_size) != 2
            or not all(isinstance(t, numbers.Integral) and not isinstance(t, bool) and t > 0 for t in tile_grid_size)
        ):
            raise ValueError(
                f"{self._who()} expected tile_grid_size to be a pair of positive integers, got {tile_grid_size!r}"
            )
        self.clip_limit = float(clip_limit)
        self.tile_grid_size = (int(tile_grid_size[0]), int(tile_grid_size[1]))

    def prepare_images(self, images: tf.Tensor) -> tf.Tensor:
        return images  # the result keeps the input's dtype

    def transform_images(self, images: tf.Tensor, transformation: Any) -> tf.Tensor:
        pixels = base.to_range(tf.cast(images, tf.float32), self.value_range, (0.0, 255.0))
        out = base.to_range(self._clahe(pixels), (0.0, 255.0), self.value_range)
        return tf.ensure_shape(tf.cast(out, images.dtype), images.shape)

    def _clahe(self, pixels: tf.Tensor) -> tf.Tensor:
        grid_h, grid_w = self.tile_grid_size
        b, h, w, c = tf.unstack(tf.shape(pixels))
        tile_h, tile_w = (h + grid_h - 1) // grid_h, (w + grid_w - 1) // grid_w
        padded = tf.pad(pixels, [[0, 0], [0, tile_h * grid_h - h], [0, tile_w * grid_w - w], [0, 0]], mode="SYMMETRIC")
        values = tf.cast(tf.clip_by_value(padded, 0.0, 255.0), tf.int32)
        tiles = tf.reshape(values, [b, grid_h, tile_h, grid_w, tile_w, c])
        tiles = tf.reshape(tf.transpose(tiles, (0, 1, 3, 5, 2, 4)), [-1, tile_h * tile_w])
        counts = _histograms(tiles, b * grid_h * grid_w * c, 256)
        area = tf.cast(tile_h * tile_w, tf.float32)
        if self.clip_limit > 0:
            clipped = tf.minimum(counts, self.clip_limit * area / 256.0)
            counts = clipped + tf.reduce_sum(counts - clipped, axis=-1, keepdims=True) / 256.0
        cdf = tf.cumsum(counts, axis=-1)
        cdf_min = tf.reduce_min(cdf, axis=-1, keepdims=True)
        denominator = area - cdf_min
        table = (cdf - cdf_min) * 255.0 / tf.where(denominator == 0, tf.ones_like(denominator), denominator)
        table = tf.reshape(tf.clip_by_value(table, 0.0, 255.0), [b, grid_h, grid_w, c, 256])
        table = tf.concat([table[:, :1], table, table[:, -1:]], axis=1)  # replicate the edge tiles
        table = tf.concat([table[:, :, :1], table, table[:, :, -1:]], axis=2)

        def axis_weights(size: Any, tile: Any, grid: int) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
            position = (tf.range(size * grid, dtype=tf.float32) - tf.cast(tile, tf.float32) / 2.0) / tf.cast(
                tile, tf.float32
            ) + 1.0
            low = tf.floor(position)
            first = tf.cast(tf.clip_by_value(low, 0.0, grid + 1.0), tf.int32)
            second = tf.cast(tf.clip_by_value(low + 1.0, 0.0, grid + 1.0), tf.int32)
            return first, second, position - low

        y0, y1, wy = axis_weights(tile_h, tile_h, grid_h)
        x0, x1, wx = axis_weights(tile_w, tile_w, grid_w)
        shape = tf.shape(values)
        bi = tf.broadcast_to(tf.range(b)[:, None, None, None], shape)
        ci = tf.broadcast_to(tf.range(c)[None, None, None, :], shape)

        def read(ys: tf.Tensor, xs: tf.Tensor) -> tf.Tensor:
            yi = tf.broadcast_to(ys[None, :, None, None], shape)
            xi = tf.broadcast_to(xs[None, None, :, None], shape)
            return tf.gather_nd(table, tf.stack([bi, yi, xi, ci, values], axis=-1))

        wx, wy = wx[None, None, :, None], wy[None, :, None, None]
        top = read(y0, x0) * (1.0 - wx) + read(y0, x1) * wx
        bottom = read(y1, x0) * (1.0 - wx) + read(y1, x1) * wx
        return (top * (1.0 - wy) + bottom * wy)[:, :h, :w, :]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(clip_limit=self.clip_limit, tile_grid_size=list(self.tile_grid_size))
        return config
