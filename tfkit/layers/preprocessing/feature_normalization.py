"""``Normalization``: shift and scale features to mean 0 and variance 1, with statistics from ``adapt``.

    norm = tfkit.layers.Normalization()
    norm.adapt(x_train)                      # arrays, tensors or a batched tf.data.Dataset
    model = tfkit.Sequential([tfkit.Input((8,)), norm, tfkit.layers.Dense(1)])

The statistics are non-trainable weights (``mean``, ``variance``, ``count``),
so they are saved and loaded with the model's weights and traced into exports.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.engine.layer import Layer

__all__ = ["Normalization"]


def _batches(data: Any) -> Any:
    """Numpy batches of ``data``: an array or tensor is one batch; a dataset yields its (x) batches."""
    if isinstance(data, tf.data.Dataset):
        for element in data:
            yield np.asarray(element[0] if isinstance(element, tuple) else element)
    elif isinstance(data, (np.ndarray, tf.Tensor, tf.Variable, list)):
        yield np.asarray(data)
    else:
        for element in data:
            yield np.asarray(element[0] if isinstance(element, tuple) else element)


@registry.builtin("layers")
class Normalization(Layer):
    """A preprocessing layer that normalizes continuous features.

    This layer shifts and scales inputs into a distribution centered around
    0 with standard deviation 1: it computes `(input - mean) / sqrt(var)` at
    runtime (the standard deviation is floored at `1e-7`). The mean and
    variance are either given to the constructor or computed by `adapt()`
    from arrays, tensors or a batched `tf.data.Dataset` (streamed batch by
    batch, numerically stable). Adapted statistics are non-trainable weights
    (`mean`, `variance`, `count`), so they are saved and loaded with the
    model's weights and traced into exports.

    Args:
        axis: Integer, tuple of integers, or `None`. The axis or axes that
            should have a separate mean and variance for each index in the
            shape. For example, if shape is `(None, 5)` and `axis=1`, the
            layer will track 5 separate mean and variance values for the last
            axis. If `axis` is `None`, the layer normalizes all elements by a
            scalar mean and variance. Note that the batch axis should not be
            included. Defaults to `-1`.
        mean: The mean value(s) to use during normalization, as a number or
            an array broadcastable to the kept axes. If not given, the mean is
            computed by `adapt()`. Pass both `mean` and `variance` or
            neither. Defaults to `None`.
        variance: The variance value(s) to use during normalization, like
            `mean`. If not given, the variance is computed by `adapt()`.
            Defaults to `None`.
        invert: If `True`, the layer applies the inverse transformation to
            its inputs (`input * sqrt(var) + mean`): it turns a normalized
            input back into its original form. Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of numbers (cast to the layer's compute dtype).

    Input shape:
        Arbitrary; the axes in `axis` must have known sizes.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If only one of `mean` and `variance` is given; at build
            time, if an axis is out of range or of unknown size; from
            `adapt()`, if `mean` and `variance` were given or the data is
            empty.

    Example:
        >>> layer = tfkit.layers.Normalization()
        >>> layer.adapt(np.array([[0.0, 7.0], [2.0, 7.0], [4.0, 7.0]]))
        >>> layer.mean.numpy()
        array([2., 7.], dtype=float32)
        >>> np.round(layer(np.array([[0.0, 7.0], [4.0, 7.0]])).numpy(), 4)
        array([[-1.2247,  0.    ],
               [ 1.2247,  0.    ]], dtype=float32)

        With fixed statistics, and the inverse transformation:

        >>> layer = tfkit.layers.Normalization(mean=3.0, variance=4.0, invert=True)
        >>> layer(np.array([[-1.0, 0.0, 1.0]])).numpy()
        array([[1., 3., 5.]], dtype=float32)
    """

    def __init__(
        self,
        axis: int | Sequence[int] | None = -1,
        mean: Any = None,
        variance: Any = None,
        invert: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if (mean is None) != (variance is None):
            raise ValueError(
                f"Normalization layer '{self.name}': pass both mean and variance, or neither "
                f"(and call adapt()); got mean={mean!r}, variance={variance!r}"
            )
        self.axis = () if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
        self.input_mean = None if mean is None else np.asarray(mean, dtype="float32")
        self.input_variance = None if variance is None else np.asarray(variance, dtype="float32")
        self.invert = invert
        self.supports_masking = True

    def _shapes(self, input_shape: Sequence[int | None]) -> tuple[tuple[int, ...], list[int]]:
        ndim = len(input_shape)
        keep = sorted(a % ndim for a in self.axis)
        for a in self.axis:
            if not -ndim <= a < ndim:
                raise ValueError(
                    f"Normalization layer '{self.name}': axis {a} is out of range for inputs of rank {ndim}"
                )
        if any(input_shape[a] is None for a in keep):
            raise ValueError(
                f"Normalization layer '{self.name}' needs known sizes on axis {list(self.axis)}, "
                f"got input shape {tuple(input_shape)}"
            )
        return tuple(input_shape[a] for a in keep), [input_shape[a] if a in keep else 1 for a in range(ndim)]

    def build(self, input_shape: Sequence[int | None]) -> None:
        stat_shape, self._tfkit_broadcast = self._shapes(input_shape)
        self._tfkit_stat_shape = stat_shape
        if self.input_mean is None:
            self.mean = self.add_weight(name="mean", shape=stat_shape, initializer="zeros", trainable=False)
            self.variance = self.add_weight(name="variance", shape=stat_shape, initializer="ones", trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int64", initializer="zeros", trainable=False)

    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Set ``mean`` and ``variance`` from ``data`` (streamed batch by batch, numerically stable)."""
        if self.input_mean is not None:
            raise ValueError(f"Normalization layer '{self.name}' was given mean and variance; adapt() is not needed")
        total, mean, m2 = 0, None, None
        for step, batch in enumerate(_batches(data)):
            if steps is not None and step >= steps:
                break
            batch = batch.astype("float64")
            if not self.built:
                self.build((None, *batch.shape[1:]))
                self.built = True
            keep = sorted(a % batch.ndim for a in self.axis)
            reduce = tuple(a for a in range(batch.ndim) if a not in keep)
            n = int(np.prod([batch.shape[a] for a in reduce])) if reduce else 1
            batch_mean = batch.mean(axis=reduce)
            batch_m2 = ((batch - batch.mean(axis=reduce, keepdims=True)) ** 2).sum(axis=reduce)
            if mean is None:
                total, mean, m2 = n, batch_mean, batch_m2
            else:  # Chan et al.: merge two sets' means and sums of squares
                delta = batch_mean - mean
                mean = mean + delta * n / (total + n)
                m2 = m2 + batch_m2 + delta**2 * total * n / (total + n)
                total += n
        if mean is None:
            raise ValueError(f"Normalization layer '{self.name}': adapt() got no data")
        self.mean.assign(mean.reshape(self.mean.shape).astype("float32"))
        self.variance.assign((m2 / total).reshape(self.variance.shape).astype("float32"))
        self.count.assign(total)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        inputs = tf.cast(inputs, self.compute_dtype)
        if self.input_mean is not None:
            mean = tf.reshape(tf.broadcast_to(self.input_mean, self._tfkit_stat_shape), self._tfkit_broadcast)
            variance = tf.reshape(tf.broadcast_to(self.input_variance, self._tfkit_stat_shape), self._tfkit_broadcast)
        else:
            mean = tf.reshape(self.mean, self._tfkit_broadcast)
            variance = tf.reshape(self.variance, self._tfkit_broadcast)
        mean, variance = tf.cast(mean, inputs.dtype), tf.cast(variance, inputs.dtype)
        scale = tf.maximum(tf.sqrt(variance), tf.cast(1e-7, inputs.dtype))
        return inputs * scale + mean if self.invert else (inputs - mean) / scale

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        axis = list(self.axis) if len(self.axis) != 1 else self.axis[0]
        return {
            **Layer.get_config(self),
            "axis": axis if self.axis else None,
            "mean": None if self.input_mean is None else self.input_mean.tolist(),
            "variance": None if self.input_variance is None else self.input_variance.tolist(),
            "invert": self.invert,
        }
