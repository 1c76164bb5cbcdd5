"""Small array utilities with Keras's names: one-hot labels, padded sequences, normalized rows.

    y = tfkit.utils.to_categorical([0, 2, 1], num_classes=3)
    x = tfkit.utils.pad_sequences([[1, 2], [3]], maxlen=4)        # [[0 0 1 2] [0 0 0 3]]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np


def to_categorical(x: Any, num_classes: int | None = None) -> np.ndarray:
    """One-hot float32 rows for integer labels (a trailing axis of size 1 is dropped first, as in Keras)."""
    labels = np.asarray(x, dtype="int64")
    shape = labels.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    labels = labels.ravel()
    if labels.size and labels.min() < 0:
        raise ValueError(f"to_categorical expects non-negative integer labels, got {int(labels.min())}")
    num_classes = int(labels.max()) + 1 if num_classes is None else int(num_classes)
    if labels.size and labels.max() >= num_classes:
        raise ValueError(f"to_categorical: label {int(labels.max())} is out of range for num_classes={num_classes}")
    out = np.zeros((labels.size, num_classes), dtype="float32")
    out[np.arange(labels.size), labels] = 1
    return out.reshape(*shape, num_classes)


def normalize(x: Any, axis: int = -1, order: int = 2) -> np.ndarray:
    """``x`` divided by its ``order``-norm along ``axis`` (zero rows stay zero)."""
    x = np.asarray(x, dtype="float32") if not np.issubdtype(np.asarray(x).dtype, np.floating) else np.asarray(x)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def pad_sequences(sequences: Sequence[Sequence[Any]], maxlen: int | None = None, dtype: str = "int32",
                  padding: str = "pre", truncating: str = "pre", value: float = 0.0) -> np.ndarray:
    """A 2-D array of the sequences padded (or cut) to ``maxlen``, at the start (``"pre"``) or end (``"post"``)."""
    if padding not in ("pre", "post") or truncating not in ("pre", "post"):
        raise ValueError(f"pad_sequences: padding and truncating must be 'pre' or 'post', got {padding!r}, "
                         f"{truncating!r}")
    if not hasattr(sequences, "__len__"):
        raise ValueError("pad_sequences expects a list of sequences")
    lengths = [len(s) for s in sequences]
    maxlen = max(lengths, default=0) if maxlen is None else int(maxlen)
    sample_shape = ()
    for s in sequences:
        if len(s):
            sample_shape = np.asarray(s).shape[1:]
            break
    out = np.full((len(sequences), maxlen, *sample_shape), value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s) or maxlen == 0:
            continue
        trunc = np.asarray(s[-maxlen:] if truncating == "pre" else s[:maxlen], dtype=dtype)
        if padding == "post":
            out[i, : len(trunc)] = trunc
        else:
            out[i, -len(trunc):] = trunc
    return out
