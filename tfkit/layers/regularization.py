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
    """Zero entries with probability ``rate`` while training; scale the rest by ``1 / (1 - rate)``.

    ``noise_shape`` (one entry per input axis, ``None`` for "the input's
    size") shares a keep/drop decision along its size-1 axes.
    """

    def __init__(self, rate: float, noise_shape: Sequence[int | None] | None = None, seed: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"{type(self).__name__} layer '{self.name}'"
        self.rate = _check_fraction(rate, "rate", who)
        _check_seed(seed, who)
        if noise_shape is not None:
            if isinstance(noise_shape, str) or not isinstance(noise_shape, (tuple, list)) or not all(
                d is None or isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in noise_shape
            ):
                raise ValueError(
                    f"{who} expected noise_shape to be a tuple of positive ints or None entries, got {noise_shape!r}"
                )
            noise_shape = tuple(noise_shape)
        self.noise_shape = noise_shape
        self.seed = seed
        self.seed_generator = tfkit_random.SeedGenerator(seed)
        self.supports_masking = True

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
            return tfkit_random.dropout(inputs, self.rate, noise_shape=self._noise_shape(inputs),
                                        seed=self.seed_generator)

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
    """Drop whole channels of a ``(batch, steps, channels)`` input (one decision per sample and channel)."""

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
    """Drop whole feature maps of a 4-D image batch (one decision per sample and channel)."""

    def __init__(self, rate: float, data_format: str | None = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(rate, seed=seed, **kwargs)
        data_format = data_format or "channels_last"
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                f"SpatialDropout2D layer '{self.name}' expected data_format 'channels_last' or "
                f"'channels_first', got {data_format!r}"
            )
        self.data_format = data_format
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
    """Add zero-mean normal noise of standard deviation ``stddev`` while training."""

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
            noise = tfkit_random.normal(tf.shape(inputs), mean=0.0, stddev=self.stddev, dtype=inputs.dtype,
                                        seed=self.seed_generator)
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
    """Pass the inputs through and add ``(l1 * sum|x| + l2 * sum x**2) / batch_size`` to ``losses``."""

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
