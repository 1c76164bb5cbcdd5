"""predict's output assembly: one copy at most, the numbers of np.concatenate, and one trace of the model."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.training.prediction_buffer import PredictionBuffer, as_numpy


def test_one_chunk_holding_every_row_is_handed_over_without_a_copy():
    tensor = tf.reshape(tf.range(12, dtype=tf.float32), (4, 3))
    buffer = PredictionBuffer(total_rows=4)
    buffer.add({"a": tensor}, rows=4)
    result = buffer.result()["a"]
    np.testing.assert_array_equal(result, np.arange(12).reshape(4, 3))
    assert np.shares_memory(result, as_numpy(tensor)) or result.base is not None
    result[0, 0] = -1.0  # users may write into what predict returns, as in Keras
    assert result[0, 0] == -1.0


def test_chunks_fill_one_preallocated_array_per_output():
    parts = [np.random.default_rng(i).random((rows, 2)).astype("float32") for i, rows in enumerate((3, 5, 2))]
    buffer = PredictionBuffer(total_rows=10)
    for part in parts:
        chunk = buffer.add((tf.constant(part), tf.constant(part[:, :1] * 2)), rows=len(part))
        np.testing.assert_array_equal(chunk[0], part)
    first, second = buffer.result()
    np.testing.assert_array_equal(first, np.concatenate(parts))
    np.testing.assert_array_equal(second, np.concatenate(parts)[:, :1] * 2)


def test_outputs_that_do_not_follow_the_rows_are_concatenated():
    buffer = PredictionBuffer(total_rows=4)
    buffer.add(tf.ones((2, 3)), rows=2)
    buffer.add(tf.zeros((5, 3)), rows=2)  # a custom predict_step may return other row counts
    np.testing.assert_array_equal(buffer.result(), np.concatenate([np.ones((2, 3)), np.zeros((5, 3))]))


def test_no_chunk_is_a_clear_error():
    with pytest.raises(ValueError, match="input is empty"):
        PredictionBuffer(total_rows=None).result()


class CountingModel(tfkit.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(3)
        self.traces = 0

    def call(self, inputs):
        self.traces += 1  # Python runs once per trace (and once per eager call)
        return self.dense(inputs) * 2.0


def test_predict_traces_a_subclassed_model_once_and_matches_numpy():
    x = np.random.default_rng(0).random((1000, 4)).astype("float32")
    model = CountingModel()
    model(x[:2])  # built eagerly: one Python call
    before = model.traces
    predictions = model.predict(x, batch_size=64, verbose=0)  # many chunks and a short last batch
    assert model.traces - before == 1
    kernel, bias = (w.numpy() for w in model.dense.weights)
    np.testing.assert_allclose(predictions, (x @ kernel + bias) * 2.0, rtol=1e-5, atol=1e-6)
    assert predictions.flags.writeable
