"""Transfer learning with ``tfkit.applications`` and weights from a local file (keras.io's "Transfer learning & fine-tuning", in tfkit).

    python examples/transfer_learning.py            # the full run: MobileNet alpha 0.5, pre-trained on 30,592
                                                    # digits 0-4 (2 epochs), then 1,984 digits 5-9: the head
                                                    # 10 epochs, fine-tuning 5 epochs (tested on 4,800 digits)
    python examples/transfer_learning.py --small    # a quick check: 1,024 + 512 digits, 1 epoch each, alpha 0.25

No pretrained ImageNet weights can be downloaded here, so the script makes
its own "pretrained" file first:

1. A ``MobileNet`` backbone (``weights=None``, ``include_top=False``, 32x32x3
   inputs: MNIST digits padded to 32x32 and repeated on 3 channels) learns to
   tell the digits 0-4 apart; its weights are saved to a local
   ``.weights.h5`` file (``--weights-file``).
2. A fresh backbone is built with ``weights=<that file>`` (tfkit's
   applications load any local weights file by path), frozen
   (``trainable = False``) and topped with a new classifier head, which
   learns a second task, the digits 5-9, from only a few labelled images.
3. The backbone is unfrozen and the whole model fine-tuned with a low learning
   rate. The backbone is called with ``training=False``, so its
   ``BatchNormalization`` layers stay in inference mode (their moving
   statistics untouched) even when unfrozen, as the keras.io guide advises.

The script prints the head-only and the fine-tuned test accuracies on 5-9.
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

IMAGE_SHAPE = (32, 32, 3)  # MobileNet's smallest input


def to_rgb32(digits: np.ndarray) -> np.ndarray:
    """28x28 grey digits -> 32x32x3, scaled to [-1, 1] as MobileNet expects."""
    padded = np.pad(digits, ((0, 0), (2, 2), (2, 2))).astype("float32")
    return tfkit.applications.mobilenet.preprocess_input(np.repeat(padded[..., None], 3, axis=-1))


def task(x: np.ndarray, y: np.ndarray, digits: range, limit: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The images of ``digits`` labelled 0..len(digits)-1: at most ``limit``, a whole number of batches of 64
    (a short last batch would cost ``fit`` and ``evaluate`` one more graph trace each)."""
    keep = np.isin(y, list(digits))
    count = min(limit or keep.sum(), keep.sum()) // 64 * 64
    x, y = x[keep][:count], y[keep][:count] - digits.start
    return to_rgb32(x), y.astype("int64")


def backbone(alpha: float, weights: str | None = None) -> tfkit.Model:
    return tfkit.applications.MobileNet(
        input_shape=IMAGE_SHAPE, alpha=alpha, include_top=False, weights=weights, pooling=None
    )


def classifier(base: tfkit.Model, classes: int, name: str) -> tfkit.Model:
    inputs = tfkit.Input(shape=IMAGE_SHAPE)
    x = base(inputs, training=False)  # BatchNormalization in inference mode, frozen or not
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    outputs = layers.Dense(classes, activation="softmax")(x)
    return tfkit.Model(inputs, outputs, name=name)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="1,024 + 512 digits, 1 epoch per stage")
    parser.add_argument("--epochs", type=int, default=None, help="epochs of every stage")
    parser.add_argument("--weights-file", default="mnist_0_4_backbone.weights.h5")
    args = parser.parse_args(argv)
    # An absolute path: tfkit reads weights files in a helper process that keeps the working directory of
    # the first load, so a relative path can miss (or find a stale file) after an os.chdir.
    weights_file = os.path.abspath(args.weights_file)
    tfkit.utils.set_random_seed(0)
    pre_epochs, head_epochs, tune_epochs = (
        (args.epochs,) * 3 if args.epochs else (1, 1, 1) if args.small else (2, 10, 5)
    )
    alpha = 0.25 if args.small else 0.5
    (x_train, y_train), (x_test, y_test) = tfkit.datasets.mnist.load_data()
    x_a, y_a = task(x_train, y_train, range(0, 5), 1024 if args.small else None)
    x_a_test, y_a_test = task(x_test, y_test, range(0, 5), 512 if args.small else None)
    x_b, y_b = task(x_train, y_train, range(5, 10), 512 if args.small else 2000)  # few labels: the new task
    x_b_test, y_b_test = task(x_test, y_test, range(5, 10), 512 if args.small else None)
    start = time.perf_counter()

    # 1. "Pre-training" on the digits 0-4, then the backbone's weights to a local file.
    # (Here the backbone is called without training=False: its BatchNormalization layers must learn their
    # moving statistics.)
    base = backbone(alpha)
    for layer in base.layers:  # a short pre-training: let the moving statistics catch up in fewer steps
        if isinstance(layer, layers.BatchNormalization):
            layer.momentum = 0.9
    inputs = tfkit.Input(shape=IMAGE_SHAPE)
    x = layers.GlobalAveragePooling2D()(base(inputs))
    pretrain = tfkit.Model(inputs, layers.Dense(5, activation="softmax")(x), name="pretrain_0_4")
    pretrain.compile(
        optimizer=tfkit.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy", metrics=["accuracy"]
    )
    print(f"pre-training MobileNet(alpha={alpha}) on {len(x_a)} digits 0-4")
    pretrain.fit(x_a, y_a, batch_size=64, epochs=pre_epochs, verbose=2)
    _, pre_accuracy = pretrain.evaluate(x_a_test, y_a_test, verbose=0)
    base.save_weights(weights_file)
    print(f"digits 0-4 test accuracy {pre_accuracy:.4f}; backbone weights saved to {weights_file}")

    # 2. A fresh backbone from the file, frozen, under a new head for the digits 5-9.
    base = backbone(alpha, weights=weights_file)
    base.trainable = False
    model = classifier(base, 5, "transfer_5_9")
    model.compile(optimizer=tfkit.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    print(
        f"training the new head on {len(x_b)} digits 5-9 (backbone frozen: {len(model.trainable_weights)} "
        f"trainable weights, the head's)"
    )
    model.fit(x_b, y_b, batch_size=32, epochs=head_epochs, verbose=2)
    _, head_accuracy = model.evaluate(x_b_test, y_b_test, verbose=0)

    # 3. Fine-tuning everything with a low learning rate (compile again after changing `trainable`).
    base.trainable = True
    model.compile(optimizer=tfkit.optimizers.Adam(1e-4), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    print(f"fine-tuning all {len(model.trainable_weights)} trainable weights")
    model.fit(x_b, y_b, batch_size=32, epochs=tune_epochs, verbose=2)
    _, tuned_accuracy = model.evaluate(x_b_test, y_b_test, verbose=0)
    seconds = time.perf_counter() - start
    print(
        f"digits 5-9 test accuracy: head only {head_accuracy:.4f}, fine-tuned {tuned_accuracy:.4f} "
        f"(pre-training on 0-4: {pre_accuracy:.4f}), training {seconds:.0f} s"
    )
    return {
        "pretrain_accuracy": float(pre_accuracy),
        "head_accuracy": float(head_accuracy),
        "fine_tuned_accuracy": float(tuned_accuracy),
        "seconds": float(seconds),
    }


if __name__ == "__main__":
    main()
