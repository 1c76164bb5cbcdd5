"""tfkit.layers.normalization: BatchNormalization, LayerNormalization, GroupNormalization."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf
import time_limits

from tfkit import layers
from tfkit.engine import masking

RNG = np.random.default_rng(4)


def _rand(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


def _roundtrip(layer):
    config = json.loads(json.dumps(layer.get_config()))
    clone = type(layer).from_config(config)
    assert clone.get_config() == layer.get_config()
    return clone


def _numeric_grad(fn, array, eps=1e-6):
    grad = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        plus, minus = array.copy(), array.copy()
        plus[index] += eps
        minus[index] -= eps
        grad[index] = (fn(plus) - fn(minus)) / (2 * eps)
    return grad


def _affine(normalized, gamma, beta, shape):
    return normalized * gamma.reshape(shape) + beta.reshape(shape)


# -------------------------------------------------------- BatchNormalization


def _bn_reference(x, gamma, beta, axis, eps, mean=None, var=None):
    reduce = tuple(i for i in range(x.ndim) if i != axis)
    shape = [1] * x.ndim
    shape[axis] = -1
    if mean is None:
        mean, var = x.mean(axis=reduce), x.var(axis=reduce)
    normalized = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return _affine(normalized, gamma, beta, shape), mean, var


def test_batch_norm_training_uses_batch_statistics_and_updates_moving_ones():
    layer = layers.BatchNormalization(momentum=0.9, epsilon=1e-3)
    x = _rand(6, 4) * 3 + 1
    layer.build((None, 4))
    gamma, beta = _rand(4), _rand(4)
    moving_mean, moving_var = _rand(4), np.abs(_rand(4)) + 0.5
    layer.set_weights([gamma, beta, moving_mean, moving_var])
    y = layer(x, training=True)
    expected, mean, var = _bn_reference(x, gamma, beta, 1, 1e-3)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(layer.moving_mean.numpy(), moving_mean * 0.9 + mean * 0.1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer.moving_variance.numpy(), moving_var * 0.9 + var * 0.1, rtol=1e-5, atol=1e-6)


def test_batch_norm_inference_uses_moving_statistics_without_updates():
    layer = layers.BatchNormalization(epsilon=0.01)
    x = _rand(5, 3)
    layer.build((None, 3))
    weights = [_rand(3), _rand(3), _rand(3), np.abs(_rand(3)) + 0.1]
    layer.set_weights(weights)
    expected, _, _ = _bn_reference(x, weights[0], weights[1], 1, 0.01, weights[2], weights[3])
    for y in (layer(x), layer(x, training=False)):
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(layer.moving_mean.numpy(), weights[2])
    np.testing.assert_array_equal(layer.moving_variance.numpy(), weights[3])


def test_frozen_batch_norm_runs_in_inference_mode_even_when_training():
    layer = layers.BatchNormalization()
    x = _rand(5, 3) + 2
    layer(x)
    layer.trainable = False
    y = layer(x, training=True)
    np.testing.assert_allclose(y.numpy(), x / np.sqrt(1 + 1e-3), rtol=1e-5)
    np.testing.assert_array_equal(layer.moving_mean.numpy(), np.zeros(3))
    assert layer.trainable_weights == []


def test_batch_norm_weights_are_split_into_trainable_and_not():
    layer = layers.BatchNormalization()
    layer(tf.ones((2, 3)))
    assert list(layer.weight_paths()) == ["gamma", "beta", "moving_mean", "moving_variance"]
    assert [w.name.split(":")[0].split("/")[-1] for w in layer.trainable_weights] == ["gamma", "beta"]
    assert [w.name.split(":")[0].split("/")[-1] for w in layer.non_trainable_weights] == [
        "moving_mean",
        "moving_variance",
    ]
    bare = layers.BatchNormalization(center=False, scale=False)
    bare(tf.ones((2, 3)))
    assert bare.trainable_weights == [] and len(bare.weights) == 2


def test_batch_norm_channels_first_axis():
    x = _rand(3, 2, 4, 4)
    layer = layers.BatchNormalization(axis=1)
    y = layer(x, training=True)
    expected, _, _ = _bn_reference(x, np.ones(2, "float32"), np.zeros(2, "float32"), 1, 1e-3)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-4, atol=1e-5)
    assert layer.gamma.shape == (2,)
    assert layer.compute_output_shape((None, 2, 4, 4)) == (None, 2, 4, 4)


def test_batch_norm_statistics_ignore_masked_positions():
    x = _rand(2, 4, 3)
    mask = np.array([[True, True, False, False], [True, True, True, False]])
    tensor = tf.constant(x)
    masking.set_mask(tensor, tf.constant(mask))
    layer = layers.BatchNormalization(momentum=0.0)
    y = layer(tensor, training=True)
    valid = x[mask]  # (5, 3): only unmasked steps
    mean, var = valid.mean(0), valid.var(0)
    np.testing.assert_allclose(layer.moving_mean.numpy(), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer.moving_variance.numpy(), var, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(y.numpy(), (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(masking.get_mask(y).numpy(), mask)


def test_batch_norm_training_gradients_match_finite_differences():
    x = _rand(4, 3, dtype="float64")
    upstream = _rand(4, 3, dtype="float64")
    layer = layers.BatchNormalization(dtype="float64")
    layer.build((None, 3))
    gamma, beta = _rand(3, dtype="float64"), _rand(3, dtype="float64")
    layer.set_weights([gamma, beta, np.zeros(3), np.ones(3)])
    x_tensor = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x_tensor)
        loss = tf.reduce_sum(layer(x_tensor, training=True) * upstream)
    d_gamma, d_beta, d_x = tape.gradient(loss, [layer.gamma, layer.beta, x_tensor])

    def loss_of(x_, gamma_, beta_):
        return float((_bn_reference(x_, gamma_, beta_, 1, 1e-3)[0] * upstream).sum())

    np.testing.assert_allclose(d_gamma.numpy(), _numeric_grad(lambda g: loss_of(x, g, beta), gamma), rtol=1e-5)
    np.testing.assert_allclose(d_beta.numpy(), _numeric_grad(lambda b: loss_of(x, gamma, b), beta), rtol=1e-5)
    np.testing.assert_allclose(d_x.numpy(), _numeric_grad(lambda v: loss_of(v, gamma, beta), x), rtol=1e-4, atol=1e-7)


def test_batch_norm_compiled_steps_update_moving_statistics():
    x = tf.constant(_rand(6, 3) + 1)
    results = []
    for jit in (None, False, True):
        layer = layers.BatchNormalization(momentum=0.5)
        layer.build((None, 3))  # variables exist before tracing, so one trace serves every step
        if jit is None:
            outputs = [layer(x, training=True) for _ in range(2)]
        else:
            step = tf.function(lambda t: layer(t, training=True), jit_compile=jit)
            outputs = [step(x) for _ in range(2)]
            assert step.experimental_get_tracing_count() == 1
        results.append((outputs[-1].numpy(), layer.moving_mean.numpy(), layer.moving_variance.numpy()))
    mean = x.numpy().mean(0)
    np.testing.assert_allclose(results[0][1], mean * 0.75, rtol=1e-5)  # two updates from zeros
    for other in results[1:]:
        for got, want in zip(other, results[0]):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_batch_norm_follows_a_tensor_training_flag():
    layer = layers.BatchNormalization(momentum=0.0)
    x = tf.constant(_rand(4, 2) + 3)
    step = tf.function(lambda t, flag: layer(t, training=flag))
    step(x, tf.constant(False))
    np.testing.assert_array_equal(layer.moving_mean.numpy(), np.zeros(2))
    step(x, tf.constant(True))
    np.testing.assert_allclose(layer.moving_mean.numpy(), x.numpy().mean(0), rtol=1e-5)


def test_batch_norm_config_roundtrip_and_errors():
    layer = layers.BatchNormalization(
        axis=1, momentum=0.8, epsilon=0.01, center=False, gamma_regularizer="l2", moving_variance_initializer="zeros"
    )
    x = _rand(2, 3, 4)
    y = layer(x)
    clone = _roundtrip(layer)
    clone(x)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(clone(x).numpy(), y.numpy(), rtol=1e-6)
    assert len(layer.losses) == 1  # gamma_regularizer
    for kwargs, message in [({"momentum": 1.5}, "momentum"), ({"epsilon": 0}, "epsilon"), ({"axis": "last"}, "axis")]:
        with pytest.raises(ValueError, match=message):
            layers.BatchNormalization(**kwargs)
    with pytest.raises(ValueError, match="out of range"):
        layers.BatchNormalization(axis=3)(tf.ones((2, 3)))
    with pytest.raises(ValueError, match="known size"):
        layers.BatchNormalization().build((None, None))
    named = layers.BatchNormalization(name="bn")
    named(tf.ones((2, 3)))
    with pytest.raises(ValueError, match="'bn'"):
        named(tf.ones((2, 4)))


SYNC_SCRIPT = textwrap.dedent(
    """
    import json, os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import numpy as np, tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    from tfkit import layers

    x = np.random.default_rng(0).standard_normal((8, 3)).astype("float32") * [1.0, 2.0, 3.0] + [0.0, 5.0, -5.0]
    x[4:] += 3.0  # the two replicas' halves have different statistics
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    result = {}
    for synchronized in (True, False):
        with strategy.scope():
            bn = layers.BatchNormalization(momentum=0.0, synchronized=synchronized)
            bn.build((None, 3))
        halves = strategy.experimental_distribute_values_from_function(
            lambda ctx: tf.constant(x[4 * ctx.replica_id_in_sync_group: 4 * ctx.replica_id_in_sync_group + 4]))
        out = strategy.run(tf.function(lambda t: bn(t, training=True)), args=(halves,))
        result[str(synchronized)] = {
            "out": np.concatenate([o.numpy() for o in strategy.experimental_local_results(out)]).tolist(),
            "moving_mean": bn.moving_mean.numpy().tolist(),
        }
    result["x"] = x.tolist()
    print(json.dumps(result))
    """
)


@pytest.mark.slow
def test_synchronized_batch_norm_uses_statistics_of_the_global_batch():
    run = subprocess.run(
        [sys.executable, "-c", SYNC_SCRIPT], capture_output=True, text=True, timeout=time_limits.seconds(120)
    )
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    x = np.array(result["x"])
    synced = result["True"]
    np.testing.assert_allclose(synced["out"], (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(synced["moving_mean"], x.mean(0), rtol=1e-5, atol=1e-5)
    local = np.concatenate([(h - h.mean(0)) / np.sqrt(h.var(0) + 1e-3) for h in (x[:4], x[4:])])
    np.testing.assert_allclose(result["False"]["out"], local, rtol=1e-4, atol=1e-4)


def test_batch_norm_matches_keras():
    keras = pytest.importorskip("keras")
    x = _rand(6, 3) * 2 + 1
    ours, theirs = layers.BatchNormalization(momentum=0.7), keras.layers.BatchNormalization(momentum=0.7)
    ours(x)
    theirs(x)
    np.testing.assert_allclose(
        ours(x, training=True).numpy(), np.asarray(theirs(x, training=True)), rtol=1e-4, atol=1e-5
    )
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-4, atol=1e-5)


# -------------------------------------------------------- LayerNormalization


def _ln_reference(x, gamma, beta, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    shape = [1] * x.ndim
    for a in axes:
        shape[a] = x.shape[a]
    return _affine((x - mean) / np.sqrt(var + eps), gamma, beta, shape)


@pytest.mark.parametrize("axis, axes", [(-1, (2,)), ([1, 2], (1, 2)), (1, (1,))])
def test_layer_norm_matches_numpy(axis, axes):
    x = _rand(2, 3, 4) * 2 + 1
    layer = layers.LayerNormalization(axis=axis, epsilon=1e-3)
    layer(x)
    param_shape = tuple(x.shape[a] for a in axes)
    assert layer.gamma.shape == param_shape and layer.beta.shape == param_shape
    gamma, beta = _rand(*param_shape), _rand(*param_shape)
    layer.set_weights([gamma, beta])
    y = layer(x)
    np.testing.assert_allclose(y.numpy(), _ln_reference(x, gamma, beta, axes, 1e-3), rtol=1e-4, atol=1e-5)
    assert tuple(y.shape) == layer.compute_output_shape(x.shape)
    clone = _roundtrip(layer)
    clone(x)
    clone.set_weights([gamma, beta])
    np.testing.assert_allclose(clone(x).numpy(), y.numpy(), rtol=1e-6)


def test_layer_norm_gradients_match_finite_differences():
    x = _rand(2, 4, dtype="float64")
    upstream = _rand(2, 4, dtype="float64")
    layer = layers.LayerNormalization(dtype="float64")
    layer.build((None, 4))
    gamma, beta = _rand(4, dtype="float64"), _rand(4, dtype="float64")
    layer.set_weights([gamma, beta])
    x_tensor = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x_tensor)
        loss = tf.reduce_sum(layer(x_tensor) * upstream)
    d_gamma, d_x = tape.gradient(loss, [layer.gamma, x_tensor])

    def loss_of(x_, gamma_):
        return float((_ln_reference(x_, gamma_, beta, (1,), 1e-3) * upstream).sum())

    np.testing.assert_allclose(d_gamma.numpy(), _numeric_grad(lambda g: loss_of(x, g), gamma), rtol=1e-5)
    np.testing.assert_allclose(d_x.numpy(), _numeric_grad(lambda v: loss_of(v, gamma), x), rtol=1e-4, atol=1e-7)


def test_layer_norm_modes_masks_and_errors():
    layer = layers.LayerNormalization(center=False)
    x = tf.constant(_rand(2, 3, 4))
    eager = layer(x).numpy()
    for jit in (False, True):
        np.testing.assert_allclose(
            tf.function(lambda t: layer(t), jit_compile=jit)(x).numpy(), eager, rtol=1e-5, atol=1e-6
        )
    assert layer.beta is None and len(layer.weights) == 1
    masked = tf.constant(_rand(2, 3, 4))
    masking.set_mask(masked, tf.constant([[True, False, True], [True, True, False]]))
    np.testing.assert_array_equal(masking.get_mask(layer(masked)).numpy(), masking.get_mask(masked).numpy())
    with pytest.raises(ValueError, match="axis"):
        layers.LayerNormalization(axis=[])
    with pytest.raises(ValueError, match="out of range"):
        layers.LayerNormalization(axis=3)(tf.ones((2, 3)))
    with pytest.raises(ValueError, match="epsilon"):
        layers.LayerNormalization(epsilon=-1)


def test_layer_norm_matches_keras():
    keras = pytest.importorskip("keras")
    x = _rand(2, 3, 4)
    ours, theirs = layers.LayerNormalization(axis=[1, 2]), keras.layers.LayerNormalization(axis=[1, 2])
    ours(x)
    theirs(x)
    weights = [_rand(3, 4), _rand(3, 4)]
    ours.set_weights(weights)
    theirs.set_weights(weights)
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-4, atol=1e-5)


# -------------------------------------------------------- GroupNormalization


def _gn_reference(x, gamma, beta, groups, eps):
    """channels_last: normalize each (sample, group) over positions and the group's channels."""
    batch, channels = x.shape[0], x.shape[-1]
    grouped = x.reshape(batch, -1, groups, channels // groups)
    mean = grouped.mean(axis=(1, 3), keepdims=True)
    var = grouped.var(axis=(1, 3), keepdims=True)
    normalized = ((grouped - mean) / np.sqrt(var + eps)).reshape(x.shape)
    return normalized * gamma + beta


@pytest.mark.parametrize("groups, resolved", [(2, 2), (1, 1), (-1, 6)])
def test_group_norm_matches_numpy(groups, resolved):
    x = _rand(2, 3, 3, 6) * 2 + 1
    layer = layers.GroupNormalization(groups=groups)
    layer(x)
    gamma, beta = _rand(6), _rand(6)
    layer.set_weights([gamma, beta])
    y = layer(x)
    np.testing.assert_allclose(y.numpy(), _gn_reference(x, gamma, beta, resolved, 1e-3), rtol=1e-4, atol=1e-5)
    assert tuple(y.shape) == layer.compute_output_shape(x.shape)
    assert layer.get_config()["groups"] == groups
    clone = _roundtrip(layer)
    clone(x)
    clone.set_weights([gamma, beta])
    np.testing.assert_allclose(clone(x).numpy(), y.numpy(), rtol=1e-6)


def test_group_norm_channels_first_and_unknown_dims():
    x = _rand(2, 4, 3, 3)
    y = layers.GroupNormalization(groups=2, axis=1)(x)
    expected = _gn_reference(x.transpose(0, 2, 3, 1), np.ones(4), np.zeros(4), 2, 1e-3).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-4, atol=1e-5)
    layer = layers.GroupNormalization(groups=2)
    step = tf.function(lambda t: layer(t), input_signature=[tf.TensorSpec((None, None, 4))])
    seq = _rand(2, 5, 4)
    np.testing.assert_allclose(
        step(seq).numpy(), _gn_reference(seq, np.ones(4), np.zeros(4), 2, 1e-3), rtol=1e-4, atol=1e-5
    )
    jit = tf.function(lambda t: layer(t), jit_compile=True)
    np.testing.assert_allclose(jit(tf.constant(seq)).numpy(), step(seq).numpy(), rtol=1e-5, atol=1e-6)


