"""tfkit.layers.core: Dense, EinsumDense, Activation, Identity, Lambda against numpy references."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.base import registry
from tfkit.engine import masking

RNG = np.random.default_rng(0)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _modes(layer, x, **kwargs):
    """Outputs of an eager call, a tf.function and an XLA-compiled tf.function."""
    eager = layer(x, **kwargs)
    graph = tf.function(lambda t: layer(t, **kwargs))
    jit = tf.function(lambda t: layer(t, **kwargs), jit_compile=True)
    return eager.numpy(), graph(x).numpy(), jit(x).numpy()


def _roundtrip(layer):
    config = layer.get_config()
    json.dumps(config)  # configs are plain data
    clone = type(layer).from_config(json.loads(json.dumps(config)))
    assert clone.get_config() == config
    return clone


def _numeric_grad(fn, array, eps=1e-6):
    """Central finite differences of the scalar ``fn(array)`` (float64)."""
    grad = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        plus, minus = array.copy(), array.copy()
        plus[index] += eps
        minus[index] -= eps
        grad[index] = (fn(plus) - fn(minus)) / (2 * eps)
    return grad


# -------------------------------------------------------------------- Dense


def test_dense_matches_numpy_for_2d_and_3d_inputs():
    layer = layers.Dense(4, activation="relu")
    kernel, bias = _rand(3, 4), _rand(4)
    layer.build((None, 3))
    layer.set_weights([kernel, bias])
    x2, x3 = _rand(2, 3), _rand(2, 5, 3)
    np.testing.assert_allclose(layer(x2).numpy(), np.maximum(x2 @ kernel + bias, 0), rtol=1e-5, atol=1e-6)
    out3 = layer(x3)
    np.testing.assert_allclose(out3.numpy(), np.maximum(x3 @ kernel + bias, 0), rtol=1e-5, atol=1e-6)
    assert tuple(out3.shape) == layer.compute_output_shape((2, 5, 3)) == (2, 5, 4)
    assert layer.compute_output_shape((None, 7, 3)) == (None, 7, 4)


def test_dense_weights_are_named_and_shaped_like_keras():
    layer = layers.Dense(4, name="proj")
    layer(tf.ones((2, 3)))
    assert list(layer.weight_paths()) == ["kernel", "bias"]
    assert layer.kernel.shape == (3, 4) and layer.bias.shape == (4,)
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(4))
    no_bias = layers.Dense(2, use_bias=False)
    no_bias(tf.ones((1, 3)))
    assert [w.shape for w in no_bias.weights] == [(3, 2)] and no_bias.bias is None


def test_dense_gradients_match_numpy():
    layer = layers.Dense(3)
    layer.build((None, 4))
    kernel, bias = _rand(4, 3), _rand(3)
    layer.set_weights([kernel, bias])
    x, upstream = _rand(5, 4), _rand(5, 3)
    x_tensor = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x_tensor)
        loss = tf.reduce_sum(layer(x_tensor) * upstream)
    d_kernel, d_bias, d_x = tape.gradient(loss, [layer.kernel, layer.bias, x_tensor])
    np.testing.assert_allclose(d_kernel.numpy(), x.T @ upstream, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(d_bias.numpy(), upstream.sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(d_x.numpy(), upstream @ kernel.T, rtol=1e-5, atol=1e-5)


def test_dense_eager_function_and_xla_agree_without_retracing():
    layer = layers.Dense(4, activation="tanh")
    x = tf.constant(_rand(2, 3))
    eager, graph, jit = _modes(layer, x)
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jit, eager, rtol=1e-5, atol=1e-6)
    step = tf.function(lambda t: layer(t))
    for _ in range(3):
        step(tf.constant(_rand(2, 3)))
    assert step.experimental_get_tracing_count() == 1


def test_dense_config_roundtrip_gives_same_outputs():
    layer = layers.Dense(
        3,
        activation="sigmoid",
        kernel_initializer="he_normal",
        kernel_regularizer=tfkit.regularizers.L2(0.1),
        bias_constraint="non_neg",
        activity_regularizer="l1",
    )
    x = _rand(2, 4)
    y = layer(x)
    config = layer.get_config()
    assert config["units"] == 3 and config["activation"] == "sigmoid"
    assert config["kernel_regularizer"] == {"class_name": "L2", "config": {"l2": pytest.approx(0.1)}}
    assert config["activity_regularizer"]["class_name"] == "L1"
    clone = _roundtrip(layer)
    clone(x)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(clone(x).numpy(), y.numpy(), rtol=1e-6)
    assert clone.activity_regularizer is not None


def test_dense_kernel_regularizer_and_activity_regularizer_losses():
    layer = layers.Dense(
        2, kernel_regularizer=tfkit.regularizers.L2(0.5), activity_regularizer=tfkit.regularizers.L1(0.1)
    )
    layer.build((None, 3))
    kernel, bias = _rand(3, 2), _rand(2)
    layer.set_weights([kernel, bias])
    x = _rand(4, 3)
    y = x @ kernel + bias
    layer(x)
    values = sorted(float(v) for v in layer.losses)
    expected = sorted([0.5 * float((kernel**2).sum()), 0.1 * float(np.abs(y).sum()) / 4])
    np.testing.assert_allclose(values, expected, rtol=1e-5)


def test_dense_passes_masks_through():
    x = tf.constant(_rand(2, 3, 4))
    mask = tf.constant([[True, True, False], [True, False, False]])
    masking.set_mask(x, mask)
    y = layers.Dense(2)(x)
    np.testing.assert_array_equal(masking.get_mask(y).numpy(), mask.numpy())


def test_dense_rejects_bad_arguments_and_inputs():
    for bad in (0, -3, 2.5, "4", None):
        with pytest.raises(ValueError, match="units"):
            layers.Dense(bad)
    layer = layers.Dense(2, name="head")
    layer(tf.ones((1, 3)))
    with pytest.raises(ValueError, match="'head'.*size 3"):
        layer(tf.ones((1, 4)))
    with pytest.raises(ValueError, match="rank"):
        layers.Dense(2)(tf.ones((3,)))
    with pytest.raises(ValueError, match="Unknown"):
        layers.Dense(2, activation="no_such_activation")


def test_dense_matches_keras():
    keras = pytest.importorskip("keras")
    ours = layers.Dense(3, activation="relu")
    theirs = keras.layers.Dense(3, activation="relu")
    x = _rand(2, 4)
    ours(x)
    theirs(x)
    theirs.set_weights(ours.get_weights())
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-5, atol=1e-6)


# -------------------------------------------------------------- EinsumDense


@pytest.mark.parametrize(
    "equation, output_shape, bias_axes, input_shape, kernel_shape, bias_shape, out_shape",
    [
        ("ab,bc->ac", 4, "c", (2, 3), (3, 4), (4,), (2, 4)),
        ("abc,cd->abd", (None, 4), "d", (2, 5, 3), (3, 4), (4,), (2, 5, 4)),
        ("abc,cde->abde", (None, 2, 4), "de", (2, 5, 3), (3, 2, 4), (2, 4), (2, 5, 2, 4)),
        ("abc,cde->abde", (5, 2, 4), "be", (2, 5, 3), (3, 2, 4), (5, 1, 4), (2, 5, 2, 4)),
        ("...b,bc->...c", 4, "c", (2, 5, 3), (3, 4), (4,), (2, 5, 4)),
        ("ab...,bc->ac...", 4, "c", (2, 3, 5), (3, 4), (4, 1), (2, 4, 5)),
        ("ab,bc->ac", 4, None, (2, 3), (3, 4), None, (2, 4)),
    ],
)
def test_einsum_dense_matches_numpy(
    equation, output_shape, bias_axes, input_shape, kernel_shape, bias_shape, out_shape
):
    layer = layers.EinsumDense(equation, output_shape, bias_axes=bias_axes, activation="relu")
    x = _rand(*input_shape)
    layer(x)
    assert tuple(layer.kernel.shape) == kernel_shape
    assert (None if layer.bias is None else tuple(layer.bias.shape)) == bias_shape
    kernel = _rand(*kernel_shape)
    weights = [kernel] + ([] if bias_shape is None else [_rand(*bias_shape)])
    layer.set_weights(weights)
    expected = np.einsum(equation, x, kernel) + (0 if bias_shape is None else weights[1])
    out = layer(x)
    np.testing.assert_allclose(out.numpy(), np.maximum(expected, 0), rtol=1e-5, atol=1e-5)
    assert tuple(out.shape) == out_shape == layer.compute_output_shape(input_shape)
    clone = _roundtrip(layer)
    clone(x)
    clone.set_weights(weights)
    np.testing.assert_allclose(clone(x).numpy(), out.numpy(), rtol=1e-6)


def test_einsum_dense_gradients_match_finite_differences():
    layer = layers.EinsumDense("abc,cd->abd", (None, 2), bias_axes="d", dtype="float64")
    x = RNG.standard_normal((2, 3, 4))
    layer(x)
    kernel, bias = RNG.standard_normal((4, 2)), RNG.standard_normal(2)
    layer.set_weights([kernel, bias])
    upstream = RNG.standard_normal((2, 3, 2))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(x) * upstream)
    d_kernel, d_bias = tape.gradient(loss, [layer.kernel, layer.bias])
    numeric_k = _numeric_grad(lambda k: float((np.einsum("abc,cd->abd", x, k) * upstream).sum()), kernel)
    numeric_b = _numeric_grad(lambda b: float(((np.einsum("abc,cd->abd", x, kernel) + b) * upstream).sum()), bias)
    np.testing.assert_allclose(d_kernel.numpy(), numeric_k, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_bias.numpy(), numeric_b, rtol=1e-6, atol=1e-8)


def test_einsum_dense_modes_agree():
    layer = layers.EinsumDense("abc,cde->abde", (None, 2, 3), bias_axes="e")
    eager, graph, jit = _modes(layer, tf.constant(_rand(2, 4, 5)))
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jit, eager, rtol=1e-5, atol=1e-6)


def test_einsum_dense_kernel_initializer_uses_einsum_fans():
    layer = layers.EinsumDense("abc,cde->abde", (None, 8, 16), kernel_initializer="glorot_uniform")
    layer(tf.ones((1, 2, 64)))
    kernel = layer.kernel.numpy()
    limit = np.sqrt(6.0 / (64 + 8 * 16))  # fan_in: c, fan_out: d * e (as in Keras)
    assert np.abs(kernel).max() <= limit
    assert np.abs(kernel).max() > 0.95 * limit


def test_einsum_dense_errors():
    with pytest.raises(ValueError, match="invalid equation"):
        layers.EinsumDense("ab->b", 3)(tf.ones((2, 3)))
    with pytest.raises(ValueError, match="bias axis 'z'"):
        layers.EinsumDense("ab,bc->ac", 3, bias_axes="z")(tf.ones((2, 3)))
    with pytest.raises(ValueError, match="output_shape"):
        layers.EinsumDense("abc,cd->abd", 3)(tf.ones((2, 3, 4)))
    with pytest.raises(ValueError, match="rank"):
        layers.EinsumDense("abc,cd->abd", (None, 3))(tf.ones((2, 4)))
    with pytest.raises(ValueError, match="output_shape"):
        layers.EinsumDense("ab,bc->ac", "wide")
    layer = layers.EinsumDense("ab,bc->ac", 3, name="proj")
    layer(tf.ones((2, 4)))
    with pytest.raises(ValueError, match="'proj'"):
        layer(tf.ones((2, 5)))


def test_einsum_dense_matches_keras():
    keras = pytest.importorskip("keras")
    ours = layers.EinsumDense("abc,cde->abde", (None, 2, 3), bias_axes="de")
    theirs = keras.layers.EinsumDense("abc,cde->abde", (None, 2, 3), bias_axes="de")
    x = _rand(2, 4, 5)
    ours(x)
    theirs(x)
    theirs.set_weights(ours.get_weights())
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------- Activation, Identity


def test_activation_layer_applies_the_function_and_keeps_masks():
    x = tf.constant(_rand(2, 3, 4))
    mask = tf.constant([[True, False, True], [False, True, True]])
    masking.set_mask(x, mask)
    y = layers.Activation("sigmoid")(x)
    np.testing.assert_allclose(y.numpy(), 1 / (1 + np.exp(-x.numpy())), rtol=1e-5)
    np.testing.assert_array_equal(masking.get_mask(y).numpy(), mask.numpy())
    relu = layers.Activation(tfkit.activations.relu)
    assert relu.get_config()["activation"] == "relu"
    clone = _roundtrip(relu)
    np.testing.assert_array_equal(clone(x).numpy(), np.maximum(x.numpy(), 0))
    assert relu.compute_output_shape((None, 3)) == (None, 3)


def test_activation_refuses_to_save_an_unregistered_function():
    layer = layers.Activation(lambda t: t * 2)
    np.testing.assert_allclose(layer(tf.ones((1, 2))).numpy(), [[2.0, 2.0]])
    with pytest.raises(ValueError, match="a lambda"):
        layer.get_config()


def test_identity_returns_inputs_and_masks():
    x = tf.constant(_rand(2, 3))
    mask = tf.constant([True, False])
    masking.set_mask(x, mask)
    layer = layers.Identity()
    y = layer(x)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    np.testing.assert_array_equal(masking.get_mask(y).numpy(), mask.numpy())
    assert layer.compute_output_shape((None, 3)) == (None, 3)
    _roundtrip(layer)


# ------------------------------------------------------------------- Lambda


@registry.register_serializable(package="test_layers_core")
def scaled_square(x, factor=1.0):
    return tf.square(x) * factor


@registry.register_serializable(package="test_layers_core")
def keep_first_steps(inputs, mask):
    return tf.broadcast_to(tf.range(tf.shape(inputs)[1]) < 1, tf.shape(inputs)[:2])


@registry.register_serializable(package="test_layers_core")
def doubled_last_axis(input_shape):
    return (*input_shape[:-1], input_shape[-1] * 2)


@registry.register_serializable(package="test_layers_core")
def concat_twice(x):
    return tf.concat([x, x], axis=-1)


def test_lambda_calls_the_function_with_arguments():
    layer = layers.Lambda(scaled_square, arguments={"factor": 3.0})
    x = _rand(2, 3)
    np.testing.assert_allclose(layer(x).numpy(), 3 * x**2, rtol=1e-6)
    eager, graph, jit = _modes(layer, tf.constant(x))
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    np.testing.assert_allclose(jit, eager, rtol=1e-6)


def test_lambda_passes_training_and_mask_when_the_function_takes_them():
    seen = {}

    def record(x, training=None, mask=None):
        seen["training"], seen["mask"] = training, mask
        return x

    x = tf.constant(_rand(2, 3, 1))
    mask = tf.constant([[True, True, False], [True, False, False]])
    masking.set_mask(x, mask)
    layers.Lambda(record)(x, training=True)
    assert seen["training"] is True
    np.testing.assert_array_equal(seen["mask"].numpy(), mask.numpy())


def test_lambda_mask_function_and_no_mask_by_default():
    x = tf.constant(_rand(2, 3, 1))
    masking.set_mask(x, tf.constant([[True, True, False], [True, False, False]]))
    assert masking.get_mask(layers.Lambda(tf.identity)(x)) is None
    y = layers.Lambda(tf.identity, mask=keep_first_steps)(x)
    np.testing.assert_array_equal(masking.get_mask(y).numpy(), [[True, False, False], [True, False, False]])


def test_lambda_output_shape_inferred_given_or_computed():
    assert layers.Lambda(concat_twice).compute_output_shape((None, 3)) == (None, 6)
    assert layers.Lambda(concat_twice, output_shape=(6,)).compute_output_shape((4, 3)) == (4, 6)
    assert layers.Lambda(concat_twice, output_shape=doubled_last_axis).compute_output_shape((4, 5, 3)) == (4, 5, 6)


def test_lambda_config_stores_registered_names_only():
    layer = layers.Lambda(
        scaled_square, output_shape=doubled_last_axis, mask=keep_first_steps, arguments={"factor": 2.0}, name="square"
    )
    config = layer.get_config()
    assert config["function"] == "test_layers_core>scaled_square"
    assert config["output_shape"] == "test_layers_core>doubled_last_axis"
    assert config["mask"] == "test_layers_core>keep_first_steps"
    clone = _roundtrip(layer)
    assert clone.function is scaled_square and clone.mask is keep_first_steps
    x = _rand(2, 3)
    np.testing.assert_allclose(clone(x).numpy(), 2 * x**2, rtol=1e-6)
    builtin = layers.Lambda(tfkit.activations.relu, output_shape=(3,))
    assert builtin.get_config()["function"] == "relu"
    assert _roundtrip(builtin).function is tfkit.activations.relu


def test_lambda_refuses_lambdas_and_saves_named_functions_by_name():
    def local_function(x):
        return x + 1

    layer = layers.Lambda(lambda x: x + 1)
    layer(tf.ones((1, 2)))
    with pytest.raises(ValueError, match="a lambda"):
        layer.get_config()
    with pytest.raises(ValueError, match="a lambda"):
        layers.Lambda(tf.identity, output_shape=lambda s: s).get_config()
    config = layers.Lambda(local_function).get_config()
    assert config["function"] == "local_function"
    with pytest.raises(ValueError, match="unknown function 'local_function'"):
        layers.Lambda.from_config(config)
    with tfkit.saving.custom_object_scope({"local_function": local_function}):
        rebuilt = layers.Lambda.from_config(config)
    np.testing.assert_allclose(rebuilt(tf.ones((1, 2))).numpy(), [[2.0, 2.0]])


def test_lambda_from_config_refuses_code_and_unknown_names():
    code_config = {
        "name": "evil",
        "function": {"class_name": "__lambda__", "config": {"code": "ZXZpbA==", "defaults": None, "closure": None}},
        "arguments": {},
    }
    with pytest.raises(ValueError, match="registered function name"):
        layers.Lambda.from_config(code_config)
    with pytest.raises(ValueError, match="registered function name"):
        layers.Lambda.from_config({"function": ["os", "system"]})
    with pytest.raises(ValueError, match="unknown function 'os.system'"):
        layers.Lambda.from_config({"function": "os.system"})
    with pytest.raises(ValueError, match="registered function name"):
        layers.Lambda.from_config({"function": "relu", "mask": {"class_name": "__lambda__", "config": {}}})


def test_lambda_from_config_uses_custom_object_scope():
    def shifted(x):
        return x + 10

    with registry.custom_object_scope({"shifted": shifted}):
        layer = layers.Lambda.from_config({"function": "shifted", "arguments": {}})
    np.testing.assert_allclose(layer(tf.zeros((1, 2))).numpy(), [[10.0, 10.0]])


def test_lambda_rejects_bad_arguments():
    with pytest.raises(ValueError, match="callable"):
        layers.Lambda("relu")
    with pytest.raises(ValueError, match="arguments"):
        layers.Lambda(tf.identity, arguments=[1, 2])
