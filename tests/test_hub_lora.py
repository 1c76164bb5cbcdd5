"""LoRA on tfkit.hub backbones, as KerasHub does it: the same trainable weights, .lora.h5 files both ways.

``enable_lora(rank)`` freezes the backbone and gives the attention's query and value projections trainable
low-rank factors; fine-tuning then changes nothing else, and the adapter file passes between KerasHub and tfkit.
"""

import numpy as np
import pytest
from hub_presets import TEXTS, gpt2_preset, keras_hub

import tfkit
import tfkit.hub as tk_hub

PROMPTS = {
    "token_ids": np.array([[5, 9, 30, 2, 0, 0]], "int32"),
    "padding_mask": np.array([[1, 1, 1, 1, 0, 0]], "int32"),
}


@pytest.fixture(scope="module")
def preset(tmp_path_factory):
    return gpt2_preset(str(tmp_path_factory.mktemp("gpt2_lora")))


def _shapes(weights):
    return sorted((w.name.split("/")[-1].split(":")[0], tuple(w.shape)) for w in weights)


def test_enable_lora_leaves_keras_hubs_weights_trainable(preset):
    ours = tk_hub.models.Backbone.from_preset(preset)
    theirs = keras_hub.models.Backbone.from_preset(preset)
    ours.enable_lora(4)
    theirs.enable_lora(4)
    assert list(ours._lora_enabled_layers) == list(theirs._lora_enabled_layers)
    assert _shapes(ours.trainable_weights) == _shapes(theirs.trainable_weights)  # factors and biases of query/value
    assert len(ours.non_trainable_weights) == len(theirs.non_trainable_weights)


def test_lora_files_pass_between_keras_hub_and_tfkit(preset, tmp_path):
    theirs = keras_hub.models.Backbone.from_preset(preset)
    theirs.enable_lora(4)
    rng = np.random.default_rng(0)
    for weight in theirs.weights:
        if "lora_kernel_b" in weight.path:  # B starts at zero: give the adapter something to carry
            weight.assign(rng.normal(size=weight.shape).astype("float32"))
    theirs.save_lora_weights(str(tmp_path / "theirs.lora.h5"))
    ours = tk_hub.models.Backbone.from_preset(preset)
    ours.load_lora_weights(str(tmp_path / "theirs.lora.h5"))  # enables LoRA with the file's rank
    np.testing.assert_allclose(np.asarray(ours(PROMPTS)), np.asarray(theirs(PROMPTS)), atol=1e-5)
    ours.save_lora_weights(str(tmp_path / "ours.lora.h5"))
    again = keras_hub.models.Backbone.from_preset(preset)
    again.load_lora_weights(str(tmp_path / "ours.lora.h5"))
    np.testing.assert_allclose(np.asarray(again(PROMPTS)), np.asarray(ours(PROMPTS)), atol=1e-5)
    with pytest.raises(ValueError, match=r"must end in \.lora\.h5"):
        ours.save_lora_weights(str(tmp_path / "adapter.h5"))
    other = tk_hub.models.Backbone.from_preset(preset)
    other.enable_lora(2)
    with pytest.raises(ValueError, match=r"rank 4.*enable_lora\(rank=2\)"):
        other.load_lora_weights(str(tmp_path / "ours.lora.h5"))


def test_fine_tuning_with_lora_trains_only_the_adapter(preset):
    causal_lm = tk_hub.models.CausalLM.from_preset(preset)
    causal_lm.backbone.enable_lora(4)
    causal_lm.compile(optimizer=tfkit.optimizers.Adam(1e-2))
    frozen = {w.name + str(i): w.numpy().copy() for i, w in enumerate(causal_lm.non_trainable_weights)}
    before = causal_lm.evaluate(TEXTS, batch_size=2, verbose=0, return_dict=True)["loss"]
    causal_lm.fit(TEXTS, batch_size=2, epochs=3, verbose=0)
    after = {w.name + str(i): w.numpy() for i, w in enumerate(causal_lm.non_trainable_weights)}
    assert all(np.array_equal(frozen[key], after[key]) for key in frozen)
    assert causal_lm.evaluate(TEXTS, batch_size=2, verbose=0, return_dict=True)["loss"] < before
