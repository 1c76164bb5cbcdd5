"""The Keras "Working with RNNs" guide with tfkit: stacked cells, nested cells, stateful layers."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.engine.layer import Layer
from tfkit.layers.recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell, StackedRNNCells

RNG = np.random.default_rng(11)
BATCH, TIME, FEATURES = 2, 4, 3
X = RNG.normal(size=(BATCH, TIME, FEATURES)).astype("float32")
MASK = np.array([[1, 1, 0, 0], [1, 1, 1, 1]], dtype=bool)


def randomize(layer, scale=0.5):
    values = [RNG.normal(scale=scale, size=w.shape).astype("float32") for w in layer.weights]
    layer.set_weights(values)
    return values


# ------------------------------------------------------------ stacked cells


def stacked_and_separate(return_sequences=True):
    """An RNN over [LSTMCell(3), GRUCell(2)] and the same two layers run one after the other."""
    stacked = RNN([LSTMCell(3), GRUCell(2)], return_sequences=return_sequences, return_state=True)
    stacked(X)
    weights = randomize(stacked)
    lstm, gru = (
        LSTM(3, return_sequences=True, return_state=True),
        GRU(2, return_sequences=return_sequences, return_state=True),
    )
    lstm(X)
    lstm.set_weights(weights[:3])
    gru(lstm(X)[0])
    gru.set_weights(weights[3:])
    return stacked, lstm, gru


def test_list_of_cells_is_a_stack_with_per_cell_states():
    stacked, lstm, gru = stacked_and_separate()
    assert isinstance(stacked.cell, StackedRNNCells)
    assert stacked.state_size == [[3, 3], 2]
    assert stacked.cell.output_size == 2
    output, lstm_states, gru_states = stacked(X, mask=MASK)
    lstm_seq, h1, c1 = lstm(X, mask=MASK)
    gru_seq, h2 = gru(lstm_seq, mask=MASK)
    np.testing.assert_allclose(output, gru_seq, atol=1e-5)
    assert len(lstm_states) == 2 and len(gru_states) == 1  # per cell, in order
    np.testing.assert_allclose(lstm_states[0], h1, atol=1e-5)
    np.testing.assert_allclose(lstm_states[1], c1, atol=1e-5)
    np.testing.assert_allclose(gru_states[0], h2, atol=1e-5)
    assert [w.name.split("/")[-1].split(":")[0] for w in stacked.weights][:3] == ["kernel", "recurrent_kernel", "bias"]


@pytest.mark.parametrize("options", [dict(go_backwards=True), dict(unroll=True), dict(zero_output_for_mask=True)])
def test_stack_loop_options_match_the_layers_run_separately(options):
    stacked = RNN([SimpleRNNCell(3), SimpleRNNCell(2)], return_sequences=True, **options)
    stacked(X)
    weights = randomize(stacked)
    first = SimpleRNN(3, return_sequences=True, **options)
    first(X)
    first.set_weights(weights[:3])
    # Layer two reads layer one's outputs in the order the stack produced them
    # (go_backwards returns the sequence in that reversed order).
    middle = first(X, mask=MASK)
    mask = MASK[:, ::-1] if options.get("go_backwards") else MASK
    second = SimpleRNN(2, return_sequences=True, **{k: v for k, v in options.items() if k != "go_backwards"})
    second(middle)
    second.set_weights(weights[3:])
    np.testing.assert_allclose(stacked(X, mask=MASK), second(middle, mask=mask), atol=1e-5)


def test_stack_initial_state_nested_or_flat_and_compiled():
    stacked = RNN([LSTMCell(3), SimpleRNNCell(2)], return_state=True)
    stacked(X)
    randomize(stacked)
    h1, c1, h2 = (RNG.normal(size=(BATCH, n)).astype("float32") for n in (3, 3, 2))
    nested = stacked(X, initial_state=[[h1, c1], [h2]])
    flat = stacked(X, initial_state=[h1, c1, h2])  # the cells' nest is recovered from a flat list
    for a, b in zip(tf.nest.flatten(nested), tf.nest.flatten(flat)):
        np.testing.assert_allclose(a, b, atol=1e-6)
    assert not np.allclose(nested[0], stacked(X)[0])
    compiled = tf.function(lambda x: stacked(x, initial_state=[[h1, c1], [h2]]), jit_compile=True)
    np.testing.assert_allclose(compiled(X)[0], nested[0], atol=1e-5)
    with pytest.raises(ValueError, match="expects 3 initial state"):
        stacked(X, initial_state=[h1, c1])


def test_stacked_cells_step_directly_and_errors():
    stack = StackedRNNCells([LSTMCell(3), GRUCell(2)])
    zeros3, zeros2 = np.zeros((BATCH, 3), "float32"), np.zeros((BATCH, 2), "float32")
    output, (lstm_states, gru_states) = stack(X[:, 0], [[zeros3, zeros3], [zeros2]])
    assert output.shape == (BATCH, 2) and len(lstm_states) == 2 and len(gru_states) == 1
    initial = stack.get_initial_state(batch_size=BATCH)
    assert [[tuple(s.shape) for s in cell] for cell in initial] == [[(BATCH, 3), (BATCH, 3)], [(BATCH, 2)]]
    with pytest.raises(ValueError, match="at least one cell"):
        StackedRNNCells([])
    with pytest.raises(ValueError, match="state_size"):
        StackedRNNCells([LSTMCell(2), layers.Dense(2)])


def test_stack_dropout_trains_and_differs_from_inference():
    stacked = RNN(
        [LSTMCell(3, dropout=0.5, recurrent_dropout=0.5, seed=1), GRUCell(2, dropout=0.5, seed=2)],
        return_sequences=True,
    )
    inference = stacked(X)
    np.testing.assert_allclose(stacked(X, training=False), inference)
    with tf.GradientTape() as tape:
        trained = stacked(X, training=True)
        loss = tf.reduce_sum(trained)
    assert not np.allclose(trained, inference)
    grads = tape.gradient(loss, stacked.trainable_weights)
    assert len(grads) == 6 and all(g is not None and np.all(np.isfinite(g)) for g in grads)


def test_stack_in_bidirectional_and_with_another_dtype():
    both = layers.Bidirectional(RNN([LSTMCell(3), GRUCell(2)], return_state=True))
    output, *states = both(X)
    assert output.shape == (BATCH, 4)
    assert [len(s) for s in states] == [2, 1, 2, 1]  # forward cells' states, then backward ones
    wide = RNN([LSTMCell(3, dropout=0.3), GRUCell(2)], dtype="float64", return_state=True)
    outputs = wide(X.astype("float64"), training=True)  # float32 cells inside a float64 RNN, as Keras
    assert {t.dtype for t in tf.nest.flatten(outputs)} == {tf.float64}


def test_stack_config_round_trip_and_model_saving(tmp_path):
    stacked = RNN(
        [LSTMCell(3, activation="relu"), GRUCell(2, reset_after=False)], return_sequences=True, go_backwards=True
    )
    stacked(X)
    weights = randomize(stacked)
    config = json.loads(json.dumps(stacked.get_config()))
    assert config["cell"]["class_name"] == "StackedRNNCells"
    assert [c["class_name"] for c in config["cell"]["config"]["cells"]] == ["LSTMCell", "GRUCell"]
    clone = RNN.from_config(config)
    clone(X)
    clone.set_weights(weights)
    assert clone.get_config() == stacked.get_config()
    np.testing.assert_allclose(clone(X, mask=MASK), stacked(X, mask=MASK), atol=1e-6)
    inputs = tfkit.Input((TIME, FEATURES))
    model = tfkit.Model(inputs, RNN([SimpleRNNCell(2), LSTMCell(3)])(inputs))
    randomize(model)
    model.save(tmp_path / "stacked.h5")
    loaded = tfkit.saving.load_model(tmp_path / "stacked.h5")
    np.testing.assert_allclose(loaded(X), model(X), atol=1e-6)


def test_stack_matches_keras():
    keras = pytest.importorskip("keras")
    ours = RNN([LSTMCell(3), GRUCell(2)], return_sequences=True, return_state=True)
    theirs = keras.layers.RNN(
        [keras.layers.LSTMCell(3), keras.layers.GRUCell(2)], return_sequences=True, return_state=True
    )
    ours(X)
    theirs(X)
    theirs.set_weights(randomize(ours))
    got, want = ours(X, mask=MASK), theirs(X, mask=tf.constant(MASK))
    assert len(got) == len(want) == 3
    assert tf.nest.map_structure(lambda _: 0, list(got)) == tf.nest.map_structure(lambda _: 0, list(want))
    for a, b in zip(tf.nest.flatten(got), tf.nest.flatten(want)):
        np.testing.assert_allclose(a, np.asarray(b), atol=1e-5)


# ---------------------------------------------------- the guide's NestedCell


class NestedCell(Layer):
    """Two inputs per timestep, two states of different ranks: running sums of projections."""

    def __init__(self, unit_1, unit_2, unit_3, **kwargs):
        self.unit_1, self.unit_2, self.unit_3 = unit_1, unit_2, unit_3
        self.state_size = [tf.TensorShape([unit_1]), tf.TensorShape([unit_2, unit_3])]
        self.output_size = [tf.TensorShape([unit_1]), tf.TensorShape([unit_2, unit_3])]
        super().__init__(**kwargs)

    def build(self, input_shapes):
        i1, (i2, i3) = input_shapes[0][1], input_shapes[1][1:]
        self.kernel_1 = self.add_weight(shape=(i1, self.unit_1), initializer="uniform", name="kernel_1")
        self.kernel_2_3 = self.add_weight(
            shape=(i2, i3, self.unit_2, self.unit_3), initializer="uniform", name="kernel_2_3"
        )

    def call(self, inputs, states):
        input_1, input_2 = tf.nest.flatten(inputs)
        s1, s2 = states
        output_1 = tf.matmul(input_1, self.kernel_1)
        output_2_3 = tf.einsum("bij,ijkl->bkl", input_2, self.kernel_2_3)
        return (output_1, output_2_3), [s1 + output_1, s2 + output_2_3]

    def get_config(self):
        return {"unit_1": self.unit_1, "unit_2": self.unit_2, "unit_3": self.unit_3}


U1, U2, U3, I1, I2, I3 = 3, 2, 4, 5, 3, 2


def nested_data(n=8, time=TIME):
    return (RNG.random((n, time, I1)).astype("float32"), RNG.random((n, time, I2, I3)).astype("float32"))


def test_nested_cell_in_a_functional_model_compiles_and_fits():
    # The guide, with smaller sizes: RNN(NestedCell) on a tuple of two sequence inputs.
    cell = NestedCell(U1, U2, U3)
    rnn = RNN(cell)
    input_1, input_2 = tfkit.Input((None, I1)), tfkit.Input((None, I2, I3))
    outputs = rnn((input_1, input_2))
    assert [tuple(o.shape) for o in outputs] == [(None, U1), (None, U2, U3)]
    model = tfkit.Model([input_1, input_2], outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["accuracy"])
    x1, x2 = nested_data()
    targets = [RNG.random((8, U1)).astype("float32"), RNG.random((8, U2, U3)).astype("float32")]
    history = model.fit([x1, x2], targets, batch_size=4, epochs=2, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    assert history.history["loss"][1] < history.history["loss"][0]
    # The last output is the last timestep's projections.
    kernel_1, kernel_2_3 = cell.kernel_1.numpy(), cell.kernel_2_3.numpy()
    out_1, out_2 = model.predict([x1, x2], verbose=0)
    np.testing.assert_allclose(out_1, x1[:, -1] @ kernel_1, atol=1e-5)
    np.testing.assert_allclose(out_2, np.einsum("bij,ijkl->bkl", x2[:, -1], kernel_2_3), atol=1e-5)


@pytest.mark.parametrize("options", [dict(), dict(unroll=True, go_backwards=True)])
def test_nested_cell_states_and_sequences_match_numpy(options):
    cell = NestedCell(U1, U2, U3)
    layer = RNN(cell, return_sequences=True, return_state=True, **options)
    x1, x2 = nested_data(BATCH)
    layer((x1, x2))
    kernel_1, kernel_2_3 = randomize(layer)
    (seq_1, seq_2), s1, s2 = layer((x1, x2), mask=MASK)
    steps_1 = x1 @ kernel_1
    steps_2 = np.einsum("btij,ijkl->btkl", x2, kernel_2_3)
    keep = MASK[:, :, None]
    np.testing.assert_allclose(s1, np.sum(steps_1 * keep, axis=1), atol=1e-5)
    np.testing.assert_allclose(s2, np.sum(steps_2 * keep[..., None], axis=1), atol=1e-5)
    assert seq_1.shape == (BATCH, TIME, U1) and seq_2.shape == (BATCH, TIME, U2, U3)
    order = slice(None, None, -1) if options.get("go_backwards") else slice(None)
    # Row 1 is never masked: its outputs are its projections, in loop order.
    np.testing.assert_allclose(seq_2[1], steps_2[1][order], atol=1e-5)
    assert layer.compute_output_shape(((None, TIME, I1), (None, TIME, I2, I3)))[0] == [
        (None, TIME, U1),
        (None, TIME, U2, U3),
    ]


def test_nested_cell_with_initial_state_and_stateful():
    cell = NestedCell(U1, U2, U3)
    x1, x2 = nested_data(BATCH)
    layer = RNN(cell, return_state=True, stateful=True)
    _, s1, s2 = layer((x1[:, :2], x2[:, :2]))
    _, t1, t2 = layer((x1[:, 2:], x2[:, 2:]))
    whole = RNN(cell, return_state=True)
    _, w1, w2 = whole((x1, x2))
    np.testing.assert_allclose(t2, w2, atol=1e-5)
    _, i1, i2 = whole((x1[:, 2:], x2[:, 2:]), initial_state=[s1, s2])
    np.testing.assert_allclose(i1, w1, atol=1e-5)
    assert [tuple(v.shape) for v in layer.states] == [(BATCH, U1), (BATCH, U2, U3)]


# ------------------------------------------------------------------ stateful


STATEFUL = {"SimpleRNN": SimpleRNN, "LSTM": LSTM, "GRU": GRU}


@pytest.mark.parametrize("kind", sorted(STATEFUL))
def test_stateful_halves_equal_whole_and_reset_equals_fresh(kind):
    cls = STATEFUL[kind]
    whole = cls(3, return_sequences=True)
    whole(X)
    weights = randomize(whole)
    inputs = tfkit.Input(batch_shape=(BATCH, None, FEATURES))
    model = tfkit.Model(inputs, cls(3, return_sequences=True, stateful=True)(inputs))
    model.set_weights(weights)
    first = model.predict(X[:, :1], batch_size=BATCH, verbose=0)
    second = model.predict(X[:, 1:], batch_size=BATCH, verbose=0)
    np.testing.assert_allclose(np.concatenate([first, second], axis=1), whole(X), atol=1e-5)
    model.layers[1].reset_states()
    np.testing.assert_allclose(model.predict(X[:, :1], batch_size=BATCH, verbose=0), first, atol=1e-6)
    model.layers[1].reset_state()  # Keras 3's name
    assert all(np.all(v.numpy() == 0) for v in tf.nest.flatten(model.layers[1].states))


def test_reset_states_sets_given_values():
    layer = LSTM(3, stateful=True, return_state=True)
    layer(X)
    h0, c0 = (RNG.normal(size=(BATCH, 3)).astype("float32") for _ in range(2))
    layer.reset_states([h0, c0])
    np.testing.assert_allclose(layer.states[1], c0)
    started = layer(X)
    fresh = LSTM(3, return_state=True)
    fresh(X)
    fresh.set_weights(layer.get_weights())
    for a, b in zip(started, fresh(X, initial_state=[h0, c0])):
        np.testing.assert_allclose(a, b, atol=1e-6)
    with pytest.raises(ValueError, match="2 state tensor"):
        layer.reset_states([h0])
    with pytest.raises(ValueError, match=r"shape \(2, 3\)"):
        layer.reset_states([h0[:1], c0])


def test_stateful_fit_carries_states_across_batches():
    # Batch 2 continues batch 1 row by row; with a zero learning rate the final
    # states are those of one pass over the two halves joined in time.
    inputs = tfkit.Input((TIME, FEATURES), batch_size=BATCH)
    layer = GRU(3, stateful=True)
    model = tfkit.Sequential([inputs, layer, layers.Dense(1)])
    model.compile(optimizer=tfkit.optimizers.SGD(learning_rate=0.0), loss="mse")
    data = RNG.normal(size=(2 * BATCH, TIME, FEATURES)).astype("float32")
    model.fit(data, np.zeros((2 * BATCH, 1), "float32"), batch_size=BATCH, shuffle=False, epochs=1, verbose=0)
    joined = np.concatenate([data[:BATCH], data[BATCH:]], axis=1)
    reference = GRU(3)
    reference(joined)
    reference.set_weights(layer.get_weights())
    np.testing.assert_allclose(layer.states[0], reference(joined), atol=1e-5)


def test_stateful_needs_a_known_batch_size():
    inputs = tfkit.Input((None, FEATURES))
    with pytest.raises(ValueError, match=r"lstm.*static batch size.*batch_shape"):
        LSTM(2, stateful=True, name="lstm_without_batch")(inputs)
    stacked = RNN([LSTMCell(2), GRUCell(2)], stateful=True, return_state=True)
    stacked(X[:, :2])
    _, lstm_states, gru_states = stacked(X[:, 2:])
    assert [tuple(v.shape) for v in tf.nest.flatten(stacked.states)] == [(BATCH, 2)] * 3
    np.testing.assert_allclose(stacked.states[0][1], lstm_states[1])
    whole = RNN([LSTMCell(2), GRUCell(2)], return_state=True)
    whole(X)
    whole.set_weights(stacked.get_weights())
    np.testing.assert_allclose(whole(X)[2][0], gru_states[0], atol=1e-5)


def test_nested_cell_with_unknown_batch_and_time_and_bad_sizes():
    layer = RNN(NestedCell(U1, U2, U3), return_state=True)
    x1, x2 = nested_data(BATCH)
    eager = layer((x1, x2))
    specs = (tf.TensorSpec((None, None, I1)), tf.TensorSpec((None, None, I2, I3)))
    traced = tf.function(lambda a, b: layer((a, b)), input_signature=specs)
    for a, b in zip(tf.nest.flatten(traced(x1, x2)), tf.nest.flatten(eager)):
        np.testing.assert_allclose(a, b, atol=1e-6)
    cell = NestedCell(U1, U2, U3)
    cell.state_size = [U1, "wide"]
    with pytest.raises(ValueError, match="state_size.*'wide'"):
        RNN(cell)
