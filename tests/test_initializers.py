"""tfkit.initializers: fans, statistics, exact values, seeds, lookup and configs."""

import json
import math

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import initializers

# ------------------------------------------------------------------ fans


@pytest.mark.parametrize(
    "shape, fans",
    [
        ((), (1, 1)),
        ((7,), (7, 7)),
        ((3, 5), (3, 5)),
        ((4, 8, 16), (4 * 8, 4 * 16)),  # Conv1D kernel: receptive field 4
        ((3, 3, 16, 32), (9 * 16, 9 * 32)),  # Conv2D kernel
        ((2, 3, 4, 5, 6), (24 * 5, 24 * 6)),  # Conv3D kernel
    ],
)
def test_compute_fans(shape, fans):
    assert initializers.compute_fans(shape) == fans


# ----------------------------------------------------------- statistics

CONV_SHAPE = (3, 3, 40, 60)  # fan_in = 360, fan_out = 540, 32400 entries
FAN_IN, FAN_OUT = 360, 540
FAN_AVG = (FAN_IN + FAN_OUT) / 2


def _draw(init, shape=CONV_SHAPE, dtype="float32"):
    value = init(shape, dtype=dtype)
    assert tuple(value.shape) == tuple(shape)
    assert value.dtype == tf.as_dtype(dtype)
    return value.numpy().astype(np.float64)


@pytest.mark.parametrize(
    "name, variance", [("glorot_uniform", 1.0 / FAN_AVG), ("he_uniform", 2.0 / FAN_IN), ("lecun_uniform", 1.0 / FAN_IN)]
)
def test_uniform_presets_fill_their_bounds(name, variance):
    values = _draw(type(initializers.get(name))(seed=3))
    limit = math.sqrt(3.0 * variance)  # glorot: sqrt(6 / (fan_in + fan_out))
    assert np.abs(values).max() <= limit
    assert np.abs(values).max() > 0.99 * limit
    assert abs(values.mean()) < 0.02 * limit
    assert values.std() == pytest.approx(math.sqrt(variance), rel=0.03)


def test_glorot_uniform_limit_is_sqrt_6_over_fan_sum():
    values = _draw(initializers.GlorotUniform(seed=1), shape=(200, 300))
    limit = math.sqrt(6.0 / (200 + 300))
    assert values.min() >= -limit and values.max() <= limit
    assert values.min() < -0.99 * limit and values.max() > 0.99 * limit


@pytest.mark.parametrize(
    "name, variance", [("glorot_normal", 1.0 / FAN_AVG), ("he_normal", 2.0 / FAN_IN), ("lecun_normal", 1.0 / FAN_IN)]
)
def test_truncated_normal_presets_have_the_target_variance(name, variance):
    values = _draw(type(initializers.get(name))(seed=4))
    stddev = math.sqrt(variance)
    # Drawn with stddev / 0.8796 and cut at two of those, so the variance stays scale / n.
    assert np.abs(values).max() <= 2 * stddev / 0.87962566103423978 + 1e-6
    assert values.std() == pytest.approx(stddev, rel=0.03)
    assert abs(values.mean()) < 0.03 * stddev


@pytest.mark.parametrize("mode, n", [("fan_in", FAN_IN), ("fan_out", FAN_OUT), ("fan_avg", FAN_AVG)])
@pytest.mark.parametrize("distribution", ["truncated_normal", "untruncated_normal", "uniform"])
def test_variance_scaling_modes_and_distributions(mode, n, distribution):
    init = initializers.VarianceScaling(scale=3.0, mode=mode, distribution=distribution, seed=5)
    values = _draw(init)
    assert values.std() == pytest.approx(math.sqrt(3.0 / n), rel=0.03)
    if distribution == "uniform":
        assert np.abs(values).max() <= math.sqrt(9.0 / n)


def test_untruncated_normal_has_tails_beyond_two_stddev():
    values = _draw(initializers.VarianceScaling(distribution="untruncated_normal", seed=6))
    stddev = math.sqrt(1.0 / FAN_IN)
    assert (np.abs(values) > 2 * stddev / 0.87962566103423978).any()


