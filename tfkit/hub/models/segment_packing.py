"""Tokenizing and packing text segments into one sequence: what the classifier and masked-LM preprocessors share.

class MyPreprocessor(SegmentPacking, Preprocessor):
    def call(self, x, y=None, sample_weight=None):
        token_ids, segment_ids = self.packed_segments(x)      # ("a question?", "an answer.") -> one sequence
class RobertaTextClassifierPreprocessor(DoubleSeparatorPacking, TextClassifierPreprocessor): ...

BERT packs ``[CLS] a [SEP] b [SEP]`` with segment ids. RoBERTa, XLM-RoBERTa and
DistilBERT backbones take no segment ids, so their preprocessors return
``{"token_ids", "padding_mask"}`` (``WithoutSegmentIds``), and RoBERTa-style ones
separate segments with the end token twice, ``</s></s>`` (``DoubleSeparatorPacking``),
as KerasHub's do.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers import MultiSegmentPacker
from tfkit.utils import pack_x_y_sample_weight, unpack_x_y_sample_weight


class SegmentPacking:
    """`packed_segments` and `sequence_length` for a preprocessor holding `tokenizer`, `truncate` and `packer`.

    The packer is made on first use, once the tokenizer's vocabulary is
    loaded (a preset's assets are read after its config), as KerasHub makes
    it in `build`.
    """

    packer: Any = None

    def packed_segments(self, x: Any) -> tuple[Any, Any]:
        """`(token_ids, segment_ids)` of `x`: one segment, or a tuple of segments, tokenized and packed.

        Args:
            x: A string, a batch of strings, or a tuple of such batches.

        Returns:
            Int tensors `(batch, sequence_length)`, or `(sequence_length,)`
            for a single string.
        """
        if self.packer is None:
            tokenizer = self.tokenizer
            self.packer = MultiSegmentPacker(
                start_value=tokenizer.start_token_id,
                end_value=tokenizer.end_token_id,
                pad_value=tokenizer.pad_token_id,
                truncate=self.truncate,
                sequence_length=self.sequence_length,
            )
        segments = x if isinstance(x, tuple) else (x,)
        return self.packer(tuple(self.tokenizer(segment) for segment in segments))

    @property
    def sequence_length(self) -> int:
        """The padded length of the model's input sequences."""
        return self._sequence_length

    @sequence_length.setter
    def sequence_length(self, value: int) -> None:
        self._sequence_length = value
        if self.packer is not None:
            self.packer.sequence_length = value


class WithoutSegmentIds:
    """A preprocessor mixin: the base class's packed inputs, less `segment_ids` (a backbone that takes none)."""

    def call(self, x: Any, y: Any = None, sample_weight: Any = None) -> Any:
        x, y, sample_weight = unpack_x_y_sample_weight(super().call(x, y=y, sample_weight=sample_weight))
        x = {key: value for key, value in x.items() if key != "segment_ids"}
        return pack_x_y_sample_weight(x, y, sample_weight)


class DoubleSeparatorPacking(WithoutSegmentIds):
    """A preprocessor mixin: segments separated by the end token twice (RoBERTa's `</s></s>`), no segment ids.

    The packer is made on first use, once the tokenizer's vocabulary is
    loaded, as `SegmentPacking` makes its own.
    """

    def packed_segments(self, x: Any) -> tuple[Any, Any]:
        if self.packer is None:
            tokenizer = self.tokenizer
            self.packer = MultiSegmentPacker(
                start_value=tokenizer.start_token_id,
                end_value=tokenizer.end_token_id,
                sep_value=[tokenizer.end_token_id] * 2,
                pad_value=tokenizer.pad_token_id,
                truncate=self.truncate,
                sequence_length=self.sequence_length,
            )
        return super().packed_segments(x)
