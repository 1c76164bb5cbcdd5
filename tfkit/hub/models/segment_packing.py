"""Tokenizing and packing text segments into one sequence: what the classifier and masked-LM preprocessors share.

class MyPreprocessor(SegmentPacking, Preprocessor):
    def call(self, x, y=None, sample_weight=None):
        token_ids, segment_ids = self.packed_segments(x)      # ("a question?", "an answer.") -> one sequence
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers import MultiSegmentPacker


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
