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
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers.regularization import (
    Dropout,
    _check_fraction,
    _check_seed,
    in_training,
)

__all__ = ["GaussianDropout", "AlphaDropout", "SpatialDropout3D"]

# SELU's constants: AlphaDropout keeps a SELU network's mean and variance.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@registry.builtin("layers")
class GaussianDropout(Layer):
    """Multiply by normal noise of mean 1 and standard deviation ``sqrt(rate / (1 - rate))`` while training."""

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
            return inputs * tfkit_random.normal(tf.shape(inputs), mean=1.0, stddev=stddev, dtype=inputs.dtype,
                                                seed=self.seed_generator)

        return in_training(training, noisy, lambda: inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "rate": self.rate, "seed": self.seed}


@registry.builtin("layers")
class AlphaDropout(Layer):
    """Dropout for SELU networks: dropped units take SELU's saturation value, then an affine fix-up."""

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
        a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
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
    """Drop whole feature maps of a 5-D volume batch (one decision per sample and channel)."""

    def __init__(self, rate: float, data_format: str | None = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(rate, seed=seed, **kwargs)
        data_format = data_format or "channels_last"
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                f"SpatialDropout3D layer '{self.name}' expected data_format 'channels_last' or "
                f"'channels_first', got {data_format!r}"
            )
        self.data_format = data_format
        self.input_spec = InputSpec(ndim=5)

    def _noise_shape(self, inputs: tf.Tensor) -> Any:
        return (None, 1, 1, 1, None) if self.data_format == "channels_last" else (None, None, 1, 1, 1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("noise_shape")
        config["data_format"] = self.data_format
        return config
