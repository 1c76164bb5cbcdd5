"""tfkit, imported from this repository, with its default settings.

    load("tfkit"); metrics, info = train(job, x, y)
    metrics, missing, info = predict(job, x, export_dir)

The VAE is the guide's code as in ``examples/vae_mnist.py`` (``keras`` replaced by
``tfkit``, ``keras.ops`` by ``tf``). A layer or API that tfkit does not have yet
makes the measurement "unavailable" instead of failing the run.
"""

from __future__ import annotations

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
    """The guide's VariationalAutoEncoder(784, 64, 32), written with tfkit."""
    layers, ops = tfkit.layers, tf

    class Sampling(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.seed_generator = tfkit.random.SeedGenerator(1337)

        def call(self, inputs):
            z_mean, z_log_var = inputs
            batch = ops.shape(z_mean)[0]
            dim = ops.shape(z_mean)[1]
            epsilon = tfkit.random.normal(shape=(batch, dim), seed=self.seed_generator)
            return z_mean + ops.exp(0.5 * z_log_var) * epsilon

    class Encoder(layers.Layer):
        def __init__(self, latent_dim=32, intermediate_dim=64, name="encoder", **kwargs):
            super().__init__(name=name, **kwargs)
            self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
            self.dense_mean = layers.Dense(latent_dim)
            self.dense_log_var = layers.Dense(latent_dim)
            self.sampling = Sampling()

        def call(self, inputs):
            x = self.dense_proj(inputs)
            z_mean = self.dense_mean(x)
            z_log_var = self.dense_log_var(x)
            z = self.sampling((z_mean, z_log_var))
            return z_mean, z_log_var, z

    class Decoder(layers.Layer):
        def __init__(self, original_dim, intermediate_dim=64, name="decoder", **kwargs):
            super().__init__(name=name, **kwargs)
            self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
            self.dense_output = layers.Dense(original_dim, activation="sigmoid")

        def call(self, inputs):
            x = self.dense_proj(inputs)
            return self.dense_output(x)

    class VariationalAutoEncoder(tfkit.Model):
        def __init__(self, original_dim, intermediate_dim=64, latent_dim=32,
                     name="autoencoder", **kwargs):
            super().__init__(name=name, **kwargs)
            self.original_dim = original_dim
            self.encoder = Encoder(latent_dim=latent_dim, intermediate_dim=intermediate_dim)
            self.decoder = Decoder(original_dim, intermediate_dim=intermediate_dim)

        def call(self, inputs):
            z_mean, z_log_var, z = self.encoder(inputs)
            reconstructed = self.decoder(z)
            kl_loss = -0.5 * ops.reduce_mean(
                z_log_var - ops.square(z_mean) - ops.exp(z_log_var) + 1
            )
            self.add_loss(kl_loss)
            return reconstructed

    return VariationalAutoEncoder(784, 64, 32)


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
