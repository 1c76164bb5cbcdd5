"""TFSMLayer: tfkit exports and plain SavedModels as layers, training endpoints, fine-tuning, and safe mode on load."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.base import settings

RNG = np.random.RandomState(2)
X = RNG.randn(3, 4).astype("float32")


@pytest.fixture(autouse=True)
def safe_by_default():
    """Another test may have called enable_unsafe_deserialization(); these start from Keras's default."""
    before = settings.unsafe_deserialization()
    settings.set_unsafe_deserialization(False)
    yield
    settings.set_unsafe_deserialization(before)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A tfkit model and its export (endpoint "serve": the model's inputs, a dict of named outputs)."""
    x = tfkit.Input((4,), name="x")
    model = tfkit.Model(x, layers.Dense(3, name="out")(layers.BatchNormalization(name="bn")(x)))
    for w in model.weights:
        w.assign(RNG.uniform(0.5, 1.5, w.shape).astype("float32"))
    folder = str(tmp_path_factory.mktemp("export") / "1")
    model.export(folder, verbose=False)
    return model, folder


class Scale(tf.Module):
    """A plain SavedModel: serving uses the weights as they are, training adds one."""

    def __init__(self):
        super().__init__()
        self.w = tf.Variable(RNG.randn(4, 2).astype("float32"), name="w")
        self.s = tf.Variable(2.0, trainable=False, name="s")

    @tf.function(input_signature=[tf.TensorSpec((None, 4), tf.float32, name="x")])
    def __call__(self, x):
        return tf.matmul(x, self.w) * self.s

    @tf.function(input_signature=[tf.TensorSpec((None, 4), tf.float32, name="x")])
    def train(self, x):
        return tf.matmul(x, self.w) * self.s + 1.0


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    module = Scale()
    folder = str(tmp_path_factory.mktemp("plain"))
    tf.saved_model.save(module, folder, signatures={"serving_default": module.__call__})
    return module, folder


def test_a_tfkit_export_is_a_layer(exported):
    model, folder = exported
    layer = layers.TFSMLayer(folder)
    got = layer(X)
    assert isinstance(got, tf.Tensor)  # the export's serve endpoint returns the model's output, as Keras 3's
    np.testing.assert_allclose(got.numpy(), model.predict(X, verbose=0), rtol=1e-6)
    assert sorted(layer.weight_paths()) == sorted(
        f"endpoint_variables/{n}"
        for n in ["bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_variance", "out_kernel", "out_bias"]
    )
    assert len(layer.trainable_weights) == 4 and len(layer.non_trainable_weights) == 2
    np.testing.assert_allclose(tf.function(lambda t: layer(t))(X).numpy(), got.numpy(), rtol=1e-6)


def test_a_plain_saved_model_by_signature_and_the_training_endpoint(plain):
    module, folder = plain
    with pytest.raises(
        ValueError,
        match=r"call_endpoint='serve' is neither an attribute nor a signature .*"
        r"endpoints are \['__call__', 'serving_default'\]",
    ):
        layers.TFSMLayer(folder, name="sm")
    want = X @ module.w.numpy() * 2.0
    by_signature = layers.TFSMLayer(folder, call_endpoint="serving_default")
    np.testing.assert_allclose(by_signature(X)["output_0"].numpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(by_signature({"x": X})["output_0"].numpy(), want, rtol=1e-5, atol=1e-5)
    layer = layers.TFSMLayer(folder, call_endpoint="__call__", call_training_endpoint="train")
    np.testing.assert_allclose(layer(X).numpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(layer(X, training=True).numpy(), want + 1.0, rtol=1e-5, atol=1e-5)
    assert [w.trainable for w in layer.weights] == [True, False]


def test_matches_keras(exported):
    keras = pytest.importorskip("keras")
    _, folder = exported
    ours, theirs = layers.TFSMLayer(folder), keras.layers.TFSMLayer(folder)
    np.testing.assert_allclose(ours(X).numpy(), keras.ops.convert_to_numpy(theirs(X)), rtol=1e-6)
    assert sorted(ours.get_config()) == sorted(theirs.get_config())
    assert {k: ours.get_config()[k] for k in ("filepath", "call_endpoint", "call_training_endpoint")} == {
        k: theirs.get_config()[k] for k in ("filepath", "call_endpoint", "call_training_endpoint")
    }
    assert len(ours.weights) == len(theirs.weights) and len(ours.trainable_weights) == len(theirs.trainable_weights)


def fine_tuned_model(folder):
    x = tfkit.Input((4,))
    reloaded = layers.TFSMLayer(folder, name="reloaded")
    model = tfkit.Model(x, layers.Dense(1, name="head")(reloaded(x)))
    model.compile(optimizer=tfkit.optimizers.SGD(0.1), loss="mse")
    before = reloaded.endpoint_variables["out_kernel"].numpy().copy()
    model.fit(X, np.ones((3, 1), "float32"), epochs=2, verbose=0)
    assert not np.allclose(before, reloaded.endpoint_variables["out_kernel"].numpy())  # the SavedModel's own weights
    return model


def test_safe_mode_refuses_the_folder_a_file_names_and_false_loads_it(exported, tmp_path):
    _, folder = exported
    model = fine_tuned_model(folder)
    path = str(tmp_path / "tuned.h5")
    model.save(path)
    size = os.path.getsize(path)
    with pytest.raises(
        ValueError,
        match=r"Refused to rebuild TFSMLayer 'reloaded' from a config: it would load the "
        r"SavedModel folder '.*1' .*safe_mode=False",
    ):
        tfkit.load_model(path)
    assert os.path.getsize(path) == size
    loaded = tfkit.load_model(path, safe_mode=False)
    np.testing.assert_allclose(loaded.predict(X, verbose=0), model.predict(X, verbose=0), rtol=1e-5)
    config = model.get_layer("reloaded").get_config()
    with pytest.raises(ValueError, match="Refused to rebuild TFSMLayer"):
        layers.TFSMLayer.from_config(config)
    with pytest.raises(ValueError, match="Refused to rebuild TFSMLayer"):
        tfkit.saving.deserialize({"class_name": "TFSMLayer", "config": config})
    rebuilt = tfkit.saving.deserialize({"class_name": "TFSMLayer", "config": config}, safe_mode=False)
    assert rebuilt.get_config() == config
    with pytest.warns(UserWarning):
        tfkit.config.enable_unsafe_deserialization()
    assert type(layers.TFSMLayer.from_config(json.loads(json.dumps(config)))) is layers.TFSMLayer


def test_a_model_holding_one_exports_again(exported, tmp_path):
    _, folder = exported
    x = tfkit.Input((4,), name="x")
    model = tfkit.Model(x, layers.TFSMLayer(folder)(x) * 2.0)
    model.export(str(tmp_path / "again"), verbose=False)
    again = tf.saved_model.load(str(tmp_path / "again"))  # held: its functions read its variables
    served = again.serve(tf.constant(X))  # the model's output itself, as Keras 3's serve
    np.testing.assert_allclose(served.numpy(), model.predict(X, verbose=0), rtol=1e-6)


def test_errors_name_the_layer_and_the_folder(tmp_path):
    with pytest.raises(ValueError, match=r"TFSMLayer layer 'sm': '.*nowhere' is not a SavedModel folder"):
        layers.TFSMLayer(str(tmp_path / "nowhere"), name="sm")
