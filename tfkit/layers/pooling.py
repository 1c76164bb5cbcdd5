"""Pooling layers: windowed max/average pooling and global pooling, in 1, 2 and 3 dimensions.

    pool = tfkit.layers.MaxPooling2D(pool_size=2)
    y = pool(tf.ones((2, 28, 28, 8)))                      # (2, 14, 14, 8)
    tfkit.layers.GlobalAveragePooling2D()(y).shape         # (2, 8)

``strides=None`` means ``strides=pool_size``. ``AveragePooling`` with
``padding="same"`` averages only the input positions inside each window (the
padding is not counted). ``GlobalAveragePooling1D`` honours a mask: it
averages over the unmasked steps only.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.data_format import from_channels_last, standardize_data_format, to_channels_last
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers import conv_utils as cu

__all__ = [
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalAvgPool3D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPool3D",
]

IntOrTuple = int | Sequence[int]

# ------------------------------------------------------------ window pooling


class _Pooling(Layer):
    """Max or average over sliding windows of ``pool_size`` moved by ``strides``."""

    rank: int = 2
    reduction: str = "max"

    def __init__(
        self,
        pool_size: IntOrTuple = 2,
        strides: IntOrTuple | None = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        who = cu.layer_label(self)
        self.pool_size = cu.normalize_tuple(pool_size, self.rank, "pool_size", who)
        self.strides = self.pool_size if strides is None else cu.normalize_tuple(strides, self.rank, "strides", who)
        self.padding = cu.normalize_padding(padding, who)
        self.data_format = standardize_data_format(data_format, who)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def build(self, input_shape: tuple) -> None:
        self.compute_output_shape(input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        pool = tf.nn.max_pool if self.reduction == "max" else tf.nn.avg_pool
        x = to_channels_last(inputs, self.data_format)
        outputs = pool(x, ksize=self.pool_size, strides=self.strides, padding=self.padding.upper())
        return from_channels_last(outputs, self.data_format)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        who = cu.layer_label(self)
        shape = cu.check_input_rank(input_shape, self.rank + 2, who, cu.layout(self.rank, self.data_format))
        spatial = [
            cu.conv_output_length(length, k, self.padding, s)
            for length, k, s in zip(cu.spatial_dims(shape, self.data_format), self.pool_size, self.strides)
        ]
        channels = cu.channel_dim(shape, self.data_format)
        out = cu.assemble_shape(shape[0], spatial, channels, self.data_format)
        return cu.check_positive_output(out, shape, who)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            pool_size=self.pool_size, strides=self.strides, padding=self.padding, data_format=self.data_format
        )
        return config


@registry.builtin("layers", "MaxPool1D")
class MaxPooling1D(_Pooling):
    """Max pooling operation for 1D temporal data.

    Downsamples the input representation by taking the maximum value over a
    spatial window of size `pool_size`, shifted by `strides`. `MaxPool1D` is
    the same class.

    Args:
        pool_size: An integer or tuple/list of 1 integer, the size of the window
            to take the maximum over (one integer is used for every spatial
            axis). Defaults to `2`.
        strides: An integer or tuple/list of 1 integer, or `None`: how far the
            window moves at each step. `None` (the default) means
            `pool_size`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding. `"same"` pads evenly so that the output has
            `ceil(input_size / strides)` positions. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, steps, features)`) or `"channels_first"` (inputs of shape
            `(batch, features, steps)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 3.

    Input shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, steps, channels)`. If
        `data_format="channels_first"`: a 3D tensor with shape
        `(batch_size, channels, steps)`.

    Output shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, pooled_steps, channels)`. If
        `data_format="channels_first"`: a 3D tensor with shape
        `(batch_size, channels, pooled_steps)`. With `"valid"` padding each
        pooled size is `floor((input_size - pool_size) / strides) + 1`.

    Raises:
        ValueError: If an argument is malformed, or the input does not have
            rank 3.

    Example:
        >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0]).reshape(1, 5, 1)
        >>> layer = tfkit.layers.MaxPooling1D(pool_size=2, strides=1)
        >>> layer(x).numpy().ravel()
        array([2., 3., 4., 5.], dtype=float32)
    """

    rank, reduction = 1, "max"

    def __init__(
        self,
        pool_size: IntOrTuple = 2,
        strides: IntOrTuple | None = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@registry.builtin("layers", "MaxPool2D")
class MaxPooling2D(_Pooling):
    """Max pooling operation for 2D spatial data.

    Downsamples the input along its spatial dimensions (height and width) by
    taking the maximum value over an input window (of size `pool_size`) for
    each channel of the input. The window is shifted by `strides` along each
    dimension. `MaxPool2D` is the same class.

    Args:
        pool_size: An integer or tuple/list of 2 integers, the size of the window
            to take the maximum over (one integer is used for every spatial
            axis). Defaults to `(2, 2)`.
        strides: An integer or tuple/list of 2 integers, or `None`: how far the
            window moves at each step. `None` (the default) means
            `pool_size`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding. `"same"` pads evenly so that the output has
            `ceil(input_size / strides)` positions. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, height, width, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, height, width)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 4.

    Input shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, height, width, channels)`. If
        `data_format="channels_first"`: a 4D tensor with shape
        `(batch_size, channels, height, width)`.

    Output shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, pooled_height, pooled_width, channels)`. If
        `data_format="channels_first"`: a 4D tensor with shape
        `(batch_size, channels, pooled_height, pooled_width)`. With `"valid"` padding each
        pooled size is `floor((input_size - pool_size) / strides) + 1`.

    Raises:
        ValueError: If an argument is malformed, or the input does not have
            rank 4.

    Example:
        >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
        >>> tfkit.layers.MaxPooling2D(pool_size=2)(x).numpy()[0, :, :, 0]
        array([[ 5.,  7.],
               [13., 15.]], dtype=float32)
        >>> tfkit.layers.MaxPooling2D(2, padding="same")(np.ones((1, 5, 5, 3))).shape
        TensorShape([1, 3, 3, 3])
    """

    rank, reduction = 2, "max"

    def __init__(
        self,
        pool_size: IntOrTuple = (2, 2),
        strides: IntOrTuple | None = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@registry.builtin("layers", "MaxPool3D")
class MaxPooling3D(_Pooling):
    """Max pooling operation for 3D data (spatial or spatio-temporal).

    Downsamples the input along its spatial dimensions (depth, height, and
    width) by taking the maximum value over an input window (of size
    `pool_size`) for each channel of the input. The window is shifted by
    `strides` along each dimension. `MaxPool3D` is the same class.

    Args:
        pool_size: An integer or tuple/list of 3 integers, the size of the window
            to take the maximum over (one integer is used for every spatial
            axis). Defaults to `(2, 2, 2)`.
        strides: An integer or tuple/list of 3 integers, or `None`: how far the
            window moves at each step. `None` (the default) means
            `pool_size`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding. `"same"` pads evenly so that the output has
            `ceil(input_size / strides)` positions. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, spatial_dim1, spatial_dim2, spatial_dim3, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, spatial_dim1, spatial_dim2, spatial_dim3)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 5.

    Input shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, spatial_dim1, spatial_dim2, spatial_dim3, channels)`. If
        `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, channels, spatial_dim1, spatial_dim2, spatial_dim3)`.

    Output shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, pooled_dim1, pooled_dim2, pooled_dim3, channels)`. If
        `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, channels, pooled_dim1, pooled_dim2, pooled_dim3)`. With `"valid"` padding each
        pooled size is `floor((input_size - pool_size) / strides) + 1`.

    Raises:
        ValueError: If an argument is malformed, or the input does not have
            rank 5.

    Example:
        >>> layer = tfkit.layers.MaxPooling3D(pool_size=2)
        >>> layer(np.ones((1, 4, 4, 4, 2))).shape
        TensorShape([1, 2, 2, 2, 2])
    """

    rank, reduction = 3, "max"

    def __init__(
        self,
        pool_size: IntOrTuple = (2, 2, 2),
        strides: IntOrTuple | None = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@registry.builtin("layers", "AvgPool1D")
class AveragePooling1D(_Pooling):
    """Average pooling for temporal data.

    Downsamples the input representation by taking the average value over
    the window defined by `pool_size`, shifted by `strides`.
    `AvgPool1D` is the same class.

    Args:
        pool_size: An integer or tuple/list of 1 integer, the size of the window
            to take the average over (one integer is used for every spatial
            axis). Defaults to `2`.
        strides: An integer or tuple/list of 1 integer, or `None`: how far the
            window moves at each step. `None` (the default) means
            `pool_size`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding. `"same"` pads evenly so that the output has
            `ceil(input_size / strides)` positions; the padding is not counted
            in the averages. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, steps, features)`) or `"channels_first"` (inputs of shape
            `(batch, features, steps)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 3.

    Input shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, steps, channels)`. If
        `data_format="channels_first"`: a 3D tensor with shape
        `(batch_size, channels, steps)`.

    Output shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, pooled_steps, channels)`. If
        `data_format="channels_first"`: a 3D tensor with shape
        `(batch_size, channels, pooled_steps)`. With `"valid"` padding each
        pooled size is `floor((input_size - pool_size) / strides) + 1`.

    Raises:
        ValueError: If an argument is malformed, or the input does not have
            rank 3.

    Example:
        >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0]).reshape(1, 5, 1)
        >>> tfkit.layers.AveragePooling1D(pool_size=2, strides=1)(x).numpy().ravel()
        array([1.5, 2.5, 3.5, 4.5], dtype=float32)
        >>> tfkit.layers.AveragePooling1D(pool_size=2, padding="same")(x).numpy().ravel()
        array([1.5, 3.5, 5. ], dtype=float32)
    """

    rank, reduction = 1, "average"

    def __init__(
        self,
        pool_size: IntOrTuple = 2,
        strides: IntOrTuple | None = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@registry.builtin("layers", "AvgPool2D")
class AveragePooling2D(_Pooling):
    """Average pooling operation for 2D spatial data.

    Downsamples the input along its spatial dimensions (height and width) by
    taking the average value over an input window (of size `pool_size`) for
    each channel of the input. The window is shifted by `strides` along each
    dimension. `AvgPool2D` is the same class.

    Args:
        pool_size: An integer or tuple/list of 2 integers, the size of the window
            to take the average over (one integer is used for every spatial
            axis). Defaults to `(2, 2)`.
        strides: An integer or tuple/list of 2 integers, or `None`: how far the
            window moves at each step. `None` (the default) means
            `pool_size`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding. `"same"` pads evenly so that the output has
            `ceil(input_size / strides)` positions; the padding is not counted
            in the averages. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, height, width, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, height, width)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 4.

    Input shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, height, width, channels)`. If
        `data_format="channels_first"`: a 4D tensor with shape
        `(batch_size, channels, height, width)`.

    Output shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, pooled_height, pooled_width, channels)`. If
        `data_format="channels_first"`: a 4D tensor with shape
        `(batch_size, channels, pooled_height, pooled_width)`. With `"valid"` padding each
        pooled size is `floor((input_size - pool_size) / strides) + 1`.

    Raises:
        ValueError: If an argument is malformed, or the input does not have
            rank 4.

    Example:
        >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
        >>> tfkit.layers.AveragePooling2D(pool_size=2)(x).numpy()[0, :, :, 0]
        array([[ 2.5,  4.5],
               [10.5, 12.5]], dtype=float32)
    """

    rank, reduction = 2, "average"

    def __init__(
        self,
        pool_size: IntOrTuple = (2, 2),
        strides: IntOrTuple | None = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@registry.builtin("layers", "AvgPool3D")
class AveragePooling3D(_Pooling):
    """Average pooling operation for 3D data (spatial or spatio-temporal).

    Downsamples the input along its spatial dimensions (depth, height, and
    width) by taking the average value over an input window (of size
    `pool_size`) for each channel of the input. The window is shifted by
    `strides` along each dimension. `AvgPool3D` is the same class.

    Args:
        pool_size: An integer or tuple/list of 3 integers, the size of the window
            to take the average over (one integer is used for every spatial
            axis). Defaults to `(2, 2, 2)`.
        strides: An integer or tuple/list of 3 integers, or `None`: how far the
            window moves at each step. `None` (the default) means
            `pool_size`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding. `"same"` pads evenly so that the output has
            `ceil(input_size / strides)` positions; the padding is not counted
            in the averages. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, spatial_dim1, spatial_dim2, spatial_dim3, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, spatial_dim1, spatial_dim2, spatial_dim3)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 5.

    Input shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, spatial_dim1, spatial_dim2, spatial_dim3, channels)`. If
        `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, channels, spatial_dim1, spatial_dim2, spatial_dim3)`.

    Output shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, pooled_dim1, pooled_dim2, pooled_dim3, channels)`. If
        `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, channels, pooled_dim1, pooled_dim2, pooled_dim3)`. With `"valid"` padding each
        pooled size is `floor((input_size - pool_size) / strides) + 1`.

    Raises:
        ValueError: If an argument is malformed, or the input does not have
            rank 5.

    Example:
        >>> layer = tfkit.layers.AveragePooling3D(pool_size=2)
        >>> layer(np.ones((1, 4, 4, 4, 2))).shape
        TensorShape([1, 2, 2, 2, 2])
    """

    rank, reduction = 3, "average"

    def __init__(
        self,
        pool_size: IntOrTuple = (2, 2, 2),
        strides: IntOrTuple | None = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


# ------------------------------------------------------------ global pooling


class _GlobalPooling(Layer):
    """Max or mean over every spatial position; ``keepdims=True`` keeps them as size-1 axes."""

    rank: int = 2
    reduction: str = "max"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format, cu.layer_label(self))
        self.keepdims = bool(keepdims)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    @property
    def _spatial_axes(self) -> list[int]:
        first = 1 if self.data_format == "channels_last" else 2
        return list(range(first, first + self.rank))

    def build(self, input_shape: tuple) -> None:
        self.compute_output_shape(input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        reduce = tf.reduce_max if self.reduction == "max" else tf.reduce_mean
        return reduce(inputs, axis=self._spatial_axes, keepdims=self.keepdims)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        who = cu.layer_label(self)
        shape = cu.check_input_rank(input_shape, self.rank + 2, who, cu.layout(self.rank, self.data_format))
        channels = cu.channel_dim(shape, self.data_format)
        if not self.keepdims:
            return (shape[0], channels)
        return cu.assemble_shape(shape[0], (1,) * self.rank, channels, self.data_format)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(data_format=self.data_format, keepdims=self.keepdims)
        return config


@registry.builtin("layers", "GlobalAvgPool1D")
class GlobalAveragePooling1D(_GlobalPooling):
    """Global average pooling operation for temporal data.

    Averages over the steps axis. With a mask, the masked steps are left out
    of the average; a row whose steps are all masked gives 0 (Keras gives
    NaN there). The output carries no mask. `GlobalAvgPool1D` is the same
    class.

    Args:
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, steps, features)`) or `"channels_first"` (inputs of shape
            `(batch, features, steps)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        keepdims: Whether to keep the pooled spatial axes as axes of size 1
            (as `tf.reduce_mean(..., keepdims=True)` does). Defaults to
            `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 3.
        mask: Optional boolean tensor of shape `(batch_size, steps)`; masked
            steps are left out of the average. Defaults to `None`.

    Input shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, steps, channels)`. If
        `data_format="channels_first"`: a 3D tensor with shape
        `(batch_size, channels, steps)`.

    Output shape:
        If `keepdims=False`: a 2D tensor with shape `(batch_size, channels)`.
        If `keepdims=True`: with `data_format="channels_last"`, shape
        `(batch_size, 1, channels)`; with
        `data_format="channels_first"`, shape `(batch_size, channels, 1)`.

    Raises:
        ValueError: If `data_format` is unknown, or the input does not have
            rank 3.

    Example:
        >>> x = tf.constant([[[1.0], [3.0], [100.0]]])
        >>> layer = tfkit.layers.GlobalAveragePooling1D()
        >>> layer(x, mask=tf.constant([[True, True, False]])).numpy()
        array([[2.]], dtype=float32)
        >>> layer(np.ones((2, 5, 4))).shape
        TensorShape([2, 4])
    """

    rank, reduction = 1, "average"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs: tf.Tensor, mask: tf.Tensor | None = None) -> tf.Tensor:
        if mask is None:
            return super().call(inputs)
        steps_axis = self._spatial_axes[0]
        channel_axis = 2 if self.data_format == "channels_last" else 1
        weights = tf.expand_dims(tf.cast(mask, inputs.dtype), channel_axis)
        total = tf.reduce_sum(inputs * weights, axis=steps_axis, keepdims=self.keepdims)
        count = tf.reduce_sum(weights, axis=steps_axis, keepdims=self.keepdims)
        return tf.math.divide_no_nan(total, count)

    def compute_mask(self, inputs: Any, mask: Any = None) -> None:
        return None  # the steps the mask described are gone


@registry.builtin("layers", "GlobalAvgPool2D")
class GlobalAveragePooling2D(_GlobalPooling):
    """Global average pooling operation for 2D data.

    Averages over the height and width axes. `GlobalAvgPool2D` is the same
    class.

    Args:
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, height, width, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, height, width)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        keepdims: Whether to keep the pooled spatial axes as axes of size 1
            (as `tf.reduce_mean(..., keepdims=True)` does). Defaults to
            `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 4.

    Input shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, height, width, channels)`. If
        `data_format="channels_first"`: a 4D tensor with shape
        `(batch_size, channels, height, width)`.

    Output shape:
        If `keepdims=False`: a 2D tensor with shape `(batch_size, channels)`.
        If `keepdims=True`: with `data_format="channels_last"`, shape
        `(batch_size, 1, 1, channels)`; with
        `data_format="channels_first"`, shape `(batch_size, channels, 1, 1)`.

    Raises:
        ValueError: If `data_format` is unknown, or the input does not have
            rank 4.

    Example:
        >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
        >>> tfkit.layers.GlobalAveragePooling2D()(x).numpy()
        array([[7.5]], dtype=float32)
        >>> tfkit.layers.GlobalAveragePooling2D(keepdims=True)(x).shape
        TensorShape([1, 1, 1, 1])
    """

    rank, reduction = 2, "average"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)


@registry.builtin("layers", "GlobalAvgPool3D")
class GlobalAveragePooling3D(_GlobalPooling):
    """Global average pooling operation for 3D data.

    Averages over the three spatial axes. `GlobalAvgPool3D` is the same
    class.

    Args:
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, spatial_dim1, spatial_dim2, spatial_dim3, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, spatial_dim1, spatial_dim2, spatial_dim3)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        keepdims: Whether to keep the pooled spatial axes as axes of size 1
            (as `tf.reduce_mean(..., keepdims=True)` does). Defaults to
            `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 5.

    Input shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, spatial_dim1, spatial_dim2, spatial_dim3, channels)`. If
        `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, channels, spatial_dim1, spatial_dim2, spatial_dim3)`.

    Output shape:
        If `keepdims=False`: a 2D tensor with shape `(batch_size, channels)`.
        If `keepdims=True`: with `data_format="channels_last"`, shape
        `(batch_size, 1, 1, 1, channels)`; with
        `data_format="channels_first"`, shape `(batch_size, channels, 1, 1, 1)`.

    Raises:
        ValueError: If `data_format` is unknown, or the input does not have
            rank 5.

    Example:
        >>> tfkit.layers.GlobalAveragePooling3D()(np.ones((2, 3, 3, 3, 4))).shape
        TensorShape([2, 4])
    """

    rank, reduction = 3, "average"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)


@registry.builtin("layers", "GlobalMaxPool1D")
class GlobalMaxPooling1D(_GlobalPooling):
    """Global max pooling operation for temporal data.

    Takes the maximum over the steps axis. `GlobalMaxPool1D` is the same
    class.

    Args:
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, steps, features)`) or `"channels_first"` (inputs of shape
            `(batch, features, steps)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        keepdims: Whether to keep the pooled spatial axes as axes of size 1
            (as `tf.reduce_mean(..., keepdims=True)` does). Defaults to
            `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 3.

    Input shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, steps, channels)`. If
        `data_format="channels_first"`: a 3D tensor with shape
        `(batch_size, channels, steps)`.

    Output shape:
        If `keepdims=False`: a 2D tensor with shape `(batch_size, channels)`.
        If `keepdims=True`: with `data_format="channels_last"`, shape
        `(batch_size, 1, channels)`; with
        `data_format="channels_first"`, shape `(batch_size, channels, 1)`.

    Raises:
        ValueError: If `data_format` is unknown, or the input does not have
            rank 3.

    Example:
        >>> x = tf.constant([[[1.0], [3.0], [100.0]]])
        >>> tfkit.layers.GlobalMaxPooling1D()(x).numpy()
        array([[100.]], dtype=float32)
    """

    rank, reduction = 1, "max"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)


@registry.builtin("layers", "GlobalMaxPool2D")
class GlobalMaxPooling2D(_GlobalPooling):
    """Global max pooling operation for 2D data.

    Takes the maximum over the height and width axes. `GlobalMaxPool2D` is
    the same class.

    Args:
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, height, width, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, height, width)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        keepdims: Whether to keep the pooled spatial axes as axes of size 1
            (as `tf.reduce_mean(..., keepdims=True)` does). Defaults to
            `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 4.

    Input shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, height, width, channels)`. If
        `data_format="channels_first"`: a 4D tensor with shape
        `(batch_size, channels, height, width)`.

    Output shape:
        If `keepdims=False`: a 2D tensor with shape `(batch_size, channels)`.
        If `keepdims=True`: with `data_format="channels_last"`, shape
        `(batch_size, 1, 1, channels)`; with
        `data_format="channels_first"`, shape `(batch_size, channels, 1, 1)`.

    Raises:
        ValueError: If `data_format` is unknown, or the input does not have
            rank 4.

    Example:
        >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
        >>> tfkit.layers.GlobalMaxPooling2D()(x).numpy()
        array([[15.]], dtype=float32)
        >>> tfkit.layers.GlobalMaxPooling2D(keepdims=True)(x).shape
        TensorShape([1, 1, 1, 1])
    """

    rank, reduction = 2, "max"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)


@registry.builtin("layers", "GlobalMaxPool3D")
class GlobalMaxPooling3D(_GlobalPooling):
    """Global max pooling operation for 3D data.

    Takes the maximum over the three spatial axes. `GlobalMaxPool3D` is the
    same class.

    Args:
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, spatial_dim1, spatial_dim2, spatial_dim3, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, spatial_dim1, spatial_dim2, spatial_dim3)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        keepdims: Whether to keep the pooled spatial axes as axes of size 1
            (as `tf.reduce_mean(..., keepdims=True)` does). Defaults to
            `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 5.

    Input shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, spatial_dim1, spatial_dim2, spatial_dim3, channels)`. If
        `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, channels, spatial_dim1, spatial_dim2, spatial_dim3)`.

    Output shape:
        If `keepdims=False`: a 2D tensor with shape `(batch_size, channels)`.
        If `keepdims=True`: with `data_format="channels_last"`, shape
        `(batch_size, 1, 1, 1, channels)`; with
        `data_format="channels_first"`, shape `(batch_size, channels, 1, 1, 1)`.

    Raises:
        ValueError: If `data_format` is unknown, or the input does not have
            rank 5.

    Example:
        >>> layer = tfkit.layers.GlobalMaxPooling3D(keepdims=True)
        >>> layer(np.ones((2, 3, 3, 3, 4))).shape
        TensorShape([2, 1, 1, 1, 4])
    """

    rank, reduction = 3, "max"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)


MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D = (
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
)
GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D = GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalMaxPooling3D
