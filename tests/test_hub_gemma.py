"""Gemma and Gemma 2 in tfkit.hub against KerasHub: presets both ways, Hugging Face checkpoints, logits, greedy ids.

A tiny random Gemma 2-style preset (grouped queries, post-norms, attention and final soft caps, a sliding
window) is made by KerasHub itself (``hub_presets_gemma``); tfkit loads it and must compute KerasHub's
numbers, generate the same greedy ids and texts, save presets and weight files KerasHub loads, and read the
Transformers checkpoints of the same weights (``gemma``: the one KerasHub exports; ``gemma2``: written here
in Transformers' documented layout, and read by KerasHub's own converter as the reference). Generation is
compared without XLA (KerasHub's and tfkit's ``jit_compile=False``) to keep the file fast; one test runs
tfkit's XLA-compiled cache against the full forward pass.
"""

import json
import os

import numpy as np
import pytest
from hub_presets import TEXTS, keras, keras_hub
from hub_presets_gemma import gemma1_causal_lm, gemma_preset, transformers_tensors

import tfkit.hub as tk_hub
from tfkit.hub.models.gemma.gemma_attention import CachedGemmaAttention
from tfkit.hub.models.gemma.gemma_decoder_block import GemmaDecoderBlock

PROMPTS = {
    "token_ids": np.array([[5, 9, 30, 2, 0, 0, 0, 0, 0, 0], [7, 8, 0, 0, 0, 0, 0, 0, 0, 0]], "int32"),
    "padding_mask": np.array([[1, 1, 1, 1, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]], "int32"),
}


@pytest.fixture(scope="module")
def preset(tmp_path_factory):
    return gemma_preset(str(tmp_path_factory.mktemp("gemma_preset")))


@pytest.fixture(scope="module")
def reference(preset):
    model = keras_hub.models.GemmaCausalLM.from_preset(preset, preprocessor=None)
    model.compile(sampler="greedy", jit_compile=False)
    return model


@pytest.fixture(scope="module")
def causal_lm(preset):
    model = tk_hub.models.CausalLM.from_preset(preset, preprocessor=None)
    model.compile(sampler="greedy", jit_compile=False)
    return model


def test_the_final_soft_cap_bounds_the_logits(causal_lm):
    logits = np.asarray(causal_lm(PROMPTS))  # (equal to KerasHub's: test_hub_families)
    assert np.abs(logits).max() <= 3.0


def test_xla_generation_with_a_cache_equals_the_full_forward_pass(preset):
    causal_lm = tk_hub.models.GemmaCausalLM.from_preset(preset, preprocessor=None)  # compiled with XLA
    generated = causal_lm.generate(dict(PROMPTS), stop_token_ids=None)["token_ids"]
    logits = np.asarray(causal_lm({"token_ids": generated, "padding_mask": np.ones_like(generated)}))
    for row, start in ((0, 4), (1, 2)):  # each new token is the argmax after the tokens before it
        np.testing.assert_array_equal(generated[row, start:], logits[row, start - 1 : -1].argmax(-1))


def test_score_gives_keras_hubs_logits_and_losses(reference, causal_lm):
    ids = PROMPTS["token_ids"]
    targets = np.roll(ids, -1, axis=1)
    np.testing.assert_allclose(causal_lm.score(ids), reference.score(ids), atol=1e-4)
    ours = causal_lm.score(ids, scoring_mode="loss", target_ids=targets)
    np.testing.assert_allclose(ours, reference.score(ids, scoring_mode="loss", target_ids=targets), atol=1e-4)
    with pytest.raises(ValueError, match="needs target_ids"):
        causal_lm.score(ids, scoring_mode="loss")


def test_weight_files_go_both_ways_between_keras_hub_and_tfkit(reference, causal_lm, tmp_path):
    path = str(tmp_path / "theirs.weights.h5")
    reference.backbone.save_weights(path)
    ours = tk_hub.models.GemmaBackbone(**{k: v for k, v in reference.backbone.get_config().items() if k != "dtype"})
    ours.load_weights(path)
    np.testing.assert_allclose(np.asarray(ours(PROMPTS)), np.asarray(reference.backbone(PROMPTS)), atol=1e-5)
    path = str(tmp_path / "ours.weights.h5")
    causal_lm.backbone.save_weights(path)
    theirs = keras_hub.models.GemmaBackbone.from_config(reference.backbone.get_config())
    theirs.load_weights(path)
    np.testing.assert_allclose(np.asarray(theirs(PROMPTS)), np.asarray(causal_lm.backbone(PROMPTS)), atol=1e-5)


