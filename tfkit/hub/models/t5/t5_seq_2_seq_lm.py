"""``T5Seq2SeqLM``: T5 with its language modeling head; ``generate`` is ``Seq2SeqLM``'s loop.

    seq_2_seq_lm = T5Seq2SeqLM.from_preset("./t5_tiny")
    seq_2_seq_lm.generate("translate English to German: the quick fox")

T5's decoder layers thread the relative position bias (the first layer's, at
the decoding position) through the stack, so this class writes its own
``call_decoder_block``; the encoder, the caches and the loop are the base's.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.models.seq_2_seq_lm import DecoderBlockArguments, Seq2SeqLM
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

    def final_decoder_states(self, hidden_states: Any) -> Any:
        """The last decoder layer's output through the decoder's final norm and dropout.

        Args:
            hidden_states: `(batch, length, hidden_dim)`.

        Returns:
            `(batch, length, hidden_dim)`, what `decoder_logits` takes.
        """
        return self.backbone.decoder_dropout(self.backbone.decoder_layer_norm(hidden_states))

    def call_decoder_block(self, block: Any, x: Any, arguments: DecoderBlockArguments) -> tuple[Any, Any, Any]:
        """One T5 decoder layer of the cached loop: the first layer's relative position bias (at the cache
        index, the causal mask in it) goes to the others in `arguments.carried`.

        Args:
            block: A `T5TransformerLayer` of the decoder.
            x: Its input, `(batch, length, hidden_dim)`.
            arguments: `Seq2SeqLM.call_decoder_block`'s.

        Returns:
            `(x, self_attention_cache, cross_attention_cache)`.
        """
        mask = arguments.encoder_padding_mask
        x, arguments.carried["position_bias"], self_cache, cross_cache = block(
            x,
            position_bias=arguments.carried.get("position_bias"),
            encoder_hidden_states=arguments.encoder_hidden_states,
            encoder_attention_mask=None if mask is None else mask[:, None, :],
            use_causal_mask=True,
            self_attention_cache=arguments.self_attention_cache,
            self_attention_cache_update_index=arguments.self_attention_cache_update_index,
            cross_attention_cache=arguments.cross_attention_cache,
            cross_attention_cache_update_index=arguments.cross_attention_cache_update_index,
        )
        return x, self_cache, cross_cache
