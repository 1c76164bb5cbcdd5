"""Qwen 2 and Qwen 3 in tfkit.hub against KerasHub: presets both ways, sliding windows, Hugging Face checkpoints.

Tiny random presets made by KerasHub itself (``hub_presets_qwen``: Qwen 2 with query/key/value biases and an
untied output embedding, Qwen 3 with query/key norms and a head size apart from the hidden size, both with a
sliding window of 6 tokens) load in tfkit with KerasHub's numbers, generate KerasHub's greedy ids and text
(past the window), save presets KerasHub loads, and read Transformers checkpoints of the same weights.
"""

import json

import numpy as np
import pytest
from hub_presets import TEXTS
from hub_presets_qwen import WINDOW, keras_hub, qwen3_preset, qwen3_transformers_checkpoint, qwen_preset

import tfkit.hub as tk_hub


def padded(*prompts: list, length: int = 16) -> dict:
    """``prompts``' token ids padded with 0 to ``length``, and their padding mask."""
    token_ids = np.zeros((len(prompts), length), "int32")
    for row, prompt in enumerate(prompts):
        token_ids[row, : len(prompt)] = prompt
    return {"token_ids": token_ids, "padding_mask": token_ids != 0}


# four prompts as long as the preprocessor's sequences, like TEXTS': generate compiles once for the ids and texts
PROMPTS = padded([5, 9, 30, 2, 71], [7, 8], [40, 41, 42, 43, 44, 45, 46, 47], [12])
# family: (preset maker, class name prefix, a token its greedy generation from PROMPTS meets in some row)
NAMES = ("Backbone", "Tokenizer", "CausalLMPreprocessor", "CausalLM")
FAMILIES = {"qwen": (qwen_preset, "Qwen", 150), "qwen3": (qwen3_preset, "Qwen3", 211)}


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def family(request, tmp_path_factory):
    """(name, preset folder, tfkit's CausalLM with its preprocessor, KerasHub's)."""
    make, prefix, _ = FAMILIES[request.param]
    preset = make(str(tmp_path_factory.mktemp(request.param)))
    ours = tk_hub.models.CausalLM.from_preset(preset)
    theirs = keras_hub.models.CausalLM.from_preset(preset)
    ours.compile(sampler="greedy")
    theirs.compile(sampler="greedy", run_eagerly=True)  # faster here than tracing; Qwen 2 must: see the test below
    return prefix, preset, ours, theirs


def test_block_configs_hold_keras_hubs_keys_and_rebuild_the_block(family):
    _, _, ours, theirs = family  # (the preset's numbers and weight paths: test_hub_families)
    # tfkit's blocks are one GatedDecoderBlock: KerasHub's keys, plus the window, head size and biases it declares
    block, reference = ours.backbone.transformer_layers[0], theirs.backbone.transformer_layers[0]
    extra = set(block.get_config()) - set(reference.get_config())
    assert set(reference.get_config()) <= set(block.get_config())
    assert extra <= {"sliding_window", "attention_window", "attention_bias", "head_dim", "layer_norm_epsilon"}
    inputs = np.random.default_rng(0).normal(size=(1, 6, block.hidden_dim)).astype("float32")
    for layer in (block, block._self_attention_layer):
        rebuilt = type(layer).from_config(layer.get_config())
        rebuilt(inputs)
        rebuilt.set_weights(layer.get_weights())
        np.testing.assert_array_equal(rebuilt(inputs), layer(inputs))


def test_the_window_changes_what_follows_it_only(family):
    prefix, _, ours, _ = family
    config = ours.backbone.get_config()
    unwindowed = {"use_sliding_window_attention": False} if prefix == "Qwen" else {"sliding_window_size": None}
    other = type(ours.backbone).from_config({**config, **unwindowed})
    other.set_weights(ours.backbone.get_weights())
    inputs = {"token_ids": np.arange(1, 13)[None].astype("int32"), "padding_mask": np.ones((1, 12), "int32")}
    windowed, full = np.asarray(ours.backbone(inputs)), np.asarray(other(inputs))
    np.testing.assert_allclose(windowed[:, :WINDOW], full[:, :WINDOW], atol=1e-6)
    assert np.abs(windowed[:, WINDOW:] - full[:, WINDOW:]).max() > 1e-3


def test_tokenizer_and_generated_text_equal_keras_hubs(family):
    prefix, _, ours, theirs = family
    tokenizer, reference = ours.preprocessor.tokenizer, theirs.preprocessor.tokenizer
    assert type(tokenizer).__name__ == f"{prefix}Tokenizer" and tokenizer.start_token_id is None
    assert (tokenizer.end_token_id, tokenizer.pad_token_id) == (reference.end_token_id, reference.pad_token_id)
    for text in TEXTS + [f"two{reference.end_token}tokens"]:
        np.testing.assert_array_equal(tokenizer(text), reference(text))
    x, y, weights = ours.preprocessor(TEXTS)
    x_ref, y_ref, weights_ref = theirs.preprocessor(TEXTS)
    for mine, their in ((x["token_ids"], x_ref["token_ids"]), (y, y_ref), (weights, weights_ref)):
        np.testing.assert_array_equal(mine, their)
    stop = (next(token for _, name, token in FAMILIES.values() if name == prefix),)  # a row stops at it
    generated = ours.generate(TEXTS, max_length=16, stop_token_ids=stop)
    assert generated == theirs.generate(TEXTS, max_length=16, stop_token_ids=stop)


