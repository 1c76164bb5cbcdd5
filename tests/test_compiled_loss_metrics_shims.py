"""Keras 2 spellings in a custom train_step: ``self.compiled_loss(...)`` and ``self.compiled_metrics.update_state(...)``.

keras-io's recipes (trainer_pattern, vision/mnist_moe) still write them; Keras 3
keeps both as deprecated shims, so tfkit must too.
"""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


class OldStyleModel(tfkit.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.compiled_metrics.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def _data():
    x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype="float32")
    y = np.array([[1.0], [2.0]], dtype="float32")
    return x, y


def test_compiled_loss_is_compute_loss_and_warns():
    x, y = _data()
    model = OldStyleModel()
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    y_pred = model(x)  # kernel of ones: [3, 7]
    with pytest.warns(UserWarning, match="compiled_loss"):
        loss = model.compiled_loss(y, y_pred)
    expected = np.mean((np.array([3.0, 7.0]) - np.array([1.0, 2.0])) ** 2)  # (4 + 25) / 2
    np.testing.assert_allclose(float(loss), expected, rtol=1e-6)
    np.testing.assert_allclose(float(loss), float(model.compute_loss(x, y, y_pred)), rtol=1e-6)


def test_compiled_metrics_updates_the_compiled_metrics():
    x, y = _data()
    model = OldStyleModel()
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    y_pred = model(x)
    model(x)  # built
    with pytest.warns(UserWarning, match="compiled_metrics"):
        model.compiled_metrics.update_state(y, y_pred)
    results = model.get_metrics_result()
    np.testing.assert_allclose(float(results["mae"]), (2.0 + 5.0) / 2, rtol=1e-6)


def test_fit_runs_a_train_step_written_with_both():
    x, y = _data()
    model = OldStyleModel()
    model.compile(optimizer=tfkit.optimizers.SGD(0.01), loss="mse", metrics=["mae"])
    history = model.fit(x, y, epochs=2, batch_size=2, verbose=0)
    assert "mae" in history.history
    assert np.all(np.isfinite(history.history["mae"]))
    # one SGD step on the mse lowers the error of the next epoch
    assert history.history["mae"][1] < history.history["mae"][0]


def test_same_numbers_as_keras():
    keras = pytest.importorskip("keras")
    x, y = _data()

    class KerasOld(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")

        def call(self, x):
            return self.dense(x)

    kmodel = KerasOld()
    kmodel.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    ky = kmodel(x)
    with pytest.warns(UserWarning):
        kloss = float(kmodel.compiled_loss(y, ky))
    model = OldStyleModel()
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    with pytest.warns(UserWarning):
        loss = float(model.compiled_loss(y, model(x)))
    np.testing.assert_allclose(loss, kloss, rtol=1e-6)
