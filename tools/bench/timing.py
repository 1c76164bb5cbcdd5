"""Clocks shared by the peers: epoch timers, peak RSS, predict and serving timings.

    timer = timing.make_epoch_timer(keras.callbacks.Callback)()
    timer.start(); model.fit(x, y, epochs=5, callbacks=[timer]); timer.metrics()
    timing.serving_latency_ms(export_dir, sample)

An epoch's time is the wall time between consecutive ``on_epoch_end`` calls, so it
includes everything ``fit`` does between epochs (shuffling, iterator set-up); the
first epoch is measured from the moment ``fit`` is called, tracing included. The
timer also reads the process's current resident set size (psutil) at each epoch
end, so memory that grows from epoch to epoch shows.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from typing import Any, Callable


def epoch_metrics(
    fit_start: float, epoch_ends: list[float], losses: list[float], rss_mib: list[float] | None = None
) -> dict[str, float]:
    """First-epoch time, steady-state epoch time (median of epochs 2..k), the whole run, loss after epoch 2.

    With ``rss_mib`` (current RSS at each epoch end): RSS after epoch 1, after the
    last epoch, and the growth between them.
    """
    if not epoch_ends:
        raise ValueError("no epoch finished; expected at least one on_epoch_end call")
    marks = [fit_start] + list(epoch_ends)
    durations = [end - begin for begin, end in zip(marks, marks[1:])]
    metrics = {"epoch_first_s": durations[0]}
    if len(durations) > 1:
        metrics["epoch_steady_s"] = statistics.median(durations[1:])
    if len(losses) > 1:
        metrics["loss_epoch2"] = float(losses[1])
    if rss_mib:
        metrics["rss_epoch1_mib"] = float(rss_mib[0])
        metrics["rss_last_mib"] = float(rss_mib[-1])
        metrics["rss_growth_mib"] = float(rss_mib[-1] - rss_mib[0])
    metrics["run_s"] = marks[-1] - fit_start
    metrics["epochs_run"] = float(len(durations))
    return metrics


def step_metrics(epoch: dict[str, float], steps: int) -> dict[str, float]:
    """A fine-tuning's steady step, first epoch and warm-up (the first epoch less ``steps`` steady steps), and its
    loss after epoch 2 when there is one, from ``epoch_metrics`` of epochs of ``steps`` steps each."""
    step = epoch["epoch_steady_s"] / steps
    metrics = {
        "step_steady_s": step,
        "epoch_first_s": epoch["epoch_first_s"],
        "warmup_s": max(0.0, epoch["epoch_first_s"] - steps * step),
    }
    if "loss_epoch2" in epoch:
        metrics["loss_epoch2"] = epoch["loss_epoch2"]
    return metrics


def make_epoch_timer(callback_base: type) -> type:
    """A callback class, subclassing the framework's own ``Callback``, that timestamps epochs."""

    class EpochTimer(callback_base):  # type: ignore[misc, valid-type]
        def start(self) -> None:
            self.fit_start = time.perf_counter()
            self.epoch_ends: list[float] = []
            self.losses: list[float] = []
            self.rss: list[float] = []

        def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
            self.epoch_ends.append(time.perf_counter())
            if logs and "loss" in logs:
                self.losses.append(float(logs["loss"]))
            self.rss.append(current_rss_mib())

        def metrics(self) -> dict[str, float]:
            return epoch_metrics(self.fit_start, self.epoch_ends, self.losses, self.rss)

    return EpochTimer


def peak_rss_mib() -> float:
    """This process's peak resident set size so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def current_rss_mib() -> float:
    """This process's resident set size now (not its peak), in MiB: psutil, else /proc/self/statm."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        return psutil.Process().memory_info().rss / (1024 * 1024)
    import os

    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


def predict_metrics(predict: Callable[[], Any], samples: int, calls: int) -> dict[str, float]:
    """First call (tracing included), then the median of ``calls`` more as samples per second."""
    start = time.perf_counter()
    predict()
    first = time.perf_counter() - start
    durations = []
    for _ in range(calls):
        start = time.perf_counter()
        predict()
        durations.append(time.perf_counter() - start)
    return {"predict_first_s": first, "predict_samples_per_s": samples / statistics.median(durations)}


SERVING_CALLS_FULL = 1000
SERVING_CALLS_QUICK = 100


def serving_calls(quick: bool) -> int:
    """How many timed single-sample calls the serving latency is the median of."""
    return SERVING_CALLS_QUICK if quick else SERVING_CALLS_FULL


def serving_latency_ms(export_dir: str, sample: Any, calls: int, warmup: int = 20) -> float:
    """Median wall time of one call of the SavedModel's ``serving_default`` on one sample."""
    import tensorflow as tf

    loaded = tf.saved_model.load(export_dir)
    if "serving_default" not in loaded.signatures:
        raise ValueError(f"{export_dir} has no serving_default signature; found {sorted(loaded.signatures)}")
    serve = loaded.signatures["serving_default"]
    input_names = sorted(serve.structured_input_signature[1])
    if len(input_names) != 1:
        raise ValueError(f"expected one serving input, found {input_names}")
    feed = {input_names[0]: tf.constant(sample)}
    for _ in range(warmup):
        serve(**feed)
    durations = []
    for _ in range(calls):
        start = time.perf_counter()
        outputs = serve(**feed)
        for value in outputs.values():
            value.numpy()
        durations.append(time.perf_counter() - start)
    return 1000 * statistics.median(durations)
