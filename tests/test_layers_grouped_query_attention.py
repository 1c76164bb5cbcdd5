"""GroupQueryAttention: a numpy reference, side by side with Keras 3, Keras's .keras files, masks, h5, fit."""

import numpy as np
import pytest
import tensorflow as tf
from keras3_crosscheck import config_round_trip, fit_once, weight_name

import tfkit
from tfkit import layers

RNG = np.random.RandomState(4)
QUERY = RNG.randn(2, 4, 6).astype("float32")
VALUE = RNG.randn(2, 5, 6).astype("float32")
KEY = RNG.randn(2, 5, 6).astype("float32")


def randomized(layer, *args, **kwargs):
    layer(*args, **kwargs)
    values = [RNG.uniform(-0.5, 0.5, w.shape).astype("float32") for w in layer.weights]
    layer.set_weights(values)
    return values


def numpy_gqa(weights, query, value, key, heads, kv_heads, mask=None):
    """Projections, kv heads repeated per query group, softmax(q k / sqrt(d)) v, output projection (with biases)."""
    qk, qb, kk, kb, vk, vb, ok, ob = weights
    q = np.einsum("bqm,muh->bquh", query, qk) + qb
    k = np.repeat(np.einsum("bkm,mvh->bkvh", key, kk) + kb, heads // kv_heads, axis=2)
    v = np.repeat(np.einsum("bkm,mvh->bkvh", value, vk) + vb, heads // kv_heads, axis=2)
    logits = np.einsum("bquh,bkuh->buqk", q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        logits = np.where(mask[:, None], logits, -1e9)
    probabilities = np.exp(logits - logits.max(-1, keepdims=True))
    probabilities /= probabilities.sum(-1, keepdims=True)
    return np.einsum("bquh,uhm->bqm", np.einsum("buqk,bkuh->bquh", probabilities, v), ok) + ob, probabilities


def test_matches_a_numpy_reference():
    layer = layers.GroupQueryAttention(head_dim=3, num_query_heads=4, num_key_value_heads=2)
    weights = randomized(layer, QUERY, VALUE, key=KEY)
    assert [tuple(w.shape) for w in layer.weights] == [
        (6, 4, 3),
        (4, 3),
        (6, 2, 3),
        (2, 3),
        (6, 2, 3),
        (2, 3),
        (4, 3, 6),
        (6,),
    ]
    mask = RNG.rand(2, 4, 5) > 0.4
    mask[..., 0] = True
    want, want_scores = numpy_gqa(weights, QUERY, VALUE, KEY, 4, 2, mask)
    got, got_scores = layer(QUERY, VALUE, key=KEY, attention_mask=mask, return_attention_scores=True)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_scores.numpy(), want_scores, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer(QUERY, VALUE, key=KEY, attention_mask=mask).numpy(), want, rtol=1e-5, atol=1e-5)
    causal = np.tril(np.ones((4, 5), bool))[None].repeat(2, 0)
    np.testing.assert_allclose(
        layer(QUERY, VALUE, key=KEY, use_causal_mask=True).numpy(),
        numpy_gqa(weights, QUERY, VALUE, KEY, 4, 2, causal)[0],
        rtol=1e-5,
        atol=1e-5,
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(use_gate=True),
        dict(sliding_window=2, use_bias=False),
        dict(num_key_value_heads=1),
        dict(num_key_value_heads=4),
    ],
)
def test_matches_keras(kwargs):
    keras = pytest.importorskip("keras")
    kwargs = {"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 2, **kwargs}
    ours, theirs = layers.GroupQueryAttention(**kwargs), keras.layers.GroupQueryAttention(**kwargs)
    theirs(QUERY, VALUE, key=KEY)
    theirs.set_weights(randomized(ours, QUERY, VALUE, key=KEY))
    assert [(weight_name(w), tuple(w.shape)) for w in ours.weights] == [
        (weight_name(w), tuple(w.shape)) for w in theirs.weights
    ]
    mask = RNG.rand(2, 4, 5) > 0.3
    for call in (
        dict(),
        dict(attention_mask=mask),
        dict(use_causal_mask=True),
        dict(return_attention_scores=True, attention_mask=mask),
        dict(return_attention_scores=True, use_causal_mask=True),
    ):
        got, want = ours(QUERY, VALUE, key=KEY, **call), theirs(QUERY, VALUE, key=KEY, **call)
        for g, w in zip(tf.nest.flatten(got), tf.nest.flatten(want)):
            np.testing.assert_allclose(g.numpy(), keras.ops.convert_to_numpy(w), rtol=1e-5, atol=1e-6)
    config, keras_config = ours.get_config(), theirs.get_config()
    assert set(config) == set(keras_config)
    for key in (
        "head_dim",
        "num_query_heads",
        "num_key_value_heads",
        "use_bias",
        "use_gate",
        "sliding_window",
        "dropout",
        "seed",
        "kernel_regularizer",
        "activity_regularizer",
    ):
        assert config[key] == keras_config[key], key


def test_a_keras_file_imports(tmp_path):
    keras = pytest.importorskip("keras")
    query, value = keras.Input((4, 6)), keras.Input((5, 6))
    attention = keras.layers.GroupQueryAttention(
        head_dim=3, num_query_heads=4, num_key_value_heads=2, use_gate=True, dropout=0.1, seed=3
    )
    source = keras.Model([query, value], keras.layers.Dense(2)(attention(query, value)))
    for w in source.weights:
        w.assign(RNG.uniform(-0.5, 0.5, w.shape).astype("float32"))
    source.save(tmp_path / "gqa.keras")
    source.save_weights(tmp_path / "gqa.weights.h5")
    expected = np.asarray(source.predict([QUERY, VALUE], verbose=0))
    model = tfkit.load_model(tmp_path / "gqa.keras")
    assert type(model.layers[2]) is layers.GroupQueryAttention and model._tfkit_import_report.unmapped == []
    np.testing.assert_allclose(model.predict([QUERY, VALUE], verbose=0), expected, rtol=1e-5, atol=1e-6)
    twin = tfkit.models.clone_model(model)
    twin.load_weights(tmp_path / "gqa.weights.h5")
    np.testing.assert_allclose(twin.predict([QUERY, VALUE], verbose=0), expected, rtol=1e-5, atol=1e-6)


def test_masks_dropout_and_a_functional_model(tmp_path):
    tokens = tfkit.Input((5,), dtype="int32")
    embedded = layers.Embedding(10, 6, mask_zero=True)(tokens)
    attention = layers.GroupQueryAttention(2, 4, 2, dropout=0.5, seed=1, name="gqa")
    model = tfkit.Model(tokens, layers.Dense(1)(layers.GlobalAveragePooling1D()(attention(embedded, embedded))))
    ids = np.array([[3, 4, 0, 0, 0], [1, 2, 3, 4, 5]], "int32")
    x = model.layers[1](ids)
    inference = attention(x, x).numpy()
    np.testing.assert_array_equal(attention(x, x, training=False).numpy(), inference)
    assert not np.allclose(attention(x, x, training=True).numpy(), inference)  # dropout on the scores
    _, scores = attention(x, x, return_attention_scores=True)
    np.testing.assert_array_equal(scores.numpy()[0, :, :, 2:], 0.0)  # the padding is never attended
    compiled = tf.function(lambda t, m: attention(t, t, query_mask=m, value_mask=m))  # masks as arguments
    np.testing.assert_allclose(compiled(tf.constant(x.numpy()), ids > 0).numpy(), inference, rtol=1e-5, atol=1e-6)
    path = str(tmp_path / "gqa.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    assert loaded.get_layer("gqa").get_config() == attention.get_config()
    assert list(loaded.weight_paths()) == list(model.weight_paths())
    np.testing.assert_allclose(loaded.predict(ids, verbose=0), model.predict(ids, verbose=0), rtol=1e-5)
    config_round_trip(attention)
    fit_once(model, np.tile(ids, (2, 1)), np.ones((4, 1), "float32"))


def test_errors_name_the_layer():
    with pytest.raises(
        ValueError,
        match=r"GroupQueryAttention layer 'g' expected `num_query_heads` \(6\) to be a "
        r"multiple of `num_key_value_heads` \(4\)",
    ):
        layers.GroupQueryAttention(2, 6, 4, name="g")
    with pytest.raises(ValueError, match=r"'g': dropout is not supported with flash attention"):
        layers.GroupQueryAttention(2, 4, 2, dropout=0.1, flash_attention=True, name="g")
    flash = layers.GroupQueryAttention(2, 4, 2, flash_attention=True, name="g")
    with pytest.raises(ValueError, match=r"'g': flash attention is not available on TensorFlow"):
        flash(QUERY, VALUE)
    with pytest.raises(ValueError, match=r"'g': attention scores are not available with flash attention"):
        flash(QUERY, VALUE, return_attention_scores=True)
    with pytest.raises(ValueError, match=r"'g': query needs shape \(batch, length, features\)"):
        layers.GroupQueryAttention(2, 4, 2, name="g")(QUERY[0], VALUE[0])
    assert layers.GroupQueryAttention(2, 4, 2).compute_output_shape((None, 4, 6), (None, 5, 6)) == (None, 4, 6)
