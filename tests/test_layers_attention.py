"""MultiHeadAttention against softmax(Q K^T / sqrt(d)) V written out in numpy."""

import json

import numpy as np
import pytest
import tensorflow as tf

from tfkit.engine import masking
from tfkit.layers.attention import MultiHeadAttention
from tfkit.layers.embedding import Embedding

RNG = np.random.default_rng(5)
QUERY = RNG.normal(size=(2, 4, 6)).astype("float32")
VALUE = RNG.normal(size=(2, 3, 5)).astype("float32")
KEY = RNG.normal(size=(2, 3, 7)).astype("float32")
HEADS, KEY_DIM = 2, 3


def np_attention(weights, query, value, key=None, mask=None, key_dim=KEY_DIM):
    """Returns (output, scores); ``mask`` is (batch, T, S) booleans or None."""
    wq, bq, wk, bk, wv, bv, wo, bo = weights
    key = value if key is None else key
    q = np.einsum("btd,dnh->btnh", query, wq) + bq
    k = np.einsum("bsd,dnh->bsnh", key, wk) + bk
    v = np.einsum("bsd,dnh->bsnh", value, wv) + bv
    logits = np.einsum("btnh,bsnh->bnts", q, k) / np.sqrt(key_dim)
    if mask is not None:
        logits = np.where(mask[:, None], logits, -1e9)
    scores = np.exp(logits - logits.max(-1, keepdims=True))
    scores /= scores.sum(-1, keepdims=True)
    if mask is not None:
        scores = np.where(mask[:, None], scores, 0.0)
    heads = np.einsum("bnts,bsnh->btnh", scores, v)
    return np.einsum("btnh,nho->bto", heads, wo) + bo, scores


def randomized(layer, *args, **kwargs):
    layer(*args, **kwargs)
    values = [RNG.normal(scale=0.5, size=w.shape).astype(w.dtype.as_numpy_dtype) for w in layer.weights]
    layer.set_weights(values)
    return values


def test_cross_attention_with_a_separate_key_matches_numpy():
    layer = MultiHeadAttention(HEADS, KEY_DIM)
    weights = randomized(layer, QUERY, VALUE, key=KEY)
    out, scores = layer(QUERY, VALUE, key=KEY, return_attention_scores=True)
    want, want_scores = np_attention(weights, QUERY, VALUE, KEY)
    np.testing.assert_allclose(out, want, atol=1e-5)
    np.testing.assert_allclose(scores, want_scores, atol=1e-6)
    assert scores.shape == (2, HEADS, 4, 3) and out.shape == QUERY.shape
    assert layer.compute_output_shape((None, 4, 6), (None, 3, 5), (None, 3, 7)) == (None, 4, 6)


def test_keras_weight_structure():
    layer = MultiHeadAttention(HEADS, KEY_DIM, value_dim=4, output_shape=8)
    out = layer(QUERY, VALUE)
    assert out.shape == (2, 4, 8) and layer.compute_output_shape((None, 4, 6), (None, 3, 5)) == (None, 4, 8)
    assert {path: tuple(w.shape) for path, w in layer.weight_paths().items()} == {
        "query_dense/kernel": (6, HEADS, KEY_DIM),
        "query_dense/bias": (HEADS, KEY_DIM),
        "key_dense/kernel": (5, HEADS, KEY_DIM),
        "key_dense/bias": (HEADS, KEY_DIM),
        "value_dense/kernel": (5, HEADS, 4),
        "value_dense/bias": (HEADS, 4),
        "output_dense/kernel": (HEADS, 4, 8),
        "output_dense/bias": (8,),
    }
    assert len(MultiHeadAttention(HEADS, KEY_DIM, use_bias=False)(QUERY, VALUE).shape) == 3


def test_attention_mask_and_causal_mask():
    layer = MultiHeadAttention(HEADS, KEY_DIM)
    weights = randomized(layer, QUERY, QUERY)
    attention_mask = RNG.random((2, 4, 4)) > 0.4
    attention_mask[:, :, 0] = True  # every query sees at least one key
    causal = np.tril(np.ones((4, 4), bool))[None]
    out = layer(QUERY, QUERY, attention_mask=attention_mask)
    np.testing.assert_allclose(out, np_attention(weights, QUERY, QUERY, mask=attention_mask)[0], atol=1e-5)
    out, scores = layer(QUERY, QUERY, use_causal_mask=True, return_attention_scores=True)
    np.testing.assert_allclose(out, np_attention(weights, QUERY, QUERY, mask=np.repeat(causal, 2, 0))[0], atol=1e-5)
    np.testing.assert_allclose(np.triu(scores.numpy(), k=1), 0.0)
    both = layer(QUERY, QUERY, attention_mask=attention_mask, use_causal_mask=True)
    np.testing.assert_allclose(both, np_attention(weights, QUERY, QUERY, mask=attention_mask & causal)[0], atol=1e-5)


def test_masks_carried_by_query_and_value():
    tokens_q = np.array([[1, 2, 3, 0], [4, 0, 0, 0]])
    tokens_v = np.array([[5, 6, 0], [7, 8, 9]])
    embed_q, embed_v = Embedding(10, 6, mask_zero=True), Embedding(10, 5, mask_zero=True)
    query, value = embed_q(tokens_q), embed_v(tokens_v)
    layer = MultiHeadAttention(HEADS, KEY_DIM)
    weights = randomized(layer, query, value)
    out = layer(query, value)
    mask = (tokens_q != 0)[:, :, None] & (tokens_v != 0)[:, None, :]
    np.testing.assert_allclose(out, np_attention(weights, query.numpy(), value.numpy(), mask=mask)[0], atol=1e-5)
    np.testing.assert_array_equal(masking.get_mask(out), tokens_q != 0)
    explicit = layer(query.numpy(), value.numpy(), query_mask=tokens_q != 0, value_mask=tokens_v != 0)
    np.testing.assert_allclose(explicit, out, atol=1e-6)


