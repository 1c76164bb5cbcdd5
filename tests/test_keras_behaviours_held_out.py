"""Three Keras 3 behaviours that held-out keras-io examples rely on, checked against Keras in this process.

1. ``layer.activation = None`` on a built layer (keras-io's Grad-CAM: ``model.layers[-1].activation = None``):
   the layers Keras guards skip it; the others fail as Keras's do; a later compiled ``predict`` sees it.
2. ``fit(x, validation_split=...)`` with no ``y`` (autoencoders, VAEs): ``x`` alone is split, the last
   fraction before shuffling, as Keras splits it.
3. ``output_mode="binary"``, Keras's older name of ``"multi_hot"``, in the lookups, ``TextVectorization``
   and ``CategoryEncoding`` (not in ``Hashing`` or ``Discretization``, which Keras refuses it in too).
"""

import numpy as np
import pytest
import tensorflow as tf

import tfkit

keras = pytest.importorskip("keras")

FRAMEWORKS = (keras, tfkit)


def _copy_weights(source, target):
    """Keras's initial weights into the tfkit twin, so that both compute the same numbers."""
    target.set_weights([np.asarray(w) for w in source.get_weights()])


def _numpy(value):
    return np.asarray(value, dtype="float64")


# --------------------------------------------------------------- 1. layer.activation = None

# (name, constructor arguments, input shape): the layers whose call skips a None activation in Keras
GUARDED = [
    ("Dense", (3,), {}, (2, 4)),
    ("EinsumDense", ("ab,bc->ac",), {"output_shape": 3}, (2, 4)),
    ("Conv1D", (2, 3), {}, (2, 6, 3)),
    ("Conv1D", (2, 3), {"padding": "causal"}, (2, 6, 3)),
    ("Conv2D", (2, 3), {}, (2, 5, 5, 3)),
    ("Conv3D", (2, 2), {}, (1, 3, 3, 3, 2)),
    ("SeparableConv1D", (2, 3), {}, (2, 6, 3)),
    ("SeparableConv2D", (2, 3), {}, (2, 5, 5, 3)),
    ("DepthwiseConv1D", (3,), {}, (2, 6, 3)),
    ("DepthwiseConv2D", (3,), {}, (2, 5, 5, 3)),
    ("Conv1DTranspose", (2, 3), {}, (2, 6, 3)),
    ("Conv2DTranspose", (2, 3), {"strides": 2}, (2, 4, 4, 3)),
    ("Conv3DTranspose", (2, 2), {}, (1, 3, 3, 3, 2)),
]


def _built_pair(name, args, kwargs, shape, activation="softmax"):
    keras.utils.set_random_seed(0)  # Keras's initial weights, copied into tfkit's: the same on every run
    x = (np.random.default_rng(0).random(shape).astype("float32") - 0.5) * 4
    layers = [getattr(mod.layers, name)(*args, activation=activation, **kwargs) for mod in FRAMEWORKS]
    layers[0](x)
    layers[1](x)
    _copy_weights(*layers)
    return layers, x


@pytest.mark.parametrize(
    "name,args,kwargs,shape", GUARDED, ids=[f"{g[0]}{'-' + str(g[2]) if g[2] else ''}" for g in GUARDED]
)
def test_a_none_activation_assigned_after_building_is_skipped_as_in_keras(name, args, kwargs, shape):
    (k_layer, t_layer), x = _built_pair(name, args, kwargs, shape)
    softmax = _numpy(k_layer(x))
    np.testing.assert_allclose(_numpy(t_layer(x)), softmax, atol=1e-5)  # softmax, in both
    k_layer.activation = None
    t_layer.activation = None
    k_out, t_out = _numpy(k_layer(x)), _numpy(t_layer(x))
    # no softmax any more: the outputs are not its (which lie in (0, 1) and sum to 1 over the last axis)
    assert np.abs(k_out - softmax).max() > 0.1 and not np.allclose(k_out.sum(-1), 1.0, atol=1e-3)
    np.testing.assert_allclose(t_out, k_out, atol=1e-5)
    assert t_layer.activation is None and k_layer.activation is None  # what was assigned stays there


