"""``GemmaBackbone``: Google's Gemma and Gemma 2 decoder stacks, KerasHub's layout.

    backbone = GemmaBackbone(vocabulary_size=256000, num_layers=18, num_query_heads=8, num_key_value_heads=1,
                             hidden_dim=2048, intermediate_dim=32768, head_dim=256)
    hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)

Gemma 2 is the same class with post-norms, soft caps and sliding windows on
the even layers (``use_post_ffw_norm``, ``use_post_attention_norm``,
``attention_logit_soft_cap``, ``final_logit_soft_cap``,
``use_sliding_window_attention``), as KerasHub has it.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.gemma.gemma_decoder_block import GemmaDecoderBlock
from tfkit.hub.models.gemma.rms_normalization import RMSNormalization
from tfkit.saving import register_keras_serializable


def gemma_token_embedding(vocabulary_size: int, hidden_dim: int, final_logit_soft_cap: Any, dtype: Any) -> Any:
    """Gemma's tied token embedding (``layers.ReversibleEmbedding``), its logits soft-capped when asked."""
    return layers.ReversibleEmbedding(
        input_dim=vocabulary_size,
        output_dim=hidden_dim,
        tie_weights=True,
        embeddings_initializer=initializers.VarianceScaling(
            scale=1.0, mode="fan_in", distribution="untruncated_normal"
        ),
        dtype=dtype,
        logit_soft_cap=final_logit_soft_cap,
        name="token_embedding",
    )


def scaled_embeddings(x: Any, hidden_dim: int) -> Any:
    """Token embeddings times ``sqrt(hidden_dim)`` (computed in float32, then cast, as KerasHub does)."""
    return x * tf.cast(tf.sqrt(tf.cast(hidden_dim, tf.float32)), x.dtype)


@register_keras_serializable(package="keras_hub")
class GemmaBackbone(Backbone):
    """Gemma core network with hyperparameters.

    Token embeddings (scaled by `sqrt(hidden_dim)`) feed `num_layers`
    decoder blocks (`GemmaDecoderBlock`), then a final RMS norm. The outputs are the last
    hidden states; `GemmaCausalLM` ties the token embedding back to the
    vocabulary for logits. With `use_sliding_window_attention`, the even
    layers attend within a sliding window (Gemma 2). The layer names and
    weights are KerasHub's, so KerasHub's Gemma and Gemma 2 presets load into
    it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of transformer layers.
        num_query_heads: The number of query heads of each attention layer.
        num_key_value_heads: The number of key and value heads.
        hidden_dim: The size of the hidden states.
        intermediate_dim: Twice the width of each gated feedforward network.
        head_dim: The size of each attention head.
        query_head_dim_normalize: Whether the queries are scaled by
            `1 / sqrt(head_dim)` (else by `1 / sqrt(hidden_dim //
            num_query_heads)`). Defaults to `True`.
        use_post_ffw_norm: Whether to normalize after each feedforward
            network. Defaults to `False`.
        use_post_attention_norm: Whether to normalize after each attention.
            Defaults to `False`.
        attention_logit_soft_cap: Optional soft cap of the attention logits.
            Defaults to `None`.
        final_logit_soft_cap: Optional soft cap of the output logits.
            Defaults to `None`.
        use_sliding_window_attention: Whether the even layers use sliding
            window attention. Defaults to `False`.
        sliding_window_size: The window of those layers. Defaults to `4096`.
        layer_norm_epsilon: The epsilon of every RMS norm. Defaults to
            `1e-6`.
        dropout: The dropout rate. Defaults to `0`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.GemmaBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16, head_dim=4)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_query_heads: int,
        num_key_value_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        head_dim: int,
        query_head_dim_normalize: bool = True,
        use_post_ffw_norm: bool = False,
        use_post_attention_norm: bool = False,
        attention_logit_soft_cap: float | None = None,
        final_logit_soft_cap: float | None = None,
        use_sliding_window_attention: bool = False,
        sliding_window_size: int = 4096,
        layer_norm_epsilon: float = 1e-6,
        dropout: float = 0,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = gemma_token_embedding(vocabulary_size, hidden_dim, final_logit_soft_cap, dtype)
        self.transformer_layers = [
            GemmaDecoderBlock(
                intermediate_dim=intermediate_dim,
                hidden_dim=hidden_dim,
                num_query_heads=num_query_heads,
                head_dim=head_dim,
                num_key_value_heads=num_key_value_heads,
                query_head_dim_normalize=query_head_dim_normalize,
                use_post_ffw_norm=use_post_ffw_norm,
                use_post_attention_norm=use_post_attention_norm,
                logit_soft_cap=attention_logit_soft_cap,
                use_sliding_window_attention=use_sliding_window_attention and i % 2 == 0,
                sliding_window_size=sliding_window_size,
                layer_norm_epsilon=layer_norm_epsilon,
                dropout=dropout,
                dtype=dtype,
                name=f"decoder_block_{i}",
            )
            for i in range(num_layers)
        ]
        self.layer_norm = RMSNormalization(epsilon=layer_norm_epsilon, dtype=dtype, name="final_normalization")

        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        x = scaled_embeddings(self.token_embedding(token_ids), hidden_dim)
        for block in self.transformer_layers:
            x = block(x, padding_mask=padding_mask)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask},
            outputs=self.layer_norm(x),
            dtype=dtype,
            **kwargs,
        )
