"""``TextClassifierPreprocessor``: strings (or segment pairs) to token ids, segment ids and a padding mask.

preprocessor = BertTextClassifierPreprocessor.from_preset("./bert_tiny", sequence_length=16)
x, y = preprocessor(["a great movie", "a dull one"], [1, 0])           # x: token_ids, padding_mask, segment_ids
x = preprocessor(x=(["a question?"], ["its answer."]))                  # a tuple as x: segments packed together
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.preprocessor import Preprocessor
from tfkit.hub.models.segment_packing import SegmentPacking
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight


@register_keras_serializable(package="keras_hub")
class TextClassifierPreprocessor(SegmentPacking, Preprocessor):
    """Base class for text classification preprocessing layers.

    It tokenizes each segment of its input, packs them into one sequence
    (the tokenizer's start token, the segments separated and ended by its
    end token, truncated to fit and padded to `sequence_length`) and returns
    `{"token_ids", "padding_mask", "segment_ids"}`, with `y` and
    `sample_weight` passed through. A tuple of string batches as `x` is one
    sequence of several segments (a sentence pair): pass it as `x=(first,
    second)`, or as `((first, second), y)`, since a single tuple argument
    is `(x, y)` or `(x, y, sample_weight)`, as in KerasHub. It runs in
    TensorFlow ops, so it maps over a `tf.data.Dataset` and serves inside an
    exported model. Called on this base class, `from_preset` returns the
    family's own (`BertTextClassifierPreprocessor`).

    Args:
        tokenizer: The family's tokenizer.
        sequence_length: The length of the packed inputs. Defaults to `512`.
        truncate: How segments are cut to fit: `"round_robin"` (one token at
            a time from each, longest first) or `"waterfall"` (from the last
            segment first). Defaults to `"round_robin"`.
        **kwargs: Layer keyword arguments, such as `name`.

    Call arguments:
        x: A string, a batch of strings, or a tuple of such batches
            (segments).
        y: Labels, passed through. Defaults to `None`.
        sample_weight: Sample weights, passed through. Defaults to `None`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.TextClassifierPreprocessor, keras_hub.models.Preprocessor)
        True
    """

    def __init__(
        self, tokenizer: Any, sequence_length: int = 512, truncate: str = "round_robin", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.tokenizer = tokenizer
        self.sequence_length = sequence_length
        self.truncate = truncate

    def call(self, x: Any, y: Any = None, sample_weight: Any = None) -> Any:
        token_ids, segment_ids = self.packed_segments(x)
        x = {
            "token_ids": token_ids,
            "padding_mask": token_ids != self.tokenizer.pad_token_id,
            "segment_ids": segment_ids,
        }
        return pack_x_y_sample_weight(x, y, sample_weight)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(sequence_length=self.sequence_length, truncate=self.truncate)
        return config
