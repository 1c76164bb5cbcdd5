"""``LlamaAttention``: grouped-query attention with rotary embeddings and a key/value cache (Llama, KerasHub's).

    attention = LlamaAttention(num_query_heads=32, num_key_value_heads=8, rope_max_wavelength=500000)
    out = attention(x, attention_mask=mask)                                  # (batch, length, hidden)
    out, cache = attention(step, attention_mask=mask, cache=cache, cache_update_index=index)

Queries have ``num_query_heads`` heads, keys and values fewer
(``num_key_value_heads``), each shared by ``num_query_heads //
num_key_value_heads`` query heads; the cache holds only the key/value heads.
Queries and keys are rotated by position (``LlamaRotaryEmbedding``) before the
dot product; the softmax is float32.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.hub.models.llama.llama_rotary_embedding import LlamaRotaryEmbedding
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class LlamaAttention(CachedGroupedQueryAttention):
    """A cached grouped-query attention layer with rotary position embeddings.

    Projects the input to queries `(num_query_heads, head_dim)` and keys and
    values `(num_key_value_heads, head_dim)` (`head_dim = hidden_dim //
    num_query_heads`, no biases), rotates queries and keys by their
    positions, shares each key/value head among its group of query heads, and
    attends with `attention_mask`. With a `cache` and `cache_update_index`,
    the new keys and values are written into the cache at that index (in
    place under XLA) and the whole cache is attended to. The weights
    (`query`, `key`, `value`, `attention_output` kernels) and their layout
    are KerasHub's.

    KerasHub's `get_config` for this layer raises (it reads an attribute it
    never sets); tfkit's returns the constructor's arguments (KerasHub's
    `rope_position_scaling_factor` is `rope_scaling_factor` here, as in the
    other families' attention).

    Args:
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads; it
            divides `num_query_heads`.
        rope_frequency_adjustment_factor: Float, Llama 3.1's frequency
            factor. Defaults to `None`.
        rope_low_freq_factor: Float, Llama 3.1's low frequency factor.
            Defaults to `None`.
        rope_high_freq_factor: Float, Llama 3.1's high frequency factor.
            Defaults to `None`.
        rope_pretraining_sequence_length: Integer, Llama 3.1's pretraining
            context length. Defaults to `None`.
        **kwargs: `CachedGroupedQueryAttention`'s other arguments
            (`rope_max_wavelength`, `rope_scaling_factor`, the position
            scaling, `kernel_initializer`, `dropout`, ...) and base layer
            keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: Tensor `(batch, length, hidden_dim)`.
        attention_mask: Optional 0/1 or boolean mask `(batch, length,
            key_length)`: which keys each query may attend to.
        cache: Optional key/value cache `(batch, 2, max_length,
            num_key_value_heads, head_dim)`.
        cache_update_index: Where `hidden_states`' keys and values go in the
            cache (the position of its first step); `None` reads the cache as
            it is.
        training: Whether dropout applies. Defaults to `None`.

    Returns:
        The attention output `(batch, length, hidden_dim)`, and the updated
        cache when one is given.

    Raises:
        ValueError: If `num_key_value_heads` does not divide
            `num_query_heads`, or `cache_update_index` comes without a cache.

    Example:
        >>> from tfkit.hub.models.llama.llama_attention import LlamaAttention
        >>> attention = LlamaAttention(num_query_heads=4, num_key_value_heads=2)
        >>> x = np.random.rand(1, 3, 8).astype("float32")
        >>> attention(x).shape
        TensorShape([1, 3, 8])
        >>> _, cache = attention(x, cache=tf.zeros((1, 2, 3, 2, 2)), cache_update_index=0)
        >>> cache.shape
        TensorShape([1, 2, 3, 2, 2])
    """

    def __init__(
        self,
        num_query_heads: int,
        num_key_value_heads: int,
        rope_frequency_adjustment_factor: float | None = None,
        rope_low_freq_factor: float | None = None,
        rope_high_freq_factor: float | None = None,
        rope_pretraining_sequence_length: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(num_query_heads, num_key_value_heads, **kwargs)
        self.rope_frequency_adjustment_factor = rope_frequency_adjustment_factor
        self.rope_low_freq_factor = rope_low_freq_factor
        self.rope_high_freq_factor = rope_high_freq_factor
        self.rope_pretraining_sequence_length = rope_pretraining_sequence_length

    def _make_rotary_embedding(self) -> LlamaRotaryEmbedding:
        return LlamaRotaryEmbedding(
            max_wavelength=self.rope_max_wavelength,
            position_scaling_factor=self.rope_scaling_factor,
            frequency_adjustment_factor=self.rope_frequency_adjustment_factor,
            low_freq_factor=self.rope_low_freq_factor,
            high_freq_factor=self.rope_high_freq_factor,
            pretraining_sequence_length=self.rope_pretraining_sequence_length,
            dtype=self.dtype_policy,
        )
