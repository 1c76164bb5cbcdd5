"""The unknown-class error: the key to pass and a few close built-in names, never the whole table.

with pytest.raises(ValueError, match="Close built-in names: Dense"):
    registry.lookup("layers", "Dens")
"""

import json

import pytest

import tfkit
from tfkit.base import registry

SHORT = 320  # characters: the advice and a few names; the whole table of layers was about 1,800


def _message(*args, **kwargs):
    with pytest.raises(ValueError) as info:
        registry.lookup(*args, **kwargs)
    return str(info.value)


def test_a_misspelt_layer_gets_the_close_names_not_the_whole_table():
    message = _message("layers", "Dens")
    assert message.startswith("Unknown layer 'Dens': pass custom_objects={'Dens': Dens}")
    assert message.endswith("Close built-in names: Dense.")
    assert "Conv2DTranspose" not in message and len(message) < SHORT, message


def test_close_names_ignore_case():
    assert "Close built-in names: Dense" in _message("layers", "dense")
    assert "Close built-in names: relu" in _message("activations", "Relu")


def test_no_close_name_in_a_large_table_says_where_the_names_are():
    message = _message("layers", "Zzyzx")
    assert "No built-in layer has a similar name (tfkit.base.registry.builtin_names('layers') lists all" in message
    assert len(message) < SHORT, message
    assert "Zzyzx" not in registry.builtin_names("layers") and len(registry.builtin_names("layers")) > 40


def test_a_small_table_still_lists_its_names_when_none_is_close():
    message = _message("activations", "nope")
    assert "Known built-ins: " in message and "relu" in message and "softmax" in message


def test_a_users_class_gets_no_built_in_names():
    # saved from the user's module: it can only come from custom_objects, never from the built-ins
    message = _message("layers", "Dense", module="my_project.layers")
    assert message.startswith("Unknown layer 'Dense' (saved from module 'my_project.layers'): ")
    assert "built-in names" not in message and "Known built-ins" not in message


def test_loading_a_config_with_a_misspelt_class_gives_the_short_message():
    x = tfkit.Input((2,))
    config = json.loads(tfkit.Model(x, tfkit.layers.Dense(1, name="head")(x)).to_json())
    dense = next(entry for entry in config["config"]["layers"] if entry["class_name"] == "Dense")
    dense["class_name"] = "Dens"
    with pytest.raises(ValueError) as info:
        tfkit.models.model_from_json(json.dumps(config))
    message = str(info.value)
    assert "Unknown layer 'Dens'" in message and "Close built-in names: Dense." in message
    assert "Conv2DTranspose" not in message and len(message) < 2 * SHORT, message