def test_score_gives_keras_hubs_losses(family):
    _, _, ours, theirs = family
    targets = np.roll(PROMPTS["token_ids"], -1, axis=1)
    kwargs = {"padding_mask": PROMPTS["padding_mask"], "scoring_mode": "loss", "target_ids": targets}
    np.testing.assert_allclose(
        np.asarray(ours.score(PROMPTS["token_ids"], **kwargs)),
        np.asarray(theirs.score(PROMPTS["token_ids"], **kwargs)),
        atol=1e-4,
    )


@pytest.mark.parametrize("family", ["qwen"], indirect=True)
def test_keras_hubs_windowed_qwen_generates_only_eagerly_where_tfkit_compiles(family):
    """KerasHub 0.32's QwenAttention tests `if cache_update_index` (a tensor) as a Python bool, so its compiled
    generate fails with a sliding window: the Qwen reference here generates eagerly; tfkit's compiles (XLA)."""
    _, _, ours, theirs = family
    reference = keras_hub.models.QwenCausalLM(backbone=theirs.backbone)
    reference.compile(sampler="greedy")
    with pytest.raises(Exception, match="Python `bool`"):
        reference.generate(dict(PROMPTS), stop_token_ids=None)
    assert ours.make_generate_function()._jit_compile  # tfkit compiled (XLA) what KerasHub could not


@pytest.mark.parametrize("family", ["qwen"], indirect=True)
def test_the_transformers_checkpoint_keras_hub_exports_loads_with_the_preset_numbers(family, tmp_path):
    pytest.importorskip("safetensors")
    _, _, ours, theirs = family
    theirs.export_to_transformers(str(tmp_path))  # config.json, model.safetensors, vocab.json, merges.txt
    hf_config = json.loads((tmp_path / "config.json").read_text())
    assert hf_config["model_type"] == "qwen2" and "use_sliding_window" not in hf_config
    with pytest.raises(KeyError, match="use_sliding_window"):  # KerasHub cannot read its own export back
        keras_hub.models.QwenBackbone.from_preset(str(tmp_path))
    # Transformers' Qwen2 configs carry the window; KerasHub's exporter leaves it out, so it is put back here
    hf_config.update(use_sliding_window=True, sliding_window=WINDOW, max_window_layers=0)
    (tmp_path / "config.json").write_text(json.dumps(hf_config))
    causal_lm = tk_hub.models.CausalLM.from_preset(str(tmp_path))  # the tokenizer from vocab.json and merges.txt
    assert type(causal_lm).__name__ == "QwenCausalLM" and not causal_lm.backbone.tie_word_embeddings
    assert causal_lm.backbone.use_sliding_window_attention and causal_lm.backbone.sliding_window_size == WINDOW
    np.testing.assert_allclose(np.asarray(causal_lm(PROMPTS)), np.asarray(theirs(PROMPTS)), atol=1e-5)
    for text in TEXTS:  # vocab.json and merges.txt give the preset's tokenizer
        np.testing.assert_array_equal(causal_lm.preprocessor.tokenizer(text), ours.preprocessor.tokenizer(text))
    mixed = {**hf_config, "max_window_layers": 1}  # Transformers' window from layer 1 on: not a QwenBackbone
    with pytest.raises(ValueError, match=r"a sliding window on layers \[1\] only"):
        tk_hub.models.qwen.qwen_converter.QwenConverter.backbone_config(mixed)


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_a_transformers_qwen3_checkpoint_of_the_same_weights_loads_with_the_same_numbers(family, tmp_path):
    pytest.importorskip("safetensors")
    _, _, ours, theirs = family
    folder = qwen3_transformers_checkpoint(theirs.backbone, theirs.preprocessor.tokenizer, str(tmp_path))
    reference = keras_hub.models.Qwen3Backbone.from_preset(folder)  # KerasHub reads the layout the test wrote
    np.testing.assert_allclose(np.asarray(reference(PROMPTS)), np.asarray(theirs.backbone(PROMPTS)), atol=1e-5)
    causal_lm = tk_hub.models.CausalLM.from_preset(folder)  # the tokenizer from tokenizer.json
    assert type(causal_lm).__name__ == "Qwen3CausalLM" and causal_lm.backbone.sliding_window_size == WINDOW
    np.testing.assert_allclose(np.asarray(causal_lm(PROMPTS)), np.asarray(theirs(PROMPTS)), atol=1e-5)
    tokenizer = causal_lm.preprocessor.tokenizer
    assert sorted(tokenizer.unsplittable_tokens) == ["<|endoftext|>", "<|im_end|>"]
    for text in TEXTS + ["two<|im_end|>tokens"]:
        np.testing.assert_array_equal(tokenizer(text), theirs.preprocessor.tokenizer(text))


def test_qwen3s_query_and_key_norms_use_the_backbones_epsilon():
    arguments = dict(vocabulary_size=8, num_layers=1, num_query_heads=2, num_key_value_heads=1, head_dim=4)
    arguments.update(hidden_dim=8, intermediate_dim=8, layer_norm_epsilon=1e-6)
    ours = tk_hub.models.Qwen3Backbone(**arguments).transformer_layers[0]._self_attention_layer
    theirs = keras_hub.models.Qwen3Backbone(**arguments).transformer_layers[0]._self_attention_layer
    assert ours._query_dense_layer_norm.epsilon == ours._key_dense_layer_norm.epsilon == 1e-6  # Transformers'
    assert theirs._query_dense_layer_norm.epsilon == 1e-5  # KerasHub 0.32 leaves them at the default
