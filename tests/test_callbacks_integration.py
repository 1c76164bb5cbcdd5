"""INTEGRATION: callbacks through the real ``tfkit.Model.fit`` (a one-Dense-layer model).

Every test here trains a tiny model for a few epochs of 4 steps; the unit
tests with a fake model are in test_callbacks*.py.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
import tensorflow as tf

tfkit = pytest.importorskip("tfkit")
if not hasattr(tfkit, "Model"):
    pytest.skip("tfkit.Model is not available yet", allow_module_level=True)

from tfkit import callbacks as cb  # noqa: E402

X = np.random.RandomState(0).rand(32, 3).astype("float32")
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype("float32")


def tiny_model(learning_rate: float = 0.1, seed: tuple[int, int] = (7, 11)):
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
    model.compile(tfkit.optimizers.SGD(learning_rate), "mse")
    model._checkpoint_state()["data_seed"].assign(seed)
    return model


def test_batch_hooks_reach_every_batch_and_history_is_returned():
    batches, epochs = [], []
    watcher = cb.LambdaCallback(
        on_train_batch_end=lambda batch, logs: batches.append((batch, sorted(logs))),
        on_epoch_end=lambda epoch, logs: epochs.append((epoch, sorted(logs))),
    )
    model = tiny_model()
    history = model.fit(X, Y, batch_size=8, epochs=2, verbose=0, validation_split=0.25, callbacks=[watcher])
    # 24 training samples in batches of 8: 3 steps per epoch, each seen by the batch hook.
    assert [b for b, _ in batches] == [0, 1, 2, 0, 1, 2]
    assert all(keys == ["loss"] for _, keys in batches)
    assert epochs == [(0, ["loss", "val_loss"]), (1, ["loss", "val_loss"])]
    assert history is model.history and history.epoch == [0, 1]
    assert all(type(v) is float for v in history.history["loss"])


def test_progress_output_of_fit(capsys):
    tiny_model().fit(X, Y, batch_size=8, epochs=2, verbose=1, validation_data=(X[:8], Y[:8]))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    final = re.compile(r"^4/4 ━{20} \d+s \d+(s|ms|us)/step - loss: \d+\.\d{4} - val_loss: \d+\.\d{4}$")
    assert final.match(lines[1]) and final.match(lines[3]), lines


def test_learning_rate_zero_freezes_weights_and_early_stopping_stops():
    model = tiny_model()
    model.build((None, 3))
    before = [w.copy() for w in model.get_weights()]
    scheduler = cb.LearningRateScheduler(lambda epoch, lr: 0.0)
    stop = cb.EarlyStopping(monitor="loss", patience=1, min_delta=1e-6)
    history = model.fit(X, Y, batch_size=8, epochs=10, verbose=0, callbacks=[scheduler, stop])
    assert history.epoch == [0, 1]  # no improvement at epoch 1 with a frozen model
    assert history.history["learning_rate"] == [0.0, 0.0]
    for old, new in zip(before, model.get_weights()):
        np.testing.assert_array_equal(old, new)


def test_reduce_lr_on_plateau_changes_the_optimizer():
    model = tiny_model(learning_rate=0.05)
    reduce = cb.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0, min_delta=1e9)  # never "improves"
    history = model.fit(X, Y, batch_size=8, epochs=3, verbose=0, callbacks=[reduce])
    # Logged: the rate used in each epoch. Epoch 0 sets the first best; epochs 1 and 2 reduce.
    np.testing.assert_allclose(history.history["learning_rate"], [0.05, 0.05, 0.025], rtol=1e-6)
    np.testing.assert_allclose(float(model.optimizer.learning_rate.numpy()), 0.0125, rtol=1e-6)


def test_tensorboard_logs_a_real_training_run(tmp_path):
    board = cb.TensorBoard(log_dir=str(tmp_path), histogram_freq=1)
    tiny_model().fit(X, Y, batch_size=8, epochs=2, verbose=0, validation_split=0.25, callbacks=[board])
    events = []
    for name in os.listdir(tmp_path / "train"):
        for record in tf.data.TFRecordDataset(str(tmp_path / "train" / name)):
            events.append(tf.compat.v1.Event.FromString(record.numpy()))
    tags = {v.tag for e in events for v in e.summary.value}
    assert {"epoch_loss", "epoch_learning_rate"} <= tags
    assert any(tag.endswith("kernel/histogram") for tag in tags)
    assert any(e.graph_def for e in events)
    assert os.listdir(tmp_path / "validation")


def test_backup_and_restore_resumes_to_the_same_weights_as_an_uninterrupted_run(tmp_path):
    reference = tiny_model()
    reference.build((None, 3))
    start = [w.copy() for w in reference.get_weights()]
    reference.fit(X, Y, batch_size=8, epochs=4, verbose=0)

    class Crash(cb.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            if epoch == 2:
                raise KeyboardInterrupt

    backup_dir = str(tmp_path / "backup")
    interrupted = tiny_model()
    interrupted.build((None, 3))
    interrupted.set_weights(start)
    with pytest.raises(KeyboardInterrupt):
        interrupted.fit(X, Y, batch_size=8, epochs=4, verbose=0, callbacks=[cb.BackupAndRestore(backup_dir), Crash()])

    resumed = tiny_model(seed=(1, 2))  # other weights and seed: both come from the backup
    resumed.build((None, 3))
    history = resumed.fit(X, Y, batch_size=8, epochs=4, verbose=0, callbacks=[cb.BackupAndRestore(backup_dir)])
    assert history.epoch == [2, 3]
    for expected, got in zip(reference.get_weights(), resumed.get_weights()):
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert int(resumed.optimizer.iterations.numpy()) == 16
    assert not os.path.exists(backup_dir)


def test_model_checkpoint_writes_weight_files(tmp_path):
    model = tiny_model()
    if not hasattr(model, "save_weights"):
        pytest.skip("Model.save_weights is not available yet")
    path = str(tmp_path / "w-{epoch:02d}-{val_loss:.3f}.weights.h5")
    checkpoint = cb.ModelCheckpoint(path, save_weights_only=True, save_best_only=True)
    model.fit(X, Y, batch_size=8, epochs=2, verbose=0, validation_split=0.25, callbacks=[checkpoint])
    files = sorted(os.listdir(tmp_path))
    assert files and all(re.match(r"w-0[12]-\d\.\d{3}\.weights\.h5$", f) for f in files)
