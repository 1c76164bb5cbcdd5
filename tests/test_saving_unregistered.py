"""Saving never requires registration; loading resolves classes by plain or registered keys."""

import json
import sys
import warnings

import h5py
import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


class CustomLayer(layers.Layer):
    """Unregistered; its get_config returns only its own arguments (no name), as the guides write it."""

    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal")

    def call(self, x):
        return tf.matmul(x, self.w)

    def get_config(self):
        return {"units": self.units}


@tfkit.saving.register_keras_serializable(package="test_unreg_pkg")
class Registered(CustomLayer):
    """The same layer, registered as ``test_unreg_pkg>Registered``."""


class Wrapper(layers.Layer):
    """Takes a layer object as a constructor argument and returns it from get_config()."""

    def __init__(self, layer, scale=2.0, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer
        self.scale = scale

    def call(self, x):
        return self.layer(x) * self.scale

    def get_config(self):
        return {**super().get_config(), "layer": self.layer, "scale": self.scale}


def _data(n=3, features=3):
    return np.random.default_rng(0).random((n, features)).astype("float32")


def _functional(cls=CustomLayer):
    x = tfkit.Input((3,))
    return tfkit.Model(x, layers.Dense(2)(cls(5, name="mine")(x)))


# -------------------------------------------------------------------- saving needs no registration


def test_config_names_unregistered_classes_as_data(tmp_path):
    model = _functional()
    entry = json.loads(model.to_json())["config"]["layers"][1]
    assert entry["class_name"] == "CustomLayer" and entry["registered_name"] == "CustomLayer"
    assert entry["module"] == __name__ and entry["name"] == "mine" and entry["config"] == {"units": 5}
    model.save(tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert json.loads(f.attrs["model_config"])["config"]["layers"][1]["class_name"] == "CustomLayer"


def test_registered_class_is_written_by_its_name_and_its_registration():
    entry = json.loads(_functional(Registered).to_json())["config"]["layers"][1]
    assert entry["class_name"] == "Registered" and entry["registered_name"] == "test_unreg_pkg>Registered"


@pytest.mark.parametrize("how", ["plain_key", "scope", "global_dict"])
def test_unregistered_layer_reloads_by_plain_class_name(tmp_path, how):
    model = _functional()
    model.save(tmp_path / "m.h5")
    if how == "plain_key":
        loaded = tfkit.load_model(tmp_path / "m.h5", custom_objects={"CustomLayer": CustomLayer})
    elif how == "scope":
        with tfkit.saving.custom_object_scope({"CustomLayer": CustomLayer}):
            loaded = tfkit.load_model(tmp_path / "m.h5")
    else:
        tfkit.saving.get_custom_objects()["CustomLayer"] = CustomLayer
        try:
            loaded = tfkit.load_model(tmp_path / "m.h5")
        finally:
            del tfkit.saving.get_custom_objects()["CustomLayer"]
    assert loaded.get_layer("mine").units == 5  # the name rode beside a config that lacked it
    np.testing.assert_array_equal(loaded(_data()).numpy(), model(_data()).numpy())


@pytest.mark.parametrize(
    "custom_objects", [None, {"test_unreg_pkg>Registered": Registered}, {"Registered": Registered}]
)
def test_registered_layer_reloads_by_registration_or_either_key(tmp_path, custom_objects):
    model = _functional(Registered)
    model.save(tmp_path / "m.h5")
    loaded = tfkit.load_model(tmp_path / "m.h5", custom_objects=custom_objects)
    assert type(loaded.get_layer("mine")) is Registered
    np.testing.assert_array_equal(loaded(_data()).numpy(), model(_data()).numpy())


def test_an_unknown_class_is_one_error_whose_first_line_names_the_key(tmp_path):
    _functional().save(tmp_path / "m.h5")
    with pytest.raises(ValueError) as info:
        tfkit.load_model(tmp_path / "m.h5")
    first = str(info.value).splitlines()[0]
    assert "Unknown layer 'CustomLayer'" in first
    assert "custom_objects={'CustomLayer': CustomLayer}" in first
    assert "register_keras_serializable" in first


def test_module_key_is_data_and_never_imported(tmp_path):
    config = json.loads(_functional().to_json())
    config["config"]["layers"][1]["module"] = "tfkit_never_imported_module"
    assert "tfkit_never_imported_module" not in sys.modules
    with pytest.raises(ValueError, match="Unknown layer 'CustomLayer'"):
        tfkit.models.model_from_json(json.dumps(config))
    model = tfkit.models.model_from_json(json.dumps(config), custom_objects={"CustomLayer": CustomLayer})
    assert model.get_layer("mine").units == 5 and "tfkit_never_imported_module" not in sys.modules


# -------------------------------------------------------------------- nested objects in configs


def test_a_nested_layer_argument_round_trips_in_functional_and_sequential(tmp_path):
    inner = layers.Dense(
        3,
        kernel_regularizer=tfkit.regularizers.L2(0.1),
        kernel_constraint=tfkit.constraints.NonNeg(),
        activation="relu",
        name="inner",
    )
    x = tfkit.Input((3,))
    functional = tfkit.Model(x, Wrapper(inner, scale=3.0, name="wrap")(x))
    sequential = tfkit.Sequential([tfkit.Input((3,)), Wrapper(layers.Dense(2), name="wrap")])
    for model in (functional, sequential):
        path = tmp_path / f"{model.name}.h5"
        model.save(path)
        loaded = tfkit.load_model(path, custom_objects={"Wrapper": Wrapper})
        wrap = loaded.get_layer("wrap")
        assert isinstance(wrap.layer, layers.Dense) and wrap.scale == model.get_layer("wrap").scale
        np.testing.assert_allclose(loaded(_data()).numpy(), model(_data()).numpy(), rtol=1e-6)
    revived = tfkit.load_model(tmp_path / f"{functional.name}.h5", custom_objects={"Wrapper": Wrapper})
    dense = revived.get_layer("wrap").layer
    assert dense.name == "inner" and isinstance(dense.kernel_regularizer, tfkit.regularizers.L2)
    assert isinstance(dense.kernel_constraint, tfkit.constraints.NonNeg)


class OnesInit(tfkit.initializers.Initializer):
    def __call__(self, shape, dtype=None):
        return tf.ones(shape, dtype=dtype or "float32")

    def get_config(self):
        return {}


def test_an_unknown_class_nested_in_a_config_names_itself_first(tmp_path):
    x = tfkit.Input((3,))
    hidden = layers.Dense(3, kernel_initializer=OnesInit())(x)
    model = tfkit.Model(x, Wrapper(CustomLayer(2, name="cl"), name="wrap")(hidden))
    model.save(tmp_path / "m.h5")
    everything = {"Wrapper": Wrapper, "CustomLayer": CustomLayer, "OnesInit": OnesInit}
    for left_out, kind in (("CustomLayer", "layer"), ("OnesInit", "initializer")):
        objects = {k: v for k, v in everything.items() if k != left_out}
        with pytest.raises(ValueError) as info:
            tfkit.load_model(tmp_path / "m.h5", custom_objects=objects)
        first = str(info.value).splitlines()[0]
        assert f"Unknown {kind} '{left_out}'" in first and f"custom_objects={{'{left_out}': {left_out}}}" in first
    loaded = tfkit.load_model(tmp_path / "m.h5", custom_objects=everything)
    assert loaded.get_layer("wrap").layer.name == "cl"
    np.testing.assert_array_equal(loaded(_data()).numpy(), model(_data()).numpy())


def test_building_blocks_and_losses_in_get_config_are_serialized_and_revived():
    class Holder(layers.Layer):
        def __init__(self, initializer, loss, activation, **kwargs):
            super().__init__(**kwargs)
            self.initializer, self.loss, self.activation = initializer, loss, activation

        def get_config(self):
            return {"initializer": self.initializer, "loss": self.loss, "activation": self.activation}

    layer = Holder(
        tfkit.initializers.RandomUniform(-1.0, 1.0),
        tfkit.losses.Huber(delta=2.0),
        tfkit.activations.gelu,
        name="holder",
    )
    config = tfkit.layers.serialize(layer)
    assert config["name"] == "holder" and config["config"]["loss"]["class_name"] == "Huber"
    assert json.loads(json.dumps(config)) == config  # plain data
    revived = tfkit.layers.deserialize(config, custom_objects={"Holder": Holder})
    assert revived.name == "holder" and revived.activation is tfkit.activations.gelu
    assert isinstance(revived.loss, tfkit.losses.Huber) and revived.loss.get_config()["delta"] == 2.0
    assert revived.initializer.get_config()["minval"] == -1.0


def test_custom_layer_in_sequential_keeps_its_name(tmp_path):
    model = tfkit.Sequential([tfkit.Input((3,)), CustomLayer(4, name="first"), layers.Dense(2)])
    model.save(tmp_path / "s.h5")
    loaded = tfkit.load_model(tmp_path / "s.h5", custom_objects={"CustomLayer": CustomLayer})
    assert [layer.name for layer in loaded.layers] == [layer.name for layer in model.layers]
    np.testing.assert_array_equal(loaded(_data()).numpy(), model(_data()).numpy())


def test_clone_model_needs_no_registration():
    model = _functional()
    clone = tfkit.models.clone_model(model)
    assert type(clone.get_layer("mine")) is CustomLayer and clone.get_layer("mine") is not model.get_layer("mine")
    assert clone(_data()).shape == (3, 2)


# -------------------------------------------------------------------- subclassed models


class Plain(tfkit.Model):
    """Constructor arguments are plain data and get_config is not overridden: captured automatically."""

    def __init__(self, units=3, activation="relu", **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = layers.Dense(units, activation=activation)
        self.head = layers.Dense(1)

    def call(self, x):
        return self.head(self.hidden(x))


class Holding(tfkit.Model):
    """Takes a layer object and has no get_config: its config cannot be captured."""

    def __init__(self, block):
        super().__init__()
        self.block = block
        self.head = layers.Dense(1)

    def call(self, x):
        return self.head(self.block(x))


def test_subclassed_model_with_plain_arguments_reloads(tmp_path):
    model = Plain(7, activation="tanh")
    model(_data())
    assert model.get_config()["units"] == 7
    model.save(tmp_path / "p.h5")
    loaded = tfkit.load_model(tmp_path / "p.h5", custom_objects={"Plain": Plain})
    assert type(loaded) is Plain and loaded.units == 7 and loaded.hidden.activation is tfkit.activations.tanh
    np.testing.assert_array_equal(loaded(_data()).numpy(), model(_data()).numpy())


def test_subclassed_model_without_a_config_saves_its_weights_and_load_says_what_to_implement(tmp_path):
    model = Holding(layers.Dense(4))
    model(_data())
    with pytest.raises(NotImplementedError, match="Implement get_config"):
        model.get_config()
    path = tmp_path / "h.h5"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.save(path)
    assert any("saved without a config" in str(w.message) and "block (Dense)" in str(w.message) for w in caught)
    with pytest.raises(ValueError) as info:
        tfkit.load_model(path, custom_objects={"Holding": Holding})
    message = str(info.value)
    assert "Model class 'Holding' was saved without a config" in message.splitlines()[0]
    assert "implement get_config() in Holding" in message and "model.load_weights(path)" in message
    with pytest.raises(ValueError, match="Model class 'Holding' was saved without a config"):
        tfkit.load_model(path)  # said first, even before the class is asked for
    rebuilt = Holding(layers.Dense(4))  # the weights in the file still load
    rebuilt.load_weights(path)
    np.testing.assert_array_equal(rebuilt(_data()).numpy(), model(_data()).numpy())


# -------------------------------------------------------------------- Keras-named entry points


def test_keras_named_entry_points():
    layer = CustomLayer(2, name="c")
    config = tfkit.saving.serialize_keras_object(layer)
    assert set(config) >= {"module", "class_name", "config", "registered_name"}
    assert config["registered_name"] == "CustomLayer"
    with pytest.raises(ValueError, match="custom_objects=\\{'CustomLayer': CustomLayer\\}"):
        tfkit.saving.deserialize_keras_object(config)
    revived = tfkit.saving.deserialize_keras_object(config, custom_objects={"CustomLayer": CustomLayer})
    assert type(revived) is CustomLayer and revived.name == "c" and revived.units == 2
    assert tfkit.saving.get_registered_name(Registered) == "test_unreg_pkg>Registered"
    assert tfkit.saving.get_registered_name(CustomLayer) == "CustomLayer"
    assert tfkit.saving.get_registered_object("test_unreg_pkg>Registered") is Registered
    assert tfkit.saving.get_registered_object("CustomLayer") is None
    assert tfkit.saving.get_registered_object("CustomLayer", custom_objects={"CustomLayer": CustomLayer}) is CustomLayer
    with tfkit.saving.CustomObjectScope({"CustomLayer": CustomLayer}):
        assert type(tfkit.layers.deserialize(tfkit.layers.serialize(layer))) is CustomLayer
    assert tfkit.saving.register_keras_serializable is tfkit.saving.register_serializable


def test_serialized_layout_matches_keras_for_a_registered_class():
    keras = pytest.importorskip("keras")

    @keras.saving.register_keras_serializable(package="test_unreg_pkg")
    class KerasRegistered(keras.layers.Layer):
        pass

    theirs = keras.saving.serialize_keras_object(KerasRegistered())
    ours = tfkit.saving.serialize_keras_object(Registered(1))
    assert theirs["class_name"] == "KerasRegistered" and ours["class_name"] == "Registered"
    assert theirs["registered_name"].split(">")[0] == ours["registered_name"].split(">")[0] == "test_unreg_pkg"
    assert {"module", "class_name", "config", "registered_name"} <= set(theirs) & set(ours)
