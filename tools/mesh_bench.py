"""Training on a device mesh: tfkit against Keras 3 on JAX, on 8 logical CPU devices.

    pip install -e ".[bench]"
    python tools/mesh_bench.py                        # both models, 2 rounds, a table on stdout
    python tools/mesh_bench.py --models guide --rounds 3 --mirrored

Two models on MNIST (8,192 samples, batch 256): keras-io's distribution guide's
MLP (Dense(200) without bias, Dropout(0.4), Dense(10)) and a 4 x 1024 MLP whose
kernels are split over "model" (Megatron style: columns, then rows). Each runs
on one device, under ``DataParallel`` over 8 devices and under ``ModelParallel``
on a (2, 4) mesh, in tfkit and in Keras 3 on JAX; ``--mirrored`` adds tfkit under
``tf.distribute.MirroredStrategy`` over the same 8 devices. Every run is a fresh
process (logical devices are fixed when a framework starts), runs are interleaved
and the plan repeats ``--rounds`` times. The table holds medians: the first
epoch, the steady epochs (every epoch after the first), the process's CPU
seconds and the final loss, with the ratio of tfkit's steady epoch to Keras 3 on
JAX's in the same mode and each mode's steady epoch over its framework's
one-device steady epoch (what distributing costs). This is the mesh part of the
benchmark (issue 49): ``python tools/bench.py --mesh`` runs the same plan
(``run_plan``) and puts ``section`` in its report, and a full ``tools/bench.py``
run includes it; the single-device workloads are ``tools/bench.py``'s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Sequence

DEVICES = 8
SAMPLES, BATCH = 8192, 256
MODELS = ("guide", "mlp4x1024")
MODES = ("one", "data_parallel", "model_parallel")
TF_THREAD_SETTINGS = ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS")  # reported when set
FRAMEWORKS = ("tfkit", "keras_jax")
TITLES = {"tfkit": "tfkit", "keras_jax": "Keras 3 on JAX"}


def _load_mnist(samples: int):
    import numpy as np

    here = os.path.dirname(os.path.abspath(__file__))
    for folder in (os.environ.get("TFKIT_DATA_DIR"), os.path.join(here, "..", "..", "shared", "datasets")):
        if folder and os.path.exists(os.path.join(folder, "mnist.npz")):
            with np.load(os.path.join(folder, "mnist.npz")) as data:
                x = (data["x_train"][:samples].astype("float32") / 255.0)[..., None]
                return x, data["y_train"][:samples].astype("int32")
    raise SystemExit("mnist.npz not found: set TFKIT_DATA_DIR to the folder that holds it")


def _split_kernels(model_name: str) -> dict:
    """The LayoutMap entries of a model: kernel path -> axes."""
    if model_name == "guide":
        return {"d1/kernel": (None, "model"), "d2/kernel": ("model", None)}
    return {f"h{i}/kernel": (None, "model") if i % 2 == 0 else ("model", None) for i in range(4)}


def _build(lib, model_name: str):
    inputs = lib.Input((28, 28, 1))
    h = lib.layers.Flatten()(inputs)
    if model_name == "guide":
        h = lib.layers.Dense(200, use_bias=False, activation="relu", name="d1")(h)
        h = lib.layers.Dropout(0.4)(h)
        outputs = lib.layers.Dense(10, activation="softmax", name="d2")(h)
    else:
        for i in range(4):
            h = lib.layers.Dense(1024, activation="relu", name=f"h{i}")(h)
        outputs = lib.layers.Dense(10, activation="softmax", name="out")(h)
    model = lib.Model(inputs, outputs)
    model.compile(optimizer=lib.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy")
    return model


def _set_distribution(lib, mode: str, model_name: str) -> None:
    distribution = lib.distribution
    devices = distribution.list_devices("cpu")[:DEVICES]
    if mode == "data_parallel":
        distribution.set_distribution(distribution.DataParallel(devices=devices))
    elif mode == "model_parallel":
        mesh = distribution.DeviceMesh((2, 4), ["batch", "model"], devices)
        layout_map = distribution.LayoutMap(mesh)
        for path, axes in _split_kernels(model_name).items():
            layout_map[path] = axes
        distribution.set_distribution(distribution.ModelParallel(layout_map=layout_map, batch_dim_name="batch"))


def worker(framework: str, mode: str, model_name: str, epochs: int) -> dict:
    """One run in this process: the epochs' seconds, CPU seconds and the final loss."""
    if framework == "keras_jax":
        os.environ["KERAS_BACKEND"] = "jax"
        os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={DEVICES}"
        import keras as lib
    else:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * DEVICES)
        import tfkit as lib
    x, y = _load_mnist(SAMPLES)
    lib.utils.set_random_seed(0)
    times: list[float] = []

    class EpochTimes(lib.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.start = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            times.append(time.perf_counter() - self.start)

    cpu_start = time.process_time()
    if mode == "mirrored":
        import tensorflow as tf

        with tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(DEVICES)]).scope():
            model = _build(lib, model_name)
    else:
        _set_distribution(lib, mode, model_name)
        model = _build(lib, model_name)
    history = model.fit(x, y, batch_size=BATCH, epochs=epochs, verbose=0, callbacks=[EpochTimes()])
    return {"epochs": times, "cpu": time.process_time() - cpu_start, "loss": float(history.history["loss"][-1])}


