"""``FNetMaskedLMPreprocessor``: FNet's masked language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.f_net.f_net_backbone import FNetBackbone
from tfkit.hub.models.f_net.f_net_tokenizer import FNetTokenizer
from tfkit.hub.models.f_net.without_padding_mask import WithoutPaddingMask
from tfkit.hub.models.masked_lm_preprocessor import MaskedLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class FNetMaskedLMPreprocessor(WithoutPaddingMask, MaskedLMPreprocessor):
    """FNet preprocessing for the masked language modeling task.

    `MaskedLMPreprocessor` with an `FNetTokenizer`: the packed sequence is
    `[CLS] ... [SEP]`, and selected tokens become `[MASK]` (or a random
    token, or stay); `[CLS]`, `[SEP]`, `<pad>` and `[MASK]` are never
    selected. `x` is `{"token_ids", "segment_ids", "mask_positions"}` (FNet
    takes no padding mask), `y` the original ids at the masked positions.

    Args:
        tokenizer: An `FNetTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `512`.
        truncate: `"round_robin"` or `"waterfall"`. Defaults to
            `"round_robin"`.
        mask_selection_rate: The share of tokens selected. Defaults to `0.15`.
        mask_selection_length: The most tokens selected a sequence. Defaults
            to `96`.
        mask_token_rate: The share of selected tokens that become `[MASK]`.
            Defaults to `0.8`.
        random_token_rate: The share of selected tokens that become a random
            token. Defaults to `0.1`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=11, model_type="word", pad_id=0, unk_id=1, bos_id=2, eos_id=3, pad_piece="<pad>",
        ...     unk_piece="<unk>", bos_piece="[CLS]", eos_piece="[SEP]", user_defined_symbols="[MASK]",
        ...     minloglevel=2)
        >>> tokenizer = keras_hub.models.FNetTokenizer(proto=model.getvalue())
        >>> preprocessor = keras_hub.models.FNetMaskedLMPreprocessor(tokenizer, sequence_length=6,
        ...     mask_selection_rate=1.0, mask_selection_length=4, mask_token_rate=1.0, random_token_rate=0.0)
        >>> x, y, sample_weight = preprocessor(["the lazy fox"])
        >>> x["token_ids"].numpy().tolist(), x["mask_positions"].numpy().tolist(), y.numpy().tolist(), sorted(x)
        ([[2, 4, 4, 4, 3, 0]], [[1, 2, 3, 0]], [[6, 10, 9, 0]], ['mask_positions', 'segment_ids', 'token_ids'])
    """

    backbone_cls = FNetBackbone
    tokenizer_cls = FNetTokenizer
