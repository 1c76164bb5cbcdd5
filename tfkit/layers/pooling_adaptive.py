"""Adaptive pooling: average or max over bins chosen so the output has a fixed spatial size.

    pool = tfkit.layers.AdaptiveAveragePooling2D((2, 3))
    pool(tf.ones((4, 7, 10, 8))).shape            # (4, 2, 3, 8), whatever the input's height and width
    tfkit.layers.AdaptiveMaxPooling1D(4)(tf.ones((1, 9, 2))).shape   # (1, 4, 2)

Bin ``i`` of an axis of length ``L`` pooled to ``n`` covers the positions
``floor(i * L / n)`` up to (excluding) ``ceil((i + 1) * L / n)``: PyTorch's and
Keras 3's bins, which may overlap by one position when ``n`` does not divide
``L``. A bin over a box is the product of its per-axis bins, so both the mean
and the max are taken one axis at a time. Spatial sizes must be known when the
layer is built (as in Keras).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.base.data_format import from_channels_last, standardize_data_format, to_channels_last
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers import conv_utils as cu

__all__ = [
    "AdaptiveAveragePooling1D",
    "AdaptiveAveragePooling2D",
    "AdaptiveAveragePooling3D",
    "AdaptiveMaxPooling1D",
    "AdaptiveMaxPooling2D",
    "AdaptiveMaxPooling3D",
]


def adaptive_bins(length: int, size: int) -> list[tuple[int, int]]:
    """``[(start, end), ...]``: the ``size`` bins of an axis of ``length`` positions."""
    return [((i * length) // size, -((-(i + 1) * length) // size)) for i in range(size)]


def _average_matrix(length: int, size: int) -> np.ndarray:
    """``(length, size)`` matrix whose column ``i`` averages bin ``i``."""
    matrix = np.zeros((length, size), np.float64)
    for i, (start, end) in enumerate(adaptive_bins(length, size)):
        matrix[start:end, i] = 1.0 / (end - start)
    return matrix


def _max_indices(length: int, size: int) -> np.ndarray:
    """``(size, widest bin)`` positions of every bin, short bins repeating their last position."""
    bins = adaptive_bins(length, size)
    width = max(end - start for start, end in bins)
    return np.array([[min(start + j, end - 1) for j in range(width)] for start, end in bins], np.int32)


def _pool_axis(x: tf.Tensor, axis: int, size: int, reduction: str) -> tf.Tensor:
    """Pool axis ``axis`` of ``x`` (static length) to ``size`` bins."""
    length = x.shape[axis]
    if reduction == "average":
        weights = tf.constant(_average_matrix(length, size), dtype=x.dtype)
        moved = tf.experimental.numpy.moveaxis(x, axis, -1)
        return tf.experimental.numpy.moveaxis(tf.tensordot(moved, weights, axes=1), -1, axis)
    gathered = tf.gather(x, tf.constant(_max_indices(length, size)), axis=axis)  # (..., size, width, ...)
    return tf.reduce_max(gathered, axis=axis + 1)


def normalize_output_size(value: Any, rank: int, who: str) -> tuple[int, ...]:
    """An int or ``rank`` ints, each positive, as Keras 3 accepts ``output_size``."""
    if isinstance(value, (list, tuple)) and len(value) != rank:
        raise TypeError(f"{who} expected `output_size` to be an int or a tuple of {rank} ints, got {value!r}")
    return cu.normalize_tuple(value, rank, "output_size", who)


class _AdaptivePooling(Layer):
    """Pool every spatial axis to ``output_size`` bins (``reduction`` is "average" or "max")."""

    rank: int = 2
    reduction: str = "average"

    def __init__(self, output_size: int | Sequence[int], data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = cu.layer_label(self)
        self.output_size = normalize_output_size(output_size, self.rank, who)
        self.data_format = standardize_data_format(data_format, who)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def build(self, input_shape: Any) -> None:
        self._spatial_sizes(input_shape)

    def _spatial_sizes(self, input_shape: Any) -> tuple[int, ...]:
        who = cu.layer_label(self)
        shape = cu.check_input_rank(tuple(input_shape), self.rank + 2, who, cu.layout(self.rank, self.data_format))
        spatial = cu.spatial_dims(shape, self.data_format)
        if any(length is None for length in spatial):
            raise ValueError(
                f"{who} needs every spatial size known when it is built (its bins are fixed then), "
                f"got input shape {shape}; give the Input a full spatial shape"
            )
        return tuple(spatial)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        self._spatial_sizes(inputs.shape)
        x = to_channels_last(inputs, self.data_format)
        for axis, size in enumerate(self.output_size, start=1):
            x = _pool_axis(x, axis, size, self.reduction)
        return from_channels_last(x, self.data_format)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape = cu.check_input_rank(
            tuple(input_shape), self.rank + 2, cu.layer_label(self), cu.layout(self.rank, self.data_format)
        )
        return cu.assemble_shape(shape[0], self.output_size, cu.channel_dim(shape, self.data_format), self.data_format)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(output_size=self.output_size, data_format=self.data_format)
        return config


@registry.builtin("layers")
class AdaptiveAveragePooling1D(_AdaptivePooling):
    """Adaptive average pooling layer for 1D inputs.

    Averages over `output_size` bins of the steps axis, whatever the input's
    length, so the output has a fixed length.

    Bin `i` of an axis of length `L` pooled to `n` bins covers the positions
    `floor(i * L / n)` up to (excluding) `ceil((i + 1) * L / n)`: PyTorch's
    and Keras 3's bins, which may overlap by one position when `n` does not
    divide `L`. The spatial sizes must be known when the layer is built.

    Args:
        output_size: An integer or tuple/list of 1 integer, the number of bins
            of each spatial axis of the output (one integer is used for every
            spatial axis).
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, steps, features)`) or `"channels_first"` (inputs of shape
            `(batch, features, steps)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 3 with known spatial sizes.

    Input shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, steps, channels)`. If
        `data_format="channels_first"`: a 3D tensor with shape
        `(batch_size, channels, steps)`.

    Output shape:
        If `data_format="channels_last"`: `(batch_size, output_steps, channels)`.
        If `data_format="channels_first"`: `(batch_size, channels, output_steps)`,
        the sizes being `output_size`.

    Raises:
        TypeError: If `output_size` is a tuple of the wrong length.
        ValueError: If `output_size` holds a non-positive value, or a spatial
            size of the input is unknown when the layer is built.

    Example:
        >>> x = tf.constant([[[1.0], [2.0], [4.0]]])
        >>> tfkit.layers.AdaptiveAveragePooling1D(2)(x).numpy()  # bins [0, 2) and [1, 3)
        array([[[1.5],
                [3. ]]], dtype=float32)
    """

    rank = 1


@registry.builtin("layers")
class AdaptiveAveragePooling2D(_AdaptivePooling):
    """Adaptive average pooling layer for 2D inputs.

    Averages over `output_size` bins of the height and width axes, whatever
    the input's size, so the output has a fixed spatial size.

    Bin `i` of an axis of length `L` pooled to `n` bins covers the positions
    `floor(i * L / n)` up to (excluding) `ceil((i + 1) * L / n)`: PyTorch's
    and Keras 3's bins, which may overlap by one position when `n` does not
    divide `L`. The spatial sizes must be known when the layer is built.

    Args:
        output_size: An integer or tuple/list of 2 integers, the number of bins
            of each spatial axis of the output (one integer is used for every
            spatial axis).
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, height, width, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, height, width)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 4 with known spatial sizes.

    Input shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, height, width, channels)`. If
        `data_format="channels_first"`: a 4D tensor with shape
        `(batch_size, channels, height, width)`.

    Output shape:
        If `data_format="channels_last"`: `(batch_size, output_height, output_width, channels)`.
        If `data_format="channels_first"`: `(batch_size, channels, output_height, output_width)`,
        the sizes being `output_size`.

    Raises:
        TypeError: If `output_size` is a tuple of the wrong length.
        ValueError: If `output_size` holds a non-positive value, or a spatial
            size of the input is unknown when the layer is built.

    Example:
        >>> layer = tfkit.layers.AdaptiveAveragePooling2D((2, 3))
        >>> layer(np.ones((4, 7, 10, 8))).shape
        TensorShape([4, 2, 3, 8])
    """

    rank = 2


@registry.builtin("layers")
class AdaptiveAveragePooling3D(_AdaptivePooling):
    """Adaptive average pooling layer for 3D inputs.

    Averages over `output_size` bins of each of the three spatial axes,
    whatever the input's size, so the output has a fixed spatial size.

    Bin `i` of an axis of length `L` pooled to `n` bins covers the positions
    `floor(i * L / n)` up to (excluding) `ceil((i + 1) * L / n)`: PyTorch's
    and Keras 3's bins, which may overlap by one position when `n` does not
    divide `L`. The spatial sizes must be known when the layer is built.

    Args:
        output_size: An integer or tuple/list of 3 integers, the number of bins
            of each spatial axis of the output (one integer is used for every
            spatial axis).
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, spatial_dim1, spatial_dim2, spatial_dim3, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, spatial_dim1, spatial_dim2, spatial_dim3)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 5 with known spatial sizes.

    Input shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, spatial_dim1, spatial_dim2, spatial_dim3, channels)`. If
        `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, channels, spatial_dim1, spatial_dim2, spatial_dim3)`.

    Output shape:
        If `data_format="channels_last"`: `(batch_size, output_dim1, output_dim2, output_dim3, channels)`.
        If `data_format="channels_first"`: `(batch_size, channels, output_dim1, output_dim2, output_dim3)`,
        the sizes being `output_size`.

    Raises:
        TypeError: If `output_size` is a tuple of the wrong length.
        ValueError: If `output_size` holds a non-positive value, or a spatial
            size of the input is unknown when the layer is built.

    Example:
        >>> layer = tfkit.layers.AdaptiveAveragePooling3D(2)
        >>> layer(np.ones((1, 4, 5, 6, 3))).shape
        TensorShape([1, 2, 2, 2, 3])
    """

    rank = 3


@registry.builtin("layers")
class AdaptiveMaxPooling1D(_AdaptivePooling):
    """Adaptive max pooling layer for 1D inputs.

    Takes the maximum over `output_size` bins of the steps axis, whatever
    the input's length, so the output has a fixed length.

    Bin `i` of an axis of length `L` pooled to `n` bins covers the positions
    `floor(i * L / n)` up to (excluding) `ceil((i + 1) * L / n)`: PyTorch's
    and Keras 3's bins, which may overlap by one position when `n` does not
    divide `L`. The spatial sizes must be known when the layer is built.

    Args:
        output_size: An integer or tuple/list of 1 integer, the number of bins
            of each spatial axis of the output (one integer is used for every
            spatial axis).
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, steps, features)`) or `"channels_first"` (inputs of shape
            `(batch, features, steps)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 3 with known spatial sizes.

    Input shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, steps, channels)`. If
        `data_format="channels_first"`: a 3D tensor with shape
        `(batch_size, channels, steps)`.

    Output shape:
        If `data_format="channels_last"`: `(batch_size, output_steps, channels)`.
        If `data_format="channels_first"`: `(batch_size, channels, output_steps)`,
        the sizes being `output_size`.

    Raises:
        TypeError: If `output_size` is a tuple of the wrong length.
        ValueError: If `output_size` holds a non-positive value, or a spatial
            size of the input is unknown when the layer is built.

    Example:
        >>> x = tf.constant([[[1.0], [2.0], [4.0]]])
        >>> tfkit.layers.AdaptiveMaxPooling1D(2)(x).numpy()  # bins [0, 2) and [1, 3)
        array([[[2.],
                [4.]]], dtype=float32)
    """

    rank = 1
    reduction = "max"


@registry.builtin("layers")
class AdaptiveMaxPooling2D(_AdaptivePooling):
    """Adaptive max pooling layer for 2D inputs.

    Takes the maximum over `output_size` bins of the height and width axes,
    whatever the input's size, so the output has a fixed spatial size.

    Bin `i` of an axis of length `L` pooled to `n` bins covers the positions
    `floor(i * L / n)` up to (excluding) `ceil((i + 1) * L / n)`: PyTorch's
    and Keras 3's bins, which may overlap by one position when `n` does not
    divide `L`. The spatial sizes must be known when the layer is built.

    Args:
        output_size: An integer or tuple/list of 2 integers, the number of bins
            of each spatial axis of the output (one integer is used for every
            spatial axis).
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, height, width, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, height, width)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 4 with known spatial sizes.

    Input shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, height, width, channels)`. If
        `data_format="channels_first"`: a 4D tensor with shape
        `(batch_size, channels, height, width)`.

    Output shape:
        If `data_format="channels_last"`: `(batch_size, output_height, output_width, channels)`.
        If `data_format="channels_first"`: `(batch_size, channels, output_height, output_width)`,
        the sizes being `output_size`.

    Raises:
        TypeError: If `output_size` is a tuple of the wrong length.
        ValueError: If `output_size` holds a non-positive value, or a spatial
            size of the input is unknown when the layer is built.

    Example:
        >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
        >>> tfkit.layers.AdaptiveMaxPooling2D(2)(x).numpy()[0, :, :, 0]
        array([[ 5.,  7.],
               [13., 15.]], dtype=float32)
    """

    rank = 2
    reduction = "max"


@registry.builtin("layers")
class AdaptiveMaxPooling3D(_AdaptivePooling):
    """Adaptive max pooling layer for 3D inputs.

    Takes the maximum over `output_size` bins of each of the three spatial
    axes, whatever the input's size, so the output has a fixed spatial size.

    Bin `i` of an axis of length `L` pooled to `n` bins covers the positions
    `floor(i * L / n)` up to (excluding) `ceil((i + 1) * L / n)`: PyTorch's
    and Keras 3's bins, which may overlap by one position when `n` does not
    divide `L`. The spatial sizes must be known when the layer is built.

    Args:
        output_size: An integer or tuple/list of 3 integers, the number of bins
            of each spatial axis of the output (one integer is used for every
            spatial axis).
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, spatial_dim1, spatial_dim2, spatial_dim3, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, spatial_dim1, spatial_dim2, spatial_dim3)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 5 with known spatial sizes.

    Input shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, spatial_dim1, spatial_dim2, spatial_dim3, channels)`. If
        `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, channels, spatial_dim1, spatial_dim2, spatial_dim3)`.

    Output shape:
        If `data_format="channels_last"`: `(batch_size, output_dim1, output_dim2, output_dim3, channels)`.
        If `data_format="channels_first"`: `(batch_size, channels, output_dim1, output_dim2, output_dim3)`,
        the sizes being `output_size`.

    Raises:
        TypeError: If `output_size` is a tuple of the wrong length.
        ValueError: If `output_size` holds a non-positive value, or a spatial
            size of the input is unknown when the layer is built.

    Example:
        >>> layer = tfkit.layers.AdaptiveMaxPooling3D((1, 2, 3))
        >>> layer(np.ones((1, 4, 5, 6, 3))).shape
        TensorShape([1, 1, 2, 3, 3])
    """

    rank = 3
    reduction = "max"
