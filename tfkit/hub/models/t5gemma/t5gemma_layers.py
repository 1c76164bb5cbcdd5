"""T5Gemma's kernel initializer and gated feedforward network (``T5GemmaMLP``), KerasHub's names and weights.

mlp = T5GemmaMLP(hidden_size=768, intermediate_size=3072, hidden_activation="gelu_approximate",
                 dropout_rate=0.0)
y = mlp(x)          # down_proj(act(gate_proj(x)) * up_proj(x))
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.layers import Dense, Dropout


def t5gemma_kernel_initializer(initializer_range: float = 0.01) -> Any:
    """T5Gemma's initializer of kernels and embeddings: a normal of mean 0 and deviation `initializer_range`.

    Args:
        initializer_range: The standard deviation. Defaults to `0.01`.

    Returns:
        A `tfkit.initializers.RandomNormal`.

    Example:
        >>> from tfkit.hub.models.t5gemma.t5gemma_layers import t5gemma_kernel_initializer
        >>> t5gemma_kernel_initializer(0.02).get_config()["stddev"]
        0.02
    """
    return initializers.RandomNormal(mean=0.0, stddev=initializer_range)


def t5gemma_activation(name: str) -> Any:
    """The feedforward activation KerasHub's T5Gemma reads: `"gelu_approximate"` (the tanh GELU, Transformers'
    `gelu_pytorch_tanh`) or any name `tfkit.activations.get` knows."""
    if name == "gelu_approximate":
        return lambda x: activations.gelu(x, approximate=True)
    return activations.get(name)


class T5GemmaMLP(DeclaredConfig, Layer):
    """T5Gemma's gated feedforward network: `down_proj(act(gate_proj(x)) * up_proj(x))`, no biases.

    Args:
        hidden_size: Integer, the size of the inputs and outputs.
        intermediate_size: Integer, the width of the gated hidden layer.
        hidden_activation: The activation of the gate: `"gelu_approximate"`
            or an activation name.
        dropout_rate: Float, the dropout rate of the gated hidden layer.
        initializer_range: The deviation of the kernels' normal
            initializer. Defaults to `0.02`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: `(batch, length, hidden_size)`.
        training: Whether dropout applies. Defaults to `None`.

    Returns:
        `(batch, length, hidden_size)`.

    Example:
        >>> from tfkit.hub.models.t5gemma.t5gemma_layers import T5GemmaMLP
        >>> mlp = T5GemmaMLP(hidden_size=8, intermediate_size=16, hidden_activation="gelu_approximate",
        ...     dropout_rate=0.0)
        >>> mlp(np.ones((1, 3, 8), "float32")).shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self,
        hidden_size: int,
        intermediate_size: int,
        hidden_activation: str,
        dropout_rate: float,
        initializer_range: float = 0.02,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.hidden_activation = hidden_activation
        self.dropout_rate = dropout_rate
        self.initializer_range = initializer_range
        self.kernel_initializer = t5gemma_kernel_initializer(initializer_range)
        for name, units in (("gate_proj", intermediate_size), ("up_proj", intermediate_size)):
            setattr(self, name, self._dense(units, name))
        self.down_proj = self._dense(hidden_size, "down_proj")
        self.act_fn = t5gemma_activation(hidden_activation)
        self.dropout = Dropout(dropout_rate, dtype=self.dtype_policy, name="mlp_dropout")

    def _dense(self, units: int, name: str) -> Dense:
        initializer = clone_initializer(self.kernel_initializer)
        return Dense(units, use_bias=False, kernel_initializer=initializer, dtype=self.dtype_policy, name=name)

    def build(self, input_shape: Any) -> None:
        self.gate_proj.build(input_shape)
        self.up_proj.build(input_shape)
        self.down_proj.build((*tuple(input_shape)[:-1], self.intermediate_size))

    def call(self, x: tf.Tensor, training: Any = None) -> tf.Tensor:
        hidden = self.act_fn(self.gate_proj(x)) * self.up_proj(x)
        return self.down_proj(self.dropout(hidden, training=training))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape
