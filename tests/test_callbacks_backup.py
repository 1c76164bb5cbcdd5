"""BackupAndRestore with a tiny tf.Module model: interrupt, resume, compare."""

from __future__ import annotations

import os
import types

import numpy as np
import pytest
import tensorflow as tf
from test_callbacks import FakeModel, simulate_fit

from tfkit import callbacks as cb


class ResumableModel(FakeModel):
    """A fake model whose trainer keeps a data seed outside the model's own variables."""

    def __init__(self, start: float = 0.0) -> None:
        super().__init__()
        self.kernel.assign([start, start])
        self.trainer = types.SimpleNamespace(seed=tf.Variable([7, 0], dtype=tf.int64))  # not tracked by tf.Module

    def _checkpoint_state(self) -> dict:
        return {"data_seed": self.trainer.seed}


def train_one_epoch(model, epoch):
    """What an epoch of training changes: weights, the shuffling seed (iterations move in simulate_fit)."""
    model.kernel.assign_add([1.0, 2.0])
    model.trainer.seed.assign_add([0, 1])


class Crash(cb.Callback):
    def __init__(self, at_epoch: int) -> None:
        super().__init__()
        self.at_epoch = at_epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.at_epoch:
            raise KeyboardInterrupt(f"killed at epoch {epoch}")


def fit(model, callbacks, epochs=4):
    history = simulate_fit(model, callbacks, epochs=epochs, steps=3, on_epoch=train_one_epoch)
    model._initial_epoch = None  # the trainer consumes it, as tfkit's does
    return history


def test_an_interrupted_fit_resumes_where_it_stopped(tmp_path):
    backup_dir = str(tmp_path / "backup")
    reference = ResumableModel()
    fit(reference, [], epochs=4)

    first = ResumableModel()
    with pytest.raises(KeyboardInterrupt):
        fit(first, [cb.BackupAndRestore(backup_dir), Crash(at_epoch=2)])
    assert cb.BackupAndRestore(backup_dir).latest_checkpoint is not None

    second = ResumableModel(start=-100.0)
    second.trainer.seed.assign([123, 456])
    backup = cb.BackupAndRestore(backup_dir)
    seen_at_begin = {}

    def look(logs):
        seen_at_begin.update(
            kernel=second.kernel.numpy().tolist(),
            seed=second.trainer.seed.numpy().tolist(),
            iterations=int(second.optimizer.iterations.numpy()),
        )

    history = fit(second, [backup, cb.LambdaCallback(on_train_begin=look)])
    assert backup.restored_epoch == 2
    assert seen_at_begin == {"kernel": [2.0, 4.0], "seed": [7, 2], "iterations": 6}
    assert history.epoch == [2, 3]
    np.testing.assert_array_equal(second.kernel.numpy(), reference.kernel.numpy())
    np.testing.assert_array_equal(second.trainer.seed.numpy(), reference.trainer.seed.numpy())
    assert int(second.optimizer.iterations.numpy()) == int(reference.optimizer.iterations.numpy()) == 12
    assert not os.path.exists(backup_dir)  # a finished fit deletes the backup


def test_without_a_backup_training_starts_at_zero_and_keeps_one_checkpoint(tmp_path):
    backup_dir = str(tmp_path / "backup")
    model = ResumableModel()
    backup = cb.BackupAndRestore(backup_dir, delete_checkpoint=False)
    history = fit(model, [backup], epochs=3)
    assert history.epoch == [0, 1, 2] and backup.restored_epoch is None
    assert len([name for name in os.listdir(backup_dir) if name.endswith(".index")]) == 1
    # A later fit with the kept backup knows that all 3 epochs are done.
    again = ResumableModel()
    history = fit(again, [cb.BackupAndRestore(backup_dir)], epochs=3)
    assert history.epoch == []
    np.testing.assert_array_equal(again.kernel.numpy(), [3.0, 6.0])