def plan(models: Sequence[str], mirrored: bool = False) -> list[tuple[str, str, str]]:
    """One round's runs, in the order they run.

    Args:
        models: Names from ``MODELS``.
        mirrored: Whether tfkit under ``MirroredStrategy`` is added (Keras 3 on JAX has no such mode).

    Returns:
        ``(framework, mode, model)`` triples: each model's modes in turn, tfkit then Keras 3 on JAX.
    """
    modes = list(MODES) + (["mirrored"] if mirrored else [])
    return [
        (framework, mode, model_name)
        for model_name in models
        for mode in modes
        for framework in FRAMEWORKS
        if not (framework == "keras_jax" and mode == "mirrored")
    ]


def _run(
    python: str, framework: str, mode: str, model_name: str, epochs: int, timeout: float, env: dict | None = None
) -> dict:
    command = [python, os.path.abspath(__file__), "--worker", framework, mode, model_name, str(epochs)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:.0f} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:200]}
    return json.loads(lines[-1])


def run_plan(
    models: Sequence[str] = MODELS,
    rounds: int = 2,
    epochs: int = 4,
    mirrored: bool = False,
    keras_python: str = sys.executable,
    timeout: float = 600.0,
    env: dict | None = None,
) -> dict:
    """Run ``plan`` ``rounds`` times, one fresh process a run (tfkit's in this interpreter).

    Args:
        models: Names from ``MODELS``.
        rounds: How many times the whole plan runs.
        epochs: Epochs a run (at least 2: the first is reported apart from the steady ones).
        mirrored: Whether tfkit under ``MirroredStrategy`` is added.
        keras_python: The interpreter that runs Keras 3 on JAX (it needs keras and jax).
        timeout: Seconds one run may take.
        env: The runs' environment (None: this process's).

    Returns:
        JSON-ready: the settings and ``runs``, one dict a run (``framework``, ``mode``, ``model``,
        ``round``, and ``epochs``, ``cpu``, ``loss`` or ``error``).
    """
    runs = []
    for number in range(1, rounds + 1):
        for framework, mode, model_name in plan(models, mirrored):
            python = keras_python if framework == "keras_jax" else sys.executable
            run = _run(python, framework, mode, model_name, epochs, timeout, env)
            runs.append({"framework": framework, "mode": mode, "model": model_name, "round": number, **run})
            print(
                f"[{number}/{rounds}] {framework} {mode} {model_name}: {json.dumps(run)}", file=sys.stderr, flush=True
            )
    modes = list(MODES) + (["mirrored"] if mirrored else [])
    threads = {name: os.environ[name] for name in TF_THREAD_SETTINGS if name in os.environ}
    return {
        "models": list(models),
        "modes": modes,
        "rounds": rounds,
        "epochs": epochs,
        "runs": runs,
        "tf_threads": threads,
    }


