"""``QwenAttention``: Qwen 2's grouped-query self-attention (query/key/value biases, optional sliding window)."""

from __future__ import annotations

from typing import Any

from tfkit import initializers
from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class QwenAttention(CachedGroupedQueryAttention):
    """A multi-head attention layer for Qwen models.

    Grouped-query attention: queries have `num_query_heads` heads, keys and
    values `num_key_value_heads`, each shared by a group of query heads. The
    query, key and value projections have biases; queries and keys are
    rotated by position (RoPE). With `use_sliding_window_attention`, a query
    attends to the keys less than `sliding_window_size` positions away. The
    head size is `hidden_dim // num_query_heads`.

    KerasHub applies the sliding window only when it computes attention
    itself (not on backends where it uses a fused attention kernel, JAX and
    PyTorch); tfkit always applies it.

    Args:
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: Float, the rotary embedding's position scaling.
            Defaults to `1`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Defaults to `"zeros"`.
        dropout: Float, the dropout rate of the attention output. Defaults
            to `0`.
        use_sliding_window_attention: Whether to limit attention to a
            sliding window. Defaults to `False`.
        sliding_window_size: Integer, the window size. Defaults to `4096`.
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
        >>> from tfkit.hub.models.qwen.qwen_attention import QwenAttention
        >>> attention = QwenAttention(num_query_heads=4, num_key_value_heads=2)
        >>> attention(np.ones((1, 3, 8), "float32")).shape
        TensorShape([1, 3, 8])
        >>> [w.path for w in attention.weights][:2]
        ['qwen_attention/query/kernel', 'qwen_attention/query/bias']
    """

    def __init__(
        self,
        num_query_heads: int,
        num_key_value_heads: int,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        dropout: float = 0,
        use_sliding_window_attention: bool = False,
        sliding_window_size: int = 4096,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        self.dropout = dropout
        self.num_key_value_groups = num_query_heads // num_key_value_heads
        self.rope_max_wavelength = rope_max_wavelength
        self.kernel_initializer = initializers.get(clone_initializer(kernel_initializer))
        self.bias_initializer = initializers.get(clone_initializer(bias_initializer))
        self.rope_scaling_factor = rope_scaling_factor
        self.use_sliding_window_attention = use_sliding_window_attention
        self.sliding_window_size = sliding_window_size

    def build(self, inputs_shape: Any) -> None:
        self._build_attention(
            inputs_shape,
            num_query_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            head_dim=inputs_shape[-1] // self.num_query_heads,
            kernel_initializer=self.kernel_initializer,
            bias_initializer=self.bias_initializer,
            use_bias=True,
            dropout=self.dropout,
            rope_max_wavelength=self.rope_max_wavelength,
            rope_scaling_factor=self.rope_scaling_factor,
        )

    def _attention_window(self) -> int | None:
        return self.sliding_window_size if self.use_sliding_window_attention else None

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            num_query_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            rope_max_wavelength=self.rope_max_wavelength,
            rope_scaling_factor=self.rope_scaling_factor,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            dropout=self.dropout,
            use_sliding_window_attention=self.use_sliding_window_attention,
            sliding_window_size=self.sliding_window_size,
        )
        return config
