"""Operators and TensorFlow functions on symbolic tensors become nodes that save as data."""

import json
import re

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


def _data(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype("float32")


def test_residual_add_trains_and_matches_numpy():
    inputs = tfkit.Input((6,))
    x = layers.Dense(6, activation="relu")(inputs)
    res = x
    x = layers.Dense(6)(x)
    x = x + res  # keras-io's residual block
    model = tfkit.Model(inputs, x)
    data = _data(5, 6)
    d1, d2 = model.layers[1], model.layers[2]
    hidden = np.maximum(data @ d1.kernel.numpy() + d1.bias.numpy(), 0)
    expected = hidden @ d2.kernel.numpy() + d2.bias.numpy() + hidden
    np.testing.assert_allclose(model(data).numpy(), expected, rtol=1e-5, atol=1e-6)
    model.compile("adam", "mse")
    history = model.fit(data, data, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


@pytest.mark.parametrize(
    "build, reference",
    [
        (lambda x: x * 5, lambda v: v * 5),
        (lambda x: 5 * x, lambda v: 5 * v),
        (lambda x: 1.0 - x, lambda v: 1.0 - v),
        (lambda x: x / 2.0, lambda v: v / 2.0),
        (lambda x: 2.0 / (x * x + 1.0), lambda v: 2.0 / (v * v + 1.0)),
        (lambda x: -x, lambda v: -v),
        (lambda x: abs(x), np.abs),
        (lambda x: x**2, lambda v: v**2),
        (lambda x: x[:, 0], lambda v: v[:, 0]),
        (lambda x: x[:, 1:3], lambda v: v[:, 1:3]),
        (lambda x: x[..., ::-1], lambda v: v[..., ::-1]),
        (lambda x: x[:, None, 2], lambda v: v[:, None, 2]),
        (lambda x: np.full(4, 2.0, "float32") * x, lambda v: 2.0 * v),
        (lambda x: x @ tf.eye(4), lambda v: v),
        (lambda x: tf.cast(x > 0, "float32"), lambda v: (v > 0).astype("float32")),
        (lambda x: tf.nn.relu(x), lambda v: np.maximum(v, 0)),
        (lambda x: tf.concat([x, 2 * x], -1), lambda v: np.concatenate([v, 2 * v], -1)),
        (lambda x: tf.reduce_mean(x, axis=1, keepdims=True), lambda v: v.mean(1, keepdims=True)),
        (lambda x: tf.reshape(x, (-1, 2, 2)), lambda v: v.reshape(-1, 2, 2)),
        (lambda x: tf.reshape(x, (tf.shape(x)[0], 2, 2)), lambda v: v.reshape(-1, 2, 2)),
        (lambda x: tf.math.exp(x) + tf.expand_dims(x[:, 0], -1), lambda v: np.exp(v) + v[:, :1]),
        (lambda x: tf.stack(tf.split(x, 2, axis=1), axis=1), lambda v: np.stack(np.split(v, 2, 1), 1)),
        (lambda x: tfkit.activations.sigmoid(x), lambda v: 1 / (1 + np.exp(-v))),
        (lambda x: tfkit.activations.relu(x, max_value=0.5), lambda v: np.clip(v, 0, 0.5)),
    ],
    ids=lambda value: None,
)
def test_operation_matches_numpy_and_round_trips(build, reference, tmp_path):
    x = tfkit.Input((4,))
    model = tfkit.Model(x, build(x))
    data = _data(3, 4)
    np.testing.assert_allclose(model(data).numpy(), reference(data), rtol=1e-5, atol=1e-6)
    rebuilt = tfkit.models.model_from_json(model.to_json())
    np.testing.assert_allclose(rebuilt(data).numpy(), reference(data), rtol=1e-5, atol=1e-6)
    model.save(tmp_path / "ops.h5")
    loaded = tfkit.load_model(tmp_path / "ops.h5")
    np.testing.assert_allclose(loaded.predict(data, verbose=0), reference(data), rtol=1e-5, atol=1e-6)


def test_configs_name_operations_and_plain_arguments():
    x = tfkit.Input((4,))
    model = tfkit.Model(x, tf.nn.softmax(x[:, 1:] * 3.0, axis=-1))
    text = model.to_json()
    ops = [entry for entry in json.loads(text)["config"]["layers"] if entry["class_name"] == "TFOpLambda"]
    assert [op["config"]["function"] for op in ops] == ["__operators__.getitem", "__operators__.mul", "tf.nn.softmax"]
    assert ops[0]["config"]["arguments"]["args"][1] == {
        "__tuple__": [{"__slice__": [None, None, None]}, {"__slice__": [1, None, None]}]
    }
    assert ops[2]["config"]["arguments"]["kwargs"] == {"axis": -1}


def test_summary_shows_operations():
    x = tfkit.Input((4,))
    model = tfkit.Model(x, tf.nn.relu(layers.Dense(4)(x) + x))
    lines = []
    model.summary(print_fn=lines.append, line_length=120)
    text = "\n".join(lines)
    assert re.search(r"tf\.__operators__\.add(_\d+)? \(TFOpLambda\)", text)
    assert re.search(r"tf\.nn\.relu(_\d+)? \(TFOpLambda\)", text)


@pytest.mark.parametrize(
    "name",
    [
        "tf.io.write_file",
        "tf.io.read_file",
        "tf.py_function",
        "tf.numpy_function",
        "tf.print",
        "tf.raw_ops.WriteFile",
        "tf.compat.v1.py_func",
        "os.system",
        "builtins.eval",
        "tfkit.saving.load_model",
        "tf.nn.__class__",
        "__operators__.__import__",
        "tf.nn.relu; import os",
        42,
    ],
)
def test_config_cannot_name_code(name):
    with pytest.raises(ValueError):
        layers.TFOpLambda(name, {"args": [{"__input__": 0}], "kwargs": {}})


def test_hostile_operation_in_a_model_file_is_a_value_error(tmp_path):
    x = tfkit.Input((4,))
    config = json.loads(tfkit.Model(x, tf.nn.relu(x)).to_json())
    for entry in config["config"]["layers"]:
        if entry["class_name"] == "TFOpLambda":
            entry["config"]["function"] = "tf.io.write_file"
            entry["config"]["arguments"] = {"args": [str(tmp_path / "pwned"), "x"], "kwargs": {}}
    with pytest.raises(ValueError, match="not allowed"):
        tfkit.models.model_from_json(json.dumps(config))
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "arguments",
    [
        {"args": [{"__input__": 3}], "kwargs": {}},
        {"args": [{"__input__": 0}, {"__dtype__": "resource"}], "kwargs": {}},
        {"args": [{"__input__": 0}, {"__array__": [1, 2], "dtype": "object"}], "kwargs": {}},
        {"args": [{"__unknown__": 1}], "kwargs": {}},
        {"args": "not a list", "kwargs": {}},
    ],
)
def test_bad_arguments_are_value_errors(arguments):
    with pytest.raises(ValueError):
        layer = layers.TFOpLambda("tf.math.add", arguments)
        layer(tf.ones((1, 2)))


def test_unsaveable_arguments_fail_when_recorded():
    x = tfkit.Input((4,))
    with pytest.raises(ValueError, match="type function"):
        tf.nn.relu(x, name=lambda: None)


def test_keras_mask_is_readable_from_symbolic_tensors():
    tokens = tfkit.Input((5,), dtype="int32")
    embedded = layers.Embedding(10, 3, mask_zero=True)(tokens)
    assert embedded._keras_mask is not None and embedded._keras_mask.shape == (None, 5)
    assert tokens._keras_mask is None
    model = tfkit.Model(tokens, embedded._keras_mask)
    got = model(np.array([[3, 1, 0, 0, 0]], "int32")).numpy()
    np.testing.assert_array_equal(got, [[True, True, False, False, False]])


def test_symbolic_tensors_are_not_iterable_or_bool():
    x = tfkit.Input((4,))
    with pytest.raises(TypeError, match="cannot be iterated"):
        list(x)
    with pytest.raises(TypeError):
        bool(x)


def test_model_with_operations_exports_for_serving(tmp_path):
    x = tfkit.Input((4,))
    model = tfkit.Model(x, tf.nn.relu(layers.Dense(2)(x) * 2.0) + 1.0)
    path = model.export(str(tmp_path / "export"))
    data = _data(3, 4)
    served = tf.saved_model.load(path).signatures["serving_default"](tf.constant(data))
    np.testing.assert_allclose(list(served.values())[0].numpy(), model.predict(data, verbose=0), rtol=1e-5)