def summarize(result: dict) -> list[dict]:
    """The table's rows: medians per (model, mode, framework) and the two ratios.

    Args:
        result: What ``run_plan`` returned.

    Returns:
        One dict a row that ran: ``model``, ``mode``, ``framework``, and either ``error`` or
        ``first_s`` (median first epoch), ``steady_s`` (median of every later epoch of every run),
        ``cpu_s`` (median CPU seconds of a run), ``loss`` (the last run's final loss),
        ``vs_keras_jax`` (tfkit's steady epoch over Keras 3 on JAX's in the same mode; tfkit rows
        only) and ``over_one_device`` (the steady epoch over the same framework's one-device steady
        epoch on the same model; ``mirrored`` is tfkit's).
    """
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for run in result["runs"]:
        groups.setdefault((run["model"], run["mode"], run["framework"]), []).append(run)
    steady = {
        key: statistics.median(e for run in good for e in run["epochs"][1:])
        for key, runs in groups.items()
        if (good := [run for run in runs if "error" not in run])
    }
    rows = []
    for (model_name, mode, framework), runs in groups.items():
        good = [run for run in runs if "error" not in run]
        row = {"model": model_name, "mode": mode, "framework": framework}
        if not good:
            rows.append({**row, "error": runs[0]["error"]})
            continue
        value = steady[(model_name, mode, framework)]
        jax = steady.get((model_name, mode, "keras_jax"))
        one = steady.get((model_name, "one", framework))
        rows.append(
            {
                **row,
                "first_s": statistics.median(run["epochs"][0] for run in good),
                "steady_s": value,
                "cpu_s": statistics.median(run["cpu"] for run in good),
                "loss": good[-1]["loss"],
                "vs_keras_jax": value / jax if framework == "tfkit" and jax else None,
                "over_one_device": value / one if one else None,
            }
        )
    order = {name: index for index, name in enumerate(result["models"])}
    modes = {name: index for index, name in enumerate(result["modes"])}
    rows.sort(key=lambda row: (order[row["model"]], modes[row["mode"]], FRAMEWORKS.index(row["framework"])))
    return rows


def table(result: dict) -> str:
    """The Markdown table of a ``run_plan`` result (see ``summarize`` for the columns)."""
    ratio = lambda value: "" if value is None else f"{value:.2f}x"  # noqa: E731
    lines = [
        "| model | mode | framework | first epoch [s] | steady epoch [s] | tfkit / Keras-JAX "
        "| over one device | CPU [s] | loss |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in summarize(result):
        head = f"| {row['model']} | {row['mode']} | {TITLES[row['framework']]} |"
        if "error" in row:
            lines.append(f"{head} {row['error']} ||||||")
            continue
        lines.append(
            f"{head} {row['first_s']:.2f} | {row['steady_s']:.3f} | {ratio(row['vs_keras_jax'])} "
            f"| {ratio(row['over_one_device'])} | {row['cpu_s']:.1f} | {row['loss']:.4f} |"
        )
    return "\n".join(lines) + "\n"


def section(result: dict) -> str:
    """``table`` under a heading and what it measures: the mesh section of ``tools/bench.py``'s report."""
    rounds = result["rounds"]
    intro = (
        f"MNIST, {SAMPLES:,} samples, batch {BATCH}, {result['epochs']} epochs a run, {rounds} "
        f"round{'s' if rounds != 1 else ''} of the plan, a fresh process a run. Models: `guide` is keras-io's "
        "distribution guide MLP, `mlp4x1024` a 4 x 1024 MLP with its kernels split over `model`. Modes: `one` "
        "device, `data_parallel` (DataParallel over 8 devices), `model_parallel` (ModelParallel on a (2, 4) "
        "mesh), `mirrored` (tfkit under MirroredStrategy). Each cell is a median: the first epoch, the steady "
        "epoch (every later epoch), the CPU seconds of a run; the loss is the last run's. *tfkit / Keras-JAX*: "
        "tfkit's steady epoch over Keras 3 on JAX's in the same mode (below 1: tfkit is faster). *over one "
        "device*: the mode's steady epoch over the same framework's one-device steady epoch (what the "
        "distribution costs on this machine; below 1: it gains)."
    )
    threads = result.get("tf_threads") or {}
    if threads:  # the tfkit runs' TensorFlow thread pools, set by the caller (Keras 3 on JAX ignores these)
        intro += " tfkit's runs had " + ", ".join(f"`{name}={value}`" for name, value in sorted(threads.items())) + "."
    heading = f"## Training on a device mesh (tools/mesh_bench.py, {DEVICES} logical CPU devices)"
    return f"{heading}\n\n{intro}\n\n{table(result)}"


def main(argv: list[str] | None = None) -> int:
    """Run the plan and print the table (``--worker``: one run, as JSON)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        framework, mode, model_name, epochs = argv[1:5]
        print(json.dumps(worker(framework, mode, model_name, int(epochs))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--rounds", type=int, default=2, help="times the whole plan runs (default 2)")
    parser.add_argument("--epochs", type=int, default=4, help="epochs a run, at least 2 (the first is reported apart)")
    parser.add_argument("--mirrored", action="store_true", help="add tfkit under MirroredStrategy (slow)")
    parser.add_argument("--keras-python", default=sys.executable, help="interpreter with keras and jax")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a run may take")
    args = parser.parse_args(argv)
    if args.epochs < 2 or args.rounds < 1:
        parser.error("--epochs must be at least 2 and --rounds at least 1")
    result = run_plan(args.models, args.rounds, args.epochs, args.mirrored, args.keras_python, args.timeout)
    print(table(result), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
