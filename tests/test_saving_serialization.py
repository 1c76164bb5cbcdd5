"""serialize / deserialize for every kind of object, and the refusal of code in configs."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.base import registry
from tfkit.saving import deserialize, serialize


def round_trip(obj, **kwargs):
    config = serialize(obj)
    json.dumps(config)  # plain data
    return config, deserialize(json.loads(json.dumps(config)), **kwargs)


def test_layer_with_building_blocks():
    dense = layers.Dense(
        4,
        activation="relu",
        kernel_initializer=tfkit.initializers.HeNormal(seed=3),
        kernel_regularizer=tfkit.regularizers.L2(0.01),
        kernel_constraint="max_norm",
        name="d",
    )
    config, twin = round_trip(dense)
    assert config["class_name"] == "Dense" and config["kind"] == "layers"
    assert type(twin) is layers.Dense and twin.get_config() == dense.get_config()


def test_models_serialize_and_come_back_built():
    x = tfkit.Input((3,), name="x")
    model = tfkit.Model(x, layers.Dense(2, name="out")(x), name="tiny")
    config, twin = round_trip(model)
    assert config["class_name"] == "Functional"
    assert isinstance(twin, tfkit.Functional) and twin.built and twin.name == "tiny"
    assert [w.shape for w in twin.weights] == [w.shape for w in model.weights]


@pytest.mark.parametrize(
    "obj, kind",
    [
        (tfkit.initializers.RandomUniform(-0.1, 0.2, seed=1), "initializers"),
        (tfkit.regularizers.L1L2(l1=0.1, l2=0.2), "regularizers"),
        (tfkit.constraints.MinMaxNorm(0.5, 2.0), "constraints"),
        (tfkit.losses.Huber(delta=2.0), "losses"),
        (tfkit.metrics.AUC(num_thresholds=50), "metrics"),
        (tfkit.optimizers.Adam(learning_rate=0.01, beta_1=0.8), "optimizers"),
        (tfkit.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5), "schedules"),
    ],
)
def test_objects_of_every_kind(obj, kind):
    config, twin = round_trip(obj)
    assert config["kind"] == kind
    assert type(twin) is type(obj)
    assert twin.get_config() == obj.get_config()


def test_optimizer_with_a_schedule():
    schedule = tfkit.optimizers.schedules.CosineDecay(0.1, decay_steps=100)
    _, twin = round_trip(tfkit.optimizers.SGD(learning_rate=schedule, momentum=0.5))
    assert isinstance(twin._state.schedule, tfkit.optimizers.schedules.CosineDecay)
    assert float(twin.learning_rate) == pytest.approx(0.1)


def test_functions_are_saved_by_name():
    assert serialize(tfkit.activations.gelu) == "gelu"
    assert deserialize("gelu", kind="activations") is tfkit.activations.gelu
    assert deserialize("tanh") is tfkit.activations.tanh  # one table knows it
    assert serialize(tfkit.losses.mean_squared_error) == "mean_squared_error"
    with pytest.raises(ValueError, match="pass kind="):
        deserialize("mse")  # a loss and a metric
    assert isinstance(deserialize("mse", kind="losses"), tfkit.losses.MeanSquaredError)


def test_lambdas_cannot_be_saved():
    with pytest.raises(ValueError, match="a lambda"):
        serialize(lambda x: x)


def test_registered_custom_objects_and_custom_objects_argument(monkeypatch):
    class Halve(tfkit.Layer):
        def call(self, x):
            return x / 2

    registry.register_serializable(package="test_serialization")(Halve)
    monkeypatch.setitem(registry._CUSTOM, "test_serialization>Halve", Halve)
    config = serialize(Halve(name="h"))
    assert config["class_name"] == "Halve" and config["registered_name"] == "test_serialization>Halve"
    assert type(deserialize(config)) is Halve
    monkeypatch.delitem(registry._CUSTOM, "test_serialization>Halve")
    with pytest.raises(ValueError, match="Unknown layer 'test_serialization>Halve'"):
        deserialize(config)
    assert type(deserialize(config, custom_objects={"test_serialization>Halve": Halve})) is Halve
    with tfkit.saving.custom_object_scope({"test_serialization>Halve": Halve}):
        assert type(deserialize(config)) is Halve
    assert type(deserialize(config, custom_objects={"Halve": Halve})) is Halve  # the plain key works too


@pytest.mark.parametrize("safe_mode", [True, False])
def test_code_in_a_config_is_refused_even_with_safe_mode_false(safe_mode):
    code = {
        "class_name": "Lambda",
        "config": {
            "name": "l",
            "function": {"class_name": "__lambda__", "config": {"code": "4wAAAAA=", "defaults": None, "closure": None}},
        },
    }
    with pytest.raises(ValueError, match="no code deserializer"):
        deserialize(code, safe_mode=safe_mode)


@pytest.mark.parametrize(
    "config, message",
    [
        ({"class_name": "system", "module": "os", "config": {}}, r"Unknown layer 'system' \(saved from module 'os'\)"),
        ({"class_name": "Dense", "config": {"units": 1, "safe_mode": False}}, "cannot change safe_mode"),
        ({"class_name": "os.system", "config": {}, "kind": "layers"}, "never module paths"),
        ("subprocess.Popen", "never module paths"),
    ],
)
def test_module_paths_and_safe_mode_switches_are_refused(config, message):
    with pytest.raises(ValueError, match=message):
        deserialize(config)


def test_safe_mode_must_be_a_bool():
    with pytest.raises(ValueError, match="safe_mode"):
        deserialize("relu", safe_mode="off")


def test_lambda_with_registered_function_round_trips():
    @tfkit.saving.register_serializable(package="test_serialization")
    def add_one(x):
        return x + 1.0

    config, twin = round_trip(layers.Lambda(add_one, name="plus"))
    assert config["config"]["function"] == "test_serialization>add_one"
    np.testing.assert_array_equal(twin(tf.zeros((1, 2))).numpy(), [[1.0, 1.0]])
    with pytest.raises(ValueError, match="register"):
        serialize(layers.Lambda(lambda x: x + 1.0))


def test_compile_config_round_trip():
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2, name="out")])
    model.compile(
        optimizer=tfkit.optimizers.RMSprop(learning_rate=0.003),
        loss=tfkit.losses.Huber(delta=0.5),
        metrics=["mae", tfkit.metrics.RootMeanSquaredError()],
        steps_per_execution=2,
    )
    config = model.get_compile_config()
    json.dumps(config)
    twin = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2, name="out")])
    twin.compile_from_config(json.loads(json.dumps(config)))
    assert type(twin.optimizer) is tfkit.optimizers.RMSprop
    assert float(twin.optimizer.learning_rate.numpy()) == pytest.approx(0.003)
    assert twin.get_compile_config() == config
    with pytest.raises(ValueError, match="unknown entries"):
        twin.compile_from_config({**config, "run_this": "os.system"})
