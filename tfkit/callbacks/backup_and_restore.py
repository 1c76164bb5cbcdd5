"""``BackupAndRestore``: resume an interrupted ``fit`` where it stopped.

    backup = tfkit.callbacks.BackupAndRestore(backup_dir="/tmp/backup")
    model.fit(x, y, epochs=10, callbacks=[backup])   # killed during epoch 6 ...
    model.fit(x, y, epochs=10, callbacks=[backup])   # ... starts again at epoch 6

At each epoch end (or every ``save_freq`` batches) a ``tf.train.Checkpoint``
of the model, its optimizer, the number of finished epochs and the trainer's
extra state (``model._checkpoint_state()``: the data-shuffling random
generator) is written to the one checkpoint prefix ``backup_dir/ckpt`` the way
``save_weights`` publishes a checkpoint (``files.checkpoint_files``): under a
name of this process's own first, then renamed over the previous backup, so a
process killed at any point leaves the previous backup or the new one, and two
processes backing up to one folder never clobber each other's files (one whole
backup wins; TensorFlow's ``CheckpointManager`` gave both the same temporary
folder). ``on_train_begin``
restores the latest backup and tells the trainer where to start by setting
``model._initial_epoch``. A ``fit`` that ends normally deletes the backup:
the checkpoint files it wrote, and ``backup_dir`` itself only when this
callback created it and nothing else is left in it (Keras 3 deletes the whole
folder, whatever else it holds). The files to delete are listed in a journal
first, so a clean-up killed midway is finished by the next ``fit`` instead of
leaving a backup that cannot be restored; what TensorFlow's writer leaves when
it is killed mid-backup (``ckpt-N_temp`` folders) is removed there too.
"""

from __future__ import annotations

import glob
import logging
import os
import re
import shutil
from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.callbacks.callback import Callback
from tfkit.callbacks.finite_weights import finite_before_saving
from tfkit.callbacks.save_schedule import SaveSchedule
from tfkit.files import worker_files
from tfkit.files.checkpoint_files import publish_checkpoint, readable_prefix, reading, recover_publishes
from tfkit.files.checkpoint_index import check_checkpoint
from tfkit.files.folder_lock import exclusive

_RESERVED = ("model", "optimizer", "epoch")
_CREATED_MARKER = ".tfkit-backup-dir"
# What TensorFlow's checkpoint writer leaves when it is killed: a shard folder and a state-file temp.
_INTERRUPTED_FOLDER = re.compile(r"ckpt-\d+_temp")
_INTERRUPTED_PART = re.compile(r"part-\d{5}-of-\d{5}\.(index|data-\d{5}-of-\d{5})(\.tempstate\d+)?")
_CHECKPOINT_FILE = re.compile(r"ckpt(-\d+|_previous)?\.(index|data-\d{5}-of-\d{5})")
_PREFIX = "ckpt"
_PREVIOUS = "ckpt_previous"  # double_checkpoint: the backup before the latest
_INTERRUPTED_STATE = re.compile(r"checkpoint\.tmp[0-9a-f]{32}|\.tfkit-backup-cleanup\.tmp-\d+")
_CLEANUP_JOURNAL = ".tfkit-backup-cleanup"
logger = logging.getLogger(__name__)


