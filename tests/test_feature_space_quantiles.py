"""Discretization.adapt finds Keras 3's boundaries (FeatureSpace's "float_discretized" features depend on them).

Keras summarizes each batch, merges and compresses the summaries (approximate
quantiles); the numbers below are Keras 3.15's for the same data and batching.
"""

import numpy as np
import pytest
import tensorflow as tf

from tfkit import layers

VALUES = ((np.arange(40) * 7) % 23).astype("float32").reshape(-1, 1)


@pytest.mark.parametrize(
    "epsilon, expected",
    [
        (0.01, [4.0, 8.0, 13.0, 18.0]),
        (0.1, [4.530313014984131, 8.29000186920166, 14.600004196166992, 18.73760223388672]),
    ],
)
def test_discretization_adapt_on_batches_gives_keras_boundaries(epsilon, expected):
    layer = layers.Discretization(num_bins=5, epsilon=epsilon)
    layer.adapt(tf.data.Dataset.from_tensor_slices(VALUES).batch(8))
    np.testing.assert_allclose(layer.bin_boundaries, expected, rtol=1e-6)


def test_discretization_adapt_on_an_array_and_with_steps():
    layer = layers.Discretization(num_bins=4)
    layer.adapt(np.arange(100, dtype="float32"))
    np.testing.assert_allclose(layer.bin_boundaries, [24.0, 49.0, 74.0], rtol=1e-5)
    first_batch_only = layers.Discretization(num_bins=5)
    first_batch_only.adapt(tf.data.Dataset.from_tensor_slices(VALUES).batch(8), steps=1)
    np.testing.assert_allclose(
        first_batch_only.bin_boundaries, [1.8, 5.4, 11.0, 16.0], rtol=1e-6
    )  # Keras: batch 1 only
    with pytest.raises(ValueError, match="adapt\\(\\) got no data"):
        layers.Discretization(num_bins=5).adapt(tf.data.Dataset.from_tensor_slices(VALUES[:0]).batch(8))


def test_discretization_adapt_equals_keras_on_random_batches():
    keras = pytest.importorskip("keras")
    data = np.random.default_rng(3).normal(50, 10, size=(300, 1)).round().astype("float32")
    for num_bins, batch in [(30, 32), (8, 7), (3, 300)]:
        ours, theirs = layers.Discretization(num_bins=num_bins), keras.layers.Discretization(num_bins=num_bins)
        ours.adapt(tf.data.Dataset.from_tensor_slices(data).batch(batch))
        theirs.adapt(tf.data.Dataset.from_tensor_slices(data).batch(batch))
        np.testing.assert_allclose(ours.bin_boundaries, theirs.bin_boundaries, rtol=1e-6)
        np.testing.assert_array_equal(ours(data).numpy(), np.asarray(theirs(data)))
