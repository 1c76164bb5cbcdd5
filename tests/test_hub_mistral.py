"""Mistral in tfkit.hub against KerasHub: presets both ways, the sliding window, Hugging Face checkpoints.

A tiny random Mistral preset (SentencePiece tokenizer, a sliding window of 5 tokens) is made by KerasHub
itself (``hub_presets_mistral``); tfkit loads it and must compute KerasHub's numbers, generate the same
greedy ids and text (past the window, so the cached steps see it too), save presets KerasHub loads, and
read the Hugging Face checkpoint KerasHub exports of the same weights.
"""

import json
import os

import numpy as np
import pytest
from hub_presets import TEXTS
from hub_presets_mistral import keras_hub, mistral_preset

import tfkit.hub as tk_hub

PROMPTS = {
    "token_ids": np.array([[1, 26, 48, 43, 47, 0, 0, 0, 0, 0, 0, 0], [1, 39, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]], "int32"),
    "padding_mask": np.array([[1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]], "int32"),
}


@pytest.fixture(scope="module")
def preset(tmp_path_factory):
    return mistral_preset(str(tmp_path_factory.mktemp("mistral_preset")))


@pytest.fixture(scope="module")
def text_models(preset):
    ours = tk_hub.models.CausalLM.from_preset(preset)
    theirs = keras_hub.models.CausalLM.from_preset(preset)
    for model in (ours, theirs):
        model.compile(sampler="greedy")
    return ours, theirs


@pytest.fixture(scope="module")
def id_models(text_models):
    """The same models without preprocessors: token ids in, token ids out."""
    ours, theirs = text_models
    ids_ours = tk_hub.models.MistralCausalLM(backbone=ours.backbone, preprocessor=None)
    ids_theirs = keras_hub.models.MistralCausalLM(backbone=theirs.backbone, preprocessor=None)
    for model in (ids_ours, ids_theirs):
        model.compile(sampler="greedy")
    return ids_ours, ids_theirs


def test_every_block_has_the_presets_sliding_window(text_models):
    backbone = text_models[0].backbone  # (KerasHub's numbers: test_hub_families)
    assert backbone.sliding_window == 5
    assert [block.sliding_window for block in backbone.transformer_layers] == [5, 5]  # the blocks' masks apply it


def test_the_blocks_hold_keras_hubs_config_keys_and_weight_paths(text_models):
    ours, theirs = text_models
    block, reference = ours.backbone.transformer_layers[0], theirs.backbone.transformer_layers[0]
    # one GatedDecoderBlock for every Llama-style family: KerasHub's keys plus the ones it declares
    extra = set(block.get_config()) - set(reference.get_config())
    assert set(reference.get_config()) <= set(block.get_config())
    assert extra <= {"attention_window", "attention_bias"}
    assert [w.path for w in ours.backbone.weights] == [w.path for w in theirs.backbone.weights]
    assert [tuple(w.shape) for w in ours.backbone.weights] == [tuple(w.shape) for w in theirs.backbone.weights]


def test_generation_with_a_cache_equals_the_full_forward_pass_with_its_window(id_models):
    ours, _ = id_models
    generated = ours.generate(dict(PROMPTS), stop_token_ids=None)["token_ids"]
    logits = np.asarray(ours({"token_ids": generated, "padding_mask": np.ones_like(generated)}))
    for row, start in ((0, 5), (1, 2)):  # each new token is the argmax after the (windowed) tokens before it
        np.testing.assert_array_equal(generated[row, start:], logits[row, start - 1 : -1].argmax(-1))
    unwindowed = tk_hub.models.MistralBackbone.from_config({**ours.backbone.get_config(), "sliding_window": None})
    unwindowed.set_weights(ours.backbone.get_weights())
    inputs = {"token_ids": generated, "padding_mask": np.ones_like(generated)}
    hidden = np.asarray(ours.backbone(inputs))
    full = np.asarray(unwindowed(inputs))
    np.testing.assert_allclose(hidden[:, :5], full[:, :5], atol=1e-6)  # the window changes nothing before 5 tokens
    assert np.abs(hidden[:, 5:] - full[:, 5:]).max() > 1e-3  # and everything after


