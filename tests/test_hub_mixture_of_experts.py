"""The mixture-of-experts families' quirks (Mixtral, Qwen 3 MoE) in tfkit.hub against KerasHub.

Each family's preset, greedy ids, presets both ways, Transformers checkpoint and training step are rows of
``test_hub_families``; here is what only a mixture of experts has: decoding reads only the chosen experts (its
sums equal KerasHub's, which computes every expert), training adds each expert block's load-balancing loss as
KerasHub does, and a checkpoint's per-expert tensors are sized together by the loading budget.
"""

import json
import os

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import keras, keras_hub
from hub_presets_mixtral import mixtral_preset, mixtral_transformers_checkpoint
from hub_presets_qwen3_moe import (
    qwen3_moe_preset,
    qwen3_moe_transformers_checkpoint,
    qwen_moe_preset,
    qwen_moe_transformers_checkpoint,
)

import tfkit.hub as tk_hub
from tfkit.hub.layers import mixture_of_experts

PROMPT = {"token_ids": np.array([[1, 26, 48, 43, 0, 0, 0, 0, 0, 0]], "int32")}
PROMPT["padding_mask"] = (PROMPT["token_ids"] != 0).astype("int32")
FAMILIES = {  # name: (preset maker, checkpoint writer, the config field of the expert count, expert blocks)
    "Mixtral": (mixtral_preset, mixtral_transformers_checkpoint, "num_local_experts", 2),
    "QwenMoe": (qwen_moe_preset, qwen_moe_transformers_checkpoint, "num_experts", 2),
    "Qwen3Moe": (qwen3_moe_preset, qwen3_moe_transformers_checkpoint, "num_experts", 2),
}


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def models(request, tmp_path_factory):
    preset = FAMILIES[request.param][0](str(tmp_path_factory.mktemp(request.param)))
    ours = tk_hub.models.CausalLM.from_preset(preset)
    theirs = keras_hub.models.CausalLM.from_preset(preset)
    return request.param, preset, ours, theirs


def test_the_chosen_experts_alone_give_every_experts_sum():
    rng = np.random.default_rng(0)
    gate, up = (tf.constant(rng.normal(size=(8, 6, 10)), tf.float32) for _ in range(2))
    down = tf.constant(rng.normal(size=(8, 10, 6)), tf.float32)
    for tokens in (1, 3, 5):
        x = tf.constant(rng.normal(size=(tokens, 6)), tf.float32)
        weights, experts = mixture_of_experts.route(tf.constant(rng.normal(size=(tokens, 8)), tf.float32), top_k=2)
        arguments = (x, gate, up, down, weights, experts, tf.nn.silu)
        every = mixture_of_experts._every_expert(*arguments)
        np.testing.assert_allclose(mixture_of_experts._gathered(*arguments), every, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(mixture_of_experts.gated_experts(*arguments), every, rtol=1e-5, atol=1e-5)


def test_the_balancing_loss_is_keras_hubs_with_and_without_padding():
    from keras_hub.src.models.mixtral.mixtral_decoder import compute_load_balancing_loss

    logits = np.random.default_rng(1).normal(size=(12, 4)).astype("float32")
    mask = np.array([[1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0]], "int32")
    for padding in (None, mask):
        ours = mixture_of_experts.load_balancing_loss(tf.constant(logits), 4, 2, padding)
        theirs = compute_load_balancing_loss(keras.ops.convert_to_tensor(logits), 4, 2, padding)
        np.testing.assert_allclose(float(ours), float(theirs), rtol=1e-6)


def test_training_adds_each_expert_blocks_balancing_loss_as_keras_hub_does(models):
    family, _, ours, theirs = models
    full = {"token_ids": np.arange(1, 11)[None].astype("int32"), "padding_mask": np.ones((1, 10), "int32")}
    # KerasHub 0.32's Qwen MoE families hand the loss their 3-D attention mask, not the padding mask: with padding
    # its loss counts padded tokens' routes; tfkit's counts real tokens only, so padded prompts compare for Mixtral
    for inputs in (full, PROMPT) if family == "Mixtral" else (full,):
        ours.backbone(inputs, training=True)
        theirs.backbone(inputs, training=True)
        losses = sorted(float(loss) for loss in ours.backbone.losses)
        assert len(losses) == FAMILIES[family][3] and all(loss > 0 for loss in losses)
        np.testing.assert_allclose(losses, sorted(float(loss) for loss in theirs.backbone.losses), rtol=1e-5)
    ours.backbone(PROMPT, training=False)
    assert not ours.backbone.losses  # inference adds none


def test_one_prompt_decodes_through_the_chosen_experts_with_keras_hubs_greedy_ids(models, monkeypatch):
    family, _, ours, theirs = models
    gathered = []
    original = mixture_of_experts._gathered
    monkeypatch.setattr(mixture_of_experts, "_gathered", lambda *args: gathered.append(1) or original(*args))
    ids_ours = getattr(tk_hub.models, f"{family}CausalLM")(backbone=ours.backbone, preprocessor=None)
    ids_theirs = getattr(keras_hub.models, f"{family}CausalLM")(backbone=theirs.backbone, preprocessor=None)
    ids_ours.compile(sampler="greedy")
    ids_theirs.compile(sampler="greedy", run_eagerly=True)
    # one token a step and 2 of 4 experts: decoding takes the gathered path, the prompt pass every expert
    np.testing.assert_array_equal(
        ids_ours.generate(PROMPT, stop_token_ids=None)["token_ids"],
        ids_theirs.generate(PROMPT, stop_token_ids=None)["token_ids"],
    )
    assert len(gathered) == FAMILIES[family][3]  # traced once an expert block, in the decoding step


def test_a_checkpoint_claiming_more_experts_than_it_stores_is_refused(models, tmp_path):
    family, preset, _, theirs = models
    folder = FAMILIES[family][1](preset, theirs, str(tmp_path / "hf"))
    config_path = os.path.join(folder, "config.json")
    config = json.loads(open(config_path).read())
    config[FAMILIES[family][2]] = 64
    with open(config_path, "w") as handle:
        json.dump(config, handle)
    with pytest.raises(ValueError, match="expert_feedforward_gate_dense.*more than the largest array stored"):
        getattr(tk_hub.models, f"{family}Backbone").from_preset(folder)


def test_the_qwen_moe_families_dense_layers_read_their_mlp_from_a_checkpoint(models, tmp_path):
    family, preset, ours, theirs = models
    if family == "Mixtral":
        pytest.skip("Mixtral has experts in every layer")
    source = theirs
    if family == "QwenMoe":  # KerasHub's Qwen MoE cannot hold a dense layer (hub_presets_qwen3_moe): tfkit's can
        config = {**ours.backbone.get_config(), "num_layers": 3, "mlp_only_layers": [1]}
        source = tk_hub.models.QwenMoeCausalLM(tk_hub.models.QwenMoeBackbone.from_config(config), ours.preprocessor)
    folder = FAMILIES[family][1](preset, source, str(tmp_path / "hf"))
    loaded = getattr(tk_hub.models, f"{family}Backbone").from_preset(folder)
    assert [block.is_sparse_mlp for block in loaded.transformer_layers] == [True, False, True]
    np.testing.assert_allclose(loaded(PROMPT), source.backbone(PROMPT), atol=1e-5)
    # KerasHub 0.32's converters read experts in every layer, so they cannot load this checkpoint
    with pytest.raises(Exception, match="mlp.gate.weight|use_sliding_window"):
        getattr(keras_hub.models, f"{family}Backbone").from_preset(folder)
