"""tfkit.activations.sparsemax against a numpy sparsemax (and keras's where installed)."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit


def numpy_sparsemax(z):
    """Martins & Astudillo (2016), Algorithm 1, on the last axis."""
    z_sorted = -np.sort(-z, axis=-1)
    k = np.arange(1, z.shape[-1] + 1)
    cumulative = np.cumsum(z_sorted, axis=-1)
    support = 1 + k * z_sorted > cumulative
    k_z = support.sum(axis=-1, keepdims=True)
    tau = (np.take_along_axis(cumulative, k_z - 1, axis=-1) - 1) / k_z
    return np.maximum(z - tau, 0)


def test_sparsemax_matches_numpy_and_sums_to_one():
    x = np.random.default_rng(0).normal(size=(4, 3, 7)).astype("float32") * 3
    y = tfkit.activations.sparsemax(x).numpy()
    assert np.allclose(y, numpy_sparsemax(x), atol=1e-6)
    assert np.allclose(y.sum(-1), 1, atol=1e-6) and (y == 0).any()
    along_1 = tfkit.activations.sparsemax(x, axis=1).numpy()
    assert np.allclose(along_1, np.moveaxis(numpy_sparsemax(np.moveaxis(x, 1, -1)), -1, 1), atol=1e-6)


def test_sparsemax_is_found_by_name_compiles_and_matches_keras():
    assert tfkit.activations.get("sparsemax") is tfkit.activations.sparsemax
    assert tfkit.layers.Dense(3, activation="sparsemax").get_config()["activation"] == "sparsemax"
    x = tf.constant([[0.1, 2.0, 1.9, -1.0]])
    compiled = tf.function(tfkit.activations.sparsemax, jit_compile=True)
    assert np.allclose(compiled(x), [[0.0, 0.55, 0.45, 0.0]], atol=1e-6)
    keras = pytest.importorskip("keras")
    # Keras 3.15 computes tau from the sum of the cumulative sums over the support instead of the cumulative
    # sum at the support's end: it agrees with the paper only when one entry is in the support (above it
    # gives all zeros). tfkit follows the paper; the one-entry case is compared here.
    assert np.allclose(keras.activations.sparsemax(x), 0)
    one = tf.constant([[0.0, 5.0, 1.0], [3.0, -2.0, 0.5]])
    assert np.allclose(tfkit.activations.sparsemax(one), keras.activations.sparsemax(one), atol=1e-6)
