"""Single-sample latency of several SavedModels, measured side by side in one process.

    python tools/serving_latency.py tfkit=exports/tfkit/1 tf_keras=exports/tf_keras --calls 3000
    # tfkit      0.2059 ms  (1.00x)
    # tf_keras   0.1987 ms  (0.97x)

``tools/bench.py`` times each runner's export in its own subprocess, so the
machine's drift between processes lands in the ratio. Here every export is
loaded once and the calls are interleaved (A, B, A, B, ...), so drift hits all
of them alike; each figure is the median of ``--calls`` calls of the
``serving_default`` signature on one sample (random values of its input spec,
batch 1), outputs fetched to numpy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def one_sample(signature: Any) -> dict[str, tf.Tensor]:
    """Random inputs of batch 1 for every input of ``signature``; unknown non-batch dims become 1."""
    rng = np.random.default_rng(0)
    feed = {}
    for name, spec in signature.structured_input_signature[1].items():
        shape = [1] + [1 if dim is None else dim for dim in spec.shape.as_list()[1:]]
        if spec.dtype.is_floating:
            feed[name] = tf.constant(rng.uniform(size=shape), dtype=spec.dtype)
        elif spec.dtype.is_integer:
            feed[name] = tf.constant(rng.integers(0, 2, size=shape), dtype=spec.dtype)
        else:
            raise ValueError(f"input {name!r} has dtype {spec.dtype.name}; only numbers can be fed at random")
    return feed


def interleaved_latency_ms(export_dirs: dict[str, str], calls: int, warmup: int = 50) -> dict[str, float]:
    """Median milliseconds per single-sample call of each export's ``serving_default``, calls interleaved."""
    if calls < 1:
        raise ValueError(f"calls must be at least 1, got {calls}")
    served = {}
    for label, directory in export_dirs.items():
        signatures = tf.saved_model.load(directory).signatures
        if "serving_default" not in signatures:
            raise ValueError(f"{label}: {directory} has no serving_default signature; found {sorted(signatures)}")
        signature = signatures["serving_default"]
        served[label] = (signature, one_sample(signature))
    for signature, feed in served.values():
        for _ in range(warmup):
            signature(**feed)
    durations: dict[str, list[float]] = {label: [] for label in served}
    for _ in range(calls):
        for label, (signature, feed) in served.items():
            start = time.perf_counter()
            for value in signature(**feed).values():
                value.numpy()
            durations[label].append(time.perf_counter() - start)
    return {label: 1000 * statistics.median(values) for label, values in durations.items()}


def parse_exports(items: list[str]) -> dict[str, str]:
    """``["a=dir1", "b=dir2"]`` -> ``{"a": "dir1", "b": "dir2"}``; a bare directory is labelled by itself."""
    exports: dict[str, str] = {}
    for item in items:
        label, _, directory = item.partition("=") if "=" in item else (item, "=", item)
        if not label or not directory:
            raise ValueError(f"expected LABEL=EXPORT_DIR, got {item!r}")
        if label in exports:
            raise ValueError(f"label {label!r} is given twice")
        exports[label] = directory
    return exports


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("exports", nargs="+", help="LABEL=EXPORT_DIR (a SavedModel with serving_default)")
    parser.add_argument("--calls", type=int, default=3000, help="timed calls per export (default 3000)")
    args = parser.parse_args(argv)
    latencies = interleaved_latency_ms(parse_exports(args.exports), args.calls)
    first = next(iter(latencies.values()))
    for label, milliseconds in latencies.items():
        print(f"{label:<10} {milliseconds:.4f} ms  ({milliseconds / first:.2f}x)")


if __name__ == "__main__":
    main()
