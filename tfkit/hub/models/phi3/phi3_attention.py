"""``Phi3Attention``: Phi-3's grouped-query self-attention (plain or long-rope rotary embedding, a key/value cache).

    attention = Phi3Attention(num_query_heads=32, num_key_value_heads=32, rope_scaling_type="su",
                              rope_scaling_short_factor=short, rope_scaling_long_factor=long)
    out, cache = attention(x, attention_mask=mask, cache=cache, cache_update_index=index)

The attention is the Llama line's (``CachedGroupedQueryAttention``); Phi-3 differs in
its rotary embedding (``Phi3SuScaledRotaryEmbedding`` when ``rope_scaling_type="su"``)
and in KerasHub's public sub-layer names (``query_dense``, ``output_dense``, ...), which
key its weights in Keras's files.
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.engine.layer import Layer
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.hub.models.phi3.phi3_rotary_embedding import Phi3SuScaledRotaryEmbedding
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Phi3Attention(CachedGroupedQueryAttention):
    """A cached grouped-query attention layer for Phi-3.

    Queries have `num_query_heads` heads of `hidden_dim // num_query_heads`
    features, keys and values `num_key_value_heads`; no biases. Queries and
    keys are rotated by position: plain RoPE, or with
    `rope_scaling_type="su"` Phi-3's long-context scaling (per-frequency short
    and long factors, `Phi3SuScaledRotaryEmbedding`). With a `cache` and
    `cache_update_index`, the step's keys and values are written into the
    cache at that index and the whole cache is attended to. The sub-layers
    and weights are KerasHub's (`query_dense` "query", `key_dense`,
    `value_dense`, `output_dense` "attention_output", `softmax`,
    `dropout_layer`, `rotary_embedding_layer`).

    Args:
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads; it
            divides `num_query_heads`.
        max_sequence_length: Integer, the longest sequence the model is used
            with (the long-rope scale). Defaults to `4096`.
        pretraining_sequence_length: Integer, the length the model was
            pretrained with. Defaults to `4096`.
        rope_scaling_type: `None` (plain RoPE) or `"su"`. Defaults to `None`.
        rope_scaling_short_factor: With `"su"`, the `head_dim // 2` factors
            used within the pretraining length. Defaults to `None`.
        rope_scaling_long_factor: With `"su"`, the `head_dim // 2` factors
            used past it. Defaults to `None`.
        **kwargs: `CachedGroupedQueryAttention`'s other arguments
            (`rope_max_wavelength`, `kernel_initializer`, `dropout`, ...) and
            base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: Tensor `(batch, length, hidden_dim)`.
        attention_mask: Optional `(batch, length, key_length)` mask.
        cache: Optional `(batch, 2, max_length, num_key_value_heads,
            head_dim)` key/value cache.
        cache_update_index: Where the new keys and values go in `cache`.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Raises:
        ValueError: If `rope_scaling_type` is neither `None` nor `"su"`, or a
            factor list is not `head_dim // 2` long (when built).

    Example:
        >>> from tfkit.hub.models.phi3.phi3_attention import Phi3Attention
        >>> attention = Phi3Attention(num_query_heads=2, num_key_value_heads=1, rope_scaling_type="su",
        ...     rope_scaling_short_factor=[1.0, 1.0], rope_scaling_long_factor=[2.0, 4.0],
        ...     max_sequence_length=16, pretraining_sequence_length=4)
        >>> attention(np.ones((1, 6, 8), "float32")).shape
        TensorShape([1, 6, 8])
        >>> type(attention.rotary_embedding_layer).__name__
        'Phi3SuScaledRotaryEmbedding'
    """

    _query_dense = StoredAs("query_dense")
    _key_dense = StoredAs("key_dense")
    _value_dense = StoredAs("value_dense")
    _output_dense = StoredAs("output_dense")
    _softmax = StoredAs("softmax")
    _dropout_layer = StoredAs("dropout_layer")

    def __init__(
        self,
        num_query_heads: int,
        num_key_value_heads: int,
        max_sequence_length: int = 4096,
        pretraining_sequence_length: int = 4096,
        rope_scaling_type: str | None = None,
        rope_scaling_short_factor: Sequence[float] | None = None,
        rope_scaling_long_factor: Sequence[float] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(num_query_heads, num_key_value_heads, **kwargs)
        if rope_scaling_type not in (None, "su"):
            raise ValueError(
                f"Phi3Attention layer '{self.name}': rope_scaling_type must be None (plain rotary embedding) or "
                f'"su" (Phi-3\'s long-context scaling), got {rope_scaling_type!r}'
            )
        self.max_sequence_length = max_sequence_length
        self.pretraining_sequence_length = pretraining_sequence_length
        self.rope_scaling_type = rope_scaling_type
        self.rope_scaling_short_factor = rope_scaling_short_factor
        self.rope_scaling_long_factor = rope_scaling_long_factor

    def _make_rotary_embedding(self) -> Layer:
        if self.rope_scaling_type is None:
            return RotaryEmbedding(max_wavelength=self.rope_max_wavelength, dtype=self.dtype_policy)
        for label, factors in (
            ("rope_scaling_short_factor", self.rope_scaling_short_factor),
            ("rope_scaling_long_factor", self.rope_scaling_long_factor),
        ):
            if factors is None or len(factors) != self.head_dim // 2:
                raise ValueError(
                    f"Phi3Attention layer '{self.name}': `{label}` must be a list of hidden_dim // num_query_heads "
                    f"// 2 = {self.head_dim // 2} factors (one a rotary frequency), got {factors!r}"
                )
        return Phi3SuScaledRotaryEmbedding(
            inverese_freq_short_factor=self.rope_scaling_short_factor,
            inverese_freq_long_factor=self.rope_scaling_long_factor,
            max_sequence_length=self.max_sequence_length,
            pretraining_sequence_length=self.pretraining_sequence_length,
            max_wavelength=self.rope_max_wavelength,
            dtype=self.dtype_policy,
        )
