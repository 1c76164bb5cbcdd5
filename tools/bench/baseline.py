"""``tools/bench.py --baseline COMMIT``: tfkit at an older commit against the working tree's.

    python tools/bench.py --baseline HEAD~3 --workloads vae,cnn --repeats 5
    python tools/bench.py --baseline HEAD~3 --quick --workloads vae --repeats 2 --out baseline.md

The commit's ``tfkit/`` is extracted with ``git archive`` into a temporary folder,
removed at the end: the repository (its files, index, branches and worktrees) is
left as it is. Both sides run this working tree's benchmark, ``bench.worker`` and
``bench.peer_tfkit`` through ``bench.orchestrate.run_job`` (the same models, data
and timers, the ``tfkit`` runner with its default settings), each measurement in
a fresh process; the baseline's processes get the folder first on ``PYTHONPATH``,
so their ``import tfkit`` is the old code. Every result says which tfkit file it
imported (``info["tfkit_file"]``, kept in ``--json``'s raw records); one that
imported the other side's counts as failed.

The two sides alternate on each case, and their order is swapped every repeat
(baseline, current; then current, baseline; ...): drift slower than a pair of
processes lands on both, and neither side always runs first. Per case and metric
the report gives each side's median over the repeats and the ratio current /
baseline (for throughput baseline / current, so above 1 always means the current
tfkit is slower): per repeat, then the geometric mean of each repeat with the next
(one pair in each order), and the median of those, with the per-repeat lowest -
highest; a ratio above ``1 + margin`` (``--margin``, default 0.05) is flagged slower.
Pairing the orders cancels a cost that lands on whichever process runs first: the
tf.data VAE's first epoch took 2.0-2.1 s first in its pair and 1.3-1.5 s second, on
either tree, so its per-repeat ratios alternated near 0.65 and 1.5, and their plain
median over 6 repeats flagged it 1.12x slower.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import math
import os
import pathlib
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from typing import Any, Iterator

from bench import spec

SIDES: tuple[str, ...] = ("baseline", "current")
DEFAULT_MARGIN = 0.05
TIME_METRICS: tuple[str, ...] = ("epoch_steady_s", "epoch_first_s")
_NOT_COMPARED = ("run_s", "peak_rss_mib")  # training rows left out: the whole fit and the peak follow the epochs


def resolve_commit(commit: str, repo_root: pathlib.Path) -> str:
    """The full hash ``commit`` (a hash, branch, tag or ``HEAD~3``) names in ``repo_root``.

    Args:
        commit: Anything ``git rev-parse`` takes.
        repo_root: A git checkout.

    Returns:
        The 40-digit commit hash.

    Raises:
        ValueError: ``commit`` names no commit there.
    """
    completed = subprocess.run(
        ["git", "-C", str(repo_root), "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if completed.returncode != 0 or not completed.stdout.strip():
        raise ValueError(f"{commit!r} names no commit of {repo_root}")
    return completed.stdout.strip()


@contextlib.contextmanager
def checkout(commit: str, repo_root: pathlib.Path, paths: tuple[str, ...] = ("tfkit",)) -> Iterator[pathlib.Path]:
    """``paths`` of ``commit`` extracted into a temporary folder, which is removed on exit.

    Args:
        commit: A commit of ``repo_root``.
        repo_root: A git checkout; only read (``git archive``).
        paths: What to extract, relative to the repository root.

    Yields:
        The folder: ``folder / "tfkit"`` is the commit's package.

    Raises:
        RuntimeError: git could not archive ``paths`` at ``commit``.
    """
    archive = subprocess.run(
        ["git", "-C", str(repo_root), "archive", "--format=tar", commit, "--", *paths], capture_output=True
    )
    if archive.returncode != 0:
        raise RuntimeError(f"git archive {commit} {' '.join(paths)}: {archive.stderr.decode().strip()}")
    with tempfile.TemporaryDirectory(prefix="tfkit_bench_baseline_") as directory:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python 3.10.12+ has filters
            tar.extractall(directory, **safe)
        yield pathlib.Path(directory)


def side_env(env: dict[str, str], tree: pathlib.Path | None) -> dict[str, str]:
    """``env`` with ``tree`` first on ``PYTHONPATH`` (None: ``env`` as it is, the working tree's tfkit).

    ``PYTHONPATH`` comes before site-packages and the editable install's finder, so
    ``import tfkit`` in a process with this environment loads ``tree / "tfkit"``.
    """
    if tree is None:
        return dict(env)
    paths = [str(tree)] + [path for path in env.get("PYTHONPATH", "").split(os.pathsep) if path]
    return {**env, "PYTHONPATH": os.pathsep.join(paths)}


def check_tfkit(result: dict[str, Any], package: pathlib.Path) -> dict[str, Any]:
    """``result``, made "failed" when it ran but did not import tfkit from ``package`` (a folder)."""
    imported = result.get("info", {}).get("tfkit_file")
    if result["status"] != "ok":
        return result
    if imported is None or pathlib.Path(package).resolve() not in pathlib.Path(imported).resolve().parents:
        return {**result, "status": "failed", "reason": f"imported tfkit from {imported}, not from {package}"}
    return result


def plan(jobs: list[spec.Job], repeats: int) -> list[tuple[int, str, spec.Job]]:
    """Every job on both sides, ``repeats`` times: ``(repeat, side, job)`` in the order they run.

    Each job's two sides run back to back; odd repeats run the baseline first, even
    ones the current tree (A B, then B A on the next repeat).
    """
    runs = []
    for repeat in range(1, repeats + 1):
        order = SIDES if repeat % 2 else SIDES[::-1]
        for job in jobs:
            runs.extend((repeat, side, job) for side in order)
    return runs


def plan_jobs(workloads: list[str], epochs: dict[str, int], quick: bool) -> list[spec.Job]:
    """The ``tfkit`` runner's jobs (default settings) of ``workloads``."""
    return [
        job for job in spec.plan_jobs(workloads, [spec.BASELINE], epochs, quick=quick) if job.runner == spec.BASELINE
    ]


def rows_for(case: str) -> list[spec.Row]:
    """What is compared on a case: a training case's steady and first epoch, then its table rows that have
    a better direction (throughput, latency, load time, memory), less the whole fit and the peak RSS."""
    rows = [row for row in spec.ROWS if row.case == case and row.better and row.metric not in _NOT_COMPARED]
    if not spec.CASES[case].trains:
        return rows
    label = spec.CASE_LABELS.get(case, case)
    return [
        spec.Row(case, "epoch_steady_s", f"{label}: epoch, steady state", "s", "lower"),
        spec.Row(case, "epoch_first_s", f"{label}: first epoch (tracing incl.)", "s", "lower"),
    ] + [row for row in rows if row.metric not in TIME_METRICS]


def order_balanced(ratios: dict[int, float]) -> list[float]:
    """Each odd repeat's ratio with the next repeat's (their orders swapped), as their geometric mean.

    Args:
        ratios: Per-repeat ratios, by repeat number (1, 2, ...; ``plan`` runs odd repeats baseline first).

    Returns:
        One ratio per pair of repeats; a repeat whose partner is missing stays as it is.

    Example:
        >>> order_balanced({1: 0.5, 2: 2.0, 3: 1.2})  # a first-in-pair cost, then an unpaired repeat
        [1.0, 1.2]
    """
    balanced = []
    for repeat, ratio in sorted(ratios.items()):
        partner = repeat + 1 if repeat % 2 else repeat - 1
        if partner not in ratios:
            balanced.append(ratio)
        elif repeat % 2:
            balanced.append(math.sqrt(ratio * ratios[partner]))
    return balanced


def summarize(records: list[dict[str, Any]], margin: float = DEFAULT_MARGIN) -> list[dict[str, Any]]:
    """One comparison per case and metric, in the order the cases ran.

    Args:
        records: ``{"repeat", "side", "job", "result"}`` dicts, as ``run`` returns them.
        margin: The noise margin: a ratio above ``1 + margin`` is "slower", below ``1 - margin`` "faster".

    Returns:
        Dicts with the ``row`` (a ``spec.Row``), each side's ``baseline`` and ``current`` median (None
        without values), the per-repeat ``ratios`` (current / baseline for times, baseline / current for
        throughput: above 1, the current tfkit is slower), the ``ratio`` (the median of their
        ``order_balanced`` pairs; None without a pair), the ``verdict`` ("slower", "faster", "within noise"
        or None) and each side's ``problems``.
    """
    from bench import report

    summary = report.aggregate({**record, "job": {**record["job"], "runner": record["side"]}} for record in records)
    comparisons = []
    for case in dict.fromkeys(record["job"]["case"] for record in records):
        cells = {side: summary.get((case, side), report.Cell()) for side in SIDES}
        for row in rows_for(case):
            base, current = (cells[side].by_repeat.get(row.metric, {}) for side in SIDES)
            by_repeat = {
                repeat: value
                for repeat in sorted(base.keys() & current.keys())
                if (value := report.ratio(row, base[repeat], current[repeat])) is not None
            }
            ratios = list(by_repeat.values())
            balanced = order_balanced(by_repeat)
            factor = statistics.median(balanced) if balanced else None
            verdict = None
            if factor is not None:
                verdict = "slower" if factor > 1 + margin else "faster" if factor < 1 - margin else "within noise"
            comparisons.append(
                {
                    "row": row,
                    "baseline": cells["baseline"].median(row.metric),
                    "current": cells["current"].median(row.metric),
                    "ratios": ratios,
                    "ratio": factor,
                    "verdict": verdict,
                    "problems": {side: list(dict.fromkeys(cells[side].problems)) for side in SIDES},
                }
            )
    return comparisons


def render(records: list[dict[str, Any]], context: dict[str, Any]) -> str:
    """The Markdown report of a ``--baseline`` run: the comparison table, what is slower, the run's facts."""
    from bench import report

    margin = float(context.get("margin", DEFAULT_MARGIN))
    comparisons = summarize(records, margin)
    footnotes = report.Footnotes()
    lines = [
        "## tfkit at a baseline commit against the working tree (`--baseline`)",
        "",
        f"Baseline: `{context['baseline_name']}` = commit {context['baseline_commit'][:10]} (its `tfkit/`); "
        f"current: {context['current']}. {context['repeats']} repeats; on each case the two sides alternate in "
        "fresh processes, their order swapped every repeat, both running this tree's benchmark code, models "
        "and data. Each cell is the median over the repeats; *current / baseline* (for throughput baseline / "
        "current: above 1, the current tfkit is slower) is the median over pairs of repeats, one in each "
        "order, of their ratios' geometric mean, then the per-repeat lowest - highest and the number of "
        f"repeats. Above {1 + margin:.2f}x (the noise margin, "
        f"{margin:.0%}) is **slower**, below {1 - margin:.2f}x *faster*.",
        "",
        "| measurement | baseline | current | current / baseline | verdict |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for item in comparisons:
        row = item["row"]
        unit = f" {row.unit}" if row.unit else ""
        cells = []
        for side in SIDES:
            value = item[side]
            notes = "".join(footnotes.mark(f"{side}, {row.case}: {problem}") for problem in item["problems"][side])
            text = "-" if value is None else report.format_number(value, row.digits) + unit
            cells.append(f"{text} {notes}" if notes else text)
        ratios = item["ratios"]
        factor = (
            "-"
            if item["ratio"] is None
            else f"{item['ratio']:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}, n={len(ratios)})"
        )
        verdict = {"slower": "**slower**", "faster": "*faster*"}.get(item["verdict"], item["verdict"] or "-")
        lines.append(f"| {row.label} | {cells[0]} | {cells[1]} | {factor} | {verdict} |")
    slower = [f"{item['row'].label} ({item['ratio']:.2f}x)" for item in comparisons if item["verdict"] == "slower"]
    lines += ["", f"Slower than the baseline beyond the margin: {'; '.join(slower) if slower else 'none'}."]
    lines += [
        "",
        f"Run: {context['date']}, `{context['command']}`, epochs {context['epochs']}, load average "
        f"{context['load_start']} at the start, {context['load_end']} at the end, {context['wall']}.  ",
        "Machine: " + ", ".join(f"{key} {value}" for key, value in context["machine"].items()) + ".  ",
        "Versions: " + ", ".join(f"{key} {value}" for key, value in context["versions"].items()) + ".",
    ]
    if footnotes.texts:
        lines += ["", "Notes:", ""] + [f"{line}  " for line in footnotes.lines()]
    return report.scrub_paths("\n".join(lines).rstrip() + "\n")


def _describe_current(repo_root: pathlib.Path) -> str:
    commit = subprocess.run(["git", "-C", str(repo_root), "rev-parse", "HEAD"], capture_output=True, text=True)
    status = subprocess.run(
        ["git", "-C", str(repo_root), "status", "--porcelain", "--", "tfkit"], capture_output=True, text=True
    )
    changed = " with uncommitted changes in `tfkit/`" if status.stdout.strip() else ""
    return f"the working tree at {commit.stdout.strip()[:10] or 'an unknown commit'}{changed}"


def run(args: Any, command: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run a ``--baseline`` comparison: every job on both sides, ``args.repeats`` times, alternating.

    Args:
        args: ``tools/bench.py``'s parsed options (``baseline``, ``workloads``, ``epoch_counts``, ``quick``,
            ``repeats``, ``timeout``, ``margin``).
        command: The command line for the report.

    Returns:
        The raw records (``repeat``, ``side``, ``job``, ``result``; the result's ``info["tfkit_file"]`` says
        which tfkit ran) and the run's facts for ``render``.
    """
    from bench import orchestrate, pretrained, report, startup
    from bench.cli import load_average as load

    jobs = plan_jobs(args.workloads, args.epoch_counts, args.quick)
    if not jobs:
        raise SystemExit("nothing to run: tfkit runs none of the selected workloads")
    try:
        commit = resolve_commit(args.baseline, orchestrate.REPO_ROOT)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    started, load_start, current = time.perf_counter(), load(), _describe_current(orchestrate.REPO_ROOT)
    env = orchestrate.base_env()
    records: list[dict[str, Any]] = []
    with (
        checkout(commit, orchestrate.REPO_ROOT) as tree,
        tempfile.TemporaryDirectory(prefix="tfkit_bench_data_") as data,
    ):
        packages = {"baseline": tree / "tfkit", "current": orchestrate.REPO_ROOT / "tfkit"}
        for package in packages.values():  # both imported from bytecode, as a wheel leaves them
            startup.ensure_bytecode(package)
        envs = {"baseline": side_env(env, tree), "current": side_env(env, None)}
        print(f"baseline {args.baseline} = {commit[:10]} in {tree}; preparing data ...", file=sys.stderr, flush=True)
        orchestrate.prepare_data(
            data, env, timeout=args.timeout, presets=pretrained.models_for(job.case for job in jobs)
        )
        for repeat, side, job in plan(jobs, args.repeats):
            print(f"[{repeat}/{args.repeats}] {job.case:<19} {side:<8}", end=" ", file=sys.stderr, flush=True)
            result = check_tfkit(orchestrate.run_job(job, data, envs[side], timeout=args.timeout), packages[side])
            brief = result.get("reason") or ", ".join(
                f"{key}={value:.4g}" for key, value in result["metrics"].items() if key in TIME_METRICS
            )
            print(f"{result['wall_s']:6.1f} s  {result['status']}: {brief}", file=sys.stderr, flush=True)
            records.append({"repeat": repeat, "side": side, "job": job.to_json(), "result": result})
    context = {
        "baseline_name": args.baseline,
        "baseline_commit": commit,
        "current": current,
        "margin": args.margin,
        "repeats": args.repeats,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command,
        "epochs": ", ".join(f"{job.case} {job.epochs}" for job in jobs if job.epochs),
        "load_start": load_start,
        "load_end": load(),
        "wall": f"{time.perf_counter() - started:.0f} s",
        "machine": report.machine_info(),
        "versions": report.package_versions(),
    }
    return records, context
