"""tf.keras-era train steps Keras 3 still runs: compiled_loss / compiled_metrics (deprecated), and add_metric's
refusal with its message."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit


class OldStyleTrainer(tfkit.Model):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self.model(x, training=True)
            loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        self.compiled_metrics.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def call(self, x):
        return self.model(x)


def test_a_tf_keras_train_step_trains_and_reports_its_loss():
    tfkit.utils.set_random_seed(0)  # a fixed start: 3 epochs from some inits stay near chance
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype("float32")
    y = (x[:, 0] > 0).astype("int32")
    trainer = OldStyleTrainer(tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(2, activation="softmax")]))
    trainer.compile(
        tfkit.optimizers.Adam(0.05), loss="sparse_categorical_crossentropy", metrics=["accuracy"], steps_per_execution=1
    )
    with pytest.warns(UserWarning, match="compiled_loss\\(\\)` is deprecated"):
        history = trainer.fit(x, y, epochs=10, batch_size=16, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0] and 0 < losses[0] < 2  # the loss itself, not the predictions' mean
    probabilities = trainer.predict(x, verbose=0)
    expected = np.mean(-np.log(probabilities[np.arange(64), y]))
    assert history.history["accuracy"][-1] > 0.8  # 0.875-0.98 over seeds 0-11
    loss, accuracy = trainer.evaluate(x, y, verbose=0)
    assert abs(loss - expected) < 1e-4
    assert accuracy == pytest.approx(np.mean(probabilities.argmax(axis=1) == y))


def test_add_metric_is_refused_with_keras_message():
    with pytest.raises(NotImplementedError, match="add_metric\\(\\)` method is deprecated"):
        tfkit.layers.Dense(2).add_metric(1.0)
