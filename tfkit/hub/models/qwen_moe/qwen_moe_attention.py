"""``QwenMoeAttention``: Qwen MoE's rotary grouped-query attention with biases, its projections under KerasHub's names."""

from __future__ import annotations

from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class QwenMoeAttention(CachedGroupedQueryAttention):
    """A multi-head attention layer for Qwen MoE (query, key and value biases; an optional two-sided window).

    The computation is `CachedGroupedQueryAttention`'s; KerasHub's Qwen MoE
    layer names its query, key and value projections without the leading
    underscore (`query_dense`, `key_dense`, `value_dense`), and Keras's
    weight files key them by those names, so this layer keeps them there.

    Args:
        *args: `CachedGroupedQueryAttention`'s positional arguments
            (`num_query_heads`, `num_key_value_heads`).
        **kwargs: `CachedGroupedQueryAttention`'s keyword arguments (such as
            `use_bias` and `attention_window`) and base layer keyword
            arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.qwen_moe.qwen_moe_attention import QwenMoeAttention
        >>> attention = QwenMoeAttention(num_query_heads=4, num_key_value_heads=2, use_bias=True)
        >>> attention(np.ones((1, 3, 8), "float32")).shape, attention.query_dense.name
        (TensorShape([1, 3, 8]), 'query')
    """

    _query_dense = StoredAs("query_dense")
    _key_dense = StoredAs("key_dense")
    _value_dense = StoredAs("value_dense")
