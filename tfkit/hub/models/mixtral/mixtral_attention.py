"""``CachedMixtralAttention``: Mixtral's rotary grouped-query attention, its sub-layers under KerasHub's names."""

from __future__ import annotations

from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class CachedMixtralAttention(CachedGroupedQueryAttention):
    """A cached grouped-query attention layer for Mixtral (the sliding window is applied by its block's mask).

    The computation is `CachedGroupedQueryAttention`'s; KerasHub's Mixtral
    layer names its sub-layers without the leading underscore
    (`query_dense`, `key_dense`, `value_dense`, `output_dense`, `softmax`,
    `dropout_layer`), and Keras's weight files key them by those names, so
    this layer keeps them under those names.

    Args:
        *args: `CachedGroupedQueryAttention`'s positional arguments
            (`num_query_heads`, `num_key_value_heads`).
        **kwargs: `CachedGroupedQueryAttention`'s keyword arguments and base
            layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.mixtral.mixtral_attention import CachedMixtralAttention
        >>> attention = CachedMixtralAttention(num_query_heads=4, num_key_value_heads=2)
        >>> attention(np.ones((1, 3, 8), "float32")).shape, attention.query_dense.name
        (TensorShape([1, 3, 8]), 'query')
    """

    _query_dense = StoredAs("query_dense")
    _key_dense = StoredAs("key_dense")
    _value_dense = StoredAs("value_dense")
    _output_dense = StoredAs("output_dense")
    _softmax = StoredAs("softmax")
    _dropout_layer = StoredAs("dropout_layer")
