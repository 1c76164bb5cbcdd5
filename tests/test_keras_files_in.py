"""Keras 3 files of ordinary kinds, saved by Keras 3 in this process, loaded by tfkit with Keras's predictions.

Each custom class is written twice, as a user porting a model writes it: once for Keras (registered with
``keras.saving.register_keras_serializable``), once for tfkit under the same package and name. The files are
built once per module; every test loads one and compares its predictions with Keras's (and, where the file
was compiled, trains one epoch on).
"""

import contextlib
import json
import os
import types
import warnings
import zipfile

import numpy as np
import pytest
import tensorflow as tf

import tfkit

keras = pytest.importorskip("keras")

PACKAGE = "keras_files_in"
RNG = np.random.default_rng(7)
X = RNG.random((6, 4)).astype("float32")
Y = RNG.random((6, 2)).astype("float32")


def double(x):
    return 2.0 * x


def halve(x):
    return x / 2.0


def _keras_classes():
    """The Keras side of every custom object the files use."""
    register = keras.saving.register_keras_serializable(package=PACKAGE)

    class Block(keras.layers.Layer):  # the guide's pattern: sub-layers made in __init__
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.inner = keras.layers.Dense(units, activation="relu")
            self.extra = [keras.layers.Dense(units), keras.layers.Dense(units)]

        def call(self, x):
            return self.inner(x) + self.extra[1](self.extra[0](x))

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    class Wrap(keras.layers.Layer):  # a sub-layer passed in, serialized in the config
        def __init__(self, layer, **kwargs):
            super().__init__(**kwargs)
            self.layer = layer

        def call(self, x):
            return 2.0 * self.layer(x)

        def get_config(self):
            return {**super().get_config(), "layer": keras.saving.serialize_keras_object(self.layer)}

        @classmethod
        def from_config(cls, config):
            return cls(**{**config, "layer": keras.saving.deserialize_keras_object(config["layer"])})

    class Values(keras.layers.Layer):  # a config holding a tuple, an array, bytes and a slice
        def __init__(self, pair=(1, 2), weights=None, tag=b"", part=slice(None), **kwargs):
            super().__init__(**kwargs)
            self.pair, self.weights_, self.tag, self.part = pair, weights, tag, part

        def call(self, x):
            scale = keras.ops.convert_to_tensor(np.asarray(self.weights_, "float32"))
            return x[:, self.part] * scale * float(sum(self.pair) + len(self.tag))

        def get_config(self):
            return {
                **super().get_config(),
                "pair": self.pair,
                "weights": self.weights_,
                "tag": self.tag,
                "part": self.part,
            }

        @classmethod
        def from_config(cls, config):  # Keras hands its value objects over as dicts
            config = {
                key: keras.saving.deserialize_keras_object(value)
                if isinstance(value, dict) and key != "dtype"
                else value
                for key, value in config.items()
            }
            return cls(**config)

    class Apply(keras.layers.Layer):  # a function argument, saved by its registered name
        def __init__(self, function, **kwargs):
            super().__init__(**kwargs)
            self.function = function

        def call(self, x):
            return self.function(x)

        def get_config(self):
            return {**super().get_config(), "function": self.function}

        @classmethod
        def from_config(cls, config):
            return cls(**{**config, "function": keras.saving.deserialize_keras_object(config["function"])})

    class Net(keras.Model):  # a subclassed model with get_config and its own weight
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.hidden = keras.layers.Dense(units, activation="relu")
            self.block = Block(2)
            self.head = keras.layers.Dense(2)
            self.scale = self.add_weight(shape=(2,), initializer="ones", name="scale")

        def call(self, x):
            return self.head(self.block(self.hidden(x))) * self.scale

        def get_config(self):
            return {"units": self.units, "name": self.name}

    def scaled_relu(x):
        return keras.ops.relu(x) * 0.5

    def small_init(shape, dtype=None):
        return keras.ops.ones(shape, dtype=dtype) * 0.1

    class Clip(keras.constraints.Constraint):
        def __init__(self, limit=0.5):
            self.limit = limit

        def __call__(self, w):
            return keras.ops.clip(w, -self.limit, self.limit)

        def get_config(self):
            return {"limit": self.limit}

    class L1Sum(keras.regularizers.Regularizer):
        def __init__(self, rate=0.01):
            self.rate = rate

        def __call__(self, w):
            return self.rate * keras.ops.sum(keras.ops.abs(w))

        def get_config(self):
            return {"rate": self.rate}

    def twice_mse(y_true, y_pred):
        return 2.0 * keras.ops.mean(keras.ops.square(y_true - y_pred), axis=-1)

    def mean_gap(y_true, y_pred):
        return keras.ops.mean(keras.ops.abs(y_true - y_pred), axis=-1)

    class ScaledMSE(keras.losses.Loss):
        def __init__(self, scale=1.0, **kwargs):
            super().__init__(**kwargs)
            self.scale = scale

        def call(self, y_true, y_pred):
            return self.scale * keras.ops.mean(keras.ops.square(y_true - y_pred), axis=-1)

        def get_config(self):
            return {**super().get_config(), "scale": self.scale}

    class MaxGap(keras.metrics.Metric):
        def __init__(self, name="max_gap", **kwargs):
            super().__init__(name=name, **kwargs)
            self.most = self.add_variable(shape=(), initializer="zeros", name="most")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.most.assign(keras.ops.maximum(self.most, keras.ops.max(keras.ops.abs(y_true - y_pred))))

        def result(self):
            return self.most

    def triple(x):
        return 3.0 * x

    objects = dict(
        Block=Block,
        Wrap=Wrap,
        Values=Values,
        Apply=Apply,
        Net=Net,
        scaled_relu=scaled_relu,
        small_init=small_init,
        Clip=Clip,
        L1Sum=L1Sum,
        twice_mse=twice_mse,
        mean_gap=mean_gap,
        ScaledMSE=ScaledMSE,
        MaxGap=MaxGap,
        triple=triple,
    )
    return types.SimpleNamespace(**{name: register(obj) for name, obj in objects.items()})


