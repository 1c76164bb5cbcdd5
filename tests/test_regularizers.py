"""tfkit.regularizers: penalties against numpy, the guide's l2(1e-3), lookup and configs."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import regularizers

W = np.array([[0.5, -1.0, 2.0], [-0.25, 0.0, 3.0]], dtype=np.float32)


def test_l1_l2_and_l1l2_match_numpy():
    w = W.astype(np.float64)
    np.testing.assert_allclose(regularizers.L1(0.3)(W).numpy(), 0.3 * np.abs(w).sum(), rtol=1e-6)
    np.testing.assert_allclose(regularizers.L2(0.3)(W).numpy(), 0.3 * (w**2).sum(), rtol=1e-6)
    np.testing.assert_allclose(
        regularizers.L1L2(l1=0.1, l2=0.2)(W).numpy(), 0.1 * np.abs(w).sum() + 0.2 * (w**2).sum(), rtol=1e-6
    )
    assert regularizers.L1L2()(W).numpy() == 0.0


def test_defaults_are_keras_defaults():
    assert regularizers.L1().get_config() == {"l1": 0.01}
    assert regularizers.L2().get_config() == {"l2": 0.01}
    assert regularizers.L1L2().get_config() == {"l1": 0.0, "l2": 0.0}
    assert regularizers.OrthogonalRegularizer().get_config() == {"factor": 0.01, "mode": "rows"}


def test_penalty_is_a_scalar_in_the_weight_dtype():
    value = regularizers.L2(1e-3)(tf.constant(W, dtype=tf.float64))
    assert value.shape == () and value.dtype == tf.float64


def test_guide_usage_l2_returns_an_l2_object():
    reg = tfkit.regularizers.l2(1e-3)
    assert isinstance(reg, regularizers.L2) and reg.l2 == 1e-3
    assert isinstance(regularizers.l1(0.5), regularizers.L1)
    assert isinstance(regularizers.l1_l2(l1=0.1, l2=0.2), regularizers.L1L2)


def _np_orthogonal(w, factor, mode):
    vectors = w if mode == "rows" else w.T
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    product = vectors @ vectors.T
    n = product.shape[0]
    off_diagonal = np.abs(product * (1.0 - np.eye(n))).sum()
    return factor * 0.5 * off_diagonal / (n * (n - 1) / 2.0)


@pytest.mark.parametrize("mode", ["rows", "columns"])
def test_orthogonal_regularizer_matches_numpy(mode):
    w = np.random.default_rng(1).normal(size=(4, 6))
    got = regularizers.OrthogonalRegularizer(factor=0.5, mode=mode)(tf.constant(w)).numpy()
    np.testing.assert_allclose(got, _np_orthogonal(w, 0.5, mode), rtol=1e-6)


def test_orthogonal_regularizer_is_zero_for_orthogonal_rows():
    assert regularizers.OrthogonalRegularizer(factor=1.0)(3.0 * np.eye(4)).numpy() == pytest.approx(0.0)


def test_invalid_arguments_raise():
    with pytest.raises(ValueError, match="l2 to be a non-negative number, got -1"):
        regularizers.L2(-1)
    with pytest.raises(ValueError, match="l1"):
        regularizers.L1("big")
    with pytest.raises(ValueError, match="'rows' or 'columns'"):
        regularizers.OrthogonalRegularizer(mode="diagonal")
    with pytest.raises(ValueError, match="2-D weight"):
        regularizers.OrthogonalRegularizer()(tf.ones((2, 2, 2)))


def test_layer_losses_include_the_weight_penalty():
    layer = tfkit.Layer()
    w = layer.add_weight(shape=(2, 3), initializer="ones", regularizer="l2")
    assert len(layer.losses) == 1
    np.testing.assert_allclose(layer.losses[0].numpy(), 0.01 * 6.0, rtol=1e-6)
    assert w.shape == (2, 3)


# ---------------------------------------------------------- lookup / configs

ALIASES = {
    "l1": regularizers.L1,
    "l2": regularizers.L2,
    "l1_l2": regularizers.L1L2,
    "orthogonal_regularizer": regularizers.OrthogonalRegularizer,
}


@pytest.mark.parametrize("alias, cls", sorted(ALIASES.items()))
def test_names_give_default_instances(alias, cls):
    assert type(regularizers.get(alias)) is cls
    assert type(regularizers.get(cls.__name__)) is cls


@pytest.mark.parametrize(
    "reg",
    [
        regularizers.L1(0.2),
        regularizers.L2(1e-3),
        regularizers.L1L2(l1=0.1, l2=0.3),
        regularizers.OrthogonalRegularizer(factor=0.2, mode="columns"),
    ],
)
def test_round_trip(reg):
    config = json.loads(json.dumps(regularizers.serialize(reg)))
    assert config["class_name"] == type(reg).__name__
    rebuilt = regularizers.deserialize(config)
    assert type(rebuilt) is type(reg) and rebuilt.get_config() == reg.get_config()
    np.testing.assert_allclose(rebuilt(W).numpy(), reg(W).numpy())


def test_serialize_l2_from_the_guide():
    assert regularizers.serialize(regularizers.l2(1e-3)) == {"class_name": "L2", "config": {"l2": 1e-3}}


def test_get_passes_none_objects_and_callables_through():
    assert regularizers.get(None) is None
    reg = regularizers.L1()
    assert regularizers.get(reg) is reg

    def total(x):
        return tf.reduce_sum(x)

    assert regularizers.get(total) is total


def test_unknown_names_raise():
    with pytest.raises(ValueError, match="'l3'") as info:
        regularizers.get("l3")
    assert "l1_l2" in str(info.value)
    with pytest.raises(ValueError, match="Could not interpret regularizer"):
        regularizers.get(0.5)


# ------------------------------------------------- optional Keras cross-check


def test_matches_keras():
    keras = pytest.importorskip("keras")
    w = np.random.default_rng(2).normal(size=(5, 3)).astype(np.float32)
    pairs = [
        (regularizers.L1(0.2), keras.regularizers.L1(0.2)),
        (regularizers.L2(0.2), keras.regularizers.L2(0.2)),
        (regularizers.L1L2(0.1, 0.3), keras.regularizers.L1L2(0.1, 0.3)),
        (regularizers.OrthogonalRegularizer(0.3, "rows"), keras.regularizers.OrthogonalRegularizer(0.3, "rows")),
        (regularizers.OrthogonalRegularizer(0.3, "columns"), keras.regularizers.OrthogonalRegularizer(0.3, "columns")),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours(w).numpy(), np.asarray(theirs(tf.constant(w))), rtol=1e-5)
        # Keras stores its factors through float32 (0.2 -> 0.20000000298...).
        _assert_configs_match(ours.get_config(), theirs.get_config())


def _assert_configs_match(ours: dict, theirs: dict) -> None:
    """Same keys; numbers equal within float32 rounding, everything else exactly."""
    assert ours.keys() == theirs.keys()
    for key, value in ours.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            assert value == pytest.approx(theirs[key], rel=1e-6), key
        else:
            assert value == theirs[key], key
