"""``StartEndPacker``: start and end tokens around each sequence, then padding to a fixed length.

    packer = StartEndPacker(sequence_length=6, start_value=1, end_value=2)
    packer([[5, 6, 7], [8, 9, 10, 11, 12]])       # [[1 5 6 7 2 0] [1 8 9 10 11 2]]

Sequences are cut first, so that the start and end tokens always fit, then
padded on the right (or the left) with ``pad_value``. Ids or strings, one
sequence or a (ragged) batch; TensorFlow ops only.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.config_values import config_value
from tfkit.hub.layers.preprocessing_layer import PreprocessingLayer
from tfkit.hub.layers.preprocessing_tensors import check_padding_side, convert_to_ragged_batch, pad, special_values
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class StartEndPacker(PreprocessingLayer):
    """Adds start and end tokens to a sequence and pads to a fixed length.

    Use it after tokenization, to give each sequence its start and end markers
    (a translation target, a causal language model's input). Each sequence is
    first cut to fit `sequence_length` with its start and end values, then
    padded. Inputs are token ids or token strings: one sequence (a list or a
    rank-1 tensor) or a batch (a list of lists, a rank-2 tensor or a
    `tf.RaggedTensor`).

    Args:
        sequence_length: Integer, the length of the packed outputs.
        start_value: The id(s) or token(s) put at the start of each sequence:
            an int, a str, or a list or tuple of them. Its type must match the
            inputs'. `None` (the default) adds none.
        end_value: The id(s) or token(s) put at the end of each sequence, as
            `start_value`. `None` (the default) adds none.
        pad_value: The id or token that fills the positions after the
            sequence. `None` (the default) pads with `0` or `""`.
        return_padding_mask: Whether to also return a boolean mask, `True`
            where the output is not padding. Defaults to `False`.
        name: The layer's name. Defaults to `None` (a unique name).
        padding_side: `"right"` (the default) or `"left"`: where the padding
            goes.
        **kwargs: Base layer keyword arguments, such as `dtype`.

    Call arguments:
        inputs: A `tf.Tensor`, a `tf.RaggedTensor`, or (nested) Python lists of
            ids or strings.
        sequence_length: An int overriding the layer's `sequence_length` for
            this call.
        add_start_value: Whether to add the start value. Defaults to `True`.
        add_end_value: Whether to add the end value. Defaults to `True`.

    Returns:
        The packed `(batch_size, sequence_length)` (or `(sequence_length,)`)
        ids or strings, and the padding mask of the same shape when
        `return_padding_mask=True`. Eagerly, string outputs are Python lists,
        as KerasHub returns them.

    Raises:
        ValueError: If a start or end value is not an int, a str, a list or a
            tuple, or `padding_side` is not `"left"` or `"right"`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> packer = keras_hub.layers.StartEndPacker(sequence_length=6, start_value=1, end_value=2)
        >>> packer([[5, 6, 7], [8, 9, 10, 11, 12, 13]]).numpy()
        array([[ 1,  5,  6,  7,  2,  0],
               [ 1,  8,  9, 10, 11,  2]], dtype=int32)
        >>> strings = keras_hub.layers.StartEndPacker(
        ...     sequence_length=5, start_value="<s>", end_value="</s>", pad_value="<pad>", return_padding_mask=True
        ... )
        >>> tokens, mask = strings(["this", "is"])
        >>> tokens, mask.numpy()
        (['<s>', 'this', 'is', '</s>', '<pad>'], array([ True,  True,  True,  True, False]))
    """

    def __init__(
        self,
        sequence_length: int,
        start_value: Any = None,
        end_value: Any = None,
        pad_value: Any = None,
        return_padding_mask: bool = False,
        name: str | None = None,
        padding_side: str = "right",
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        who = f"StartEndPacker layer '{self.name}'"
        self.sequence_length = sequence_length
        self._start_value = start_value  # as given, for the config
        self._end_value = end_value
        self.start_value = special_values(start_value, "start_value", who)
        self.end_value = special_values(end_value, "end_value", who)
        self.pad_value = pad_value
        self.return_padding_mask = return_padding_mask
        self.padding_side = check_padding_side(padding_side, who)

    @tf.autograph.experimental.do_not_convert
    def call(
        self, inputs: Any, sequence_length: int | None = None, add_start_value: bool = True, add_end_value: bool = True
    ) -> Any:
        x, unbatched, _ = convert_to_ragged_batch(inputs)
        batch_size = x.nrows(out_type=tf.int32)
        sequence_length = sequence_length or self.sequence_length
        starts = self.start_value if add_start_value and self.start_value is not None else []
        ends = self.end_value if add_end_value and self.end_value is not None else []
        x = x[..., : sequence_length - len(starts) - len(ends)]
        if starts:
            x = tf.concat([_columns(starts, x.dtype, batch_size), x], axis=-1)
        if ends:
            x = tf.concat([x, _columns(ends, x.dtype, batch_size)], axis=-1)
        shape = (batch_size, sequence_length)
        outputs = pad(x, shape=shape, padding_side=self.padding_side, pad_value=self.pad_value)
        outputs = tf.squeeze(outputs, axis=0) if unbatched else outputs
        if not self.return_padding_mask:
            return outputs
        mask = pad(tf.ones_like(x, dtype=tf.bool), shape=shape, padding_side=self.padding_side, pad_value=False)
        return outputs, (tf.squeeze(mask, axis=0) if unbatched else mask)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            sequence_length=self.sequence_length,
            start_value=config_value(self._start_value),
            end_value=config_value(self._end_value),
            pad_value=self.pad_value,
            return_padding_mask=self.return_padding_mask,
            padding_side=self.padding_side,
        )
        return config

    def compute_output_shape(self, inputs_shape: Any) -> Any:
        shape = list(inputs_shape)
        shape[-1] = self.sequence_length
        return (tuple(shape), tuple(shape)) if self.return_padding_mask else tuple(shape)


def _columns(values: list, dtype: tf.DType, batch_size: tf.Tensor) -> tf.Tensor:
    """``values`` as a ``(batch_size, len(values))`` block, in the inputs' dtype."""
    row = tf.convert_to_tensor(values, dtype=dtype)
    return tf.repeat(row[tf.newaxis, :], repeats=batch_size, axis=0)
