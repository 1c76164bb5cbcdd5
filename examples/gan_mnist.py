"""A GAN that draws MNIST digits, trained by a custom ``train_step`` (keras.io's "GAN overriding Model.train_step").

    python examples/gan_mnist.py              # the full run: 10,000 digits, 3 epochs
    python examples/gan_mnist.py --small      # a quick check: 256 digits, 1 epoch

The discriminator and the generator are two convnets; ``GAN.train_step``
trains one, then the other, on each batch, inside ``fit``'s compiled loop, and
reports both losses. The images drawn at the end are written to
``gan_samples.png`` (with Pillow installed).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import time

_SHARED = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
if _SHARED.is_dir():  # this workplace keeps MNIST beside the repository
    os.environ.setdefault("TFKIT_DATA_DIR", str(_SHARED))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tfkit  # noqa: E402
from tfkit import layers  # noqa: E402

LATENT_DIM = 128


def discriminator() -> tfkit.Model:
    return tfkit.Sequential(
        [
            tfkit.Input(shape=(28, 28, 1)),
            layers.Conv2D(64, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(128, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.GlobalMaxPooling2D(),
            layers.Dense(1),
        ],
        name="discriminator",
    )


def generator() -> tfkit.Model:
    return tfkit.Sequential(
        [
            tfkit.Input(shape=(LATENT_DIM,)),
            layers.Dense(7 * 7 * 128),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Reshape((7, 7, 128)),
            layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
        ],
        name="generator",
    )


class GAN(tfkit.Model):
    """Trains ``discriminator`` to tell real digits from drawn ones, and ``generator`` to fool it."""

    def __init__(self, discriminator: tfkit.Model, generator: tfkit.Model, latent_dim: int, **kwargs):
        super().__init__(**kwargs)
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.seed_generator = tfkit.random.SeedGenerator(1337)

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn
        self.d_loss_metric = tfkit.metrics.Mean(name="d_loss")
        self.g_loss_metric = tfkit.metrics.Mean(name="g_loss")

    @property
    def metrics(self):
        return [self.d_loss_metric, self.g_loss_metric]

    def train_step(self, real_images):
        batch_size = tf.shape(real_images)[0]
        # 1. The discriminator, on drawn digits (label 1) and real ones (label 0), with noisy labels.
        noise = tfkit.random.normal((batch_size, self.latent_dim), seed=self.seed_generator)
        images = tf.concat([self.generator(noise), real_images], axis=0)
        labels = tf.concat([tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0)
        labels += 0.05 * tfkit.random.uniform(tf.shape(labels), seed=self.seed_generator)
        with tf.GradientTape() as tape:
            d_loss = self.loss_fn(labels, self.discriminator(images))
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply(grads, self.discriminator.trainable_weights)
        # 2. The generator: its digits should be called real (label 0).
        noise = tfkit.random.normal((batch_size, self.latent_dim), seed=self.seed_generator)
        with tf.GradientTape() as tape:
            g_loss = self.loss_fn(tf.zeros((batch_size, 1)), self.discriminator(self.generator(noise)))
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply(grads, self.generator.trainable_weights)
        self.d_loss_metric.update_state(d_loss)
        self.g_loss_metric.update_state(g_loss)
        return {"d_loss": self.d_loss_metric.result(), "g_loss": self.g_loss_metric.result()}


def save_samples(gan: GAN, path: str, count: int = 16) -> bool:
    """Draw ``count`` digits in a 4x4 grid to ``path``; False when Pillow is missing."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        return False
    digits = gan.generator(tfkit.random.normal((count, LATENT_DIM), seed=7)).numpy()
    grid = digits.reshape(4, 4, 28, 28).transpose(0, 2, 1, 3).reshape(4 * 28, 4 * 28, 1)
    tfkit.utils.save_img(path, grid * 255, scale=False)
    return True


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="256 digits and 1 epoch")
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args(argv)
    tfkit.utils.set_random_seed(0)
    (x_train, _), (x_test, _) = tfkit.datasets.mnist.load_data()
    digits = np.concatenate([x_train, x_test]).astype("float32") / 255
    digits = np.expand_dims(digits[:256] if args.small else digits[:10000], -1)
    epochs = args.epochs or (1 if args.small else 3)
    dataset = tf.data.Dataset.from_tensor_slices(digits).shuffle(1024, seed=0).batch(64).prefetch(2)

    gan = GAN(discriminator(), generator(), LATENT_DIM)
    gan.compile(
        d_optimizer=tfkit.optimizers.Adam(learning_rate=3e-4),
        g_optimizer=tfkit.optimizers.Adam(learning_rate=3e-4),
        loss_fn=tfkit.losses.BinaryCrossentropy(from_logits=True),
    )
    start = time.perf_counter()
    history = gan.fit(dataset, epochs=epochs, verbose=2)
    seconds = time.perf_counter() - start
    saved = save_samples(gan, "gan_samples.png")
    d_loss, g_loss = history.history["d_loss"][-1], history.history["g_loss"][-1]
    print(
        f"d_loss {d_loss:.4f}, g_loss {g_loss:.4f}, training {seconds:.0f} s"
        + (", samples in gan_samples.png" if saved else "")
    )
    return {"d_loss": d_loss, "g_loss": g_loss, "seconds": seconds}


if __name__ == "__main__":
    main()
