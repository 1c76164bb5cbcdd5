"""A simple convnet that classifies MNIST digits (keras.io's "Simple MNIST convnet", in tfkit).

    python examples/mnist_convnet.py             # the full run: 60,000 digits, 15 epochs
    python examples/mnist_convnet.py --small     # a quick check: 2,000 digits, 1 epoch

Two convolution blocks, dropout and a softmax classifier, trained with Adam
on batches of 128 with 10% of the training digits held out for validation.
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
from tfkit import layers  # noqa: E402

NUM_CLASSES = 10
INPUT_SHAPE = (28, 28, 1)


def load_data(limit: int | None = None) -> tuple:
    """MNIST scaled to [0, 1] with a channel axis; labels one-hot."""
    (x_train, y_train), (x_test, y_test) = tfkit.datasets.mnist.load_data()
    if limit:
        x_train, y_train, x_test, y_test = x_train[:limit], y_train[:limit], x_test[:limit], y_test[:limit]
    x_train = np.expand_dims(x_train.astype("float32") / 255, -1)
    x_test = np.expand_dims(x_test.astype("float32") / 255, -1)
    y_train = tfkit.utils.to_categorical(y_train, NUM_CLASSES)
    y_test = tfkit.utils.to_categorical(y_test, NUM_CLASSES)
    return (x_train, y_train), (x_test, y_test)


def build_model() -> tfkit.Model:
    return tfkit.Sequential(
        [
            tfkit.Input(shape=INPUT_SHAPE),
            layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Flatten(),
            layers.Dropout(0.5),
            layers.Dense(NUM_CLASSES, activation="softmax"),
        ]
    )


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="2,000 digits and 1 epoch")
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args(argv)
    tfkit.utils.set_random_seed(0)
    (x_train, y_train), (x_test, y_test) = load_data(2000 if args.small else None)
    epochs = args.epochs or (1 if args.small else 15)

    model = build_model()
    model.summary()
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    start = time.perf_counter()
    model.fit(x_train, y_train, batch_size=128, epochs=epochs, validation_split=0.1, verbose=2)
    seconds = time.perf_counter() - start
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"test loss {loss:.4f}, test accuracy {accuracy:.4f}, training {seconds:.0f} s")
    return {"accuracy": accuracy, "loss": loss, "seconds": seconds}


if __name__ == "__main__":
    main()
