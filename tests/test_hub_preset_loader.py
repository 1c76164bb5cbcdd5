"""A preset resolved once: ``get_preset_loader`` decides its kind, and every part reads ``config.json`` once.

A KerasHub preset and a Transformers checkpoint of the same tiny Qwen 3 (made by
KerasHub, ``hub_presets_qwen``) load through one loader object each: counting
the JSON files tfkit parses during ``CausalLM.from_preset``, ``config.json`` is
read once (it was read twice for the preset and five times for the checkpoint
before the loader object), and the readers of the parts take the loader itself.
"""

import collections
import os

import numpy as np
import pytest
from hub_presets_qwen import keras_hub, qwen3_preset, qwen3_transformers_checkpoint

import tfkit.hub as tk_hub
from tfkit.hub.presets import files
from tfkit.hub.presets.preset_loader import KerasPresetLoader, TransformersPresetLoader, get_preset_loader


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """(a KerasHub preset, a Transformers checkpoint of the same weights)."""
    root = tmp_path_factory.mktemp("loader")
    preset = qwen3_preset(str(root / "preset"))
    reference = keras_hub.models.CausalLM.from_preset(preset)
    checkpoint = qwen3_transformers_checkpoint(
        reference.backbone, reference.preprocessor.tokenizer, str(root / "checkpoint")
    )
    return preset, checkpoint


def parsed_files(monkeypatch) -> collections.Counter:
    """How many times each JSON file of a preset is parsed from now on."""
    counts = collections.Counter()
    read = files.read_json

    def counting(directory, name):
        counts[name] += 1
        return read(directory, name)

    monkeypatch.setattr(files, "read_json", counting)
    return counts


@pytest.mark.parametrize("kind", ["preset", "checkpoint"])
def test_config_json_is_parsed_once_per_from_preset(folders, kind, monkeypatch):
    folder = folders[0] if kind == "preset" else folders[1]
    counts = parsed_files(monkeypatch)
    causal_lm = tk_hub.models.CausalLM.from_preset(folder)
    assert type(causal_lm).__name__ == "Qwen3CausalLM"
    assert counts[files.CONFIG_FILE] == 1
    assert max(counts.values()) == 1  # no file of the preset is parsed twice


def test_the_kind_is_decided_once_and_the_loader_stands_for_its_folder(folders):
    preset, checkpoint = folders
    keras_loader, transformers_loader = get_preset_loader(preset), get_preset_loader(checkpoint)
    assert isinstance(keras_loader, KerasPresetLoader) and not keras_loader.is_transformers_checkpoint
    assert isinstance(transformers_loader, TransformersPresetLoader) and transformers_loader.is_transformers_checkpoint
    assert get_preset_loader(keras_loader) is keras_loader
    assert os.fspath(transformers_loader) == checkpoint
    assert keras_loader.backbone_class() is transformers_loader.backbone_class() is tk_hub.models.Qwen3Backbone
    assert keras_loader.matching_class(tk_hub.models.CausalLM) is tk_hub.models.Qwen3CausalLM


def test_parts_loaded_from_one_loader_equal_parts_loaded_from_the_folder(folders):
    preset, checkpoint = folders
    ids = {"token_ids": np.array([[5, 9, 30, 2]]), "padding_mask": np.ones((1, 4), bool)}
    for folder in (preset, checkpoint):
        source = get_preset_loader(folder)
        from_loader = tk_hub.models.Backbone.from_preset(source)
        from_folder = tk_hub.models.Backbone.from_preset(folder)
        np.testing.assert_array_equal(np.asarray(from_loader(ids)), np.asarray(from_folder(ids)))
        tokenizer = tk_hub.models.Qwen3Tokenizer.from_preset(source)
        assert (
            tokenizer("hello world").numpy().tolist()
            == tk_hub.tokenizers.Tokenizer.from_preset(folder)("hello world").numpy().tolist()
        )


def test_a_checkpoint_of_an_unknown_model_type_is_refused_when_resolved(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "no_such_family"}')
    with pytest.raises(ValueError, match="model_type 'no_such_family' has no converter in tfkit.hub"):
        get_preset_loader(str(tmp_path))
