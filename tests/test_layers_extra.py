"""Layers Keras code uses beyond the first round: 1-D/3-D reshaping, noise, dot attention, simple norms."""

import numpy as np
import pytest

from tfkit import layers


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype("float32")


# ----------------------------------------------------------------- numpy references


def test_upsampling_padding_cropping_match_numpy():
    x1, x3 = _rand(2, 4, 3), _rand(2, 2, 3, 2, 2)
    np.testing.assert_array_equal(layers.UpSampling1D(3)(x1).numpy(), np.repeat(x1, 3, axis=1))
    got = layers.UpSampling3D((1, 2, 3))(x3).numpy()
    np.testing.assert_array_equal(got, np.repeat(np.repeat(x3, 2, axis=2), 3, axis=3))
    np.testing.assert_array_equal(layers.ZeroPadding1D((1, 2))(x1).numpy(), np.pad(x1, [(0, 0), (1, 2), (0, 0)]))
    got = layers.ZeroPadding3D(((1, 0), 2, (0, 1)))(x3).numpy()
    np.testing.assert_array_equal(got, np.pad(x3, [(0, 0), (1, 0), (2, 2), (0, 1), (0, 0)]))
    got = layers.ZeroPadding3D(1, data_format="channels_first")(x3).numpy()
    np.testing.assert_array_equal(got, np.pad(x3, [(0, 0), (0, 0), (1, 1), (1, 1), (1, 1)]))
    np.testing.assert_array_equal(layers.Cropping1D((1, 2))(x1).numpy(), x1[:, 1:2])
    got = layers.Cropping3D(((1, 0), (0, 1), (1, 0)))(_rand(1, 3, 3, 3, 1)).numpy()
    np.testing.assert_array_equal(got, _rand(1, 3, 3, 3, 1)[:, 1:, :2, 1:])


def test_reshaping_errors_name_the_layer():
    with pytest.raises(ValueError, match="Cropping1D layer 'crop'.*removes 4 of the 4"):
        layers.Cropping1D((2, 2), name="crop")(_rand(1, 4, 1))
    with pytest.raises(ValueError, match="UpSampling3D.*size"):
        layers.UpSampling3D((2, 2))
    with pytest.raises(ValueError, match="expected axis -1 .*ndim=3|rank|ndim"):
        layers.ZeroPadding1D(1)(_rand(2, 3))


def test_unit_and_rms_normalization_match_numpy():
    x = _rand(3, 5)
    norms = np.sqrt((x**2).sum(-1, keepdims=True))
    np.testing.assert_allclose(layers.UnitNormalization()(x).numpy(), x / norms, rtol=1e-5)
    np.testing.assert_allclose(layers.UnitNormalization()(np.zeros((1, 3), "float32")).numpy(), 0.0)
    rms = layers.RMSNormalization(epsilon=1e-6)
    got = rms(x).numpy()
    np.testing.assert_allclose(got, x / np.sqrt((x**2).mean(-1, keepdims=True) + 1e-6), rtol=1e-5)
    assert [w.name.split("/")[-1].split(":")[0] for w in rms.weights] == ["scale"]


