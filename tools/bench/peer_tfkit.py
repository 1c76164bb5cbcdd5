"""tfkit, imported from this repository, with its default settings.

    load("tfkit"); metrics, info = train(job, x, y)
    metrics, missing, info = predict(job, x, export_dir)

The VAE is the one ``examples/vae_mnist.py`` defines (the guide's code with
``keras`` replaced by ``tfkit``, ``keras.ops`` by ``tf``), so the benchmark
measures exactly the model the README's main command trains. A layer or API that tfkit does not have yet
makes the measurement "unavailable" instead of failing the run.
"""

from __future__ import annotations

import importlib.util
import pathlib
from typing import Any

from bench import timing
from bench.worker import Unavailable, describe

tf: Any = None
tfkit: Any = None


def load(peer: str) -> None:
    global tf, tfkit
    import tensorflow
    import tfkit as tfkit_module

    tf, tfkit = tensorflow, tfkit_module


def _layer(name: str) -> Any:
    try:
        return getattr(tfkit.layers, name)
    except AttributeError as error:
        raise Unavailable(f"tfkit.layers.{name} is not available ({describe(error)})") from error


def make_vae() -> Any:
    """The guide's VariationalAutoEncoder(784, 64, 32): the very classes ``examples/vae_mnist.py`` trains."""
    examples = pathlib.Path(__file__).resolve().parents[2] / "examples"
    spec = importlib.util.spec_from_file_location("vae_mnist", examples / "vae_mnist.py")
    if spec is None or spec.loader is None:
        raise Unavailable(f"cannot load the VAE example from {examples}")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example.VariationalAutoEncoder(784, 64, 32)


def make_model(workload: str) -> tuple[Any, Any]:
    """(model, loss) of a training workload."""
    if workload == "vae":
        return make_vae(), tfkit.losses.MeanSquaredError()
    if workload == "cnn":
        model = tfkit.Sequential([
            tfkit.Input(shape=(28, 28, 1)),
            _layer("Conv2D")(32, 3, activation="relu"),
            _layer("MaxPooling2D")(2),
            _layer("Conv2D")(64, 3, activation="relu"),
            _layer("MaxPooling2D")(2),
            _layer("Flatten")(),
            _layer("Dense")(10),
        ])
        return model, tfkit.losses.SparseCategoricalCrossentropy(from_logits=True)
    if workload == "lstm":
        model = tfkit.Sequential([
            tfkit.Input(shape=(80,), dtype="int32"),
            _layer("Embedding")(1000, 64, mask_zero=True),
            _layer("LSTM")(64),
            _layer("Dense")(1),
        ])
        return model, tfkit.losses.BinaryCrossentropy(from_logits=True)
    raise ValueError(f"unknown training workload {workload!r}")


def _info(model: Any) -> dict[str, Any]:
    trainer = getattr(model, "_tfkit_trainer", None)
    return {
        "tfkit_file": tfkit.__file__,
        "steps_per_execution": str(getattr(trainer, "steps_per_execution", "?")),
        "jit_compile": str(getattr(model, "jit_compile", "?")),
    }


def train(job: dict[str, Any], x: Any, y: Any) -> tuple[dict[str, float], dict[str, Any]]:
    model, loss = make_model(job["workload"])
    model.compile(optimizer=tfkit.optimizers.Adam(learning_rate=1e-3), loss=loss, **job["settings"])
    timer = timing.make_epoch_timer(tfkit.callbacks.Callback)()
    timer.start()
    model.fit(x, y, batch_size=job["batch_size"], epochs=job["epochs"], verbose=0, callbacks=[timer])
    return timer.metrics(), _info(model)


def export(model: Any, export_dir: str) -> str:
    """``tfkit.saving.export_saved_model``, or Unavailable while it is not written."""
    exporter = getattr(tfkit.saving, "export_saved_model", None)
    if exporter is None:
        try:
            from tfkit.saving import export as export_module
            exporter = export_module.export_saved_model
        except (ImportError, AttributeError) as error:
            raise Unavailable(f"tfkit.saving.export_saved_model: {describe(error)}") from error
    written = exporter(model, export_dir)
    return written if isinstance(written, str) else export_dir


def predict(job: dict[str, Any], x: Any, export_dir: str) -> tuple[dict, dict, dict]:
    model = make_vae()
    model.compile(optimizer=tfkit.optimizers.Adam(learning_rate=1e-3), loss=tfkit.losses.MeanSquaredError())
    model(x[:2])
    calls = 2 if job["quick"] else 5
    metrics = timing.predict_metrics(
        lambda: model.predict(x, batch_size=job["batch_size"], verbose=0), len(x), calls)
    missing = {}
    try:
        metrics["serving_latency_ms"] = timing.serving_latency_ms(
            export(model, export_dir), x[:1], calls=100 if job["quick"] else 300)
    except Unavailable as error:
        missing["serving_latency_ms"] = f"unavailable: {error}"
    except Exception as error:
        missing["serving_latency_ms"] = f"failed: {describe(error)}"
    return metrics, missing, _info(model)
