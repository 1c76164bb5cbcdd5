"""``T5Seq2SeqLM``: T5 with its language modeling head; ``generate`` is ``Seq2SeqLM``'s loop.

    seq_2_seq_lm = T5Seq2SeqLM.from_preset("./t5_tiny")
    seq_2_seq_lm.generate("translate English to German: the quick fox")

T5's decoder layers thread the relative position bias (the first layer's, at
the decoding position) through the stack, so this class writes its own
``call_decoder_with_cache``; the encoder, the caches and the loop are the
base's.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.kv_cache import join_layer_caches, layer_cache
from tfkit.hub.models.seq_2_seq_lm import Seq2SeqLM
from tfkit.hub.models.t5.t5_backbone import T5Backbone
from tfkit.hub.models.t5.t5_seq_2_seq_lm_preprocessor import T5Seq2SeqLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class T5Seq2SeqLM(Seq2SeqLM):
    """An end-to-end T5 model for seq2seq language modeling.

    The decoder's hidden states give the logits of each next decoder token
    through the token embedding, transposed (scaled by `hidden_dim ** -0.5`
    first, as T5's tied head), or through the backbone's own
    `reverse_embeddings` when `tie_embedding_weights=False`. `fit` takes
    `{"encoder_text", "decoder_text"}` pairs (T5's tasks are told apart by a
    prefix in the encoder text, such as `"summarize: "`); `generate` runs
    the encoder once, then decodes with a self-attention cache written in
    place and a cross-attention cache computed once.

    Args:
        backbone: A `T5Backbone`.
        preprocessor: A `T5Seq2SeqLMPreprocessor`, or `None` (the model then
            takes token ids). Defaults to `None`.
        **kwargs: `Seq2SeqLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.T5Backbone(vocabulary_size=10, num_layers=1, num_heads=2, hidden_dim=8,
        ...     intermediate_dim=16)
        >>> seq_2_seq_lm = keras_hub.models.T5Seq2SeqLM(backbone)
        >>> seq_2_seq_lm.compile(sampler="greedy")
        >>> inputs = {"encoder_token_ids": np.array([[5, 6, 1]]), "encoder_padding_mask": np.ones((1, 3)),
        ...     "decoder_token_ids": np.array([[0, 4, 0, 0, 0]]), "decoder_padding_mask": np.array([[1, 1, 0, 0, 0]])}
        >>> seq_2_seq_lm.generate(inputs, stop_token_ids=None)["decoder_token_ids"].shape
        (1, 5)
    """

    backbone_cls = T5Backbone
    preprocessor_cls = T5Seq2SeqLMPreprocessor

    def call_encoder(self, token_ids: Any, padding_mask: Any) -> Any:
        """The encoder's output for `token_ids`.

        Args:
            token_ids: int `(batch, encoder_length)`.
            padding_mask: `(batch, encoder_length)`.

        Returns:
            `(batch, encoder_length, hidden_dim)`.
        """
        return self.backbone.run_encoder(token_ids, padding_mask)

    def embed_decoder(self, token_ids: Any, start_index: Any = 0) -> Any:
        """The decoder's token embeddings (T5 embeds no positions: its attention biases by relative position).

        Args:
            token_ids: int `(batch, length)`.
            start_index: Unused. Defaults to `0`.

        Returns:
            `(batch, length, hidden_dim)`.
        """
        return self.backbone.decoder_embedding_dropout(self.backbone.token_embedding(token_ids))

    def decoder_logits(self, hidden_states: Any) -> tuple[Any, Any]:
        """The final decoder states to `(logits, hidden_states)`: the head, scaled first when tied.

        Args:
            hidden_states: `(batch, length, hidden_dim)`, after the decoder's
                final norm.

        Returns:
            `(logits, hidden_states)`.
        """
        backbone = self.backbone
        projected = hidden_states
        if backbone.tie_embedding_weights:
            projected = hidden_states * tf.cast(backbone.hidden_dim**-0.5, hidden_states.dtype)
        return backbone.token_embedding(projected, reverse=True), hidden_states

    def key_value_heads(self) -> tuple[int, int]:
        """The caches' `(heads, head_dim)`: `key_value_dim` when the backbone sets it.

        Returns:
            Two Python ints.
        """
        backbone = self.backbone
        return backbone.num_heads, backbone.key_value_dim or backbone.hidden_dim // backbone.num_heads

    def call_decoder_with_cache(
        self,
        encoder_hidden_states: Any,
        encoder_padding_mask: Any,
        decoder_token_ids: Any,
        self_attention_cache: Any = None,
        self_attention_cache_update_index: Any = None,
        cross_attention_cache: Any = None,
        cross_attention_cache_update_index: Any = None,
    ) -> tuple[Any, Any, Any, Any]:
        """One decoder pass with caches: the first layer's relative position bias (at the cache index) goes to all.

        Args:
            encoder_hidden_states: `(batch, encoder_length, hidden_dim)`.
            encoder_padding_mask: `(batch, encoder_length)`.
            decoder_token_ids: int `(batch, length)`: the tokens at positions
                `self_attention_cache_update_index ...`.
            self_attention_cache: One `(keys, values)` pair a layer, or
                KerasHub's `(batch, num_layers, 2, max_length, heads,
                key_value_dim)` tensor.
            self_attention_cache_update_index: Where the new keys and values go.
            cross_attention_cache: The cross-attention cache, in the same form.
            cross_attention_cache_update_index: `0` to fill it from
                `encoder_hidden_states`, `None` to read it as it is.

        Returns:
            `(logits, hidden_states, self_attention_cache,
            cross_attention_cache)`, the caches in the form they came.
        """
        backbone = self.backbone
        x = self.embed_decoder(decoder_token_ids)
        encoder_attention_mask = None if encoder_padding_mask is None else encoder_padding_mask[:, None, :]
        self_caches, cross_caches, position_bias = [], [], None
        for i, layer in enumerate(backbone.decoder_transformer_layers):
            x, position_bias, self_cache, cross_cache = layer(
                x,
                position_bias=position_bias,
                encoder_hidden_states=encoder_hidden_states,
                encoder_attention_mask=encoder_attention_mask,
                use_causal_mask=True,
                self_attention_cache=layer_cache(self_attention_cache, i),
                self_attention_cache_update_index=self_attention_cache_update_index,
                cross_attention_cache=layer_cache(cross_attention_cache, i),
                cross_attention_cache_update_index=cross_attention_cache_update_index,
            )
            self_caches.append(self_cache)
            cross_caches.append(cross_cache)
        logits, hidden_states = self.decoder_logits(backbone.decoder_dropout(backbone.decoder_layer_norm(x)))
        if cross_attention_cache_update_index is not None:
            cross_attention_cache = join_layer_caches(cross_caches, like=cross_attention_cache)
        if self_attention_cache_update_index is not None:
            self_attention_cache = join_layer_caches(self_caches, like=self_attention_cache)
        return logits, hidden_states, self_attention_cache, cross_attention_cache
