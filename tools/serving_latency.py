"""Single-sample latency of several SavedModels, measured side by side in one process.

    python tools/serving_latency.py --vae --calls 3000     # the guide's VAE exported by tfkit, tf-keras, Keras 3
    python tools/serving_latency.py tfkit=exports/tfkit/1 tf_keras=exports/tf_keras --calls 3000
    # export     p50 ms  (ratio)   p90 ms  (ratio)   graph nodes
    # tfkit      0.2059  (1.00x)   0.2301  (1.00x)   31
    # tf_keras   0.1987  (0.97x)   0.2240  (0.97x)   45

``tools/bench.py`` times each runner's export in its own subprocess, so the
machine's drift between processes lands in the ratio. Here every export is
loaded once and the calls are interleaved (A, B, A, B, ...), so drift hits all
of them alike; p50 and p90 are over ``--calls`` calls of the
``serving_default`` signature on one sample (random values of its input spec,
batch 1), outputs fetched to numpy. "Graph nodes" counts the operations the
signature runs: its graph's nodes plus those of every function it calls
(``graph_nodes``), so an export that carries more than it needs shows.

``--vae`` first writes the exports itself, each framework in its own process
(``tools/bench`` peers): tfkit's ``export_saved_model``, tf-keras's
``tf.saved_model.save`` and Keras 3's ``Model.export``.
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


def graph_nodes(signature: Any) -> int:
    """Operations a signature runs: its graph's nodes and those of the functions it calls, each counted once."""
    graph_def = signature.graph.as_graph_def()
    return len(graph_def.node) + sum(len(function.node_def) for function in graph_def.library.function)


def percentile(values: list[float], fraction: float) -> float:
    """The value at ``fraction`` (0..1) of the sorted values, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def interleaved_latency(export_dirs: dict[str, str], calls: int, warmup: int = 50) -> dict[str, dict[str, float]]:
    """p50 and p90 milliseconds of each export's single-sample ``serving_default`` call (calls interleaved),
    and its graph's node count: ``{label: {"p50_ms", "p90_ms", "nodes"}}``."""
    latencies = _interleaved_durations(export_dirs, calls, warmup)
    return {
        label: {
            "p50_ms": 1000 * percentile(values, 0.5),
            "p90_ms": 1000 * percentile(values, 0.9),
            "nodes": float(nodes),
        }
        for label, (values, nodes) in latencies.items()
    }


def interleaved_latency_ms(export_dirs: dict[str, str], calls: int, warmup: int = 50) -> dict[str, float]:
    """Median milliseconds per single-sample call of each export's ``serving_default``, calls interleaved."""
    return {
        label: 1000 * statistics.median(values)
        for label, (values, _) in _interleaved_durations(export_dirs, calls, warmup).items()
    }


def _interleaved_durations(export_dirs: dict[str, str], calls: int, warmup: int) -> dict[str, tuple[list[float], int]]:
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
    return {label: (durations[label], graph_nodes(signature)) for label, (signature, _) in served.items()}


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


VAE_EXPORTERS = ("tfkit", "tf_keras", "keras3")


def export_vaes(directory: str) -> dict[str, str]:
    """The guide's VAE exported by each framework, each in its own process; ``{label: export_dir}``."""
    import pathlib
    import subprocess
    import sys

    tools = pathlib.Path(__file__).resolve().parent
    sys.path.insert(0, str(tools))
    from bench import orchestrate

    exports = {}
    for peer in VAE_EXPORTERS:
        target = f"{directory}/{peer}"
        source = "\n".join(
            [
                f"import sys; sys.path.insert(0, {str(tools)!r})",
                "import numpy as np",
                f"from bench import {'peer_tfkit as peer' if peer == 'tfkit' else 'peer_keras as peer'}",
                f"peer.load({peer!r})",
                "model = peer.make_vae()",
                "model(np.zeros((2, 784), 'float32'))",
                f"written = peer.export(model, {target!r})",
                f"print('EXPORTED ' + (written if isinstance(written, str) else {target!r}))",
            ]
        )
        completed = subprocess.run(
            [sys.executable, "-c", source],
            env=orchestrate.peer_env(peer, orchestrate.base_env()),
            capture_output=True,
            text=True,
            timeout=600,
        )
        lines = [line for line in completed.stdout.splitlines() if line.startswith("EXPORTED ")]
        if not lines:
            raise RuntimeError(f"{peer}: exporting the VAE failed: {completed.stderr.strip().splitlines()[-1:]}")
        exports[peer] = lines[-1][len("EXPORTED ") :]
    return exports


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("exports", nargs="*", help="LABEL=EXPORT_DIR (a SavedModel with serving_default)")
    parser.add_argument(
        "--vae",
        action="store_true",
        help="export the guide's VAE with tfkit, tf-keras and Keras 3 first, then time those",
    )
    parser.add_argument("--calls", type=int, default=3000, help="timed calls per export (default 3000)")
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    if not args.exports and not args.vae:
        parser.error("give LABEL=EXPORT_DIR arguments, or --vae")
    import tempfile

    with tempfile.TemporaryDirectory(prefix="serving_latency_") as directory:
        exports = parse_exports(args.exports)
        if args.vae:
            exports = {**export_vaes(directory), **exports}
        results = interleaved_latency(exports, args.calls)
    if args.json:
        import json
        import pathlib

        pathlib.Path(args.json).write_text(json.dumps({"calls": args.calls, "exports": results}, indent=1))
    first = next(iter(results.values()))
    print(f"{'export':<10} {'p50 ms':>8}  (ratio)  {'p90 ms':>8}  (ratio)  graph nodes")
    for label, result in results.items():
        print(
            f"{label:<10} {result['p50_ms']:8.4f}  ({result['p50_ms'] / first['p50_ms']:.2f}x)  "
            f"{result['p90_ms']:8.4f}  ({result['p90_ms'] / first['p90_ms']:.2f}x)  {result['nodes']:.0f}"
        )


if __name__ == "__main__":
    main()
