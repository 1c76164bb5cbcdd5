"""``Phi3Decoder``: Phi-3's decoder block (RMS norms, long-rope attention, gated MLP), KerasHub's names and layout.

    decoder = Phi3Decoder(hidden_dim=3072, intermediate_dim=8192, num_query_heads=32, num_key_value_heads=32)
    y = decoder(x, decoder_padding_mask=mask)
    y, cache = decoder(x, attention_cache=cache, attention_cache_update_index=index)

The block computes what ``GatedDecoderBlock`` computes (RMS norm, causal
self-attention, residual; RMS norm, gated SiLU feedforward network, residual),
plus a dropout after the feedforward network; KerasHub's Phi-3 names the parts
otherwise (``pre_attention_layernorm``, ``attention``, ``post_attention_layernorm``,
public feedforward attributes) and builds the first norm before the attention,
which orders the weights.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.gated_decoder_block import GatedDecoderBlock
from tfkit.hub.models.phi3.phi3_attention import Phi3Attention
from tfkit.hub.models.phi3.phi3_layernorm import Phi3LayerNorm
from tfkit.layers import Dropout
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Phi3Decoder(GatedDecoderBlock):
    """A Transformer decoder layer for the Phi-3 backbone.

    RMS norm, causal grouped-query self-attention (`Phi3Attention`),
    dropout, residual; RMS norm, gated SiLU feedforward network (the
    activation in float32), dropout, residual. The sub-layers and weights
    are KerasHub's.

    Args:
        hidden_dim: Integer, the size of the hidden states.
        intermediate_dim: Integer, the hidden size of the feedforward network.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        max_sequence_length: Integer, the longest sequence the model is used
            with. Defaults to `4096`.
        pretraining_sequence_length: Integer, the length the model was
            pretrained with. Defaults to `4096`.
        rope_scaling_type: `None` or `"su"` (`Phi3Attention`). Defaults to
            `None`.
        rope_scaling_short_factor: The `"su"` short factors. Defaults to
            `None`.
        rope_scaling_long_factor: The `"su"` long factors. Defaults to `None`.
        **kwargs: `GatedDecoderBlock`'s other arguments (`activation`,
            `layer_norm_epsilon`, `kernel_initializer`, `dropout`,
            `rope_max_wavelength`, ...) and base layer keyword arguments, such
            as `name` and `dtype`.

    Call arguments:
        decoder_sequence: Tensor `(batch, length, hidden_dim)`.
        decoder_padding_mask: Optional `(batch, length)`, 1 for real tokens.
        decoder_attention_mask: Optional `(batch, length, length)`.
        attention_cache: Optional `(batch, 2, max_length,
            num_key_value_heads, head_dim)` key/value cache.
        attention_cache_update_index: Where the new steps go in the cache.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Example:
        >>> from tfkit.hub.models.phi3.phi3_decoder import Phi3Decoder
        >>> decoder = Phi3Decoder(hidden_dim=8, intermediate_dim=16, num_query_heads=2, num_key_value_heads=1)
        >>> x = np.random.rand(1, 4, 8).astype("float32")
        >>> full = decoder(x)
        >>> cache = tf.zeros((1, 2, 4, 1, 4))
        >>> steps = []
        >>> for index in range(4):
        ...     out, cache = decoder(x[:, index : index + 1], attention_cache=cache,
        ...         attention_cache_update_index=index)
        ...     steps.append(out)
        >>> bool(np.allclose(tf.concat(steps, axis=1), full, atol=1e-5))
        True
    """

    norm_class = Phi3LayerNorm
    attention_class = Phi3Attention
    _self_attention_layer = StoredAs("attention")
    _self_attention_layernorm = StoredAs("pre_attention_layernorm")
    _feedforward_layernorm = StoredAs("post_attention_layernorm")
    _self_attention_dropout = StoredAs("attention_dropout")
    _feedforward_intermediate_dense = StoredAs("feedforward_intermediate_dense")
    _feedforward_gate_dense = StoredAs("feedforward_gate_dense")
    _feedforward_output_dense = StoredAs("feedforward_output_dense")

    def __init__(
        self,
        hidden_dim: int,
        intermediate_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        max_sequence_length: int = 4096,
        pretraining_sequence_length: int = 4096,
        rope_scaling_type: str | None = None,
        rope_scaling_short_factor: Sequence[float] | None = None,
        rope_scaling_long_factor: Sequence[float] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(intermediate_dim, num_query_heads, num_key_value_heads, **kwargs)
        self.hidden_dim = hidden_dim
        self.max_sequence_length = max_sequence_length
        self.pretraining_sequence_length = pretraining_sequence_length
        self.rope_scaling_type = rope_scaling_type
        self.rope_scaling_short_factor = rope_scaling_short_factor
        self.rope_scaling_long_factor = rope_scaling_long_factor

    def _attention_arguments(self) -> dict[str, Any]:
        return {
            **super()._attention_arguments(),
            "max_sequence_length": self.max_sequence_length,
            "pretraining_sequence_length": self.pretraining_sequence_length,
            "rope_scaling_type": self.rope_scaling_type,
            "rope_scaling_short_factor": self.rope_scaling_short_factor,
            "rope_scaling_long_factor": self.rope_scaling_long_factor,
        }

    def build(self, decoder_sequence_shape: Any) -> None:
        """Makes the sub-layers in KerasHub's order: the first norm, the attention, the second norm, the MLP."""
        shape = tuple(decoder_sequence_shape)
        self.pre_attention_layernorm = self._make_norm("pre_attention_layernorm")
        self.pre_attention_layernorm.build(shape)
        self.attention = self.attention_class(**self._attention_arguments(), dtype=self.dtype_policy, name="attention")
        self.attention.build(shape)
        self.post_attention_layernorm = self._make_norm("post_attention_layernorm")
        self.post_attention_layernorm.build(shape)
        self._build_feedforward(shape)
        self.attention_dropout = Dropout(rate=self.dropout, dtype=self.dtype_policy, name="attention_dropout")
        self.feedforward_dropout = Dropout(rate=self.dropout, dtype=self.dtype_policy, name="feedforward_dropout")

    def _feedforward(self, x: tf.Tensor, padding_mask: Any, training: Any) -> tuple[tf.Tensor, tuple]:
        outputs, extra = super()._feedforward(x, padding_mask, training)
        return self.feedforward_dropout(outputs, training=training), extra

    def call(
        self,
        decoder_sequence: tf.Tensor,
        decoder_padding_mask: Any = None,
        decoder_attention_mask: Any = None,
        attention_cache: Any = None,
        attention_cache_update_index: Any = None,
        training: Any = None,
    ) -> Any:
        return super().call(
            decoder_sequence,
            decoder_padding_mask=decoder_padding_mask,
            decoder_attention_mask=decoder_attention_mask,
            self_attention_cache=attention_cache,
            self_attention_cache_update_index=attention_cache_update_index,
            training=training,
        )
