"""``T5GemmaSeq2SeqLM``: T5Gemma with its tied, soft-capped language modeling head; ``generate`` is
``Seq2SeqLM``'s loop.

    seq_2_seq_lm = T5GemmaSeq2SeqLM.from_preset("./t5gemma_tiny")
    seq_2_seq_lm.generate("The quick brown fox jumped.", max_length=30)

T5Gemma's decoder blocks take KerasHub's arguments (``(x, encoder_output)``, the two padding masks, one
``(self_cache, cross_cache)`` pair), so this class writes its own ``call_decoder_block``; the encoder's one
pass, the caches and the loop are the base's.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.kv_cache import join_cache, split_cache
from tfkit.hub.models.gemma.gemma_backbone import scaled_embeddings
from tfkit.hub.models.seq_2_seq_lm import DecoderBlockArguments, Seq2SeqLM
from tfkit.hub.models.t5gemma.t5gemma_backbone import T5GemmaBackbone
from tfkit.hub.models.t5gemma.t5gemma_seq_2_seq_lm_preprocessor import T5GemmaSeq2SeqLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class T5GemmaSeq2SeqLM(Seq2SeqLM):
    """An end-to-end T5Gemma model for seq2seq language modeling.

    The decoder's final states times its transposed token embedding (or
    its own output projection when `tie_word_embeddings=False`) give the
    logits of each next decoder token, soft-capped by the backbone's
    `final_logit_softcapping`. `fit` takes `{"encoder_text",
    "decoder_text"}` pairs; `generate` takes encoder texts (or such pairs,
    the decoder's text a prompt to continue), runs the encoder once, then
    decodes with a self-attention cache written in place and a
    cross-attention cache computed once (`Seq2SeqLM`'s loop).

    Args:
        backbone: A `T5GemmaBackbone`.
        preprocessor: A `T5GemmaSeq2SeqLMPreprocessor`, or `None` (the model
            then takes token ids). Defaults to `None`.
        **kwargs: `Seq2SeqLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.T5GemmaBackbone(vocabulary_size=10, encoder_hidden_dim=8,
        ...     encoder_intermediate_dim=16, encoder_num_layers=1, encoder_num_attention_heads=2,
        ...     encoder_num_key_value_heads=1, encoder_head_dim=4, encoder_layer_types=["full_attention"],
        ...     decoder_hidden_dim=8, decoder_intermediate_dim=16, decoder_num_layers=1,
        ...     decoder_num_attention_heads=2, decoder_num_key_value_heads=1, decoder_head_dim=4,
        ...     decoder_layer_types=["full_attention"], final_logit_softcapping=30.0)
        >>> seq_2_seq_lm = keras_hub.models.T5GemmaSeq2SeqLM(backbone)
        >>> seq_2_seq_lm.compile(sampler="greedy")
        >>> inputs = {"encoder_token_ids": np.array([[5, 6, 1]]), "encoder_padding_mask": np.ones((1, 3)),
        ...     "decoder_token_ids": np.array([[2, 4, 0, 0, 0]]), "decoder_padding_mask": np.array([[1, 1, 0, 0, 0]])}
        >>> generated = seq_2_seq_lm.generate(inputs, stop_token_ids=None)["decoder_token_ids"]
        >>> generated.shape, generated[0, :2].tolist()
        ((1, 5), [2, 4])
    """

    backbone_cls = T5GemmaBackbone
    preprocessor_cls = T5GemmaSeq2SeqLMPreprocessor

    def call_encoder(self, token_ids: Any, padding_mask: Any) -> Any:
        """The encoder's output, `(batch, encoder_length, encoder_hidden_dim)`, as the backbone computes it (no
        dropout); `Seq2SeqLM.call_encoder`'s arguments."""
        backbone = self.backbone
        x = scaled_embeddings(backbone.token_embedding(token_ids), backbone.encoder_hidden_dim)
        for layer in backbone.encoder_layers:
            x = layer(x, padding_mask=padding_mask, training=False)
        return backbone.encoder_norm(x)

    def embed_decoder(self, token_ids: Any, start_index: Any = 0) -> Any:
        """The decoder's scaled token embeddings, `(batch, length, decoder_hidden_dim)` (`start_index` unused:
        the positions are rotary, in the attention); `Seq2SeqLM.embed_decoder`'s arguments."""
        backbone = self.backbone
        return scaled_embeddings(backbone.decoder_token_embedding(token_ids), backbone.decoder_hidden_dim)

    def decoder_blocks(self) -> list[Any]:
        """The decoder's blocks (`backbone.decoder_layers`)."""
        return list(self.backbone.decoder_layers)

    def decoder_final_norm(self) -> Any:
        """The decoder's final RMS norm (`backbone.decoder_norm`)."""
        return self.backbone.decoder_norm

    def decoder_logits(self, hidden_states: Any) -> tuple[Any, Any]:
        """The final (normed) decoder states to `(logits, hidden_states)`: the reverse embedding, soft-capped;
        `Seq2SeqLM.decoder_logits`'s arguments."""
        logits = self.backbone.decoder_token_embedding(hidden_states, reverse=True)
        cap = self.backbone.final_logit_softcapping
        if cap is not None:
            logits = tf.tanh(logits / cap) * cap
        return logits, hidden_states

    def key_value_heads(self) -> tuple[int, int]:
        """The caches' `(heads, head_dim)`: the decoder's key and value heads and their size."""
        return self.backbone.decoder_num_key_value_heads, self.backbone.decoder_head_dim

    def call_decoder_block(self, block: Any, x: Any, arguments: DecoderBlockArguments) -> tuple[Any, Any, Any]:
        """One T5Gemma decoder block, with KerasHub's arguments (`(x, encoder_output)`, one pair of caches): to
        fill the cross-attention cache, the block computes it (given back in the form it came).

        Args:
            block: A `T5GemmaDecoderLayer`.
            x: Its input, `(batch, length, decoder_hidden_dim)`.
            arguments: `Seq2SeqLM.call_decoder_block`'s.

        Returns:
            `(x, self_attention_cache, cross_attention_cache)`.
        """
        fill = arguments.cross_attention_cache_update_index is not None
        index, given = arguments.self_attention_cache_update_index, arguments.cross_attention_cache
        x, (self_cache, cross_cache) = block(
            (x, arguments.encoder_hidden_states),
            cross_attention_padding_mask=arguments.encoder_padding_mask,
            cache=(arguments.self_attention_cache, None if fill else given),
            cache_update_index=0 if index is None else index,
            training=False,
        )
        if fill:
            cross_cache = join_cache(*split_cache(cross_cache), like=given)
        return x, self_cache, cross_cache
