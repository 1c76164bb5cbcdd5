"""Regularization layers: ``Dropout``, ``SpatialDropout1D``, ``SpatialDropout2D``, ``GaussianNoise``,
``ActivityRegularization``.

    dropout = tfkit.layers.Dropout(0.5, seed=1337)
    y = dropout(x, training=True)    # half the entries zeroed, the rest doubled
    y = dropout(x)                   # inference: x unchanged

The random layers act only when ``training`` is true and draw from their own
``tfkit.random.SeedGenerator``, so they compile (XLA too) and give new noise
on every call.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import tensorflow as tf

from tfkit import random as tfkit_random
from tfkit import regularizers
from tfkit.base import registry
from tfkit.base.data_format import standardize_data_format
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config, check_input_spec

__all__ = ["Dropout", "SpatialDropout1D", "SpatialDropout2D", "GaussianNoise", "ActivityRegularization"]


def in_training(training: Any, train: Callable[[], tf.Tensor], infer: Callable[[], tf.Tensor]) -> tf.Tensor:
    """``train()`` when ``training`` is true, else ``infer()``; a boolean tensor picks with ``tf.cond``."""
    if isinstance(training, (tf.Tensor, tf.Variable)):
        return tf.cond(tf.cast(training, tf.bool), train, infer)
    return train() if training else infer()


def _check_fraction(value: Any, what: str, who: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"{who} expected {what} to be a float between 0 and 1, got {value!r}")
    return value


def _check_seed(seed: Any, who: str) -> None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ValueError(f"{who} expected seed to be an int or None, got {seed!r}")


# ------------------------------------------------------------------ Dropout


@registry.builtin("layers")
class Dropout(Layer):
    """Applies dropout to the input.

    The `Dropout` layer randomly sets input units to 0 with a frequency of
    `rate` at each step during training, which helps prevent overfitting.
    Inputs not set to 0 are scaled up by `1 / (1 - rate)` so that the expected
    sum over all inputs is unchanged.

    The layer only acts when `training` is true (as `fit` sets it); in
    inference it returns its inputs unchanged. Setting `trainable=False` does
    not change this, as `trainable` only concerns the weights. The noise is
    drawn from the layer's own `tfkit.random.SeedGenerator`, so a compiled
    (or XLA) step gives new noise on every call.

    Args:
        rate: Float between 0 and 1, the fraction of the input units to drop.
        noise_shape: Optional tuple of ints (or `None` entries), one per input
            axis: the shape of the binary dropout mask that is multiplied
            with the input. A `None` entry takes the input's size; size-1
            axes share a keep/drop decision. For inputs of shape
            `(batch_size, timesteps, features)`, `noise_shape=(None, 1, None)`
            uses the same mask at every timestep. Defaults to `None` (the
            input's shape).
        seed: Optional int, the seed of the layer's own random generator
            (a `tfkit.random.SeedGenerator`), for reproducible noise.
            Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Input tensor (of any rank).
        training: Python boolean or boolean tensor: whether the layer should
            behave in training mode (adding noise) or in inference mode
            (returning the inputs unchanged). Defaults to `False`.

    Input shape:
        Arbitrary.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `rate` is not a number in `[0, 1]`, `noise_shape` is not
            a tuple of positive ints or `None` entries, or `seed` is not an int
            or `None`.

    Example:
        >>> layer = tfkit.layers.Dropout(0.5, seed=1)
        >>> x = np.ones((2, 5), dtype="float32")
        >>> y = layer(x, training=True)
        >>> sorted(set(y.numpy().ravel().tolist()))
        [0.0, 2.0]
        >>> layer(x).numpy()  # inference: unchanged
        array([[1., 1., 1., 1., 1.],
               [1., 1., 1., 1., 1.]], dtype=float32)
    """

    def __init__(
        self, rate: float, noise_shape: Sequence[int | None] | None = None, seed: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        who = f"{type(self).__name__} layer '{self.name}'"
        self.rate = _check_fraction(rate, "rate", who)
        _check_seed(seed, who)
        if noise_shape is not None:
            if (
                isinstance(noise_shape, str)
                or not isinstance(noise_shape, (tuple, list))
                or not all(d is None or isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in noise_shape)
            ):
                raise ValueError(
                    f"{who} expected noise_shape to be a tuple of positive ints or None entries, got {noise_shape!r}"
                )
            noise_shape = tuple(noise_shape)
        self.noise_shape = noise_shape
        self.seed = seed
        self.seed_generator = tfkit_random.SeedGenerator(seed)
        self.supports_masking = True

    _build_creates_state = False  # build only checks the input spec: shape inference may skip it

    def build(self, input_shape: Any) -> None:
        check_input_spec(self, input_shape)

    def _noise_shape(self, inputs: tf.Tensor) -> Any:
        return self.noise_shape

    def call(self, inputs: tf.Tensor, training: Any = False) -> tf.Tensor:
        if self.rate == 0:
            return inputs
        if self.rate == 1:
            return in_training(training, lambda: tf.zeros_like(inputs), lambda: inputs)

        def dropped() -> tf.Tensor:
            return tfkit_random.dropout(
                inputs, self.rate, noise_shape=self._noise_shape(inputs), seed=self.seed_generator
            )

        return in_training(training, dropped, lambda: inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        noise_shape = list(self.noise_shape) if self.noise_shape is not None else None
        config.update(rate=self.rate, seed=self.seed, noise_shape=noise_shape)
        return config


@registry.builtin("layers")
class SpatialDropout1D(Dropout):
    """Spatial 1D version of Dropout.

    Like `Dropout`, but it drops entire 1D feature maps (channels) instead of
    individual elements: one keep/drop decision per sample and channel,
    shared by every step. When adjacent steps are strongly correlated (as in
    early convolution layers), regular dropout does not regularize well;
    `SpatialDropout1D` promotes independence between feature maps instead.
    It acts only when `training` is true.

    Args:
        rate: Float between 0 and 1, the fraction of the channels to drop.
        seed: Optional int, the seed of the layer's own random generator
            (a `tfkit.random.SeedGenerator`), for reproducible noise.
            Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D tensor.
        training: Python boolean or boolean tensor: whether the layer should
            behave in training mode (adding noise) or in inference mode
            (returning the inputs unchanged). Defaults to `False`.

    Input shape:
        3D tensor with shape `(samples, timesteps, channels)`.

    Output shape:
        Same as the input.

    Raises:
        ValueError: If `rate` is not a number in `[0, 1]` or `seed` is not an
            int or `None`; on call, if the input is not 3D.

    Example:
        >>> layer = tfkit.layers.SpatialDropout1D(0.5, seed=1)
        >>> y = layer(np.ones((2, 4, 6), dtype="float32"), training=True).numpy()
        >>> y.shape
        (2, 4, 6)
        >>> bool((y == y[:, :1, :]).all())  # each channel is kept or dropped at every step
        True
    """

    def __init__(self, rate: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(rate, seed=seed, **kwargs)
        self.input_spec = InputSpec(ndim=3)

    def _noise_shape(self, inputs: tf.Tensor) -> Any:
        return (None, 1, None)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("noise_shape")
        return config


@registry.builtin("layers")
class SpatialDropout2D(Dropout):
    """Spatial 2D version of Dropout.

    Like `Dropout`, but it drops entire 2D feature maps (channels) instead of
    individual elements: one keep/drop decision per sample and channel,
    shared by every pixel. When adjacent pixels are strongly correlated (as
    in early convolution layers), regular dropout does not regularize well;
    `SpatialDropout2D` promotes independence between feature maps instead.
    It acts only when `training` is true.

    Args:
        rate: Float between 0 and 1, the fraction of the channels to drop.
        data_format: `"channels_last"` (inputs `(batch, rows, cols,
            channels)`) or `"channels_first"` (inputs `(batch, channels, rows,
            cols)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        seed: Optional int, the seed of the layer's own random generator
            (a `tfkit.random.SeedGenerator`), for reproducible noise.
            Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 4D tensor.
        training: Python boolean or boolean tensor: whether the layer should
            behave in training mode (adding noise) or in inference mode
            (returning the inputs unchanged). Defaults to `False`.

    Input shape:
        4D tensor with shape `(samples, channels, rows, cols)` if
        `data_format="channels_first"`, or `(samples, rows, cols, channels)`
        if `data_format="channels_last"`.

    Output shape:
        Same as the input.

    Raises:
        ValueError: If `rate` is not a number in `[0, 1]`, `seed` is not an
            int or `None`, or `data_format` is not one of the two formats; on
            call, if the input is not 4D.

    Example:
        >>> layer = tfkit.layers.SpatialDropout2D(0.5, seed=1)
        >>> y = layer(np.ones((2, 3, 3, 4), dtype="float32"), training=True).numpy()
        >>> y.shape
        (2, 3, 3, 4)
        >>> bool((y == y[:, :1, :1, :]).all())  # each feature map is kept or dropped whole
        True
    """

    def __init__(self, rate: float, data_format: str | None = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(rate, seed=seed, **kwargs)
        self.data_format = standardize_data_format(data_format, f"SpatialDropout2D layer '{self.name}'")
        self.input_spec = InputSpec(ndim=4)

    def _noise_shape(self, inputs: tf.Tensor) -> Any:
        return (None, 1, 1, None) if self.data_format == "channels_last" else (None, None, 1, 1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("noise_shape")
        config["data_format"] = self.data_format
        return config


# ------------------------------------------------------------ GaussianNoise


@registry.builtin("layers")
class GaussianNoise(Layer):
    """Apply additive zero-centered Gaussian noise.

    This is useful to mitigate overfitting (it can be seen as a form of
    random data augmentation). Gaussian noise is a natural choice as a
    corruption process for real-valued inputs. As a regularization layer, it
    is only active during training (`training=True`).

    Args:
        stddev: Float between 0 and 1, the standard deviation of the noise
            distribution.
        seed: Optional int, the seed of the layer's own random generator
            (a `tfkit.random.SeedGenerator`), for reproducible noise.
            Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Input tensor (of any rank).
        training: Python boolean or boolean tensor: whether the layer should
            behave in training mode (adding noise) or in inference mode
            (returning the inputs unchanged). Defaults to `False`.

    Input shape:
        Arbitrary.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `stddev` is not a number in `[0, 1]` or `seed` is not an
            int or `None`.

    Example:
        >>> layer = tfkit.layers.GaussianNoise(0.1, seed=1)
        >>> x = np.zeros((2, 3), dtype="float32")
        >>> layer(x, training=True).shape
        TensorShape([2, 3])
        >>> layer(x).numpy()  # inference: unchanged
        array([[0., 0., 0.],
               [0., 0., 0.]], dtype=float32)
    """

    def __init__(self, stddev: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"GaussianNoise layer '{self.name}'"
        self.stddev = _check_fraction(stddev, "stddev", who)
        _check_seed(seed, who)
        self.seed = seed
        self.seed_generator = tfkit_random.SeedGenerator(seed)
        self.supports_masking = True

    def call(self, inputs: tf.Tensor, training: Any = False) -> tf.Tensor:
        if self.stddev == 0:
            return inputs

        def noisy() -> tf.Tensor:
            noise = tfkit_random.normal(
                tf.shape(inputs), mean=0.0, stddev=self.stddev, dtype=inputs.dtype, seed=self.seed_generator
            )
            return inputs + noise

        return in_training(training, noisy, lambda: inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(stddev=self.stddev, seed=self.seed)
        return config


# --------------------------------------------------- ActivityRegularization


@registry.builtin("layers")
class ActivityRegularization(Layer):
    """Layer that applies an update to the cost function based on input activity.

    It returns its inputs unchanged and adds
    `(l1 * sum(abs(x)) + l2 * sum(x ** 2)) / batch_size` to the layer's
    `losses` (an `L1L2` activity regularizer). An `activity_regularizer`
    keyword is ignored, and it is not part of the config.

    Args:
        l1: Non-negative float, the L1 regularization factor. Defaults to
            `0.0`.
        l2: Non-negative float, the L2 regularization factor. Defaults to
            `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Input tensor (of any rank).

    Input shape:
        Arbitrary.

    Output shape:
        Same shape as the input.

    Example:
        >>> layer = tfkit.layers.ActivityRegularization(l1=0.1)
        >>> layer(np.array([[1.0, -3.0], [2.0, 0.0]], dtype="float32")).numpy()
        array([[ 1., -3.],
               [ 2.,  0.]], dtype=float32)
        >>> [round(float(loss), 4) for loss in layer.losses]
        [0.3]
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        kwargs.pop("activity_regularizer", None)
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1 = l1
        self.l2 = l2
        self.supports_masking = True

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.pop("activity_regularizer", None)
        config.update(l1=self.l1, l2=self.l2)
        return config
