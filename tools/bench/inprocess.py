"""In-process A/B: the TensorFlow peers in one process, their fits alternated, a ratio per pair.

    python tools/bench.py --in-process --workloads vae,cnn --pairs 10

Every peer that runs on TensorFlow (tfkit, the raw TF floor, Keras 3 on its
TensorFlow backend, tf-keras) is loaded into one worker process per training
case. A *round* fits a fresh model of each peer for ``epochs`` epochs, one peer
after the other, the order rotated every round; the first round is a warm-up and
is not counted. Each counted round pairs every peer with tfkit: the ratio of its
first epoch, its steady epoch (median of epochs 2..k of that fit) and its whole
fit to tfkit's in the same round. The report gives, per peer, the median of its
times, the median of its per-pair ratios and their spread (lowest - highest).

Why: the same compiled loop moves 1.3-2x between processes on a shared 2-core
machine (issue 20). The two sides of a pair run seconds apart in one process, on
the same thread pools, allocator and page cache, so drift that lasts longer than
a pair (another process, a frequency change) lands on both sides and cancels in
the ratio. Keras 3 on JAX cannot share a process with TensorFlow's runtime on
equal terms and stays a cross-process column (``keras3_jax``).
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import statistics
import subprocess
import sys
import time
from typing import Any

from bench import spec
from bench.worker import PEER_MODULES, RESULT_MARKER, Unavailable, describe

TF_PEERS: tuple[str, ...] = ("tfkit", "keras3", "tf_keras", "raw_tf")  # the peers that share a process
DEFAULT_PAIRS = 10
DEFAULT_EPOCHS = 3  # per fit: the first epoch, then two whose median is the steady epoch
METRICS: tuple[tuple[str, str], ...] = (
    ("epoch_steady_s", "epoch, steady state"),
    ("epoch_first_s", "first epoch (tracing incl.)"),
    ("run_s", "whole fit, all epochs"),
)


def load_peer(peer: str) -> Any:
    """A private copy of the peer's module (``peer_keras`` keeps one Keras in its globals), loaded."""
    path = pathlib.Path(__file__).with_name(f"{PEER_MODULES[peer]}.py")
    module_spec = importlib.util.spec_from_file_location(f"bench._in_process_{peer}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    module.load(peer)
    return module


def run_rounds(case: str, peers: list[str], pairs: int, epochs: int, data_dir: str) -> dict[str, Any]:
    """This process: a warm-up round and ``pairs`` counted rounds of one fit per peer."""
    from bench import data

    settings = spec.CASES[case]
    job = {
        "workload": settings.workload,
        "batch_size": settings.batch_size,
        "epochs": epochs,
        "settings": {},
        "quick": False,
        "rows": settings.rows,
        "count_flops": False,
    }
    x, y = data.load(data_dir, settings.workload, rows=settings.rows)
    modules, unavailable = {}, {}
    for peer in peers:
        try:
            modules[peer] = load_peer(peer)
        except (ImportError, Unavailable) as error:
            unavailable[peer] = describe(error)
    order = [peer for peer in peers if peer in modules]
    rounds: list[dict[str, dict[str, float]]] = []
    failed: dict[str, str] = {}
    for number in range(pairs + 1):
        shift = number % len(order)
        results: dict[str, dict[str, float]] = {}
        for peer in order[shift:] + order[:shift]:
            if peer in failed:
                continue
            try:
                metrics, _ = modules[peer].train(dict(job), x, y)
            except Unavailable as error:
                failed[peer] = f"unavailable: {error}"
                continue
            except Exception as error:  # one peer failing must not lose the others' pairs
                failed[peer] = f"failed: {describe(error)}"
                continue
            results[peer] = {
                key: float(metrics[key])
                for key in ("epoch_first_s", "epoch_steady_s", "run_s", "loss_epoch2")
                if key in metrics
            }
        if number:  # round 0 warms every peer up and is not counted
            rounds.append(results)
        print(
            f"  {case} round {number}/{pairs}: "
            + ", ".join(f"{peer} {values.get('epoch_steady_s', float('nan')):.3f}" for peer, values in results.items()),
            file=sys.stderr,
            flush=True,
        )
    return {"case": case, "epochs": epochs, "pairs": pairs, "rounds": rounds, "problems": {**unavailable, **failed}}


def pair_ratios(
    rounds: list[dict[str, dict[str, float]]], peer: str, metric: str, baseline: str = spec.BASELINE
) -> list[float]:
    """``peer``'s value over the baseline's, one per round where both have ``metric``."""
    return [
        values[peer][metric] / values[baseline][metric]
        for values in rounds
        if metric in values.get(peer, {}) and metric in values.get(baseline, {}) and values[baseline][metric] > 0
    ]


def summarize(result: dict[str, Any], peer: str, metric: str) -> dict[str, float] | None:
    """Median time, median per-pair ratio to tfkit and the ratios' lowest and highest; None without pairs."""
    times = [values[peer][metric] for values in result["rounds"] if metric in values.get(peer, {})]
    if not times:
        return None
    summary = {"median": statistics.median(times), "n": float(len(times))}
    ratios = pair_ratios(result["rounds"], peer, metric)
    if ratios:
        summary.update(ratio=statistics.median(ratios), low=min(ratios), high=max(ratios), pairs=float(len(ratios)))
    return summary


def format_cell(summary: dict[str, float] | None, is_baseline: bool) -> str:
    if summary is None:
        return "-"
    text = f"{summary['median']:.3f}"
    if is_baseline or "ratio" not in summary:
        return text
    return f"{text} ({summary['ratio']:.2f}x; {summary['low']:.2f}-{summary['high']:.2f}, n={summary['pairs']:.0f})"


def render(results: list[dict[str, Any]], peers: list[str]) -> str:
    """The Markdown section: one row per case and metric, one column per peer."""
    titles = [spec.RUNNERS_BY_NAME[peer].title for peer in peers]
    lines = [
        "## In-process A/B (TensorFlow peers in one process)",
        "",
        "Each cell: median time over the counted rounds; in parentheses the median of the per-pair ratios "
        "peer / tfkit (above 1: tfkit is faster), their lowest - highest and the number of pairs. A round "
        "fits a fresh model of every peer in turn (order rotated); round 0 is a warm-up.",
        "",
        "| measurement | " + " | ".join(titles) + " |",
        "| --- |" + " ---: |" * len(peers),
    ]
    notes = []
    for result in results:
        label = spec.CASE_LABELS.get(result["case"], result["case"])
        for metric, words in METRICS:
            cells = [format_cell(summarize(result, peer, metric), peer == spec.BASELINE) for peer in peers]
            lines.append(f"| {label}: {words} [s] | " + " | ".join(cells) + " |")
        losses = [summarize(result, peer, "loss_epoch2") for peer in peers]
        lines.append(
            f"| {label}: loss after epoch 2 (sanity) | "
            + " | ".join("-" if value is None else f"{value['median']:.4f}" for value in losses)
            + " |"
        )
        notes += [f"- {result['case']}, {peer}: {problem}" for peer, problem in result.get("problems", {}).items()]
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"


def run_case(
    case: str, peers: list[str], pairs: int, epochs: int, data_dir: str, env: dict[str, str], timeout: float
) -> dict[str, Any]:
    """One case's rounds in a fresh worker process (Keras 3 on TensorFlow, no legacy switch)."""
    from bench import orchestrate

    payload = json.dumps({"case": case, "peers": peers, "pairs": pairs, "epochs": epochs, "data_dir": data_dir})
    env = orchestrate.worker_env("keras3", env, data_dir)
    start = time.perf_counter()
    try:
        completed = subprocess.run(
            [sys.executable, str(orchestrate.ENTRY), "--in-process-worker", payload],
            env=env,
            cwd=orchestrate.REPO_ROOT,
            stdout=subprocess.PIPE,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"case": case, "rounds": [], "problems": {"all": f"timed out after {timeout:.0f} s"}}
    result = orchestrate.parse_result(completed.stdout)
    if result is None:
        problem = {"case": case, "rounds": [], "problems": {"all": f"worker exited {completed.returncode}"}}
        if completed.returncode < 0:  # killed from outside (a stopped run): --resume runs it again
            problem["signal"] = -completed.returncode
        return problem
    result["wall_s"] = time.perf_counter() - start
    return result


def worker_main(payload: str) -> int:
    """Entry of ``bench.py --in-process-worker``: the rounds of one case, printed as the result line."""
    request = json.loads(payload)
    result = run_rounds(request["case"], request["peers"], request["pairs"], request["epochs"], request["data_dir"])
    print(RESULT_MARKER + json.dumps(result), flush=True)
    return 0
