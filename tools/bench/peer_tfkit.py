"""tfkit, imported from this repository, with its default settings.

    load("tfkit"); metrics, info = train(job, x, y)
    metrics, missing, info = predict(job, x, export_dir)

The VAE is the one ``examples/vae_mnist.py`` defines (the guide's code with
``keras`` replaced by ``tfkit``, ``keras.ops`` by ``tf``), so the benchmark
measures exactly the model the README's main command trains. The other models
are written as a user of the Keras examples would write them with ``keras``
replaced by ``tfkit``: the VAE with its own ``train_step`` (keras-io's VAE
example), the keras-io transformer text classifier, a two-input two-output
functional model. A layer or API that tfkit does not have yet makes the
measurement "unavailable" instead of failing the run.
"""

from __future__ import annotations

import importlib.util
import pathlib
from typing import Any

import numpy as np

from bench import timing
from bench.data import AUX_DIM, SHUFFLE_BUFFER, TEXT_LENGTH, TEXT_VOCAB
from bench.worker import Unavailable, describe

EMBED_DIM, NUM_HEADS, FF_DIM = 32, 2, 32  # keras-io's text_classification_with_transformer

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


_example: Any = None


def vae_example() -> Any:
    """``examples/vae_mnist.py`` as a module (loaded once)."""
    global _example
    if _example is None:
        examples = pathlib.Path(__file__).resolve().parents[2] / "examples"
        spec = importlib.util.spec_from_file_location("vae_mnist", examples / "vae_mnist.py")
        if spec is None or spec.loader is None:
            raise Unavailable(f"cannot load the VAE example from {examples}")
        _example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_example)
    return _example


def make_vae() -> Any:
    """The guide's VariationalAutoEncoder(784, 64, 32): the very classes ``examples/vae_mnist.py`` trains."""
    return vae_example().VariationalAutoEncoder(784, 64, 32)


def make_vae_train_step() -> Any:
    """The guide's encoder and decoder in a model with its own ``train_step`` (keras-io's VAE pattern)."""
    example = vae_example()

    class VAE(tfkit.Model):
        def __init__(self, original_dim=784, intermediate_dim=64, latent_dim=32, **kwargs):
            super().__init__(**kwargs)
            self.encoder = example.Encoder(latent_dim=latent_dim, intermediate_dim=intermediate_dim)
            self.decoder = example.Decoder(original_dim, intermediate_dim=intermediate_dim)
            self.total_loss_tracker = tfkit.metrics.Mean(name="loss")
            self.reconstruction_loss_tracker = tfkit.metrics.Mean(name="reconstruction_loss")
            self.kl_loss_tracker = tfkit.metrics.Mean(name="kl_loss")

        @property
        def metrics(self):
            return [self.total_loss_tracker, self.reconstruction_loss_tracker, self.kl_loss_tracker]

        def call(self, inputs):
            z_mean, z_log_var, z = self.encoder(inputs)
            return self.decoder(z)

        def train_step(self, data):
            if isinstance(data, tuple):
                data = data[0]
            with tf.GradientTape() as tape:
                z_mean, z_log_var, z = self.encoder(data)
                reconstruction = self.decoder(z)
                reconstruction_loss = tf.reduce_mean(tfkit.losses.mean_squared_error(data, reconstruction))
                kl_loss = -0.5 * tf.reduce_mean(z_log_var - tf.square(z_mean) - tf.exp(z_log_var) + 1)
                total_loss = reconstruction_loss + kl_loss
            grads = tape.gradient(total_loss, self.trainable_weights)
            self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
            self.total_loss_tracker.update_state(total_loss)
            self.reconstruction_loss_tracker.update_state(reconstruction_loss)
            self.kl_loss_tracker.update_state(kl_loss)
            return {m.name: m.result() for m in self.metrics}

    return VAE()


