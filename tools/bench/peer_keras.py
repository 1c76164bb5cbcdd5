"""Keras 3 (TensorFlow backend) and tf-keras, each with its default settings.

    load("keras3")      # KERAS_BACKEND=tensorflow, import keras
    load("tf_keras")    # TF_USE_LEGACY_KERAS=1, import tf_keras
    metrics, info = train(job, x, y)

The VAE is the guide's code: for Keras 3 with ``keras.ops`` and
``keras.random.normal`` on a ``SeedGenerator`` (the guide's current version); for
tf-keras with ``tf`` ops and ``tf_keras.backend.random_normal`` (the guide's
TF 2 version). The other models follow the keras-io examples in each Keras's
own spelling: the VAE with its own ``train_step`` (``examples/generative/vae.py``),
the transformer text classifier (``examples/nlp/text_classification_with_transformer.py``),
and a two-input two-output functional model. Only settings a runner names
(``steps_per_execution``) are passed.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from bench import timing
from bench.data import AUX_DIM, SHUFFLE_BUFFER, TEXT_LENGTH, TEXT_VOCAB
from bench.worker import Unavailable, describe

EMBED_DIM, NUM_HEADS, FF_DIM = 32, 2, 32  # keras-io's text_classification_with_transformer

tf: Any = None
keras: Any = None
flavour: str = ""  # "keras3" (either backend) or "tf_keras"
backend: str = ""  # Keras 3's backend: "tensorflow" or "jax"


def load(peer: str) -> None:
    global tf, keras, flavour, backend
    if peer in ("keras3", "keras3_jax"):
        backend = "jax" if peer == "keras3_jax" else "tensorflow"
        os.environ["KERAS_BACKEND"] = backend
        os.environ.pop("TF_USE_LEGACY_KERAS", None)
        if backend == "jax":
            import jax  # noqa: F401  (the bench extra's jax[cpu]; missing makes the column unavailable)
        import keras as keras_module

        if not keras_module.__version__.startswith("3"):
            raise Unavailable(f"expected Keras 3, found keras {keras_module.__version__}")
        if keras_module.backend.backend() != backend:
            raise Unavailable(
                f"Keras backend is {keras_module.backend.backend()!r}, not {backend} "
                "(Keras was imported before KERAS_BACKEND was set)"
            )
        peer = "keras3"
    elif peer == "tf_keras":
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tf_keras as keras_module
    else:
        raise ValueError(f"peer_keras runs keras3 or tf_keras, not {peer!r}")
    if backend != "jax":  # the JAX column's process runs without TensorFlow's runtime
        import tensorflow

        tf = tensorflow
    keras, flavour = keras_module, peer


_vae_classes: dict[str, type] = {}


def vae_classes() -> dict[str, type]:
    """The guide's Sampling, Encoder, Decoder and VariationalAutoEncoder in this Keras (built once)."""
    if not _vae_classes:
        _vae_classes.update(_define_vae_classes())
    return _vae_classes


def make_vae() -> Any:
    """The guide's VariationalAutoEncoder(784, 64, 32) in this Keras."""
    return vae_classes()["VariationalAutoEncoder"](784, 64, 32)


def _define_vae_classes() -> dict[str, type]:
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
        def __init__(self, original_dim, intermediate_dim=64, latent_dim=32, name="autoencoder", **kwargs):
            super().__init__(name=name, **kwargs)
            self.original_dim = original_dim
            self.encoder = Encoder(latent_dim=latent_dim, intermediate_dim=intermediate_dim)
            self.decoder = Decoder(original_dim, intermediate_dim=intermediate_dim)

        def call(self, inputs):
            z_mean, z_log_var, z = self.encoder(inputs)
            reconstructed = self.decoder(z)
            kl_loss = -0.5 * mean(z_log_var - ops.square(z_mean) - ops.exp(z_log_var) + 1)
            self.add_loss(kl_loss)
            return reconstructed

    return {
        "Sampling": Sampling,
        "Encoder": Encoder,
        "Decoder": Decoder,
        "VariationalAutoEncoder": VariationalAutoEncoder,
    }


def _vae_with_trackers() -> type:
    """keras-io's VAE model without its step: the guide's encoder and decoder, three loss trackers."""
    classes = vae_classes()
    Encoder, Decoder = classes["Encoder"], classes["Decoder"]

    class TrackedVAE(keras.Model):
        def __init__(self, original_dim=784, intermediate_dim=64, latent_dim=32, **kwargs):
            super().__init__(**kwargs)
            self.encoder = Encoder(latent_dim=latent_dim, intermediate_dim=intermediate_dim)
            self.decoder = Decoder(original_dim, intermediate_dim=intermediate_dim)
            self.total_loss_tracker = keras.metrics.Mean(name="loss")
            self.reconstruction_loss_tracker = keras.metrics.Mean(name="reconstruction_loss")
            self.kl_loss_tracker = keras.metrics.Mean(name="kl_loss")

        @property
        def metrics(self):
            return [self.total_loss_tracker, self.reconstruction_loss_tracker, self.kl_loss_tracker]

    return TrackedVAE