def test_simple_rnn_cell_skips_a_none_activation_as_in_keras():
    cells = [mod.layers.SimpleRNNCell(3) for mod in FRAMEWORKS]
    x = np.random.default_rng(1).normal(size=(2, 4)).astype("float32") * 3
    state = np.random.default_rng(2).normal(size=(2, 3)).astype("float32")
    for cell in cells:
        cell(x, [state])
    _copy_weights(*cells)
    for cell in cells:
        cell.activation = None
    (k_out, _), (t_out, _) = (cell(x, [state]) for cell in cells)
    assert np.abs(_numpy(k_out)).max() > 1.0  # tanh would keep it inside (-1, 1)
    np.testing.assert_allclose(_numpy(t_out), _numpy(k_out), atol=1e-5)


@pytest.mark.parametrize(
    "make",
    [
        lambda mod: (mod.layers.Activation("relu"), (np.ones((2, 3), "float32"),)),
        lambda mod: (mod.layers.LSTMCell(3), (np.ones((2, 4), "float32"), [np.zeros((2, 3), "float32")] * 2)),
        lambda mod: (mod.layers.GRUCell(3), (np.ones((2, 4), "float32"), [np.zeros((2, 3), "float32")])),
    ],
    ids=["Activation", "LSTMCell", "GRUCell"],
)
def test_layers_keras_does_not_guard_fail_on_a_none_activation_with_a_type_error_in_both(make):
    for mod in FRAMEWORKS:
        layer, args = make(mod)
        layer(*args)
        layer.activation = None
        with pytest.raises(TypeError):
            layer(*args)


@pytest.mark.parametrize("name", ["SimpleRNN", "LSTM", "GRU"])
def test_an_rnn_layers_activation_is_read_only_in_both(name):
    for mod in FRAMEWORKS:
        layer = getattr(mod.layers, name)(3)
        layer(np.ones((2, 4, 3), "float32"))
        with pytest.raises(AttributeError):
            layer.activation = None
        assert layer.activation is layer.cell.activation


def test_a_conv_lstm_layers_activation_is_read_only_in_both():
    for mod in FRAMEWORKS:
        layer = mod.layers.ConvLSTM1D(2, 3)
        with pytest.raises(AttributeError):
            layer.activation = None


def test_a_function_assigned_is_kept_and_used_and_a_name_is_refused_at_call_as_in_keras():
    (k_layer, t_layer), x = _built_pair("Dense", (3,), {}, (4, 4))
    k_fn, t_fn = (lambda t: t * 2.0 - 1.0), (lambda t: t * 2.0 - 1.0)
    k_layer.activation, t_layer.activation = k_fn, t_fn
    assert k_layer.activation is k_fn and t_layer.activation is t_fn
    np.testing.assert_allclose(_numpy(t_layer(x)), _numpy(k_layer(x)), atol=1e-5)
    k_layer.activation, t_layer.activation = keras.activations.relu, tfkit.activations.relu
    np.testing.assert_allclose(_numpy(t_layer(x)), _numpy(k_layer(x)), atol=1e-5)
    for layer in (k_layer, t_layer):
        layer.activation = "relu"  # stored as given: Keras does not look names up here
        assert layer.activation == "relu"
        with pytest.raises(TypeError):
            layer(x)
    with pytest.raises(TypeError, match=r"Dense layer '.*'.*activation.*callable or None.*'relu'"):
        t_layer(x)


def _classifier(mod):
    inputs = mod.Input((6,))
    hidden = mod.layers.Dense(5, activation="relu", name="hidden")(inputs)
    return mod.Model(inputs, mod.layers.Dense(4, activation="softmax", name="predictions")(hidden))


def _classifier_pair(seed):
    models = [_classifier(mod) for mod in FRAMEWORKS]
    _copy_weights(*models)
    return models, np.random.default_rng(seed).normal(size=(10, 6)).astype("float32") * 2


def test_grad_cams_recipe_assigning_none_before_predict_gives_keras_logits():
    (k_model, t_model), x = _classifier_pair(3)
    k_model.layers[-1].activation = None  # keras-io Grad-CAM: "Remove last layer's softmax"
    t_model.layers[-1].activation = None
    k_logits = _numpy(k_model.predict(x, verbose=0))
    np.testing.assert_allclose(_numpy(t_model.predict(x, verbose=0)), k_logits, atol=1e-5)
    assert not np.allclose(k_logits.sum(axis=-1), 1.0)


