"""Weights match by structure, not by the process's automatic layer names (the transfer-learning pattern)."""

import h5py
import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.saving import h5_format, weights_io


def _data():
    return np.random.default_rng(0).random((4, 3)).astype("float32")


def _functional():
    x = tfkit.Input((3,))
    hidden = layers.Dense(4, activation="relu")(x)
    hidden = layers.BatchNormalization()(hidden)
    return tfkit.Model(x, layers.Dense(2)(layers.Dense(4)(hidden)))


def _sequential():
    return tfkit.Sequential([tfkit.Input((3,)), layers.Dense(4, activation="relu"), layers.Dense(2)])


class Tower(tfkit.Model):
    def __init__(self):
        super().__init__()
        self.trunk = _sequential()
        self.heads = [layers.Dense(3), layers.Dense(1)]

    def call(self, x):
        x = self.trunk(x)
        return self.heads[1](self.heads[0](x))


def _subclassed():
    model = Tower()
    model(_data())
    return model


def _nested():
    x = tfkit.Input((3,))
    inner = _functional()
    return tfkit.Model(x, layers.Dense(1)(inner(layers.Dense(3)(x))))


BUILDERS = {"functional": _functional, "sequential": _sequential, "subclassed": _subclassed, "nested": _nested}


@pytest.mark.parametrize("target", ["w.weights.h5", "ckpt/w"])
@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_a_second_copy_in_the_same_process_loads_the_weights(tmp_path, kind, target):
    first = BUILDERS[kind]()
    first.save_weights(str(tmp_path / target))
    second = BUILDERS[kind]()  # built later: its automatic layer names differ
    if kind != "subclassed":
        assert {l.name for l in second.layers}.isdisjoint({l.name for l in first.layers} - {"input_layer"})
    second.load_weights(str(tmp_path / target))
    np.testing.assert_array_equal(second(_data()).numpy(), first(_data()).numpy())


def test_whole_model_file_loads_into_a_second_copy_and_load_model_keeps_names(tmp_path):
    first = _functional()
    first.save(tmp_path / "m.h5")
    second = _functional()
    second.load_weights(tmp_path / "m.h5")
    np.testing.assert_array_equal(second(_data()).numpy(), first(_data()).numpy())
    loaded = tfkit.load_model(tmp_path / "m.h5")
    assert [l.name for l in loaded.layers] == [l.name for l in first.layers]
    np.testing.assert_array_equal(loaded(_data()).numpy(), first(_data()).numpy())


def test_file_paths_are_readable_and_layers_keep_their_real_names(tmp_path):
    x = tfkit.Input((3,))
    model = tfkit.Model(x, layers.Dense(2)(layers.Dense(4, name="encoder_head")(layers.Dense(4)(x))))
    auto = [l.name for l in model.layers if l.name.startswith("dense")]
    model.save_weights(tmp_path / "w.h5")
    with h5py.File(tmp_path / "w.h5", "r") as f:
        assert sorted(f["weights"]) == ["dense", "dense_1", "encoder_head"]
        assert f["weights/dense/kernel"].shape == (3, 4) and f["weights/dense_1/kernel"].shape == (4, 2)
        assert f["weights/encoder_head/bias"].shape == (4,)
    assert model.get_layer(auto[0]) is model.layers[1]  # real names are unchanged
    lines = []
    model.summary(print_fn=lines.append)
    assert all(any(name in line for line in lines) for name in auto + ["encoder_head"])


def test_a_chosen_name_that_looks_like_another_classes_key_does_not_collide(tmp_path):
    x = tfkit.Input((3,))
    named = layers.Dense(4, name="dense")(layers.BatchNormalization(name="dense_1")(x))
    model = tfkit.Model(x, layers.Dense(2)(layers.Dense(3)(named)))
    keys = [key for key, _ in model._tracked_items()]
    with tfkit.engine.tracking.structural_keys():
        structural = [key for key, _ in model._tracked_items()]
    assert keys == [l.name for l in model.layers] and len(set(structural)) == len(structural)
    assert structural[1:3] == ["dense_1", "dense"] and structural[3:] == ["dense_2", "dense_3"]
    model.save_weights(tmp_path / "w.h5")
    twin = tfkit.Model.from_config(model.get_config())
    twin.load_weights(tmp_path / "w.h5")
    np.testing.assert_array_equal(twin(_data()).numpy(), model(_data()).numpy())


def test_a_mismatch_is_reported_by_path_and_changes_nothing(tmp_path):
    _functional().save_weights(tmp_path / "w.h5")
    x = tfkit.Input((3,))
    hidden = layers.BatchNormalization()(layers.Dense(4, activation="relu")(x))
    wider = tfkit.Model(x, layers.Dense(5)(layers.Dense(4)(hidden)))  # last layer: 5 units, not 2
    before = [w.numpy() for w in wider.weights]
    with pytest.raises(ValueError, match=r"weights/dense_2/kernel: file \(4, 2\) float32, model \(4, 5\)"):
        wider.load_weights(tmp_path / "w.h5")
    for weight, value in zip(wider.weights, before):
        np.testing.assert_array_equal(weight.numpy(), value)


def test_a_reordered_model_is_not_silently_loaded(tmp_path):
    def build(units):
        x = tfkit.Input((3,))
        return tfkit.Model(x, layers.Dense(units[1])(layers.Dense(units[0])(x)))

    build((4, 2)).save_weights(tmp_path / "w.h5")
    with pytest.raises(ValueError, match="do not match"):
        build((2, 4)).load_weights(tmp_path / "w.h5")


def _write_version_1(model, path):
    """A weights file as tfkit wrote it before structural keys: layers keyed by their names."""
    groups = weights_io.variable_groups(model, structural=False)
    with h5py.File(path, "w") as f:
        h5_format.write_header(f, "weights", {"model_class": type(model).__name__})
        f.attrs["format_version"] = np.int64(1)
        for name, variables in groups.items():
            h5_format.write_variables(f.create_group(name), variables)


def test_files_written_with_the_name_scheme_still_load(tmp_path):
    model = _functional()
    path = tmp_path / "v1.h5"
    _write_version_1(model, path)
    with h5py.File(path, "r") as f:
        assert sorted(f["weights"]) == sorted(l.name for l in model.layers if l.weights)
    expected = [w.numpy() for w in model.weights]
    for weight in model.weights:
        weight.assign(tf.zeros_like(weight))
    model.load_weights(path)
    for weight, value in zip(model.weights, expected):
        np.testing.assert_array_equal(weight.numpy(), value)
    with pytest.raises(ValueError, match="format_version 1 are keyed by layer name"):
        _functional().load_weights(path)  # other names: the old scheme cannot match them
