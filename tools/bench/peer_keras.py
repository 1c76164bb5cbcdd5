"""Keras 3 (TensorFlow backend) and tf-keras, each with its default settings.

    load("keras3")      # KERAS_BACKEND=tensorflow, import keras
    load("tf_keras")    # TF_USE_LEGACY_KERAS=1, import tf_keras
    metrics, info = train(job, x, y)

The VAE is the guide's code: for Keras 3 with ``keras.ops`` and
``keras.random.normal`` on a ``SeedGenerator`` (the guide's current version); for
tf-keras with ``tf`` ops and ``tf_keras.backend.random_normal`` (the guide's
TF 2 version). Only settings a runner names (``steps_per_execution``) are passed.
"""

from __future__ import annotations

import os
from typing import Any

from bench import timing
from bench.worker import Unavailable, describe

tf: Any = None
keras: Any = None
flavour: str = ""


def load(peer: str) -> None:
    global tf, keras, flavour
    if peer == "keras3":
        os.environ["KERAS_BACKEND"] = "tensorflow"
        os.environ.pop("TF_USE_LEGACY_KERAS", None)
        import keras as keras_module
        if not keras_module.__version__.startswith("3"):
            raise Unavailable(f"expected Keras 3, found keras {keras_module.__version__}")
        if keras_module.backend.backend() != "tensorflow":
            raise Unavailable(f"Keras backend is {keras_module.backend.backend()!r}, not tensorflow")
    elif peer == "tf_keras":
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tf_keras as keras_module
    else:
        raise ValueError(f"peer_keras runs keras3 or tf_keras, not {peer!r}")
    import tensorflow

    tf, keras, flavour = tensorflow, keras_module, peer


def make_vae() -> Any:
    """The guide's VariationalAutoEncoder(784, 64, 32) in this Keras."""
    layers = keras.layers
    ops = keras.ops if flavour == "keras3" else tf
    mean = keras.ops.mean if flavour == "keras3" else tf.reduce_mean  # the guide's spelling in each

    class Sampling(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            if flavour == "keras3":
                self.seed_generator = keras.random.SeedGenerator(1337)

        def call(self, inputs):
            z_mean, z_log_var = inputs
            batch = ops.shape(z_mean)[0]
            dim = ops.shape(z_mean)[1]
            if flavour == "keras3":
                epsilon = keras.random.normal(shape=(batch, dim), seed=self.seed_generator)
            else:
                epsilon = keras.backend.random_normal(shape=(batch, dim))
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

    class VariationalAutoEncoder(keras.Model):
        def __init__(self, original_dim, intermediate_dim=64, latent_dim=32,
                     name="autoencoder", **kwargs):
            super().__init__(name=name, **kwargs)
            self.original_dim = original_dim
            self.encoder = Encoder(latent_dim=latent_dim, intermediate_dim=intermediate_dim)
            self.decoder = Decoder(original_dim, intermediate_dim=intermediate_dim)

        def call(self, inputs):
            z_mean, z_log_var, z = self.encoder(inputs)
            reconstructed = self.decoder(z)
            kl_loss = -0.5 * mean(
                z_log_var - ops.square(z_mean) - ops.exp(z_log_var) + 1
            )
            self.add_loss(kl_loss)
            return reconstructed

    return VariationalAutoEncoder(784, 64, 32)


def make_model(workload: str) -> tuple[Any, Any]:
    """(model, loss) of a training workload."""
    layers = keras.layers
    if workload == "vae":
        return make_vae(), keras.losses.MeanSquaredError()
    if workload == "cnn":
        model = keras.Sequential([
            keras.Input(shape=(28, 28, 1)),
            layers.Conv2D(32, 3, activation="relu"),
            layers.MaxPooling2D(2),
            layers.Conv2D(64, 3, activation="relu"),
            layers.MaxPooling2D(2),
            layers.Flatten(),
            layers.Dense(10),
        ])
        return model, keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    if workload == "lstm":
        model = keras.Sequential([
            keras.Input(shape=(80,), dtype="int32"),
            layers.Embedding(1000, 64, mask_zero=True),
            layers.LSTM(64),
            layers.Dense(1),
        ])
        return model, keras.losses.BinaryCrossentropy(from_logits=True)
    raise ValueError(f"unknown training workload {workload!r}")


def _info(model: Any) -> dict[str, Any]:
    if flavour == "keras3":
        steps = getattr(model, "steps_per_execution", "?")
        jit = getattr(model, "jit_compile", "?")
    else:
        steps_variable = getattr(model, "_steps_per_execution", None)
        steps = int(steps_variable.numpy()) if steps_variable is not None else "?"
        jit = getattr(model, "_jit_compile", "?")
    return {"keras_version": keras.__version__, "steps_per_execution": str(steps), "jit_compile": str(jit)}


def train(job: dict[str, Any], x: Any, y: Any) -> tuple[dict[str, float], dict[str, Any]]:
    model, loss = make_model(job["workload"])
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-3), loss=loss, **job["settings"])
    timer = timing.make_epoch_timer(keras.callbacks.Callback)()
    timer.start()
    model.fit(x, y, batch_size=job["batch_size"], epochs=job["epochs"], verbose=0, callbacks=[timer])
    return timer.metrics(), _info(model)


def export(model: Any, export_dir: str) -> None:
    """Keras 3: ``model.export``; tf-keras: ``tf.saved_model.save``."""
    if flavour == "keras3":
        if not hasattr(model, "export"):
            raise Unavailable(f"keras {keras.__version__} has no Model.export")
        model.export(export_dir, verbose=False)
    else:
        tf.saved_model.save(model, export_dir)


def predict(job: dict[str, Any], x: Any, export_dir: str) -> tuple[dict, dict, dict]:
    model = make_vae()
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-3), loss=keras.losses.MeanSquaredError())
    model(x[:2])
    calls = 2 if job["quick"] else 5
    metrics = timing.predict_metrics(
        lambda: model.predict(x, batch_size=job["batch_size"], verbose=0), len(x), calls)
    missing = {}
    try:
        export(model, export_dir)
        metrics["serving_latency_ms"] = timing.serving_latency_ms(
            export_dir, x[:1], calls=100 if job["quick"] else 300)
    except Unavailable as error:
        missing["serving_latency_ms"] = f"unavailable: {error}"
    except Exception as error:
        missing["serving_latency_ms"] = f"failed: {describe(error)}"
    return metrics, missing, _info(model)
