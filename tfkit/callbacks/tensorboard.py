"""``TensorBoard``: event files for ``tensorboard --logdir logs``.

    board = tfkit.callbacks.TensorBoard(log_dir="logs/run1", histogram_freq=1, update_freq=50)
    model.fit(x, y, validation_split=0.2, epochs=5, callbacks=[board])
    # logs/run1/train: epoch_loss, epoch_learning_rate, batch_loss, weight histograms, the graph
    # logs/run1/validation: epoch_loss, evaluation_loss_vs_iterations

Events are written with ``tf.summary.write`` in TensorBoard's plugin formats
(``summary_writing.py``), so logging needs only TensorFlow, not the
``tensorboard`` package. The training graph is the
concrete function behind ``model.train_function``, written once it has been
traced (after the first batch or at the first epoch end), so the default
``update_freq="epoch"`` asks the trainer for no per-batch hooks at all.
"""

from __future__ import annotations

import os
import time
import warnings
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.callbacks.callback import Callback
from tfkit.callbacks.embedding_projector import write_projector
from tfkit.callbacks.learning_rate_access import read_learning_rate
from tfkit.callbacks.summary_writing import write_histogram, write_images, write_scalar
from tfkit.files import worker_files


def _parse_profile_batch(profile_batch: Any) -> tuple[int, int]:
    message = (
        "TensorBoard profile_batch must be a non-negative integer, a pair (start, stop) of positive "
        f"integers with start <= stop, or a string 'start,stop'; got {profile_batch!r}"
    )
    if isinstance(profile_batch, str):
        try:
            profile_batch = [int(part) for part in profile_batch.split(",")]
        except ValueError:
            raise ValueError(message) from None
        if len(profile_batch) == 1:
            profile_batch = profile_batch[0]
    if isinstance(profile_batch, (int, np.integer)) and not isinstance(profile_batch, bool):
        start = stop = int(profile_batch)
    elif isinstance(profile_batch, (list, tuple)) and len(profile_batch) == 2:
        start, stop = (int(v) for v in profile_batch)
    else:
        raise ValueError(message)
    if start < 0 or stop < start:
        raise ValueError(message)
    return start, stop


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (str, bytes)) and np.ndim(value) == 0


def _concrete_graphs(function: Any) -> list[Any]:
    """Graphs already traced for ``function`` (a tf.function or a ConcreteFunction)."""
    if function is None:
        return []
    if hasattr(function, "graph") and hasattr(function.graph, "as_graph_def"):
        return [function.graph]
    for lister in ("_list_all_concrete_functions", "_list_all_concrete_functions_for_serialization"):
        if hasattr(function, lister):
            try:
                return [concrete.graph for concrete in getattr(function, lister)()]
            except Exception:  # a private API changed: fall through to the next way
                continue
    return []


def _weights_by_name(model: Any) -> dict[str, Any]:
    weight_paths = getattr(model, "weight_paths", None)
    if callable(weight_paths):
        return dict(weight_paths())
    named: dict[str, Any] = {}
    for index, weight in enumerate(getattr(model, "weights", None) or []):
        name = getattr(weight, "path", None) or getattr(weight, "name", None) or f"weight_{index}"
        named[name] = weight
    return named


def _weight_as_image(weight: Any) -> np.ndarray | None:
    """A ``[k, h, w, 1]`` image batch for 1-D, 2-D or 3-D weights (squeezed), else ``None``."""
    array = np.squeeze(np.asarray(weight))
    if array.ndim == 1:
        return array.reshape(1, 1, array.shape[0], 1)
    if array.ndim == 2:
        if array.shape[0] > array.shape[1]:
            array = array.T
        return array.reshape(1, array.shape[0], array.shape[1], 1)
    if array.ndim == 3:  # (h, w, channels): one image per channel
        array = np.transpose(array, (2, 0, 1))
        return array.reshape(array.shape[0], array.shape[1], array.shape[2], 1)
    return None


