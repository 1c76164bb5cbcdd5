"""How fast stock TensorFlow multiplies one row by a GPT-2-sized int8, bfloat16 or float32 weight on this CPU.

    python tools/quantized_gemv_paths.py            # a table: milliseconds a product and GB/s of weight read
    python tools/quantized_gemv_paths.py --json     # the same figures as JSON

A batch-1 decoding step is a row times every weight, so its speed is the weight bytes read per
second. An int8 weight is a quarter of float32's bytes; it decodes faster only if some op reads it
as int8. This measures each way stock TensorFlow 2 has (no custom op) on a (768, 9216) weight, four
of GPT-2-124M's joined query/key/value kernels: the float32 product (the floor
``tools/decode_floor.py`` times, XLA and not), int8 cast to float then multiplied (Keras's
weight-only int8), the same as one XLA reduction that reads the int8 values (``reduce_sum(x * w)``:
the cast fused into the loop), int8 by int8 to int32 (Keras's W8A8 product), and bfloat16 and
float16 products. A path reads fewer bytes usefully when its milliseconds are below float32's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

ROWS, COLUMNS = 768, 4 * 2304


def _paths() -> dict[str, tuple]:
    """Name -> (function, arguments, bytes of weight it reads)."""
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((ROWS, COLUMNS)).astype("float32")
    row = tf.constant(rng.standard_normal((1, ROWS)).astype("float32"))
    values = tf.constant(rng.integers(-127, 128, (ROWS, COLUMNS)).astype("int8"))
    scale = tf.constant(rng.uniform(1, 2, (COLUMNS,)).astype("float32"))
    row_int8 = tf.constant(rng.integers(-127, 128, (1, ROWS)).astype("int8"))
    f32, n = tf.constant(weight), weight.size

    def compiled(fn, xla):
        return tf.function(fn, jit_compile=xla)

    product = lambda x, w: tf.matmul(x, w)  # noqa: E731
    cast_product = lambda x, w, s: tf.matmul(x, tf.cast(w, tf.float32)) / s  # noqa: E731
    reduction = lambda x, w, s: tf.reduce_sum(tf.transpose(x) * tf.cast(w, tf.float32), 0, keepdims=True) / s  # noqa: E731
    return {
        "float32, XLA": (compiled(product, True), (row, f32), 4 * n),
        "float32": (compiled(product, False), (row, f32), 4 * n),
        "int8 cast then product, XLA": (compiled(cast_product, True), (row, values, scale), n),
        "int8 cast then product": (compiled(cast_product, False), (row, values, scale), n),
        "int8 in one XLA reduction": (compiled(reduction, True), (row, values, scale), n),
        "int8 x int8 -> int32": (
            compiled(lambda x, w: tf.linalg.matmul(x, w, output_type=tf.int32), False),
            (row_int8, values),
            n,
        ),
        "bfloat16": (compiled(product, False), (tf.cast(row, tf.bfloat16), tf.cast(f32, tf.bfloat16)), 2 * n),
        "bfloat16, XLA": (compiled(product, True), (tf.cast(row, tf.bfloat16), tf.cast(f32, tf.bfloat16)), 2 * n),
        "float16": (compiled(product, False), (tf.cast(row, tf.float16), tf.cast(f32, tf.float16)), 2 * n),
    }


def measure(repeats: int, calls: int) -> dict[str, dict[str, float]]:
    """Median milliseconds a product over ``repeats`` runs of ``calls`` calls, and the weight GB/s it reads."""
    figures = {}
    for name, (fn, args, weight_bytes) in _paths().items():
        fn(*args).numpy()  # trace and compile
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            for _ in range(calls):
                result = fn(*args)
            result.numpy()
            runs.append((time.perf_counter() - start) / calls)
        seconds = statistics.median(runs)
        figures[name] = {"ms": round(seconds * 1e3, 3), "weight_gb_per_s": round(weight_bytes / seconds / 1e9, 2)}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    figures = measure(args.repeats, args.calls)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    base = figures["float32, XLA"]["ms"]
    print(f"{'path':32s} {'ms':>8s} {'weight GB/s':>12s} {'vs float32 XLA':>15s}")
    for name, row in figures.items():
        print(f"{name:32s} {row['ms']:8.3f} {row['weight_gb_per_s']:12.2f} {base / row['ms']:14.2f}x")


if __name__ == "__main__":
    main()
