"""What ``check_finite`` (NaN and infinity in the data of fit/evaluate/predict) costs on the bench's workloads.

    python tools/finite_check_cost.py                    # the check, the set-up, epochs: 6-8 minutes on 2 cores
    python tools/finite_check_cost.py --no-epochs        # the check and the set-up only (seconds)
    python tools/finite_check_cost.py --workloads vae,tfdata --repeats 5

On MNIST as the bench trains on it (``tools/bench/data.py``): the VAE's float32
(60000, 784) images (``fit(x, x)``: one array), the CNN's (60000, 28, 28, 1) float32
images with int32 labels (not checked), and the tfdata workload's ``shuffle -> batch ->
prefetch`` pipeline (its first batch only). In one process, interleaved, with the check
on and off: the check alone on each array; ``data.adapt`` (what fit does with arrays
before its first step: check and convert to tensors); and, unless ``--no-epochs``, one
epoch of ``fit`` and one ``predict`` of the bench's models on a warm model. Prints
milliseconds (medians of ``--repeats``) and the ratio on/off. No numbers are asserted.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time
from typing import Any, Callable

_ROOT = pathlib.Path(__file__).resolve().parents[1]
_SHARED = _ROOT.parent / "shared" / "datasets"
if _SHARED.is_dir():
    os.environ.setdefault("TFKIT_DATA_DIR", str(_SHARED))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, str(_ROOT / "tools"))

import numpy as np  # noqa: E402
from bench import peer_tfkit  # noqa: E402

import tfkit  # noqa: E402
from tfkit.training.data import DatasetData, adapt  # noqa: E402
from tfkit.training.finite_inputs import FiniteCheck, find_non_finite  # noqa: E402

BATCH = 128


def mnist() -> tuple[np.ndarray, np.ndarray]:
    (x, y), _ = tfkit.datasets.mnist.load_data()
    return x, y


def interleaved(on: Callable[[], Any], off: Callable[[], Any], repeats: int) -> tuple[list[float], list[float]]:
    """Seconds of ``on()`` and ``off()``, ``repeats`` times each, alternately in the order off, on, on, off,
    off, on ... (so that neither always runs first: a run may pay for freeing the one before)."""
    times: dict[bool, list[float]] = {True: [], False: []}
    for repeat in range(repeats):
        for flag, call in ((False, off), (True, on))[:: 1 if repeat % 2 == 0 else -1]:
            start = time.perf_counter()
            call()
            times[flag].append(time.perf_counter() - start)
    return times[True], times[False]


def row(label: str, on: float | list[float], off: list[float] | None = None) -> None:
    """One line: the check alone (seconds), or medians on and off, their difference and ratio, and the spread
    of the runs (on a shared machine, epoch timings vary by more than the check costs)."""
    if off is None:
        print(f"{label:46s} {on * 1e3:9.1f} ms")
        return
    a, b = statistics.median(on), statistics.median(off)
    spread = max((max(t) - min(t)) / statistics.median(t) for t in (on, off))
    print(
        f"{label:46s} {a * 1e3:9.1f} ms on {b * 1e3:9.1f} ms off {(a - b) * 1e3:+8.1f} ms  x{a / b:.3f}  "
        f"(runs vary by {spread:.0%})"
    )


def check_and_setup(arrays: dict[str, tuple[Any, Any]], repeats: int) -> None:
    for name, (x, y) in arrays.items():
        for label, array in (("x", x), ("y", y)):
            if array is x and label == "y":
                continue
            seconds = min(timed(lambda a=array: find_non_finite(label, a)) for _ in range(repeats))
            row(f"{name}: the check of {label} {array.dtype}{array.shape}", seconds)
        row(
            f"{name}: fit's data set-up (check, tensors)",
            *interleaved(
                lambda: adapt(x, y, batch_size=BATCH, finite=FiniteCheck("fit")),
                lambda: adapt(x, y, batch_size=BATCH),
                repeats,
            ),
        )


def timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def epochs(arrays: dict[str, tuple[Any, Any]], repeats: int, workloads: list[str]) -> None:
    peer_tfkit.load("tfkit")
    for workload in workloads:
        x, y = arrays["cnn" if workload == "cnn" else "vae"]
        tfkit.utils.set_random_seed(0)
        model, compile_args = peer_tfkit.make_model(workload)
        model.compile(optimizer=tfkit.optimizers.Adam(1e-3), **compile_args)

        def fit(check: bool) -> None:
            data = peer_tfkit.make_dataset(x, y, BATCH) if workload == "tfdata" else x
            model.fit(
                data,
                None if workload == "tfdata" else y,
                batch_size=None if workload == "tfdata" else BATCH,
                epochs=1,
                verbose=0,
                check_finite=check,
            )

        fit(True)  # traces and warms up
        row(f"{workload}: one epoch of fit", *interleaved(lambda: fit(True), lambda: fit(False), repeats))
        if workload == "tfdata":
            first_batch(peer_tfkit.make_dataset(x, y, BATCH), repeats)
        else:
            model.predict(x, batch_size=BATCH, verbose=0)
            row(
                f"{workload}: predict",
                *interleaved(
                    lambda: model.predict(x, batch_size=BATCH, verbose=0, check_finite=True),
                    lambda: model.predict(x, batch_size=BATCH, verbose=0, check_finite=False),
                    repeats,
                ),
            )


def first_batch(dataset: Any, repeats: int) -> None:
    """A dataset's first batch taken, checked and made an iterator again (what fit adds) against taken only."""
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(max(repeats, 5)):
        for check in (False, True):
            iterator = iter(dataset)  # its set-up (the shuffle buffer) is not timed
            start = time.perf_counter()
            if check:
                DatasetData(dataset, finite=FiniteCheck("fit")).first_batch_again(iterator)
            else:
                iterator.get_next()
            times[check].append(time.perf_counter() - start)
    row("tfdata: the first batch (checked, again)", times[True], times[False])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="timings of each kind (medians; default 3)")
    parser.add_argument("--no-epochs", action="store_true", help="time the check and the set-up only")
    parser.add_argument("--workloads", default="vae,cnn,tfdata", help="whose epochs to time (default vae,cnn,tfdata)")
    args = parser.parse_args()
    images, labels = mnist()
    vae = images.reshape(-1, 784).astype("float32") / 255
    cnn = images.reshape(-1, 28, 28, 1).astype("float32") / 255
    arrays = {"vae": (vae, vae), "cnn": (cnn, labels.astype("int32"))}
    print(f"tfkit {tfkit.__version__}, numpy {np.__version__}, {os.cpu_count()} CPUs; medians of {args.repeats}")
    check_and_setup(arrays, max(args.repeats, 5))
    if not args.no_epochs:
        epochs(arrays, args.repeats, args.workloads.split(","))


if __name__ == "__main__":
    main()
