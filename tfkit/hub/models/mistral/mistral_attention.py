"""``CachedMistralAttention``: Mistral's grouped-query self-attention with a key/value cache, KerasHub's layer."""

from __future__ import annotations

from typing import Any

from tfkit import initializers
from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class CachedMistralAttention(CachedGroupedQueryAttention):
    """A cached grouped-query attention layer with sliding window.

    Queries have `num_query_heads` heads; keys and values have
    `num_key_value_heads`, each shared by `num_query_heads //
    num_key_value_heads` query heads. Queries and keys are rotated by
    position (RoPE). Mistral's sliding window is applied by the mask its
    decoder block builds (`MistralTransformerDecoder`); this layer keeps
    `sliding_window` in its config, as KerasHub's.

    Args:
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: Float, the rotary embedding's position scaling.
            Defaults to `1.0`.
        kernel_initializer: Initializer of the projections' kernels.
            Defaults to `"glorot_uniform"`.
        sliding_window: Integer or `None`, the attention window of the
            decoder block. Defaults to `512`.
        dropout: Float, the dropout rate of the attention output. Defaults
            to `0`.
        head_dim: Integer, the size of each head; `None` (the default) means
            `hidden_dim // num_query_heads`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: Tensor `(batch, length, hidden_dim)`.
        attention_mask: Optional `(batch, length, key_length)` mask.
        cache: Optional `(batch, 2, max_length, num_key_value_heads,
            head_dim)` key/value cache.
        cache_update_index: Where the new keys and values go in `cache`.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Example:
        >>> from tfkit.hub.models.mistral.mistral_attention import CachedMistralAttention
        >>> attention = CachedMistralAttention(num_query_heads=4, num_key_value_heads=2)
        >>> out, cache = attention(np.ones((1, 3, 8), "float32"), cache=tf.zeros((1, 2, 5, 2, 2)),
        ...     cache_update_index=0)
        >>> out.shape, cache.shape
        (TensorShape([1, 3, 8]), TensorShape([1, 2, 5, 2, 2]))
    """

    def __init__(
        self,
        num_query_heads: int,
        num_key_value_heads: int,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1.0,
        kernel_initializer: Any = "glorot_uniform",
        sliding_window: int | None = 512,
        dropout: float = 0,
        head_dim: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._num_query_heads = num_query_heads
        self._num_key_value_heads = num_key_value_heads
        self._sliding_window = sliding_window
        self._dropout = dropout
        self._head_dim = head_dim
        self._num_key_value_groups = num_query_heads // num_key_value_heads
        self._rope_max_wavelength = rope_max_wavelength
        self._kernel_initializer = initializers.get(clone_initializer(kernel_initializer))
        self._rope_scaling_factor = rope_scaling_factor

    def build(self, inputs_shape: Any) -> None:
        self._hidden_dim = inputs_shape[-1]
        if self._head_dim is None:
            self._head_dim = self._hidden_dim // self._num_query_heads
        self._build_attention(
            inputs_shape,
            num_query_heads=self._num_query_heads,
            num_key_value_heads=self._num_key_value_heads,
            head_dim=self._head_dim,
            kernel_initializer=self._kernel_initializer,
            bias_initializer="zeros",
            use_bias=False,
            dropout=self._dropout,
            rope_max_wavelength=self._rope_max_wavelength,
            rope_scaling_factor=self._rope_scaling_factor,
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            num_query_heads=self._num_query_heads,
            num_key_value_heads=self._num_key_value_heads,
            rope_max_wavelength=self._rope_max_wavelength,
            rope_scaling_factor=self._rope_scaling_factor,
            kernel_initializer=initializers.serialize(self._kernel_initializer),
            sliding_window=self._sliding_window,
            dropout=self._dropout,
            head_dim=self._head_dim,
        )
        return config