def test_gradients_match_finite_differences():
    query, value = QUERY[:1, :2, :3].astype("float64"), VALUE[:1, :2, :2].astype("float64")
    layer = MultiHeadAttention(2, 2, dtype="float64")
    weights = [w.astype("float64") for w in randomized(layer, query, value)]
    mask = np.array([[[True, True], [True, False]]])
    upstream = RNG.normal(size=(1, 2, 3))

    def np_loss(ws):
        return float(np.sum(np_attention(ws, query, value, mask=mask, key_dim=2)[0] * upstream))

    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(query, value, attention_mask=mask) * upstream)
    grads = tape.gradient(loss, layer.trainable_weights)
    eps = 1e-6
    for index, (grad, weight) in enumerate(zip(grads, weights)):
        numeric = np.zeros_like(weight)
        for position in np.ndindex(weight.shape):
            for sign in (1, -1):
                bumped = [w.copy() for w in weights]
                bumped[index][position] += sign * eps
                numeric[position] += sign * np_loss(bumped) / (2 * eps)
        np.testing.assert_allclose(grad, numeric, atol=1e-7)


def test_dropout_only_when_training():
    layer = MultiHeadAttention(HEADS, KEY_DIM, dropout=0.5, seed=1)
    inference, scores = layer(QUERY, VALUE, return_attention_scores=True)
    np.testing.assert_allclose(layer(QUERY, VALUE, training=False), inference)
    trained, trained_scores = layer(QUERY, VALUE, training=True, return_attention_scores=True)
    assert not np.allclose(trained, inference)
    np.testing.assert_allclose(trained_scores, scores, atol=1e-6)  # scores are reported before dropout


def test_compiled_equals_eager_and_config_round_trip():
    layer = MultiHeadAttention(HEADS, KEY_DIM, value_dim=2, output_shape=(3,), kernel_initializer="he_normal")
    weights = randomized(layer, QUERY, VALUE)
    eager = layer(QUERY, VALUE, use_causal_mask=True)
    graph = tf.function(lambda q, v: layer(q, v, use_causal_mask=True))
    np.testing.assert_allclose(graph(QUERY, VALUE), eager, atol=1e-6)
    np.testing.assert_allclose(
        tf.function(lambda q, v: layer(q, v, use_causal_mask=True), jit_compile=True)(QUERY, VALUE), eager, atol=1e-5
    )
    graph(QUERY + 1, VALUE)
    assert graph.experimental_get_tracing_count() == 1
    longer = tf.function(
        lambda q, v: layer(q, v), input_signature=[tf.TensorSpec((None, None, 6)), tf.TensorSpec((None, None, 5))]
    )
    assert longer(QUERY[:, :2], VALUE).shape == (2, 2, 3)
    clone = MultiHeadAttention.from_config(layer.get_config())
    clone(QUERY, VALUE)
    clone.set_weights(weights)
    np.testing.assert_allclose(clone(QUERY, VALUE, use_causal_mask=True), eager, atol=1e-6)
    assert clone.get_config() == layer.get_config()
    assert json.loads(json.dumps(layer.get_config())) == layer.get_config()


def test_clear_errors():
    with pytest.raises(ValueError, match="num_heads"):
        MultiHeadAttention(0, 2)
    with pytest.raises(ValueError, match="key_dim"):
        MultiHeadAttention(2, None)
    with pytest.raises(ValueError, match="dropout"):
        MultiHeadAttention(2, 2, dropout=1.5)
    with pytest.raises(ValueError, match="value and key"):
        MultiHeadAttention(2, 2)(QUERY, VALUE, key=KEY[:, :2])
    layer = MultiHeadAttention(2, 2)
    layer(QUERY, VALUE)
    with pytest.raises(ValueError, match="multi_head_attention"):
        layer(QUERY[..., :3], VALUE)


def test_matches_keras():
    keras = pytest.importorskip("keras")
    mask = RNG.random((2, 4, 3)) > 0.3
    mask[:, :, 0] = True
    for kwargs in ({}, {"value_dim": 2, "output_shape": 4}):
        ours, theirs = (
            MultiHeadAttention(HEADS, KEY_DIM, **kwargs),
            keras.layers.MultiHeadAttention(HEADS, KEY_DIM, **kwargs),
        )
        theirs(QUERY, VALUE, key=KEY)
        theirs.set_weights(randomized(ours, QUERY, VALUE, key=KEY))
        got, got_scores = ours(QUERY, VALUE, key=KEY, attention_mask=mask, return_attention_scores=True)
        want, want_scores = theirs(QUERY, VALUE, key=KEY, attention_mask=mask, return_attention_scores=True)
        np.testing.assert_allclose(got, np.asarray(want), atol=1e-5)
        np.testing.assert_allclose(got_scores, np.asarray(want_scores), atol=1e-6)
    grid = RNG.normal(size=(2, 3, 4, 5)).astype("float32")  # attention over two axes
    ours, theirs = (
        MultiHeadAttention(HEADS, KEY_DIM, attention_axes=(1, 2)),
        keras.layers.MultiHeadAttention(HEADS, KEY_DIM, attention_axes=(1, 2)),
    )
    theirs(grid, grid)
    theirs.set_weights(randomized(ours, grid, grid))
    np.testing.assert_allclose(ours(grid, grid), np.asarray(theirs(grid, grid)), atol=1e-5)
