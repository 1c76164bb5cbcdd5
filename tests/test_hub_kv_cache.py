"""Key/value caches: KerasHub's stacked tensor and generate's per-layer pairs give the same numbers.

References are independent of the code under test: the full sequence without a
cache, and grouped-query attention written in numpy with each key/value head
repeated for its group of query heads (as KerasHub computes it).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tfkit.hub as tk_hub
from tfkit.hub.models import prefill

IDS = np.array([[5, 9, 2, 7, 1, 3], [4, 4, 8, 6, 2, 11]], "int32")


def causal_lms() -> dict[str, tk_hub.models.CausalLM]:
    tf.random.set_seed(0)
    gpt2 = tk_hub.models.GPT2Backbone(
        vocabulary_size=13, num_layers=2, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=16
    )
    llama = tk_hub.models.Llama3Backbone(
        vocabulary_size=13, num_layers=2, num_query_heads=4, num_key_value_heads=2, hidden_dim=8, intermediate_dim=16
    )
    gemma = tk_hub.models.GemmaBackbone(
        vocabulary_size=13, num_layers=2, num_query_heads=2, num_key_value_heads=1, hidden_dim=8,
        intermediate_dim=16, head_dim=4,
    )  # fmt: skip
    return {
        "gpt2": tk_hub.models.GPT2CausalLM(gpt2),
        "llama": tk_hub.models.Llama3CausalLM(llama),
        "gemma": tk_hub.models.GemmaCausalLM(gemma),
    }


@pytest.fixture(scope="module")
def models() -> dict[str, tk_hub.models.CausalLM]:
    return causal_lms()


def stacked_cache(model: tk_hub.models.CausalLM) -> tf.Tensor:
    """KerasHub's layout, built from the per-layer pairs the model's `_build_cache` makes."""
    _, pairs = model._build_cache(tf.zeros_like(IDS))
    return tf.zeros_like(tf.stack([tf.stack(pair, axis=1) for pair in pairs], axis=1))


@pytest.mark.parametrize("name", ["gpt2", "llama", "gemma"])
def test_both_cache_forms_decode_like_the_full_sequence(models, name):
    model = models[name]
    full = np.asarray(model({"token_ids": IDS, "padding_mask": np.ones_like(IDS)}))  # every position, no cache
    pairs = tuple((tf.zeros_like(k), tf.zeros_like(v)) for k, v in model._build_cache(IDS)[1])
    stacked = stacked_cache(model)
    for position in range(IDS.shape[1]):
        step = IDS[:, position : position + 1]
        pair_logits, _, pairs = model.call_with_cache(step, pairs, position)
        stacked_logits, _, stacked = model.call_with_cache(step, stacked, position)
        np.testing.assert_allclose(np.asarray(pair_logits)[:, 0], full[:, position], atol=1e-5)
        np.testing.assert_allclose(np.asarray(stacked_logits)[:, 0], full[:, position], atol=1e-5)
    assert isinstance(pairs, tuple) and len(pairs) == 2 and isinstance(stacked, tf.Tensor)
    np.testing.assert_array_equal(np.asarray(stacked), np.stack([np.stack(p, axis=1) for p in pairs], axis=1))


@pytest.mark.parametrize("name", ["gpt2", "llama", "gemma"])
def test_generate_keeps_a_pair_per_layer_and_matches_uncompiled_ids(models, name):
    model = models[name]
    hidden_states, cache = model._build_cache(IDS)
    assert len(cache) == 2 and all(len(pair) == 2 for pair in cache)
    assert cache[0][0].shape[:2] == IDS.shape
    prompt = {
        "token_ids": np.pad(IDS[:, :3], [(0, 0), (0, 5)]),
        "padding_mask": np.pad(np.ones((2, 3), bool), [(0, 0), (0, 5)]),
    }
    model.compile(sampler="greedy")
    compiled = model.generate(prompt, stop_token_ids=None)
    model.compile(sampler="greedy", jit_compile=False)
    eager = model.generate(prompt, stop_token_ids=None)
    np.testing.assert_array_equal(np.asarray(compiled["token_ids"]), np.asarray(eager["token_ids"]))


@pytest.mark.parametrize("name", ["gpt2", "llama", "gemma"])
def test_a_prompt_pass_over_the_shortest_prompts_bucket_generates_the_same_ids(models, name):
    model = models[name]
    model.compile(sampler="greedy")
    lengths = np.array([3, 6])  # ragged: decoding starts after 3 tokens, the second row keeps its prompt
    ids = np.where(np.arange(14)[None, :] < lengths[:, None], np.arange(1, 15)[None, :] % 13, 0).astype("int32")
    prompt = {"token_ids": ids, "padding_mask": ids > 0}
    assert prefill.prefill_length(prompt["padding_mask"], 14) == 8
    whole = model.generate_step(tf.nest.map_structure(tf.constant, prompt), stop_token_ids=None)  # all 14
    bucketed = model.generate(prompt, stop_token_ids=None)  # the compiled program, 8 positions
    np.testing.assert_array_equal(bucketed["token_ids"], np.asarray(whole["token_ids"]))
    np.testing.assert_array_equal(bucketed["token_ids"][1, :6], ids[1, :6])
    hidden_states, cache = model._build_cache(tf.constant(ids), prefill_length=8)
    assert hidden_states.shape[1] == 14 and cache[0][0].shape[1] == 14  # KerasHub's shapes, zeros past 8
    np.testing.assert_array_equal(np.asarray(hidden_states)[:, 8:], 0)


def numpy_grouped_attention(query, key, value, mask):
    """Scores with every key/value head repeated for its query heads, softmax over keys, weighted values."""
    groups = query.shape[2] // key.shape[2]
    key, value = np.repeat(key, groups, axis=2), np.repeat(value, groups, axis=2)
    scores = np.einsum("bquh,bkuh->buqk", query, key) / np.sqrt(query.shape[-1])
    scores = np.where(mask[:, None], scores, -1e9)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return np.einsum("buqk,bkuh->bquh", weights, value)


def test_grouped_query_attention_equals_repeated_heads_in_numpy(models):
    attention = models["llama"].backbone.transformer_layers[0]._self_attention_layer
    rng = np.random.default_rng(0)
    query = rng.standard_normal((2, 3, 4, 2)).astype("float32")
    key = rng.standard_normal((2, 5, 2, 2)).astype("float32")
    value = rng.standard_normal((2, 5, 2, 2)).astype("float32")
    mask = np.tril(np.ones((3, 5), bool), k=2)[None].repeat(2, axis=0)
    ours = attention._attend(tf.constant(query), tf.constant(key), tf.constant(value), tf.constant(mask))
    np.testing.assert_allclose(np.asarray(ours), numpy_grouped_attention(query, key, value, mask), atol=1e-5)


def counted_steps(model, monkeypatch) -> list[int]:
    """The update index of each `call_with_cache` call `generate` makes from now on (run eagerly: one call a step)."""
    calls = []
    original = model.call_with_cache

    def counting(token_ids, cache, cache_update_index):
        calls.append(int(cache_update_index))
        return original(token_ids, cache, cache_update_index)

    monkeypatch.setattr(model, "call_with_cache", counting)
    return calls


@pytest.mark.parametrize("name", ["gpt2", "llama", "gemma"])
def test_the_first_token_comes_from_the_prompt_pass_without_another_pass(models, name, monkeypatch):
    model = models[name]
    model.compile(sampler="greedy", run_eagerly=True)
    prompt = {"token_ids": np.pad(IDS[:, :3], [(0, 0), (0, 3)]), "padding_mask": np.arange(6)[None, :] < [[3], [3]]}
    full = np.asarray(model({"token_ids": IDS[:, :3], "padding_mask": np.ones((2, 3), bool)}))
    calls = counted_steps(model, monkeypatch)
    generated = model.generate(prompt, stop_token_ids=None)["token_ids"]
    assert calls == [0, 3, 4]  # the prompt pass, then positions 3 and 4 (position 2's pass is the prompt pass's)
    np.testing.assert_array_equal(generated[:, 3], full[:, 2].argmax(axis=-1))  # the first token
    monkeypatch.undo()
    model.compile(sampler="greedy")
    np.testing.assert_array_equal(np.asarray(model.generate(prompt, stop_token_ids=None)["token_ids"]), generated)


def test_a_model_with_its_own_call_with_cache_takes_every_step_from_it(models, monkeypatch):
    class Hooked(tk_hub.models.GPT2CausalLM):
        def call_with_cache(self, token_ids, cache, cache_update_index):
            return super().call_with_cache(token_ids, cache, cache_update_index)

    model = Hooked(models["gpt2"].backbone)
    model.compile(sampler="greedy", run_eagerly=True)
    calls = counted_steps(model, monkeypatch)
    prompt = {"token_ids": np.pad(IDS[:, :3], [(0, 0), (0, 2)]), "padding_mask": np.arange(5)[None, :] < [[3], [3]]}
    model.generate(prompt, stop_token_ids=None)
    assert calls == [0, 2, 3]  # its logits may differ from the library's: the last prompt position is passed again