def make_vae_train_step() -> Any:
    """The guide's encoder and decoder in a model with its own ``train_step`` (keras-io's VAE pattern).

    On JAX the step is the stateless one of keras-io's "Customizing what happens
    in fit() with JAX" guide (``make_vae_train_step_jax``): ``tf.GradientTape``
    does not exist there.
    """
    if backend == "jax":
        return make_vae_train_step_jax()
    mean = keras.ops.mean if flavour == "keras3" else tf.reduce_mean
    ops = keras.ops if flavour == "keras3" else tf

    class VAE(_vae_with_trackers()):
        def call(self, inputs):
            z_mean, z_log_var, z = self.encoder(inputs)
            return self.decoder(z)

        def train_step(self, data):
            if isinstance(data, tuple):
                data = data[0]
            with tf.GradientTape() as tape:
                z_mean, z_log_var, z = self.encoder(data)
                reconstruction = self.decoder(z)
                reconstruction_loss = mean(keras.losses.mean_squared_error(data, reconstruction))
                kl_loss = -0.5 * mean(z_log_var - ops.square(z_mean) - ops.exp(z_log_var) + 1)
                total_loss = reconstruction_loss + kl_loss
            grads = tape.gradient(total_loss, self.trainable_weights)
            self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
            self.total_loss_tracker.update_state(total_loss)
            self.reconstruction_loss_tracker.update_state(reconstruction_loss)
            self.kl_loss_tracker.update_state(kl_loss)
            return {m.name: m.result() for m in self.metrics}

    return VAE()


def make_vae_train_step_jax() -> Any:
    """The same VAE and losses with a JAX ``train_step``: ``jax.value_and_grad`` over ``stateless_call``."""
    import jax

    ops = keras.ops

    class VAE(_vae_with_trackers()):
        def call(self, inputs):
            z_mean, z_log_var, z = self.encoder(inputs)
            return self.decoder(z), z_mean, z_log_var

        def compute_loss_and_updates(self, trainable_variables, non_trainable_variables, data):
            (reconstruction, z_mean, z_log_var), non_trainable_variables = self.stateless_call(
                trainable_variables, non_trainable_variables, data
            )
            reconstruction_loss = ops.mean(keras.losses.mean_squared_error(data, reconstruction))
            kl_loss = -0.5 * ops.mean(z_log_var - ops.square(z_mean) - ops.exp(z_log_var) + 1)
            total_loss = reconstruction_loss + kl_loss
            return total_loss, (non_trainable_variables, reconstruction_loss, kl_loss)

        def train_step(self, state, data):
            trainable_variables, non_trainable_variables, optimizer_variables, metrics_variables = state
            if isinstance(data, tuple):
                data = data[0]
            gradient_fn = jax.value_and_grad(self.compute_loss_and_updates, has_aux=True)
            (total_loss, (non_trainable_variables, reconstruction_loss, kl_loss)), grads = gradient_fn(
                trainable_variables, non_trainable_variables, data
            )
            trainable_variables, optimizer_variables = self.optimizer.stateless_apply(
                optimizer_variables, grads, trainable_variables
            )
            logs, updated = {}, []
            for metric, value in zip(self.metrics, (total_loss, reconstruction_loss, kl_loss)):
                own = metrics_variables[len(updated) : len(updated) + len(metric.variables)]
                own = metric.stateless_update_state(own, value)
                logs[metric.name] = metric.stateless_result(own)
                updated += list(own)
            return logs, (trainable_variables, non_trainable_variables, optimizer_variables, updated)

    return VAE()


def make_transformer() -> Any:
    """keras-io's text classifier: token + position embedding, one transformer block, pooled head."""
    layers = keras.layers
    ops = keras.ops if flavour == "keras3" else None

    class TransformerBlock(layers.Layer):
        def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
            super().__init__()
            self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
            self.ffn = keras.Sequential([layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)])
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
            if ops is not None:  # Keras 3: the keras-io example's spelling
                maxlen = ops.shape(x)[-1]
                positions = ops.arange(start=0, stop=maxlen, step=1)
            else:  # tf-keras: the example's TF 2 spelling
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
    return keras.Model(inputs=inputs, outputs=outputs)


def make_multi_io() -> Any:
    """Two inputs (image, aux), two named outputs (digit classifier, value regressor)."""
    layers = keras.layers
    image = keras.Input(shape=(784,), name="image")
    aux = keras.Input(shape=(AUX_DIM,), name="aux")
    h = layers.Dense(128, activation="relu")(image)
    a = layers.Dense(32, activation="relu")(aux)
    h = layers.Concatenate()([h, a])
    h = layers.Dense(64, activation="relu")(h)
    digit = layers.Dense(10, activation="softmax", name="digit")(h)
    value = layers.Dense(1, name="value")(h)
    return keras.Model(inputs=[image, aux], outputs=[digit, value])


