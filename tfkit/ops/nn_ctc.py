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
    """CTC (Connectionist Temporal Classification) loss.

    The negative log-likelihood of the `target` label sequences under the
    per-step class scores `output`, summed over every alignment (TensorFlow's
    `tf.nn.ctc_loss`, batch-major). float64 `output` is computed in float32
    and cast back.

    Args:
        target: A tensor of shape `(batch_size, max_length)` containing
            the true labels in integer format.
        output: A tensor of shape `(batch_size, max_length, num_classes)`
            containing logits (the output of your model).
        target_length: A tensor of shape `(batch_size,)` containing the
            true label lengths.
        output_length: A tensor of shape `(batch_size,)` containing the
            output lengths.
        mask_index: The index of the mask (blank) character in the vocabulary.
            Defaults to `0`.

    Returns:
        A tensor of shape `(batch_size,)`: the loss of each sequence, in the
        dtype of `output`.

    Raises:
        ValueError: If `target` is not of rank 2 or `output` not of rank 3, or
            if the four arguments disagree on the batch size.

    Example:
        >>> probabilities = np.array([[[0.6, 0.3, 0.1], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8]]])
        >>> logits = np.log(probabilities).astype("float32")
        >>> loss = tfkit.ops.ctc_loss(np.array([[1, 2]]), logits, np.array([2]), np.array([3]))
        >>> np.round(loss.numpy(), 4)
        array([0.9493], dtype=float32)
    """
    target = tf.cast(tensor(target), tf.int32)
    output = float_of(tensor(output))
    if len(target.shape) != 2 or len(output.shape) != 3:
        raise ValueError(
            f"ctc_loss: target must have rank 2 (batch, max_label_length) and output rank 3 "
            f"(batch, steps, classes), got shapes {tuple(target.shape)} and {tuple(output.shape)}"
        )
    batch = [("target", target.shape[0]), ("output", output.shape[0])]
    lengths = {
        "target_length": tf.cast(tensor(target_length), tf.int32),
        "output_length": tf.cast(tensor(output_length), tf.int32),
    }
    batch += [(name, t.shape[0] if len(t.shape) else None) for name, t in lengths.items()]
    known = {name: n for name, n in batch if n is not None}
    if len(set(known.values())) > 1:
        raise ValueError(
            f"ctc_loss: target, output, target_length and output_length must share the batch size, got {known}"
        )
    result_dtype = output.dtype
    output = tf.cast(output, tf.float32) if output.dtype == tf.float64 else output
    loss = tf.nn.ctc_loss(
        labels=target,
        logits=output,
        label_length=lengths["target_length"],
        logit_length=lengths["output_length"],
        logits_time_major=False,
        blank_index=mask_index,
    )
    return tf.cast(loss, result_dtype)


def ctc_decode(
    inputs: Any,
    sequence_lengths: Any,
    strategy: str = "greedy",
    beam_width: int = 100,
    top_paths: int = 1,
    merge_repeated: bool = True,
    mask_index: int | None = 0,
) -> tuple[tf.Tensor, tf.Tensor]:
    """Decodes the output of a CTC model.

    The greedy strategy takes the best class at each step, then (with
    `merge_repeated`) merges repeated labels and drops the mask (blank) class;
    the beam search keeps the `beam_width` best prefixes at each step.

    Args:
        inputs: A tensor of shape `(batch_size, max_length, num_classes)`
            containing the logits (the output of the model).
            They should not be normalized via softmax.
        sequence_lengths: A tensor of shape `(batch_size,)` containing the
            sequence lengths for the batch.
        strategy: A string for the decoding strategy. Supported values are
            `"greedy"` (the default) and `"beam_search"`.
        beam_width: An integer scalar beam width used in beam search.
            Defaults to `100`.
        top_paths: An integer scalar, the number of top paths to return (beam
            search only). Defaults to `1`.
        merge_repeated: A boolean scalar, whether to merge repeated
            labels in the output (greedy strategy only). Defaults to `True`.
        mask_index: An integer scalar, the index of the mask character in
            the vocabulary; `None` means the last class, as in TensorFlow.
            Defaults to `0`.

    Returns:
        A tuple containing:

        - The int32 tensor representing the list of decoded sequences. If
          `strategy="greedy"`, the shape is `(1, batch_size, max_length)`. If
          `strategy="beam_search"`, the shape is
          `(top_paths, batch_size, max_length)`. Positions past the end of a
          decoded sequence hold `-1`.
        - If `strategy="greedy"`, a tensor of shape `(batch_size, 1)`
          representing the negative of the sum of the probability logits for
          each sequence. If `strategy="beam_search"`, a tensor of shape
          `(batch_size, top_paths)` representing the log probability for each
          sequence.

    Raises:
        ValueError: If `strategy` is not one of the values above, or if
            `inputs` is not of rank 3.

    Example:
        >>> probabilities = np.array([[[0.1, 0.8, 0.1], [0.1, 0.8, 0.1], [0.8, 0.1, 0.1], [0.1, 0.1, 0.8]]])
        >>> logits = np.log(probabilities).astype("float32")
        >>> paths, scores = tfkit.ops.ctc_decode(logits, np.array([4]))
        >>> paths.numpy()
        array([[[ 1,  2, -1, -1]]], dtype=int32)
        >>> np.round(scores.numpy(), 4)
        array([[0.8926]], dtype=float32)
        >>> paths, _ = tfkit.ops.ctc_decode(logits, np.array([4]), strategy="beam_search", top_paths=2)
        >>> paths.shape
        TensorShape([2, 1, 4])
    """
    if strategy not in ("greedy", "beam_search"):
        raise ValueError(f"ctc_decode: strategy must be 'greedy' or 'beam_search', got {strategy!r}")
    inputs = float_of(tensor(inputs))
    if len(inputs.shape) != 3:
        raise ValueError(
            f"ctc_decode: inputs must have rank 3 (batch, steps, classes), got shape {tuple(inputs.shape)}"
        )
    shape = tf.shape(inputs, out_type=tf.int64)
    time_major = tf.transpose(inputs, [1, 0, 2])
    lengths = tf.cast(tensor(sequence_lengths), tf.int32)
    classes = inputs.shape[-1]
    if strategy == "greedy":
        decoded, scores = tf.nn.ctc_greedy_decoder(
            time_major, lengths, merge_repeated=merge_repeated, blank_index=mask_index
        )
    else:
        blank = None if mask_index is None else mask_index % classes if classes is not None else mask_index
        if blank is not None:  # TensorFlow's beam search takes the last class as the blank: move it there
            time_major = tf.concat(
                [time_major[..., :blank], time_major[..., blank + 1 :], time_major[..., blank : blank + 1]], axis=-1
            )
        decoded, scores = tf.nn.ctc_beam_search_decoder(time_major, lengths, beam_width=beam_width, top_paths=top_paths)
        if blank is not None:
            decoded = [
                tf.SparseTensor(d.indices, tf.where(d.values >= blank, d.values + 1, d.values), d.dense_shape)
                for d in decoded
            ]
    dense = [tf.sparse.to_dense(tf.SparseTensor(d.indices, d.values, shape[:2]), default_value=-1) for d in decoded]
    return tf.cast(tf.stack(dense), tf.int32), scores


__all__ = ["ctc_loss", "ctc_decode"]
export(globals(), __all__)
