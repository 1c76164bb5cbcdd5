"""ReversibleEmbedding: tied and untied projections by hand and side by side with Keras 3, masks, h5, fit."""

import numpy as np
import pytest
import tensorflow as tf
from keras3_crosscheck import config_round_trip, copy_keras_weights, fit_once, perturb

import tfkit
from tfkit import layers
from tfkit.base import registry


def test_reverse_is_the_transposed_table_by_hand():
    layer = layers.ReversibleEmbedding(3, 2)
    layer.build(None)
    layer.embeddings.assign([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    np.testing.assert_allclose(layer(tf.constant([[2, 0]])).numpy(), [[[1.0, 1.0], [1.0, 0.0]]])
    logits = layer(tf.constant([[0.5, -1.0]]), reverse=True).numpy()
    np.testing.assert_allclose(logits, [[0.5, -2.0, -0.5]])
    capped = layers.ReversibleEmbedding(3, 2, logit_soft_cap=1.0)
    capped.build(None)
    capped.embeddings.assign(layer.embeddings)
    np.testing.assert_allclose(capped(tf.constant([[0.5, -1.0]]), reverse=True).numpy(), np.tanh(logits), rtol=1e-6)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(tie_weights=False),
        dict(logit_soft_cap=2.0, mask_zero=True),
        dict(tie_weights=False, reverse_dtype="float64"),
    ],
)
def test_matches_keras(kwargs):
    keras = pytest.importorskip("keras")
    theirs, ours = keras.layers.ReversibleEmbedding(7, 4, **kwargs), layers.ReversibleEmbedding(7, 4, **kwargs)
    theirs.build(None)
    ours.build(None)
    perturb(theirs)
    copy_keras_weights(theirs, ours)
    ids = np.array([[1, 0, 6], [3, 3, 0]])
    np.testing.assert_allclose(ours(ids).numpy(), keras.ops.convert_to_numpy(theirs(ids)), rtol=1e-6)
    hidden = np.random.RandomState(0).randn(2, 3, 4).astype("float32")
    expected = keras.ops.convert_to_numpy(theirs(hidden, reverse=True))
    got = ours(hidden, reverse=True).numpy()
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    config, keras_config = ours.get_config(), theirs.get_config()
    for key in ("input_dim", "output_dim", "tie_weights", "reverse_dtype", "logit_soft_cap", "mask_zero"):
        assert config[key] == keras_config[key], key


def test_mask_only_on_the_forward_call():
    layer = layers.ReversibleEmbedding(5, 2, mask_zero=True)
    ids = tf.constant([[1, 0, 3]])
    np.testing.assert_array_equal(layer.compute_mask(ids).numpy(), [[True, False, True]])
    assert layer.compute_mask(layer(ids)) is None


def test_functional_model_with_tied_logits_saves_and_fits(tmp_path):
    ids = tfkit.Input((5,), dtype="int32")
    embedding = layers.ReversibleEmbedding(11, 4, tie_weights=False, logit_soft_cap=3.0, name="tokens")
    hidden = layers.Dense(4, activation="tanh")(embedding(ids))
    model = tfkit.Model(ids, embedding(hidden, reverse=True))
    assert model.output_shape == (None, 5, 11)
    assert [w.name.split(":")[0].split("/")[-1] for w in embedding.weights] == ["embeddings", "reverse_embeddings"]
    rng = np.random.RandomState(0)
    data = rng.randint(0, 11, (4, 5)).astype("int32")
    path = str(tmp_path / "model.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    np.testing.assert_allclose(loaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-6)
    assert type(loaded.get_layer("tokens")) is layers.ReversibleEmbedding
    assert loaded.get_layer("tokens").get_config() == embedding.get_config()
    config_round_trip(embedding)
    assert registry.lookup("layers", "ReversibleEmbedding") is layers.ReversibleEmbedding
    fit_once(model, data, data, loss=tfkit.losses.SparseCategoricalCrossentropy(from_logits=True))


def test_errors_name_the_layer():
    with pytest.raises(ValueError, match=r"ReversibleEmbedding layer 'emb' expected `logit_soft_cap`.*got -1"):
        layers.ReversibleEmbedding(4, 2, logit_soft_cap=-1, name="emb")
    layer = layers.ReversibleEmbedding(4, 2, name="emb")
    with pytest.raises(ValueError, match=r"'emb' called with reverse=True expected .*output_dim=2, got shape \(1, 3\)"):
        layer(tf.ones((1, 3)), reverse=True)
