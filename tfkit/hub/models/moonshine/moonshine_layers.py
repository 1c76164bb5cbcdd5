"""Moonshine's small layers: its partial, interleaved rotary embedding (``MoonshineRotaryEmbedding``) and its
feedforward network (``MoonshineMLP``, GELU or SwiGLU).

    rotary = MoonshineRotaryEmbedding(head_dim=64)        # the first 62% of each head's features rotate
    frequencies = rotary(tf.range(10))                    # (10, rotary_dim): each frequency twice, side by side
    queries = apply_rotary_pos_emb(queries, frequencies)  # (batch, 10, heads, head_dim)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers, layers
from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.saving import register_keras_serializable


def moonshine_kernel_initializer(initializer_range: float = 0.02) -> Any:
    """Moonshine's initializer of kernels and embeddings: a truncated normal."""
    return initializers.TruncatedNormal(stddev=initializer_range)


def _rotate_pairs(x: tf.Tensor) -> tf.Tensor:
    """Each adjacent pair `(a, b)` of the last axis becomes `(-b, a)`."""
    pairs = tf.reshape(x, tf.concat([tf.shape(x)[:-1], [-1, 2]], axis=0))
    rotated = tf.stack([-pairs[..., 1], pairs[..., 0]], axis=-1)
    return tf.reshape(rotated, tf.shape(x))


def apply_rotary_pos_emb(t: tf.Tensor, freqs: tf.Tensor) -> tf.Tensor:
    """Rotates the first `rotary_dim` features of `t` `(batch, length, heads, head_dim)` by the first `length`
    rows of `freqs` `(positions, rotary_dim)`; the other features pass unchanged."""
    rotary_dim = tf.shape(freqs)[-1]
    length = tf.shape(t)[1]
    angles = tf.reshape(freqs[:length], [1, length, 1, rotary_dim])
    rotating, passing = t[..., :rotary_dim], t[..., rotary_dim:]
    rotated = rotating * tf.cos(angles) + _rotate_pairs(rotating) * tf.sin(angles)
    return tf.cast(tf.concat([rotated, passing], axis=-1), t.dtype)


@register_keras_serializable(package="keras_hub")
class MoonshineRotaryEmbedding(RotaryEmbedding):
    """Moonshine rotary embedding layer: the rotation angles of positions, for a fraction of each head.

    The inverse frequencies are a non-trainable weight (`inv_freq`); called
    on positions `(length,)`, the layer returns the angles
    `(length, rotary_dim)`, each frequency twice side by side (the pairs
    `apply_rotary_pos_emb` rotates). `rotary_dim` is
    `head_dim * partial_rotary_factor`, rounded down to an even number.

    Args:
        head_dim: int. The size of each attention head.
        max_position_embeddings: int. The longest sequence. Defaults to `2048`.
        base_value: float. The base of the inverse frequencies. Defaults to
            `10000`.
        partial_rotary_factor: float. The fraction of each head's features
            that rotate. Defaults to `0.62`.
        dtype: The dtype policy. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name`.

    Raises:
        ValueError: On build, if `rotary_dim` is not positive.

    Example:
        >>> from tfkit.hub.models.moonshine.moonshine_layers import MoonshineRotaryEmbedding
        >>> MoonshineRotaryEmbedding(head_dim=8)(tf.range(3)).shape
        TensorShape([3, 4])
    """

    def __init__(
        self,
        head_dim: int,
        max_position_embeddings: int = 2048,
        base_value: float = 10000,
        partial_rotary_factor: float = 0.62,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(dtype=dtype, **kwargs)
        self.head_dim = head_dim
        self.max_position_embeddings = max_position_embeddings
        self.base_value = base_value
        self.partial_rotary_factor = partial_rotary_factor
        self.rotary_dim = None
        self.built = False  # RotaryEmbedding has no weights; this layer's inverse frequencies are one

    def build(self, input_shape: Any = None) -> None:
        rotary_dim = int(self.head_dim * self.partial_rotary_factor) // 2 * 2
        if rotary_dim <= 0:
            raise ValueError(
                f"MoonshineRotaryEmbedding layer '{self.name}': calculated rotary_dim ({rotary_dim}) must be a "
                f"positive even number. Check head_dim ({self.head_dim}) and partial_rotary_factor "
                f"({self.partial_rotary_factor})."
            )
        self.rotary_dim = rotary_dim
        half = rotary_dim // 2
        inverse = 1.0 / self.base_value ** (tf.range(0, half, dtype=tf.float32) / half)
        self.inv_freq = self.add_weight(
            name="inv_freq",
            shape=(half,),
            initializer=initializers.Constant(inverse.numpy()),
            trainable=False,
            dtype=self.variable_dtype,
        )
        self.built = True

    def call(self, t: Any) -> tf.Tensor:
        freqs = tf.einsum("i,j->ij", tf.cast(t, self.inv_freq.dtype), tf.convert_to_tensor(self.inv_freq))
        return tf.reshape(tf.stack((freqs, freqs), axis=-1), [tf.shape(freqs)[0], -1])

    def compute_output_shape(self, input_shape: Any) -> tuple:
        rotary_dim = int(self.head_dim * self.partial_rotary_factor) // 2 * 2
        return (input_shape[0], rotary_dim)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            head_dim=self.head_dim,
            max_position_embeddings=self.max_position_embeddings,
            base_value=self.base_value,
            partial_rotary_factor=self.partial_rotary_factor,
        )
        return config


