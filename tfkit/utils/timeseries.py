"""``timeseries_dataset_from_array``: sliding windows over a series as a batched ``tf.data.Dataset``.

ds = tfkit.utils.timeseries_dataset_from_array(data, targets=data[10:], sequence_length=10, batch_size=32)
for windows, next_values in ds: ...        # windows: (batch, 10, features)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.utils import dataset_format


def timeseries_dataset_from_array(
    data: Any,
    targets: Any,
    sequence_length: int,
    sequence_stride: int = 1,
    sampling_rate: int = 1,
    batch_size: int | None = 128,
    shuffle: bool = False,
    seed: int | None = None,
    start_index: int | None = None,
    end_index: int | None = None,
    format: str = "tf",
) -> tf.data.Dataset:  # noqa: A002
    """Creates a dataset of sliding windows over a timeseries provided as an array.

    Window `i` holds `data[start + i * sequence_stride + k * sampling_rate]`
    for `k < sequence_length`, where `start` is `start_index`; its target is
    `targets[i]` (Keras's definition). To predict the value after each
    window, pass `targets=data[sequence_length:]`. Windows that would run
    past `end_index` (or past the targets) are dropped.

    Args:
        data: Array-like of timesteps, with the time axis first.
        targets: Array-like of targets, one per window (`targets[i]` for
            window `i`), or `None` for a dataset of windows only.
        sequence_length: Positive int, the number of timesteps per window.
        sequence_stride: Positive int, the offset between the starts of
            successive windows. Defaults to `1`.
        sampling_rate: Positive int, the step between timesteps within a
            window. Defaults to `1`.
        batch_size: Number of windows per batch, or `None` for an unbatched
            dataset. Defaults to `128`.
        shuffle: Whether to shuffle the windows (their order, not their
            contents). Defaults to `False`.
        seed: Optional random seed for shuffling. Defaults to `None`.
        start_index: Optional first timestep used (inclusive). Defaults to
            `None` (0).
        end_index: Optional last timestep used (exclusive). Defaults to
            `None` (`len(data)`).
        format: Must be `"tf"` (Keras's `"grain"` is not offered). Defaults
            to `"tf"`.

    Returns:
        A `tf.data.Dataset` of `(windows, targets)` batches (or windows only
        when `targets` is `None`), windows of shape
        `(batch, sequence_length, ...)`.

    Raises:
        ValueError: If a length, stride or rate is not a positive int, the
            indices are out of range, or `format` is not `"tf"`.

    Example:
        >>> ds = tfkit.utils.timeseries_dataset_from_array(
        ...     np.arange(10), targets=np.arange(3, 10), sequence_length=3, batch_size=2)
        >>> windows, targets = next(iter(ds))
        >>> windows.numpy()
        array([[0, 1, 2],
               [1, 2, 3]])
        >>> targets.numpy()
        array([3, 4])
    """
    dataset_format.check_format(format, "timeseries_dataset_from_array")
    for name, value in (
        ("sequence_length", sequence_length),
        ("sequence_stride", sequence_stride),
        ("sampling_rate", sampling_rate),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
            raise ValueError(f"timeseries_dataset_from_array: {name} must be a positive int, got {value!r}")
    data = np.asarray(data)
    start = 0 if start_index is None else int(start_index)
    end = len(data) if end_index is None else int(end_index)
    if not 0 <= start < end <= len(data):
        raise ValueError(
            f"timeseries_dataset_from_array: start_index/end_index must satisfy "
            f"0 <= start < end <= {len(data)}, got {start_index!r}, {end_index!r}"
        )
    span = (sequence_length - 1) * sampling_rate
    count = (end - start - span - 1) // sequence_stride + 1 if end - start > span else 0
    if targets is not None:
        count = min(count, len(targets))
    starts = start + np.arange(count, dtype="int64") * sequence_stride
    if shuffle:
        np.random.default_rng(seed).shuffle(starts)
    offsets = np.arange(sequence_length, dtype="int64") * sampling_rate
    source = tf.constant(data)
    windows = tf.data.Dataset.from_tensor_slices(starts).map(
        lambda s: tf.gather(source, s + offsets), num_parallel_calls=tf.data.AUTOTUNE
    )
    if targets is not None:
        target_values = tf.constant(np.asarray(targets))
        indices = (starts - start) // sequence_stride
        labels = tf.data.Dataset.from_tensor_slices(indices).map(lambda i: tf.gather(target_values, i))
        windows = tf.data.Dataset.zip((windows, labels))
    return windows.batch(batch_size) if batch_size is not None else windows
