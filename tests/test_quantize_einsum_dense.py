"""EinsumDense quantized to int8 and int4: numbers by hand, Keras's weights and outputs, files both ways."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf
from quantized_compare import assert_same_quantized_weights

import tfkit
from tfkit import layers

RNG = np.random.default_rng(7)

# (equation, input shape, output_shape, bias_axes): the attention projections' forms and two contractions
EQUATIONS = [
    ("btd,dnh->btnh", (None, 5, 8), (None, 2, 4), "nh"),
    ("btnh,nhd->btd", (None, 5, 2, 4), (None, 8), "d"),
    ("abc,cd->abd", (None, 5, 4), (None, 3), "d"),
    ("abc,bcd->ad", (None, 2, 3), (4,), None),
    ("ab,cb->ac", (None, 8), (6,), "c"),  # contracted letter last: int4 reshapes in the kernel's order, as Keras
]
MODES = {"int8": lambda q: None, "int4": lambda q: q.Int4QuantizationConfig(block_size=-1)}
MODES["int4_groups"] = lambda q: q.Int4QuantizationConfig(block_size=2)


def _layer(equation, input_shape, output_shape, bias_axes, library=tfkit):
    layer = library.layers.EinsumDense(equation, output_shape=output_shape, bias_axes=bias_axes)
    layer.build(input_shape)
    return layer


def _randomize(layer) -> list[np.ndarray]:
    values = [RNG.normal(size=tuple(w.shape)).astype("float32") for w in layer.weights]
    for weight, value in zip(layer.weights, values):
        weight.assign(value)
    return values


def _quantize(layer, mode: str, library=tfkit) -> None:
    config = MODES[mode](library.quantizers)
    layer.quantize("int4" if mode.startswith("int4") else mode, config=config)


def test_int8_is_the_hand_computed_product_of_int8_inputs_and_kernel():
    layer = _layer("btd,dnh->btnh", (None, 3, 6), (None, 2, 5), None)
    (kernel,) = _randomize(layer)
    layer.quantize("int8")
    x = RNG.normal(size=(2, 3, 6)).astype("float32")
    eps = tfkit.backend.epsilon()
    kernel_scale = 127 / (np.max(np.abs(kernel), axis=0, keepdims=True) + eps)  # one per (n, h) channel
    kernel_q = np.clip(np.round(kernel * kernel_scale), -127, 127)
    x_scale = 127 / (np.max(np.abs(x), axis=-1, keepdims=True) + eps)  # one per (b, t) row
    x_q = np.clip(np.round(x * x_scale), -127, 127)
    expected = np.einsum("btd,dnh->btnh", x_q, kernel_q) / (x_scale[..., None] * kernel_scale[None])
    assert layer.dtype_policy.name == "int8_from_float32" and layer.kernel.dtype == tf.int8
    assert tuple(layer.kernel_scale.shape) == (1, 1, 2, 5)  # laid out along the output's letters
    np.testing.assert_array_equal(layer.kernel.numpy(), kernel_q.astype("int8"))
    np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-5, atol=1e-5)


def test_an_ellipsis_equation_quantizes_as_its_spelled_out_twin():
    """Keras 3.15 raises a TypeError quantizing '...b,bc->...c'; tfkit spells the ellipsis out."""
    x = RNG.normal(size=(2, 4, 6)).astype("float32")
    values = None
    for mode in ("int8", "int4"):
        elided = _layer("...b,bc->...c", (None, 4, 6), 3, "c")
        spelled = _layer("abc,cd->abd", (None, 4, 6), (None, 3), "d")
        values = values or _randomize(elided)
        for layer in (elided, spelled):
            for weight, value in zip(layer.weights, values):
                weight.assign(value)
            layer.quantize(mode)
        np.testing.assert_array_equal(elided(x).numpy(), spelled(x).numpy())


def test_the_inputs_gradient_goes_through_the_dequantized_kernel():
    layer = _layer("abc,cd->abd", (None, 3, 4), (None, 5), "d")
    _randomize(layer)
    layer.quantize("int8")
    x = tf.constant(RNG.normal(size=(2, 3, 4)).astype("float32"))
    upstream = RNG.normal(size=(2, 3, 5)).astype("float32")
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(layer(x) * upstream)
    float_kernel = layer.kernel.numpy().astype("float32") / layer.kernel_scale.numpy()[0]
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), upstream @ float_kernel.T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_quantized_model_saves_and_loads_with_the_same_outputs(mode, tmp_path):
    inputs = tfkit.Input((5, 8))
    hidden = layers.EinsumDense("btd,dnh->btnh", output_shape=(None, 2, 4), bias_axes="nh", name="up")(inputs)
    outputs = layers.EinsumDense("btnh,nhd->btd", output_shape=(None, 3), name="down")(hidden)
    model = tfkit.Model(inputs, outputs)
    _quantize(model.get_layer("up"), mode)
    _quantize(model.get_layer("down"), mode)
    x = RNG.normal(size=(2, 5, 8)).astype("float32")
    path = os.fspath(tmp_path / "q.keras")
    model.save(path)
    loaded = tfkit.saving.load_model(path)
    assert loaded.get_layer("down").dtype_policy.name == model.get_layer("down").dtype_policy.name
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("equation, input_shape, output_shape, bias_axes", EQUATIONS, ids=[e[0] for e in EQUATIONS])
def test_weights_and_outputs_equal_keras(equation, input_shape, output_shape, bias_axes, mode):
    keras = pytest.importorskip("keras")
    ours = _layer(equation, input_shape, output_shape, bias_axes)
    theirs = _layer(equation, input_shape, output_shape, bias_axes, library=keras)
    for weight, value in zip(theirs.weights, _randomize(ours)):
        weight.assign(value)
    _quantize(ours, mode)
    _quantize(theirs, mode, library=keras)
    assert_same_quantized_weights(ours, theirs)
    x = RNG.normal(size=(2, *input_shape[1:])).astype("float32")
    np.testing.assert_array_equal(ours(x).numpy(), np.asarray(theirs(x)))


@pytest.mark.parametrize("mode", ["int8", "int4_groups"])
def test_quantized_keras_files_load_both_ways(mode, tmp_path):
    keras = pytest.importorskip("keras")
    x = RNG.normal(size=(2, 5, 8)).astype("float32")

    def build(library):
        inputs = library.Input((5, 8))
        hidden = library.layers.EinsumDense("btd,dnh->btnh", output_shape=(None, 2, 4), bias_axes="nh", name="up")
        outputs = library.layers.EinsumDense("btnh,nhd->btd", output_shape=(None, 3), name="down")
        return library.Model(inputs, outputs(hidden(inputs)))

    theirs = build(keras)
    for weight in theirs.weights:
        weight.assign(RNG.normal(size=tuple(weight.shape)).astype("float32"))
    for name in ("up", "down"):
        _quantize(theirs.get_layer(name), mode, library=keras)
    keras_path = os.fspath(tmp_path / "keras.keras")
    theirs.save(keras_path)
    ours = tfkit.saving.load_model(keras_path)
    np.testing.assert_array_equal(ours.predict(x, verbose=0), theirs.predict(x, verbose=0))
    tfkit_path = os.fspath(tmp_path / "tfkit.keras")
    ours.save(tfkit_path)
    back = keras.saving.load_model(tfkit_path)
    np.testing.assert_array_equal(np.asarray(back.predict(x, verbose=0)), theirs.predict(x, verbose=0))


def test_lora_on_an_int8_einsum_dense_equals_keras():
    keras = pytest.importorskip("keras")
    ours = _layer("btd,dnh->btnh", (None, 5, 8), (None, 2, 4), "nh")
    theirs = _layer("btd,dnh->btnh", (None, 5, 8), (None, 2, 4), "nh", library=keras)
    for weight, value in zip(theirs.weights, _randomize(ours)):
        weight.assign(value)
    for layer in (ours, theirs):
        layer.quantize("int8")
        layer.enable_lora(2)
    by_name = {weight.path.split("/")[-1]: weight for weight in theirs.trainable_weights}
    assert sorted(by_name) == sorted(weight.path.split("/")[-1] for weight in ours.trainable_weights)
    for weight in ours.trainable_weights:  # bias, lora_kernel_a, lora_kernel_b
        weight.assign(RNG.normal(size=tuple(weight.shape)).astype("float32"))
        by_name[weight.path.split("/")[-1]].assign(weight.numpy())
    x = RNG.normal(size=(2, 5, 8)).astype("float32")
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-6, atol=1e-6)
