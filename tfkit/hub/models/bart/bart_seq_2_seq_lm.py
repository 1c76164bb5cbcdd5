"""``BartSeq2SeqLM``: BART with its tied-embedding language modeling head; ``generate`` is ``Seq2SeqLM``'s loop."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.bart.bart_backbone import BartBackbone
from tfkit.hub.models.bart.bart_seq_2_seq_lm_preprocessor import BartSeq2SeqLMPreprocessor
from tfkit.hub.models.seq_2_seq_lm import Seq2SeqLM
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BartSeq2SeqLM(Seq2SeqLM):
    """An end-to-end BART model for seq2seq language modeling.

    The decoder's hidden states times the transposed token embedding give
    the logits of each next decoder token. `fit` takes
    `{"encoder_text", "decoder_text"}` pairs; `generate` runs the encoder
    once, then decodes with a self-attention cache written in place and a
    cross-attention cache computed once (`Seq2SeqLM`'s loop).

    Args:
        backbone: A `BartBackbone`.
        preprocessor: A `BartSeq2SeqLMPreprocessor`, or `None` (the model then
            takes token ids). Defaults to `None`.
        **kwargs: `Seq2SeqLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.BartBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> seq_2_seq_lm = keras_hub.models.BartSeq2SeqLM(backbone)
        >>> seq_2_seq_lm.compile(sampler="greedy")
        >>> inputs = {"encoder_token_ids": np.array([[0, 5, 6, 2]]), "encoder_padding_mask": np.ones((1, 4)),
        ...     "decoder_token_ids": np.array([[2, 0, 1, 1, 1]]), "decoder_padding_mask": np.array([[1, 1, 0, 0, 0]])}
        >>> seq_2_seq_lm.generate(inputs, stop_token_ids=None)["decoder_token_ids"].shape
        (1, 5)
    """

    backbone_cls = BartBackbone
    preprocessor_cls = BartSeq2SeqLMPreprocessor

    def call_encoder(self, token_ids: Any, padding_mask: Any) -> Any:
        """The encoder's output for `token_ids`.

        Args:
            token_ids: int `(batch, encoder_length)`.
            padding_mask: `(batch, encoder_length)`.

        Returns:
            `(batch, encoder_length, hidden_dim)`.
        """
        x = self.backbone.embed("encoder", token_ids)
        for block in self.backbone.encoder_transformer_layers:
            x = block(x, padding_mask=padding_mask)
        return x

    def embed_decoder(self, token_ids: Any, start_index: Any = 0) -> Any:
        """The decoder's token and position embeddings from `start_index` on, normalized.

        Args:
            token_ids: int `(batch, length)`.
            start_index: The position of `token_ids[:, 0]`. Defaults to `0`.

        Returns:
            `(batch, length, hidden_dim)`.
        """
        return self.backbone.embed("decoder", token_ids, start_index)
