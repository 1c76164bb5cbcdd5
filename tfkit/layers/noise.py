"""More training-only noise: ``GaussianDropout``, ``AlphaDropout``, ``SpatialDropout3D``.

noisy = tfkit.layers.GaussianDropout(0.2, seed=1)
y = noisy(x, training=True)     # x times N(1, sqrt(0.2 / 0.8)) noise
y = noisy(x)                    # inference: x unchanged
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import random as tfkit_random
from tfkit.base import registry
from tfkit.base.data_format import standardize_data_format
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers.regularization import Dropout, _check_fraction, _check_seed, in_training

__all__ = ["GaussianDropout", "AlphaDropout", "SpatialDropout3D"]

# SELU's constants: AlphaDropout keeps a SELU network's mean and variance.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@registry.builtin("layers")
class GaussianDropout(Layer):
    """Apply multiplicative 1-centered Gaussian noise.

    While training, the inputs are multiplied by normal noise of mean 1 and
    standard deviation `sqrt(rate / (1 - rate))`. As a regularization layer,
    it is only active during training; a `rate` of 0 or 1 leaves the inputs
    unchanged.

    Args:
        rate: Float between 0 and 1, the drop probability (as with
            `Dropout`).
        seed: Optional int, the seed of the layer's own random generator, for
            reproducible noise. Defaults to `None`.
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
        ValueError: If `rate` is not a number in `[0, 1]` or `seed` is not an
            int or `None`.

    Example:
        >>> layer = tfkit.layers.GaussianDropout(0.2, seed=1)
        >>> x = np.ones((2, 3), dtype="float32")
        >>> layer(x, training=True).shape
        TensorShape([2, 3])
        >>> layer(x).numpy()  # inference: unchanged
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """

    def __init__(self, rate: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"GaussianDropout layer '{self.name}'"
        self.rate = _check_fraction(rate, "rate", who)
        _check_seed(seed, who)
        self.seed = seed
        self.seed_generator = tfkit_random.SeedGenerator(seed)
        self.supports_masking = True

    def call(self, inputs: tf.Tensor, training: Any = False) -> tf.Tensor:
        if not 0 < self.rate < 1:
            return inputs
        stddev = (self.rate / (1.0 - self.rate)) ** 0.5

        def noisy() -> tf.Tensor:
            return inputs * tfkit_random.normal(
                tf.shape(inputs), mean=1.0, stddev=stddev, dtype=inputs.dtype, seed=self.seed_generator
            )

        return in_training(training, noisy, lambda: inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "rate": self.rate, "seed": self.seed}


@registry.builtin("layers")
class AlphaDropout(Layer):
    """Applies Alpha Dropout to the input.

    Alpha Dropout is a dropout that keeps the mean and variance of the inputs
    at their original values, to ensure the self-normalizing property even
    after this dropout; it fits networks using the SELU activation. Dropped
    units take SELU's negative saturation value `-alpha * scale`, then an
    affine transformation `a * x + b` restores the mean and variance. It is
    only active during training; a `rate` of 0 or 1 leaves the inputs
    unchanged.

    Args:
        rate: Float between 0 and 1, the drop probability. The multiplicative
            noise has standard deviation `sqrt(rate / (1 - rate))`.
        noise_shape: Optional tuple of ints (or `None` entries), one per input
            axis: the shape of the random keep/drop mask; `None` entries take
            the input's size. Defaults to `None` (the input's shape).
        seed: Optional int, the seed of the layer's own random generator, for
            reproducible noise. Defaults to `None`.
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
        ValueError: If `rate` is not a number in `[0, 1]` or `seed` is not an
            int or `None`.

    Example:
        >>> layer = tfkit.layers.AlphaDropout(0.2, seed=1)
        >>> x = np.ones((2, 3), dtype="float32")
        >>> layer(x, training=True).shape
        TensorShape([2, 3])
        >>> layer(x).numpy()  # inference: unchanged
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """

    def __init__(self, rate: float, noise_shape: Any = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"AlphaDropout layer '{self.name}'"
        self.rate = _check_fraction(rate, "rate", who)
        _check_seed(seed, who)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        self.seed = seed
        self.seed_generator = tfkit_random.SeedGenerator(seed)
        self.supports_masking = True

    def call(self, inputs: tf.Tensor, training: Any = False) -> tf.Tensor:
        if not 0 < self.rate < 1:
            return inputs
        rate = self.rate
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        a = ((1 - rate) * (1 + rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * rate

        def dropped() -> tf.Tensor:
            shape = tf.shape(inputs)
            if self.noise_shape is not None:
                shape = tf.stack([shape[i] if d is None else d for i, d in enumerate(self.noise_shape)])
            uniform = tfkit_random.uniform(shape, dtype=inputs.dtype, seed=self.seed_generator)
            kept = tf.cast(uniform >= rate, inputs.dtype)
            return a * (inputs * kept + (1 - kept) * alpha_p) + b

        return in_training(training, dropped, lambda: inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        noise_shape = list(self.noise_shape) if self.noise_shape is not None else None
        return {**Layer.get_config(self), "rate": self.rate, "noise_shape": noise_shape, "seed": self.seed}


@registry.builtin("layers")
class SpatialDropout3D(Dropout):
    """Spatial 3D version of Dropout.

    Like `Dropout`, but it drops entire 3D feature maps (channels) instead of
    individual elements: one keep/drop decision per sample and channel,
    shared by every voxel. When adjacent voxels are strongly correlated (as
    in early convolution layers), regular dropout does not regularize well;
    `SpatialDropout3D` promotes independence between feature maps instead.
    It acts only when `training` is true.

    Args:
        rate: Float between 0 and 1, the fraction of the channels to drop.
        data_format: `"channels_last"` (inputs `(batch, dim1, dim2, dim3,
            channels)`) or `"channels_first"` (inputs `(batch, channels, dim1,
            dim2, dim3)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        seed: Optional int, the seed of the layer's own random generator, for
            reproducible noise. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 5D tensor.
        training: Python boolean or boolean tensor: whether the layer should
            behave in training mode (dropping channels) or in inference mode
            (returning the inputs unchanged). Defaults to `False`.

    Input shape:
        5D tensor with shape `(samples, channels, dim1, dim2, dim3)` if
        `data_format="channels_first"`, or `(samples, dim1, dim2, dim3,
        channels)` if `data_format="channels_last"`.

    Output shape:
        Same as the input.

    Raises:
        ValueError: If `rate` is not a number in `[0, 1]`, `seed` is not an
            int or `None`, or `data_format` is not one of the two formats; on
            call, if the input is not 5D.

    Example:
        >>> layer = tfkit.layers.SpatialDropout3D(0.5, seed=1)
        >>> y = layer(np.ones((2, 2, 2, 2, 4), dtype="float32"), training=True).numpy()
        >>> y.shape
        (2, 2, 2, 2, 4)
        >>> bool((y == y[:, :1, :1, :1, :]).all())  # each feature map is kept or dropped whole
        True
    """

    def __init__(self, rate: float, data_format: str | None = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(rate, seed=seed, **kwargs)
        self.data_format = standardize_data_format(data_format, f"SpatialDropout3D layer '{self.name}'")
        self.input_spec = InputSpec(ndim=5)

    def _noise_shape(self, inputs: tf.Tensor) -> Any:
        return (None, 1, 1, 1, None) if self.data_format == "channels_last" else (None, None, 1, 1, 1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("noise_shape")
        config["data_format"] = self.data_format
        return config
