"""KerasHub's quantized presets (a ``DTypePolicyMap`` of int8 or int4 layers) load in tfkit.hub, and back.

KerasHub quantizes a backbone in place and saves the per-layer policies as a ``DTypePolicyMap`` in
the backbone's config. Both sides are compared as loaded from the preset: KerasHub 0.32 itself
computes an int4 head differently before and after saving (its quantization config, which turns the
hidden states' quantizer off, is not saved: 7e-4 apart on this model), and a preset means what it
loads as.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("keras_hub")

from hub_presets import gpt2_preset, keras_hub  # noqa: E402
from hub_presets_llama3 import llama3_preset  # noqa: E402

import tfkit.hub as tk_hub  # noqa: E402

IDS = {"token_ids": np.array([[3, 4, 5, 6, 0, 0]]), "padding_mask": np.array([[1, 1, 1, 1, 0, 0]])}


def _logits(causal_lm) -> np.ndarray:
    backbone = causal_lm.backbone
    return np.asarray(backbone.token_embedding(backbone(IDS), reverse=True))


FAMILIES = {"gpt2": gpt2_preset, "llama3": llama3_preset}  # a tied head and learned positions; an untied head, GQA
KEPT = {("gpt2", "int4"), ("llama3", "int8")}
REPEATS = "a quantized preset whose layers another kept case loads"


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    root = tmp_path_factory.mktemp("plain")
    return {family: make(str(root / family)) for family, make in FAMILIES.items()}


# Every run: GPT-2 in int4 (a tied head, int4 groups) and Llama 3 in int8 (an untied head, grouped-query
# attention); the other two pairs repeat those layers' paths (15 s each in a full run).
CASES = [
    pytest.param(family, mode, marks=() if (family, mode) in KEPT else pytest.mark.long(reason=REPEATS))
    for family in sorted(FAMILIES)
    for mode in ("int8", "int4")
]


@pytest.mark.parametrize("family, mode", CASES)
def test_a_quantized_keras_hub_preset_loads_with_its_numbers_and_saves_back(plain, family, mode, tmp_path):
    quantized = keras_hub.models.CausalLM.from_preset(plain[family])
    quantized.backbone.quantize(mode)
    folder = os.fspath(tmp_path / "quantized")
    quantized.save_to_preset(folder)
    theirs = keras_hub.models.CausalLM.from_preset(folder)
    ours = tk_hub.models.CausalLM.from_preset(folder)
    modes = {
        layer.path: layer.quantization_mode for layer in ours.backbone._flatten_layers() if layer.quantization_mode
    }
    assert modes["token_embedding"] == mode and modes["transformer_layer_0/self_attention/query"] == mode
    assert len(modes) == len([layer for layer in theirs.backbone._flatten_layers() if layer.quantization_mode])
    expected = _logits(theirs)
    np.testing.assert_allclose(_logits(ours), expected, rtol=0, atol=1e-6)  # float32 order of sums apart
    back = os.fspath(tmp_path / "back")
    ours.save_to_preset(back)
    np.testing.assert_allclose(_logits(keras_hub.models.CausalLM.from_preset(back)), expected, rtol=0, atol=1e-6)
