"""``CSVLogger``: one CSV row of metrics per epoch.

model.fit(x, y, epochs=3, callbacks=[tfkit.callbacks.CSVLogger("training.csv")])
# epoch,loss,val_loss
# 0,0.31,0.29 ...
"""

from __future__ import annotations

import collections.abc
import csv
import os
from typing import Any, TextIO

import numpy as np

from tfkit.base import registry
from tfkit.callbacks.callback import Callback
from tfkit.files import worker_files


def _cell(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, collections.abc.Iterable) and not (isinstance(value, np.ndarray) and value.ndim == 0):
        return f'"[{", ".join(map(str, value))}]"'
    return value


@registry.builtin("callbacks")
class CSVLogger(Callback):
    """Callback that streams epoch results to a CSV file.

    Supports all values that can be represented as a string, including 1D iterables
    such as `np.ndarray`. Each row holds the (0-based) `epoch`, then the logged values
    in the sorted order of their names; the header is written from the first epoch's
    logs (when they hold no validation values, `val_` columns are added for them, so
    the header stays stable if validation starts later), and a missing value is
    written as `NA`. The file is flushed after each row. In a multi-worker cluster only
    the chief writes `filename`.

    Args:
        filename: Filename of the CSV file, e.g. `"run/log.csv"` (a string or
            `os.PathLike`).
        separator: String used to separate elements in the CSV file. Defaults to `","`.
        append: `bool`. `True`: append if file exists (useful for continuing training;
            the existing header is kept). `False`: overwrite the existing file.
            Defaults to `False`.

    Example:
        >>> csv_logger = tfkit.callbacks.CSVLogger("training.log", separator=";")
        >>> csv_logger.filename, csv_logger.sep, csv_logger.append
        ('training.log', ';', False)
    """

    def __init__(self, filename: str | os.PathLike, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = append
        self.keys: list[str] | None = None
        self.writer: csv.DictWriter | None = None
        self.csv_file: TextIO | None = None
        self._write_header = True
        self._written = self.filename

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._write_header = True
        # In a multi-worker cluster only the chief writes ``filename``; the others write a copy they delete.
        self._written = worker_files.path_for_this_worker(
            self.filename, getattr(self.model, "distribute_strategy", None)
        )
        if self._written != self.filename:
            os.makedirs(os.path.dirname(self._written), exist_ok=True)
        if self.append and os.path.exists(self._written):
            with open(self._written, "r", encoding="utf-8") as existing:
                self._write_header = not existing.readline()
        self._close()
        self.csv_file = open(self._written, "a" if self.append else "w", newline="", encoding="utf-8")
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        if self.csv_file is None:
            raise ValueError("CSVLogger.on_epoch_end was called before on_train_begin opened the file.")
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(key.startswith("val_") for key in self.keys):
                # Keep a stable header when validation logs appear only in later epochs.
                self.keys += [f"val_{key}" for key in self.keys]
        if self.writer is None:
            separator = self.sep

            class Dialect(csv.excel):
                delimiter = separator

            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch", *self.keys], dialect=Dialect)
            if self._write_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((key, _cell(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self._close()
        self.writer = None
        worker_files.remove_worker_copy(self._written, self.filename)

    def _close(self) -> None:
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
