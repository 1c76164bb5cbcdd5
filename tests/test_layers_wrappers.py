"""Bidirectional against two numpy passes; TimeDistributed against a per-timestep numpy loop."""

import json

import numpy as np
import pytest
import tensorflow as tf

from tfkit.engine import masking
from tfkit.layers.core import Dense
from tfkit.layers.embedding import Embedding
from tfkit.layers.recurrent import GRU, LSTM, SimpleRNN
from tfkit.layers.wrappers import Bidirectional, TimeDistributed

RNG = np.random.default_rng(11)
X = RNG.normal(size=(3, 5, 4)).astype("float32")
MASK = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0]], dtype=bool)
UNITS = 3


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def np_lstm(weights, x, mask=None, reverse=False, zero_masked=False):
    """One direction of an LSTM; returns (outputs in input order, last output, [h, c])."""
    kernel, recurrent, bias = weights
    batch, time, _ = x.shape
    units = recurrent.shape[0]
    h, c = np.zeros((batch, units)), np.zeros((batch, units))
    previous = np.zeros((batch, units))
    outputs = np.zeros((batch, time, units))
    for t in range(time - 1, -1, -1) if reverse else range(time):
        i, f, g, o = np.split(x[:, t] @ kernel + h @ recurrent + bias, 4, axis=-1)
        new_c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        new_h = sigmoid(o) * np.tanh(new_c)
        out = new_h
        if mask is not None:
            keep = mask[:, t][:, None]
            new_h, new_c = np.where(keep, new_h, h), np.where(keep, new_c, c)
            out = np.where(keep, out, 0.0 if zero_masked else previous)
        h, c, previous = new_h, new_c, out
        outputs[:, t] = out
    return outputs, previous, [h, c]


def randomized(layer, x=X):
    layer(x)
    values = [RNG.normal(scale=0.5, size=w.shape).astype("float32") for w in layer.weights]
    layer.set_weights(values)
    return values


# ------------------------------------------------------------ Bidirectional


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "ave", "mul", None])
@pytest.mark.parametrize("use_mask", [False, True])
def test_bidirectional_sequences_match_two_numpy_passes(merge_mode, use_mask):
    layer = Bidirectional(LSTM(UNITS, return_sequences=True, return_state=True), merge_mode=merge_mode)
    weights = randomized(layer)
    mask = MASK if use_mask else None
    result = layer(X, mask=mask)
    forward, _, forward_states = np_lstm(weights[:3], X, mask, zero_masked=True)
    backward, _, backward_states = np_lstm(weights[3:], X, mask, reverse=True, zero_masked=True)
    merged = {
        "concat": lambda: [np.concatenate([forward, backward], -1)],
        "sum": lambda: [forward + backward],
        "ave": lambda: [(forward + backward) / 2],
        "mul": lambda: [forward * backward],
        None: lambda: [forward, backward],
    }[merge_mode]()
    expected = merged + forward_states + backward_states
    assert len(result) == len(expected)
    for got, want in zip(result, expected):
        np.testing.assert_allclose(got, want, atol=1e-5)
    shapes = layer.compute_output_shape((None, 5, 4))
    assert [tuple(s)[1:] for s in shapes] == [tuple(r.shape)[1:] for r in result]


def test_bidirectional_last_outputs_and_masks():
    layer = Bidirectional(GRU(UNITS))
    layer(X)
    out = layer(X, mask=MASK)
    assert out.shape == (3, 2 * UNITS) and masking.get_mask(out) is None
    assert layer.compute_output_shape((None, 5, 4)) == (None, 2 * UNITS)
    seq = Bidirectional(SimpleRNN(UNITS, return_sequences=True))
    embedded = Embedding(10, 4, mask_zero=True)(MASK.astype("int32") * 3)
    y = seq(embedded)
    np.testing.assert_array_equal(masking.get_mask(y), MASK)
    np.testing.assert_allclose(y.numpy()[~MASK], 0.0)  # masked steps are zero in both directions


def test_bidirectional_lstm_without_sequences_matches_numpy():
    layer = Bidirectional(LSTM(UNITS), merge_mode="sum")
    weights = randomized(layer)
    _, forward_last, _ = np_lstm(weights[:3], X, MASK)
    _, backward_last, _ = np_lstm(weights[3:], X, MASK, reverse=True)
    np.testing.assert_allclose(layer(X, mask=MASK), forward_last + backward_last, atol=1e-5)


def test_bidirectional_structure_config_and_compiled_calls():
    layer = Bidirectional(LSTM(UNITS, return_sequences=True, name="enc"))
    randomized(layer)
    assert layer.forward_layer.name == "forward_enc" and layer.backward_layer.name == "backward_enc"
    assert layer.backward_layer.go_backwards and not layer.forward_layer.go_backwards
    assert list(layer.weight_paths())[:3] == [
        "forward_layer/cell/kernel",
        "forward_layer/cell/recurrent_kernel",
        "forward_layer/cell/bias",
    ]
    clone = Bidirectional.from_config(layer.get_config())
    clone(X)
    clone.set_weights(layer.get_weights())
    eager = layer(X, mask=MASK)
    np.testing.assert_allclose(clone(X, mask=MASK), eager, atol=1e-6)
    assert clone.backward_layer.name == "backward_enc"
    assert json.loads(json.dumps(layer.get_config())) == layer.get_config()
    np.testing.assert_allclose(tf.function(lambda x, m: layer(x, mask=m))(X, MASK), eager, atol=1e-6)
    np.testing.assert_allclose(tf.function(lambda x: layer(x), jit_compile=True)(X), layer(X), atol=1e-5)


