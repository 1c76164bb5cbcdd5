"""ConvLSTM1D/2D/3D: one step by hand, side by side with Keras 3, masks, configs, h5, a compiled fit."""

import numpy as np
import pytest
import tensorflow as tf
from keras3_crosscheck import config_round_trip, copy_keras_weights, fit_once, h5_round_trip, perturb

import tfkit
from tfkit import layers
from tfkit.base import registry


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def test_one_step_by_hand():
    layer = layers.ConvLSTM1D(1, 3)  # one filter, a window of 3 over 3 positions: 1 output
    x = np.array([[[[1.0], [2.0], [3.0]]]], "float32")  # (batch 1, time 1, steps 3, channels 1)
    layer.build(x.shape)
    kernel = np.array([[0.1, 0.2, 0.3, 0.4], [0.0, -0.1, 0.5, 0.2], [-0.2, 0.1, 0.1, -0.3]], "float32")
    layer.cell.kernel.assign(kernel[:, None, :])  # (3 taps, 1 channel, 4 gates i, f, c, o)
    layer.cell.bias.assign([0.5, 1.0, -0.5, 0.0])
    z = np.array([1.0, 2.0, 3.0]) @ kernel + [0.5, 1.0, -0.5, 0.0]
    c = sigmoid(z[0]) * np.tanh(z[2])  # the previous state is zero: no f * c_prev term
    h = sigmoid(z[3]) * np.tanh(c)
    np.testing.assert_allclose(layer(x).numpy().ravel(), [h], rtol=1e-6)


def test_two_steps_use_the_recurrent_kernel_by_hand():
    layer = layers.ConvLSTM1D(1, 1, return_state=True)
    x = np.array([[[[0.5]], [[-1.0]]]], "float32")  # (batch 1, time 2, steps 1, channels 1)
    layer.build(x.shape)
    w, u, b = np.array([0.3, -0.2, 0.8, 0.5]), np.array([0.7, 0.1, -0.4, 0.6]), np.array([0.0, 1.0, 0.1, -0.1])
    layer.cell.kernel.assign(w.reshape(1, 1, 4).astype("float32"))
    layer.cell.recurrent_kernel.assign(u.reshape(1, 1, 4).astype("float32"))
    layer.cell.bias.assign(b.astype("float32"))
    h, c = 0.0, 0.0
    for x_t in (0.5, -1.0):
        z = x_t * w + h * u + b
        c = sigmoid(z[1]) * c + sigmoid(z[0]) * np.tanh(z[2])
        h = sigmoid(z[3]) * np.tanh(c)
    output, h_state, c_state = layer(x)
    np.testing.assert_allclose(
        [output.numpy().item(), h_state.numpy().item(), c_state.numpy().item()], [h, h, c], rtol=1e-6
    )


CASES = [
    (1, (2, 3, 9, 2), dict(strides=2, return_state=True)),
    (1, (2, 3, 2, 7), dict(data_format="channels_first", padding="same", go_backwards=True)),
    (2, (2, 4, 5, 6, 3), dict(padding="same", return_sequences=True, unit_forget_bias=False)),
    (2, (2, 3, 6, 6, 2), dict(dilation_rate=2, return_sequences=True, return_state=True, activation="relu")),
    (3, (1, 2, 2, 4, 4, 4), dict(data_format="channels_first", go_backwards=True)),
    (3, (1, 3, 4, 4, 4, 2), dict(padding="same", use_bias=False, return_sequences=True)),
]


@pytest.mark.parametrize("rank,shape,kwargs", CASES)
@pytest.mark.parametrize("precompute", [False, True])
def test_matches_keras(rank, shape, kwargs, precompute):
    keras = pytest.importorskip("keras")
    name = f"ConvLSTM{rank}D"
    x = np.random.RandomState(0).randn(*shape).astype("float32")
    # Keras's TensorFlow backend cannot run most channels_first convolutions on a CPU: it gets the same
    # data channels-last, and its results are moved back to channels-first.
    first = kwargs.get("data_format") == "channels_first"
    keras_x = np.moveaxis(x, 2, -1) if first else x
    keras_kwargs = {k: v for k, v in kwargs.items() if k != "data_format"}
    theirs, ours = getattr(keras.layers, name)(3, 3, **keras_kwargs), getattr(layers, name)(3, 3, **kwargs)
    theirs(keras_x)
    ours.build(x.shape)
    perturb(theirs)
    copy_keras_weights(theirs, ours)
    ours._tfkit_precompute_inputs = precompute  # the GPU path (all timesteps convolved at once) too
    expected = [keras.ops.convert_to_numpy(t) for t in tf.nest.flatten(theirs(keras_x))]
    if first:
        expected = [np.moveaxis(e, -1, 2 if e.ndim == rank + 3 else 1) for e in expected]
    got = [t.numpy() for t in tf.nest.flatten(ours(x))]
    assert [g.shape for g in got] == [e.shape for e in expected]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
    assert ours.compute_output_shape(x.shape) == (
        tuple(e.shape) if len(expected) == 1 else tuple(tuple(e.shape) for e in expected)
    )


