"""int8 quantization of Dense and Embedding, and Model.quantize: numbers, files, export, Keras files."""

import os
import warnings

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers

RNG = np.random.default_rng(3)


def _dense(units=5, input_dim=8, **kwargs):
    layer = layers.Dense(units, **kwargs)
    layer.build((None, input_dim))
    layer.set_weights(
        [RNG.normal(size=(input_dim, units)).astype("float32"), RNG.normal(size=(units,)).astype("float32")]
    )
    return layer


def test_dense_int8_equals_the_hand_computation():
    layer = _dense()
    kernel, bias = (w.numpy() for w in (layer.kernel, layer.bias))
    x = RNG.normal(size=(4, 8)).astype("float32")
    layer.quantize("int8")
    assert layer.dtype_policy.name == "int8_from_float32" and layer.kernel.dtype == tf.int8
    assert [w.name.split(":")[0].split("/")[-1] for w in layer.trainable_weights] == ["bias"]
    k_scale = 127 / (np.abs(kernel).max(axis=0) + 1e-7)
    k_q = np.clip(np.round(kernel * k_scale), -127, 127)
    np.testing.assert_array_equal(layer.kernel.numpy(), k_q)
    np.testing.assert_allclose(layer.kernel_scale.numpy(), k_scale, rtol=1e-6)
    x_scale = 127 / (np.abs(x).max(axis=-1, keepdims=True) + 1e-7)
    x_q = np.clip(np.round(x * x_scale), -127, 127)
    expected = (x_q @ k_q) / (x_scale * k_scale) + bias  # int32-exact product, then de-scaled
    np.testing.assert_allclose(layer(x), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(layer(x), x @ kernel + bias, atol=0.05)


def test_inputs_keep_their_gradient_and_rank3_inputs_work():
    layer = _dense()
    x = tf.constant(RNG.normal(size=(2, 3, 8)).astype("float32"))
    layer.quantize("int8")
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        total = tf.reduce_sum(y)
    assert y.shape == (2, 3, 5)
    float_kernel = layer.kernel.numpy() / layer.kernel_scale.numpy()
    np.testing.assert_allclose(
        tape.gradient(total, x), np.broadcast_to(float_kernel.sum(1), (2, 3, 8)), rtol=1e-5, atol=1e-6
    )  # float32 sums: an absolute floor for values near 0


def test_embedding_int8_rows_are_descaled():
    layer = layers.Embedding(10, 4)
    layer.build()
    table = layer.embeddings.numpy()
    layer.quantize("int8")
    scale = 127 / (np.abs(table).max(axis=-1) + 1e-7)
    ids = np.array([[1, 9, 0]])
    expected = np.clip(np.round(table * scale[:, None]), -127, 127)[ids] / scale[ids][..., None]
    np.testing.assert_allclose(layer(ids), expected, rtol=1e-6)
    assert layer.get_config()["quantization_config"]["class_name"] == "Int8QuantizationConfig"


def test_refusals_are_clear():
    with pytest.raises(ValueError, match="isn't yet built"):
        layers.Dense(2).quantize("int8")
    layer = _dense()
    with pytest.raises(NotImplementedError, match="'float8'"):
        layer.quantize("float8")
    layer.quantize("int8")
    with pytest.raises(ValueError, match="already quantized"):
        layer.quantize("int8")

    class MyDense(layers.Dense):
        pass

    mine = MyDense(2)
    mine.build((None, 3))
    with pytest.raises(NotImplementedError, match="MyDense does not have a `quantize"):
        mine.quantize("int8")
    mine.quantize("int8", type_check=False)
    with pytest.raises(ValueError, match="Invalid quantization mode"):
        _dense().quantize("int3")


def test_dense_int4_per_channel_and_groups_equal_the_hand_computation():
    x = RNG.normal(size=(3, 8)).astype("float32")
    per_channel = _dense()
    kernel, bias = (w.numpy() for w in (per_channel.kernel, per_channel.bias))
    per_channel.quantize(config=tfkit.quantizers.Int4QuantizationConfig(block_size=None))
    assert per_channel.dtype_policy.name == "int4/-1_from_float32" and per_channel.kernel.shape == (8, 3)
    scale = 7 / (np.abs(kernel).max(axis=0) + 1e-7)
    values = np.clip(np.round(kernel * scale), -8, 7)
    np.testing.assert_allclose(per_channel(x), x @ values / scale + bias, rtol=1e-5, atol=1e-5)
    groups = _dense()
    kernel, bias = (w.numpy() for w in (groups.kernel, groups.bias))
    groups.quantize(config=tfkit.quantizers.Int4QuantizationConfig(block_size=4))  # rows 0-3 and 4-7
    assert groups.kernel_scale.shape == (2, 5) and groups.kernel_zero.shape == (2, 5)
    np.testing.assert_array_equal(groups.g_idx.numpy(), [0, 0, 0, 0, 1, 1, 1, 1])
    restored = np.empty_like(kernel)
    for g in range(2):
        block = kernel[4 * g : 4 * g + 4]
        step = (block.max(0) - block.min(0) + 1e-7) / 15
        zero = np.clip(np.round(-block.min(0) / step) - 8, -8, 7)
        restored[4 * g : 4 * g + 4] = (np.clip(np.round(block / step) + zero, -8, 7) - zero) * step
    np.testing.assert_allclose(groups(x), x @ restored + bias, rtol=1e-5, atol=1e-5)


def test_embedding_int4_groups_along_the_output():
    layer = layers.Embedding(6, 5)
    layer.build()
    layer.quantize(config=tfkit.quantizers.Int4QuantizationConfig(block_size=2))
    assert layer.embeddings.shape == (6, 3) and layer.embeddings_scale.shape == (6, 3)
    np.testing.assert_array_equal(layer.g_idx.numpy(), [0, 0, 1, 1, 2])
    assert layer(np.array([[0, 5]])).shape == (1, 2, 5)


def _model():
    inputs = tfkit.Input((6,), dtype="int32")
    x = layers.Embedding(20, 8, name="embed")(inputs)
    x = layers.Dense(16, activation="relu", name="hidden")(x)
    x = layers.GlobalAveragePooling1D()(x)
    return tfkit.Model(inputs, layers.Dense(3, name="head")(x))


def test_model_quantize_then_predict_save_load_export_and_train(tmp_path):
    model = _model()
    model.compile(tfkit.optimizers.Adam(0.01), "mse")
    ids = RNG.integers(0, 20, size=(32, 6))
    y = RNG.normal(size=(32, 3)).astype("float32")
    model.fit(ids, y, epochs=1, verbose=0)
    before = model.predict(ids, verbose=0)
    model.quantize("int8", filters=["hid", "head"])
    assert model.get_layer("embed").quantization_mode is None  # not matched by the filters
    after = model.predict(ids, verbose=0)
    np.testing.assert_allclose(after, before, atol=0.02)
    model.save(tmp_path / "q.h5")
    again = tfkit.load_model(tmp_path / "q.h5")
    assert again.get_layer("head").kernel.dtype == tf.int8
    np.testing.assert_array_equal(again.predict(ids, verbose=0), after)
    model.export(str(tmp_path / "served"), verbose=False)
    served = tf.saved_model.load(str(tmp_path / "served"))
    np.testing.assert_array_equal(served.serve(tf.constant(ids, tf.int32)).numpy(), after)
    history = model.fit(ids, y, epochs=2, verbose=0)  # the biases (and the embedding) still train
    assert history.history["loss"][1] < history.history["loss"][0]
    with pytest.raises(NotImplementedError, match="'float8'"):
        model.quantize("float8")
    with pytest.raises(ValueError, match="already quantized"):
        model.quantize("int4", filters="head")
    with pytest.raises(ValueError, match="filters"):
        model.quantize("int8", filters=3)


def test_model_quantize_warns_for_a_layer_that_cannot():
    inputs = tfkit.Input((4,))
    outputs = layers.Dense(2)(inputs)
    model = tfkit.Model(inputs, outputs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.quantize("int8")  # Input and Dense: no warning for layers without quantize()

    class OwnDense(layers.Dense):  # a subclass must implement its own quantize(), as in Keras
        pass

    own = tfkit.Sequential([tfkit.Input((3,)), OwnDense(4), layers.ReversibleEmbedding(10, 4)])
    with pytest.warns(UserWarning, match="OwnDense does not have a `quantize\\(\\)` method"):
        own.quantize("int8")
    assert [layer.quantization_mode for layer in own.layers] == [None, "int8"]


@pytest.fixture(scope="module")
def keras():
    return pytest.importorskip("keras")


def test_same_outputs_and_weights_as_keras(keras):
    x = RNG.normal(size=(4, 3, 8)).astype("float32")
    theirs = keras.layers.Dense(5, activation="relu")
    theirs.build((None, 8))
    mine = _dense(activation="relu")
    theirs.set_weights(mine.get_weights())
    theirs.quantize("int8")
    mine.quantize("int8")
    for a, b in zip(mine.get_weights(), theirs.get_weights()):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(mine(x), theirs(x), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("config", [None, {"block_size": 64}, {"block_size": -1}])
def test_int4_same_weights_and_outputs_as_keras(keras, config):
    x = RNG.normal(size=(4, 3, 200)).astype("float32")
    theirs = keras.layers.Dense(7)
    theirs.build((None, 200))
    mine = layers.Dense(7)
    mine.build((None, 200))
    mine.set_weights(theirs.get_weights())
    if config is None:
        theirs.quantize("int4")
        mine.quantize("int4")
    else:
        theirs.quantize(config=keras.quantizers.Int4QuantizationConfig(**config))
        mine.quantize(config=tfkit.quantizers.Int4QuantizationConfig(**config))
    assert mine.dtype_policy.name == theirs.dtype_policy.name
    assert sorted(w.path.split("/")[-1] for w in theirs.weights) == sorted(
        w.name.split(":")[0].split("/")[-1] for w in mine.weights
    )
    np.testing.assert_array_equal(mine(x), theirs(x))


@pytest.mark.parametrize("mode", ["int8", "int4"])
def test_keras_quantized_files_import_with_the_same_predictions(keras, tmp_path, mode):
    inputs = keras.Input((6,), dtype="int32")
    x = keras.layers.Embedding(20, 8)(inputs)
    x = keras.layers.Dense(16, activation="relu")(x)
    x = keras.layers.GlobalAveragePooling1D()(x)
    model = keras.Model(inputs, keras.layers.Dense(3)(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras warns for every layer without quantize()
        model.quantize(mode)
    path = os.fspath(tmp_path / "q.keras")
    model.save(path)
    ids = RNG.integers(0, 20, size=(8, 6))
    mine = tfkit.load_model(path)
    np.testing.assert_array_equal(mine.predict(ids, verbose=0), model.predict(ids, verbose=0))


def test_attention_quantizes_its_einsum_dense_projections_with_the_rest():
    inputs = tfkit.Input((4, 8))
    attention = layers.MultiHeadAttention(2, 4, name="attention")
    outputs = layers.Dense(3, name="out")(attention(inputs, inputs))
    model = tfkit.Model(inputs, outputs)
    x = RNG.normal(size=(2, 4, 8)).astype("float32")
    before = model.predict(x, verbose=0)
    model.quantize("int8")
    assert model.get_layer("out").quantization_mode == "int8"
    projections = [attention.query_dense, attention.key_dense, attention.value_dense, attention.output_dense]
    assert [p.quantization_mode for p in projections] == ["int8"] * 4
    assert model.predict(x, verbose=0).shape == (2, 4, 3)
    np.testing.assert_allclose(model.predict(x, verbose=0), before, atol=0.1)  # int8's rounding, not a new model