def make_transformer() -> Any:
    """keras-io's text classifier: token + position embedding, one transformer block, pooled head."""
    layers = tfkit.layers
    for name in ("MultiHeadAttention", "LayerNormalization", "GlobalAveragePooling1D", "Embedding", "Dropout"):
        _layer(name)

    class TransformerBlock(layers.Layer):
        def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
            super().__init__()
            self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
            self.ffn = tfkit.Sequential([layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)])
            self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
            self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
            self.dropout1 = layers.Dropout(rate)
            self.dropout2 = layers.Dropout(rate)

        def call(self, inputs):
            attn_output = self.att(inputs, inputs)
            attn_output = self.dropout1(attn_output)
            out1 = self.layernorm1(inputs + attn_output)
            ffn_output = self.ffn(out1)
            ffn_output = self.dropout2(ffn_output)
            return self.layernorm2(out1 + ffn_output)

    class TokenAndPositionEmbedding(layers.Layer):
        def __init__(self, maxlen, vocab_size, embed_dim):
            super().__init__()
            self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
            self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

        def call(self, x):
            maxlen = tf.shape(x)[-1]
            positions = tf.range(start=0, limit=maxlen, delta=1)
            positions = self.pos_emb(positions)
            x = self.token_emb(x)
            return x + positions

    inputs = layers.Input(shape=(TEXT_LENGTH,), dtype="int32")
    x = TokenAndPositionEmbedding(TEXT_LENGTH, TEXT_VOCAB, EMBED_DIM)(inputs)
    x = TransformerBlock(EMBED_DIM, NUM_HEADS, FF_DIM)(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.1)(x)
    x = layers.Dense(20, activation="relu")(x)
    x = layers.Dropout(0.1)(x)
    outputs = layers.Dense(2, activation="softmax")(x)
    return tfkit.Model(inputs=inputs, outputs=outputs)


def make_multi_io() -> Any:
    """Two inputs (image, aux), two named outputs (digit classifier, value regressor)."""
    layers = tfkit.layers
    image = tfkit.Input(shape=(784,), name="image")
    aux = tfkit.Input(shape=(AUX_DIM,), name="aux")
    h = layers.Dense(128, activation="relu")(image)
    a = layers.Dense(32, activation="relu")(aux)
    h = _layer("Concatenate")()([h, a])
    h = layers.Dense(64, activation="relu")(h)
    digit = layers.Dense(10, activation="softmax", name="digit")(h)
    value = layers.Dense(1, name="value")(h)
    return tfkit.Model(inputs=[image, aux], outputs=[digit, value])


