"""from_config(get_config()) rebuilds every built-in layer's model: same summary, same parameter count."""

import json

import numpy as np
import pytest
from layer_catalog import CATALOG
from test_layers_augment_common import CATALOG as AUGMENT_CATALOG

import tfkit
from tfkit.base import registry

# The image augmentation layers have their config, h5 and export tests in test_layers_augment_common.py.
AUGMENT_LAYERS = set(AUGMENT_CATALOG) | {"Pipeline"}
NOT_STANDALONE = {
    "InputLayer",
    "Functional",
    "Sequential",
    "RNN",
    "LSTMCell",
    "GRUCell",
    "SimpleRNNCell",
    "TFSMLayer",  # needs a SavedModel folder, and safe_mode=False to rebuild: test_layers_tfsm.py
    "FeatureSpace",  # records its inner layers' calls, never itself: test_feature_space*.py
    "Distiller",
}  # a model of a teacher and a student: config and .h5 in test_distillation.py


def summary_lines(model):
    lines = []
    model.summary(print_fn=lines.append)
    return [line for line in lines if not line.startswith("Model:")]


def test_catalog_covers_every_builtin_layer():
    builtins = {registry.lookup("layers", name) for name in registry.builtin_names("layers")}
    covered = {type(layer) for make in CATALOG.values() for layer in make().layers}
    missing = sorted(cls.__name__ for cls in builtins - covered if cls.__name__ not in NOT_STANDALONE | AUGMENT_LAYERS)
    assert missing == []


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_functional_config_round_trip(name):
    model = CATALOG[name]()
    config = json.loads(json.dumps(model.get_config()))
    rebuilt = tfkit.Model.from_config(config)
    assert rebuilt.count_params() == model.count_params()
    assert summary_lines(rebuilt) == summary_lines(model)
    assert [type(l) for l in rebuilt.layers] == [type(l) for l in model.layers]


@pytest.mark.parametrize(
    "name",
    sorted(
        n
        for n in CATALOG
        if n not in {"Bidirectional", "MultiHeadAttention", "LSTM"}
        and CATALOG[n]().layers[1:]
        and len(CATALOG[n]().inputs) == 1
    ),
)
def test_sequential_config_round_trip(name):
    source = CATALOG[name]()
    model = tfkit.Sequential(
        [tfkit.Input(source.inputs[0].shape[1:], dtype=source.inputs[0].dtype)]
        + [type(l).from_config(l.get_config()) for l in source.layers[1:]]
    )
    rebuilt = tfkit.Sequential.from_config(json.loads(json.dumps(model.get_config())))
    assert rebuilt.count_params() == model.count_params()
    assert summary_lines(rebuilt) == summary_lines(model)


def test_custom_layer_by_registered_name_and_custom_objects():
    class Doubler(tfkit.Layer):
        def call(self, x):
            return 2 * x

    x = tfkit.Input((3,))
    model = tfkit.Model(x, Doubler(name="doubler")(x))
    config = model.get_config()  # unregistered: saved by its class name, as data
    entry = config["layers"][1]
    assert (entry["class_name"], entry["registered_name"]) == ("Doubler", "Doubler")
    with pytest.raises(
        ValueError,
        match=r"^Unknown layer 'Doubler' \(saved from module '[\w.]+'\): "
        r"pass custom_objects=\{'Doubler': Doubler\}",
    ):
        tfkit.Model.from_config(config)
    with tfkit.saving.custom_object_scope({"Doubler": Doubler}):
        assert tfkit.Model.from_config(config).get_layer("doubler") is not None
    rebuilt = tfkit.Model.from_config(config, custom_objects={"Doubler": Doubler})
    np.testing.assert_array_equal(rebuilt(np.ones((1, 3), "float32")).numpy(), [[2.0, 2.0, 2.0]])
    tfkit.saving.register_serializable(package="configs_test")(Doubler)
    entry = model.get_config()["layers"][1]
    assert (entry["class_name"], entry["registered_name"]) == ("Doubler", "configs_test>Doubler")
    assert type(tfkit.Model.from_config(model.get_config()).get_layer("doubler")) is Doubler


def test_a_users_class_named_like_a_builtin_is_never_loaded_as_the_builtin():
    class Dense(tfkit.Layer):  # the user's own "Dense"
        def call(self, x):
            return x + 1

    x = tfkit.Input((2,))
    config = tfkit.Model(x, Dense(name="mine")(x)).get_config()
    with pytest.raises(ValueError, match="Unknown layer 'Dense'"):
        tfkit.Model.from_config(config)
    rebuilt = tfkit.Model.from_config(config, custom_objects={"Dense": Dense})
    assert type(rebuilt.get_layer("mine")) is Dense
