"""The guide's variational autoencoder, trained on MNIST with tfkit.

    python examples/vae_mnist.py            # 2 epochs, batch 64, Adam(1e-3), MSE

The model code is the Keras guide's "Putting it all together" section with
``keras`` replaced by ``tfkit`` and ``keras.ops`` by ``tf``. After training,
the script saves the VAE to ``vae.h5``, reloads it in a fresh process,
exports it to ``export/models/vae/1`` (TensorFlow Serving's layout) and
checks that the export's ``serving_default`` gives the numbers ``predict``
gives, in a process that does not import tfkit.

What "the same numbers" means for a VAE: its Sampling layer draws
``epsilon`` in inference too, so an output is a random variable. tfkit's
random numbers are a pure function of the layer's SeedGenerator state, and
that state is saved in the .h5 file and in the SavedModel like any variable.
So the check starts all three (this process, the reloaded model, the export)
from the same generator state and feeds them the same batch: they must draw
the same ``epsilon`` and agree to float rounding (atol 1e-5), and they must
agree again on a second call, when each generator has advanced by one draw.
The export is traced with the same ``jit_compile`` setting that ``predict``
uses, because XLA draws different (equally valid) numbers from the same seed.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

_SHARED = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
if _SHARED.is_dir():  # this workplace keeps MNIST beside the repository
    os.environ.setdefault("TFKIT_DATA_DIR", str(_SHARED))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tfkit  # noqa: E402
from tfkit import layers  # noqa: E402

ops = tf


class Sampling(layers.Layer):
    """Uses (z_mean, z_log_var) to sample z, the vector encoding a digit."""

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
    """Maps MNIST digits to a triplet (z_mean, z_log_var, z)."""

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
    """Converts z, the encoded digit vector, back into a readable digit."""

    def __init__(self, original_dim, intermediate_dim=64, name="decoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
        self.dense_output = layers.Dense(original_dim, activation="sigmoid")

    def call(self, inputs):
        x = self.dense_proj(inputs)
        return self.dense_output(x)


class VariationalAutoEncoder(tfkit.Model):
    """Combines the encoder and decoder into an end-to-end model for training."""

    def __init__(self, original_dim, intermediate_dim=64, latent_dim=32, name="autoencoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.original_dim = original_dim
        self.encoder = Encoder(latent_dim=latent_dim, intermediate_dim=intermediate_dim)
        self.decoder = Decoder(original_dim, intermediate_dim=intermediate_dim)

    def call(self, inputs):
        z_mean, z_log_var, z = self.encoder(inputs)
        reconstructed = self.decoder(z)
        # Add KL divergence regularization loss.
        kl_loss = -0.5 * ops.reduce_mean(z_log_var - ops.square(z_mean) - ops.exp(z_log_var) + 1)
        self.add_loss(kl_loss)
        return reconstructed


# Files name classes by registered name ("vae_mnist>Encoder"), never by module path.
for _cls in (Sampling, Encoder, Decoder, VariationalAutoEncoder):
    tfkit.saving.register_serializable(package="vae_mnist")(_cls)

_EXAMPLES = pathlib.Path(__file__).resolve().parent
_SERVE_WITHOUT_TFKIT = """
import sys, numpy as np, tensorflow as tf
serve = tf.saved_model.load(sys.argv[1]).signatures["serving_default"]
x = tf.constant(np.load(sys.argv[2]))
np.save(sys.argv[3], np.stack([serve(inputs=x)["output_0"].numpy() for _ in range(2)]))
assert "tfkit" not in sys.modules
"""


def predict_twice(model_file: str, inputs_file: str, out_file: str) -> None:
    """Run in a fresh process: load the .h5 file, predict the batch twice, save both answers."""
    vae = tfkit.load_model(model_file)
    x = np.load(inputs_file)
    np.save(out_file, np.stack([vae.predict(x, batch_size=len(x), verbose=0) for _ in range(2)]))


def _fresh_python(*args: str) -> None:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    result = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"the fresh Python process failed:\n{result.stderr[-3000:]}")


def save_reload_export(vae, x, model_file: str, export_dir: str, version: int = 1) -> dict:
    """Save to .h5, reload in a fresh process, export for serving, compare; returns a report."""
    vae.save(model_file)
    export_path = tfkit.saving.export_saved_model(vae, export_dir, version=version, jit_compile=vae.jit_compile)
    # The file and the export hold the Sampling layer's generator state as it is now.
    expected = np.stack([vae.predict(x, batch_size=len(x), verbose=0) for _ in range(2)])
    with tempfile.TemporaryDirectory() as tmp:
        inputs, reloaded, served = (os.path.join(tmp, n) for n in ("x.npy", "reloaded.npy", "served.npy"))
        np.save(inputs, x)
        _fresh_python(
            "-c",
            f"import sys; sys.path.insert(0, {str(_EXAMPLES)!r}); import vae_mnist; "
            f"vae_mnist.predict_twice({model_file!r}, {inputs!r}, {reloaded!r})",
        )
        _fresh_python("-c", _SERVE_WITHOUT_TFKIT, export_path, inputs, served)
        reloaded, served = np.load(reloaded), np.load(served)
    report = {
        "model_file": model_file,
        "export_dir": export_path,
        "reload_max_abs_diff": float(np.abs(reloaded - expected).max()),
        "serving_max_abs_diff": float(np.abs(served - expected).max()),
    }
    report["ok"] = report["reload_max_abs_diff"] <= 1e-5 and report["serving_max_abs_diff"] <= 1e-5
    print(
        f"saved {model_file}; reloaded in a fresh process: predictions differ by at most "
        f"{report['reload_max_abs_diff']:.2e}"
    )
    print(
        f"exported {export_path}; serving_default (loaded without tfkit) differs from predict by at most "
        f"{report['serving_max_abs_diff']:.2e}"
    )
    print("round trip OK" if report["ok"] else "round trip FAILED")
    return report


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--model-file", default="vae.h5", help="where to save the trained model")
    parser.add_argument(
        "--export-dir",
        default=str(_EXAMPLES.parent / "export" / "models" / "vae"),
        help="the SavedModel base folder; the export goes to EXPORT_DIR/VERSION",
    )
    parser.add_argument("--export-version", type=int, default=1)
    args = parser.parse_args(argv)

    (x_train, _), _ = tfkit.datasets.mnist.load_data()
    x_train = x_train.reshape(60000, 784).astype("float32") / 255

    vae = VariationalAutoEncoder(784, 64, 32)
    optimizer = tfkit.optimizers.Adam(learning_rate=1e-3)
    vae.compile(optimizer, loss=tfkit.losses.MeanSquaredError())
    history = vae.fit(x_train, x_train, epochs=args.epochs, batch_size=args.batch_size)

    report = save_reload_export(vae, x_train[:16], args.model_file, args.export_dir, args.export_version)
    return {"vae": vae, "history": history, "x_train": x_train, "report": report}


if __name__ == "__main__":
    sys.exit(0 if main()["report"]["ok"] else 1)
