"""Training that diverges never saves its NaN weights over a good file, and fit says where it stopped (issue 17.6)."""

from __future__ import annotations

import os
import re
import warnings

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import callbacks as cb
from tfkit import layers
from tfkit.callbacks.finite_weights import first_non_finite_weight
from tfkit.callbacks.model_checkpoint import SavedCheckpoint


def _regressor(name: str = "head") -> tfkit.Model:
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(4, name="hidden"), layers.Dense(1, name=name)])
    model.compile("sgd", "mse")
    return model


def _diverging_data() -> tf.data.Dataset:
    """Six batches of 8; the last one holds a NaN. With steps_per_epoch=2 it is epoch 3, batch 2."""
    rng = np.random.default_rng(0)
    x, y = rng.random((48, 3), dtype=np.float32), rng.random((48, 1), dtype=np.float32)
    x[44, 1] = np.nan
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(8)


def _messages(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


def test_first_non_finite_weight_names_the_weight_path_and_ignores_integer_state():
    model = _regressor()
    model(np.zeros((1, 3), "float32"))
    model.counter = tf.Variable(7, dtype=tf.int64, trainable=False)  # integer state is not checked
    assert first_non_finite_weight(model) is None
    kernel = model.get_layer("head").kernel
    kernel.assign(tf.tensor_scatter_nd_update(kernel, [[2, 0]], [np.inf]))
    assert first_non_finite_weight(model) == "head/kernel"
    model.get_layer("hidden").bias.assign(tf.fill([4], np.nan))
    assert first_non_finite_weight(model) == "hidden/bias"  # the first in the model's order


def test_model_checkpoint_keeps_the_last_good_file_and_fit_says_where_it_stopped(tmp_path):
    model = _regressor()
    path = str(tmp_path / "model.weights.h5")
    snapshots = {}
    keep = cb.LambdaCallback(on_epoch_end=lambda epoch, logs: snapshots.__setitem__(epoch, model.get_weights()))
    checkpoint = cb.ModelCheckpoint(path, save_weights_only=True)  # save_best_only=False: saves every epoch
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(
            _diverging_data(), epochs=5, steps_per_epoch=2, verbose=0, callbacks=[cb.TerminateOnNaN(), checkpoint, keep]
        )
    assert history.epoch == [0, 1, 2]
    assert first_non_finite_weight(model) is not None  # the weights in memory diverged
    restored = _regressor()
    restored.load_weights(path)
    for saved, good in zip(restored.get_weights(), snapshots[1]):
        np.testing.assert_array_equal(saved, good)  # epoch 2's weights, not epoch 3's NaN ones
    assert checkpoint.last_saved == SavedCheckpoint(path, 2, None)
    skipped, report = _messages(caught)
    assert f"ModelCheckpoint skipped saving to {path!r}" in skipped
    assert "weight 'hidden/kernel' holds NaN or infinity" in skipped
    assert "it holds the last checkpoint saved" in skipped and "(epoch 2)" in skipped
    assert report.startswith("fit stopped at epoch 3, batch 2 (counting from 1): TerminateOnNaN saw loss nan.")
    assert f"The last checkpoint saved is {path!r} (epoch 2): load it with model.load_weights" in report


def test_model_checkpoint_never_writes_non_finite_weights_even_to_a_new_name(tmp_path):
    model = _regressor()
    model.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), verbose=0)
    checkpoint = cb.ModelCheckpoint(str(tmp_path / "m-{epoch}.h5"))
    checkpoint.set_model(model)
    checkpoint.on_epoch_end(0, {"loss": 0.5})
    assert os.path.exists(tmp_path / "m-1.h5")
    model.get_layer("hidden").kernel.assign(tf.fill([3, 4], np.nan))
    with pytest.warns(
        RuntimeWarning,
        match=r"skipped saving to '.*m-2\.h5'.*'hidden/kernel'.*'.*m-2\.h5' was not "
        r"written; the last checkpoint saved is '.*m-1\.h5' \(epoch 1\)",
    ):
        checkpoint.on_epoch_end(1, {"loss": float("nan")})
    assert sorted(os.listdir(tmp_path)) == ["m-1.h5"]


def test_model_checkpoint_best_only_does_not_count_a_skipped_save_as_the_best(tmp_path):
    model = _regressor()
    model(np.zeros((1, 3), "float32"))
    checkpoint = cb.ModelCheckpoint(str(tmp_path / "best.h5"), monitor="val_loss", save_best_only=True)
    checkpoint.set_model(model)
    checkpoint.on_epoch_end(0, {"val_loss": 1.0})
    model.get_layer("head").bias.assign([np.inf])
    with pytest.warns(RuntimeWarning, match="'head/bias'"):
        checkpoint.on_epoch_end(1, {"val_loss": 0.5})
    assert checkpoint.best == 1.0 and checkpoint.last_saved.epoch == 1


def test_fit_stopped_by_nan_without_a_checkpoint_reports_the_stop(tmp_path):
    model = _regressor()
    with pytest.warns(
        RuntimeWarning,
        match=r"fit stopped at epoch 3, batch 2 \(counting from 1\): TerminateOnNaN "
        r"saw loss nan\. The model's weights in memory are not finite",
    ):
        model.fit(_diverging_data(), epochs=5, steps_per_epoch=2, verbose=0, callbacks=[cb.TerminateOnNaN()])


def test_backup_and_restore_keeps_the_last_finite_backup(tmp_path):
    model = _regressor()
    model.compile("sgd", "mse")
    model(np.zeros((1, 3), "float32"))
    backup = cb.BackupAndRestore(str(tmp_path / "backup"))
    backup.set_model(model)
    backup.on_train_begin()
    backup.on_epoch_end(0)  # a good backup of epoch 1
    good = [w.numpy() for w in model.weights]
    model.get_layer("hidden").bias.assign(tf.fill([4], np.nan))
    quoted = re.escape(repr(str(tmp_path / "backup" / "ckpt")))
    with pytest.warns(
        RuntimeWarning,
        match=rf"BackupAndRestore skipped saving to {quoted}: .*'hidden/bias'.*"
        rf"{quoted} was left as it was\.",
    ):
        backup.on_epoch_end(1)
    fresh = _regressor()
    fresh.compile("sgd", "mse")
    fresh(np.zeros((1, 3), "float32"))
    restore = cb.BackupAndRestore(str(tmp_path / "backup"))
    restore.set_model(fresh)
    restore.on_train_begin()
    assert restore.restored_epoch == 1
    for value, weight in zip(good, fresh.weights):
        np.testing.assert_array_equal(weight.numpy(), value)