def test_bidirectional_initial_state_stateful_and_errors():
    layer = Bidirectional(GRU(UNITS, return_state=True))
    states = [RNG.normal(size=(3, UNITS)).astype("float32") for _ in range(2)]
    out, h_forward, h_backward = layer(X, initial_state=states)
    plain_forward = GRU(UNITS, return_state=True)
    plain_forward(X)
    plain_forward.set_weights(layer.forward_layer.get_weights())
    np.testing.assert_allclose(h_forward, plain_forward(X, initial_state=states[:1])[1], atol=1e-6)
    stateful = Bidirectional(SimpleRNN(UNITS, stateful=True))
    first = stateful(X)
    assert not np.allclose(stateful(X), first)
    stateful.reset_states()
    np.testing.assert_allclose(stateful(X), first, atol=1e-6)
    assert len(stateful.states) == 2
    with pytest.raises(ValueError, match="merge_mode"):
        Bidirectional(LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match="recurrent"):
        Bidirectional(Dense(2))
    with pytest.raises(ValueError, match="go_backwards"):
        Bidirectional(LSTM(2), backward_layer=LSTM(2))
    with pytest.raises(ValueError, match="return_sequences"):
        Bidirectional(LSTM(2), backward_layer=LSTM(2, go_backwards=True, return_sequences=True))


# ----------------------------------------------------------- TimeDistributed


def test_time_distributed_dense_matches_a_loop_over_time():
    layer = TimeDistributed(Dense(2, activation="tanh"))
    kernel, bias = randomized(layer)
    out = layer(X)
    expected = np.stack([np.tanh(X[:, t] @ kernel + bias) for t in range(X.shape[1])], axis=1)
    np.testing.assert_allclose(out, expected, atol=1e-6)
    assert layer.compute_output_shape((None, 5, 4)) == (None, 5, 2)
    assert list(layer.weight_paths()) == ["layer/kernel", "layer/bias"]
    np.testing.assert_allclose(tf.function(lambda x: layer(x), jit_compile=True)(X), out, atol=1e-6)
    dynamic = tf.function(lambda x: layer(x), input_signature=[tf.TensorSpec((None, None, 4))])
    np.testing.assert_allclose(dynamic(X[:, :2]), expected[:, :2], atol=1e-6)


def test_time_distributed_masks_and_gradients():
    dense = TimeDistributed(Dense(2))
    y = dense(X, mask=MASK)
    np.testing.assert_array_equal(masking.get_mask(y), MASK)
    tokens = RNG.integers(0, 4, size=(2, 3, 6))
    embedded = TimeDistributed(Embedding(4, 2, mask_zero=True))(tokens)
    assert embedded.shape == (2, 3, 6, 2)
    np.testing.assert_array_equal(masking.get_mask(embedded), tokens != 0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(dense(X) ** 2)
    grad_kernel, grad_bias = tape.gradient(loss, dense.trainable_weights)
    kernel, bias = dense.get_weights()
    upstream = 2 * (X @ kernel + bias)
    np.testing.assert_allclose(grad_kernel, np.einsum("btf,btu->fu", X, upstream), rtol=1e-5)
    np.testing.assert_allclose(grad_bias, upstream.sum(axis=(0, 1)), rtol=1e-5)


def test_time_distributed_config_and_errors():
    layer = TimeDistributed(Dense(2))
    randomized(layer)
    clone = TimeDistributed.from_config(layer.get_config())
    clone(X)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(clone(X), layer(X))
    with pytest.raises(ValueError, match="rank >= 3"):
        TimeDistributed(Dense(2))(X[:, 0])
    with pytest.raises(ValueError, match="Layer"):
        TimeDistributed(lambda x: x)


# ---------------------------------------------------------- Keras (optional)


def test_matches_keras():
    keras = pytest.importorskip("keras")
    ours = Bidirectional(LSTM(UNITS, return_sequences=True))
    theirs = keras.layers.Bidirectional(keras.layers.LSTM(UNITS, return_sequences=True))
    weights = randomized(ours)
    theirs(X)
    theirs.set_weights(weights)
    np.testing.assert_allclose(ours(X, mask=MASK), np.asarray(theirs(X, mask=tf.constant(MASK))), atol=1e-5)
    ours_td, theirs_td = TimeDistributed(Dense(2)), keras.layers.TimeDistributed(keras.layers.Dense(2))
    theirs_td(X)
    theirs_td.set_weights(randomized(ours_td))
    np.testing.assert_allclose(ours_td(X), np.asarray(theirs_td(X)), atol=1e-6)
