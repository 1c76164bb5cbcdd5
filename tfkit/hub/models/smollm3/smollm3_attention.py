"""``SmolLM3Attention``: SmolLM3's grouped-query self-attention, rotary in most layers and without position ("NoPE")
in the others, with KerasHub's sub-layers (``q_proj``, ``k_proj``, ``v_proj``, ``o_proj``, ``rotary_embedding``).

    attention = SmolLM3Attention(hidden_size=16, num_attention_heads=4, num_key_value_heads=2, attention_bias=False,
                                 attention_dropout=0.0, rope_layer_enabled_list=[True, False], layer_types=None,
                                 layer_idx=1)                                     # layer 1: no rotary embedding
    out, cache = attention(x, attention_mask=mask, cache=cache, cache_update_index=index)

The cache, the masks and the grouped attention are ``CachedGroupedQueryAttention``'s; what
differs is the layout KerasHub gives SmolLM3 (plain ``Dense`` projections whose outputs are
split into heads, an output ``EinsumDense`` and a rotary layer holding its frequencies as a
non-trainable weight, both made when the layer is, as KerasHub makes them) and the switch
that leaves a layer's queries and keys unrotated.
"""

from __future__ import annotations

import inspect
from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.layers import Dense, Dropout, EinsumDense, Softmax
from tfkit.saving import register_keras_serializable


def own_config(layer: Layer, config: dict[str, Any]) -> dict[str, Any]:
    """`config` less the arguments of `layer`'s base that its own constructor sets (so that
    `from_config(get_config())` passes each argument once).

    Args:
        layer: A hub layer whose constructor has KerasHub's signature and maps it onto its base's.
        config: Its `DeclaredConfig` config.

    Returns:
        The config with only the layer base's keys and `type(layer).__init__`'s arguments.
    """
    names = set(Layer.get_config(layer)) | set(inspect.signature(type(layer).__init__).parameters)
    return {key: value for key, value in config.items() if key in names}


@register_keras_serializable(package="keras_hub")
class SmolLM3RotaryEmbedding(Layer):
    """The rotary position embedding of SmolLM3: the cosines and sines of each position's angles.

    The inverse frequencies `1 / rope_theta ** (2i / d)` (`d` the rotated
    part of a head, `head_dim * partial_rotary_factor`) are a non-trainable
    weight `inv_freq`, made with the layer, as in KerasHub.

    Args:
        hidden_size: Integer, the model's hidden size.
        num_attention_heads: Integer, the number of query heads (the head
            size is `hidden_size // num_attention_heads`).
        max_position_embeddings: Integer, the longest sequence the model
            was trained for (kept in the config).
        rope_theta: Float, the base of the angles.
        partial_rotary_factor: Float, the share of each head that is
            rotated.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: Tensor `(batch, length, ...)`, whose length and dtype are used.
        start_index: The position of `x[:, 0]`. Defaults to `0`.

    Returns:
        `(cos, sin)`, each `(batch, length, d)` in `x`'s dtype.

    Example:
        >>> from tfkit.hub.models.smollm3.smollm3_attention import SmolLM3RotaryEmbedding
        >>> rotary = SmolLM3RotaryEmbedding(hidden_size=8, num_attention_heads=2, max_position_embeddings=16,
        ...     rope_theta=10000.0, partial_rotary_factor=1.0)
        >>> cos, sin = rotary(np.zeros((1, 3, 2, 4), "float32"))
        >>> rotary.inv_freq.numpy().tolist(), cos.shape
        ([1.0, 0.009999999776482582], TensorShape([1, 3, 4]))
    """

    def __init__(
        self,
        hidden_size: int,
        num_attention_heads: int,
        max_position_embeddings: int,
        rope_theta: float,
        partial_rotary_factor: float,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.hidden_size = hidden_size
        self.num_attention_heads = num_attention_heads
        self.max_position_embeddings = max_position_embeddings
        self.rope_theta = rope_theta
        self.partial_rotary_factor = partial_rotary_factor
        self.head_dim = hidden_size // num_attention_heads
        self.rotary_dim = int(self.head_dim * partial_rotary_factor)
        exponents = tf.range(0, self.rotary_dim, 2, dtype=tf.float32) / self.rotary_dim
        inverse = 1.0 / tf.pow(tf.constant(rope_theta, tf.float32), exponents)
        self.inv_freq = self.add_weight(
            name="inv_freq",
            shape=tuple(inverse.shape),
            dtype="float32",
            initializer=initializers.Constant(inverse.numpy()),
            trainable=False,
            autocast=False,  # the angles in float32 under any policy
        )

    def call(self, x: tf.Tensor, start_index: Any = 0) -> tuple[tf.Tensor, tf.Tensor]:
        batch, length = tf.shape(x)[0], tf.shape(x)[1]
        positions = tf.range(length, dtype=tf.float32) + tf.cast(start_index, tf.float32)
        angles = positions[:, None] * tf.cast(self.inv_freq, tf.float32)[None, :]
        angles = tf.concat([angles, angles], axis=-1)
        angles = tf.broadcast_to(angles[None], [batch, length, self.rotary_dim])
        return tf.cast(tf.cos(angles), x.dtype), tf.cast(tf.sin(angles), x.dtype)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "hidden_size": self.hidden_size,
            "num_attention_heads": self.num_attention_heads,
            "max_position_embeddings": self.max_position_embeddings,
            "rope_theta": self.rope_theta,
            "partial_rotary_factor": self.partial_rotary_factor,
        }