def _tfkit_classes():
    """The same objects written for tfkit, registered under the same package and names."""
    register = tfkit.saving.register_keras_serializable(package=PACKAGE)

    class Block(tfkit.layers.Layer):
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.inner = tfkit.layers.Dense(units, activation="relu")
            self.extra = [tfkit.layers.Dense(units), tfkit.layers.Dense(units)]

        def call(self, x):
            return self.inner(x) + self.extra[1](self.extra[0](x))

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    class Wrap(tfkit.layers.Layer):
        def __init__(self, layer, **kwargs):
            super().__init__(**kwargs)
            self.layer = layer

        def call(self, x):
            return 2.0 * self.layer(x)

        def get_config(self):
            return {**super().get_config(), "layer": tfkit.saving.serialize_keras_object(self.layer)}

    class Values(tfkit.layers.Layer):
        received = {}

        def __init__(self, pair=(1, 2), weights=None, tag=b"", part=slice(None), **kwargs):
            super().__init__(**kwargs)
            self.pair, self.weights_, self.tag, self.part = pair, weights, tag, part
            Values.received = {"pair": pair, "weights": weights, "tag": tag, "part": part}

        def call(self, x):
            return x[:, self.part] * np.asarray(self.weights_, "float32") * float(sum(self.pair) + len(self.tag))

    class Apply(tfkit.layers.Layer):
        def __init__(self, function, **kwargs):
            super().__init__(**kwargs)
            self.function = function

        def call(self, x):
            return self.function(x)

    class Net(tfkit.Model):
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.hidden = tfkit.layers.Dense(units, activation="relu")
            self.block = Block(2)
            self.head = tfkit.layers.Dense(2)
            self.scale = self.add_weight(shape=(2,), initializer="ones", name="scale")

        def call(self, x):
            return self.head(self.block(self.hidden(x))) * self.scale

        def get_config(self):
            return {"units": self.units, "name": self.name}

    def scaled_relu(x):
        return tf.nn.relu(x) * 0.5

    def small_init(shape, dtype=None):
        return tf.ones(shape, dtype=dtype) * 0.1

    class Clip(tfkit.constraints.Constraint):
        def __init__(self, limit=0.5):
            self.limit = limit

        def __call__(self, w):
            return tf.clip_by_value(w, -self.limit, self.limit)

        def get_config(self):
            return {"limit": self.limit}

    class L1Sum(tfkit.regularizers.Regularizer):
        def __init__(self, rate=0.01):
            self.rate = rate

        def __call__(self, w):
            return self.rate * tf.reduce_sum(tf.abs(w))

        def get_config(self):
            return {"rate": self.rate}

    def twice_mse(y_true, y_pred):
        return 2.0 * tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)

    def mean_gap(y_true, y_pred):
        return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)

    class ScaledMSE(tfkit.losses.Loss):
        def __init__(self, scale=1.0, **kwargs):
            super().__init__(**kwargs)
            self.scale = scale

        def call(self, y_true, y_pred):
            return self.scale * tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)

        def get_config(self):
            return {**super().get_config(), "scale": self.scale}

    class MaxGap(tfkit.metrics.Metric):
        def __init__(self, name="max_gap", **kwargs):
            super().__init__(name=name, **kwargs)
            self.most = self.add_variable(shape=(), initializer="zeros", name="most")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.most.assign(tf.maximum(self.most, tf.reduce_max(tf.abs(y_true - y_pred))))

        def result(self):
            return self.most

    def triple(x):
        return 3.0 * x

    objects = dict(
        Block=Block,
        Wrap=Wrap,
        Values=Values,
        Apply=Apply,
        Net=Net,
        scaled_relu=scaled_relu,
        small_init=small_init,
        Clip=Clip,
        L1Sum=L1Sum,
        twice_mse=twice_mse,
        mean_gap=mean_gap,
        ScaledMSE=ScaledMSE,
        MaxGap=MaxGap,
        triple=triple,
    )
    return types.SimpleNamespace(**{name: register(obj) for name, obj in objects.items()})


