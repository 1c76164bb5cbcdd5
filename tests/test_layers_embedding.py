"""Embedding and Masking against numpy lookups and masks."""

import numpy as np
import pytest
import tensorflow as tf

from tfkit.engine import masking
from tfkit.layers.embedding import Embedding, Masking
from tfkit.layers.recurrent import LSTM

RNG = np.random.default_rng(3)
TOKENS = np.array([[4, 1, 0, 0], [2, 3, 5, 0]])


def test_lookup_matches_numpy_table():
    layer = Embedding(6, 3)
    layer(TOKENS)
    table = RNG.normal(size=(6, 3)).astype("float32")
    layer.set_weights([table])
    out = layer(TOKENS)
    assert out.dtype == tf.float32 and out.shape == (2, 4, 3)
    np.testing.assert_allclose(out, table[TOKENS])
    # int64 stays an integer tensor; floats are cast to int32 indices.
    np.testing.assert_allclose(layer(tf.constant(TOKENS, tf.int64)), table[TOKENS])
    np.testing.assert_allclose(layer(TOKENS.astype("float32")), table[TOKENS])
    np.testing.assert_allclose(layer(np.array(5)), table[5])


def test_defaults_follow_keras():
    layer = Embedding(50, 8)
    layer(TOKENS)
    values = layer.embeddings.numpy()
    assert values.shape == (50, 8) and values.min() >= -0.05 and values.max() <= 0.05
    assert layer.weight_paths().keys() == {"embeddings"}
    config = layer.get_config()
    assert config["embeddings_initializer"]["class_name"] == "RandomUniform"
    assert config["embeddings_initializer"]["config"]["minval"] == -0.05
    assert config["mask_zero"] is False
    assert masking.get_mask(layer(TOKENS)) is None


def test_mask_zero_and_compute_output_shape():
    layer = Embedding(6, 3, mask_zero=True)
    out = layer(TOKENS)
    np.testing.assert_array_equal(masking.get_mask(out), TOKENS != 0)
    np.testing.assert_array_equal(layer.compute_mask(tf.constant(TOKENS)), TOKENS != 0)
    assert layer.compute_output_shape((None, 4)) == (None, 4, 3)
    assert tuple(out.shape) == (2, 4, 3)


def test_gradient_is_a_scatter_add_of_the_upstream_gradient():
    layer = Embedding(6, 2)
    upstream = RNG.normal(size=(2, 4, 2)).astype("float32")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(TOKENS) * upstream)
    grad = tf.convert_to_tensor(tape.gradient(loss, layer.embeddings))
    expected = np.zeros((6, 2), "float32")
    np.add.at(expected, TOKENS, upstream)
    np.testing.assert_allclose(grad, expected, atol=1e-6)


def test_compiled_equals_eager_and_no_retracing():
    layer = Embedding(6, 3, mask_zero=True)
    eager = layer(TOKENS)
    graph = tf.function(lambda t: layer(t))
    np.testing.assert_allclose(graph(tf.constant(TOKENS)), eager)
    np.testing.assert_allclose(tf.function(lambda t: layer(t), jit_compile=True)(tf.constant(TOKENS)), eager)
    graph(tf.constant(TOKENS[::-1]))
    assert graph.experimental_get_tracing_count() == 1


def test_config_round_trip_weights_regularizer_and_errors():
    table = RNG.normal(size=(6, 2)).astype("float32")
    layer = Embedding(6, 2, mask_zero=True, embeddings_regularizer="l2", weights=[table])
    out = layer(TOKENS)
    np.testing.assert_allclose(out, table[TOKENS])
    np.testing.assert_allclose(float(sum(layer.losses)), 0.01 * np.sum(table**2), rtol=1e-5)
    clone = Embedding.from_config(layer.get_config())
    clone(TOKENS)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(clone(TOKENS), out)
    assert clone.mask_zero and clone.get_config() == layer.get_config()
    with pytest.raises(ValueError, match="input_dim"):
        Embedding(0, 2)
    with pytest.raises(ValueError, match="output_dim"):
        Embedding(3, 2.5)
    with pytest.raises(ValueError, match=r"\(6, 3\)"):
        Embedding(6, 3, weights=[table])


# ------------------------------------------------------------------ Masking


def test_masking_zeroes_masked_steps_and_sets_the_mask():
    x = RNG.normal(size=(2, 4, 3)).astype("float32")
    x[0, 2:] = -1.0
    x[1, 1] = -1.0
    x[1, 3, 0] = -1.0  # only one feature equals mask_value: not masked
    layer = Masking(mask_value=-1.0)
    out = layer(x)
    keep = np.any(x != -1.0, axis=-1)
    np.testing.assert_array_equal(masking.get_mask(out), keep)
    np.testing.assert_allclose(out, x * keep[..., None])
    assert layer.compute_output_shape((None, 4, 3)) == (None, 4, 3)
    assert Masking.from_config(layer.get_config()).mask_value == -1.0
    np.testing.assert_allclose(tf.function(lambda v: layer(v), jit_compile=True)(x), out)
    with pytest.raises(ValueError, match="mask_value"):
        Masking("zero")


def test_masking_feeds_a_recurrent_layer():
    x = RNG.normal(size=(2, 4, 3)).astype("float32")
    x[0, 3] = 0.0
    lstm = LSTM(2)
    masked = lstm(Masking()(x))
    np.testing.assert_allclose(masked, lstm(x, mask=np.any(x != 0, axis=-1)), atol=1e-6)
    np.testing.assert_allclose(masked[0], lstm(x[:1, :3])[0], atol=1e-6)
