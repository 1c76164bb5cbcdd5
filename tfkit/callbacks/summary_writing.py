"""Scalar, histogram and image summaries in TensorBoard's format, from core TensorFlow.

    with tf.summary.create_file_writer("logs/train").as_default():
        write_scalar("epoch_loss", 0.25, step=3)
        write_histogram("dense/kernel/histogram", kernel, step=3)

``tf.summary.scalar`` and friends live in the ``tensorboard`` package, which
TensorFlow does not always install. These writers produce the same event
records (plugin name, data class and tensor layout of TensorBoard's "scalars",
"histograms" and "images" plugins) with ``tf.summary.write`` alone, so tfkit
needs only TensorFlow to log and TensorBoard only to view.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

HISTOGRAM_BUCKETS = 30
_DATA_CLASS_SCALAR = 1
_DATA_CLASS_TENSOR = 2
_DATA_CLASS_BLOB_SEQUENCE = 3


def _metadata(plugin_name: str, data_class: int) -> tf.compat.v1.SummaryMetadata:
    metadata = tf.compat.v1.SummaryMetadata()
    metadata.plugin_data.plugin_name = plugin_name
    metadata.data_class = data_class
    return metadata


def write_scalar(tag: str, value: Any, step: int) -> bool:
    """One float32 scalar under ``tag`` (TensorBoard's "scalars" plugin)."""
    tensor = tf.constant(float(np.asarray(value)), tf.float32)
    return bool(tf.summary.write(tag, tensor, step=step, metadata=_metadata("scalars", _DATA_CLASS_SCALAR)))


def histogram_buckets(values: Any, bucket_count: int = HISTOGRAM_BUCKETS) -> np.ndarray:
    """``[bucket_count, 3]`` rows of (left edge, right edge, count), as TensorBoard reads them."""
    data = np.asarray(values, dtype=np.float64).reshape(-1)
    data = data[np.isfinite(data)]
    if data.size == 0:
        return np.zeros((0, 3), np.float64)
    low, high = float(data.min()), float(data.max())
    if low == high:
        low, high = low - 0.5, high + 0.5
    counts, edges = np.histogram(data, bins=bucket_count, range=(low, high))
    return np.stack([edges[:-1], edges[1:], counts.astype(np.float64)], axis=1)


def write_histogram(tag: str, values: Any, step: int, bucket_count: int = HISTOGRAM_BUCKETS) -> bool:
    """A histogram of ``values`` under ``tag`` (TensorBoard's "histograms" plugin)."""
    tensor = tf.constant(histogram_buckets(values, bucket_count), tf.float64)
    return bool(tf.summary.write(tag, tensor, step=step, metadata=_metadata("histograms", _DATA_CLASS_TENSOR)))


def write_images(tag: str, images: Any, step: int, max_outputs: int = 3) -> bool:
    """A batch of ``[k, h, w, channels]`` images with values in [0, 1] (the "images" plugin).

    Stored as TensorBoard expects: ``[width, height, png_0, png_1, ...]`` strings.
    """
    array = np.asarray(images)
    if array.ndim != 4 or array.shape[-1] not in (1, 3, 4):
        raise ValueError(f"write_images expects [k, height, width, 1|3|4] images; got shape {array.shape} for {tag!r}")
    pixels = np.clip(np.round(array[:max_outputs] * 255.0), 0, 255).astype(np.uint8)
    encoded = [tf.io.encode_png(image) for image in pixels]
    height, width = array.shape[1], array.shape[2]
    tensor = tf.stack([tf.constant(str(width)), tf.constant(str(height)), *encoded])
    return bool(tf.summary.write(tag, tensor, step=step, metadata=_metadata("images", _DATA_CLASS_BLOB_SEQUENCE)))
