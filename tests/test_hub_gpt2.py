"""GPT-2 in tfkit.hub against KerasHub: presets both ways, Hugging Face checkpoints, logits and greedy ids.

A tiny random GPT-2 preset is made by KerasHub itself (``hub_presets``); tfkit loads it and must compute
KerasHub's numbers exactly (same float32 ops in the same order), generate the same greedy ids, save a
preset KerasHub loads, and read the Hugging Face checkpoint KerasHub exports of the same weights.
"""

import json
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest
from hub_presets import TEXTS, gpt2_preset, keras_hub

import tfkit.hub as tk_hub

PROMPTS = {
    "token_ids": np.array([[5, 9, 30, 2, 0, 0, 0, 0], [7, 8, 0, 0, 0, 0, 0, 0]], "int32"),
    "padding_mask": np.array([[1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0]], "int32"),
}


@pytest.fixture(scope="module")
def preset(tmp_path_factory):
    return gpt2_preset(str(tmp_path_factory.mktemp("gpt2_preset")))


@pytest.fixture(scope="module")
def reference(preset):
    model = keras_hub.models.GPT2CausalLM.from_preset(preset, preprocessor=None)
    model.compile(sampler="greedy")
    return model


@pytest.fixture(scope="module")
def causal_lm(preset):
    model = tk_hub.models.CausalLM.from_preset(preset, preprocessor=None)
    model.compile(sampler="greedy")
    return model


def test_beam_generation_gives_keras_hubs_ids_when_asked_and_searches_each_prompt_as_alone(reference, causal_lm):
    try:
        causal_lm.compile(sampler=tk_hub.samplers.BeamSampler(num_beams=3, match_keras_hub=True))
        reference.compile(sampler=keras_hub.samplers.BeamSampler(num_beams=3))
        ours = causal_lm.generate(dict(PROMPTS), stop_token_ids=None)
        theirs = reference.generate(dict(PROMPTS), stop_token_ids=None)
        np.testing.assert_array_equal(ours["token_ids"], theirs["token_ids"])
        causal_lm.compile(sampler="beam")  # tfkit's own search: a prompt in a batch is searched as alone
        together = causal_lm.generate(dict(PROMPTS), stop_token_ids=None)["token_ids"]
        for row in range(2):
            alone = causal_lm.generate(
                {key: value[row : row + 1] for key, value in PROMPTS.items()}, stop_token_ids=None
            )
            np.testing.assert_array_equal(together[row], alone["token_ids"][0])
    finally:
        causal_lm.compile(sampler="greedy")
        reference.compile(sampler="greedy")


def test_a_saved_preset_loads_in_keras_hub_with_the_same_numbers(preset, causal_lm, tmp_path):
    causal_lm.backbone.save_to_preset(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["config.json", "metadata.json", "model.weights.h5"]
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["registered_name"] == "keras_hub>GPT2Backbone" and "build_config" not in config
    assert json.loads((tmp_path / "metadata.json").read_text())["tasks"] == ["CausalLM"]
    theirs = keras_hub.models.Backbone.from_preset(str(tmp_path))
    np.testing.assert_allclose(np.asarray(theirs(PROMPTS)), np.asarray(causal_lm.backbone(PROMPTS)), atol=1e-5)


def test_a_checkpoint_of_an_unknown_family_or_a_shard_outside_the_folder_is_refused(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "teleporter", "vocab_size": 3}))
    with pytest.raises(ValueError, match=r"model_type 'teleporter' has no converter in tfkit.hub"):
        tk_hub.models.Backbone.from_preset(str(tmp_path))
    sharded = tmp_path / "sharded"
    sharded.mkdir()
    (sharded / "config.json").write_text(
        json.dumps({"model_type": "gpt2", "vocab_size": 8, "n_layer": 1, "n_head": 1, "n_embd": 4, "n_positions": 8})
    )
    (sharded / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"wte.weight": "../../x"}}))
    with pytest.raises(ValueError, match=r"'\.\./\.\./x' is not a file name inside the preset"):
        tk_hub.models.Backbone.from_preset(str(sharded))


def test_a_preset_naming_a_class_tfkit_hub_lacks_or_a_larger_model_than_its_weights_is_refused(preset, tmp_path):
    entry = json.loads(open(os.path.join(preset, "config.json")).read())
    (tmp_path / "config.json").write_text(json.dumps({**entry, "registered_name": "keras_hub>Teleporter"}))
    with pytest.raises(ValueError, match=r"keras_hub>Teleporter, which tfkit.hub does not have"):
        tk_hub.models.Backbone.from_preset(str(tmp_path))
    bigger = {**entry, "config": {**entry["config"], "vocabulary_size": 50_000_000}}
    (tmp_path / "config.json").write_text(json.dumps(bigger))
    os.link(os.path.join(preset, "model.weights.h5"), tmp_path / "model.weights.h5")
    with pytest.raises(ValueError, match=r"config\.json"):
        tk_hub.models.Backbone.from_preset(str(tmp_path))  # refused by the budget before allocating 800M floats


