"""tfkit's HDF5 weights files (.h5) and TensorFlow checkpoints: matched by path, all or nothing.

(``.weights.h5`` names Keras 3's weights file, which tests/test_keras_archive_writer.py covers; the files
here are tfkit's own, named ``*_weights.h5``.)
"""

import os

import h5py
import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


class Block(tfkit.Model):
    """Two sub-layers and a seed generator; ``swap`` creates the layers in the other order."""

    def __init__(self, units=4, swap=False, **kwargs):
        super().__init__(**kwargs)
        if swap:  # attribute paths stay the same, creation order changes
            self.head = layers.Dense(2, name="head_layer")
            self.body = layers.Dense(units, activation="relu", name="body_layer")
        else:
            self.body = layers.Dense(units, activation="relu")
            self.head = layers.Dense(2)
        self.noise = tfkit.random.SeedGenerator(7)

    def call(self, x):
        return self.head(self.body(x))


X = np.random.RandomState(0).normal(size=(5, 3)).astype("float32")


def built_block(**kwargs):
    model = Block(**kwargs)
    model(X)
    return model


def snapshot(model):
    return {path: v.numpy().copy() for path, v in model.weight_paths().items()}


def test_weights_round_trip_by_path_not_creation_order(tmp_path):
    source = built_block()
    source.noise.next()
    path = str(tmp_path / "block_weights.h5")
    source.save_weights(path)
    target = built_block(swap=True)
    target.load_weights(path)
    np.testing.assert_array_equal(target(X).numpy(), source(X).numpy())
    np.testing.assert_array_equal(target.noise.state.numpy(), [7, 1])  # state/ restored too
    with h5py.File(path, "r") as f:
        assert f.attrs["kind"] == "weights"
        assert set(f["weights"]) == {"body", "head"}
        assert f["weights/body/kernel"].shape == (3, 4)


def test_unbuilt_model_is_built_from_the_stored_shapes(tmp_path):
    source = built_block()
    path = str(tmp_path / "block_weights.h5")
    source.save_weights(path)
    target = Block()
    assert not target.built
    target.load_weights(path)
    np.testing.assert_array_equal(target(X).numpy(), source(X).numpy())


def test_unbuilt_model_without_stored_shapes_says_to_call_it_first(tmp_path):
    path = str(tmp_path / "block_weights.h5")
    built_block().save_weights(path)
    with h5py.File(path, "a") as f:
        del f.attrs["build_config"]
    with pytest.raises(ValueError, match="Call the model on a batch"):
        Block().load_weights(path)


def test_mismatch_error_lists_everything_and_changes_nothing(tmp_path):
    path = str(tmp_path / "block_weights.h5")
    built_block().save_weights(path)
    with h5py.File(path, "a") as f:
        del f["weights/head/bias"]
        f["weights/extra/kernel"] = np.zeros((2, 2), "float32")
        del f["weights/body/kernel"]
        f["weights/body/kernel"] = np.zeros((3, 5), "float32")
    target = built_block()
    before = snapshot(target)
    with pytest.raises(ValueError) as error:
        target.load_weights(path)
    message = str(error.value)
    assert "missing in the file (1): weights/head/bias" in message
    assert "unexpected in the file (not in the model) (1): weights/extra/kernel" in message
    assert "weights/body/kernel: file (3, 5) float32, model (3, 4) float32" in message
    assert "Nothing was loaded" in message
    for path_, value in snapshot(target).items():
        np.testing.assert_array_equal(value, before[path_])


def test_skip_mismatch_loads_what_matches(tmp_path):
    source = built_block()
    path = str(tmp_path / "block_weights.h5")
    source.save_weights(path)
    with h5py.File(path, "a") as f:
        del f["weights/head/kernel"]
        f["weights/head/kernel"] = np.zeros((4, 9), "float32")
    target = built_block()
    old_head = target.head.kernel.numpy().copy()
    with pytest.warns(UserWarning, match="shape/dtype mismatches"):
        target.load_weights(path, skip_mismatch=True)
    np.testing.assert_array_equal(target.body.kernel.numpy(), source.body.kernel.numpy())
    np.testing.assert_array_equal(target.head.kernel.numpy(), old_head)


def test_dtype_mismatch_is_refused_before_anything_is_assigned(tmp_path):
    path = str(tmp_path / "block_weights.h5")
    built_block().save_weights(path)
    with h5py.File(path, "a") as f:
        data = f["weights/body/bias"][()]
        del f["weights/body/bias"]
        f["weights/body/bias"] = data.astype("int32")
    target = built_block()
    before = snapshot(target)
    with pytest.raises(ValueError, match=r"weights/body/bias: file \(4,\) int32, model \(4,\) float32"):
        target.load_weights(path)
    for path_, value in snapshot(target).items():
        np.testing.assert_array_equal(value, before[path_])


