"""When a saving callback saves: every epoch, or every ``save_freq`` batches counted across chunks.

    schedule = SaveSchedule(200, "ModelCheckpoint")
    if schedule.batch_ended(batch):      # in on_train_batch_end
        save()

With chunked execution a callback may see batches 3, 7, 11, ...: the count
adds up the batches each call covers, and a batch index that does not grow
means a new epoch started.
"""

from __future__ import annotations


class SaveSchedule:
    """Counts trained batches for ``save_freq="epoch"`` or an integer number of batches."""

    def __init__(self, save_freq: str | int, owner: str) -> None:
        if save_freq != "epoch" and not (
            isinstance(save_freq, int) and not isinstance(save_freq, bool) and save_freq > 0
        ):
            raise ValueError(f"{owner} save_freq must be 'epoch' or a positive integer (batches); got {save_freq!r}")
        self.save_freq = save_freq
        self.reset()

    @property
    def per_batch(self) -> bool:
        """Whether saves are counted in batches (the callback needs batch hooks)."""
        return self.save_freq != "epoch"

    def reset(self) -> None:
        """Start counting from zero (a new fit)."""
        self._since_save = 0
        self._last_batch: int | None = None

    def batch_ended(self, batch: int) -> bool:
        """Record that training reached ``batch`` (0-based within its epoch); True when a save is due."""
        if not self.per_batch:
            return False
        new_batches = batch + 1 if self._last_batch is None or batch <= self._last_batch else batch - self._last_batch
        self._last_batch = batch
        self._since_save += new_batches
        if self._since_save >= self.save_freq:
            self._since_save = 0
            return True
        return False