@registry.builtin("callbacks")
class BackupAndRestore(Callback):
    """Callback to back up and restore the training state.

    `BackupAndRestore` callback is intended to recover training from an interruption
    that has happened in the middle of a `Model.fit` execution, by backing up the
    training states in a temporary checkpoint file at the end of each epoch (or every
    `save_freq` batches). Each backup overwrites the previously written checkpoint
    file, so at any given time there is at most one such checkpoint file for backup
    and restoring purpose.

    If training restarts before completion, the training state (which includes the
    `Model` weights, the optimizer state, the number of finished epochs and the
    trainer's data-shuffling random generator) is restored from the most recent
    backup, and training resumes from the epoch where it was interrupted
    (`restored_epoch`; a backup taken mid-epoch restarts that epoch from the saved
    weights). At the completion of training, the backup is deleted.

    Backups are crash-safe. Each one is written to the checkpoint prefix
    `backup_dir/ckpt` the way `save_weights` publishes a checkpoint: under a name of
    this process's own first, then renamed over the previous backup, so a process
    killed at any point leaves the previous backup or the new one, and two processes
    backing up to one folder never clobber each other's files (one whole backup wins).
    Weights that are not finite (training diverged) never replace a good backup. A
    `fit` that ends normally deletes the backup: the checkpoint files it wrote, and
    `backup_dir` itself only when this callback created it and nothing else is left in
    it (Keras 3 deletes the whole folder, whatever else it holds). The files to delete
    are listed in a journal first, so a clean-up killed midway is finished by the next
    `fit` instead of leaving a backup that cannot be restored; what TensorFlow's writer
    leaves when it is killed mid-backup (`ckpt-N_temp` folders) is removed there too.
    `latest_checkpoint` gives the prefix the next `fit` would restore, if any.

    Args:
        backup_dir: String or `os.PathLike`, the path of the directory where to store
            the data needed to restore the model (created if needed). The directory
            cannot be reused elsewhere to store other files, e.g. by the
            `BackupAndRestore` callback of another training run, or by another callback
            (e.g. `ModelCheckpoint`) of the same training run.
        save_freq: `"epoch"`, or an integer. When set to `"epoch"`, the callback saves
            the checkpoint at the end of each epoch. When set to an integer, the callback
            saves the checkpoint every `save_freq` batches. Defaults to `"epoch"`.
        double_checkpoint: `bool`. If `True`, the backup before the latest is kept too
            (`ckpt_previous`, hard links: no copy); when the latest cannot be read (a
            damaged file), `fit` resumes from that one. Defaults to `False`.
        delete_checkpoint: `bool`. If `True`, the backup is deleted when `fit` finishes
            normally (see above). Defaults to `True`.

    Raises:
        ValueError: If `backup_dir` is empty or `save_freq` is neither `"epoch"` nor a
            positive integer; at the start of `fit`, if the backup is damaged (and no
            previous one is kept) or does not match the model and optimizer.

    Example:
        >>> backup = tfkit.callbacks.BackupAndRestore(backup_dir="backup")
        >>> model = tfkit.Sequential([tfkit.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[backup])
        >>> backup.restored_epoch is None, backup.latest_checkpoint is None   # deleted at the end
        (True, True)
    """

    def __init__(
        self,
        backup_dir: str | os.PathLike,
        save_freq: str | int = "epoch",
        double_checkpoint: bool = False,
        delete_checkpoint: bool = True,
    ) -> None:
        super().__init__()
        if not backup_dir:
            raise ValueError("BackupAndRestore needs a backup_dir; got an empty value.")
        self._schedule = SaveSchedule(save_freq, "BackupAndRestore")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.double_checkpoint = bool(double_checkpoint)
        self.delete_checkpoint = delete_checkpoint
        self.restored_epoch: int | None = None
        self._epoch_variable: tf.Variable | None = None
        self._checkpoint: tf.train.Checkpoint | None = None
        self._owned: list[str] = []  # prefixes this callback restored or wrote: what a finished fit deletes
        self._current_epoch = 0

    def _implements_train_batch_hooks(self) -> bool:
        return self._schedule.per_batch

    # -- checkpoint plumbing --

    def _build_checkpoint(self) -> None:
        model = self.model
        if model is None:
            raise ValueError("BackupAndRestore has no model: the trainer must call set_model before on_train_begin.")
        if self._epoch_variable is None:
            self._epoch_variable = tf.Variable(0, dtype=tf.int64, trainable=False, name="finished_epochs")
        state_fn = getattr(model, "_checkpoint_state", None)
        extra = dict(state_fn() or {}) if callable(state_fn) else {}
        clashes = sorted(set(extra) & set(_RESERVED))
        if clashes:
            raise ValueError(
                f"model._checkpoint_state() returned reserved keys {clashes}; "
                f"BackupAndRestore already uses {', '.join(_RESERVED)}."
            )
        trackables: dict[str, Any] = {"model": model, "epoch": self._epoch_variable, **extra}
        optimizer = getattr(model, "optimizer", None)
        if optimizer is not None:
            trackables["optimizer"] = optimizer
        self._checkpoint = tf.train.Checkpoint(**trackables)
        # Every worker saves (saving can need collectives); only the chief's backup stays.
        self._write_dir = worker_files.path_for_this_worker(self.backup_dir, self._strategy())

    def _strategy(self) -> Any:
        return getattr(self.model, "distribute_strategy", None)

    @property
    def latest_checkpoint(self) -> str | None:
        """Path prefix of the backup that the next ``fit`` would restore, if any (looking changes nothing on disk)."""
        return readable_prefix(os.path.join(self.backup_dir, _PREFIX)) or tf.train.latest_checkpoint(self.backup_dir)

    def _save(self, finished_epochs: int) -> None:
        prefix = os.path.join(self.backup_dir, _PREFIX)
        if not finite_before_saving(self.model, "BackupAndRestore", prefix):
            return  # diverged weights never replace a good backup (every worker decides alike)
        self._epoch_variable.assign(finished_epochs)
        if self.double_checkpoint:
            self._keep_previous()
        publish_checkpoint(self._checkpoint.write, os.path.join(self._write_dir, _PREFIX))
        if prefix not in self._owned:
            self._owned.append(prefix)
        worker_files.remove_worker_copy(self._write_dir, self.backup_dir)

    def _keep_previous(self) -> None:
        """Publish the current backup (hard links: published files are never rewritten) as ``ckpt_previous``."""
        current = os.path.join(self._write_dir, _PREFIX)

        def link(new: str) -> None:
            with reading(current) as source:
                escaped = glob.escape(source) if source else None
                for path in (
                    glob.glob(escaped + ".index") + glob.glob(escaped + ".data-?????-of-?????") if escaped else []
                ):
                    os.link(path, new + path[len(source) :])

        if readable_prefix(current) is None:
            return
        publish_checkpoint(link, os.path.join(self._write_dir, _PREVIOUS))
        previous = os.path.join(self.backup_dir, _PREVIOUS)
        if previous not in self._owned:
            self._owned.append(previous)

    # -- hooks --

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        chief = worker_files.is_chief(self._strategy())
        if chief and not os.path.exists(self.backup_dir):
            try:
                os.makedirs(self.backup_dir)
            except FileExistsError:
                pass  # another process made it between the check and here; that process writes the marker
            else:
                with open(os.path.join(self.backup_dir, _CREATED_MARKER), "w") as marker:
                    marker.write("created by tfkit's BackupAndRestore; removed with the backup\n")
        # A clean-up journal means the last fit finished: no worker restores from a backup being deleted.
        finished = os.path.isfile(os.path.join(self.backup_dir, _CLEANUP_JOURNAL))
        if chief:
            self._remove_interrupted_writes()
            self._finish_cleanup()
        self._build_checkpoint()
        self.restored_epoch = None
        self._owned = []
        self._schedule.reset()
        if finished:
            return
        with reading(os.path.join(self.backup_dir, _PREFIX)) as kept:  # no publish in backup_dir while it is read
            path = kept or tf.train.latest_checkpoint(self.backup_dir)  # every worker reads the chief's
            if path is None:
                return
            try:
                self._restore_from(path)
            except ValueError as error:
                previous = readable_prefix(os.path.join(self.backup_dir, _PREVIOUS)) if self.double_checkpoint else None
                if previous is None:
                    raise
                logger.warning("BackupAndRestore: %s; resuming from the backup before it, %r", error, previous)
                self._restore_from(previous)
                self._owned.append(os.path.join(self.backup_dir, _PREFIX))  # the damaged one goes at the end too
        self.restored_epoch = int(self._epoch_variable.numpy())
        self.model._initial_epoch = self.restored_epoch

    def _restore_from(self, path: str) -> None:
        try:
            check_checkpoint(path)  # TensorFlow's reader aborts the process on a damaged index
        except ValueError as error:
            raise ValueError(
                f"BackupAndRestore: the backup {path!r} is damaged: {error} Delete "
                f"{self.backup_dir!r} to start training from scratch."
            ) from None
        self._owned = [path if os.path.dirname(path) == self.backup_dir else os.path.join(self.backup_dir, _PREFIX)]
        try:
            status = self._checkpoint.read(path)  # read: no save_counter (the backup is written, not saved)
        except (tf.errors.OpError, RuntimeError) as error:  # TensorFlow's checksum of each tensor failed
            raise ValueError(
                f"BackupAndRestore: the backup {path!r} is damaged: {error}. Delete "
                f"{self.backup_dir!r} to start training from scratch (or back up with "
                f"double_checkpoint=True to keep the backup before it)."
            ) from None
        try:
            status.assert_existing_objects_matched()
        except AssertionError as error:
            raise ValueError(
                f"BackupAndRestore: the backup {path!r} does not match this model and optimizer ({error}). "
                f"Delete {self.backup_dir!r} to start training from scratch."
            ) from None

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self._schedule.batch_ended(batch):
            self._save(self._current_epoch)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.save_freq == "epoch":
            self._save(epoch + 1)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if not worker_files.is_chief(self._strategy()):
            return  # its copies were deleted after each save; the chief's backup is the one
        if not self.delete_checkpoint or not os.path.isdir(self.backup_dir):
            return
        files = self._written_files()
        if files:
            self._write_cleanup_journal(files)
            self._finish_cleanup()
        marker = os.path.join(self.backup_dir, _CREATED_MARKER)
        if os.path.isfile(marker) and os.listdir(self.backup_dir) == [_CREATED_MARKER]:
            os.remove(marker)
            os.rmdir(self.backup_dir)  # tfkit made it and nothing else is in it

    # -- deleting the backup: a journal, so a kill midway never leaves a half-deleted backup behind --

    def _write_cleanup_journal(self, files: list[str]) -> None:
        """List the files to delete in ``backup_dir/.tfkit-backup-cleanup`` (written whole, then renamed)."""
        journal = os.path.join(self.backup_dir, _CLEANUP_JOURNAL)
        temporary = f"{journal}.tmp-{os.getpid()}"
        with open(temporary, "w") as out:
            out.write("".join(os.path.basename(path) + "\n" for path in files))
        os.replace(temporary, journal)

    def _finish_cleanup(self) -> None:
        """Delete the files the journal lists (a clean-up killed midway is finished here), then the journal."""
        journal = os.path.join(self.backup_dir, _CLEANUP_JOURNAL)
        if not os.path.isfile(journal):
            return
        with open(journal) as listing:
            names = listing.read().split("\n")
        with exclusive(self.backup_dir) as locked:  # no publish or read of the backup runs meanwhile
            if locked:  # a killed publish's kept backup goes too
                recover_publishes(os.path.join(self.backup_dir, _PREFIX))
            for name in names:
                if name == "checkpoint" or _CHECKPOINT_FILE.fullmatch(name):  # only names the backup writes
                    try:
                        os.remove(os.path.join(self.backup_dir, name))
                    except FileNotFoundError:
                        pass
            os.remove(journal)

    def _remove_interrupted_writes(self) -> None:
        """Delete what a backup killed mid-write left in ``backup_dir``: only TensorFlow's temporary names."""
        for name in os.listdir(self.backup_dir):
            path = os.path.join(self.backup_dir, name)
            if _INTERRUPTED_STATE.fullmatch(name) and os.path.isfile(path):
                os.remove(path)
            elif (
                _INTERRUPTED_FOLDER.fullmatch(name)
                and os.path.isdir(path)
                and all(_INTERRUPTED_PART.fullmatch(part) for part in os.listdir(path))
            ):
                shutil.rmtree(path)

    def _written_files(self) -> list[str]:
        """The files of the backups this callback restored or wrote, in deletion order: an earlier tfkit's
        ``checkpoint`` state file first, then each prefix's index (a prefix without one is no backup, so
        no later ``fit`` restores one being deleted), then its data."""
        state = os.path.join(self.backup_dir, "checkpoint")
        numbered = any(os.path.basename(prefix) != _PREFIX for prefix in self._owned)
        files = [state] if numbered and os.path.isfile(state) else []
        for prefix in self._owned:
            files += glob.glob(glob.escape(prefix) + ".index") + sorted(glob.glob(glob.escape(prefix) + ".data-*-of-*"))
        return files