def test_floats_of_another_precision_are_cast_on_load_as_keras_does(tmp_path):
    path = str(tmp_path / "block_weights.h5")
    source = built_block()
    source.save_weights(path)
    with h5py.File(path, "a") as f:
        data = f["weights/body/bias"][()]
        del f["weights/body/bias"]
        f["weights/body/bias"] = data.astype("float64") + np.array([0.25, -1.5, 1 / 3, 2.0])
    target = built_block()
    target.load_weights(path)
    assert target.body.bias.dtype == tf.float32
    expected_bias = (data.astype("float64") + np.array([0.25, -1.5, 1 / 3, 2.0])).astype("float32")
    np.testing.assert_array_equal(target.body.bias.numpy(), expected_bias)
    np.testing.assert_array_equal(target.body.kernel.numpy(), source.body.kernel.numpy())


def test_a_bfloat16_model_loads_float32_weights(tmp_path):
    path = str(tmp_path / "dense.weights.h5")
    x = np.random.default_rng(0).standard_normal((2, 3)).astype("float32")
    source = tfkit.Sequential([layers.Input((3,)), layers.Dense(4)])
    source.save_weights(path)
    target = tfkit.Sequential([layers.Input((3,)), layers.Dense(4, dtype="bfloat16")])
    target.load_weights(path)
    kernel = target.layers[0].kernel
    assert kernel.dtype == tf.bfloat16
    expected = source.layers[0].kernel.numpy().astype(tf.bfloat16.as_numpy_dtype)  # round to nearest, as tf.cast
    np.testing.assert_array_equal(kernel.numpy(), expected)
    np.testing.assert_allclose(np.asarray(target(x), "float32"), source(x).numpy(), rtol=0.02, atol=0.02)


def test_load_weights_reads_a_full_model_file(tmp_path):
    x = tfkit.Input((3,))
    model = tfkit.Model(x, layers.Dense(2, name="out")(layers.Dense(4, name="hidden")(x)))
    path = str(tmp_path / "model.h5")
    model.save(path)
    twin = tfkit.models.clone_model(model)
    twin.load_weights(path)
    np.testing.assert_array_equal(twin(X).numpy(), model(X).numpy())


def test_save_weights_of_an_unbuilt_model_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no weights yet"):
        Block().save_weights(str(tmp_path / "w.h5"))


def test_checkpoint_prefix_round_trip(tmp_path):
    source = built_block()
    prefix = str(tmp_path / "ckpt" / "block")
    source.save_weights(prefix)
    assert os.path.exists(prefix + ".index")
    target = built_block(swap=True)
    target.load_weights(prefix)
    np.testing.assert_array_equal(target(X).numpy(), source(X).numpy())


def test_checkpoint_mismatch_fails_and_changes_nothing(tmp_path):
    prefix = str(tmp_path / "ckpt" / "block")
    built_block(units=6).save_weights(prefix)
    target = built_block(units=4)
    before = snapshot(target)
    with pytest.raises(ValueError, match="nothing was loaded"):
        target.load_weights(prefix)
    for path_, value in snapshot(target).items():
        np.testing.assert_array_equal(value, before[path_])


def test_checkpoint_into_unbuilt_model_says_to_call_it_first(tmp_path):
    prefix = str(tmp_path / "ckpt" / "block")
    built_block().save_weights(prefix)
    with pytest.raises(ValueError, match="Call the model on a batch"):
        Block().load_weights(prefix)
    with pytest.raises(FileNotFoundError, match="No checkpoint"):
        built_block().load_weights(str(tmp_path / "nothing_here"))


def test_bfloat16_weights_round_trip(tmp_path):
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2, dtype="bfloat16", name="half")])
    path = str(tmp_path / "bf16_weights.h5")
    model.save_weights(path)
    twin = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2, dtype="bfloat16", name="half")])
    twin.load_weights(path)
    for a, b in zip(model.weights, twin.weights):
        assert b.dtype == tf.bfloat16
        np.testing.assert_array_equal(a.numpy().astype("float32"), b.numpy().astype("float32"))