def _attention_reference(layer, x, mask):
    """Gemma's attention in numpy: rotary positions, grouped queries, soft cap, sliding window, no-key rows 0."""
    query = np.einsum("btd,ndh->btnh", x, layer.query_dense.kernel.numpy())
    key = np.einsum("btd,ndh->btnh", x, layer.key_dense.kernel.numpy())
    value = np.einsum("btd,ndh->btnh", x, layer.value_dense.kernel.numpy())

    def rotate(t):  # rotary embedding on (first half, second half); the same pair order for queries and keys
        half = t.shape[-1] // 2
        angle = np.arange(t.shape[1])[:, None] * 10000.0 ** (-np.arange(half) * 2 / t.shape[-1])
        cos, sin = np.cos(angle)[None, :, None], np.sin(angle)[None, :, None]
        first, second = t[..., :half], t[..., half:]
        return np.concatenate([first * cos - second * sin, second * cos + first * sin], axis=-1)

    query, key = rotate(query), rotate(key)
    groups = layer.num_query_heads // layer.num_key_value_heads
    key, value = np.repeat(key, groups, axis=2), np.repeat(value, groups, axis=2)
    scale = layer.head_dim if layer.query_head_dim_normalize else x.shape[-1] // layer.num_query_heads
    logits = np.einsum("btnh,bsnh->bnts", query, key) / np.sqrt(scale)
    if layer.logit_soft_cap:
        logits = np.tanh(logits / layer.logit_soft_cap) * layer.logit_soft_cap
    positions = np.arange(x.shape[1])
    allowed = mask.astype(bool)
    if layer.use_sliding_window_attention:
        allowed &= np.abs(positions[:, None] - positions[None, :]) < layer.sliding_window_size
    logits = np.where(allowed[:, None], logits, -1e9)
    probabilities = np.exp(logits - logits.max(-1, keepdims=True)) * allowed[:, None]
    probabilities /= np.maximum(probabilities.sum(-1, keepdims=True), 1e-30)
    attended = np.einsum("bnts,bsnh->btnh", probabilities, value)
    return np.einsum("btnh,nhd->btd", attended, layer.output_dense.kernel.numpy())


@pytest.mark.parametrize("query_head_dim_normalize", [True, False])
def test_attention_equals_a_numpy_reference_with_soft_cap_window_and_either_query_scale(query_head_dim_normalize):
    # KerasHub's decoder block always scales by head_dim (a bug for Gemma 2 27B); tfkit honours the argument
    layer = CachedGemmaAttention(
        head_dim=4,
        num_query_heads=4,
        num_key_value_heads=2,
        logit_soft_cap=2.0,
        use_sliding_window_attention=True,
        sliding_window_size=2,
        query_head_dim_normalize=query_head_dim_normalize,
    )
    x = np.random.default_rng(0).normal(size=(2, 5, 24)).astype("float32")
    mask = np.tril(np.ones((5, 5), "int32"))[None].repeat(2, axis=0)
    mask[1, :, 3:] = 0  # padding
    mask[1, 3:] = 0  # and rows with no key to attend to
    np.testing.assert_allclose(layer(x, attention_mask=mask), _attention_reference(layer, x, mask), atol=1e-5)
    block = GemmaDecoderBlock(8, 16, 4, 2, 1, query_head_dim_normalize=False)
    assert block.attention.query_head_dim_normalize is False


