"""clone_model with Keras 3's input_tensors / clone_function / call_function / recursive, and its errors."""

import numpy as np
import pytest

import tfkit
from tfkit import layers


def _functional():
    inputs = tfkit.Input((4,), name="x")
    shared = layers.Dense(3, name="shared")
    a = shared(inputs)
    b = shared(layers.Dense(4, name="pre")(inputs))
    outputs = layers.Dense(2, name="head")(layers.Add(name="add")([a, b]))
    return tfkit.Model(inputs, outputs, name="net")


def test_clone_function_replaces_each_layer_once_and_keeps_sharing():
    model = _functional()
    seen = []

    def clone(layer):
        seen.append(layer.name)
        return type(layer).from_config(layer.get_config())

    twin = tfkit.models.clone_model(model, clone_function=clone)
    assert sorted(seen) == ["add", "head", "pre", "shared"]  # the shared layer cloned once
    assert [layer.name for layer in twin.layers] == [layer.name for layer in model.layers]
    assert twin.count_params() == model.count_params()
    x = np.random.default_rng(0).random((5, 4)).astype("float32")
    twin.set_weights(model.get_weights())
    np.testing.assert_allclose(twin.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)


def test_identity_clone_function_and_a_call_function_insert_a_layer_after_each_dense():
    model = _functional()

    def call_function(layer, *args, **kwargs):
        out = layer(*args, **kwargs)
        return layers.Activation("relu")(out) if isinstance(layer, layers.Dense) else out

    twin = tfkit.models.clone_model(model, clone_function=lambda layer: layer, call_function=call_function)
    assert twin.get_layer("head") is model.get_layer("head")  # the same layers, reused
    x = np.random.default_rng(1).random((3, 4)).astype("float32")
    relu = lambda v: np.maximum(v, 0)  # noqa: E731
    w = {layer.name: layer.get_weights() for layer in model.layers if layer.get_weights()}
    pre = relu(x @ w["pre"][0] + w["pre"][1])
    a, b = relu(x @ w["shared"][0] + w["shared"][1]), relu(pre @ w["shared"][0] + w["shared"][1])
    expected = relu((a + b) @ w["head"][0] + w["head"][1])
    np.testing.assert_allclose(twin.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)


def test_input_tensors_and_recursive_clones_of_nested_models():
    inner = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(4, name="inner_dense")], name="inner")
    inputs = tfkit.Input((4,), name="x")
    model = tfkit.Model(inputs, layers.Dense(1, name="out")(inner(inputs)))
    new_input = tfkit.Input((4,), name="fresh")
    names = []

    def clone(layer):
        names.append(layer.name)
        return type(layer).from_config(layer.get_config())

    flat = tfkit.models.clone_model(model, input_tensors=new_input, clone_function=clone)
    assert flat.inputs[0] is new_input and "inner" in names  # the nested model given whole
    names.clear()
    deep = tfkit.models.clone_model(model, clone_function=clone, recursive=True)
    assert "inner" not in names and "inner_dense" in names  # cloned layer by layer
    assert deep.get_layer("inner") is not inner and deep.count_params() == model.count_params()


def test_a_compiled_model_clones_compiled_and_sequential_takes_clone_function():
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2, name="d")], name="seq")
    model.compile(tfkit.optimizers.SGD(0.1), "mse")
    twin = tfkit.models.clone_model(model, clone_function=lambda layer: layers.Dense(5, name=layer.name))
    assert twin.compiled and twin.output_shape == (None, 5) and twin.input_shape == (None, 3)
    assert tfkit.models.clone_model(model).compiled  # Keras compiles every clone


def test_errors_name_the_model_and_the_argument():
    seq = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2)], name="seq")
    with pytest.raises(ValueError, match="call_function is not supported for Sequential"):
        tfkit.models.clone_model(seq, call_function=lambda layer, *a, **k: layer(*a, **k))

    class Sub(tfkit.Model):
        def call(self, x):
            return x

    with pytest.raises(ValueError, match="only supported for Sequential and Functional models; model 'sub'"):
        tfkit.models.clone_model(Sub(name="sub"), clone_function=lambda layer: layer)
    with pytest.raises(ValueError, match="unexpected keyword argument"):
        tfkit.models.clone_model(seq, clone_fn=None)
    with pytest.raises(ValueError, match="clone_function must be a callable"):
        tfkit.models.clone_model(seq, clone_function=3)


def test_model_from_json_takes_keras_s_argument_name():
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2)])
    assert tfkit.models.model_from_json(json_string=model.to_json()).count_params() == 8


def test_call_function_matches_keras_side_by_side():
    keras = pytest.importorskip("keras")

    def build(lib):
        inputs = lib.Input((4,))
        return lib.Model(inputs, lib.layers.Dense(2, name="head")(lib.layers.Dense(3, name="body")(inputs)))

    def call_function_for(lib):
        def call_function(layer, *args, **kwargs):
            out = layer(*args, **kwargs)
            return lib.layers.Activation("tanh")(out) if layer.name == "body" else out

        return call_function

    ours, theirs = build(tfkit), build(keras)
    theirs.set_weights(ours.get_weights())
    x = np.random.default_rng(2).random((4, 4)).astype("float32")
    a = tfkit.models.clone_model(ours, clone_function=lambda layer: layer, call_function=call_function_for(tfkit))
    b = keras.models.clone_model(theirs, clone_function=lambda layer: layer, call_function=call_function_for(keras))
    np.testing.assert_allclose(a.predict(x, verbose=0), b.predict(x, verbose=0), rtol=1e-5, atol=1e-6)
