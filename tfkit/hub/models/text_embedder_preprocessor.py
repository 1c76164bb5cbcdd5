"""``TextEmbedderPreprocessor``: strings (or segment tuples) to the packed inputs of a text embedder.

preprocessor = BertTextEmbedderPreprocessor.from_preset("./minilm", sequence_length=16)
x = preprocessor(["a query", "a document"])     # {"token_ids", "padding_mask", "segment_ids"} for BERT
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.preprocessor import Preprocessor
from tfkit.hub.models.segment_packing import SegmentPacking
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight


@register_keras_serializable(package="keras_hub")
class TextEmbedderPreprocessor(SegmentPacking, Preprocessor):
    """Base class for text embedding preprocessing layers.

    It tokenizes each segment of its input and packs them into one sequence
    (the tokenizer's start token, the segments separated and ended by its
    end token, truncated to fit and padded to `sequence_length`), returning
    `{"token_ids", "segment_ids"}` here; a family's class returns the keys
    its backbone takes (`padding_mask` added, `segment_ids` left out where
    the backbone has none). `y` and `sample_weight` pass through. A tuple
    of string batches as `x` is one sequence of several segments. It runs in
    TensorFlow ops, so it maps over a `tf.data.Dataset`. Called on this base
    class, `from_preset` returns the family's own
    (`BertTextEmbedderPreprocessor`).

    Args:
        tokenizer: The family's tokenizer.
        sequence_length: The length of the packed inputs. Defaults to `256`.
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
        >>> issubclass(keras_hub.models.TextEmbedderPreprocessor, keras_hub.models.Preprocessor)
        True
    """

    def __init__(
        self, tokenizer: Any, sequence_length: int = 256, truncate: str = "round_robin", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.tokenizer = tokenizer
        self.sequence_length = sequence_length
        self.truncate = truncate

    def call(self, x: Any, y: Any = None, sample_weight: Any = None) -> Any:
        token_ids, segment_ids = self.packed_segments(x)
        return pack_x_y_sample_weight(self._format_output(token_ids, segment_ids), y, sample_weight)

    input_keys: tuple[str, ...] = ("token_ids", "segment_ids")  # those the family's backbone takes

    def _format_output(self, token_ids: Any, segment_ids: Any) -> dict[str, Any]:
        """The model's inputs from the packed ids: those of `input_keys`, of `"token_ids"`, `"segment_ids"` and
        `"padding_mask"` (the positions that do not hold the pad token)."""
        inputs = {"token_ids": token_ids, "segment_ids": segment_ids}
        if "padding_mask" in self.input_keys:
            inputs["padding_mask"] = token_ids != self.tokenizer.pad_token_id
        return {key: inputs[key] for key in self.input_keys}

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(sequence_length=self.sequence_length, truncate=self.truncate)
        return config
