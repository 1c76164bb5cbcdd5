"""The weight-reading floor of a decoding step: GPT-2-124M's products alone, in one XLA while loop.

    python tools/decode_floor.py --batch 1        # floor b1: 20.52 ms/step, 48.7 tok/s (2-core AMD EPYC)

At batch 1 a decoding step reads every weight once for one row of activations,
so its time is bounded below by the memory traffic of GPT-2-124M's float32
weights (497 MB a step, 154 MB of them the output embedding). This loop does
only that traffic's products, written by hand in TensorFlow: per block the
joined query/key/value kernel, the attention output and the two feedforward
kernels, then the output projection and an argmax feeding the next step; no
attention over a cache, no layer norms, no sampler. A ``generate`` at batch 1
cannot beat this figure by more than noise on the same machine, whatever the
framework: it is what ``tools/bench.py``'s pretrained section's batch-1
tokens/s are compared with (``docs/benchmarks.md``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

HIDDEN, INTERMEDIATE, LAYERS, VOCABULARY = 768, 3072, 12, 50257


def decode_loop(batch: int, steps: int) -> tuple[tf.types.experimental.GenericFunction, tf.Tensor]:
    """A compiled loop of ``steps`` weight-reading steps at ``batch`` rows, and its input."""
    rng = np.random.default_rng(0)

    def weight(*shape: int) -> tf.Variable:
        return tf.Variable(rng.standard_normal(shape).astype("float32") * 0.02)

    blocks = [
        (weight(HIDDEN, 3 * HIDDEN), weight(HIDDEN, HIDDEN), weight(HIDDEN, INTERMEDIATE), weight(INTERMEDIATE, HIDDEN))
        for _ in range(LAYERS)
    ]
    embeddings = weight(VOCABULARY, HIDDEN)

    @tf.function(jit_compile=True)
    def loop(x: tf.Tensor) -> tf.Tensor:
        def step(i, x, total):
            h = x
            for joined_qkv, attention_output, intermediate, output in blocks:
                h = h + tf.matmul(tf.matmul(h, joined_qkv)[:, :HIDDEN], attention_output)
                h = h + tf.matmul(tf.nn.gelu(tf.matmul(h, intermediate)), output)
            logits = tf.matmul(h, embeddings, transpose_b=True)
            next_token = tf.cast(tf.argmax(logits, -1), tf.float32)[:, None] * 1e-6
            return i + 1, tf.tanh(h + next_token), total + tf.reduce_sum(logits[:, :1])

        return tf.while_loop(lambda i, x, total: i < steps, step, (0, x, 0.0))[2]

    return loop, tf.constant(rng.standard_normal((batch, HIDDEN)).astype("float32"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=1, help="rows a step (default 1)")
    parser.add_argument("--steps", type=int, default=64, help="steps a call (default 64, the bench's new tokens)")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls after one warm-up (default 5)")
    args = parser.parse_args()
    loop, x = decode_loop(args.batch, args.steps)
    float(loop(x))
    seconds = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        float(loop(x))
        seconds.append(time.perf_counter() - start)
    median = statistics.median(seconds)
    print(
        f"floor b{args.batch}: {median / args.steps * 1000:.2f} ms/step, {args.batch * args.steps / median:.1f} tok/s"
    )


if __name__ == "__main__":
    main()
