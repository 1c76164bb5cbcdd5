"""The bench's FLOP count of a training step equals the hand count for the guide's VAE."""

import pathlib
import sys

import numpy as np
import tensorflow as tf

import tfkit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from tools.bench import flops  # noqa: E402


class _Sampling(tfkit.layers.Layer):
    def call(self, inputs):
        mean, log_var = inputs
        return mean + tf.exp(0.5 * log_var) * tf.random.normal(tf.shape(mean))


class _VAE(tfkit.Model):
    def __init__(self):
        super().__init__()
        self.proj, self.mean, self.log_var = (
            tfkit.layers.Dense(64, activation="relu"),
            tfkit.layers.Dense(32),
            tfkit.layers.Dense(32),
        )
        self.sampling = _Sampling()
        self.hidden, self.out = tfkit.layers.Dense(64, activation="relu"), tfkit.layers.Dense(784, activation="sigmoid")

    def call(self, x):
        h = self.proj(x)
        mean, log_var = self.mean(h), self.log_var(h)
        z = self.sampling((mean, log_var))
        self.add_loss(-0.5 * tf.reduce_mean(log_var - tf.square(mean) - tf.exp(log_var) + 1))
        return self.out(self.hidden(z))


def test_vae_matmul_flops_from_the_graph_equal_the_hand_count():
    assert flops.vae_hand_count() == 538_624  # the figure in issue 20: 539k FLOPs per sample
    model = _VAE()
    model.compile(tfkit.optimizers.Adam(1e-3), loss="mse")
    x = np.random.default_rng(0).random((64, 784)).astype("float32")
    model.fit(x, x, batch_size=64, epochs=1, verbose=0)
    counts = flops.step_flops(model, (tf.TensorSpec((64, 784)), tf.TensorSpec((64, 784))))
    assert counts["MatMul"] == 64 * flops.vae_hand_count()
    assert sum(counts.values()) < 1.05 * counts["MatMul"]  # elementwise work is a few percent


def test_matmul_rate_is_a_positive_rate():
    assert flops.matmul_rate(size=256, repeats=2) > 0


def test_an_lstm_loop_body_counts_once_per_iteration():
    batch, steps, embed, units = 4, 8, 6, 5
    model = tfkit.Sequential([tfkit.layers.Embedding(50, embed), tfkit.layers.LSTM(units), tfkit.layers.Dense(1)])
    model.compile(tfkit.optimizers.SGD(0.1), loss="mse")
    x = np.random.default_rng(0).integers(0, 50, (batch, steps))
    model.fit(x, np.zeros((batch, 1), "float32"), batch_size=batch, epochs=1, verbose=0)
    spec = (tf.TensorSpec((batch, steps), tf.int64), tf.TensorSpec((batch, 1), tf.float32))
    # each step multiplies [x_t, h] (embed + units) by the four gates' kernels; the backward
    # body costs twice the forward (gradients of both operands); the Dense head is outside the loop
    step_forward = 2 * batch * (embed + units) * 4 * units
    head = 3 * 2 * batch * units
    iterations = flops.rnn_iterations(steps)  # a body of several timesteps per iteration
    assert iterations < steps
    assert flops.step_flops(model, spec, loop_trips=iterations)["MatMul"] == steps * 3 * step_forward + head
    body = steps // iterations
    assert flops.step_flops(model, spec)["MatMul"] == body * 3 * step_forward + head  # no trip count: once


def test_einsum_counts_every_multiply_and_add_of_its_equation():
    a = tf.TensorSpec((2, 3, 4))
    b = tf.TensorSpec((4, 5))
    cases = [
        ("abc,cd->abd", (a, b), 2 * 2 * 3 * 4 * 5),  # a batched matmul: 2 * M * N * K
        ("...c,cd->...d", (a, b), 2 * 2 * 3 * 4 * 5),  # the same through an ellipsis
        ("abc,abc->abc", (a, a), 2 * 3 * 4),  # nothing summed: one multiply each
        ("abc->acb", (a,), 0),  # a transpose
        ("abc->a", (a,), 2 * 3 * 4),  # a sum: one add per element
    ]
    for equation, specs, expected in cases:
        graph = tf.function(lambda *xs: tf.einsum(equation, *xs)).get_concrete_function(*specs).graph
        assert flops.graph_flops(graph).get("Einsum", 0) == expected, equation


def test_multi_head_attention_einsums_equal_the_hand_count():
    batch, length, embed, heads, key_dim = 2, 6, 8, 2, 4
    inputs = tfkit.Input((length, embed))
    outputs = tfkit.layers.MultiHeadAttention(num_heads=heads, key_dim=key_dim)(inputs, inputs)
    model = tfkit.Model(inputs, outputs)
    model.compile(tfkit.optimizers.SGD(0.1), loss="mse")
    x = np.random.default_rng(0).random((batch, length, embed)).astype("float32")
    model.fit(x, x, batch_size=batch, epochs=1, verbose=0)
    # multiply-adds per sample, forward: the query, key and value projections, the scores, the
    # weighted values and the output projection
    projection = length * embed * heads * key_dim
    attention = heads * length * length * key_dim
    forward = 2 * (3 * projection + 2 * attention + projection)
    # backward: each einsum's gradient is two einsums of its size, one per operand, except the input
    # gradients of the query, key and value projections: their operand is the model's input, and
    # TensorFlow prunes what nothing uses
    backward = 2 * forward - 2 * 3 * projection
    spec = (tf.TensorSpec((batch, length, embed)), tf.TensorSpec((batch, length, embed)))
    assert flops.step_flops(model, spec)["Einsum"] == batch * (forward + backward)
