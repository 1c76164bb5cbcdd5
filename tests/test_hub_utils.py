"""tfkit.hub.utils beside KerasHub's: every ImageNet and COCO id and name, and decoded predictions."""

import numpy as np
import pytest
from hub_presets import keras_hub

import tfkit.hub as tk_hub


def test_every_class_id_and_name_as_kerashubs():
    for i in range(1000):
        name = keras_hub.utils.imagenet_id_to_name(i)
        assert tk_hub.utils.imagenet_id_to_name(i) == name
        assert tk_hub.utils.imagenet_name_to_id(name) == keras_hub.utils.imagenet_name_to_id(name)
    for i in range(92):
        name = keras_hub.utils.coco_id_to_name(i)
        assert tk_hub.utils.coco_id_to_name(i) == name
        assert tk_hub.utils.coco_name_to_id(name) == keras_hub.utils.coco_name_to_id(name)
    with pytest.raises(KeyError):
        tk_hub.utils.imagenet_id_to_name(1000)
    with pytest.raises(KeyError):
        tk_hub.utils.coco_name_to_id("unicorn")


def test_decoded_predictions_as_kerashubs():
    preds = np.random.default_rng(0).random((3, 1000)).astype("float32")
    preds[1, 7] = preds[1, 8] = 2.0  # a tie
    for kwargs in ({}, {"top": 2}, {"top": 3, "include_synset_ids": True}):
        assert tk_hub.utils.decode_imagenet_predictions(preds, **kwargs) == keras_hub.utils.decode_imagenet_predictions(
            preds, **kwargs
        )
    best = tk_hub.utils.decode_imagenet_predictions(np.eye(1000, dtype="float32")[[1]], top=1)
    assert best == [[("goldfish", 1.0)]]
    with pytest.raises(ValueError, match=r"shape \(samples, 1000\).*\(1000,\)"):
        tk_hub.utils.decode_imagenet_predictions(np.zeros(1000))
