"""Keras's names around functional models: graph attributes, input handling, entry points."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


def _base():
    inputs = tfkit.layers.Input((6,), name="pixels")
    x = layers.Dense(5, activation="relu", name="hidden")(inputs)
    outputs = layers.Dense(3, name="scores")(x)
    return tfkit.models.Model(inputs=inputs, outputs=outputs, name="base")


def test_model_and_layer_graph_attributes():
    base = _base()
    assert base.input is base.inputs[0] and base.output is base.outputs[0]
    assert base.get_layer("hidden").input is base.input
    assert base.get_layer("scores").output is base.output
    assert base.layers[0].output is base.input  # the InputLayer's output is the input


def test_feature_extraction_from_every_layer():
    base = _base()
    extractor = tfkit.Model(inputs=base.input, outputs=[layer.output for layer in base.layers])
    data = np.random.default_rng(0).random((4, 6)).astype("float32")
    features = extractor(data)
    assert [tuple(f.shape) for f in features] == [(4, 6), (4, 5), (4, 3)]
    np.testing.assert_allclose(features[0].numpy(), data)
    np.testing.assert_allclose(features[2].numpy(), base(data).numpy(), rtol=1e-6)


def test_layer_called_twice_reports_its_first_call():
    shared = layers.Dense(2)
    a, b = tfkit.Input((3,)), tfkit.Input((3,))
    first, second = shared(a), shared(b)
    assert shared.output is first and shared.input is a and second is not first


def test_uncalled_layer_has_no_output():
    with pytest.raises(AttributeError, match="never called"):
        layers.Dense(2).output


def test_sequential_input_and_output():
    model = tfkit.models.Sequential([tfkit.Input((4,)), layers.Dense(2)])
    assert model.input.shape == (None, 4) and model.output.shape == (None, 2)
    with pytest.raises(AttributeError, match="tfkit.Input"):
        tfkit.Sequential([layers.Dense(2)]).input


def test_inputs_are_cast_to_the_input_dtype():
    x = tfkit.Input((3,))
    model = tfkit.Model(x, layers.Dense(1, kernel_initializer="ones")(x))
    for data in (np.array([[True, False, True]]), np.array([[1, 0, 1]], "uint8"), np.array([[1, 0, 1]], "int64")):
        np.testing.assert_allclose(model(data).numpy(), [[2.0]])
        np.testing.assert_allclose(model.predict(data, verbose=0), [[2.0]])


def test_missing_channel_axis_is_added():
    images = tfkit.Input((28, 28, 1))
    model = tfkit.Model(images, layers.GlobalAveragePooling2D()(layers.Conv2D(2, 3)(images)))
    data = np.random.default_rng(0).random((5, 28, 28)).astype("float32")
    np.testing.assert_allclose(model(data).numpy(), model(data[..., None]).numpy(), rtol=1e-6)
    model.compile("adam", "mse")
    model.fit(data, np.zeros((5, 2), "float32"), epochs=1, verbose=0)


def test_functional_merge_helpers_match_layers():
    a, b = tfkit.Input((3,)), tfkit.Input((3,))
    va = np.array([[1.0, 2.0, 3.0]], "float32")
    vb = np.array([[4.0, -1.0, 0.5]], "float32")
    cases = {
        "concatenate": (tfkit.layers.concatenate([a, b]), np.concatenate([va, vb], -1)),
        "add": (tfkit.layers.add([a, b]), va + vb),
        "subtract": (tfkit.layers.subtract([a, b]), va - vb),
        "multiply": (tfkit.layers.multiply([a, b]), va * vb),
        "average": (tfkit.layers.average([a, b]), (va + vb) / 2),
        "maximum": (tfkit.layers.maximum([a, b]), np.maximum(va, vb)),
        "minimum": (tfkit.layers.minimum([a, b]), np.minimum(va, vb)),
        "dot": (tfkit.layers.dot([a, b], axes=1), (va * vb).sum(-1, keepdims=True)),
    }
    for name, (symbolic, expected) in cases.items():
        got = tfkit.Model([a, b], symbolic)([va, vb]).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-6, err_msg=name)


def test_keras_named_model_entry_points(tmp_path):
    model = tfkit.models.Sequential([tfkit.layers.Input((2,)), layers.Dense(1)])
    model.save(tmp_path / "m.h5")
    loaded = tfkit.models.load_model(tmp_path / "m.h5")
    clone = tfkit.models.clone_model(loaded)
    again = tfkit.models.model_from_json(model.to_json())
    data = np.ones((1, 2), "float32")
    np.testing.assert_allclose(loaded(data).numpy(), model(data).numpy())
    assert clone(data).shape == again(data).shape == (1, 1)


def test_keras_file_names_save_and_load(tmp_path):
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2)])
    model.compile("adam", "mse")
    checkpoint = tfkit.callbacks.ModelCheckpoint(str(tmp_path / "best.keras"))
    model.fit(np.ones((8, 3), "float32"), np.zeros((8, 2), "float32"), epochs=1, verbose=0, callbacks=[checkpoint])
    model.save(tmp_path / "my_model.keras")
    for name in ("my_model.keras", "best.keras"):
        loaded = tfkit.models.load_model(tmp_path / name)
        np.testing.assert_allclose(
            loaded.predict(np.ones((1, 3)), verbose=0), model.predict(np.ones((1, 3)), verbose=0)
        )


def test_input_dtype_int8_is_a_dtype_not_the_int8_quantization_policy(tmp_path):
    # keras.Input(dtype="int8") is an int8 input; "int8" names a quantization mode only for layer policies
    inputs = tfkit.Input((3, 3), dtype="int8")
    assert inputs.dtype == tf.int8
    model = tfkit.Model(inputs, tfkit.ops.sum(inputs, axis=-1))
    np.testing.assert_array_equal(model.predict(np.ones((2, 3, 3), "int8"), verbose=0), np.full((2, 3), 3))
    model.save(tmp_path / "int8.keras")
    assert tfkit.load_model(tmp_path / "int8.keras").inputs[0].dtype == tf.int8
