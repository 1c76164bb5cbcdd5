"""The loop carries no separate previous output for built-in cells from zero states: same numbers either way."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.layers import rnn_cells


def _masked_batch():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 7, 5)).astype("float32")
    mask = np.ones((4, 7), bool)
    mask[0, :3] = False  # left padding
    mask[1, 4:] = False  # right padding
    mask[2, :] = False  # a sequence with no step at all: outputs stay zero
    mask[3, 2] = False  # a hole
    return tf.constant(x), tf.constant(mask)


def _run(layer, x, mask, shared):
    layer._tfkit_share_output = shared
    with tf.GradientTape() as tape:
        out = layer(x, mask=mask)
        first = out[0] if isinstance(out, (list, tuple)) else out
        loss = tf.reduce_sum(first * tf.range(1.0, 1.0 + first.shape[-1]))
    grads = tape.gradient(loss, layer.trainable_weights)
    return [o.numpy() for o in tf.nest.flatten(out)], [g.numpy() for g in grads]


@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
@pytest.mark.parametrize("return_sequences, go_backwards", [(False, False), (True, False), (True, True)])
def test_shared_output_loop_equals_the_general_loop(kind, return_sequences, go_backwards):
    x, mask = _masked_batch()
    layer = getattr(layers, kind)(3, return_sequences=return_sequences, return_state=True, go_backwards=go_backwards)
    layer(x, mask=mask)
    assert rnn_cells.outputs_first_state(layer.cell)  # a built-in cell (from zero states): the shared loop
    general_out, general_grads = _run(layer, x, mask, shared=False)
    shared_out, shared_grads = _run(layer, x, mask, shared=True)
    for a, b in zip(shared_out + shared_grads, general_out + general_grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)  # gradient sums: float32 order
    np.testing.assert_array_equal(shared_out[0][2], 0.0)  # the all-masked row: zero output, as Keras


def test_shared_loop_is_not_used_for_custom_cells():
    class Doubled(layers.LSTMCell):
        def step(self, projected, states, recurrent_mask=None):
            h, new_states = super().step(projected, states, recurrent_mask)
            return 2.0 * h, new_states

    assert not rnn_cells.outputs_first_state(Doubled(3))
    custom, plain = layers.RNN(Doubled(3)), layers.RNN(layers.LSTMCell(3))
    x = tf.random.stateless_normal((2, 4, 5), seed=[1, 2])
    plain(x)
    custom(x)
    custom.set_weights(plain.get_weights())
    np.testing.assert_allclose(custom(x).numpy(), 2.0 * plain(x).numpy(), rtol=1e-6)


def test_initial_state_and_first_step_masked_keeps_zero_output():
    # h0 != 0 and a masked first step: the output there is zeros (Keras), not h0, so the general loop runs
    x, mask = _masked_batch()
    inputs = tfkit.Input((7, 5))
    h0, c0 = tfkit.Input((3,)), tfkit.Input((3,))
    seq = layers.LSTM(3, return_sequences=True)(inputs, initial_state=[h0, c0], mask=tf.constant(mask))
    model = tfkit.Model([inputs, h0, c0], seq)
    out = model([x, tf.ones((4, 3)), tf.ones((4, 3))]).numpy()
    np.testing.assert_array_equal(out[0, :3], 0.0)
