"""`project_heads_together`: the query, key and value projections as one product under XLA, equal to the three.

The attention layers of the decoder families (GPT-2's `CachedMultiHeadAttention`, the grouped-query
attention of Llama, Mistral, Qwen and Qwen 3, Gemma's) take the joined product inside XLA compilation: each
is checked against its own eager call (the three layers called one by one), with and without a cache.
"""

import numpy as np
import pytest
import tensorflow as tf

import tfkit.hub as keras_hub
from tfkit.hub.layers.fused_projections import project_heads_together
from tfkit.layers import EinsumDense


def _projections(equation, heads, bias_axes, dim=16, head_dim=4, seed=0):
    denses = []
    for index, count in enumerate(heads):
        shape = (None, count, head_dim)
        dense = EinsumDense(equation, shape, bias_axes=bias_axes, bias_initializer="random_normal")
        tf.random.set_seed(seed + index)
        dense.build((None, None, dim))
        denses.append(dense)
    return denses


def _xla(function, *args):
    return tf.function(function, jit_compile=True)(*args)


@pytest.mark.parametrize(
    "equation, bias_axes, heads",
    [
        ("abc,cde->abde", "de", (4, 4, 4)),  # GPT-2's MultiHeadAttention projections, with biases
        ("bqm,muh->bquh", None, (4, 2, 2)),  # grouped-query attention: fewer key/value heads, no bias
        ("btd,ndh->btnh", None, (4, 1, 1)),  # Gemma: kernels of (heads, dim, head_dim)
    ],
)
@pytest.mark.parametrize("rows", [1, 5])
def test_joined_product_equals_each_projection(equation, bias_axes, heads, rows):
    denses = _projections(equation, heads, bias_axes)
    x = tf.random.stateless_normal((2, rows, 16), seed=(1, 2))
    joined = _xla(lambda x: project_heads_together(denses, x), x)
    assert [tuple(part.shape) for part in joined] == [(2, rows, count, 4) for count in heads]
    for part, dense in zip(joined, denses):
        np.testing.assert_allclose(part.numpy(), dense(x).numpy(), rtol=1e-5, atol=1e-5)


def test_outside_xla_each_layer_is_called():
    denses = _projections("abc,cde->abde", (2, 2), "de")
    x = tf.ones((1, 1, 16))
    assert project_heads_together(denses, x) is None
    assert tf.function(lambda x: project_heads_together(denses, x) is None)(x)  # a graph without XLA


@pytest.mark.parametrize(
    "change, why",
    [
        (lambda dense: dense.enable_lora(2), "LoRA"),
        (lambda dense: setattr(dense, "activation", tf.nn.relu), "an activation"),
        (lambda dense: setattr(dense, "equation", "abc,cd->abd"), "another equation"),
    ],
)
def test_a_layer_that_is_not_a_plain_projection_is_not_joined(change, why):
    denses = _projections("abc,cde->abde", (2, 2), "de")
    change(denses[1])
    assert _xla(lambda x: tf.constant(project_heads_together(denses, x) is None), tf.ones((1, 1, 16))), why


def test_different_head_sizes_or_a_missing_bias_are_not_joined():
    x = tf.ones((1, 1, 16))
    wide, narrow = _projections("abc,cde->abde", (2,), "de", head_dim=4) + _projections(
        "abc,cde->abde", (2,), "de", head_dim=8
    )
    assert _xla(lambda x: tf.constant(project_heads_together([wide, narrow], x) is None), x)
    with_bias, without = _projections("abc,cde->abde", (2,), "de") + _projections("abc,cde->abde", (2,), None)
    assert _xla(lambda x: tf.constant(project_heads_together([with_bias, without], x) is None), x)
    mixed = _projections("abc,cde->abde", (2, 2), "de")
    assert _xla(lambda x: tf.constant(project_heads_together(mixed, tf.cast(x, tf.float64)) is None), x)


def _count_einsum_dense_calls(monkeypatch):
    calls = []
    original = EinsumDense.call

    def counted(self, inputs):
        calls.append(self.name)
        return original(self, inputs)

    monkeypatch.setattr(EinsumDense, "call", counted)
    return calls


def _attention_layers():
    mha = keras_hub.layers.CachedMultiHeadAttention(num_heads=2, key_dim=4)
    mha.build((None, None, 8), (None, None, 8))
    llama = keras_hub.models.LlamaBackbone(
        vocabulary_size=11, num_layers=1, num_query_heads=4, num_key_value_heads=2, hidden_dim=8, intermediate_dim=16
    )
    gemma = keras_hub.models.GemmaBackbone(
        vocabulary_size=11,
        num_layers=1,
        num_query_heads=2,
        num_key_value_heads=1,
        hidden_dim=8,
        intermediate_dim=16,
        head_dim=4,
    )
    return {
        "gpt2": (mha, lambda x, **kw: mha(x, x, **kw)),
        "llama": (llama.transformer_layers[0]._self_attention_layer, None),
        "gemma": (gemma.transformer_layers[0].attention, None),
    }


@pytest.mark.parametrize("family", ["gpt2", "llama", "gemma"])
def test_attention_layers_join_their_projections_under_xla_and_match_eager(family, monkeypatch):
    layer, call = _attention_layers()[family]
    if call is None:
        call = layer if family != "gemma" else (lambda x, **kw: layer(x, **kw))
    x = tf.random.stateless_normal((2, 3, 8), seed=(3, 4))
    heads, dim = (2, 4) if family == "gpt2" else (2, 2) if family == "llama" else (1, 4)
    cache = (tf.zeros((2, 5, heads, dim)), tf.zeros((2, 5, heads, dim)))
    eager_out, eager_cache = call(x, cache=cache, cache_update_index=1)
    calls = _count_einsum_dense_calls(monkeypatch)
    xla_out, xla_cache = _xla(lambda x, k, v: call(x, cache=(k, v), cache_update_index=1), x, *cache)
    np.testing.assert_allclose(xla_out.numpy(), eager_out.numpy(), rtol=1e-5, atol=1e-5)
    for got, want in zip(xla_cache, eager_cache):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    assert len(calls) == 1, f"only the output projection is an EinsumDense call under XLA, got {calls}"
