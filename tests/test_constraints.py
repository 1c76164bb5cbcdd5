"""tfkit.constraints: projections against numpy, use on variables, lookup and configs."""

import json

import numpy as np
import pytest
import tensorflow as tf

from tfkit import constraints

EPS = 1e-7
W = np.random.default_rng(0).normal(scale=2.0, size=(4, 5))


def np_norms(w, axis):
    return np.sqrt((w**2).sum(axis=axis, keepdims=True))


def test_non_neg_zeroes_negative_entries():
    np.testing.assert_array_equal(constraints.NonNeg()(W).numpy(), np.where(W >= 0, W, 0.0))


@pytest.mark.parametrize("axis", [0, 1, [0, 1]])
def test_max_norm_matches_numpy(axis):
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    norms = np_norms(W, np_axis)
    expected = W * (np.clip(norms, 0.0, 2.0) / (EPS + norms))
    got = constraints.MaxNorm(max_value=2.0, axis=axis)(W).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert (np_norms(got, np_axis) <= 2.0 + 1e-6).all()


def test_max_norm_leaves_small_vectors_alone():
    small = W / 100.0
    np.testing.assert_allclose(constraints.MaxNorm(2.0)(small).numpy(), small, rtol=1e-5)


@pytest.mark.parametrize("rate", [1.0, 0.5, 0.0])
@pytest.mark.parametrize("axis", [0, 1])
def test_min_max_norm_matches_numpy(rate, axis):
    norms = np_norms(W, axis)
    desired = rate * np.clip(norms, 1.5, 3.0) + (1 - rate) * norms
    expected = W * (desired / (EPS + norms))
    got = constraints.MinMaxNorm(min_value=1.5, max_value=3.0, rate=rate, axis=axis)(W).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    if rate == 1.0:
        result_norms = np_norms(got, axis)
        assert (result_norms >= 1.5 - 1e-5).all() and (result_norms <= 3.0 + 1e-5).all()


@pytest.mark.parametrize("axis", [0, 1])
def test_unit_norm_matches_numpy(axis):
    got = constraints.UnitNorm(axis=axis)(W).numpy()
    np.testing.assert_allclose(got, W / (EPS + np_norms(W, axis)), rtol=1e-6)
    np.testing.assert_allclose(np_norms(got, axis), 1.0, rtol=1e-6)


def test_conv_kernel_axes():
    kernel = np.random.default_rng(1).normal(size=(3, 3, 2, 4)).astype(np.float32)
    got = constraints.UnitNorm(axis=[0, 1, 2])(kernel).numpy()
    np.testing.assert_allclose(np_norms(got, (0, 1, 2)).ravel(), np.ones(4), rtol=1e-5)


def test_base_constraint_is_identity_and_dtype_is_kept():
    assert constraints.Constraint()(W) is W
    assert constraints.MaxNorm()(tf.constant(W, dtype=tf.float32)).dtype == tf.float32
    assert constraints.MinMaxNorm()(tf.constant(W)).dtype == tf.float64


def test_constraint_on_a_variable_projects_after_assignment():
    variable = tf.Variable(W, constraint=constraints.get("non_neg"))
    variable.assign(variable.constraint(variable))
    assert (variable.numpy() >= 0).all()


def test_invalid_arguments_raise():
    with pytest.raises(ValueError, match="max_value >= 0"):
        constraints.MaxNorm(-1.0)
    with pytest.raises(ValueError, match="min_value <= max_value"):
        constraints.MinMaxNorm(min_value=2.0, max_value=1.0)
    with pytest.raises(ValueError, match="rate in"):
        constraints.MinMaxNorm(rate=1.5)


# ---------------------------------------------------------- lookup / configs

ALIASES = {
    "non_neg": constraints.NonNeg,
    "max_norm": constraints.MaxNorm,
    "min_max_norm": constraints.MinMaxNorm,
    "unit_norm": constraints.UnitNorm,
}


@pytest.mark.parametrize("alias, cls", sorted(ALIASES.items()))
def test_names_give_default_instances(alias, cls):
    assert type(constraints.get(alias)) is cls
    assert type(constraints.get(cls.__name__)) is cls
    assert getattr(constraints, alias) is cls


def test_defaults_are_keras_defaults():
    assert constraints.MaxNorm().get_config() == {"max_value": 2, "axis": 0}
    assert constraints.MinMaxNorm().get_config() == {"min_value": 0.0, "max_value": 1.0, "rate": 1.0, "axis": 0}
    assert constraints.UnitNorm().get_config() == {"axis": 0}
    assert constraints.NonNeg().get_config() == {}


@pytest.mark.parametrize(
    "constraint",
    [
        constraints.NonNeg(),
        constraints.MaxNorm(3.0, axis=(0, 1)),
        constraints.MinMaxNorm(0.5, 2.0, rate=0.3, axis=1),
        constraints.UnitNorm(axis=1),
    ],
)
def test_round_trip(constraint):
    config = json.loads(json.dumps(constraints.serialize(constraint)))
    assert config["class_name"] == type(constraint).__name__
    rebuilt = constraints.deserialize(config)
    assert type(rebuilt) is type(constraint) and rebuilt.get_config() == constraint.get_config()
    np.testing.assert_allclose(rebuilt(W).numpy(), constraint(W).numpy())


def test_get_passes_none_objects_and_callables_through():
    assert constraints.get(None) is None
    constraint = constraints.UnitNorm()
    assert constraints.get(constraint) is constraint
    assert constraints.get(tf.abs) is tf.abs


def test_unknown_names_raise():
    with pytest.raises(ValueError, match="'maxnorm'") as info:
        constraints.get("maxnorm")
    assert "max_norm" in str(info.value)
    with pytest.raises(ValueError, match="Could not interpret constraint"):
        constraints.get(2)


# ------------------------------------------------- optional Keras cross-check


def test_matches_keras():
    keras = pytest.importorskip("keras")
    w = W.astype(np.float32)
    pairs = [
        (constraints.NonNeg(), keras.constraints.NonNeg()),
        (constraints.MaxNorm(1.5, axis=1), keras.constraints.MaxNorm(1.5, axis=1)),
        (constraints.MinMaxNorm(0.5, 2.0, 0.7, 0), keras.constraints.MinMaxNorm(0.5, 2.0, 0.7, 0)),
        (constraints.UnitNorm(axis=1), keras.constraints.UnitNorm(axis=1)),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours(w).numpy(), np.asarray(theirs(w)), rtol=1e-5, atol=1e-7)
