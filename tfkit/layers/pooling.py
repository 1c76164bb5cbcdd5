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
        self.data_format = cu.normalize_data_format(data_format, who)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def build(self, input_shape: tuple) -> None:
        self.compute_output_shape(input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        pool = tf.nn.max_pool if self.reduction == "max" else tf.nn.avg_pool
        x = cu.to_channels_last(inputs, self.data_format)
        outputs = pool(x, ksize=self.pool_size, strides=self.strides, padding=self.padding.upper())
        return cu.from_channels_last(outputs, self.data_format)

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
    """Max over windows of ``pool_size`` steps: ``(batch, steps, channels)`` in and out."""

    rank, reduction = 1, "max"

    def __init__(self, pool_size: IntOrTuple = 2, strides: IntOrTuple | None = None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@registry.builtin("layers", "MaxPool2D")
class MaxPooling2D(_Pooling):
    """Max over ``pool_size`` windows of ``(batch, height, width, channels)`` inputs.

        MaxPooling2D(2)(tf.ones((1, 5, 5, 3))).shape                   # (1, 2, 2, 3)
        MaxPooling2D(2, padding="same")(tf.ones((1, 5, 5, 3))).shape   # (1, 3, 3, 3)
    """

    rank, reduction = 2, "max"

    def __init__(self, pool_size: IntOrTuple = (2, 2), strides: IntOrTuple | None = None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@registry.builtin("layers", "MaxPool3D")
class MaxPooling3D(_Pooling):
    """Max over ``pool_size`` windows of ``(batch, depth, height, width, channels)`` inputs."""

    rank, reduction = 3, "max"

    def __init__(self, pool_size: IntOrTuple = (2, 2, 2), strides: IntOrTuple | None = None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@registry.builtin("layers", "AvgPool1D")
class AveragePooling1D(_Pooling):
    """Mean over windows of ``pool_size`` steps."""

    rank, reduction = 1, "average"

    def __init__(self, pool_size: IntOrTuple = 2, strides: IntOrTuple | None = None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@registry.builtin("layers", "AvgPool2D")
class AveragePooling2D(_Pooling):
    """Mean over ``pool_size`` windows of ``(batch, height, width, channels)`` inputs."""

    rank, reduction = 2, "average"

    def __init__(self, pool_size: IntOrTuple = (2, 2), strides: IntOrTuple | None = None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@registry.builtin("layers", "AvgPool3D")
class AveragePooling3D(_Pooling):
    """Mean over ``pool_size`` windows of ``(batch, depth, height, width, channels)`` inputs."""

    rank, reduction = 3, "average"

    def __init__(self, pool_size: IntOrTuple = (2, 2, 2), strides: IntOrTuple | None = None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


# ------------------------------------------------------------ global pooling


class _GlobalPooling(Layer):
    """Max or mean over every spatial position; ``keepdims=True`` keeps them as size-1 axes."""

    rank: int = 2
    reduction: str = "max"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = cu.normalize_data_format(data_format, cu.layer_label(self))
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
    """Mean over the steps of ``(batch, steps, channels)``; masked steps are left out.

        x = tf.constant([[[1.0], [3.0], [100.0]]])
        GlobalAveragePooling1D()(x, mask=tf.constant([[True, True, False]]))   # [[2.0]]

    A row whose steps are all masked gives 0 (Keras gives NaN there).
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
    """Mean over height and width: ``(batch, h, w, c)`` -> ``(batch, c)``."""

    rank, reduction = 2, "average"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)


@registry.builtin("layers", "GlobalAvgPool3D")
class GlobalAveragePooling3D(_GlobalPooling):
    """Mean over depth, height and width."""

    rank, reduction = 3, "average"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)


@registry.builtin("layers", "GlobalMaxPool1D")
class GlobalMaxPooling1D(_GlobalPooling):
    """Max over the steps of ``(batch, steps, channels)``."""

    rank, reduction = 1, "max"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)


@registry.builtin("layers", "GlobalMaxPool2D")
class GlobalMaxPooling2D(_GlobalPooling):
    """Max over height and width: ``(batch, h, w, c)`` -> ``(batch, c)``."""

    rank, reduction = 2, "max"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)


@registry.builtin("layers", "GlobalMaxPool3D")
class GlobalMaxPooling3D(_GlobalPooling):
    """Max over depth, height and width."""

    rank, reduction = 3, "max"

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)


MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D = (
    GlobalAveragePooling1D, GlobalAveragePooling2D, GlobalAveragePooling3D,
)
GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D = GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalMaxPooling3D