def test_an_activation_assigned_after_a_compiled_predict_reaches_the_next_predict():
    (k_model, t_model), x = _classifier_pair(4)
    np.testing.assert_allclose(
        _numpy(t_model.predict(x, verbose=0)), _numpy(k_model.predict(x, verbose=0)), atol=1e-5
    )  # softmax: the compiled predict is now traced and cached
    k_model.layers[-1].activation = None
    t_model.layers[-1].activation = None
    # Keras's own predict keeps its cached trace (the softmax) here; its eager call shows the logits.
    np.testing.assert_allclose(_numpy(t_model.predict(x, verbose=0)), _numpy(k_model(x)), atol=1e-5)
    t_model.layers[-1].activation = tfkit.activations.relu
    k_model.layers[-1].activation = keras.activations.relu
    np.testing.assert_allclose(_numpy(t_model.predict(x, verbose=0)), _numpy(k_model(x)), atol=1e-5)


def test_an_assignment_reaches_the_predict_of_a_frozen_model_too():
    (k_model, t_model), x = _classifier_pair(5)
    k_model.trainable = t_model.trainable = False  # no trainable weights: the loops' key is empty
    t_model.predict(x, verbose=0)
    k_model.layers[-1].activation = None
    t_model.layers[-1].activation = None
    np.testing.assert_allclose(_numpy(t_model.predict(x, verbose=0)), _numpy(k_model(x)), atol=1e-5)


def test_evaluate_and_fit_after_an_assignment_trace_anew_and_train_on():
    models = [_classifier(mod) for mod in FRAMEWORKS]
    _copy_weights(*models)
    x = np.random.default_rng(4).normal(size=(8, 6)).astype("float32")
    y = np.random.default_rng(5).normal(size=(8, 4)).astype("float32")
    for model in models:
        model.compile(optimizer="sgd", loss="mse")
        model.evaluate(x, y, verbose=0)
        model.fit(x, y, epochs=1, batch_size=8, shuffle=False, verbose=0)
        model.layers[-1].activation = None
    k_model, t_model = models
    # Keras's compiled functions are cached; its loss of the eager call is the reference for the new trace.
    expected = float(np.mean((_numpy(k_model(x)) - y) ** 2))
    np.testing.assert_allclose(t_model.evaluate(x, y, verbose=0), expected, rtol=1e-5)
    t_model.fit(x, y, epochs=1, batch_size=8, shuffle=False, verbose=0)  # the optimizer built before goes on
    assert t_model.evaluate(x, y, verbose=0) < expected


def test_a_dense_with_none_assigned_saves_a_config_that_loads_as_linear():
    (k_layer, t_layer), x = _built_pair("Dense", (3,), {}, (2, 4))
    t_layer.activation = None  # Keras's get_config fails here (TypeError); tfkit writes None
    clone = tfkit.layers.Dense.from_config(t_layer.get_config())
    clone(x)
    clone.set_weights(t_layer.get_weights())
    k_layer.activation = None
    np.testing.assert_allclose(_numpy(clone(x)), _numpy(k_layer(x)), atol=1e-5)


# --------------------------------------------------------------- 2. fit(x, validation_split=...) without y


def _autoencoder_class(mod):
    """An autoencoder trained by its own steps on x alone, as keras-io's VAE and denoising examples."""

    class AutoEncoder(mod.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = mod.layers.Dense(4)
            self.tracker = mod.metrics.Mean(name="reconstruction")

        @property
        def metrics(self):
            return [self.tracker]

        def call(self, x):
            if isinstance(x, dict):
                return self.dense(x["a"] + x["b"])
            if isinstance(x, (list, tuple)):
                return self.dense(x[0] + x[1])
            return self.dense(x)

        def _target(self, x):
            return x["a"] if isinstance(x, dict) else x[0] if isinstance(x, (list, tuple)) else x

        def train_step(self, data):
            x, y, _ = mod.utils.unpack_x_y_sample_weight(data)
            assert y is None
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self(x) - self._target(x)))
            grads = tape.gradient(loss, self.trainable_weights)
            self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
            self.tracker.update_state(loss)
            return {"reconstruction": self.tracker.result()}

        def test_step(self, data):
            x, y, _ = mod.utils.unpack_x_y_sample_weight(data)
            self.tracker.update_state(tf.reduce_mean(tf.square(self(x) - self._target(x))))
            return {"reconstruction": self.tracker.result()}

    return AutoEncoder