def test_group_norm_gradients_match_finite_differences():
    x = _rand(2, 3, 4, dtype="float64")
    upstream = _rand(2, 3, 4, dtype="float64")
    layer = layers.GroupNormalization(groups=2, dtype="float64")
    layer.build((None, 3, 4))
    gamma, beta = _rand(4, dtype="float64"), _rand(4, dtype="float64")
    layer.set_weights([gamma, beta])
    x_tensor = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x_tensor)
        loss = tf.reduce_sum(layer(x_tensor) * upstream)
    d_gamma, d_x = tape.gradient(loss, [layer.gamma, x_tensor])

    def loss_of(x_, gamma_):
        return float((_gn_reference(x_, gamma_, beta, 2, 1e-3) * upstream).sum())

    np.testing.assert_allclose(d_gamma.numpy(), _numeric_grad(lambda g: loss_of(x, g), gamma), rtol=1e-5)
    np.testing.assert_allclose(d_x.numpy(), _numeric_grad(lambda v: loss_of(v, gamma), x), rtol=1e-4, atol=1e-7)


def test_group_norm_errors():
    for bad in (0, -2, 1.5, "all"):
        with pytest.raises(ValueError, match="groups"):
            layers.GroupNormalization(groups=bad)
    with pytest.raises(ValueError, match="'gn'.*multiple of groups"):
        layers.GroupNormalization(groups=4, name="gn")(tf.ones((2, 6)))
    with pytest.raises(ValueError, match="cannot exceed"):
        layers.GroupNormalization(groups=8)(tf.ones((2, 6)))


def test_group_norm_matches_keras():
    keras = pytest.importorskip("keras")
    x = _rand(2, 3, 3, 6)
    ours, theirs = layers.GroupNormalization(groups=3), keras.layers.GroupNormalization(groups=3)
    ours(x)
    theirs(x)
    weights = [_rand(6), _rand(6)]
    ours.set_weights(weights)
    theirs.set_weights(weights)
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-4, atol=1e-5)