def test_backups_every_n_batches_restart_the_unfinished_epoch(tmp_path):
    backup_dir = str(tmp_path / "backup")
    backup = cb.BackupAndRestore(backup_dir, save_freq=2)
    assert backup._implements_train_batch_hooks()

    class CrashMidEpoch(cb.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if self.model.optimizer.iterations.numpy() == 5:  # epoch 1 (0-based), its second batch
                raise KeyboardInterrupt

    model = ResumableModel()
    with pytest.raises(KeyboardInterrupt):
        fit(model, [backup, CrashMidEpoch()])
    # Saves after batches 2 and 4 of the run (steps=3): the last one is in epoch 1.
    resumed = ResumableModel()
    restore = cb.BackupAndRestore(backup_dir, save_freq=2)
    history = fit(resumed, [restore])
    assert restore.restored_epoch == 1
    assert history.epoch == [1, 2, 3]


def test_a_backup_of_another_model_is_refused(tmp_path):
    backup_dir = str(tmp_path / "backup")
    with pytest.raises(KeyboardInterrupt):
        fit(ResumableModel(), [cb.BackupAndRestore(backup_dir), Crash(at_epoch=1)])

    class Bigger(ResumableModel):
        def __init__(self):
            super().__init__()
            self.extra = tf.Variable(1.0)

    with pytest.raises(ValueError, match="does not match this model.*Delete"):
        fit(Bigger(), [cb.BackupAndRestore(backup_dir)])


def test_argument_and_state_errors(tmp_path):
    with pytest.raises(ValueError, match="needs a backup_dir"):
        cb.BackupAndRestore("")
    with pytest.raises(ValueError, match="save_freq must be 'epoch' or a positive integer"):
        cb.BackupAndRestore(str(tmp_path), save_freq=0)

    class Clashing(ResumableModel):
        def _checkpoint_state(self):
            return {"epoch": tf.Variable(0)}

    with pytest.raises(ValueError, match="reserved keys \\['epoch'\\]"):
        fit(Clashing(), [cb.BackupAndRestore(str(tmp_path / "b"))])


def test_models_without_extra_state_are_fine(tmp_path):
    model = FakeModel()  # no _checkpoint_state at all
    backup_dir = str(tmp_path / "backup")
    with pytest.raises(KeyboardInterrupt):
        simulate_fit(model, [cb.BackupAndRestore(backup_dir), Crash(at_epoch=1)], epochs=3)
    resumed = FakeModel()
    history = simulate_fit(resumed, [cb.BackupAndRestore(backup_dir)], epochs=3)
    assert history.epoch == [1, 2]


def test_a_finished_fit_deletes_only_its_own_files(tmp_path):
    backup_dir = tmp_path / "shared_folder"
    backup_dir.mkdir()
    (backup_dir / "notes.txt").write_text("mine")
    (backup_dir / "ckpt-99.index").write_text("not tfkit's either")
    fit(ResumableModel(), [cb.BackupAndRestore(str(backup_dir))], epochs=2)
    assert sorted(os.listdir(backup_dir)) == ["ckpt-99.index", "notes.txt"]
    assert (backup_dir / "notes.txt").read_text() == "mine"


def test_a_numbered_backup_of_an_earlier_tfkit_restores_and_is_cleaned_up(tmp_path):
    # Earlier tfkit wrote backups through tf.train.CheckpointManager: ckpt-N files and a "checkpoint" state file.
    backup_dir = tmp_path / "backup"
    old = ResumableModel()
    train_one_epoch(old, 0)
    train_one_epoch(old, 1)
    epoch = tf.Variable(2, dtype=tf.int64)
    checkpoint = tf.train.Checkpoint(model=old, epoch=epoch, optimizer=old.optimizer, data_seed=old.trainer.seed)
    tf.train.CheckpointManager(checkpoint, str(backup_dir), max_to_keep=1).save()
    assert sorted(os.listdir(backup_dir)) == ["checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index"]
    (backup_dir / "notes.txt").write_text("mine")
    resumed = ResumableModel()
    backup = cb.BackupAndRestore(str(backup_dir))
    history = fit(resumed, [backup], epochs=4)
    assert backup.restored_epoch == 2 and history.epoch == [2, 3]
    np.testing.assert_array_equal(resumed.kernel.numpy(), [4.0, 8.0])
    assert sorted(os.listdir(backup_dir)) == ["notes.txt"]  # its files and the new backup's, nothing else


def _flip_a_byte_of_the_data(prefix):
    data = [
        name for name in os.listdir(os.path.dirname(prefix)) if name.startswith(os.path.basename(prefix) + ".data-")
    ][0]
    path = os.path.join(os.path.dirname(prefix), data)
    damaged = bytearray(open(path, "rb").read())
    damaged[len(damaged) // 2] ^= 0xFF
    with open(path + ".tmp", "wb") as out:  # a new file: the previous backup's hard link keeps the good bytes
        out.write(damaged)
    os.replace(path + ".tmp", path)


def test_double_checkpoint_resumes_from_the_previous_backup_when_the_latest_is_damaged(tmp_path):
    import tfkit

    def model():
        m = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        m.compile("sgd", "mse")
        return m

    x, y = np.ones((8, 3), "float32"), np.ones((8, 2), "float32")

    class StopAfterThird(tfkit.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 2:
                raise KeyboardInterrupt

    backup_dir = str(tmp_path / "backup")
    with pytest.raises(KeyboardInterrupt):
        model().fit(
            x,
            y,
            epochs=5,
            verbose=0,
            callbacks=[cb.BackupAndRestore(backup_dir, double_checkpoint=True), StopAfterThird()],
        )
    assert {"ckpt.index", "ckpt_previous.index"} <= set(os.listdir(backup_dir))
    _flip_a_byte_of_the_data(os.path.join(backup_dir, "ckpt"))
    single = cb.BackupAndRestore(backup_dir)  # without double_checkpoint the damage is an error
    with pytest.raises(ValueError, match="is damaged: .*Checksum does not match"):
        model().fit(x, y, epochs=5, verbose=0, callbacks=[single])
    double = cb.BackupAndRestore(backup_dir, double_checkpoint=True)
    history = model().fit(x, y, epochs=5, verbose=0, callbacks=[double])
    assert double.restored_epoch == 2 and history.epoch == [2, 3, 4]  # the latest had 3 epochs, the previous 2
    assert not os.path.exists(backup_dir)  # both backups deleted at the end, the folder tfkit made too
