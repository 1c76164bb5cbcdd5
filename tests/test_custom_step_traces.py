"""A custom train_step / test_step is traced twice per loop, and its logs come back as the guide says.

The first trace gives the structure of the logs (they are loop variables); the second is the step
inlined in the loop's body, which runs faster than calling the first trace every step
(``tfkit/training/compiled_loops.py``). Neither is repeated per epoch.
"""

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


def test_custom_steps_are_traced_twice_per_batch_size_and_report_their_logs():
    rng = np.random.default_rng(0)
    x = rng.random((64, 2)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    model = CountingModel()
    model.compile(tfkit.optimizers.SGD(0.1))
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0)  # no short last batch
    assert model.train_traces == 2
    assert len(history.history["loss"]) == 3 and history.history["loss"][-1] < history.history["loss"][0]
    loss = model.evaluate(x, y, batch_size=16, verbose=0)
    assert model.test_traces == 2
    np.testing.assert_allclose(loss, np.mean((model.predict(x, verbose=0) - y) ** 2), rtol=1e-5)


def test_a_dataset_of_batches_traces_the_custom_step_twice_not_per_epoch():
    x = np.ones((40, 2), "float32")
    dataset = tf.data.Dataset.from_tensor_slices((x, x[:, :1])).batch(8)
    model = CountingModel()
    model.compile(tfkit.optimizers.SGD(0.1))
    model.fit(dataset, epochs=2, verbose=0)
    assert model.train_traces == 2


class BranchingModel(tfkit.Model):
    """A train_step with a Python ``if`` on a tensor: AutoGraph must still convert the inlined step."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(1, kernel_initializer="zeros")
        self.tracker = tfkit.metrics.Mean(name="loss")

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x) - y))
        if tf.reduce_sum(y) > 0:  # a tensor condition: only AutoGraph makes this work
            grads = tape.gradient(loss, self.trainable_weights)
            self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.tracker.update_state(loss)
        return {"loss": self.tracker.result()}

    @property
    def metrics(self):
        return [self.tracker]


def test_an_inlined_custom_step_is_still_converted_by_autograph():
    x = np.ones((32, 2), "float32")
    for sign, moves in ((1.0, True), (-1.0, False)):
        model = BranchingModel()
        model.compile(tfkit.optimizers.SGD(0.1))
        model.fit(x, sign * x[:, :1], batch_size=8, epochs=1, verbose=0)
        kernel = model.dense.kernel.numpy()
        assert bool(np.any(kernel != 0)) is moves, (sign, kernel)
