"""Whole-model .h5 files: the guide's VAE, functional and sequential models, compile state, custom classes."""

import json
import os
import pathlib
import sys
import warnings

import h5py
import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.base import registry

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
import vae_mnist  # noqa: E402  (registers the guide's classes as "vae_mnist>...")


def small_vae(compile=True):
    vae = vae_mnist.VariationalAutoEncoder(20, 8, 4)
    if compile:
        vae.compile(tfkit.optimizers.Adam(learning_rate=1e-2), loss=tfkit.losses.MeanSquaredError())
    return vae


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    return rng.uniform(0, 1, (64, 20)).astype("float32")


def _trained(data):
    vae = small_vae()
    vae.fit(data, data, epochs=2, batch_size=16, verbose=0)
    return vae


@pytest.fixture(scope="module")
def saved_vae(data, tmp_path_factory):
    """A trained VAE and its file; tests must not train or change it."""
    vae = _trained(data)
    path = str(tmp_path_factory.mktemp("vae") / "vae.h5")
    vae.save(path)
    return vae, path


def _weights_equal(a, b):
    assert list(a.weight_paths()) == list(b.weight_paths())
    for (path, x), y in zip(a.weight_paths().items(), b.weight_paths().values()):
        np.testing.assert_array_equal(x.numpy(), y.numpy(), err_msg=path)


