"""A small Transformer encoder that classifies MNIST digits read as sequences of rows (after keras.io's "Text classification with Transformer", in tfkit).

    python examples/transformer_mnist.py            # the full run: 54,000 digits (+6,000 to validate), 5 epochs
    python examples/transformer_mnist.py --small    # a quick check: 2,048 digits, 1 epoch, narrower layers

Each 28x28 digit is read as a sequence of 28 "tokens", its rows of 28 pixels.
A ``Dense`` layer projects each row to ``embed_dim`` values, a learned
``PositionEmbedding`` (an ``Embedding`` over the row numbers) adds where the
row is, two ``TransformerBlock`` layers (``MultiHeadAttention`` and a
feed-forward network, each with dropout, a residual connection and
``LayerNormalization``) mix the rows, and a global average over the rows
feeds a softmax over the 10 digits.

Both custom layers are registered and have a ``get_config``, so the trained
model saves to ``transformer_mnist.keras`` and loads back with
``tfkit.models.load_model``; the script checks that the reloaded model
predicts the same.
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

import tfkit  # noqa: E402
from tfkit import layers, ops  # noqa: E402

ROWS, PIXELS = 28, 28
NUM_CLASSES = 10


@tfkit.saving.register_keras_serializable(package="transformer_mnist")
class PositionEmbedding(layers.Layer):
    """Adds a learned vector per position (row number) to a ``(batch, sequence_length, embed_dim)`` input."""

    def __init__(self, sequence_length: int, embed_dim: int, **kwargs):
        super().__init__(**kwargs)
        self.sequence_length = sequence_length
        self.embed_dim = embed_dim
        self.positions = layers.Embedding(sequence_length, embed_dim)

    def call(self, inputs):
        return inputs + self.positions(ops.arange(self.sequence_length))

    def get_config(self):
        return {**super().get_config(), "sequence_length": self.sequence_length, "embed_dim": self.embed_dim}


@tfkit.saving.register_keras_serializable(package="transformer_mnist")
class TransformerBlock(layers.Layer):
    """Self-attention then a position-wise feed-forward network, each added back and normalized (post-norm)."""

    def __init__(self, embed_dim: int, num_heads: int, ff_dim: int, rate: float = 0.1, **kwargs):
        super().__init__(**kwargs)
        self.embed_dim, self.num_heads, self.ff_dim, self.rate = embed_dim, num_heads, ff_dim, rate
        self.attention = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim // num_heads)
        self.feed_forward = tfkit.Sequential([layers.Dense(ff_dim, activation="gelu"), layers.Dense(embed_dim)])
        self.norm1 = layers.LayerNormalization(epsilon=1e-6)
        self.norm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs, training=None):
        attended = self.attention(inputs, inputs, training=training)
        x = self.norm1(inputs + self.dropout1(attended, training=training))
        return self.norm2(x + self.dropout2(self.feed_forward(x, training=training), training=training))

    def get_config(self):
        return {
            **super().get_config(),
            "embed_dim": self.embed_dim,
            "num_heads": self.num_heads,
            "ff_dim": self.ff_dim,
            "rate": self.rate,
        }


def build_model(embed_dim: int, num_heads: int, ff_dim: int, blocks: int) -> tfkit.Model:
    inputs = tfkit.Input(shape=(ROWS, PIXELS))
    x = layers.Dense(embed_dim)(inputs)  # each row of pixels -> one token vector
    x = PositionEmbedding(ROWS, embed_dim)(x)
    for _ in range(blocks):
        x = TransformerBlock(embed_dim, num_heads, ff_dim)(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.1)(x)
    outputs = layers.Dense(NUM_CLASSES, activation="softmax")(x)
    return tfkit.Model(inputs, outputs, name="row_transformer")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="2,048 digits, 1 epoch, narrower layers")
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args(argv)
    tfkit.utils.set_random_seed(0)
    epochs = args.epochs or (1 if args.small else 5)
    (x_train, y_train), (x_test, y_test) = tfkit.datasets.mnist.load_data()
    x_train, x_test = x_train.astype("float32") / 255, x_test.astype("float32") / 255
    train_count, val_count, test_count = (2048, 512, 1024) if args.small else (54000, 6000, len(x_test))
    x_val, y_val = x_train[-val_count:], y_train[-val_count:]
    x_train, y_train = x_train[:train_count], y_train[:train_count]
    x_test, y_test = x_test[:test_count], y_test[:test_count]

    model = build_model(
        **(
            dict(embed_dim=32, num_heads=2, ff_dim=64, blocks=2)
            if args.small
            else dict(embed_dim=64, num_heads=4, ff_dim=128, blocks=2)
        )
    )
    model.summary()
    model.compile(
        optimizer=tfkit.optimizers.Adam(learning_rate=1e-3),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    start = time.perf_counter()
    model.fit(x_train, y_train, batch_size=128, epochs=epochs, validation_data=(x_val, y_val), verbose=2)
    seconds = time.perf_counter() - start
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)

    # An absolute path: tfkit reads model files in a helper process that keeps the working directory of the
    # first load, so a relative path can miss (or find a stale file) after an os.chdir.
    path = os.path.abspath("transformer_mnist.keras")
    model.save(path)
    reloaded = tfkit.models.load_model(path)
    same = bool(np.allclose(reloaded(x_test[:16]), model(x_test[:16]), atol=1e-5))
    print(f"reloaded from transformer_mnist.keras, same predictions: {same}")
    print(f"test loss {loss:.4f}, test accuracy {accuracy:.4f}, training {seconds:.0f} s")
    return {"accuracy": float(accuracy), "loss": float(loss), "seconds": float(seconds)}


if __name__ == "__main__":
    main()
