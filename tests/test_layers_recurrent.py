"""SimpleRNN, LSTM, GRU and RNN(cell) against recurrences written out in numpy."""

import json

import numpy as np
import pytest
import tensorflow as tf

from tfkit.engine import masking
from tfkit.engine.layer import Layer
from tfkit.layers.embedding import Embedding
from tfkit.layers.recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell

RNG = np.random.default_rng(7)
BATCH, TIME, FEATURES, UNITS = 3, 5, 4, 3
X = RNG.normal(size=(BATCH, TIME, FEATURES)).astype("float32")
MASK = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 1, 1, 0]], dtype=bool)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


# ------------------------------------------------------ numpy references


def np_simple_step(weights, x_t, states):
    kernel, recurrent, bias = weights
    h = np.tanh(x_t @ kernel + states[0] @ recurrent + bias)
    return h, [h]


def np_lstm_step(weights, x_t, states):
    kernel, recurrent, bias = weights
    h, c = states
    z = x_t @ kernel + h @ recurrent + bias
    i, f, g, o = np.split(z, 4, axis=-1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    h = sigmoid(o) * np.tanh(c)
    return h, [h, c]


def np_gru_step(weights, x_t, states, reset_after=True):
    kernel, recurrent, bias = weights
    h = states[0]
    units = h.shape[-1]
    input_bias, recurrent_bias = (bias[0], bias[1]) if reset_after else (bias, np.zeros_like(bias))
    x_z, x_r, x_h = np.split(x_t @ kernel + input_bias, 3, axis=-1)
    r_z, r_r, r_h = np.split(h @ recurrent + recurrent_bias, 3, axis=-1)
    z = sigmoid(x_z + r_z)
    r = sigmoid(x_r + r_r)
    if reset_after:
        candidate = np.tanh(x_h + r * r_h)
    else:
        candidate = np.tanh(x_h + (r * h) @ recurrent[:, 2 * units :])
    return z * h + (1 - z) * candidate, [z * h + (1 - z) * candidate]


def np_rnn(step, x, initial_states, mask=None, go_backwards=False, zero_output_for_mask=False):
    """Loop over time the way Keras 3 does: returns (outputs in loop order, last output, states)."""
    order = range(x.shape[1])[::-1] if go_backwards else range(x.shape[1])
    states = [s.copy() for s in initial_states]
    previous = None
    outputs = []
    for t in order:
        out, new_states = step(x[:, t], states)
        if previous is None:
            previous = np.zeros_like(out)
        if mask is not None:
            keep = mask[:, t][:, None]
            out = np.where(keep, out, 0.0 if zero_output_for_mask else previous)
            new_states = [np.where(keep, n, o) for n, o in zip(new_states, states)]
        states, previous = new_states, out
        outputs.append(out)
    return np.stack(outputs, axis=1), outputs[-1], states


STEPS = {"simple": (SimpleRNN, np_simple_step, 1), "lstm": (LSTM, np_lstm_step, 2), "gru": (GRU, np_gru_step, 1)}


def randomize(layer, scale=0.5):
    values = [RNG.normal(scale=scale, size=w.shape).astype(w.dtype.as_numpy_dtype) for w in layer.weights]
    layer.set_weights(values)
    return values


def built(layer, x=X):
    layer(x)
    return randomize(layer)


# ---------------------------------------------------------------- outputs


@pytest.mark.parametrize("kind", sorted(STEPS))
@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("use_mask", [False, True])
def test_sequences_and_states_match_numpy(kind, go_backwards, use_mask):
    cls, np_step, n_states = STEPS[kind]
    layer = cls(UNITS, return_sequences=True, return_state=True, go_backwards=go_backwards)
    weights = built(layer)
    mask = MASK if use_mask else None
    output, *states = layer(X, mask=mask)
    zeros = [np.zeros((BATCH, UNITS), "float32")] * n_states
    expected, _, expected_states = np_rnn(lambda x, s: np_step(weights, x, s), X, zeros, mask, go_backwards)
    np.testing.assert_allclose(output, expected, atol=1e-5)
    assert len(states) == n_states
    for got, want in zip(states, expected_states):
        np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.parametrize("kind", sorted(STEPS))
def test_last_output_with_mask_is_last_unmasked_output(kind):
    cls, np_step, n_states = STEPS[kind]
    layer = cls(UNITS)
    weights = built(layer)
    zeros = [np.zeros((BATCH, UNITS), "float32")] * n_states
    _, last, _ = np_rnn(lambda x, s: np_step(weights, x, s), X, zeros, MASK)
    np.testing.assert_allclose(layer(X, mask=MASK), last, atol=1e-5)
    # Row 0 stops at t=2: its final output is the output at t=2 exactly.
    seq = cls(UNITS, return_sequences=True)
    seq(X)
    seq.set_weights(weights)
    np.testing.assert_allclose(layer(X, mask=MASK)[0], seq(X[:, :3])[0, -1], atol=1e-5)


def test_gru_without_reset_after_matches_numpy():
    layer = GRU(UNITS, reset_after=False, return_sequences=True)
    weights = built(layer)
    assert layer.cell.bias.shape == (3 * UNITS,)
    expected, _, _ = np_rnn(
        lambda x, s: np_gru_step(weights, x, s, reset_after=False), X, [np.zeros((BATCH, UNITS), "float32")]
    )
    np.testing.assert_allclose(layer(X), expected, atol=1e-5)


def test_initial_state_is_used():
    layer = LSTM(UNITS, return_state=True)
    weights = built(layer)
    h0, c0 = (RNG.normal(size=(BATCH, UNITS)).astype("float32") for _ in range(2))
    out, h, c = layer(X, initial_state=[h0, c0])
    _, last, (want_h, want_c) = np_rnn(lambda x, s: np_lstm_step(weights, x, s), X, [h0, c0])
    np.testing.assert_allclose(out, last, atol=1e-5)
    np.testing.assert_allclose(c, want_c, atol=1e-5)
    with pytest.raises(ValueError, match="expects 2 initial state"):
        layer(X, initial_state=[h0])


def test_unroll_equals_loop_and_compiled_equals_eager():
    loop = LSTM(UNITS, return_sequences=True)
    weights = built(loop)
    unrolled = LSTM(UNITS, return_sequences=True, unroll=True)
    unrolled(X)
    unrolled.set_weights(weights)
    eager = loop(X, mask=MASK)
    np.testing.assert_allclose(unrolled(X, mask=MASK), eager, atol=1e-6)
    graph = tf.function(lambda x, m: loop(x, mask=m))
    xla = tf.function(lambda x, m: loop(x, mask=m), jit_compile=True)
    np.testing.assert_allclose(graph(X, MASK), eager, atol=1e-6)
    np.testing.assert_allclose(xla(X, MASK), eager, atol=1e-5)
    graph(X + 1.0, MASK)
    assert graph.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("kind", sorted(STEPS))
def test_precomputed_and_per_step_input_projection_agree(kind):
    # GPUs project all timesteps before the loop, CPUs inside it; both must give the same numbers.
    layer = STEPS[kind][0](UNITS, return_sequences=True, go_backwards=True, dropout=0.3, seed=4)
    built(layer)
    results = []
    for precompute in (True, False):
        layer._tfkit_precompute_inputs = precompute
        layer.cell.seed_generator.state.assign([4, 0])
        results.append(layer(X, mask=MASK, training=True).numpy())
    np.testing.assert_allclose(results[0], results[1], atol=1e-6)


def test_unknown_time_length_in_tf_function():
    layer = GRU(UNITS, return_sequences=True)
    weights = built(layer)
    fn = tf.function(lambda x: layer(x), input_signature=[tf.TensorSpec((None, None, FEATURES))])
    expected, _, _ = np_rnn(lambda x, s: np_gru_step(weights, x, s), X[:, :2], [np.zeros((BATCH, UNITS), "f")])
    np.testing.assert_allclose(fn(X[:, :2]), expected, atol=1e-5)


# --------------------------------------------------------------- gradients


def test_lstm_gradient_matches_finite_differences():
    x = RNG.normal(size=(2, 3, 2))
    layer = LSTM(2, dtype="float64", return_sequences=True)
    layer(x)
    weights = randomize(layer)
    weights = [w.astype("float64") for w in weights]

    ramp = np.arange(1, 13).reshape(2, 3, 2) / 12.0  # a loss that weighs every output differently

    def np_loss(ws, inputs):
        seq, _, _ = np_rnn(lambda xt, s: np_lstm_step(ws, xt, s), inputs, [np.zeros((2, 2))] * 2, MASK[:2, :3])
        return float(np.sum(seq * ramp))

    with tf.GradientTape() as tape:
        inputs = tf.constant(x)
        tape.watch(inputs)
        seq = layer(inputs, mask=MASK[:2, :3])
        loss = tf.reduce_sum(seq * ramp)
    grads = tape.gradient(loss, [inputs, *layer.trainable_weights])
    assert abs(float(loss) - np_loss(weights, x)) < 1e-10
    eps = 1e-6
    for index, target in enumerate([x, *weights]):
        numeric = np.zeros_like(target)
        for position in np.ndindex(target.shape):
            for sign in (1, -1):
                bumped = [a.copy() for a in [x, *weights]]
                bumped[index][position] += sign * eps
                numeric[position] += sign * np_loss(bumped[1:], bumped[0]) / (2 * eps)
        np.testing.assert_allclose(grads[index], numeric, atol=1e-7)


# ---------------------------------------------------------------- stateful


def test_stateful_carries_states_and_resets():
    whole = LSTM(UNITS, return_state=True)
    weights = built(whole)
    stateful = LSTM(UNITS, stateful=True, return_state=True)
    stateful(X[:, :2])
    stateful.set_weights(weights)
    stateful.reset_states()
    first = stateful(X[:, :2])
    second = stateful(X[:, 2:])
    for got, want in zip(second, whole(X)):
        np.testing.assert_allclose(got, want, atol=1e-5)
    np.testing.assert_allclose(stateful.states[1], whole(X)[2], atol=1e-5)
    # States are non-trainable state, not weights; checkpoints still hold them.
    assert len(stateful.weights) == 3 and len(stateful.variables) > 3
    stateful.reset_states()
    np.testing.assert_allclose(stateful.states[0], 0.0)
    np.testing.assert_allclose(stateful(X[:, :2])[0], first[0], atol=1e-6)
    with pytest.raises(ValueError, match="batch size 3"):
        stateful(X[:2, :2])


def test_stateful_inside_tf_function_and_needs_static_batch():
    layer = SimpleRNN(UNITS, stateful=True)
    fn = tf.function(lambda x: layer(x))
    a = fn(X[:, :2]).numpy()
    b = fn(X[:, :2]).numpy()
    assert not np.allclose(a, b)  # the second call started from the first call's state
    layer.reset_states()
    np.testing.assert_allclose(fn(X[:, :2]), a, atol=1e-6)
    dynamic = SimpleRNN(UNITS, stateful=True)
    with pytest.raises(ValueError, match="static batch size"):
        tf.function(lambda x: dynamic(x), input_signature=[tf.TensorSpec((None, 2, FEATURES))]).get_concrete_function()
    SimpleRNN(2).reset_states()  # as Keras 3: nothing to reset, no error
    with pytest.raises(ValueError, match="not stateful"):
        SimpleRNN(2).reset_states([np.zeros((BATCH, 2), "float32")])


# ------------------------------------------------------------- generic RNN


class MinimalCell(Layer):
    """The guide's kind of custom cell: h = tanh(x W + h U)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units), name="recurrent_kernel")

    def call(self, inputs, states):
        h = tf.tanh(tf.matmul(inputs, self.kernel) + tf.matmul(states[0], self.recurrent_kernel))
        return h, [h]


def test_rnn_with_a_custom_cell_and_with_builtin_cells():
    layer = RNN(MinimalCell(UNITS), return_sequences=True, go_backwards=True)
    layer(X)
    kernel, recurrent = randomize(layer)
    expected, _, _ = np_rnn(
        lambda x, s: np_simple_step([kernel, recurrent, 0.0], x, s),
        X,
        [np.zeros((BATCH, UNITS), "f")],
        MASK,
        go_backwards=True,
    )
    np.testing.assert_allclose(layer(X, mask=MASK), expected, atol=1e-5)
    for cell, cls in ((SimpleRNNCell(UNITS), SimpleRNN), (LSTMCell(UNITS), LSTM), (GRUCell(UNITS), GRU)):
        generic, specific = RNN(cell), cls(UNITS)
        weights = built(generic)
        specific(X)
        specific.set_weights(weights)
        np.testing.assert_allclose(generic(X), specific(X), atol=1e-6)


def test_cells_step_once_like_numpy():
    cell = LSTMCell(UNITS)
    h0 = np.zeros((BATCH, UNITS), "float32")
    out, (h, c) = cell(X[:, 0], [h0, h0])
    weights = randomize(cell)
    out, (h, c) = cell(X[:, 0], [h0, h0])
    want, (want_h, want_c) = np_lstm_step(weights, X[:, 0], [h0, h0])
    np.testing.assert_allclose(out, want, atol=1e-6)
    np.testing.assert_allclose(c, want_c, atol=1e-6)


# --------------------------------------------------------- masks, shapes


def test_mask_from_embedding_reaches_the_rnn_and_is_propagated():
    tokens = np.array([[3, 1, 4, 0, 0], [2, 7, 1, 8, 2]])
    embedded = Embedding(10, FEATURES, mask_zero=True)(tokens)
    layer = GRU(UNITS, return_sequences=True)
    out = layer(embedded)
    np.testing.assert_allclose(out, layer(embedded.numpy(), mask=tokens != 0), atol=1e-6)
    np.testing.assert_array_equal(masking.get_mask(out), tokens != 0)
    last = GRU(UNITS)(embedded)
    assert masking.get_mask(last) is None


@pytest.mark.parametrize("kind", sorted(STEPS))
@pytest.mark.parametrize("return_sequences", [False, True])
def test_compute_output_shape_matches(kind, return_sequences):
    layer = STEPS[kind][0](UNITS, return_sequences=return_sequences, return_state=True)
    outputs = layer(X)
    shapes = layer.compute_output_shape((None, TIME, FEATURES))
    assert len(shapes) == len(outputs)
    for shape, tensor in zip(shapes, outputs):
        assert tuple(shape)[1:] == tuple(tensor.shape)[1:]


def test_weights_follow_keras_layout():
    lstm, gru = LSTM(UNITS), GRU(UNITS)
    lstm(X)
    gru(X)
    assert [tuple(w.shape) for w in lstm.weights] == [(FEATURES, 4 * UNITS), (UNITS, 4 * UNITS), (4 * UNITS,)]
    assert list(lstm.weight_paths()) == ["cell/kernel", "cell/recurrent_kernel", "cell/bias"]
    assert [tuple(w.shape) for w in gru.weights] == [(FEATURES, 3 * UNITS), (UNITS, 3 * UNITS), (2, 3 * UNITS)]
    bias = lstm.cell.bias.numpy()  # unit_forget_bias: the forget block starts at 1
    np.testing.assert_array_equal(bias[UNITS : 2 * UNITS], 1.0)
    np.testing.assert_array_equal(np.delete(bias, range(UNITS, 2 * UNITS)), 0.0)
    kernel = lstm.cell.recurrent_kernel.numpy()  # orthogonal recurrent kernel (rows, since 3 < 12)
    np.testing.assert_allclose(kernel @ kernel.T, np.eye(UNITS), atol=1e-5)


# ----------------------------------------------------------------- dropout


def test_dropout_only_in_training_and_gradients_flow():
    layer = LSTM(UNITS, dropout=0.5, recurrent_dropout=0.5, seed=3, return_sequences=True)
    inference = layer(X)
    np.testing.assert_allclose(layer(X, training=False), inference)
    with tf.GradientTape() as tape:
        trained = layer(X, training=True)
        loss = tf.reduce_sum(trained)
    assert not np.allclose(trained, inference)
    grads = tape.gradient(loss, layer.trainable_weights)
    assert all(g is not None and np.all(np.isfinite(g)) for g in grads)
    compiled = tf.function(lambda x: layer(x, training=True), jit_compile=True)
    assert compiled(X).shape == (BATCH, TIME, UNITS)


# ------------------------------------------------------------ config/errors


@pytest.mark.parametrize("kind", sorted(STEPS))
def test_config_round_trip_gives_same_outputs(kind):
    layer = STEPS[kind][0](UNITS, return_sequences=True, go_backwards=True, activation="relu")
    weights = built(layer)
    clone = type(layer).from_config(layer.get_config())
    clone(X)
    clone.set_weights(weights)
    np.testing.assert_allclose(clone(X, mask=MASK), layer(X, mask=MASK), atol=1e-6)
    assert clone.get_config() == layer.get_config()
    assert json.loads(json.dumps(layer.get_config())) == layer.get_config()
    generic = RNN(LSTMCell(2), return_state=True)
    rebuilt = RNN.from_config(generic.get_config())
    assert isinstance(rebuilt.cell, LSTMCell) and rebuilt.return_state


def test_clear_errors():
    with pytest.raises(ValueError, match="units"):
        LSTM(0)
    with pytest.raises(ValueError, match="dropout"):
        GRU(2, dropout="a lot")
    layer = SimpleRNN(2)
    with pytest.raises(ValueError, match="rank 3"):
        layer(X[:, 0])
    layer(X)
    with pytest.raises(ValueError, match="simple_rnn"):
        layer(X[..., :2])
    with pytest.raises(ValueError, match="unroll"):
        tf.function(
            lambda x: SimpleRNN(2, unroll=True)(x), input_signature=[tf.TensorSpec((2, None, FEATURES))]
        ).get_concrete_function()
    with pytest.raises(ValueError, match="state_size"):
        RNN(tf.Module())


# ---------------------------------------------------------- Keras (optional)


@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
def test_matches_keras(kind):
    keras = pytest.importorskip("keras")
    ours = {"SimpleRNN": SimpleRNN, "LSTM": LSTM, "GRU": GRU}[kind](UNITS, return_sequences=True, return_state=True)
    theirs = getattr(keras.layers, kind)(UNITS, return_sequences=True, return_state=True)
    weights = built(ours)
    theirs(X)
    theirs.set_weights(weights)
    for got, want in zip(ours(X, mask=MASK), theirs(X, mask=tf.constant(MASK))):
        np.testing.assert_allclose(got, np.asarray(want), atol=1e-5)