def test_random_normal_statistics():
    values = _draw(initializers.RandomNormal(mean=1.0, stddev=0.5, seed=7))
    assert values.mean() == pytest.approx(1.0, abs=0.02)
    assert values.std() == pytest.approx(0.5, rel=0.03)


def test_random_uniform_statistics():
    values = _draw(initializers.RandomUniform(minval=-1.0, maxval=3.0, seed=8))
    assert values.min() >= -1.0 and values.max() < 3.0
    assert values.mean() == pytest.approx(1.0, abs=0.05)
    assert values.std() == pytest.approx(4.0 / math.sqrt(12.0), rel=0.03)


def test_truncated_normal_statistics():
    values = _draw(initializers.TruncatedNormal(mean=0.5, stddev=0.2, seed=9))
    assert values.min() >= 0.5 - 0.4 - 1e-6 and values.max() <= 0.5 + 0.4 + 1e-6
    assert values.mean() == pytest.approx(0.5, abs=0.01)
    assert values.std() == pytest.approx(0.2 * 0.87962566103423978, rel=0.03)


def test_default_stddevs_are_keras_defaults():
    assert initializers.RandomNormal().get_config() == {"mean": 0.0, "stddev": 0.05, "seed": None}
    assert initializers.RandomUniform().get_config() == {"minval": -0.05, "maxval": 0.05, "seed": None}
    assert initializers.TruncatedNormal().get_config() == {"mean": 0.0, "stddev": 0.05, "seed": None}
    assert initializers.VarianceScaling().get_config() == {
        "scale": 1.0,
        "mode": "fan_in",
        "distribution": "truncated_normal",
        "seed": None,
        "input_axes": None,
        "output_axes": None,
    }


def test_float64_and_float16_draws():
    assert initializers.GlorotNormal(seed=1)((4, 4), dtype=tf.float64).dtype == tf.float64
    assert initializers.RandomUniform(seed=1)((4, 4), dtype="float16").dtype == tf.float16


# ------------------------------------------------------------- orthogonal


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (3, 3, 4, 8)])
def test_orthogonal_has_orthonormal_rows_or_columns(shape):
    q = _draw(initializers.Orthogonal(seed=11), shape=shape)
    flat = q.reshape(-1, shape[-1])
    rows, cols = flat.shape
    gram = flat.T @ flat if rows >= cols else flat @ flat.T
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-5)


def test_orthogonal_gain_scales_the_matrix():
    q = _draw(initializers.Orthogonal(gain=2.0, seed=12), shape=(8, 8))
    np.testing.assert_allclose(q.T @ q, 4.0 * np.eye(8), atol=1e-4)


def test_orthogonal_rejects_vectors():
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        initializers.Orthogonal()((5,))


# --------------------------------------------------------------- constants


def test_identity_is_scaled_eye():
    np.testing.assert_array_equal(initializers.Identity(gain=0.5)((3, 5)).numpy(), 0.5 * np.eye(3, 5))
    with pytest.raises(ValueError, match="2-D"):
        initializers.Identity()((2, 2, 2))


