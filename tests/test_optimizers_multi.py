"""Keras 3's MultiOptimizer and OptimizerMap (issue 19): dispatch by variable path, numbers against Keras,
configs, errors, fit compiled and eager, save/load."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers, optimizers
from tfkit.optimizers import MultiOptimizer, OptimizerMap

RNG = np.random.default_rng(11)
SPECS = [("enc/kernel", (3, 4)), ("enc/bias", (4,)), ("dec/kernel", (4, 2)), ("dec/bias", (2,))]
INITIAL = [RNG.normal(size=shape).astype("float32") for _, shape in SPECS]
GRADS = [[RNG.normal(size=shape).astype("float32") for _, shape in SPECS] for _ in range(4)]


def _multi(module):
    o = module.optimizers
    return o.MultiOptimizer(
        o.OptimizerMap(
            o.SGD(0.1, momentum=0.5),
            {"enc/.*": o.Adam(0.01, use_ema=True, global_clipnorm=1.0), "dec/bias": o.RMSprop()},
        ),
        loss_scale_factor=2.0,
    )


def test_four_steps_and_variable_layout_match_keras():
    keras = pytest.importorskip("keras")
    theirs = _multi(keras)
    keras_variables = []
    for x, (name, _) in zip(INITIAL, SPECS):
        scope, leaf = name.split("/")
        with keras.name_scope(scope):
            keras_variables.append(keras.Variable(x, name=leaf))
    ours = _multi(tfkit)
    variables = [tf.Variable(x, name=name) for x, (name, _) in zip(INITIAL, SPECS)]
    for grads in GRADS:
        theirs.apply(grads, keras_variables)
        ours.apply(grads, variables)
    for a, b in zip(variables, keras_variables):  # Adam's fused kernel: within a few parts in a million of Keras
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-5, atol=1e-6)
    # the same variables in the same order: its own iteration and learning rate, then each inner optimizer's
    assert [v.name.split(":")[0] for v in ours.variables] == [v.path.split("/", 1)[1] for v in theirs.variables]
    for a, b in zip(ours.variables, theirs.variables):
        np.testing.assert_allclose(a.numpy(), np.asarray(b.numpy()), rtol=2e-5, atol=1e-6)
    assert [type(o).__name__ for o in ours.optimizers] == [type(o).__name__ for o in theirs.optimizers]
    assert [int(o.iterations) for o in ours.optimizers] == [4, 4, 4] and int(ours.iterations) == 4
    assert ours.get_config()["name"] == theirs.get_config()["name"] == "multi_optimizer"


def test_optimizer_map_lookup_rules():
    adam, sgd, rmsprop = optimizers.Adam(), optimizers.SGD(), optimizers.RMSprop()
    mapping = OptimizerMap(default_optimizer=rmsprop)
    mapping["encoder/layer_0/dense"] = adam
    mapping["encoder/.*"] = sgd
    mapping["decoder"] = adam
    assert mapping["decoder"] is adam  # exact key
    assert mapping["encoder/layer_0/dense"] is adam  # exact beats a matching pattern
    assert mapping["encoder/layer_0/attention/query"] is sgd
    assert mapping["decoder/layer_0/dense"] is rmsprop  # patterns match in full: "decoder" is not a prefix
    assert (
        mapping.default_optimizer is rmsprop
        and len(mapping) == 3
        and list(mapping) == ["encoder/layer_0/dense", "encoder/.*", "decoder"]
    )
    assert mapping(tf.Variable(1.0, name="encoder/x/kernel")) is sgd  # a variable by its path
    mapping["enc.*"] = adam
    with pytest.raises(ValueError, match=r"Multiple optimizers assigned to variable 'encoder/b'"):
        mapping["encoder/b"]
    del mapping["enc.*"]
    assert mapping["encoder/b"] is sgd


@pytest.mark.parametrize(
    "key, value, error, message",
    [
        ("decoder", optimizers.SGD(), ValueError, "'decoder' already maps to"),
        (3, optimizers.SGD(), ValueError, "a key must be a string"),
        ("(", optimizers.SGD(), ValueError, r"key '\(' is not a regular expression"),
        ("x", "adam", ValueError, r"OptimizerMap\['x'\] must be a tfkit optimizer instance, got str"),
        ("x", optimizers.LossScaleOptimizer(optimizers.SGD()), ValueError, "cannot be a LossScaleOptimizer"),
        ("x", MultiOptimizer(OptimizerMap(optimizers.SGD())), ValueError, "cannot be a MultiOptimizer"),
    ],
)
def test_optimizer_map_refuses_bad_entries(key, value, error, message):
    mapping = OptimizerMap(optimizers.Adam(), {"decoder": optimizers.Adam()})
    with pytest.raises(error, match=message):
        mapping[key] = value


def test_constructor_errors_say_what_came():
    with pytest.raises(TypeError, match="default_optimizer must be a tfkit optimizer instance, got str"):
        OptimizerMap("adam")
    with pytest.raises(TypeError, match="optimizer_map must be a dict"):
        OptimizerMap(optimizers.Adam(), [("a", optimizers.SGD())])
    with pytest.raises(TypeError, match="optimizer_map must be an OptimizerMap or a function"):
        MultiOptimizer(3)
    multi = MultiOptimizer(lambda variable: "sgd")
    with pytest.raises(ValueError, match="the optimizer for variable 'enc/kernel' must be a tfkit optimizer"):
        multi.build([tf.Variable(INITIAL[0], name="enc/kernel")])


def test_learning_rate_lives_on_the_inner_optimizers_and_loss_scale_factor_reaches_them():
    multi = _multi(tfkit)
    with pytest.raises(AttributeError, match="Learning rate cannot be accessed on a MultiOptimizer"):
        multi.learning_rate
    with pytest.raises(AttributeError, match="Learning rate cannot be set on a MultiOptimizer"):
        multi.learning_rate = 0.1
    assert [o.loss_scale_factor for o in multi.optimizers] == [2.0, 2.0, 2.0]
    multi.loss_scale_factor = 8.0
    assert [o.loss_scale_factor for o in multi.optimizers] == [8.0, 8.0, 8.0]
    assert float(multi.scale_loss(tf.constant(1.5))) == 12.0


@tfkit.saving.register_keras_serializable(package="test_multi")
def by_layer(variable):
    return optimizers.Adam(0.01) if variable.name.startswith("enc/") else optimizers.SGD(0.1)


def test_a_registered_function_picks_and_round_trips():
    multi = MultiOptimizer(by_layer)
    variables = [tf.Variable(x, name=name) for x, (name, _) in zip(INITIAL, SPECS)]
    multi.apply(GRADS[0], variables)
    # as in Keras, each call of the function makes a new optimizer: one per variable here
    assert [type(o).__name__ for o in multi.optimizers] == ["Adam", "Adam", "SGD", "SGD"]
    config = multi.get_config()
    assert config["optimizer_map"]["class_name"] == "function"
    assert config["optimizer_map"]["registered_name"] == "test_multi>by_layer"
    twin = optimizers.deserialize(optimizers.serialize(multi))
    assert twin._optimizer_map is by_layer and twin.get_config() == config
    with pytest.raises(ValueError, match="has no name to be saved under"):
        MultiOptimizer(lambda v: optimizers.SGD()).get_config()


def test_config_round_trip_keeps_the_map():
    multi = _multi(tfkit)
    twin = optimizers.deserialize(optimizers.serialize(multi))
    assert type(twin) is MultiOptimizer and twin.get_config() == multi.get_config()
    assert [type(o).__name__ for o in twin.optimizers] == ["Adam", "RMSprop", "SGD"]
    assert twin._optimizer_map["enc/kernel"] is twin.optimizers[0]
    with pytest.raises(ValueError, match="optimizer_map must be a serialized OptimizerMap or a registered function"):
        MultiOptimizer.from_config({"optimizer_map": {"class_name": "Adam", "config": {}}})


def test_none_gradients_are_skipped_and_under_a_loss_scale_optimizer():
    variables = [tf.Variable(x, name=name) for x, (name, _) in zip(INITIAL, SPECS)]
    multi = MultiOptimizer(OptimizerMap(optimizers.SGD(0.1), {"enc/.*": optimizers.Adam(0.01)}))
    with pytest.warns(UserWarning, match=r"Gradients do not exist for variables \['dec/kernel', 'dec/bias'\]"):
        multi.apply(GRADS[0][:2] + [None, None], variables)
    np.testing.assert_array_equal(variables[2].numpy(), INITIAL[2])
    assert [int(o.iterations) for o in multi.optimizers] == [1, 0]
    with pytest.raises(ValueError, match="no gradients were given for any variable"):
        multi.apply([None] * 4, variables)
    scaled = optimizers.LossScaleOptimizer(MultiOptimizer(OptimizerMap(optimizers.SGD(0.1))), initial_scale=4.0)
    w = tf.Variable([1.0], name="w")
    scaled.apply([tf.constant([4.0])], [w])  # 4 / scale 4 = 1: w = 1 - 0.1
    np.testing.assert_allclose(w.numpy(), [0.9])


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["compiled", "eager"])
def test_fit_save_load_keep_training(run_eagerly, tmp_path):
    x = RNG.random((16, 3)).astype("float32")
    y = x @ RNG.normal(size=(3, 2)).astype("float32")
    model = tfkit.Sequential(
        [tfkit.Input((3,)), layers.Dense(4, activation="relu", name="enc"), layers.Dense(2, name="dec")]
    )
    multi = MultiOptimizer(OptimizerMap(optimizers.SGD(0.05, momentum=0.9), {"enc/.*": optimizers.Adam(0.01)}))
    model.compile(optimizer=multi, loss="mse", run_eagerly=run_eagerly)
    model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    assert [int(o.iterations) for o in multi.optimizers] == [8, 8] and int(multi.iterations) == 8
    assert len(multi.optimizers[0].variables) == 2 + 4  # Adam: m and v of enc's kernel and bias
    path = str(tmp_path / "model.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    assert type(loaded.optimizer) is MultiOptimizer
    assert loaded.optimizer.get_config() == multi.get_config()
    assert len(loaded.optimizer.variables) == len(multi.variables)
    for a, b in zip(multi.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(b.numpy(), a.numpy())
    expected = model.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False).history["loss"]
    got = loaded.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False).history["loss"]
    assert got == pytest.approx(expected, rel=1e-5)