def _quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras warns for every layer quantize() skips
        return function(*args, **kwargs)


def _custom_models(k):
    """Custom layers, at any depth: in a Sequential, and in a Sequential inside a Functional model."""
    flat = keras.Sequential([keras.Input((4,)), k.Block(3), k.Wrap(keras.layers.Dense(3)), keras.layers.Dense(2)])
    inner = keras.Sequential([keras.Input((4,)), k.Block(3), k.Wrap(keras.layers.Dense(3, name="wrapped"))])
    inputs = keras.Input((4,))
    nested = keras.Model(inputs, keras.layers.Dense(2)(inner(inputs)))
    values = keras.Sequential(
        [
            keras.Input((4,)),
            k.Values(pair=(1, 2), weights=np.array([1.0, 2.0]), tag=b"ab", part=slice(1, 3)),
            k.Apply(k.triple),
        ]
    )
    return {"custom_flat": (flat, X), "custom_nested": (nested, X), "config_values": (values, X)}


def _function_models(k):
    lambdas = keras.Sequential(
        [keras.Input((4,)), keras.layers.Lambda(double), keras.layers.Lambda(k.triple), keras.layers.Dense(2)]
    )
    functions = keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(
                3,
                activation=k.scaled_relu,
                kernel_initializer=k.small_init,
                kernel_constraint=k.Clip(0.3),
                kernel_regularizer=k.L1Sum(0.1),
                bias_initializer="ones",
            ),
            keras.layers.Dense(2),
        ]
    )
    return {"lambdas": (lambdas, X), "functions": (functions, X)}