def rotate(x: tf.Tensor, cos: tf.Tensor, sin: tf.Tensor) -> tf.Tensor:
    """Heads `x` `(batch, length, heads, head_dim)` rotated by `cos`/`sin` `(batch, length, d)` on their first `d`
    dimensions (all of them for a `partial_rotary_factor` of 1), the rest as they are."""
    dim = cos.shape[-1]
    rotated, rest = x[..., :dim], x[..., dim:]
    half = dim // 2
    turned = tf.concat([-rotated[..., half:], rotated[..., :half]], axis=-1)
    rotated = rotated * cos[:, :, None, :] + turned * sin[:, :, None, :]
    return rotated if x.shape[-1] == dim else tf.concat([rotated, rest], axis=-1)


@register_keras_serializable(package="keras_hub")
class SmolLM3Attention(CachedGroupedQueryAttention):
    """Multi-head attention layer for SmolLM3 model.

    Grouped-query causal self-attention with a key/value cache. Layer
    `layer_idx` rotates its queries and keys (RoPE) when
    `rope_layer_enabled_list[layer_idx]` is true (or the list is shorter),
    and attends without position information otherwise ("NoPE"), as
    SmolLM3 does in every fourth layer. The projections are KerasHub's
    `Dense` layers `q_proj`, `k_proj`, `v_proj` (biases when
    `attention_bias`) and `EinsumDense` `o_proj`.

    Args:
        hidden_size: Integer, the size of the hidden states.
        num_attention_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        attention_bias: Whether the query, key and value projections have
            biases.
        attention_dropout: Float, the dropout rate of the attention outputs.
        rope_layer_enabled_list: List of booleans, whether each layer uses
            rotary embeddings.
        layer_types: List of strings, each layer's kind (kept in the config).
        layer_idx: Integer, this layer's index.
        max_position_embeddings: Integer, the longest sequence. Defaults to
            `2048`.
        rope_theta: Float, the rotary base. Defaults to `10000.0`.
        partial_rotary_factor: Float, the share of each head rotated.
            Defaults to `1.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: Tensor `(batch, length, hidden_size)`.
        attention_mask: Optional `(batch, length, key_length)` mask.
        cache: Optional `(batch, 2, max_length, num_key_value_heads, head_dim)`.
        cache_update_index: Where the new keys and values go in `cache`.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_size)`, and the updated cache when one is given.

    Example:
        >>> from tfkit.hub.models.smollm3.smollm3_attention import SmolLM3Attention
        >>> attention = SmolLM3Attention(hidden_size=8, num_attention_heads=2, num_key_value_heads=1,
        ...     attention_bias=False, attention_dropout=0.0, rope_layer_enabled_list=[False],
        ...     layer_types=["attention"], layer_idx=0)
        >>> attention(np.ones((1, 3, 8), "float32")).shape, attention.use_rope
        (TensorShape([1, 3, 8]), False)
    """

    _query_dense = StoredAs("q_proj")
    _key_dense = StoredAs("k_proj")
    _value_dense = StoredAs("v_proj")
    _output_dense = StoredAs("o_proj")
    rotary_embedding_layer = StoredAs("rotary_embedding")

    def __init__(
        self,
        hidden_size: int,
        num_attention_heads: int,
        num_key_value_heads: int,
        attention_bias: bool,
        attention_dropout: float,
        rope_layer_enabled_list: list,
        layer_types: list,
        layer_idx: int,
        max_position_embeddings: int = 2048,
        rope_theta: float = 10000.0,
        partial_rotary_factor: float = 1.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            num_query_heads=num_attention_heads,
            num_key_value_heads=num_key_value_heads,
            head_dim=hidden_size // num_attention_heads,
            rope_max_wavelength=rope_theta,
            use_bias=attention_bias,
            dropout=attention_dropout,
            **kwargs,
        )
        self.hidden_size = hidden_size
        self.num_attention_heads = num_attention_heads
        self.attention_bias = attention_bias
        self.attention_dropout = attention_dropout
        self.rope_layer_enabled_list = rope_layer_enabled_list
        self.layer_types = layer_types
        self.layer_idx = layer_idx
        self.max_position_embeddings = max_position_embeddings
        self.rope_theta = rope_theta
        self.partial_rotary_factor = partial_rotary_factor
        enabled = list(rope_layer_enabled_list or [])
        self.use_rope = bool(enabled[layer_idx]) if layer_idx < len(enabled) else True
        self._inv_norm_factor = 1.0 / float(self.head_dim) ** 0.5
        self.q_proj = self._projection("q_proj", num_attention_heads)
        self.k_proj = self._projection("k_proj", num_key_value_heads)
        self.v_proj = self._projection("v_proj", num_key_value_heads)
        # KerasHub makes and builds these two with the layer (their weights' paths are "o_proj/kernel" and
        # "rotary_emb/inv_freq", outside the block's)
        self._output_dense = EinsumDense(
            equation="bquh,uhm->bqm", output_shape=(None, hidden_size), dtype=self.dtype_policy, name="o_proj"
        )
        self._output_dense.build((None, None, num_attention_heads, self.head_dim))
        self.rotary_embedding_layer = SmolLM3RotaryEmbedding(
            hidden_size=hidden_size,
            num_attention_heads=num_attention_heads,
            max_position_embeddings=max_position_embeddings,
            rope_theta=rope_theta,
            partial_rotary_factor=partial_rotary_factor,
            dtype=self.dtype_policy,
            name="rotary_emb",
        )
        self._softmax = Softmax(axis=-1, dtype="float32", name="attention_softmax")
        self._dropout_layer = Dropout(rate=attention_dropout, dtype=self.dtype_policy)

    def build(self, inputs_shape: Any) -> None:
        for dense in (self.q_proj, self.k_proj, self.v_proj):
            dense.build(tuple(inputs_shape))

    def _projection(self, name: str, heads: int) -> Dense:
        return Dense(heads * self.head_dim, use_bias=self.attention_bias, dtype=self.dtype_policy, name=name)

    def _heads(self, dense: Dense, hidden_states: tf.Tensor, heads: int) -> tf.Tensor:
        """`dense(hidden_states)` split into `(batch, length, heads, head_dim)`."""
        shape = tf.shape(hidden_states)
        return tf.reshape(dense(hidden_states), [shape[0], shape[1], heads, self.head_dim])

    def _rotated(self, heads: tf.Tensor, start_index: Any) -> tf.Tensor:
        if not self.use_rope:
            return heads
        cos, sin = self.rotary_embedding_layer(heads, start_index=start_index)
        return rotate(heads, cos, sin)

    def _project_query(self, hidden_states: tf.Tensor, start_index: Any) -> tf.Tensor:
        return self._rotated(self._heads(self.q_proj, hidden_states, self.num_query_heads), start_index)

    def _project_all(self, hidden_states: tf.Tensor, start_index: Any) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        key = self._heads(self.k_proj, hidden_states, self.num_key_value_heads)
        value = self._heads(self.v_proj, hidden_states, self.num_key_value_heads)
        return self._project_query(hidden_states, start_index), self._rotated(key, start_index), value

    def _attend(self, query: tf.Tensor, key: tf.Tensor, value: tf.Tensor, attention_mask: Any) -> tf.Tensor:
        """The base's grouped attention, which reads the head counts from the projections' 3-D kernels: here the
        kernels are 2-D, so the counts come from the config."""
        kv_heads, heads, head_dim = self.num_key_value_heads, self.num_query_heads, self.head_dim
        batch, query_length, key_length = tf.shape(query)[0], tf.shape(query)[1], tf.shape(key)[1]
        grouped = tf.reshape(query, [batch, query_length, kv_heads, heads // kv_heads, head_dim])
        scores = tf.einsum("bqkgh,bskh->bkgqs", grouped, key)
        scores = tf.reshape(scores, [batch, heads, query_length, key_length])
        scores = self._attention_weights(scores * tf.cast(self._inv_norm_factor, self.compute_dtype), attention_mask)
        scores = tf.reshape(
            tf.cast(scores, self.compute_dtype), [batch, kv_heads, heads // kv_heads, query_length, key_length]
        )
        outputs = tf.einsum("bkgqs,bskh->bqkgh", scores, value)
        return tf.reshape(outputs, [batch, query_length, heads, head_dim])

    def get_config(self) -> dict[str, Any]:
        return own_config(self, super().get_config())
