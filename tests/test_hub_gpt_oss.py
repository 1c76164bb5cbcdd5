"""GPT-OSS beyond its conformance row: MXFP4 experts, Transformers' windowed layers, the sink attention's math.

The row in ``test_hub_families.py`` checks the preset both ways, greedy ids, the dequantized Transformers
folder and training against KerasHub; this file checks what only GPT-OSS has.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hub_presets import keras_hub
from hub_presets_gpt_oss import gpt_oss_preset, gpt_oss_transformers_checkpoint, mxfp4_rounded

import tfkit.hub as tk_hub
from tfkit.hub.models.gpt_oss.gpt_oss_converter import GptOssConverter

pytest.importorskip("safetensors")

INPUTS = {
    "token_ids": np.array([[5, 9, 30, 2, 17, 4, 8, 0], [7, 8, 0, 0, 0, 0, 0, 0]], "int32"),
    "padding_mask": np.array([[1] * 7 + [0], [1, 1] + [0] * 6], "int32"),
}


def test_an_mxfp4_checkpoint_loads_with_the_numbers_of_its_dequantized_experts(tmp_path):
    preset = gpt_oss_preset(str(tmp_path / "preset"), hidden_dim=32, intermediate_dim=32)  # blocks of 32 inputs
    theirs = keras_hub.models.GptOssCausalLM.from_preset(preset)
    folder = gpt_oss_transformers_checkpoint(preset, theirs, str(tmp_path / "hf"), mxfp4=True)
    for block in theirs.backbone.transformer_layers:  # the reference: KerasHub's model with the rounded kernels
        experts = block.sparse_moe_block.experts
        for weight in (experts.gate_up_proj, experts.down_proj):
            weight.assign(mxfp4_rounded(np.asarray(weight))[2].astype("float32"))
    ours = tk_hub.models.Backbone.from_preset(folder)
    np.testing.assert_allclose(ours(INPUTS), theirs.backbone(INPUTS), atol=1e-5)
    rounded = np.asarray(theirs.backbone.transformer_layers[0].sparse_moe_block.experts.gate_up_proj)
    loaded = np.asarray(ours.transformer_layers[0].sparse_moe_block.experts.gate_up_proj)
    np.testing.assert_array_equal(loaded, rounded)


def test_transformers_windowed_layers_and_window_become_the_backbones():
    config = {
        "vocab_size": 50,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "hidden_size": 16,
        "intermediate_size": 8,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "rope_theta": 150000,
        "rms_norm_eps": 1e-5,
        "sliding_window": 128,
        "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0, "truncate": False},
    }
    converted = GptOssConverter.backbone_config(config)
    # Transformers windows the even-numbered layers by default, 128 tokens the token itself included
    assert converted["layer_types"] == ["sliding_attention", "full_attention"] * 2
    assert converted["sliding_window"] == 127 and converted["rope_scaling_factor"] == 32.0
    backbone = tk_hub.models.GptOssBackbone(**converted)
    assert [block.sliding_window for block in backbone.transformer_layers] == [127, None, 127, None]
    assert json.loads(json.dumps(backbone.get_config()))["layer_types"] == converted["layer_types"]
    with pytest.raises(ValueError, match="rope_scaling.beta_fast=16.0"):
        GptOssConverter.backbone_config({**config, "rope_scaling": {"rope_type": "yarn", "beta_fast": 16.0}})
    with pytest.raises(ValueError, match="swiglu_limit"):
        GptOssConverter.backbone_config({**config, "swiglu_limit": 10.0})


def test_a_keras_hub_rule_backbone_saves_no_layer_types_and_bad_layer_types_are_refused():
    arguments = dict(
        vocabulary_size=10, num_layers=2, num_query_heads=2, hidden_dim=8, intermediate_dim=8,
        num_key_value_heads=1, num_experts=4, sliding_window=2,
    )  # fmt: skip
    assert "layer_types" not in tk_hub.models.GptOssBackbone(**arguments).get_config()  # KerasHub loads it
    with pytest.raises(ValueError, match="lists 1 blocks; expected num_layers=2"):
        tk_hub.models.GptOssBackbone(**arguments, layer_types=["full_attention"])
    with pytest.raises(ValueError, match=r"layer_types\[1\]='local'"):
        tk_hub.models.GptOssBackbone(**arguments, layer_types=["full_attention", "local"])


def test_the_sink_attention_equals_a_numpy_softmax_with_one_more_logit_a_head():
    from tfkit.hub.models.gpt_oss.gpt_oss_attention import GptOssAttention

    attention = GptOssAttention(num_query_heads=2, num_key_value_heads=1, sliding_window=None)
    x = np.random.RandomState(0).normal(size=(1, 3, 4)).astype("float32")
    attention(x)
    attention.sinks.assign([2.0, -1.0])
    query = np.asarray(attention._query_heads(attention.query_dense(x), 0))[0]  # (length, heads, dim)
    key = np.asarray(attention._key_heads(attention.key_dense(x), 0))[0, :, 0]
    value = np.asarray(attention.value_dense(x))[0, :, 0]
    expected = np.zeros_like(query)
    for head, sink in enumerate([2.0, -1.0]):
        scores = query[:, head] @ key.T / np.sqrt(query.shape[-1])
        scores = np.where(np.tril(np.ones((3, 3), bool)), scores, -np.inf)
        weights = np.exp(scores) / (np.exp(scores).sum(-1, keepdims=True) + np.exp(sink))
        expected[:, head] = weights @ value
    expected = np.einsum("qhd,hdm->qm", expected, np.asarray(attention.output_dense.kernel))
    expected += np.asarray(attention.output_dense.bias)
    causal = np.tril(np.ones((1, 3, 3), "int32"))
    np.testing.assert_allclose(attention(x, attention_mask=causal)[0], expected, atol=1e-5)


def test_a_decoding_step_gathers_the_chosen_experts_with_every_experts_numbers():
    from tfkit.hub.models.gpt_oss.gpt_oss_experts import GptOssSparseMoeBlock

    block = GptOssSparseMoeBlock(hidden_dim=4, intermediate_dim=6, num_experts=4, top_k=2)
    x = np.random.RandomState(0).normal(size=(1, 3, 4)).astype("float32")
    block(x)  # builds the block
    for bias in (block.experts.gate_up_proj_bias, block.experts.down_proj_bias):
        bias.assign(np.random.RandomState(1).normal(size=bias.shape))
    every_expert, scores = block(x)  # 3 tokens x 2 experts >= 4 experts: every expert on every token
    for token in range(3):  # one token x 2 experts < 4: only the chosen experts' kernels
        gathered, token_scores = block(x[:, token : token + 1])
        np.testing.assert_allclose(gathered[0, 0], every_expert[0, token], atol=1e-6)
        np.testing.assert_allclose(token_scores[0], scores[token], atol=1e-7)
