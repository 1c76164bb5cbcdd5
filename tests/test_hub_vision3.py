"""Swin Transformer and EfficientNet in tfkit.hub: what the conformance rows of ``test_hub_families`` leave out.

The rows (``swin_transformer``, ``efficientnet``) check presets both ways, weight paths, configs, the Transformers
checkpoint (Swin) and one training step. Here: KerasHub reading the same Transformers Swin checkpoint (its own
converter) gives tfkit's numbers, raw images through the converter made from ``preprocessor_config.json``, and
checkpoints the backbone cannot hold are refused; EfficientNet's options the tiny preset leaves at their defaults
(one width and depth coefficient for all stacks, no residuals, projection activations, a stem without padding)
compute as KerasHub's, and a ``num_features`` KerasHub's config drops survives tfkit's.
"""

import json
import os

import numpy as np
import pytest
from hub_presets import keras_hub
from hub_presets_vision3 import EFFICIENTNET_ARGUMENTS, swin_preset, swin_transformers_checkpoint

import tfkit.hub as tk_hub

RANDOM = np.random.RandomState(0)
IMAGES = RANDOM.uniform(-1, 1, size=(3, 16, 16, 3)).astype("float32")
RAW = RANDOM.randint(0, 256, size=(2, 24, 20, 3)).astype("uint8")


@pytest.fixture(scope="module")
def swin_checkpoint(tmp_path_factory):
    pytest.importorskip("safetensors")
    preset = swin_preset(str(tmp_path_factory.mktemp("swin")))
    theirs = keras_hub.models.ImageClassifier.from_preset(preset)
    return swin_transformers_checkpoint(theirs, str(tmp_path_factory.mktemp("swin_hf")))


def test_keras_hub_and_tfkit_read_a_transformers_swin_checkpoint_alike(swin_checkpoint):
    theirs = keras_hub.models.ImageClassifier.from_preset(swin_checkpoint)
    ours = tk_hub.models.ImageClassifier.from_preset(swin_checkpoint)
    assert type(ours).__name__ == type(theirs).__name__ == "SwinTransformerImageClassifier"
    assert ours.num_classes == 3
    expected = np.asarray(theirs(IMAGES))
    assert np.abs(expected).max() > 0.1
    np.testing.assert_allclose(np.asarray(ours(IMAGES)), expected, atol=1e-5)
    converter = ours.preprocessor.image_converter
    assert type(converter).__name__ == "SwinTransformerImageConverter"
    assert converter.interpolation == "bicubic" and converter.antialias and not converter.crop_to_aspect_ratio
    np.testing.assert_allclose(
        ours.predict(RAW, verbose=0), theirs.predict(RAW, verbose=0), atol=1e-4
    )  # resizing and ImageNet's normalization as KerasHub's converter does them


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("use_absolute_embeddings", True, "use_absolute_embeddings"),
        ("hidden_act", "relu", "hidden_act"),
        ("layer_norm_eps", 1e-6, "layer_norm_eps"),
    ],
)
def test_a_checkpoint_the_backbone_cannot_hold_is_refused(swin_checkpoint, tmp_path, field, value, message):
    for name in os.listdir(swin_checkpoint):
        os.symlink(os.path.join(swin_checkpoint, name), tmp_path / name)
    config = json.loads((tmp_path / "config.json").read_text())
    os.unlink(tmp_path / "config.json")
    (tmp_path / "config.json").write_text(json.dumps({**config, field: value}))
    with pytest.raises(ValueError, match=message):
        tk_hub.models.SwinTransformerBackbone.from_preset(str(tmp_path))


def _options(**changes):
    arguments = {key: value for key, value in EFFICIENTNET_ARGUMENTS.items() if "coefficients" not in key}
    return {**arguments, "width_coefficient": 0.25, "depth_coefficient": 1.0, **changes}


def test_efficientnet_options_compute_as_keras_hubs():
    options = _options(
        stackwise_nores_option=[False, True, True, False],
        projection_activation="relu",
        include_stem_padding=False,
        stem_conv_padding="same",
        batch_norm_epsilon=1e-3,
        dropout=0.0,
    )
    theirs = keras_hub.models.EfficientNetBackbone(**options)
    ours = tk_hub.models.EfficientNetBackbone(**options)
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    rng = np.random.RandomState(2)
    values = [rng.uniform(0.5, 1.5, w.shape).astype("float32") for w in theirs.weights]
    theirs.set_weights(values)
    ours.set_weights(values)
    images = RANDOM.uniform(-1, 1, size=(2, 32, 32, 3)).astype("float32")
    np.testing.assert_allclose(np.asarray(ours(images)), np.asarray(theirs(images)), rtol=1e-5, atol=1e-5)
    assert sorted(ours.pyramid_outputs) == sorted(theirs.pyramid_outputs) == ["P1", "P2", "P3"]
    config = ours.get_config()
    assert config["stackwise_width_coefficients"] == [0.25] * 4 and config["stackwise_depth_coefficients"] == [1.0] * 4
    assert tuple(config["input_shape"]) == (32, 32, 3)
    with pytest.raises(ValueError, match="block types must be one of"):
        tk_hub.models.EfficientNetBackbone(**_options(stackwise_block_types=["cba", "fused", "mbconv", "v1"]))


def test_an_efficientnet_of_other_num_features_loads_back(tmp_path):
    backbone = tk_hub.models.EfficientNetBackbone(**_options(num_features=64))
    backbone.save_to_preset(str(tmp_path))
    reloaded = tk_hub.models.Backbone.from_preset(str(tmp_path))
    assert reloaded.output.shape[-1] == 16 and reloaded.num_features == 64
    images = RANDOM.uniform(-1, 1, size=(1, 32, 32, 3)).astype("float32")
    np.testing.assert_allclose(np.asarray(reloaded(images)), np.asarray(backbone(images)), atol=1e-6)