@pytest.mark.parametrize("dtype", ["int32", tf.int64, "float64", np.float32])
def test_zeros_ones_constant_any_dtype(dtype):
    assert initializers.Zeros()((2, 3), dtype=dtype).dtype == tf.as_dtype(dtype)
    np.testing.assert_array_equal(initializers.Zeros()((2, 3), dtype=dtype).numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(initializers.Ones()((2, 3), dtype=dtype).numpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(initializers.Constant(7)((2, 3), dtype=dtype).numpy(), np.full((2, 3), 7))


def test_zeros_bool_and_default_dtype():
    assert initializers.Zeros()((2,), dtype="bool").dtype == tf.bool
    assert initializers.Ones()((2,)).dtype == tf.float32


def test_constant_broadcasts_arrays_and_keeps_json_config():
    init = initializers.Constant(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(init((2, 3)).numpy(), [[1, 2, 3], [1, 2, 3]])
    config = initializers.serialize(init)
    assert json.loads(json.dumps(config)) == {"class_name": "Constant", "config": {"value": [1.0, 2.0, 3.0]}}
    np.testing.assert_array_equal(initializers.deserialize(config)((1, 3)).numpy(), [[1, 2, 3]])
    with pytest.raises(ValueError, match=r"cannot fill a weight of shape \(2, 4\)"):
        init((2, 4))


def test_random_initializers_need_floating_dtypes():
    with pytest.raises(ValueError, match="floating dtype, got int32"):
        initializers.GlorotUniform()((2, 2), dtype="int32")


def test_unknown_shape_and_dtype_are_clear_errors():
    with pytest.raises(ValueError, match="fully known shape"):
        initializers.Zeros()((None, 3))
    with pytest.raises(ValueError, match="dtype"):
        initializers.Zeros()((2,), dtype="not_a_dtype")


# ------------------------------------------------------------------- seeds

RANDOM_CLASSES = [
    initializers.RandomNormal,
    initializers.RandomUniform,
    initializers.TruncatedNormal,
    initializers.VarianceScaling,
    initializers.GlorotUniform,
    initializers.GlorotNormal,
    initializers.HeUniform,
    initializers.HeNormal,
    initializers.LecunUniform,
    initializers.LecunNormal,
    initializers.Orthogonal,
]


@pytest.mark.parametrize("cls", RANDOM_CLASSES)
def test_int_seed_repeats_and_no_seed_draws_fresh_values(cls):
    seeded = cls(seed=42)
    first = seeded((6, 5)).numpy()
    np.testing.assert_array_equal(first, seeded((6, 5)).numpy())
    np.testing.assert_array_equal(first, cls(seed=42)((6, 5)).numpy())
    assert not np.array_equal(first, cls(seed=43)((6, 5)).numpy())
    unseeded = cls()
    assert not np.array_equal(unseeded((6, 5)).numpy(), unseeded((6, 5)).numpy())
    assert seeded.get_config()["seed"] == 42
    assert cls.from_config(seeded.get_config())((6, 5)).numpy().tolist() == first.tolist()


def test_random_normal_matches_tfkit_random_with_the_same_int_seed():
    from tfkit import random as tfkit_random

    np.testing.assert_array_equal(
        initializers.RandomNormal(stddev=1.0, seed=7)((5,)).numpy(), tfkit_random.normal((5,), seed=7).numpy()
    )


def test_bad_seed_is_rejected():
    with pytest.raises(ValueError, match="seed to be an int or None"):
        initializers.RandomNormal(seed="abc")


# ------------------------------------------------- inside tf.init_scope / layers


def test_works_as_lazy_initial_value_created_under_init_scope_in_tf_function():
    init = initializers.get("glorot_uniform")
    holder = []

    @tf.function
    def make_and_read():
        if not holder:
            with tf.init_scope():
                holder.append(tf.Variable(initial_value=lambda: init((4, 3), dtype=tf.float32)))
        return holder[0] * 1.0

    value = make_and_read().numpy()
    assert value.shape == (4, 3) and np.abs(value).max() <= math.sqrt(6.0 / 7.0)
    np.testing.assert_array_equal(value, holder[0].numpy())


def test_layer_add_weight_uses_initializer_names_and_objects():
    layer = tfkit.Layer()
    w = layer.add_weight(shape=(3, 4), initializer="random_normal", dtype="float64")
    b = layer.add_weight(shape=(4,), initializer=initializers.Constant(2.0))
    counts = layer.add_weight(shape=(2,), initializer="ones", dtype="int32", trainable=False)
    assert w.dtype == tf.float64 and np.abs(w.numpy()).max() < 0.5
    np.testing.assert_array_equal(b.numpy(), [2.0] * 4)
    np.testing.assert_array_equal(counts.numpy(), [1, 1])


# ---------------------------------------------------------- lookup / configs

ALIASES = {
    "zeros": initializers.Zeros,
    "ones": initializers.Ones,
    "constant": initializers.Constant,
    "random_normal": initializers.RandomNormal,
    "random_uniform": initializers.RandomUniform,
    "truncated_normal": initializers.TruncatedNormal,
    "glorot_uniform": initializers.GlorotUniform,
    "glorot_normal": initializers.GlorotNormal,
    "he_uniform": initializers.HeUniform,
    "he_normal": initializers.HeNormal,
    "lecun_normal": initializers.LecunNormal,
    "lecun_uniform": initializers.LecunUniform,
    "orthogonal": initializers.Orthogonal,
    "identity": initializers.Identity,
    "variance_scaling": initializers.VarianceScaling,
}


@pytest.mark.parametrize("alias, cls", sorted(ALIASES.items()))
def test_names_give_default_instances_that_round_trip(alias, cls):
    for name in (alias, cls.__name__):
        assert type(initializers.get(name)) is cls
    config = initializers.serialize(initializers.get(alias))
    assert config["class_name"] == cls.__name__
    rebuilt = initializers.deserialize(json.loads(json.dumps(config)))
    assert type(rebuilt) is cls and rebuilt.get_config() == config["config"]


def test_round_trip_keeps_arguments():
    init = initializers.VarianceScaling(scale=2.0, mode="fan_out", distribution="uniform", seed=3)
    config = initializers.serialize(init)
    assert config == {
        "class_name": "VarianceScaling",
        "config": {
            "scale": 2.0,
            "mode": "fan_out",
            "distribution": "uniform",
            "seed": 3,
            "input_axes": None,
            "output_axes": None,
        },
    }
    assert initializers.get(config).get_config() == init.get_config()
    assert initializers.serialize(initializers.GlorotUniform(seed=5)) == {
        "class_name": "GlorotUniform",
        "config": {"seed": 5, "input_axes": None, "output_axes": None},
    }


def test_get_passes_objects_and_callables_through():
    assert initializers.get(None) is None
    init = initializers.HeNormal()
    assert initializers.get(init) is init

    def halves(shape, dtype=None):
        return tf.fill(shape, tf.constant(0.5, dtype or tf.float32))

    assert initializers.get(halves) is halves
    assert isinstance(initializers.get(initializers.Ones), initializers.Ones)


def test_unknown_names_and_values_raise():
    with pytest.raises(ValueError, match="glorot_unifrom") as info:
        initializers.get("glorot_unifrom")
    assert "glorot_uniform" in str(info.value)  # the error lists the known names
    with pytest.raises(ValueError, match="Could not interpret initializer"):
        initializers.get(3)


def test_variance_scaling_validates_arguments():
    with pytest.raises(ValueError, match="positive scale"):
        initializers.VarianceScaling(scale=0.0)
    with pytest.raises(ValueError, match="mode"):
        initializers.VarianceScaling(mode="fan_sideways")
    with pytest.raises(ValueError, match="distribution"):
        initializers.VarianceScaling(distribution="cauchy")


# ------------------------------------------------- optional Keras cross-check


@pytest.mark.parametrize(
    "ours, theirs",
    [
        ("RandomNormal", "RandomNormal"),
        ("RandomUniform", "RandomUniform"),
        ("TruncatedNormal", "TruncatedNormal"),
        ("VarianceScaling", "VarianceScaling"),
        ("GlorotUniform", "GlorotUniform"),
        ("HeNormal", "HeNormal"),
        ("Orthogonal", "Orthogonal"),
        ("Constant", "Constant"),  # (Keras's Identity drops `gain` from its config; tfkit keeps it)
    ],
)
def test_default_configs_match_keras(ours, theirs):
    keras = pytest.importorskip("keras")
    our_config = getattr(initializers, ours)().get_config()
    their_config = getattr(keras.initializers, theirs)().get_config()
    # Newer Keras versions may add options tfkit does not have; every tfkit key must agree.
    assert {key: their_config.get(key) for key in our_config} == our_config