def test_the_gemma_checkpoint_keras_hub_exports_loads_with_the_same_numbers_and_text(preset, tmp_path):
    pytest.importorskip("safetensors")
    keras.utils.set_random_seed(3)
    exported = gemma1_causal_lm(keras_hub.models.GemmaTokenizer.from_preset(preset))  # what KerasHub exports
    backbone = exported.backbone
    exported.export_to_transformers(str(tmp_path))
    assert json.loads((tmp_path / "config.json").read_text())["model_type"] == "gemma"
    ours = tk_hub.models.Backbone.from_preset(str(tmp_path))
    np.testing.assert_allclose(np.asarray(ours(PROMPTS)), np.asarray(backbone(PROMPTS)), atol=1e-5)
    causal_lm = tk_hub.models.CausalLM.from_preset(str(tmp_path))  # the tokenizer from tokenizer.model
    assert type(causal_lm.preprocessor.tokenizer).__name__ == "GemmaTokenizer"
    causal_lm.compile(sampler="greedy", jit_compile=False)
    exported.compile(sampler="greedy", jit_compile=False)
    assert causal_lm.generate(TEXTS, max_length=12) == exported.generate(TEXTS, max_length=12)


def test_a_gemma2_checkpoint_in_transformers_layout_loads_as_keras_hubs_converter_reads_it(reference, tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    backbone = reference.backbone
    hf_config = {
        "model_type": "gemma2",
        "architectures": ["Gemma2ForCausalLM"],
        "vocab_size": backbone.vocabulary_size,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_query_heads,
        "num_key_value_heads": backbone.num_key_value_heads,
        "hidden_size": backbone.hidden_dim,
        "intermediate_size": backbone.intermediate_dim // 2,
        "head_dim": backbone.head_dim,
        "query_pre_attn_scalar": backbone.head_dim,
        "attn_logit_softcapping": 5.0,
        "final_logit_softcapping": 3.0,
        "sliding_window": 3,
        "rms_norm_eps": 1e-6,
    }
    (tmp_path / "config.json").write_text(json.dumps(hf_config))
    safetensors_numpy.save_file(transformers_tensors(backbone), str(tmp_path / "model.safetensors"))
    ours = tk_hub.models.GemmaBackbone.from_preset(str(tmp_path))
    theirs = keras_hub.models.GemmaBackbone.from_preset(str(tmp_path))  # KerasHub's own converter
    # the auto name depends on how many backbones each framework built before (the test order)
    unnamed = {"name": None, "dtype": None}
    assert {**ours.get_config(), **unnamed} == {**theirs.get_config(), **unnamed}
    np.testing.assert_allclose(np.asarray(ours(PROMPTS)), np.asarray(theirs(PROMPTS)), atol=1e-5)
    np.testing.assert_allclose(np.asarray(ours(PROMPTS)), np.asarray(backbone(PROMPTS)), atol=1e-5)


@pytest.fixture(scope="module")
def text_models(preset):
    ours = tk_hub.models.CausalLM.from_preset(preset)
    theirs = keras_hub.models.CausalLM.from_preset(preset)
    for model in (ours, theirs):
        model.compile(sampler="greedy", jit_compile=False)
    return ours, theirs


def test_from_preset_brings_the_tokenizer_and_preprocessor_and_generates_keras_hubs_text(text_models):
    ours, theirs = text_models
    assert type(ours.preprocessor).__name__ == "GemmaCausalLMPreprocessor"
    tokenizer = ours.preprocessor.tokenizer
    assert (tokenizer.start_token_id, tokenizer.end_token_id, tokenizer.pad_token_id) == (2, 1, 0)
    for text in ["<start_of_turn>user ünïcödé 😀<end_of_turn>"]:  # (TEXTS: test_hub_families)
        np.testing.assert_array_equal(tokenizer(text), theirs.preprocessor.tokenizer(text))
    assert ours.generate(TEXTS[2], max_length=10) == theirs.generate(TEXTS[2], max_length=10)  # one string in, one out


def test_a_whole_task_saved_to_a_preset_loads_in_keras_hub_and_generates_the_same(text_models, tmp_path):
    ours, _ = text_models
    ours.save_to_preset(str(tmp_path))
    assert "vocabulary.spm" in os.listdir(tmp_path / "assets" / "tokenizer")
    theirs = keras_hub.models.CausalLM.from_preset(str(tmp_path))  # (its numbers: test_hub_families)
    assert type(theirs.preprocessor.tokenizer).__name__ == "GemmaTokenizer"
    text = "<start_of_turn>user ünïcödé 😀<end_of_turn>"
    np.testing.assert_array_equal(theirs.preprocessor.tokenizer(text), ours.preprocessor.tokenizer(text))