def make_model(workload: str) -> tuple[Any, dict[str, Any]]:
    """(model, compile arguments besides the optimizer) of a training workload."""
    layers = keras.layers
    if workload in ("vae", "tfdata"):
        return make_vae(), {"loss": keras.losses.MeanSquaredError()}
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
        model = keras.Sequential(
            [
                keras.Input(shape=(28, 28, 1)),
                layers.Conv2D(32, 3, activation="relu"),
                layers.MaxPooling2D(2),
                layers.Conv2D(64, 3, activation="relu"),
                layers.MaxPooling2D(2),
                layers.Flatten(),
                layers.Dense(10),
            ]
        )
        return model, {"loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True)}
    if workload == "lstm":
        model = keras.Sequential(
            [
                keras.Input(shape=(80,), dtype="int32"),
                layers.Embedding(1000, 64, mask_zero=True),
                layers.LSTM(64),
                layers.Dense(1),
            ]
        )
        return model, {"loss": keras.losses.BinaryCrossentropy(from_logits=True)}
    raise ValueError(f"unknown training workload {workload!r}")


def _info(model: Any) -> dict[str, Any]:
    if flavour == "keras3" and backend == "jax":
        return {
            "keras_version": keras.__version__,
            "backend": "jax",
            "steps_per_execution": str(getattr(model, "steps_per_execution", "?")),
            "jit_compile": str(getattr(model, "jit_compile", "?")),
            "params": trainable_parameters(model),
        }
    if flavour == "keras3":
        steps = getattr(model, "steps_per_execution", "?")
        jit = getattr(model, "jit_compile", "?")
    else:
        steps_variable = getattr(model, "_steps_per_execution", None)
        steps = int(steps_variable.numpy()) if steps_variable is not None else "?"
        jit = getattr(model, "_jit_compile", "?")
    info = {"keras_version": keras.__version__, "steps_per_execution": str(steps), "jit_compile": str(jit)}
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
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-3), **compile_args, **job["settings"])
    timer = timing.make_epoch_timer(keras.callbacks.Callback)()
    fit = {"epochs": job["epochs"], "verbose": 0, "callbacks": [timer]}
    timer.start()
    if workload == "tfdata":
        model.fit(make_dataset(x, y, job["batch_size"]), **fit)
    elif workload == "vae_train_step":
        model.fit(x, batch_size=job["batch_size"], **fit)
    else:
        model.fit(x, y, batch_size=job["batch_size"], **fit)
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
    metrics = timing.predict_metrics(lambda: model.predict(x, batch_size=job["batch_size"], verbose=0), len(x), calls)
    missing = {}
    try:
        export(model, export_dir)
        metrics["serving_latency_ms"] = timing.serving_latency_ms(
            export_dir, x[:1], calls=timing.serving_calls(job["quick"])
        )
    except Unavailable as error:
        missing["serving_latency_ms"] = f"unavailable: {error}"
    except Exception as error:
        missing["serving_latency_ms"] = f"failed: {describe(error)}"
    return metrics, missing, _info(model)


def _savable_vae() -> type:
    """The guide's VAE with the ``get_config`` Keras 3 needs to write it to a ``.keras`` file."""
    base = vae_classes()["VariationalAutoEncoder"]

    class SavableVAE(base):
        def __init__(self, original_dim=784, intermediate_dim=64, latent_dim=32, **kwargs):
            super().__init__(original_dim, intermediate_dim, latent_dim, **kwargs)
            self.dims = {"original_dim": original_dim, "intermediate_dim": intermediate_dim, "latent_dim": latent_dim}

        def get_config(self):
            return {**self.dims, "name": self.name}

    return SavableVAE


def graph(job: dict[str, Any], work_dir: str) -> tuple[dict[str, float], dict[str, Any]]:
    """Build and load a functional graph (``graphs.GRAPHS``), or load the guide's VAE from its ``.keras``."""
    from bench import graphs

    path = f"{work_dir}/model.keras"
    save = lambda model, where: model.save(where)  # noqa: E731
    if job["workload"] != "vae_load":
        return graphs.measure(job["case"], keras, save, keras.saving.load_model, path, quick=job["quick"])
    vae = _savable_vae()
    custom = {**vae_classes(), "SavableVAE": vae}
    model = vae(784, 64, 32)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-3), loss=keras.losses.MeanSquaredError())
    data = np.random.RandomState(0).rand(256, 784).astype("float32")
    model.fit(data, data, batch_size=64, epochs=1, verbose=0)
    metrics = graphs.measure_load(
        model, save, lambda where: keras.saving.load_model(where, custom_objects=custom), path, quick=job["quick"]
    )
    return metrics, {"params": trainable_parameters(model)}