def test_vae_round_trip_needs_no_build_and_predicts_identically(saved_vae, data):
    vae, path = saved_vae
    loaded = tfkit.load_model(path)
    assert type(loaded) is vae_mnist.VariationalAutoEncoder
    assert loaded.built and len(loaded.weights) == len(vae.weights)  # nobody called it
    _weights_equal(vae, loaded)
    seed = vae.encoder.sampling.seed_generator.state.numpy()
    np.testing.assert_array_equal(loaded.encoder.sampling.seed_generator.state.numpy(), seed)
    assert seed[1] > 0  # training advanced the generator; the file kept where it stopped
    for a, b in zip(vae.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # Both generators are at the same state: the same batch draws the same noise.
    twin = tfkit.load_model(path)
    np.testing.assert_array_equal(loaded.predict(data[:8], verbose=0), twin.predict(data[:8], verbose=0))


def test_file_layout_is_readable_with_plain_h5py(saved_vae):
    vae, path = saved_vae
    with h5py.File(path, "r") as f:
        assert f.attrs["format"] == "tfkit"
        assert int(f.attrs["format_version"]) == 2
        assert f.attrs["kind"] == "model"
        config = json.loads(f.attrs["model_config"])
        assert config["class_name"] == "VariationalAutoEncoder"
        assert config["registered_name"] == "vae_mnist>VariationalAutoEncoder"
        assert config["config"]["original_dim"] == 20
        assert json.loads(f.attrs["build_config"]) == {"input_shape": [None, 20]}
        compiled = json.loads(f.attrs["compile_config"])
        assert compiled["optimizer"]["class_name"] == "Adam"
        kernel = f["weights/encoder/dense_proj/kernel"]
        assert kernel.shape == (20, 8) and kernel.dtype == np.float32
        np.testing.assert_array_equal(kernel[()], vae.encoder.dense_proj.kernel.numpy())
        assert f["state/encoder/sampling/seed_generator/state"].dtype == np.int64
        optimizer = f["optimizer"]
        assert int(optimizer["0"][()]) == int(vae.optimizer.iterations.numpy()) == 8
        assert len(optimizer) == len(vae.optimizer.variables)
        assert "name" in optimizer["2"].attrs
        assert "training/data_seed" in f


def test_training_after_reload_continues_exactly_where_it_stopped(data, tmp_path):
    vae = _trained(data)
    path = str(tmp_path / "vae.h5")
    vae.save(path)
    loaded = tfkit.load_model(path)
    assert type(loaded.optimizer) is tfkit.optimizers.Adam
    vae.reset_metrics()
    loaded.reset_metrics()
    batch = data[:16]
    expected = vae.train_on_batch(batch, batch)
    assert loaded.train_on_batch(batch, batch) == pytest.approx(expected, rel=1e-6)
    _weights_equal(vae, loaded)  # same Adam moments, same step count, same noise
    expected = vae.fit(data, data, epochs=1, batch_size=16, verbose=0).history["loss"]
    got = loaded.fit(data, data, epochs=1, batch_size=16, verbose=0).history["loss"]
    assert got == pytest.approx(expected, rel=1e-6)  # same shuffling order too
    _weights_equal(vae, loaded)


def test_compile_false_gives_an_uncompiled_model(saved_vae, data):
    _, path = saved_vae
    loaded = tfkit.load_model(path, compile=False)
    assert not loaded.compiled
    np.testing.assert_array_equal(loaded(data[:4]).numpy().shape, (4, 20))


def test_functional_multi_output_with_metrics_round_trips(tmp_path):
    x = tfkit.Input((6,), name="features")
    h = layers.Dense(8, activation="relu", name="hidden")(x)
    model = tfkit.Model(x, {"score": layers.Dense(1, name="score")(h), "label": layers.Dense(3, name="label")(h)})
    model.compile(
        optimizer=tfkit.optimizers.SGD(learning_rate=0.1, momentum=0.9),
        loss={"score": "mse", "label": tfkit.losses.SparseCategoricalCrossentropy(from_logits=True)},
        metrics={"label": ["accuracy"]},
        loss_weights={"score": 0.5, "label": 1.0},
    )
    rng = np.random.RandomState(1)
    xs = rng.normal(size=(32, 6)).astype("float32")
    ys = {"score": rng.normal(size=(32, 1)).astype("float32"), "label": rng.randint(0, 3, (32,))}
    model.fit(xs, ys, epochs=1, batch_size=8, verbose=0)
    path = str(tmp_path / "functional.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    assert isinstance(loaded, tfkit.Functional)
    assert [l.name for l in loaded.layers] == [l.name for l in model.layers]
    for key, value in model.predict(xs, verbose=0).items():
        np.testing.assert_allclose(loaded.predict(xs, verbose=0)[key], value, rtol=1e-6)
    assert loaded.get_compile_config() == model.get_compile_config()
    model.reset_metrics()
    loaded.reset_metrics()
    expected = model.train_on_batch(xs, ys, return_dict=True)
    got = loaded.train_on_batch(xs, ys, return_dict=True)
    assert got["loss"] == pytest.approx(expected["loss"], rel=1e-5)
    assert got["label_accuracy"] == pytest.approx(expected["label_accuracy"])
    for a, b in zip(model.weights, loaded.weights):  # SGD momentum restored: same step
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)


def test_sequential_built_by_a_call_round_trips(tmp_path):
    model = tfkit.Sequential([layers.Dense(4, activation="relu"), layers.Dense(2)])
    x = np.random.RandomState(2).normal(size=(5, 3)).astype("float32")
    expected = model(x).numpy()
    path = str(tmp_path / "seq.h5")
    tfkit.save_model(model, path)
    loaded = tfkit.load_model(path)
    assert loaded.built and [w.shape for w in loaded.weights] == [w.shape for w in model.weights]
    np.testing.assert_allclose(loaded(x).numpy(), expected, rtol=1e-6)


class Scale(tfkit.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.w * self.factor


@pytest.fixture
def registered_scale():
    registry.register_serializable(package="test_saving_h5")(Scale)
    yield "test_saving_h5>Scale"
    registry._CUSTOM.pop("test_saving_h5>Scale", None)
    registry._NAME_OF.pop(id(Scale), None)


def _scale_model():
    x = tfkit.Input((3,))
    return tfkit.Model(x, Scale(3.0, name="scale")(x))


def test_custom_objects_and_scope_resolve_names_the_running_program_lacks(registered_scale, tmp_path, monkeypatch):
    model = _scale_model()
    path = str(tmp_path / "custom.h5")
    model.save(path)
    monkeypatch.delitem(registry._CUSTOM, registered_scale)  # as in a fresh process that never registered it
    with pytest.raises(ValueError, match="Unknown layer 'test_saving_h5>Scale'"):
        tfkit.load_model(path)
    loaded = tfkit.load_model(path, custom_objects={registered_scale: Scale})
    assert loaded.get_layer("scale").factor == 3.0
    with tfkit.saving.custom_object_scope({registered_scale: Scale}):
        assert isinstance(tfkit.load_model(path).get_layer("scale"), Scale)


def test_unregistered_custom_layer_saves_and_loads_with_plain_custom_objects(tmp_path):
    class Offset(tfkit.Layer):
        def __init__(self, amount=1.0, **kwargs):
            super().__init__(**kwargs)
            self.amount = amount

        def call(self, x):
            return x + self.amount

    x = tfkit.Input((3,))
    model = tfkit.Model(x, Offset(2.5, name="offset")(x))
    model.save(str(tmp_path / "m.h5"))
    with pytest.raises(ValueError, match=r"Unknown layer 'Offset'.*custom_objects=\{'Offset': Offset\}"):
        tfkit.load_model(str(tmp_path / "m.h5"))
    loaded = tfkit.load_model(str(tmp_path / "m.h5"), custom_objects={"Offset": Offset})
    np.testing.assert_allclose(loaded(np.zeros((1, 3), "float32")).numpy(), [[2.5, 2.5, 2.5]])


def test_unregistered_loss_function_is_saved_by_name_and_needs_custom_objects(tmp_path):
    def my_loss(y_true, y_pred):
        return tf.reduce_mean(tf.abs(y_true - y_pred))

    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    model.compile("sgd", loss=my_loss)
    model.save(str(tmp_path / "m.h5"))
    assert not tfkit.load_model(str(tmp_path / "m.h5"), compile=False).compiled
    with pytest.raises(ValueError, match="my_loss"):
        tfkit.load_model(str(tmp_path / "m.h5"))
    loaded = tfkit.load_model(str(tmp_path / "m.h5"), custom_objects={"my_loss": my_loss})
    assert loaded.compiled and loaded.loss is my_loss


def test_save_refuses_other_suffixes_and_overwrite_false(tmp_path):
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    with pytest.raises(ValueError, match="export"):
        model.save(str(tmp_path / "model.savedmodel"))
    path = str(tmp_path / "m.h5")
    model.save(path)
    with pytest.raises(ValueError, match="overwrite=False"):
        model.save(path, overwrite=False)
    assert sorted(os.listdir(tmp_path)) == ["m.h5"]  # no temporary files left behind


def test_weights_file_is_not_a_model_file(tmp_path):
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    path = str(tmp_path / "w.h5")
    model.save_weights(path)
    with pytest.raises(ValueError, match="load_weights"):
        tfkit.load_model(path)


def test_safe_mode_must_be_a_bool(saved_vae):
    _, path = saved_vae
    with pytest.raises(ValueError, match="safe_mode"):
        tfkit.load_model(path, safe_mode="no")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tfkit.load_model(path, safe_mode=False).built  # nothing changes: tfkit has no unsafe path


def test_unbuilt_model_round_trips_as_config_only(data, tmp_path):
    vae = small_vae(compile=False)
    path = str(tmp_path / "unbuilt.h5")
    vae.save(path)
    with h5py.File(path, "r") as f:
        assert "build_config" not in f.attrs and len(f["weights"]) == 0
    loaded = tfkit.load_model(path)
    assert not loaded.weights
    assert loaded(data[:2]).shape == (2, 20)  # builds on its first call, as any fresh model


@pytest.mark.slow
def test_a_shared_layer_applied_1200_times_round_trips(tmp_path):
    # Rebuilding it from the file was a RecursionError (the topological sort recursed once per call).
    x = tfkit.Input((4,), name="x")
    shared, h = layers.Dense(4, name="shared"), x
    for _ in range(1200):
        h = shared(h)
    tfkit.Model(x, h).save(tmp_path / "deep.h5")
    loaded = tfkit.load_model(tmp_path / "deep.h5")
    assert len(loaded.functional_graph.nodes) == 1200
    np.testing.assert_array_equal(loaded.get_layer("shared").kernel.numpy(), shared.kernel.numpy())


def test_load_work_grows_linearly_with_the_number_of_layers(tmp_path):
    # Counted in Python function calls, not seconds: the same on a busy machine as on a quiet one.
    import cProfile
    import pstats

    def calls(n):
        model = tfkit.Sequential([tfkit.Input((4,))] + [layers.Identity() for _ in range(n)] + [layers.Dense(2)])
        model.save(tmp_path / f"{n}.h5")
        profile = cProfile.Profile()
        profile.runcall(tfkit.load_model, tmp_path / f"{n}.h5")
        return pstats.Stats(profile).total_calls

    calls(20)  # first-load costs (imports, caches) out of the way
    small, large = calls(200), calls(800)
    assert large / small < 5, (small, large)  # 4 when linear, 16 when quadratic
