"""``MaskedLMPreprocessor``: strings to randomly masked token ids, the positions masked and the ids to predict.

preprocessor = BertMaskedLMPreprocessor.from_preset("./bert_tiny", sequence_length=16)
x, y, sample_weight = preprocessor(["the quick brown fox"])
# x: token_ids (some masked), padding_mask, segment_ids, mask_positions; y: the original ids there
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers import MaskedLMMaskGenerator
from tfkit.hub.models.preprocessor import Preprocessor
from tfkit.hub.models.segment_packing import SegmentPacking
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight


@register_keras_serializable(package="keras_hub")
class MaskedLMPreprocessor(SegmentPacking, Preprocessor):
    """Base class for masked language modeling preprocessing layers.

    It tokenizes and packs its input as `TextClassifierPreprocessor` does
    (a tuple of batches as `x` is one sequence of several segments), then selects
    `mask_selection_rate` of the tokens that are not special tokens, at
    most `mask_selection_length` a sequence, and replaces each with the
    mask token (`mask_token_rate` of them), a random token
    (`random_token_rate`) or leaves it (the rest). It returns `(x, y,
    sample_weight)`: `x` the masked `"token_ids"`, `"padding_mask"`,
    `"segment_ids"` and `"mask_positions"`, `y` the original ids at those
    positions and `sample_weight` 1 where a position was selected, 0 for
    padding. Called on this base class, `from_preset` returns the family's
    own (`BertMaskedLMPreprocessor`).

    Args:
        tokenizer: The family's tokenizer.
        sequence_length: The length of the packed inputs. Defaults to `512`.
        truncate: `"round_robin"` or `"waterfall"`, how segments are cut to
            fit. Defaults to `"round_robin"`.
        mask_selection_rate: The share of tokens selected for prediction.
            Defaults to `0.15`.
        mask_selection_length: The most tokens selected a sequence (the
            width of `mask_positions`). Defaults to `96`.
        mask_token_rate: The share of selected tokens replaced by the mask
            token. Defaults to `0.8`.
        random_token_rate: The share of selected tokens replaced by a random
            token. Defaults to `0.1`.
        **kwargs: Layer keyword arguments, such as `name`.

    Call arguments:
        x: A string, a batch of strings, or a tuple of such batches.
        y: Ignored: the labels are the masked tokens.
        sample_weight: Ignored: the weights mark the masked positions.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.MaskedLMPreprocessor, keras_hub.models.Preprocessor)
        True
    """

    def __init__(
        self,
        tokenizer: Any,
        sequence_length: int = 512,
        truncate: str = "round_robin",
        mask_selection_rate: float = 0.15,
        mask_selection_length: int = 96,
        mask_token_rate: float = 0.8,
        random_token_rate: float = 0.1,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.tokenizer = tokenizer
        self.sequence_length = sequence_length
        self.truncate = truncate
        self.mask_selection_rate = mask_selection_rate
        self.mask_selection_length = mask_selection_length
        self.mask_token_rate = mask_token_rate
        self.random_token_rate = random_token_rate
        self.masker = None

    def _masked(self, token_ids: Any) -> dict[str, Any]:
        if self.masker is None:  # made on first use, once the tokenizer's vocabulary is loaded
            self.masker = MaskedLMMaskGenerator(
                mask_selection_rate=self.mask_selection_rate,
                mask_selection_length=self.mask_selection_length,
                mask_token_rate=self.mask_token_rate,
                random_token_rate=self.random_token_rate,
                vocabulary_size=self.tokenizer.vocabulary_size(),
                mask_token_id=self.tokenizer.mask_token_id,
                unselectable_token_ids=self.tokenizer.special_token_ids,
            )
        return self.masker(token_ids)

    def call(self, x: Any, y: Any = None, sample_weight: Any = None) -> Any:
        token_ids, segment_ids = self.packed_segments(x)
        masked = self._masked(token_ids)
        x = {
            "token_ids": masked["token_ids"],
            "padding_mask": token_ids != self.tokenizer.pad_token_id,
            "segment_ids": segment_ids,
            "mask_positions": masked["mask_positions"],
        }
        return pack_x_y_sample_weight(x, masked["mask_ids"], masked["mask_weights"])

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            sequence_length=self.sequence_length,
            truncate=self.truncate,
            mask_selection_rate=self.mask_selection_rate,
            mask_selection_length=self.mask_selection_length,
            mask_token_rate=self.mask_token_rate,
            random_token_rate=self.random_token_rate,
        )
        return config
