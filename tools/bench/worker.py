"""What runs inside one measurement's subprocess: load the data, hand it to a peer.

    python tools/bench.py --worker '{"job": {...}, "data_dir": "/tmp/..."}'
    # last stdout line: BENCH_RESULT {"status": "ok", "metrics": {...}, ...}

A peer module (``peer_tfkit``, ``peer_keras``, ``peer_raw_tf``) offers
``load(peer)``, ``train(job, x, y)``, ``predict(job, x, export_dir)`` and
``graph(job, work_dir)`` (the graph and vae_load workloads, tfkit and Keras 3); the
pretrained workload goes to ``peer_hub`` (``load(peer)``, ``run(job, data_dir)``) for
every peer but ``transformers_torch``, whose ``peer_transformers`` offers the same
two (under the ``--torch-python`` interpreter). A peer raises ``Unavailable`` when
its framework or an API it needs is missing. Where the run imported tfkit,
``info["tfkit_file"]`` says which file it was.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from typing import Any

RESULT_MARKER = "BENCH_RESULT "
PEER_MODULES = {
    "tfkit": "peer_tfkit",
    "keras3": "peer_keras",
    "tf_keras": "peer_keras",
    "raw_tf": "peer_raw_tf",
    "keras3_jax": "peer_keras",
    "transformers_torch": "peer_transformers",  # the pretrained workload only, under --torch-python
}


class Unavailable(Exception):
    """A framework, layer or API the measurement needs is not installed or not written yet."""


def describe(error: BaseException) -> str:
    """``Type: message`` on one line, short enough for a footnote."""
    text = " ".join(str(error).split())
    if len(text) > 240:
        text = text[:237] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def run_job(job: dict[str, Any], data_dir: str) -> dict[str, Any]:
    """Run one measurement in this process and return its result record."""
    import importlib

    from bench import data, timing

    result: dict[str, Any] = {"status": "ok", "reason": None, "metrics": {}, "missing": {}, "info": {}}
    job = {**job, "settings": dict(job["settings"])}
    threads = job["settings"].pop("intra_op_threads", None)
    if threads is not None:  # read when TensorFlow's context starts: before the peer runs its first op
        os.environ["TF_NUM_INTRAOP_THREADS"] = str(int(threads))
    try:
        module = PEER_MODULES[job["peer"]]
        if job["workload"] == "pretrained" and module != "peer_transformers":
            module = "peer_hub"
        peer = importlib.import_module(f"bench.{module}")
        try:
            peer.load(job["peer"])
        except ImportError as error:
            raise Unavailable(describe(error)) from error
        if job["workload"] == "pretrained":  # tfkit.hub or KerasHub on the run's presets (bench.pretrained)
            metrics, info = peer.run(job, data_dir)
            result["metrics"] = {key: float(value) for key, value in metrics.items()}
            result["info"] = info
        elif job["workload"] in ("graph", "vae_load"):  # models built and loaded: no data
            with tempfile.TemporaryDirectory(prefix="bench_graph_") as work_dir:
                metrics, info = peer.graph(job, work_dir)
            result["metrics"] = {key: float(value) for key, value in metrics.items()}
            result["info"] = info
        else:
            x, y = data.load(data_dir, job["workload"], rows=job.get("rows"))
            if job["workload"] == "predict":
                with tempfile.TemporaryDirectory(prefix="bench_export_") as export_root:
                    metrics, missing, info = peer.predict(job, x, os.path.join(export_root, "model"))
                if "serving_latency_ms" in metrics:
                    metrics["serving_calls"] = timing.serving_calls(job["quick"])
                result["missing"] = missing
            else:
                metrics, info = peer.train(job, x, y)
                metrics["peak_rss_mib"] = timing.peak_rss_mib()
                if job.get("rows") and "epoch_steady_s" in metrics:
                    metrics["us_per_sample"] = 1e6 * metrics["epoch_steady_s"] / job["rows"]
            result["metrics"] = {key: float(value) for key, value in metrics.items()}
            result["info"] = info
    except Unavailable as error:
        result.update(status="unavailable", reason=str(error))
    except Exception as error:  # a failed measurement must not take the run down
        traceback.print_exc(file=sys.stderr)
        result.update(status="failed", reason=describe(error))
    tfkit = sys.modules.get("tfkit")
    if tfkit is not None:  # which tfkit ran (``--baseline`` checks it is the one it meant)
        result["info"].setdefault("tfkit_file", getattr(tfkit, "__file__", None))
    return result


def main(payload: str) -> int:
    """Entry of ``bench.py --worker``: prints the result line, always exits 0 when it got one."""
    request = json.loads(payload)
    result = run_job(request["job"], request["data_dir"])
    sys.stdout.flush()
    print(RESULT_MARKER + json.dumps(result), flush=True)
    return 0
