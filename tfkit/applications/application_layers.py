"""The small layers Keras's applications define for themselves: ``LayerScale``, ``StochasticDepth`` (ConvNeXt)
and ``CustomScaleLayer`` (InceptionResNetV2). Registered, so models using them save and load as data.

    y = LayerScale(1e-6, 96)(x)                    # x * gamma, one learned scale per channel
    y = StochasticDepth(0.1)(x, training=True)     # whole samples dropped (the rest scaled by 1 / 0.9)
    y = CustomScaleLayer(0.17)([x, up])            # x + up * 0.17
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit import random as tfkit_random
from tfkit.base import registry
from tfkit.engine.layer import Layer
from tfkit.layers.regularization import in_training

__all__ = ["LayerScale", "StochasticDepth", "CustomScaleLayer"]


@registry.builtin("layers")
class LayerScale(Layer):
    """Multiply the last axis by ``gamma`` (``projection_dim`` values, starting at ``init_values``)."""

    def __init__(self, init_values: float, projection_dim: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, input_shape: Any) -> None:
        if input_shape[-1] is not None and input_shape[-1] != self.projection_dim:
            raise ValueError(
                f"LayerScale layer '{self.name}' expected inputs with {self.projection_dim} channels "
                f"(projection_dim) on the last axis, got input shape {tuple(input_shape)}"
            )
        self.gamma = self.add_weight(
            name="gamma",
            shape=(self.projection_dim,),
            initializer=initializers.Constant(self.init_values),
            trainable=True,
        )

    def call(self, x: tf.Tensor) -> tf.Tensor:
        return x * tf.cast(self.gamma, x.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "init_values": self.init_values, "projection_dim": self.projection_dim}


@registry.builtin("layers")
class StochasticDepth(Layer):
    """While training, drop each sample's residual branch with probability ``drop_path_rate`` and scale the kept
    ones by ``1 / (1 - drop_path_rate)``; at inference, the identity."""

    def __init__(self, drop_path_rate: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if (
            isinstance(drop_path_rate, bool)
            or not isinstance(drop_path_rate, (int, float))
            or not 0 <= drop_path_rate < 1
        ):
            raise ValueError(
                f"StochasticDepth layer '{self.name}' expected drop_path_rate in [0, 1), got {drop_path_rate!r}"
            )
        self.drop_path_rate = drop_path_rate
        self.seed = seed
        self.seed_generator = tfkit_random.SeedGenerator(seed)

    def call(self, x: tf.Tensor, training: Any = False) -> tf.Tensor:
        if not self.drop_path_rate:
            return x

        def dropped() -> tf.Tensor:
            noise_shape = (None,) + (1,) * (len(x.shape) - 1)
            return tfkit_random.dropout(x, self.drop_path_rate, noise_shape=noise_shape, seed=self.seed_generator)

        return in_training(training, dropped, lambda: x)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "drop_path_rate": self.drop_path_rate, "seed": self.seed}


@registry.builtin("layers")
class CustomScaleLayer(Layer):
    """``inputs[0] + inputs[1] * scale``: InceptionResNetV2's scaled residual."""

    def __init__(self, scale: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, inputs: Any) -> tf.Tensor:
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(
                f"CustomScaleLayer layer '{self.name}' expected a list of two tensors [x, residual], "
                f"got {type(inputs).__name__}"
            )
        return inputs[0] + inputs[1] * self.scale

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape[0]

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "scale": self.scale}
