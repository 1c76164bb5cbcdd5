"""metadata.json's "tasks": the task kinds KerasHub lists for a backbone (each task class's base, as KerasHub
writes it: ``LlamaCausalLM`` for Llama 3), passing over the bases tfkit adds (``DecoderCausalLM``)."""

import json

import pytest

import tfkit
import tfkit.hub as keras_hub
from tfkit.hub.presets.classes import task_kinds

KINDS = {
    "GPT2Backbone": ["CausalLM"],
    "LlamaBackbone": ["CausalLM"],
    "Llama3Backbone": ["LlamaCausalLM"],  # KerasHub's Llama3CausalLM is a LlamaCausalLM
    "MistralBackbone": ["CausalLM"],
    "QwenBackbone": ["CausalLM"],
    "Qwen3Backbone": ["CausalLM", "TextEmbedder"],
    "GemmaBackbone": ["CausalLM"],
    "Gemma3Backbone": ["CausalLM", "TextEmbedder"],
    "BertBackbone": ["MaskedLM", "TextClassifier", "TextEmbedder"],
    "ViTBackbone": ["ImageClassifier"],
}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_backbone_lists_keras_hubs_task_kinds(name):
    assert task_kinds(getattr(keras_hub.models, name), tfkit.Model) == KINDS[name]


def test_a_saved_mistral_preset_says_causal_lm(tmp_path):
    backbone = keras_hub.models.MistralBackbone(
        vocabulary_size=10, num_layers=1, num_query_heads=2, num_key_value_heads=1, hidden_dim=8, intermediate_dim=16
    )
    backbone.save_to_preset(str(tmp_path))
    assert json.loads((tmp_path / "metadata.json").read_text())["tasks"] == ["CausalLM"]
