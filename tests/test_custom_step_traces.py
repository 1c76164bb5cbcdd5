"""A custom train_step / test_step is traced once per loop, and its logs come back as the guide says."""

import numpy as np
import tensorflow as tf

import tfkit
from tfkit import layers


class CountingModel(tfkit.Model):
    """The customizing-fit guide's model, counting how often Python runs its steps (once per trace)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(1)
        self.loss_tracker = tfkit.metrics.Mean(name="loss")
        self.train_traces = 0
        self.test_traces = 0

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        self.train_traces += 1
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}

    def test_step(self, data):
        self.test_traces += 1
        x, y = data
        self.loss_tracker.update_state(tf.reduce_mean(tf.square(self(x) - y)))
        return {"loss": self.loss_tracker.result()}

    @property
    def metrics(self):
        return [self.loss_tracker]


def test_custom_steps_are_traced_once_per_batch_size_and_report_their_logs():
    rng = np.random.default_rng(0)
    x = rng.random((64, 2)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    model = CountingModel()
    model.compile(tfkit.optimizers.SGD(0.1))
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0)     # no short last batch
    assert model.train_traces == 1
    assert len(history.history["loss"]) == 3 and history.history["loss"][-1] < history.history["loss"][0]
    loss = model.evaluate(x, y, batch_size=16, verbose=0)
    assert model.test_traces == 1
    np.testing.assert_allclose(loss, np.mean((model.predict(x, verbose=0) - y) ** 2), rtol=1e-5)


def test_a_dataset_of_batches_traces_the_custom_step_once():
    x = np.ones((40, 2), "float32")
    dataset = tf.data.Dataset.from_tensor_slices((x, x[:, :1])).batch(8)
    model = CountingModel()
    model.compile(tfkit.optimizers.SGD(0.1))
    model.fit(dataset, epochs=2, verbose=0)
    assert model.train_traces == 1
