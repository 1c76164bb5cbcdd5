"""What a task adds to ``fit``, ``evaluate`` and ``predict``: its preprocessor, mapped over the data in ``tf.data``.

    task.fit(["a great movie", "a dull one"], [1, 0], batch_size=2)    # raw strings in
    task.predict(["another one"])

In-memory inputs (lists of strings, arrays) are sliced into a ``tf.data``
dataset and batched (``batch_size``, 32 by default); a dataset is taken as
batched already. The task's ``preprocess_samples`` is then mapped over the
batches, in parallel, and the model's own loops train on the result, as
KerasHub's ``PipelineModel`` does. ``validation_split`` takes the last
samples before batching, as Keras does.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit.utils import pack_x_y_sample_weight, unpack_x_y_sample_weight


def _slices(x: Any, y: Any, sample_weight: Any, batch_size: int | None) -> tf.data.Dataset:
    inputs = pack_x_y_sample_weight(x, y, sample_weight)
    try:
        dataset = tf.data.Dataset.from_tensor_slices(inputs)
    except ValueError as error:
        if "rank >= 1" in str(error):
            raise ValueError(
                "x, y and sample_weight need a batch dimension for fit, evaluate and predict: put a single "
                "string in a list (['some text'])"
            ) from None
        raise
    return dataset.batch(batch_size or 32)


def preprocessed_dataset(x: Any, y: Any, sample_weight: Any, batch_size: Any, preprocess: Any) -> tf.data.Dataset:
    """``(x, y, sample_weight)`` as batches of ``preprocess``'s output (``x`` may already be a dataset)."""
    if isinstance(x, tf.data.Dataset):
        for name, value in (("y", y), ("sample_weight", sample_weight), ("batch_size", batch_size)):
            if value is not None:
                raise ValueError(f"When x is a tf.data.Dataset, do not pass {name} (got {type(value).__name__})")
        dataset = x
    else:
        dataset = _slices(x, y, sample_weight, batch_size)
    return dataset.map(
        lambda *batch: preprocess(*unpack_x_y_sample_weight(batch if len(batch) > 1 else batch[0])),
        num_parallel_calls=tf.data.AUTOTUNE,
    ).prefetch(tf.data.AUTOTUNE)


def split_for_validation(arrays: tuple, validation_split: float) -> tuple[tuple, tuple]:
    """``arrays`` (``x``, ``y``, ``sample_weight``) cut at ``1 - validation_split``: the last samples validate."""
    flat = [a for a in tf.nest.flatten(arrays) if a is not None]
    if not flat:
        return arrays, arrays
    count = len(flat[0])
    split_at = int(math.floor(count * (1.0 - validation_split)))
    if split_at in (0, count):
        raise ValueError(
            f"validation_split={validation_split} leaves no samples for training or validation among {count}"
        )
    cut = lambda start, end: tf.nest.map_structure(lambda a: None if a is None else a[start:end], arrays)
    return cut(0, split_at), cut(split_at, count)


class PreprocessingPipeline:
    """``fit``, ``evaluate``, ``predict`` and the ``*_on_batch`` methods of a task, with its preprocessing."""

    def preprocess_samples(self, x: Any, y: Any = None, sample_weight: Any = None) -> Any:
        """`(x, y, sample_weight)` as the model takes them: the preprocessor's output, or unchanged without one.

        Args:
            x: A batch of raw inputs (strings, images).
            y: The batch's targets, or `None`.
            sample_weight: The batch's sample weights, or `None`.

        Returns:
            `(x, y, sample_weight)` packed as Keras packs them.
        """
        preprocessor = getattr(self, "preprocessor", None)
        if preprocessor is None:
            return pack_x_y_sample_weight(x, y, sample_weight)
        if hasattr(preprocessor, "tokenizer") or hasattr(preprocessor, "image_converter"):
            return preprocessor(x, y=y, sample_weight=sample_weight)
        return pack_x_y_sample_weight(preprocessor(x), y, sample_weight)

    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        sample_weight: Any = None,
        validation_data: Any = None,
        validation_split: float | None = None,
        **kwargs: Any,
    ) -> Any:
        """`Model.fit` on raw data: the task's preprocessor runs on every batch in `tf.data` (see `tfkit.Model.fit`)."""
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = split_for_validation((x, y, sample_weight), validation_split)
        data = preprocessed_dataset(x, y, sample_weight, batch_size, self.preprocess_samples)
        if validation_data is not None:
            if isinstance(validation_data, tf.data.Dataset):
                validation_data = preprocessed_dataset(validation_data, None, None, None, self.preprocess_samples)
            else:
                vx, vy, vsw = unpack_x_y_sample_weight(tuple(validation_data))
                validation_data = preprocessed_dataset(vx, vy, vsw, batch_size, self.preprocess_samples)
        return super().fit(x=data, validation_data=validation_data, **kwargs)

    def evaluate(
        self, x: Any = None, y: Any = None, batch_size: int | None = None, sample_weight: Any = None, **kwargs: Any
    ) -> Any:
        """`Model.evaluate` on raw data, preprocessed in `tf.data` (see `tfkit.Model.evaluate`)."""
        data = preprocessed_dataset(x, y, sample_weight, batch_size, self.preprocess_samples)
        return super().evaluate(x=data, **kwargs)

    def predict(self, x: Any = None, batch_size: int | None = None, **kwargs: Any) -> Any:
        """`Model.predict` on raw data, preprocessed in `tf.data` (see `tfkit.Model.predict`)."""
        data = preprocessed_dataset(x, None, None, batch_size, self.preprocess_samples)
        return super().predict(x=data, **kwargs)

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, **kwargs: Any) -> Any:
        """`Model.train_on_batch` on one raw batch, preprocessed first."""
        x, y, sample_weight = unpack_x_y_sample_weight(self.preprocess_samples(x, y, sample_weight))
        return super().train_on_batch(x, y, sample_weight=sample_weight, **kwargs)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, **kwargs: Any) -> Any:
        """`Model.test_on_batch` on one raw batch, preprocessed first."""
        x, y, sample_weight = unpack_x_y_sample_weight(self.preprocess_samples(x, y, sample_weight))
        return super().test_on_batch(x, y, sample_weight=sample_weight, **kwargs)

    def predict_on_batch(self, x: Any, **kwargs: Any) -> Any:
        """`Model.predict_on_batch` on one raw batch, preprocessed first."""
        x, _, _ = unpack_x_y_sample_weight(self.preprocess_samples(x))
        return super().predict_on_batch(x, **kwargs)