def _compiled_models(k):
    with_functions = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(3, activation="relu"), keras.layers.Dense(2)]
    )
    with_functions.compile("adam", loss=k.twice_mse, metrics=[k.mean_gap, "mae"])
    with_functions.fit(X, Y, epochs=1, verbose=0)
    with_classes = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    with_classes.compile("sgd", loss=k.ScaledMSE(3.0), metrics=[k.MaxGap()], weighted_metrics=["mse"])
    net = k.Net(5)
    net(X)
    net.compile("adam", "mse")
    net.fit(X, Y, epochs=1, verbose=0)
    return {"compiled_functions": (with_functions, X), "compiled_classes": (with_classes, X), "subclassed": (net, X)}


def _preprocessing_models():
    models = {}
    normalization = keras.layers.Normalization()
    normalization.adapt(RNG.random((20, 4)).astype("float32") * 5)
    models["normalization"] = (keras.Sequential([keras.Input((4,)), normalization]), X)
    for mode in ("int", "one_hot"):
        bins = keras.layers.Discretization(num_bins=4, output_mode=mode)
        bins.adapt(RNG.random((40, 1)).astype("float32"))
        models[f"discretization_{mode}"] = (keras.Sequential([keras.Input((1,)), bins]), X[:, :1])
    words = tf.constant([["a b"], ["c z"], ["a a"]])
    for mode in ("tf_idf", "multi_hot", "count"):
        lookup = keras.layers.StringLookup(output_mode=mode)
        lookup.adapt(np.array(["a", "b", "c", "a", "b", "a"]))
        models[f"string_lookup_{mode}"] = (
            keras.Sequential([keras.Input((2,), dtype="string"), lookup]),
            tf.constant([["a", "b"], ["c", "z"], ["a", "a"]]),
        )
        text = keras.layers.TextVectorization(max_tokens=8, output_mode=mode)
        text.adapt(["a b c", "b c", "c d e e", "a a a"])
        models[f"text_{mode}"] = (keras.Sequential([keras.Input((1,), dtype="string"), text]), words)
    numbers = keras.layers.IntegerLookup(output_mode="multi_hot")
    numbers.adapt(np.array([3, 4, 5, 3]))
    models["integer_lookup_multi_hot"] = (
        keras.Sequential([keras.Input((2,), dtype="int64"), numbers]),
        np.array([[3, 4], [5, 9]]),
    )
    hashing = keras.layers.Hashing(6, salt=7, output_mode="one_hot")
    models["hashing"] = (
        keras.Sequential([keras.Input((1,), dtype="string"), hashing]),
        tf.constant([["a"], ["b"], ["q"]]),
    )
    models["category_encoding"] = (
        keras.Sequential([keras.Input((3,), dtype="int64"), keras.layers.CategoryEncoding(6, output_mode="count")]),
        np.array([[1, 1, 2], [5, 4, 0]]),
    )
    by_bytes = keras.layers.StringLookup(vocabulary=tf.constant(["a", "b"]), output_mode="one_hot")  # __bytes__
    by_array = keras.layers.Rescaling(scale=np.array([1.0, 2.0, 3.0], "float32"), offset=0.5)  # __numpy__
    models["numpy_and_bytes_arguments"] = (
        keras.Sequential([keras.Input((1,), dtype="string"), by_bytes, by_array]),
        tf.constant([["a"], ["b"], ["q"]]),
    )
    return models


def _quantized_models():
    def nested(mode, **kwargs):
        inner = keras.Sequential([keras.Input((64,)), keras.layers.Dense(16), keras.layers.Dense(8)])
        tokens = keras.Input((5,), dtype="int32")
        x = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(20, 64)(tokens))
        model = keras.Model(tokens, keras.layers.Dense(2)(inner(x)))
        _quietly(model.quantize, mode, **kwargs)
        return model, RNG.integers(0, 20, (3, 5))

    return {
        "quantized_int8": nested("int8"),
        "quantized_int4_blocks": nested(None, config=keras.quantizers.Int4QuantizationConfig(block_size=32)),
    }


