"""``MaskedLMHead``: vocabulary logits for the masked positions of an encoder's output (BERT's pretraining head).

    head = MaskedLMHead(token_embedding=backbone_token_embedding, activation="softmax")
    probabilities = head(encoded, mask_positions)     # (batch, masks_per_sequence, vocabulary_size)

The encodings at ``mask_positions`` are gathered, passed through a dense layer
and a layer norm, and projected to the vocabulary by the (tied) token embedding
or by the head's own ``output_kernel``, plus ``output_bias``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, initializers
from tfkit import layers as core_layers
from tfkit.engine.layer import Layer
from tfkit.layers import Dense, LayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MaskedLMHead(Layer):
    """Masked Language Model (MaskedLM) head.

    Takes the encoded tokens `(batch_size, sequence_length, hidden_dim)` and
    the integer positions to predict `(batch_size, masks_per_sequence)`,
    gathers the encodings there, transforms them (dense layer
    `_intermediate_dense` with `intermediate_activation`, then layer norm
    `_intermediate_layer_norm`) and projects them to `vocabulary_size` logits,
    with the reverse of `token_embedding` when one is given (the tied weights
    of Press and Wolf, 2016) or the head's own `output_kernel`; then adds
    `output_bias` and applies `activation`. Pair it with
    `MaskedLMMaskGenerator`.

    Args:
        vocabulary_size: Integer, the size of the vocabulary. Optional when
            `token_embedding` is given (its `input_dim`).
        token_embedding: Optional `ReversibleEmbedding` whose reverse
            projection gives the logits.
        intermediate_activation: Activation of the intermediate dense layer.
            Defaults to `"relu"`.
        activation: Activation of the outputs: `None` (the default) for
            logits, or `"softmax"` for probabilities.
        layer_norm_epsilon: Float, the layer norm's epsilon. Defaults to
            `1e-05`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Defaults to `"zeros"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Encoded tokens `(batch_size, sequence_length, hidden_dim)`.
        mask_positions: Integer positions `(batch_size, masks_per_sequence)`.

    Returns:
        `(batch_size, masks_per_sequence, vocabulary_size)` logits (or
        `activation` of them).

    Raises:
        ValueError: If neither `vocabulary_size` nor `token_embedding` is
            given, or they disagree.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> embedding = keras_hub.layers.ReversibleEmbedding(100, 8)
        >>> hidden = embedding(np.random.randint(100, size=(2, 10)))
        >>> head = keras_hub.layers.MaskedLMHead(token_embedding=embedding, activation="softmax")
        >>> probabilities = head(hidden, np.array([[1, 4], [0, 9]]))
        >>> probabilities.shape, bool(np.allclose(np.sum(probabilities, axis=-1), 1.0, atol=1e-5))
        (TensorShape([2, 2, 100]), True)
    """

    def __init__(
        self,
        vocabulary_size: int | None = None,
        token_embedding: Any = None,
        intermediate_activation: Any = "relu",
        activation: Any = None,
        layer_norm_epsilon: float = 1e-05,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs, autocast=False)
        who = f"MaskedLMHead layer '{self.name}'"
        self.vocabulary_size = vocabulary_size
        self.token_embedding = token_embedding
        self.intermediate_activation = activations.get(intermediate_activation)
        self.activation = activations.get(activation)
        self.layer_norm_epsilon = layer_norm_epsilon
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        if vocabulary_size is None and token_embedding is None:
            raise ValueError(f"{who}: one of `vocabulary_size` or `token_embedding` must be set; both are None")
        if token_embedding is not None:
            if vocabulary_size and vocabulary_size != token_embedding.input_dim:
                raise ValueError(
                    f"{who}: `vocabulary_size` should match the input dimension of `token_embedding`. Received: "
                    f"vocabulary_size={vocabulary_size}, token_embedding.input_dim={token_embedding.input_dim}"
                )
            self.vocabulary_size = token_embedding.input_dim

    def build(self, inputs_shape: Any, mask_positions_shape: Any = None) -> None:
        inputs_shape = tuple(inputs_shape)
        feature_size = self.token_embedding.output_dim if self.token_embedding is not None else inputs_shape[-1]
        self._intermediate_dense = Dense(
            feature_size,
            activation=self.intermediate_activation,
            kernel_initializer=self.kernel_initializer,
            bias_initializer=self.bias_initializer,
            dtype=self.dtype_policy,
            name="intermediate_dense",
        )
        self._intermediate_layer_norm = LayerNormalization(
            epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name="intermediate_layer_norm"
        )
        self._intermediate_dense.build((inputs_shape[0], None, inputs_shape[-1]))
        self._intermediate_layer_norm.build((inputs_shape[0], None, feature_size))
        if self.token_embedding is None:
            self._kernel = self.add_weight(
                name="output_kernel",
                shape=[feature_size, self.vocabulary_size],
                initializer=self.kernel_initializer,
                dtype=self.dtype,
            )
        self._bias = self.add_weight(
            name="output_bias", shape=[self.vocabulary_size], initializer=self.bias_initializer, dtype=self.dtype
        )

    def call(self, inputs: tf.Tensor, mask_positions: Any) -> tf.Tensor:
        inputs = tf.convert_to_tensor(inputs)
        x = tf.gather(inputs, tf.convert_to_tensor(mask_positions), axis=1, batch_dims=1)
        x = self._intermediate_dense(x)
        x = self._intermediate_layer_norm(x)
        if self.token_embedding is not None:
            outputs = self.token_embedding(x, reverse=True)
        else:
            kernel = tf.convert_to_tensor(self._kernel)
            dtype = x.dtype if x.dtype == kernel.dtype else tf.float32  # Keras's result type of the two
            outputs = tf.matmul(tf.cast(x, dtype), tf.cast(kernel, dtype))
        outputs = tf.cast(outputs, self.compute_dtype)
        outputs = outputs + tf.cast(self._bias, self.compute_dtype)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "MaskedLMHead":
        config = dict(config)
        embedding = config.get("token_embedding")
        if isinstance(embedding, dict):
            config["token_embedding"] = core_layers.deserialize(embedding)
        return super().from_config(config)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            vocabulary_size=self.vocabulary_size,
            token_embedding=core_layers.serialize(self.token_embedding) if self.token_embedding is not None else None,
            intermediate_activation=activations.serialize(self.intermediate_activation),
            activation=activations.serialize(self.activation),
            layer_norm_epsilon=self.layer_norm_epsilon,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
        )
        return config

    def compute_output_shape(self, inputs_shape: Any, mask_positions_shape: Any) -> tuple:
        return tuple(mask_positions_shape) + (self.vocabulary_size,)