@pytest.fixture(scope="module")
def unlabelled():
    rng = np.random.default_rng(6)
    return rng.random((10, 4)).astype("float32"), rng.random((10, 4)).astype("float32")


def _fit_both(make_x, build_input, **fit_kwargs):
    histories = []
    models = []
    for mod in FRAMEWORKS:
        model = _autoencoder_class(mod)()
        model(build_input)
        model.compile(optimizer=mod.optimizers.SGD(0.1))
        models.append(model)
    _copy_weights(*models)
    for model in models:
        histories.append(
            model.fit(
                make_x(), validation_split=0.3, epochs=2, batch_size=4, shuffle=False, verbose=0, **fit_kwargs
            ).history
        )
    return histories, models


@pytest.mark.parametrize("structure", ["array", "dict", "list"])
def test_validation_split_without_y_splits_x_alone_as_keras(unlabelled, structure):
    a, b = unlabelled
    make_x = {"array": lambda: a, "dict": lambda: {"a": a, "b": b}, "list": lambda: [a, b]}[structure]
    (k_history, t_history), _ = _fit_both(make_x, make_x())
    assert sorted(t_history) == sorted(k_history) == ["reconstruction", "val_reconstruction"]
    for key in k_history:
        np.testing.assert_allclose(t_history[key], k_history[key], rtol=1e-5)


def test_validation_split_without_y_validates_on_the_last_fraction_before_shuffling(unlabelled):
    a, _ = unlabelled
    model = _autoencoder_class(tfkit)()
    model.compile(optimizer=tfkit.optimizers.SGD(0.0))  # no learning: validation sees the initial weights
    history = model.fit(a, validation_split=0.3, epochs=1, batch_size=4, shuffle=True, verbose=0).history
    tail = a[int(len(a) * 0.7) :]  # 3 of 10 samples, as Keras's floor(10 * 0.7) = 7
    expected = np.mean((_numpy(model(tail)) - tail) ** 2)
    np.testing.assert_allclose(history["val_reconstruction"][0], expected, rtol=1e-5)


def test_validation_split_of_an_add_loss_model_without_y_logs_loss_and_val_loss_as_keras(unlabelled):
    a, _ = unlabelled

    def build(mod):
        class Reconstruct(mod.layers.Layer):
            def call(self, inputs):
                outputs, target = inputs
                self.add_loss(tf.reduce_mean(tf.square(outputs - target)))
                return outputs

        inputs = mod.Input((4,))
        model = mod.Model(inputs, Reconstruct()([mod.layers.Dense(4)(inputs), inputs]))
        model.compile(optimizer=mod.optimizers.SGD(0.1))
        return model

    models = [build(mod) for mod in FRAMEWORKS]
    _copy_weights(*models)
    k_history, t_history = (
        m.fit(a, validation_split=0.2, epochs=2, batch_size=4, shuffle=False, verbose=0).history for m in models
    )
    assert sorted(t_history) == sorted(k_history) == ["loss", "val_loss"]
    for key in k_history:
        np.testing.assert_allclose(t_history[key], k_history[key], rtol=1e-5)


def test_validation_split_with_y_and_sample_weight_splits_all_three_as_keras(unlabelled):
    a, b = unlabelled
    weights = np.linspace(0.5, 2.0, len(a)).astype("float32")
    models = []
    for mod in FRAMEWORKS:
        inputs = mod.Input((4,))
        model = mod.Model(inputs, mod.layers.Dense(4)(inputs))
        model.compile(optimizer=mod.optimizers.SGD(0.1), loss="mse")
        models.append(model)
    _copy_weights(*models)
    k_history, t_history = (
        m.fit(
            a, b, sample_weight=weights, validation_split=0.3, epochs=2, batch_size=4, shuffle=False, verbose=0
        ).history
        for m in models
    )
    assert sorted(t_history) == sorted(k_history) == ["loss", "val_loss"]
    for key in k_history:
        np.testing.assert_allclose(t_history[key], k_history[key], rtol=1e-5)


