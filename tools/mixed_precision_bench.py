"""Epoch time and test accuracy of MNIST models per dtype policy (float32 vs mixed precision).

    python tools/mixed_precision_bench.py mlp float32,mixed_bfloat16,mixed_float16
    python tools/mixed_precision_bench.py cnn float32,mixed_bfloat16

Two epochs each, batch 128, Adam, seeded; prints both epoch times (the first
includes tracing) and the test accuracy. The last layer computes in float32,
as the Keras mixed-precision guide advises.
"""

from __future__ import annotations

import os
import pathlib
import sys
import time

_SHARED = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
if _SHARED.is_dir():
    os.environ.setdefault("TFKIT_DATA_DIR", str(_SHARED))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tfkit  # noqa: E402
from tfkit import layers  # noqa: E402


def body(kind: str) -> list:
    if kind == "mlp":
        return [layers.Flatten(), layers.Dense(256, activation="relu"), layers.Dense(10)]
    return [
        layers.Conv2D(32, 3, activation="relu"),
        layers.MaxPooling2D(),
        layers.Conv2D(64, 3, activation="relu"),
        layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dense(10),
    ]


def main(kind: str, policies: list[str]) -> None:
    (x, y), (x_test, y_test) = tfkit.datasets.mnist.load_data()
    x = x.reshape(-1, 28, 28, 1).astype("float32") / 255
    x_test = x_test.reshape(-1, 28, 28, 1).astype("float32") / 255
    for policy in policies:
        tfkit.mixed_precision.set_global_policy(policy)
        tfkit.utils.set_random_seed(3)
        model = tfkit.Sequential([tfkit.Input((28, 28, 1)), *body(kind), layers.Activation("softmax", dtype="float32")])
        model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
        times = []
        for _ in range(2):
            start = time.perf_counter()
            model.fit(x, y, batch_size=128, epochs=1, verbose=0)
            times.append(time.perf_counter() - start)
        accuracy = model.evaluate(x_test, y_test, batch_size=512, verbose=0)[1]
        print(
            f"{kind} {policy:15s} epoch times {times[0]:.1f} s, {times[1]:.1f} s; test accuracy {accuracy:.4f}",
            flush=True,
        )


if __name__ == "__main__":
    main(
        sys.argv[1] if len(sys.argv) > 1 else "mlp",
        (sys.argv[2] if len(sys.argv) > 2 else "float32,mixed_bfloat16").split(","),
    )