@pytest.fixture(scope="module")
def text_models(preset):
    ours = tk_hub.models.CausalLM.from_preset(preset)
    theirs = keras_hub.models.CausalLM.from_preset(preset)
    ours.compile(sampler="greedy", run_eagerly=True)
    theirs.compile(sampler="greedy", run_eagerly=True)
    return ours, theirs


def test_one_prompt_string_gives_one_string_as_keras_hubs(text_models):
    ours, theirs = text_models
    assert type(ours.preprocessor.tokenizer).__name__ == "GPT2Tokenizer"
    generated = ours.generate(TEXTS[0], max_length=12)
    assert isinstance(generated, str) and generated == theirs.generate(TEXTS[0], max_length=12)


def test_an_export_generates_text_in_a_process_without_tfkit(preset, tmp_path):
    """The SavedModel's `generate` signature: prompts in, text out, with only TensorFlow and tensorflow-text's ops
    (what TensorFlow Serving has)."""
    causal_lm = tk_hub.models.CausalLM.from_preset(preset)
    causal_lm.compile(sampler="greedy")
    path = causal_lm.export(str(tmp_path / "gpt2" / "1"), verbose=False)
    code = (
        "import json, sys, tensorflow as tf, tensorflow_text\n"
        f"served = tf.saved_model.load({path!r}).signatures['generate']\n"
        f"text = served(prompts=tf.constant({TEXTS!r}))['text'].numpy().tolist()\n"
        "print(json.dumps([t.decode('utf-8', 'replace') for t in text]), 'tfkit' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    served, tfkit_loaded = done.stdout.strip().rsplit(" ", 1)
    assert tfkit_loaded == "False"
    assert json.loads(served) == causal_lm.generate(TEXTS)


def test_a_preset_with_sharded_weights_loads_shard_by_shard(preset, tmp_path):
    backbone = keras_hub.models.Backbone.from_preset(preset)
    backbone.save_to_preset(str(tmp_path), max_shard_size=0.00002)  # KerasHub shards a backbone over this (GB)
    shards = sorted(name for name in os.listdir(tmp_path) if name.endswith(".weights.h5"))
    assert len(shards) > 1 and "model.weights.json" in os.listdir(tmp_path)
    ours = tk_hub.models.Backbone.from_preset(str(tmp_path))
    np.testing.assert_allclose(np.asarray(ours(PROMPTS)), np.asarray(backbone(PROMPTS)), atol=1e-5)
    index = json.loads((tmp_path / "model.weights.json").read_text())
    only_first = {**index, "weight_map": {key: shards[0] for key in index["weight_map"]}}
    (tmp_path / "model.weights.json").write_text(json.dumps(only_first))
    with pytest.raises(ValueError, match=r"the weights \(model_00000.weights.h5\) hold no values for \d+ variables"):
        tk_hub.models.Backbone.from_preset(str(tmp_path))
    (tmp_path / "model.weights.json").write_text(json.dumps(index))
    with h5py.File(tmp_path / shards[0], "a") as shard:  # a layer the model does not have, which the index omits
        shard.create_dataset("layers/extra/vars/0", data=np.zeros(3, "float32"))
    with pytest.raises(ValueError, match=r"hold layers the model built from the config does not have: layers/extra;"):
        tk_hub.models.Backbone.from_preset(str(tmp_path))
    os.remove(tmp_path / shards[-1])  # a shard the index names is missing
    with pytest.raises(FileNotFoundError, match=shards[-1]):
        tk_hub.models.Backbone.from_preset(str(tmp_path))


def test_a_subclass_of_the_familys_task_leaves_the_base_class_to_from_preset_and_loads_when_asked(preset):
    class WithOwnStep(tk_hub.models.GPT2CausalLM):  # as a user writes one for a train_step of their own
        pass

    loaded = tk_hub.models.CausalLM.from_preset(preset)  # KerasHub refuses it: two classes use GPT2Backbone
    assert isinstance(loaded, tk_hub.models.GPT2CausalLM) and not isinstance(loaded, WithOwnStep)
    assert isinstance(WithOwnStep.from_preset(preset), WithOwnStep)
