"""metrics.SparseCategoricalCrossentropy(ignore_class=): ignored targets leave the running mean."""

import numpy as np
import pytest

import tfkit

Y = np.array([0, 1, 2, 1])
P = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.3, 0.3, 0.4]], "float32")


def test_ignored_targets_leave_the_mean_as_they_leave_the_loss():
    metric = tfkit.metrics.SparseCategoricalCrossentropy(ignore_class=1)
    metric.update_state(Y, P)
    expected = np.mean([-np.log(0.7), -np.log(0.6)])  # targets 0 and 2 only
    np.testing.assert_allclose(float(metric.result()), expected, rtol=1e-6)
    loss = tfkit.losses.SparseCategoricalCrossentropy(ignore_class=1)(Y, P)
    np.testing.assert_allclose(float(loss), expected, rtol=1e-6)
    assert metric.get_config() == {
        "name": "sparse_categorical_crossentropy",
        "dtype": "float32",
        "from_logits": False,
        "ignore_class": 1,
        "axis": -1,
    }
    assert tfkit.metrics.SparseCategoricalCrossentropy.from_config(metric.get_config()).ignore_class == 1


def test_without_ignore_class_every_target_counts():
    metric = tfkit.metrics.SparseCategoricalCrossentropy()
    metric.update_state(Y, P)
    np.testing.assert_allclose(float(metric.result()), np.mean(-np.log([0.7, 0.8, 0.6, 0.3])), rtol=1e-6)


def test_keras_counts_ignored_targets_as_zeros_in_its_metric():
    keras = pytest.importorskip("keras")
    theirs = keras.metrics.SparseCategoricalCrossentropy(ignore_class=1)
    theirs.update_state(Y, P)
    # Keras 3.15: the mean over all four, the ignored two as 0 — half the loss it is meant to track
    np.testing.assert_allclose(float(theirs.result()), np.mean([-np.log(0.7), 0, -np.log(0.6), 0]), rtol=1e-6)
