"""Connectionist temporal classification: the CTC loss and greedy / beam-search decoding, batch-major.

    loss = tfkit.ops.ctc_loss(labels, logits, label_lengths, logit_lengths)     # (batch,)
    paths, scores = tfkit.ops.ctc_decode(logits, logit_lengths)                 # greedy
    paths, scores = tfkit.ops.ctc_decode(logits, lengths, strategy="beam_search", top_paths=3)

``paths`` is ``(top_paths, batch, steps)`` int32 padded with -1; ``mask_index`` is the blank class.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.ops._convert import export, float_of, tensor


def ctc_loss(target: Any, output: Any, target_length: Any, output_length: Any, mask_index: int = 0) -> tf.Tensor:
    """The CTC negative log-likelihood of ``target`` (B, L) labels under ``output`` (B, T, classes) logits."""
    target = tf.cast(tensor(target), tf.int32)
    output = float_of(tensor(output))
    if len(target.shape) != 2 or len(output.shape) != 3:
        raise ValueError(f"ctc_loss: target must have rank 2 (batch, max_label_length) and output rank 3 "
                         f"(batch, steps, classes), got shapes {tuple(target.shape)} and {tuple(output.shape)}")
    batch = [("target", target.shape[0]), ("output", output.shape[0])]
    lengths = {"target_length": tf.cast(tensor(target_length), tf.int32),
               "output_length": tf.cast(tensor(output_length), tf.int32)}
    batch += [(name, t.shape[0] if len(t.shape) else None) for name, t in lengths.items()]
    known = {name: n for name, n in batch if n is not None}
    if len(set(known.values())) > 1:
        raise ValueError(f"ctc_loss: target, output, target_length and output_length must share the batch size, "
                         f"got {known}")
    result_dtype = output.dtype
    output = tf.cast(output, tf.float32) if output.dtype == tf.float64 else output
    loss = tf.nn.ctc_loss(labels=target, logits=output, label_length=lengths["target_length"],
                          logit_length=lengths["output_length"], logits_time_major=False, blank_index=mask_index)
    return tf.cast(loss, result_dtype)


def ctc_decode(inputs: Any, sequence_lengths: Any, strategy: str = "greedy", beam_width: int = 100,
               top_paths: int = 1, merge_repeated: bool = True, mask_index: int | None = 0) -> tuple[tf.Tensor, tf.Tensor]:
    """The most likely label sequences for ``inputs`` (B, T, classes): ``(paths, scores)``."""
    if strategy not in ("greedy", "beam_search"):
        raise ValueError(f"ctc_decode: strategy must be 'greedy' or 'beam_search', got {strategy!r}")
    inputs = float_of(tensor(inputs))
    if len(inputs.shape) != 3:
        raise ValueError(f"ctc_decode: inputs must have rank 3 (batch, steps, classes), got shape {tuple(inputs.shape)}")
    shape = tf.shape(inputs, out_type=tf.int64)
    time_major = tf.transpose(inputs, [1, 0, 2])
    lengths = tf.cast(tensor(sequence_lengths), tf.int32)
    classes = inputs.shape[-1]
    if strategy == "greedy":
        decoded, scores = tf.nn.ctc_greedy_decoder(time_major, lengths, merge_repeated=merge_repeated,
                                                   blank_index=mask_index)
    else:
        blank = None if mask_index is None else mask_index % classes if classes is not None else mask_index
        if blank is not None:  # TensorFlow's beam search takes the last class as the blank: move it there
            time_major = tf.concat([time_major[..., :blank], time_major[..., blank + 1:],
                                    time_major[..., blank:blank + 1]], axis=-1)
        decoded, scores = tf.nn.ctc_beam_search_decoder(time_major, lengths, beam_width=beam_width,
                                                        top_paths=top_paths)
        if blank is not None:
            decoded = [tf.SparseTensor(d.indices, tf.where(d.values >= blank, d.values + 1, d.values), d.dense_shape)
                       for d in decoded]
    dense = [tf.sparse.to_dense(tf.SparseTensor(d.indices, d.values, shape[:2]), default_value=-1) for d in decoded]
    return tf.cast(tf.stack(dense), tf.int32), scores


__all__ = ["ctc_loss", "ctc_decode"]
export(globals(), __all__)
