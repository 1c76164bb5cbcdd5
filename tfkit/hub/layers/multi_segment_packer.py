"""``MultiSegmentPacker``: several segments packed into one fixed-length input, with segment ids (BERT's pairs).

    packer = MultiSegmentPacker(sequence_length=8, start_value=101, end_value=102)
    token_ids, segment_ids = packer(([1, 2, 3, 4], [11, 12, 13, 14]))
    # [101 1 2 3 102 11 12 102], [0 0 0 0 0 1 1 1]

The segments are first trimmed together to fit (``"round_robin"``: one token
at a time to each segment that still has some; ``"waterfall"``: left to right),
by ``tensorflow_text``'s trimmers, then joined with the start, separator and
end values and padded; TensorFlow ops only.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.config_values import config_value
from tfkit.hub.layers.preprocessing_layer import PreprocessingLayer
from tfkit.hub.layers.preprocessing_tensors import (
    check_padding_side,
    convert_to_ragged_batch,
    pad,
    special_values,
    tensorflow_text,
)
from tfkit.saving import register_keras_serializable

_TRUNCATIONS = ("round_robin", "waterfall")


@register_keras_serializable(package="keras_hub")
class MultiSegmentPacker(PreprocessingLayer):
    """Packs multiple sequences into a single fixed width model input.

    For BERT-like models that read one or several segments (a sentence pair)
    as one sequence: the segments are trimmed to fit `sequence_length`
    together, joined as `start, segment 1, sep, segment 2, ..., end`, and
    padded; a second output gives each position's segment index (the start
    value is in segment 0, each separator or end value in the segment before
    it, padding 0). Pass a tuple of segments, each one sequence (a list, a
    rank-1 tensor) or a batch (a list of lists, a rank-2 tensor, a
    `tf.RaggedTensor`); all of the same rank. Needs `tensorflow-text`.

    Args:
        sequence_length: Integer, the length of the packed outputs.
        start_value: The id(s) or token(s) put at the start ("[CLS]" for
            BERT): an int, a str, or a list or tuple of them, of the inputs'
            type.
        end_value: The id(s) or token(s) put after the last segment ("[SEP]"
            for BERT), as `start_value`.
        sep_value: The id(s) or token(s) put after every segment but the last.
            `None` (the default) uses `end_value`.
        pad_value: The id or token filling the positions after the last
            segment ("[PAD]" for BERT). `None` (the default) pads with `0` or
            `""`.
        truncate: How segments are trimmed to fit: `"round_robin"` (the
            default: the room is handed out one token at a time to each
            segment that still needs some) or `"waterfall"` (left to right,
            each segment filling what is left).
        padding_side: `"right"` (the default) or `"left"`: where the padding
            goes.
        **kwargs: Base layer keyword arguments, such as `name`.

    Call arguments:
        inputs: A tuple of segments (a single segment may be passed alone).
        sequence_length: An int overriding the layer's `sequence_length` for
            this call.
        add_start_value: Whether to add the start value. Defaults to `True`.
        add_end_value: Whether to add the end value. Defaults to `True`.

    Returns:
        A tuple `(token_ids, segment_ids)`, both of shape
        `(batch_size, sequence_length)` (or `(sequence_length,)` for
        unbatched segments); `segment_ids` are int32. Eagerly, string
        `token_ids` are Python lists, as KerasHub returns them.

    Raises:
        ValueError: If `truncate` or `padding_side` is not one of the values
            above, a start, end or sep value is not an int, a str, a list or a
            tuple, or the segments differ in rank.
        ImportError: On the first call, if `tensorflow-text` is not installed.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> packer = keras_hub.layers.MultiSegmentPacker(sequence_length=8, start_value=101, end_value=102)
        >>> token_ids, segment_ids = packer(([1, 2, 3, 4], [11, 12, 13, 14]))
        >>> token_ids.numpy(), segment_ids.numpy()
        (array([101,   1,   2,   3, 102,  11,  12, 102], dtype=int32), array([0, 0, 0, 0, 0, 1, 1, 1], dtype=int32))
    """

    def __init__(
        self,
        sequence_length: int,
        start_value: Any,
        end_value: Any,
        sep_value: Any = None,
        pad_value: Any = None,
        truncate: str = "round_robin",
        padding_side: str = "right",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        who = f"MultiSegmentPacker layer '{self.name}'"
        if truncate not in _TRUNCATIONS:
            raise ValueError(f"{who} expected `truncate` to be 'round_robin' or 'waterfall', got {truncate!r}")
        self.sequence_length = sequence_length
        self.truncate = truncate
        self._start_value = start_value  # as given, for the config
        self._sep_value = sep_value
        self._end_value = end_value
        self.start_value = special_values(start_value, "start_value", who) or []
        self.end_value = special_values(end_value, "end_value", who) or []
        self.sep_value = special_values(end_value if sep_value is None else sep_value, "sep_value", who) or []
        self.pad_value = pad_value
        self.padding_side = check_padding_side(padding_side, who)

    def _segments(self, inputs: Any) -> tuple[list[tf.RaggedTensor], bool]:
        """The segments as rank-2 ragged batches, and whether they were unbatched."""
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        if not inputs:
            raise ValueError(f"MultiSegmentPacker layer '{self.name}' needs at least one segment, got an empty tuple")
        converted = [convert_to_ragged_batch(segment) for segment in inputs]
        unbatched = {was_unbatched for _, was_unbatched, _ in converted}
        if len(unbatched) != 1:
            raise ValueError(
                f"MultiSegmentPacker layer '{self.name}': all segments must have the same rank (all batched or "
                f"all single sequences), got {len(inputs)} segments of ranks "
                f"{[1 if was_unbatched else 2 for _, was_unbatched, _ in converted]}"
            )
        return [segment for segment, _, _ in converted], unbatched.pop()

    def _trimmed(
        self, segments: list[tf.RaggedTensor], sequence_length: int, add_start_value: bool, add_end_value: bool
    ) -> list[tf.RaggedTensor]:
        tf_text = tensorflow_text(f"MultiSegmentPacker layer '{self.name}'")
        special = (
            (len(self.start_value) if add_start_value else 0)
            + (len(segments) - 1) * len(self.sep_value)
            + (len(self.end_value) if add_end_value else 0)
        )
        trimmer = tf_text.RoundRobinTrimmer if self.truncate == "round_robin" else tf_text.WaterfallTrimmer
        return trimmer(sequence_length - special).trim(segments)

    def _joined(
        self, segments: list[tf.RaggedTensor], add_start_value: bool, add_end_value: bool
    ) -> tuple[tf.RaggedTensor, tf.RaggedTensor]:
        """The segments joined with their special values, and the segment id of every position."""
        dtype = segments[0].dtype
        batch_size = segments[0].nrows()

        def columns(values: list) -> tf.Tensor:
            row = tf.convert_to_tensor(values, dtype=dtype)
            return tf.repeat(row[tf.newaxis, :], repeats=batch_size, axis=0)

        pieces, ids = [], []
        if add_start_value:
            start = columns(self.start_value)
            pieces.append(start)
            ids.append(tf.zeros_like(start, dtype=tf.int32))
        for index, segment in enumerate(segments):
            pieces.append(segment)
            ids.append(tf.ones_like(segment, dtype=tf.int32) * index)
            last = index == len(segments) - 1
            if last and not add_end_value:
                continue
            closing = columns(self.end_value if last else self.sep_value)
            pieces.append(closing)
            ids.append(tf.ones_like(closing, dtype=tf.int32) * index)
        return tf.concat(pieces, axis=1), tf.concat(ids, axis=1)

    @tf.autograph.experimental.do_not_convert
    def call(
        self, inputs: Any, sequence_length: int | None = None, add_start_value: bool = True, add_end_value: bool = True
    ) -> tuple[Any, Any]:
        segments, unbatched = self._segments(inputs)
        sequence_length = sequence_length or self.sequence_length
        segments = self._trimmed(segments, sequence_length, add_start_value, add_end_value)
        token_ids, segment_ids = self._joined(segments, add_start_value, add_end_value)
        shape = tf.cast([-1, sequence_length], tf.int64)
        token_ids = pad(token_ids, shape=shape, padding_side=self.padding_side, pad_value=self.pad_value)
        segment_ids = pad(segment_ids, shape=shape, padding_side=self.padding_side, pad_value=0)
        if unbatched:
            token_ids, segment_ids = tf.squeeze(token_ids, 0), tf.squeeze(segment_ids, 0)
        return token_ids, segment_ids

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            sequence_length=self.sequence_length,
            start_value=config_value(self._start_value),
            end_value=config_value(self._end_value),
            sep_value=config_value(self._sep_value),
            pad_value=self.pad_value,
            truncate=self.truncate,
            padding_side=self.padding_side,
        )
        return config

    def compute_output_shape(self, inputs_shape: Any) -> tuple:
        if isinstance(inputs_shape[0], tuple):
            inputs_shape = inputs_shape[0]
        shape = list(inputs_shape)
        shape[-1] = self.sequence_length
        return tuple(shape)