@register_keras_serializable(package="keras_hub")
class MoonshineMLP(layers.Layer):
    """Moonshine's feedforward network: `dense_1`, GELU (or a SwiGLU gate), `dense_2`.

    With `use_swiglu_activation`, `dense_1` gives twice the width and its
    second half, through SiLU, gates the first.

    Args:
        hidden_dim: int. The size of the inputs and outputs.
        feedforward_expansion_factor: float. The hidden width is
            `hidden_dim * feedforward_expansion_factor`.
        use_swiglu_activation: bool. SwiGLU (`True`, the default) or GELU.
        initializer_range: float. The kernels' initializer's standard
            deviation. Defaults to `0.02`.
        dtype: The dtype policy. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name`.

    Example:
        >>> from tfkit.hub.models.moonshine.moonshine_layers import MoonshineMLP
        >>> MoonshineMLP(hidden_dim=8, feedforward_expansion_factor=2)(np.ones((1, 3, 8), "float32")).shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self,
        hidden_dim: int,
        feedforward_expansion_factor: float,
        use_swiglu_activation: bool = True,
        initializer_range: float = 0.02,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(dtype=dtype, **kwargs)
        self.hidden_dim = hidden_dim
        self.feedforward_expansion_factor = feedforward_expansion_factor
        self.use_swiglu_activation = use_swiglu_activation
        self.initializer_range = initializer_range
        self.kernel_initializer = moonshine_kernel_initializer(initializer_range)
        width = int(hidden_dim * feedforward_expansion_factor * (2 if use_swiglu_activation else 1))
        self.dense_1 = layers.Dense(
            width,
            name="dense_1",
            dtype=self.dtype_policy,
            kernel_initializer=clone_initializer(self.kernel_initializer),
        )
        self.activation = layers.Activation(
            "silu" if use_swiglu_activation else "gelu", name="activation", dtype=self.dtype_policy
        )
        self.dense_2 = layers.Dense(
            hidden_dim,
            name="dense_2",
            dtype=self.dtype_policy,
            kernel_initializer=clone_initializer(self.kernel_initializer),
        )

    def build(self, input_shape: Any) -> None:
        self.dense_1.build(input_shape)
        self.dense_2.build(tuple(input_shape[:-1]) + (int(self.hidden_dim * self.feedforward_expansion_factor),))
        self.built = True

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        x = self.dense_1(inputs)
        if self.use_swiglu_activation:
            x, gate = tf.split(x, 2, axis=-1)
            x = x * self.activation(gate)
        else:
            x = self.activation(x)
        return self.dense_2(x)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            hidden_dim=self.hidden_dim,
            feedforward_expansion_factor=self.feedforward_expansion_factor,
            use_swiglu_activation=self.use_swiglu_activation,
            initializer_range=self.initializer_range,
        )
        return config