def _everyday_models():
    """Sequential without Input, shared layers, dict inputs and outputs, masking, wrappers, attention, mixed
    precision, augmentation and dropout."""
    unbuilt = keras.Sequential(
        [keras.layers.Dense(3, activation="relu"), keras.layers.BatchNormalization(), keras.layers.Dense(2)]
    )
    unbuilt.build((None, 4))
    tokens = keras.Input((6,), dtype="int32", name="tokens")
    numbers = keras.Input((4,), name="numbers")
    sequence = keras.layers.Embedding(12, 4, mask_zero=True)(tokens)
    sequence = keras.layers.Bidirectional(keras.layers.LSTM(3, return_sequences=True))(sequence)
    sequence = keras.layers.MultiHeadAttention(2, 3)(sequence, sequence)
    sequence = keras.layers.TimeDistributed(keras.layers.Dense(2))(sequence)
    pooled = keras.layers.GRU(2)(sequence)
    shared = keras.layers.Dense(2, name="shared")
    merged = keras.layers.Concatenate()([pooled, shared(numbers), shared(keras.layers.BatchNormalization()(numbers))])
    outputs = {
        "score": keras.layers.Dense(1, name="score")(merged),
        "label": keras.layers.Dense(3, name="label")(merged),
    }
    graph = keras.Model({"tokens": tokens, "numbers": numbers}, outputs)
    ids = RNG.integers(1, 12, (3, 6))
    ids[0, 4:] = 0  # masked steps
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        mixed = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), keras.layers.Dense(2, dtype="float32")])
    finally:
        keras.mixed_precision.set_global_policy("float32")
    cells = [keras.layers.LSTMCell(3), keras.layers.GRUCell(2)]
    stacked = keras.Sequential([keras.Input((5, 4)), keras.layers.RNN(cells)])
    images = keras.Input((6, 6, 3))  # Keras records training=True / False in these layers' nodes
    x = keras.layers.RandomFlip()(keras.layers.Rescaling(1 / 255.0)(images))
    x = keras.layers.Dropout(0.5)(keras.layers.Conv2D(4, 3, activation="relu")(x))
    augmented = keras.Model(images, keras.layers.Dense(2)(keras.layers.GlobalAveragePooling2D()(x)))
    wide = keras.Input((2000,))
    dropout = keras.Model(wide, keras.layers.Dropout(0.5)(wide))
    return {
        "unbuilt_sequential": (unbuilt, X),
        "graph": (graph, {"tokens": ids, "numbers": X[:3]}),
        "mixed_float16": (mixed, X),
        "stacked_cells": (stacked, RNG.random((2, 5, 4)).astype("float32")),
        "augmented": (augmented, RNG.random((3, 6, 6, 3)).astype("float32") * 255),
        "dropout": (dropout, np.ones((1, 2000), "float32")),
    }


@pytest.fixture(scope="module")
def ours():
    return _tfkit_classes()


@pytest.fixture(scope="module")
def files(tmp_path_factory, ours):
    folder = tmp_path_factory.mktemp("keras_files_in")
    keras.utils.set_random_seed(1)
    k = _keras_classes()
    models = {
        **_custom_models(k),
        **_function_models(k),
        **_compiled_models(k),
        **_preprocessing_models(),
        **_quantized_models(),
        **_everyday_models(),
    }
    out = {}
    for name, (model, x) in models.items():
        expected = model.predict(x, verbose=0)
        model.save(folder / f"{name}.keras")
        out[name] = (os.fspath(folder / f"{name}.keras"), x, expected)
    return out


def _load(files, name, **kwargs):
    path, x, expected = files[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # everything maps: the import report is empty
        model = tfkit.load_model(path, **kwargs)
    return model, x, expected


def _assert_same(got, expected):
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected)
        for key in expected:
            np.testing.assert_allclose(np.asarray(got[key], "float64"), np.asarray(expected[key], "float64"), atol=1e-5)
    else:
        np.testing.assert_allclose(np.asarray(got, "float64"), np.asarray(expected, "float64"), atol=1e-5)


