"""The loop over time runs several timesteps per iteration: every length, mask and direction gives numpy's numbers."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.layers import rnn_loop


def _numpy_simple_rnn(x, mask, kernel, recurrent, bias, go_backwards):
    """SimpleRNN (tanh) over (batch, time, features) with Keras's mask rule: a masked step keeps the state."""
    batch, time, _ = x.shape
    h = np.zeros((batch, kernel.shape[1]), np.float64)
    steps = range(time - 1, -1, -1) if go_backwards else range(time)
    outputs = []
    for t in steps:
        new = np.tanh(x[:, t] @ kernel + h @ recurrent + bias)
        h = np.where(mask[:, t : t + 1], new, h)
        outputs.append(h)
    return h, np.stack(outputs, axis=1)


def test_steps_per_iteration_divide_the_length_into_two_iterations_or_more():
    assert [rnn_loop.steps_per_iteration(n) for n in (None, 1, 2, 3, 4, 5, 6, 8, 9, 12, 80, 81)] == [
        1,
        1,
        1,
        1,
        2,
        1,
        3,
        4,
        3,
        4,
        4,
        3,
    ]


@pytest.mark.parametrize("time", [1, 3, 4, 5, 6, 8, 9, 12])  # 1, 2, 3 and 4 steps per iteration
@pytest.mark.parametrize("go_backwards", [False, True])
def test_simple_rnn_matches_numpy_for_every_length(time, go_backwards):
    rng = np.random.default_rng(time)
    x = rng.normal(size=(3, time, 4)).astype("float32")
    mask = rng.random((3, time)) > 0.3
    layer = layers.SimpleRNN(5, return_sequences=True, return_state=True, go_backwards=go_backwards)
    sequence, state = layer(tf.constant(x), mask=tf.constant(mask))
    kernel, recurrent, bias = (w.numpy().astype(np.float64) for w in layer.weights)
    want_state, want_sequence = _numpy_simple_rnn(x.astype(np.float64), mask, kernel, recurrent, bias, go_backwards)
    np.testing.assert_allclose(state.numpy(), want_state, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sequence.numpy(), want_sequence, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("time", [2, 6, 8, 11])
def test_while_loop_equals_the_python_unrolled_loop_with_gradients(kind, time):
    """``unroll=True`` (a Python loop, one step at a time) is the reference for values and gradients."""
    tfkit.utils.set_random_seed(time)  # the same weights on every run
    rng = np.random.default_rng(7)
    x = tf.constant(rng.normal(size=(2, time, 3)).astype("float32"))
    mask = tf.constant(rng.random((2, time)) > 0.25)
    looped = getattr(layers, kind)(4, return_sequences=True)
    unrolled = getattr(layers, kind)(4, return_sequences=True, unroll=True)
    looped(x)
    unrolled(x)
    unrolled.set_weights(looped.get_weights())

    def run(layer):
        with tf.GradientTape() as tape:
            out = layer(x, mask=mask)
            loss = tf.reduce_sum(out * tf.range(1.0, 1.0 + time)[None, :, None])
        return [out.numpy()] + [g.numpy() for g in tape.gradient(loss, layer.trainable_weights)]

    for a, b in zip(run(looped), run(unrolled)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)  # gradient sums: float32 order


def test_unknown_length_runs_one_step_per_iteration():
    layer = layers.LSTM(3, return_sequences=True)
    fn = tf.function(lambda x: layer(x), input_signature=[tf.TensorSpec((2, None, 5), tf.float32)])
    x = tf.random.stateless_normal((2, 7, 5), seed=[3, 4])
    np.testing.assert_allclose(fn(x).numpy(), layer(x).numpy(), rtol=1e-5, atol=1e-6)


def test_one_step_per_iteration_inside_its_block_only():
    with rnn_loop.one_step_per_iteration():
        assert rnn_loop.steps_per_iteration(80) == 1
    assert rnn_loop.steps_per_iteration(80) == 4


def test_onnx_export_of_a_loop_of_several_steps_per_iteration(tmp_path):
    """tf2onnx converts only one timestep per iteration: the export traces the loop that way."""
    pytest.importorskip("tf2onnx")
    onnxruntime = pytest.importorskip("onnxruntime")
    inputs = tfkit.Input((8, 2))
    model = tfkit.Model(inputs, layers.SimpleRNN(3, return_sequences=True)(inputs))
    assert rnn_loop.steps_per_iteration(8) == 4
    path = str(tmp_path / "rnn.onnx")
    model.export(path, format="onnx", verbose=False)
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).random((2, 8, 2)).astype("float32")
    got = session.run(None, {session.get_inputs()[0].name: x})[0]
    np.testing.assert_allclose(got, model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)


def test_a_loop_traced_for_xla_runs_one_step_per_iteration():
    seen = []

    def trace():
        seen.append(rnn_loop.steps_per_iteration(80))
        return tf.constant(0)

    tf.function(trace, jit_compile=True)()
    tf.function(trace)()
    assert seen == [1, 4]


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_xla_loop_of_one_step_per_iteration_matches_the_plain_loop_with_gradients(kind):
    tfkit.utils.set_random_seed(5)
    rng = np.random.default_rng(11)
    x = tf.constant(rng.normal(size=(3, 8, 4)).astype("float32"))
    mask = tf.constant(rng.random((3, 8)) > 0.25)
    layer = getattr(layers, kind)(5, return_sequences=True)
    layer(x)

    def run(x, mask):
        with tf.GradientTape() as tape:
            out = layer(x, mask=mask)
            loss = tf.reduce_sum(out * tf.range(1.0, 9.0)[None, :, None])
        return [out] + tape.gradient(loss, layer.trainable_weights)

    for plain, compiled in zip(tf.function(run)(x, mask), tf.function(run, jit_compile=True)(x, mask)):
        np.testing.assert_allclose(compiled.numpy(), plain.numpy(), rtol=1e-4, atol=1e-5)