@registry.builtin("callbacks")
class TensorBoard(Callback):
    """Enable visualizations for TensorBoard.

    TensorBoard is a visualization tool provided with TensorFlow. This callback logs
    events for TensorBoard, including:

    - metrics summary plots (`epoch_loss`, `epoch_learning_rate`, ...; `batch_*` ones
      with `update_freq`);
    - training graph visualization;
    - weight histograms (and images);
    - sampled profiling;
    - embeddings of `Embedding` layers for the projector.

    Training events go to `log_dir/train` and validation events to
    `log_dir/validation`; view them with `tensorboard --logdir=path_to_your_logs`.
    Events are written with `tf.summary.write` in TensorBoard's plugin formats, so
    logging needs only TensorFlow, not the `tensorboard` package. The training graph is
    written once it has been traced (after the first batch or at the first epoch
    end), so the default `update_freq="epoch"` asks the trainer for no per-batch hooks
    at all. In a multi-worker cluster only the chief's events stay.

    Args:
        log_dir: The path of the directory where to save the log files to be parsed by
            TensorBoard, e.g. `log_dir = os.path.join(working_dir, "logs")`. This
            directory should not be reused by any other callbacks. Defaults to `"logs"`.
        histogram_freq: Frequency (in epochs) at which to compute weight histograms for
            the layers of the model. If set to 0, histograms won't be computed.
            Defaults to `0`.
        write_graph: Whether to visualize the graph in TensorBoard (the traced training
            graph, written once). Defaults to `True`.
        write_images: Whether to write model weights to visualize as images in
            TensorBoard, along with the histograms. Defaults to `False`.
        write_steps_per_second: Whether to log the training steps per second into
            TensorBoard at each epoch. Defaults to `False`.
        update_freq: `"batch"`, `"epoch"` or an integer. When using `"epoch"`, writes
            the losses and metrics to TensorBoard after every epoch. If using an integer,
            say `1000`, all metrics and losses (including custom ones added by
            `Model.compile`) will also be logged to TensorBoard every 1000 batches, as
            `batch_*` scalars; `"batch"` is `1`. Note that writing too frequently to
            TensorBoard can slow down your training. Defaults to `"epoch"`.
        profile_batch: Profile the batch(es) to sample compute characteristics, with the
            TensorFlow profiler: a batch number (1-based, counted from the start of `fit`),
            a pair `(start, stop)` of batch numbers, or a string `"start,stop"`. 0 turns
            profiling off. Defaults to `0`.
        embeddings_freq: Frequency (in epochs) at which the `Embedding` layers' matrices
            are saved for TensorBoard's projector (`projector_config.pbtxt` in the train
            folder). If set to 0, embeddings won't be visualized. Defaults to `0`.
        embeddings_metadata: A metadata file name for every embedding, or a `dict` that
            maps `Embedding` layer names to the file names of their metadata. Defaults to
            `None`.

    Raises:
        ValueError: If `update_freq`, `profile_batch` or `embeddings_freq` is not one
            of the values above.

    Example:
        >>> tensorboard = tfkit.callbacks.TensorBoard(log_dir="logs/run1", histogram_freq=1)
        >>> tensorboard.log_dir, tensorboard.update_freq
        ('logs/run1', 'epoch')
        >>> tfkit.callbacks.TensorBoard(update_freq="batch").update_freq
        1
    """

    def __init__(
        self,
        log_dir: str | os.PathLike = "logs",
        histogram_freq: int = 0,
        write_graph: bool = True,
        write_images: bool = False,
        write_steps_per_second: bool = False,
        update_freq: str | int = "epoch",
        profile_batch: int | tuple[int, int] | str = 0,
        embeddings_freq: int = 0,
        embeddings_metadata: Any = None,
    ) -> None:
        super().__init__()
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and not (
            isinstance(update_freq, (int, np.integer)) and not isinstance(update_freq, bool) and update_freq > 0
        ):
            raise ValueError(
                f"TensorBoard update_freq must be 'epoch', 'batch' or a positive integer; got {update_freq!r}"
            )
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = int(histogram_freq)
        if (
            isinstance(embeddings_freq, bool)
            or not isinstance(embeddings_freq, (int, np.integer))
            or embeddings_freq < 0
        ):
            raise ValueError(f"TensorBoard embeddings_freq must be a non-negative integer; got {embeddings_freq!r}")
        self.embeddings_freq = int(embeddings_freq)
        self.embeddings_metadata = embeddings_metadata
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = update_freq
        self._profile_start, self._profile_stop = _parse_profile_batch(profile_batch)
        self._writers: dict[str, Any] = {}
        self._worker_dir: str | None = None
        self._graph_pending = False
        self._global_train_batch = 0
        self._epoch_first_batch = 0
        self._fit_first_batch = 0
        self._profiling = False
        self._profile_done = False
        self._epoch_start_time = 0.0
        self._epoch_start_iterations = 0

    # -- setup and writers --

    @property
    def _write_dir(self) -> str:
        """``log_dir`` on the chief; a copy another worker of a cluster deletes when training ends."""
        if self._worker_dir is None:
            self._worker_dir = worker_files.path_for_this_worker(
                self.log_dir, getattr(self.model, "distribute_strategy", None)
            )
        return self._worker_dir

    @property
    def train_dir(self) -> str:
        return os.path.join(self._write_dir, "train")

    @property
    def val_dir(self) -> str:
        return os.path.join(self._write_dir, "validation")

    def _writer(self, which: str) -> Any:
        if which not in self._writers:
            self._writers[which] = tf.summary.create_file_writer(self.train_dir if which == "train" else self.val_dir)
        return self._writers[which]

    def _close_writers(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

    def set_model(self, model: Any) -> None:
        super().set_model(model)
        self._close_writers()
        self._worker_dir = None
        self._graph_pending = bool(self.write_graph)

    def _profiling_requested(self) -> bool:
        return self._profile_stop > 0 and not self._profile_done

    def _implements_train_batch_hooks(self) -> bool:
        return self.update_freq != "epoch" or self._profiling_requested()

    # -- training --

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._global_train_batch = self._optimizer_iterations()
        self._epoch_first_batch = self._global_train_batch
        self._fit_first_batch = self._global_train_batch

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._epoch_first_batch = self._global_train_batch
        self._epoch_start_time = time.time()
        self._epoch_start_iterations = self._optimizer_iterations()

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self._profiling_requested() and not self._profiling:
            upcoming = self._epoch_first_batch + batch + 1 - self._fit_first_batch
            if upcoming >= self._profile_start:
                self._start_profiler()

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._global_train_batch = self._epoch_first_batch + batch + 1
        self._maybe_write_graph()
        step = self._global_train_batch
        if self.update_freq != "epoch" and step % self.update_freq == 0 and logs:
            with self._writer("train").as_default(step=step):
                for name, value in logs.items():
                    if _is_scalar(value):
                        write_scalar(f"batch_{name}", value, step=step)
        if self._profiling and step - self._fit_first_batch >= self._profile_stop:
            self._stop_profiler()

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._maybe_write_graph()
        self._log_epoch_scalars(epoch, logs or {})
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            write_projector(self.model, self.train_dir, epoch, self.embeddings_metadata)
        for writer in self._writers.values():
            writer.flush()

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self._profiling:
            self._stop_profiler()
        self._close_writers()
        worker_files.remove_worker_copy(self._write_dir, self.log_dir)
        self._worker_dir = None

    # -- evaluation --

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        if not logs or getattr(self.model, "optimizer", None) is None:
            return
        step = self._optimizer_iterations()
        with self._writer("val").as_default(step=step):
            for name, value in logs.items():
                if _is_scalar(value):
                    write_scalar(f"evaluation_{name}_vs_iterations", value, step=step)
        self._writer("val").flush()

    # -- what is written --

    def _optimizer_iterations(self) -> int:
        iterations = getattr(getattr(self.model, "optimizer", None), "iterations", None)
        if iterations is None:
            return 0
        return int(np.asarray(iterations.numpy() if hasattr(iterations, "numpy") else iterations))

    def _maybe_write_graph(self) -> None:
        if not self._graph_pending:
            return
        graphs = _concrete_graphs(getattr(self.model, "train_function", None))
        if not graphs:
            return  # not traced yet; try again at the next batch or epoch end
        self._graph_pending = False
        with self._writer("train").as_default():
            tf.summary.graph(graphs[-1])

    def _log_epoch_scalars(self, epoch: int, logs: dict[str, Any]) -> None:
        train_logs = {name: value for name, value in logs.items() if not name.startswith("val_")}
        val_logs = {name[4:]: value for name, value in logs.items() if name.startswith("val_")}
        if getattr(self.model, "optimizer", None) is not None and hasattr(self.model.optimizer, "learning_rate"):
            train_logs.setdefault("learning_rate", read_learning_rate(self.model.optimizer))
        if self.write_steps_per_second:
            elapsed = max(time.time() - self._epoch_start_time, 1e-9)
            train_logs["steps_per_second"] = (self._optimizer_iterations() - self._epoch_start_iterations) / elapsed
        for which, scalars in (("train", train_logs), ("val", val_logs)):
            if not scalars:
                continue
            with self._writer(which).as_default(step=epoch):
                for name, value in scalars.items():
                    if _is_scalar(value):
                        write_scalar(f"epoch_{name}", value, step=epoch)

    def _log_weights(self, epoch: int) -> None:
        with self._writer("train").as_default(step=epoch):
            for name, weight in _weights_by_name(self.model).items():
                tag = name.replace(":", "_")
                write_histogram(f"{tag}/histogram", np.asarray(weight), step=epoch)
                if self.write_images:
                    image = _weight_as_image(weight)
                    if image is not None:
                        low, high = float(image.min()), float(image.max())
                        scaled = (image - low) / (high - low) if high > low else np.zeros_like(image)
                        write_images(f"{tag}/image", scaled, step=epoch, max_outputs=image.shape[0])

    # -- profiler --

    def _start_profiler(self) -> None:
        try:
            tf.profiler.experimental.start(self.train_dir)
            self._profiling = True
        except Exception as error:  # another profiler running, or no profiler support
            warnings.warn(f"TensorBoard could not start the profiler: {error}", stacklevel=2)
            self._profile_done = True

    def _stop_profiler(self) -> None:
        try:
            tf.profiler.experimental.stop()
        except Exception as error:
            warnings.warn(f"TensorBoard could not stop the profiler: {error}", stacklevel=2)
        self._profiling = False
        self._profile_done = True