def make_model(workload: str) -> tuple[Any, dict[str, Any]]:
    """(model, compile arguments besides the optimizer) of a training workload."""
    if workload in ("vae", "tfdata"):
        return make_vae(), {"loss": tfkit.losses.MeanSquaredError()}
    if workload == "vae_train_step":
        return make_vae_train_step(), {}
    if workload == "transformer":
        return make_transformer(), {"loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]}
    if workload == "functional_multi_io":
        return make_multi_io(), {
            "loss": {"digit": "sparse_categorical_crossentropy", "value": "mse"},
            "metrics": {"digit": ["accuracy"], "value": ["mae"]},
        }
    if workload == "cnn":
        model = tfkit.Sequential(
            [
                tfkit.Input(shape=(28, 28, 1)),
                _layer("Conv2D")(32, 3, activation="relu"),
                _layer("MaxPooling2D")(2),
                _layer("Conv2D")(64, 3, activation="relu"),
                _layer("MaxPooling2D")(2),
                _layer("Flatten")(),
                _layer("Dense")(10),
            ]
        )
        return model, {"loss": tfkit.losses.SparseCategoricalCrossentropy(from_logits=True)}
    if workload == "lstm":
        model = tfkit.Sequential(
            [
                tfkit.Input(shape=(80,), dtype="int32"),
                _layer("Embedding")(1000, 64, mask_zero=True),
                _layer("LSTM")(64),
                _layer("Dense")(1),
            ]
        )
        return model, {"loss": tfkit.losses.BinaryCrossentropy(from_logits=True)}
    raise ValueError(f"unknown training workload {workload!r}")


def _info(model: Any) -> dict[str, Any]:
    trainer = getattr(model, "_compiled", None)
    info = {
        "tfkit_file": tfkit.__file__,
        "steps_per_execution": str(getattr(trainer, "steps_per_execution", "?")),
        "jit_compile": str(getattr(model, "jit_compile", "?")),
    }
    decision = getattr(model, "jit_compile_decision", None)
    if decision is not None:
        info["auto_chose_xla"] = "on" if decision.jit_compile else "off"
    info["params"] = trainable_parameters(model)
    return info


def trainable_parameters(model: Any) -> int:
    """Sum of the trainable weights' sizes (``count_params`` needs a built model; a train_step model is not)."""
    return int(sum(int(np.prod(weight.shape)) for weight in model.trainable_weights))


def make_dataset(x: Any, y: Any, batch_size: int) -> Any:
    """The tfdata workload's input pipeline (the same in every peer)."""
    return (
        tf.data.Dataset.from_tensor_slices((x, y)).shuffle(SHUFFLE_BUFFER).batch(batch_size).prefetch(tf.data.AUTOTUNE)
    )


def train(job: dict[str, Any], x: Any, y: Any) -> tuple[dict[str, float], dict[str, Any]]:
    workload = job["workload"]
    model, compile_args = make_model(workload)
    model.compile(optimizer=tfkit.optimizers.Adam(learning_rate=1e-3), **compile_args, **job["settings"])
    timer = timing.make_epoch_timer(tfkit.callbacks.Callback)()
    fit = {"epochs": job["epochs"], "verbose": 0, "callbacks": [timer]}
    timer.start()
    if workload == "tfdata":
        model.fit(make_dataset(x, y, job["batch_size"]), **fit)
    elif workload == "vae_train_step":
        model.fit(x, batch_size=job["batch_size"], **fit)
    else:
        model.fit(x, y, batch_size=job["batch_size"], **fit)
    metrics, info = timer.metrics(), _info(model)
    if not job.get("count_flops", True):  # the in-process A/B times fits only
        return metrics, info
    try:
        metrics["flops_per_sample"] = step_flops_per_sample(model, workload, x, y, job["batch_size"])
        metrics["samples_per_epoch"] = len(tf.nest.flatten(x)[0])
    except Exception as error:  # the count is extra: a failure must not lose the timings
        info["flops"] = f"not counted: {describe(error)}"
    return metrics, info


def step_flops_per_sample(model: Any, workload: str, x: Any, y: Any, batch_size: int) -> float:
    """FLOPs of one training step divided by its batch (``bench.flops``, from the traced train_step)."""
    from bench import flops

    def spec(array: Any) -> Any:
        return tf.TensorSpec((batch_size,) + tuple(array.shape[1:]), tf.as_dtype(array.dtype))

    inputs = tf.nest.map_structure(spec, x)
    data = inputs if workload == "vae_train_step" else (inputs, tf.nest.map_structure(spec, y))
    trips = flops.rnn_iterations(int(x.shape[1])) if workload == "lstm" else None  # the LSTM's loop
    return sum(flops.step_flops(model, data, trips).values()) / batch_size


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
    metrics = timing.predict_metrics(lambda: model.predict(x, batch_size=job["batch_size"], verbose=0), len(x), calls)
    missing = {}
    try:
        metrics["serving_latency_ms"] = timing.serving_latency_ms(
            export(model, export_dir), x[:1], calls=timing.serving_calls(job["quick"])
        )
    except Unavailable as error:
        missing["serving_latency_ms"] = f"unavailable: {error}"
    except Exception as error:
        missing["serving_latency_ms"] = f"failed: {describe(error)}"
    return metrics, missing, _info(model)


def graph(job: dict[str, Any], work_dir: str) -> tuple[dict[str, float], dict[str, Any]]:
    """Build and load a functional graph (``graphs.GRAPHS``), or load the guide's VAE from its ``.h5``."""
    from bench import graphs
    from tfkit.saving import h5_snapshot

    path = f"{work_dir}/model.h5"
    save = lambda model, where: model.save(where)  # noqa: E731
    if job["workload"] != "vae_load":
        return graphs.measure(job["case"], tfkit, save, tfkit.load_model, path, quick=job["quick"])
    model = make_vae()
    model.compile(optimizer=tfkit.optimizers.Adam(learning_rate=1e-3), loss=tfkit.losses.MeanSquaredError())
    data = np.random.RandomState(0).rand(256, 784).astype("float32")
    model.fit(data, data, batch_size=64, epochs=1, verbose=0)
    metrics = graphs.measure_load(model, save, tfkit.load_model, path, quick=job["quick"])
    metrics["reader_child_s"] = graphs.median_seconds(lambda: h5_snapshot.read_snapshot(path), 3)
    return metrics, {"params": trainable_parameters(model)}
