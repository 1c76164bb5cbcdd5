"""The ``Wrapper`` base class: a user's wrapper builds, saves and loads its layer; TimeDistributed derives from it."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


@tfkit.saving.register_serializable(package="test_layers_wrapper")
class Scaled(layers.Wrapper):
    """The wrapped layer's output times ``factor``: the guide's kind of wrapper."""

    def __init__(self, layer, factor=2.0, **kwargs):
        super().__init__(layer, **kwargs)
        self.factor = factor

    def call(self, inputs):
        return self.layer(inputs) * self.factor

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def test_a_subclass_builds_the_wrapped_layer_and_computes_by_hand():
    dense = layers.Dense(2, name="inner")
    wrapper = Scaled(dense, factor=3.0, name="scaled")
    wrapper.build((None, 4))
    assert dense.built and [tuple(w.shape) for w in wrapper.weights] == [(4, 2), (2,)]
    dense.kernel.assign(np.arange(8, dtype="float32").reshape(4, 2))
    dense.bias.assign([1.0, -1.0])
    x = np.array([[1.0, 0.0, 2.0, -1.0]], dtype="float32")
    np.testing.assert_allclose(wrapper(x).numpy(), 3.0 * (x @ np.arange(8).reshape(4, 2) + [1.0, -1.0]))
    assert list(wrapper.weight_paths()) == ["layer/kernel", "layer/bias"]


def test_config_holds_the_wrapped_layer_and_round_trips():
    wrapper = Scaled(layers.Dense(3, activation="relu"), factor=0.5, name="half")
    config = json.loads(json.dumps(wrapper.get_config()))
    assert config["layer"]["class_name"] == "Dense" and config["layer"]["config"]["units"] == 3
    assert config["factor"] == 0.5 and config["name"] == "half"
    twin = Scaled.from_config(config)
    assert isinstance(twin.layer, layers.Dense) and twin.layer is not wrapper.layer
    assert json.loads(json.dumps(twin.get_config())) == config


def test_a_model_with_a_wrapper_saves_and_loads(tmp_path):
    x = tfkit.Input((4,))
    model = tfkit.Model(x, Scaled(layers.Dense(2), factor=-1.5, name="scaled")(x))
    data = np.random.RandomState(0).randn(3, 4).astype("float32")
    model.save(str(tmp_path / "wrapped.h5"))
    loaded = tfkit.load_model(str(tmp_path / "wrapped.h5"))
    assert type(loaded.get_layer("scaled")) is Scaled and loaded.get_layer("scaled").factor == -1.5
    np.testing.assert_allclose(loaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-6)


def test_wrappers_and_bidirectional_are_related_as_in_keras():
    assert issubclass(layers.TimeDistributed, layers.Wrapper)
    assert not issubclass(layers.Bidirectional, layers.Wrapper)
    td = layers.TimeDistributed(layers.Dense(2))
    y = tf.function(lambda t: td(t))(tf.ones((2, 5, 3)))
    assert y.shape == (2, 5, 2) and td.layer.built
    keras = pytest.importorskip("keras")
    assert issubclass(keras.layers.TimeDistributed, keras.layers.Wrapper)
    assert not issubclass(keras.layers.Bidirectional, keras.layers.Wrapper)
    assert set(td.get_config()) == set(keras.layers.TimeDistributed(keras.layers.Dense(2)).get_config())


def test_time_distributed_keeps_its_saved_layout():
    x = tfkit.Input((5, 3))
    td = layers.TimeDistributed(layers.Dense(2), name="td")
    model = tfkit.Model(x, td(x))
    assert list(model.weight_paths()) == ["td/layer/kernel", "td/layer/bias"]
    assert list(td.get_config()) == ["name", "trainable", "dtype", "layer"]


def test_something_not_a_layer_is_refused_by_name():
    with pytest.raises(ValueError, match=r"Scaled layer 'bad' expected layer to be a tfkit Layer, got int: 3"):
        Scaled(3, name="bad")