def _mlp(kind):
    if kind == "sequential":
        return tfkit.Sequential([tfkit.Input((3,)), layers.Dense(4, activation="relu"), layers.Dense(2)])
    if kind == "functional":
        x = tfkit.Input((3,))
        return tfkit.Model(x, layers.Dense(2)(layers.Dense(4, activation="relu")(x)))

    class Subclassed(tfkit.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [layers.Dense(4, activation="relu"), layers.Dense(2)]

        def call(self, x):
            for block in self.blocks:
                x = block(x)
            return x

    model = Subclassed()
    model(np.zeros((1, 3), "float32"))
    return model


@pytest.mark.parametrize("kind", ["sequential", "functional", "subclassed"])
def test_a_second_copy_built_in_the_same_process_loads_the_weights(tmp_path, kind):
    path = str(tmp_path / f"{kind}_weights.h5")
    first = _mlp(kind)
    first.save_weights(path)
    second = _mlp(kind)  # automatic names differ: dense_7 vs dense_9
    assert [l.name for l in second.layers] != [l.name for l in first.layers] or kind == "subclassed"
    second.load_weights(path)
    data = np.random.default_rng(0).random((5, 3)).astype("float32")
    np.testing.assert_array_equal(second(data).numpy(), first(data).numpy())


def test_structural_keys_keep_chosen_names_and_number_automatic_ones(tmp_path):
    x = tfkit.Input((3,))
    hidden = layers.Dense(4, name="encoder_head")(x)
    model = tfkit.Model(x, layers.Dense(2)(layers.Dense(4)(hidden)))
    path = str(tmp_path / "w.h5")
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        assert sorted(f["weights"]) == ["dense", "dense_1", "encoder_head"]
    bigger = tfkit.Model(x, layers.Dense(3)(layers.Dense(4)(hidden)))
    with pytest.raises(ValueError, match=r"weights/dense_1/kernel: file \(4, 2\) float32, model \(4, 3\)"):
        bigger.load_weights(path)


def test_failed_load_into_an_unbuilt_model_leaves_it_unbuilt(tmp_path):
    class TwoDense(tfkit.Model):
        def __init__(self, units):
            super().__init__()
            self.hidden = tfkit.layers.Dense(4)
            self.out = tfkit.layers.Dense(units)

        def call(self, x):
            return self.out(self.hidden(x))

    saved = TwoDense(3)
    saved(np.ones((1, 7), "float32"))  # built for 7 features, 3 outputs
    saved.save_weights(str(tmp_path / "w.h5"))
    model = TwoDense(2)  # 2 outputs: the weights will not match
    with pytest.raises(ValueError, match="do not match"):
        model.load_weights(str(tmp_path / "w.h5"))
    assert not model.built and model.weights == []
    assert model(np.ones((2, 5), "float32")).shape == (2, 2)  # its real inputs still work


def test_files_of_format_version_1_still_load_by_layer_name(tmp_path):
    model = _mlp("sequential")
    path = str(tmp_path / "v1_weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r+") as f:  # rewrite it as the first format did: keys are layer names
        for key, layer in zip(["dense", "dense_1"], model.layers):
            f.move(f"weights/{key}", f"weights/tmp_{layer.name}")
        for layer in model.layers:
            f.move(f"weights/tmp_{layer.name}", f"weights/{layer.name}")
        f.attrs["format_version"] = np.int64(1)
    expected = [w.numpy() for w in model.weights]
    for w in model.weights:
        w.assign(tf.zeros_like(w))
    model.load_weights(path)
    for got, want in zip(model.weights, expected):
        np.testing.assert_array_equal(got.numpy(), want)


class Tracked(tfkit.Model):
    """keras-io's pattern: a loss tracker held as an attribute of the model."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(2)
        self.loss_tracker = tfkit.metrics.Mean(name="loss")

    def call(self, x):
        return self.dense(x)


def test_a_metric_held_by_a_model_is_state_not_weights(tmp_path):
    model = Tracked()
    model(np.zeros((1, 3), "float32"))
    assert model.count_params() == 3 * 2 + 2  # Keras counts the Dense only
    assert len(model.get_weights()) == 2 and len(model.variables) == 4
    model.loss_tracker.update_state(3.0)
    path = str(tmp_path / "t_weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        assert "loss_tracker" in f["state"] and "loss_tracker" not in f["weights"]
    other = Tracked()
    other(np.zeros((1, 3), "float32"))
    other.load_weights(path)
    assert float(other.loss_tracker.result()) == 3.0


def test_files_that_kept_metric_variables_among_weights_still_load(tmp_path):
    model = Tracked()
    model(np.zeros((1, 3), "float32"))
    model.loss_tracker.update_state(5.0)
    path = str(tmp_path / "old_weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r+") as f:  # the layout tfkit 0.1 wrote
        f.move("state/loss_tracker", "weights/loss_tracker")
    other = Tracked()
    other(np.zeros((1, 3), "float32"))
    other.load_weights(path)
    assert float(other.loss_tracker.result()) == 5.0
    np.testing.assert_array_equal(other.dense.kernel.numpy(), model.dense.kernel.numpy())
