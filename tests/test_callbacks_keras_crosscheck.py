"""Optional cross-check: the monitor callbacks decide exactly like Keras 3's.

The same sequences of logged values go through tfkit's and Keras's
EarlyStopping / ReduceLROnPlateau, each with a plain fake model; the epochs
at which training stops and the learning rates must agree. Skipped when
Keras is not installed; nothing global is changed.
"""

from __future__ import annotations

import numpy as np
import pytest

from tfkit import callbacks as cb

keras = pytest.importorskip("keras")


class PlainOptimizer:
    def __init__(self, learning_rate: float) -> None:
        self.learning_rate = learning_rate


class TfkitOptimizer:
    def __init__(self, learning_rate: float) -> None:
        import tensorflow as tf

        self.learning_rate = tf.Variable(learning_rate, dtype=tf.float64)


class PlainModel:
    def __init__(self, optimizer) -> None:
        self.optimizer = optimizer
        self.stop_training = False
        self.weights = [np.zeros(2)]

    def get_weights(self):
        return [w.copy() for w in self.weights]

    def set_weights(self, values):
        self.weights = [np.array(v) for v in values]


def run(callback, model, values, key="val_loss"):
    """Epoch-end calls until the callback stops training; returns (epochs run, learning rates)."""
    callback.set_model(model)
    callback.on_train_begin({})
    rates = []
    for epoch, value in enumerate(values):
        model.weights = [np.full(2, float(epoch))]
        logs = {"loss": 1.0, key: float(value)}
        callback.on_epoch_end(epoch, logs)
        rates.append(logs.get("learning_rate"))
        if model.stop_training:
            break
    callback.on_train_end({})
    return epoch + 1, rates


def noisy_curves(count: int = 12, length: int = 25):
    rng = np.random.RandomState(1234)
    for _ in range(count):
        trend = np.linspace(1.0, 0.2, length) + rng.normal(0, 0.08, length)
        yield np.round(trend, 3)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(patience=0),
        dict(patience=3),
        dict(patience=2, min_delta=0.05),
        dict(patience=2, baseline=0.6),
        dict(patience=1, start_from_epoch=4),
        dict(patience=3, restore_best_weights=True),
        dict(patience=2, mode="max", monitor="val_accuracy"),
    ],
)
def test_early_stopping_matches_keras(kwargs):
    key = kwargs.get("monitor", "val_loss")
    for curve in noisy_curves():
        ours_model, theirs_model = PlainModel(PlainOptimizer(0.1)), PlainModel(PlainOptimizer(0.1))
        ours = run(cb.EarlyStopping(**kwargs), ours_model, curve, key)
        theirs = run(keras.callbacks.EarlyStopping(**kwargs), theirs_model, curve, key)
        assert ours[0] == theirs[0], (kwargs, curve)
        np.testing.assert_array_equal(ours_model.weights[0], theirs_model.weights[0])


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(patience=0, factor=0.5),
        dict(patience=2, factor=0.1, min_lr=1e-4),
        dict(patience=1, factor=0.5, cooldown=2),
        dict(patience=3, factor=0.2, min_delta=0.05),
    ],
)
def test_reduce_lr_on_plateau_matches_keras(kwargs):
    for curve in noisy_curves():
        ours_model = PlainModel(TfkitOptimizer(0.1))
        theirs_model = PlainModel(PlainOptimizer(0.1))
        _, ours = run(cb.ReduceLROnPlateau(**kwargs), ours_model, curve)
        _, theirs = run(keras.callbacks.ReduceLROnPlateau(**kwargs), theirs_model, curve)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
        np.testing.assert_allclose(
            float(ours_model.optimizer.learning_rate.numpy()), theirs_model.optimizer.learning_rate, rtol=1e-12
        )
