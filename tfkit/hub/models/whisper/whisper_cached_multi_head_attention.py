"""``WhisperCachedMultiHeadAttention``: ``CachedMultiHeadAttention`` whose key projection has no bias, as Whisper's.

attention = WhisperCachedMultiHeadAttention(num_heads=2, key_dim=4)
out = attention(x, x)      # query, value and output projections biased; key unbiased
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.hub.layers.cached_multi_head_attention import CachedMultiHeadAttention
from tfkit.layers import EinsumDense
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class WhisperCachedMultiHeadAttention(CachedMultiHeadAttention):
    """Whisper's multi-head attention with a key/value cache: `CachedMultiHeadAttention` without a key bias.

    OpenAI's Whisper projects keys without a bias and queries, values and
    the output with one; the weights (`query`, `key`, `value`,
    `attention_output`) and config are otherwise `CachedMultiHeadAttention`'s.

    Args:
        num_heads: Number of attention heads.
        key_dim: Size of each attention head for query and key.
        **kwargs: `CachedMultiHeadAttention`'s other arguments, such as
            `value_dim`, `dropout`, `kernel_initializer`, `name`.

    Example:
        >>> from tfkit.hub.models.whisper.whisper_cached_multi_head_attention import WhisperCachedMultiHeadAttention
        >>> attention = WhisperCachedMultiHeadAttention(num_heads=2, key_dim=4)
        >>> x = np.ones((1, 3, 8), "float32")
        >>> attention(x, x).shape, [w.path for w in attention.weights if "key" in w.path]
        (TensorShape([1, 3, 8]), ['whisper_cached_multi_head_attention/key/kernel'])
    """

    def _projection(
        self, equation: str, output_shape: Sequence[Any], bias_axes: str, name: str, activation: Any = None
    ) -> EinsumDense:
        return super()._projection(equation, output_shape, None if name == "key" else bias_axes, name, activation)