def test_the_tokenizers_special_ids_and_the_preprocessor_equal_keras_hubs(text_models):
    ours, theirs = text_models
    assert isinstance(ours.preprocessor, tk_hub.models.MistralCausalLMPreprocessor)
    tokenizer = ours.preprocessor.tokenizer
    assert (tokenizer.start_token_id, tokenizer.end_token_id, tokenizer.pad_token_id) == (1, 2, 0)
    x, y, weights = ours.preprocessor(TEXTS)  # (tokens and generated text: test_hub_families)
    x_ref, y_ref, weights_ref = theirs.preprocessor(TEXTS)
    np.testing.assert_array_equal(x["token_ids"], x_ref["token_ids"])
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(weights, weights_ref)


def test_score_gives_keras_hubs_logits_and_losses(text_models):
    ours, theirs = text_models
    targets = np.roll(PROMPTS["token_ids"], -1, axis=1)
    for mode in ("logits", "loss"):
        kwargs = {"padding_mask": PROMPTS["padding_mask"], "scoring_mode": mode, "target_ids": targets}
        np.testing.assert_allclose(
            np.asarray(ours.score(PROMPTS["token_ids"], **kwargs)),
            np.asarray(theirs.score(PROMPTS["token_ids"], **kwargs)),
            atol=1e-4,
        )
    with pytest.raises(ValueError, match="target_ids"):
        ours.score(PROMPTS["token_ids"], scoring_mode="loss")


def test_a_whole_task_saved_to_a_preset_loads_in_keras_hub_with_the_same_numbers(text_models, tmp_path):
    ours, _ = text_models
    ours.save_to_preset(str(tmp_path))
    assert sorted(os.listdir(tmp_path / "assets" / "tokenizer")) == ["vocabulary.spm"]
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["registered_name"] == "keras_hub>MistralBackbone" and config["config"]["sliding_window"] == 5
    theirs = keras_hub.models.CausalLM.from_preset(str(tmp_path))
    assert type(theirs).__name__ == "MistralCausalLM"
    np.testing.assert_allclose(np.asarray(theirs(PROMPTS)), np.asarray(ours(PROMPTS)), atol=1e-5)
    assert theirs.preprocessor.sequence_length == ours.preprocessor.sequence_length == 16
    np.testing.assert_array_equal(theirs.preprocessor.tokenizer(TEXTS[0]), ours.preprocessor.tokenizer(TEXTS[0]))


def test_the_hugging_face_checkpoint_keras_hub_exports_loads_at_full_precision(text_models, tmp_path):
    pytest.importorskip("safetensors")
    _, theirs = text_models
    theirs.export_to_transformers(str(tmp_path))  # KerasHub's own writer of Transformers checkpoints
    hf_config = json.loads((tmp_path / "config.json").read_text())
    assert hf_config["model_type"] == "mistral" and hf_config["sliding_window"] == 5
    assert os.path.exists(tmp_path / "tokenizer.model")
    causal_lm = tk_hub.models.CausalLM.from_preset(str(tmp_path))  # the tokenizer from tokenizer.model
    assert isinstance(causal_lm, tk_hub.models.MistralCausalLM)
    # KerasHub's reader rounds every tensor to float16; tfkit keeps the checkpoint's float32 values.
    np.testing.assert_array_equal(causal_lm.backbone.get_weights()[1], theirs.backbone.get_weights()[1])
    np.testing.assert_allclose(np.asarray(causal_lm(PROMPTS)), np.asarray(theirs(PROMPTS)), atol=1e-5)


def test_checkpoint_weights_of_the_wrong_shape_are_refused_naming_the_tensor(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    hf = {
        "model_type": "mistral",
        "vocab_size": 8,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "hidden_size": 4,
        "intermediate_size": 8,
        "num_key_value_heads": 1,
        "rms_norm_eps": 1e-6,
        "rope_theta": 10000.0,
        "sliding_window": None,
    }
    (tmp_path / "config.json").write_text(json.dumps(hf))
    backbone = tk_hub.models.MistralBackbone(
        **tk_hub.models.mistral.mistral_converter.MistralConverter.backbone_config(hf)
    )
    assert backbone.sliding_window is None and backbone.head_dim is None
    tensors = {"model.embed_tokens.weight": np.zeros((8, 5), "float32")}
    safetensors_numpy.save_file(tensors, str(tmp_path / "model.safetensors"))
    with pytest.raises(ValueError, match=r"lacks .* tensors"):
        tk_hub.models.Backbone.from_preset(str(tmp_path))