@pytest.mark.parametrize("name", ["custom_flat", "custom_nested"])
def test_custom_layers_built_on_the_base_config_load_at_any_depth(files, ours, name):
    model, x, expected = _load(files, name)
    _assert_same(model.predict(x, verbose=0), expected)
    blocks = [layer for layer in model.submodules if isinstance(layer, ours.Block)]
    assert blocks and all(block.dtype_policy.name == "float32" for block in blocks)


def test_custom_layers_resolve_through_custom_objects_too(files, ours):
    """Unregistered classes passed by name, as the error message asks (the file names them 'package>Name')."""
    classes = {"Block": ours.Block, "Wrap": ours.Wrap}
    with _unregistered(*classes):
        with pytest.raises(ValueError, match=rf"Unknown layer '{PACKAGE}>Block'.*custom_objects=\{{'Block': Block\}}"):
            tfkit.load_model(files["custom_flat"][0])
        model, x, expected = _load(files, "custom_flat", custom_objects=classes)
    _assert_same(model.predict(x, verbose=0), expected)


@contextlib.contextmanager
def _unregistered(*names):
    registered = tfkit.saving.get_custom_objects()
    saved = {name: registered.pop(f"{PACKAGE}>{name}") for name in names}
    try:
        yield
    finally:
        registered.update({f"{PACKAGE}>{name}": obj for name, obj in saved.items()})


def test_keras_value_objects_in_a_config_arrive_as_values(files, ours):
    model, x, expected = _load(files, "config_values")
    _assert_same(model.predict(x, verbose=0), expected)
    assert model.layers[-1].function is ours.triple
    received = ours.Values.received
    assert received["pair"] == [1, 2] and received["tag"] == b"ab" and received["part"] == slice(1, 3)
    np.testing.assert_array_equal(received["weights"], [1.0, 2.0])


def test_lambda_over_named_functions_loads_with_custom_objects_or_registration(files, ours):
    with pytest.raises(ValueError, match="unknown function 'double'.*register"):
        tfkit.load_model(files["lambdas"][0])  # a plain function: the caller passes it
    model, x, expected = _load(files, "lambdas", custom_objects={"double": double})
    _assert_same(model.predict(x, verbose=0), expected)


def test_lambda_bytecode_is_refused_even_without_safe_mode(tmp_path):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Lambda(lambda x: x + 1.0)])
    _quietly(model.save, tmp_path / "bytecode.keras")
    for safe_mode in (True, False):
        with pytest.raises(ValueError, match=r"Python lambda here as bytecode.*never loads code.*custom_objects="):
            tfkit.load_model(tmp_path / "bytecode.keras", safe_mode=safe_mode)


def test_registered_activations_initializers_constraints_and_regularizers(files, ours):
    model, x, expected = _load(files, "functions")
    _assert_same(model.predict(x, verbose=0), expected)
    dense = model.layers[0]
    assert dense.activation is ours.scaled_relu and isinstance(dense.kernel_constraint, ours.Clip)
    assert isinstance(dense.kernel_regularizer, ours.L1Sum) and dense.kernel_regularizer.rate == pytest.approx(0.1)


@pytest.mark.parametrize("name", ["compiled_functions", "compiled_classes", "subclassed"])
def test_compiled_models_keep_their_custom_losses_and_metrics_and_train_on(files, ours, name):
    model, x, expected = _load(files, name)
    _assert_same(model.predict(x, verbose=0), expected)
    if name == "compiled_functions":  # the same loss as Keras computes with these weights
        reference = keras.saving.load_model(files[name][0]).evaluate(x, Y, verbose=0, return_dict=True)
        mine = model.evaluate(x, Y, verbose=0, return_dict=True)
        assert mine["loss"] == pytest.approx(reference["loss"], rel=1e-5)
        assert mine["mean_gap"] == pytest.approx(reference["mean_gap"], rel=1e-5)
    history = model.fit(x, Y, epochs=1, verbose=0).history
    assert np.isfinite(history["loss"][0])
    if name == "compiled_classes":
        assert isinstance(model.loss, ours.ScaledMSE) and model.loss.scale == 3.0
        assert "max_gap" in history and any(key.endswith("mse") for key in history)  # the weighted metric