def test_weights_config_and_attributes_follow_keras():
    keras = pytest.importorskip("keras")
    # named: an auto-name counts the layers each library made before in this process (conv_lstm2d_5 or _15)
    kwargs = dict(strides=2, kernel_regularizer="l2", dropout=0.1, seed=3, return_sequences=True, name="conv_lstm2d")
    theirs, ours = keras.layers.ConvLSTM2D(4, (3, 2), **kwargs), layers.ConvLSTM2D(4, (3, 2), **kwargs)
    x = np.zeros((1, 2, 7, 7, 3), "float32")
    theirs(x)
    ours(x)
    # Keras's paths (conv_lstm2d/conv_lstm_cell/kernel); tfkit's weight files key them by the attribute path
    # cell/kernel, as tfkit's LSTM (the same names, shapes and order).
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    assert list(ours.weight_paths()) == ["cell/kernel", "cell/recurrent_kernel", "cell/bias"]
    config, keras_config = ours.get_config(), theirs.get_config()
    assert sorted(config) == sorted(keras_config)
    for key in (
        "filters",
        "kernel_size",
        "strides",
        "padding",
        "data_format",
        "dilation_rate",
        "dropout",
        "seed",
        "return_sequences",
        "unroll",
        "zero_output_for_mask",
        "unit_forget_bias",
    ):
        assert config[key] == keras_config[key], key
    assert ours.filters == 4 and ours.kernel_size == (3, 2) and ours.padding == "valid"
    np.testing.assert_array_equal(ours.cell.bias.numpy(), [0.0] * 4 + [1.0] * 4 + [0.0] * 8)  # unit_forget_bias


def test_masked_timesteps_keep_the_state():
    layer = layers.ConvLSTM1D(2, 2, padding="same", return_sequences=True)
    x = np.random.RandomState(1).randn(2, 4, 3, 2).astype("float32")
    mask = np.array([[True, True, False, True], [True, False, False, False]])
    out = layer(x, mask=mask).numpy()
    np.testing.assert_array_equal(out[0, 2], out[0, 1])
    np.testing.assert_array_equal(out[1, 3], out[1, 0])
    unmasked = layer(x[:1, :2]).numpy()
    # batch 1 and batch 2 may take different convolution kernels (oneDNN): float32 noise, not state
    np.testing.assert_allclose(out[0, :2], unmasked[0], rtol=1e-5, atol=1e-6)


def test_dropout_only_while_training():
    layer = layers.ConvLSTM2D(2, 2, dropout=0.5, recurrent_dropout=0.5, seed=1)
    x = np.ones((2, 3, 4, 4, 1), "float32")
    np.testing.assert_array_equal(layer(x, training=False).numpy(), layer(x).numpy())
    assert not np.allclose(layer(x, training=True).numpy(), layer(x, training=False).numpy())


@pytest.mark.parametrize(
    "make,shape",
    [
        (lambda: layers.ConvLSTM1D(2, 2, return_sequences=True, go_backwards=True), (3, 5, 2)),
        (lambda: layers.ConvLSTM2D(2, 2, padding="same", data_format="channels_first"), (2, 3, 4, 4)),
        (lambda: layers.ConvLSTM3D(1, 2, recurrent_activation="hard_sigmoid"), (2, 3, 3, 3, 1)),
    ],
)
def test_config_and_h5_round_trip(make, shape, tmp_path):
    layer = make()
    assert registry.lookup("layers", type(layer).__name__) is type(layer)
    config_round_trip(layer)
    h5_round_trip(make, np.random.RandomState(2).rand(2, *shape).astype("float32"), tmp_path)


def test_errors_name_the_layer():
    with pytest.raises(ValueError, match=r"'clstm' \(ConvLSTM2D\) expected input of rank 5"):
        layers.ConvLSTM2D(2, 3, name="clstm")(np.zeros((1, 2, 4, 4), "float32"))
    with pytest.raises(ValueError, match=r"strides > 1 cannot be combined with dilation_rate > 1"):
        layers.ConvLSTM1D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match=r"needs known spatial and channel sizes"):
        layers.ConvLSTM1D(2, 3)(tfkit.Input((4, None, 2)))


def test_compiled_fit():
    inputs = tfkit.Input((3, 5, 5, 1))
    hidden = layers.ConvLSTM2D(2, 3, padding="same")(inputs)
    model = tfkit.Model(inputs, layers.Dense(1)(layers.GlobalAveragePooling2D()(hidden)))
    rng = np.random.RandomState(0)
    fit_once(model, rng.rand(4, 3, 5, 5, 1).astype("float32"), rng.rand(4, 1).astype("float32"))


def test_unroll_true_exports_to_tflite_as_the_refusal_advises(tmp_path):
    inputs = tfkit.Input((3, 4, 2))
    model = tfkit.Model(inputs, layers.ConvLSTM1D(2, 2, unroll=True)(inputs))
    path = str(tmp_path / "model.tflite")
    model.export(path, format="tflite", verbose=False)  # verify=True: compared with predict inside
    assert model.layers[-1].get_config()["unroll"] is True