@pytest.mark.parametrize("kind", ["dataset", "generator"])
def test_validation_split_of_a_dataset_or_generator_is_refused_as_in_keras(unlabelled, kind):
    a, _ = unlabelled

    def data():
        if kind == "dataset":
            return tf.data.Dataset.from_tensor_slices(a).batch(4)
        return (a[:4] for _ in range(100))

    for mod in FRAMEWORKS:
        model = _autoencoder_class(mod)()
        model.compile(optimizer="sgd")
        with pytest.raises(ValueError, match="validation_split.*only supported"):
            model.fit(data(), validation_split=0.2, steps_per_epoch=2, verbose=0)


def test_sample_weight_without_y_is_refused_by_tfkit_where_keras_drops_it(unlabelled):
    a, _ = unlabelled
    weights = np.ones(len(a), "float32")
    k_model = _autoencoder_class(keras)()
    k_model.compile(optimizer="sgd")
    k_model.fit(a, sample_weight=weights, validation_split=0.2, epochs=1, verbose=0)  # the weights go nowhere
    t_model = _autoencoder_class(tfkit)()
    t_model.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="sample_weight was given without targets y"):
        t_model.fit(a, sample_weight=weights, validation_split=0.2, epochs=1, verbose=0)


# --------------------------------------------------------------- 3. output_mode="binary"

BINARY = [
    ("IntegerLookup", {"vocabulary": [1, 2, 3]}, np.array([[1, 3, 5], [2, 2, 0]])),
    ("StringLookup", {"vocabulary": ["a", "b", "c"]}, np.array([["a", "c", "z"], ["b", "b", "a"]])),
    ("TextVectorization", {"vocabulary": ["a", "b", "c"]}, np.array(["a c z", "b b"])),
    ("CategoryEncoding", {"num_tokens": 4}, np.array([[1, 3], [0, 0]])),
]


@pytest.mark.parametrize("name,kwargs,x", BINARY, ids=[b[0] for b in BINARY])
def test_binary_output_mode_is_multi_hot_with_keras_outputs_and_config(name, kwargs, x):
    k_layer, t_layer = (getattr(mod.layers, name)(output_mode="binary", **kwargs) for mod in FRAMEWORKS)
    k_out, t_out = _numpy(k_layer(x)), _numpy(t_layer(x))
    np.testing.assert_array_equal(t_out, k_out)
    multi_hot = getattr(keras.layers, name)(output_mode="multi_hot", **kwargs)
    np.testing.assert_array_equal(k_out, _numpy(multi_hot(x)))
    k_config, t_config = k_layer.get_config(), t_layer.get_config()
    assert t_config["output_mode"] == k_config["output_mode"] == "multi_hot"
    if hasattr(k_layer, "output_mode"):  # Keras's TextVectorization keeps it private
        assert t_layer.output_mode == k_layer.output_mode
    clone = getattr(tfkit.layers, name).from_config(t_config)
    np.testing.assert_array_equal(_numpy(clone(x)), k_out)


def test_a_lookups_binary_mode_survives_a_model_config_round_trip():
    x = np.array([[1, 3, 5], [2, 2, 0]])
    inputs = tfkit.Input((3,), dtype="int64")
    model = tfkit.Model(inputs, tfkit.layers.IntegerLookup(vocabulary=[1, 2, 3], output_mode="binary")(inputs))
    clone = tfkit.Model.from_config(model.get_config())
    expected = keras.layers.IntegerLookup(vocabulary=[1, 2, 3], output_mode="binary")(x)
    np.testing.assert_array_equal(_numpy(clone.predict(x, verbose=0)), _numpy(expected))


@pytest.mark.parametrize(
    "make",
    [
        lambda mod: mod.layers.Hashing(num_bins=4, output_mode="binary"),
        lambda mod: mod.layers.Discretization(bin_boundaries=[0.5], output_mode="binary"),
        lambda mod: mod.layers.CategoryEncoding(num_tokens=4, output_mode="tf-idf"),
    ],
    ids=["Hashing", "Discretization", "CategoryEncoding-tf-idf"],
)
def test_layers_keras_refuses_the_old_names_in_are_refused_by_tfkit_too(make):
    for mod in FRAMEWORKS:
        with pytest.raises(ValueError, match="output_mode"):
            make(mod)