def test_attention_matches_numpy_with_masks_and_causality():
    q, v, k = _rand(2, 3, 4, seed=1), _rand(2, 5, 4, seed=2), _rand(2, 5, 4, seed=3)
    value_mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    out, weights = layers.Attention()([q, v, k], mask=[None, value_mask], return_attention_scores=True)
    scores = q @ k.transpose(0, 2, 1)
    scores = np.where(value_mask[:, None, :], scores, scores - 1e9)
    expected_w = np.exp(scores - scores.max(-1, keepdims=True))
    expected_w /= expected_w.sum(-1, keepdims=True)
    np.testing.assert_allclose(weights.numpy(), expected_w, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(out.numpy(), expected_w @ v, rtol=1e-5, atol=1e-6)
    square = _rand(1, 4, 4, seed=4)
    _, causal = layers.Attention()([square, square], use_causal_mask=True, return_attention_scores=True)
    assert np.allclose(np.triu(causal.numpy()[0], 1), 0.0)
    with pytest.raises(ValueError, match="list \\[query, value\\]"):
        layers.Attention()(q)


def test_noise_layers_pass_through_at_inference_and_keep_statistics_in_training():
    x = np.ones((200, 100), "float32")
    for layer in (layers.GaussianDropout(0.3, seed=1), layers.AlphaDropout(0.3, seed=1)):
        np.testing.assert_array_equal(layer(x).numpy(), x)
    noisy = layers.GaussianDropout(0.3, seed=1)(x, training=True).numpy()
    assert abs(noisy.mean() - 1.0) < 0.02 and abs(noisy.std() - np.sqrt(0.3 / 0.7)) < 0.02
    selu_like = _rand(400, 100)
    dropped = layers.AlphaDropout(0.2, seed=3)(selu_like, training=True).numpy()
    assert abs(dropped.mean() - selu_like.mean()) < 0.03 and abs(dropped.std() - selu_like.std()) < 0.05
    maps = layers.SpatialDropout3D(0.5, seed=2)(np.ones((4, 2, 2, 2, 8), "float32"), training=True).numpy()
    per_channel = maps.reshape(4, 8, 8) if False else maps.transpose(0, 4, 1, 2, 3).reshape(4, 8, 8)
    assert all(len(np.unique(channel)) == 1 for sample in per_channel for channel in sample)


# ------------------------------------------------------------- Keras side by side

CASES = [
    ("UpSampling1D", {"size": 2}, [(2, 3, 2)]),
    ("UpSampling3D", {"size": (2, 1, 2)}, [(1, 2, 2, 2, 3)]),
    ("ZeroPadding1D", {"padding": (2, 1)}, [(2, 3, 2)]),
    ("ZeroPadding3D", {"padding": 1}, [(1, 2, 2, 2, 1)]),
    ("Cropping1D", {"cropping": (1, 1)}, [(2, 5, 2)]),
    ("Cropping3D", {"cropping": ((1, 0), (0, 1), (1, 1))}, [(1, 3, 3, 4, 1)]),
    ("UnitNormalization", {"axis": [1, 2]}, [(2, 3, 4)]),
    ("RMSNormalization", {"epsilon": 1e-5}, [(2, 3, 4)]),
    ("Attention", {"use_scale": True, "score_mode": "concat"}, [(2, 3, 4), (2, 5, 4)]),
    ("Attention", {}, [(2, 3, 4), (2, 5, 4), (2, 5, 4)]),
    ("AdditiveAttention", {}, [(2, 3, 4), (2, 5, 4)]),
]


@pytest.mark.parametrize("name, kwargs, shapes", CASES, ids=[c[0] for c in CASES])
def test_matches_keras(name, kwargs, shapes):
    keras = pytest.importorskip("keras")
    inputs = [_rand(*s, seed=i) for i, s in enumerate(shapes)]
    call_input = inputs if len(inputs) > 1 else inputs[0]
    ours, theirs = getattr(layers, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    ours(call_input)
    theirs(call_input)
    for index, weight in enumerate(ours.weights):
        value = np.random.default_rng(10 + index).normal(size=weight.shape).astype("float32")
        weight.assign(value)
        theirs.weights[index].assign(value)
    np.testing.assert_allclose(ours(call_input).numpy(), np.asarray(theirs(call_input)), rtol=1e-5, atol=1e-6)
    ours_config, theirs_config = ours.get_config(), theirs.get_config()
    for key in set(theirs_config) - {"name", "dtype", "trainable"}:
        assert _plain(ours_config[key]) == _plain(theirs_config[key]), key


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def test_attention_masks_and_configs_match_keras():
    keras = pytest.importorskip("keras")
    q, v = _rand(2, 3, 4), _rand(2, 5, 4, seed=1)
    q_mask = np.array([[1, 1, 0], [1, 0, 0]], bool)
    v_mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 0]], bool)
    ours = layers.Attention()([q, v], mask=[q_mask, v_mask], use_causal_mask=True).numpy()
    theirs = np.asarray(keras.layers.Attention()([q, v], mask=[q_mask, v_mask], use_causal_mask=True))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    for name in ("Attention", "AdditiveAttention", "GaussianDropout", "AlphaDropout", "SpatialDropout3D"):
        args = {} if "Attention" in name else {"rate": 0.2}
        ours_config = getattr(layers, name)(**args).get_config()
        theirs_config = getattr(keras.layers, name)(**args).get_config()
        shared = set(theirs_config) - {"name", "dtype", "trainable", "noise_shape"}
        assert shared <= set(ours_config), (name, shared - set(ours_config))
        assert {k: ours_config[k] for k in shared} == {k: theirs_config[k] for k in shared}, name