def test_a_loss_that_cannot_be_found_is_named_not_dropped(files, ours):
    with _unregistered("twice_mse"):
        with pytest.warns(UserWarning, match=rf"compile_config: not compiled .*Unknown loss '{PACKAGE}>twice_mse'"):
            model = tfkit.load_model(files["compiled_functions"][0])
    with pytest.raises(RuntimeError, match="must be compiled first"):
        model.fit(X, Y, epochs=1, verbose=0)


@pytest.mark.parametrize(
    "name",
    [
        "normalization",
        "discretization_int",
        "discretization_one_hot",
        "string_lookup_tf_idf",
        "string_lookup_multi_hot",
        "string_lookup_count",
        "text_tf_idf",
        "text_multi_hot",
        "text_count",
        "integer_lookup_multi_hot",
        "hashing",
        "category_encoding",
        "numpy_and_bytes_arguments",
    ],
)
def test_adapted_preprocessing_state_loads(files, name):
    model, x, expected = _load(files, name)
    _assert_same(model.predict(x, verbose=0), expected)


@pytest.mark.parametrize("name", ["quantized_int8", "quantized_int4_blocks"])
def test_quantized_models_load(files, name):
    model, x, expected = _load(files, name)
    _assert_same(model.predict(x, verbose=0), expected)


@pytest.mark.parametrize("name", ["unbuilt_sequential", "graph", "mixed_float16", "stacked_cells", "augmented"])
def test_everyday_models_load(files, name):
    model, x, expected = _load(files, name)
    _assert_same(model.predict(x, verbose=0), expected)


def test_layers_take_the_models_training_flag_not_the_one_keras_recorded(files):
    """Keras writes Dropout's node with training=False (its default) and lets the model's flag win, as here."""
    model, ones, expected = _load(files, "dropout")
    _assert_same(model.predict(ones, verbose=0), expected)  # inference: the identity
    dropped = model(ones, training=True).numpy()
    kept = dropped[dropped != 0]
    np.testing.assert_allclose(kept, 2.0)  # survivors scaled by 1 / (1 - rate)
    assert 0.4 < 1 - kept.size / ones.size < 0.6


def _edit_config(source, target, edit):
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "config.json":
                config = json.loads(data)
                edit(config)
                data = json.dumps(config).encode()
            zout.writestr(item, data)


@pytest.mark.parametrize(
    "value, message",
    [
        ({"class_name": "__numpy__", "config": {"value": [1], "dtype": "object"}}, "numeric, boolean or string dtype"),
        ({"class_name": "__numpy__", "config": {"value": [{"a": 1}], "dtype": "float32"}}, "not a float32 array"),
        ({"class_name": "__slice__", "config": {"start": "os.system", "stop": None, "step": None}}, "integer"),
        ({"class_name": "__lambda__", "config": {"code": "4wEAAAAAAAAA"}}, "Python lambda here as bytecode"),
        (
            {"class_name": "__typespec__", "spec_name": "TensorSpec", "module": "os", "config": []},
            "never does for a file",
        ),
    ],
)
def test_value_objects_that_are_not_plain_data_are_refused(files, tmp_path, value, message):
    target = tmp_path / "edited.keras"
    _edit_config(
        files["config_values"][0], target, lambda config: config["config"]["layers"][1]["config"].update(weights=value)
    )
    with pytest.raises(ValueError, match=message):
        tfkit.load_model(target)
