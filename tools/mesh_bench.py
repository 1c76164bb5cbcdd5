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
JAX's in the same mode. This is the mesh part of the benchmark (issue 49); the
single-device workloads are ``tools/bench.py``'s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

DEVICES = 8
SAMPLES, BATCH = 8192, 256
MODES = ("one", "data_parallel", "model_parallel")


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


def _run(python: str, framework: str, mode: str, model_name: str, epochs: int, timeout: float) -> dict:
    command = [python, os.path.abspath(__file__), "--worker", framework, mode, model_name, str(epochs)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:.0f} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:200]}
    return json.loads(lines[-1])


def _table(results: dict, models: list[str], modes: list[str]) -> str:
    lines = [
        "| model | mode | framework | first epoch [s] | steady epoch [s] | tfkit / Keras-JAX | CPU [s] | loss |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for model_name in models:
        for mode in modes:
            steady = {}
            for framework in ("tfkit", "keras_jax"):
                runs = [r for r in results.get((framework, mode, model_name), []) if "error" not in r]
                if runs:
                    steady[framework] = statistics.median(e for r in runs for e in r["epochs"][1:])
            for framework in ("tfkit", "keras_jax"):
                runs = results.get((framework, mode, model_name), [])
                good = [r for r in runs if "error" not in r]
                if not runs:
                    continue
                if not good:
                    lines.append(f"| {model_name} | {mode} | {framework} | {runs[0]['error']} |||||")
                    continue
                ratio = steady["tfkit"] / steady["keras_jax"] if framework == "tfkit" and len(steady) == 2 else None
                lines.append(
                    f"| {model_name} | {mode} | {framework} | {statistics.median(r['epochs'][0] for r in good):.2f} "
                    f"| {steady[framework]:.3f} | {'' if ratio is None else f'{ratio:.2f}x'} "
                    f"| {statistics.median(r['cpu'] for r in good):.1f} | {good[-1]['loss']:.4f} |"
                )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the plan and print the table (``--worker``: one run, as JSON)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        framework, mode, model_name, epochs = argv[1:5]
        print(json.dumps(worker(framework, mode, model_name, int(epochs))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["guide", "mlp4x1024"], choices=["guide", "mlp4x1024"])
    parser.add_argument("--rounds", type=int, default=2, help="times the whole plan runs (default 2)")
    parser.add_argument("--epochs", type=int, default=4, help="epochs a run (the first is reported apart)")
    parser.add_argument("--mirrored", action="store_true", help="add tfkit under MirroredStrategy (slow)")
    parser.add_argument("--keras-python", default=sys.executable, help="interpreter with keras and jax")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a run may take")
    args = parser.parse_args(argv)
    modes = list(MODES) + (["mirrored"] if args.mirrored else [])
    results: dict = {}
    for _ in range(args.rounds):
        for model_name in args.models:
            for mode in modes:
                for framework in ("tfkit", "keras_jax"):
                    if framework == "keras_jax" and mode == "mirrored":
                        continue
                    python = args.keras_python if framework == "keras_jax" else sys.executable
                    run = _run(python, framework, mode, model_name, args.epochs, args.timeout)
                    results.setdefault((framework, mode, model_name), []).append(run)
                    print(f"{framework} {mode} {model_name}: {json.dumps(run)}", file=sys.stderr, flush=True)
    print(_table(results, args.models, modes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
