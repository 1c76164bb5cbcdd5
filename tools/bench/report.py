"""Medians, ratios to tfkit and the Markdown report (no TensorFlow import here).

    summary = report.aggregate(records)   # records: [{"repeat", "job", "result"}, ...]
    text = report.render(summary, runners=["tfkit", "keras3"], cases=["vae"], context=ctx)
    pathlib.Path("docs/PERFORMANCE.md").write_text(text)

A ratio is always "how much better tfkit is": ``peer / tfkit`` for times and
memory, ``tfkit / peer`` for throughput, so a ratio above 1 means tfkit wins.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import re
import statistics
import sys
from typing import Any, Iterable

from bench import arithmetic, pretrained
from bench.spec import (
    BASELINE,
    GRAPH_CASES,
    GRAPH_LABELS,
    JAX_CASES,
    MEMORY_EPOCHS,
    ROWS,
    RUNNERS_BY_NAME,
    TRAINING_WORKLOADS,
    Row,
)

MISSING = "-"


@dataclasses.dataclass
class Cell:
    """Everything measured for one (case, runner) across repeats."""

    values: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    by_repeat: dict[str, dict[int, float]] = dataclasses.field(default_factory=dict)  # metric -> {repeat: value}
    problems: list[str] = dataclasses.field(default_factory=list)  # whole-job: "unavailable: ..."
    missing: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # per metric
    info: dict[str, Any] = dataclasses.field(default_factory=dict)
    runs: int = 0

    def median(self, metric: str) -> float | None:
        values = self.values.get(metric)
        return statistics.median(values) if values else None


Summary = dict[tuple[str, str], Cell]


def aggregate(records: Iterable[dict[str, Any]]) -> Summary:
    """Group the per-run results by (case, runner)."""
    summary: Summary = {}
    for record in records:
        job, result = record["job"], record["result"]
        cell = summary.setdefault((job["case"], job["runner"]), Cell())
        cell.runs += 1
        if result["status"] != "ok":
            cell.problems.append(f"{result['status']}: {result.get('reason') or 'no reason given'}")
            continue
        for metric, value in result.get("metrics", {}).items():
            cell.values.setdefault(metric, []).append(float(value))
            if "repeat" in record:
                cell.by_repeat.setdefault(metric, {})[int(record["repeat"])] = float(value)
        for metric, reason in result.get("missing", {}).items():
            cell.missing.setdefault(metric, []).append(reason)
        if not cell.info:
            cell.info = dict(result.get("info", {}))
    return summary


def ratio(row: Row, baseline: float | None, value: float | None) -> float | None:
    """How many times better tfkit is than this value (> 1: tfkit wins)."""
    if row.better is None or baseline is None or value is None or baseline <= 0 or value <= 0:
        return None
    return value / baseline if row.better == "lower" else baseline / value


def format_number(value: float, digits: int) -> str:
    return f"{value:,.{digits}f}" if digits else f"{value:,.0f}"


class Footnotes:
    """Numbered reasons, each text once."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def mark(self, text: str) -> str:
        if text not in self.texts:
            self.texts.append(text)
        return f"[{self.texts.index(text) + 1}]"

    def lines(self) -> list[str]:
        return [f"[{number}] {text}" for number, text in enumerate(self.texts, start=1)]


def format_cell(summary: Summary, row: Row, runner: str, footnotes: Footnotes) -> str:
    """``1.234 (2.41x)``, ``n/a [1]`` (unavailable), ``failed [2]`` or ``-`` (not run)."""
    cell = summary.get((row.case, runner))
    if cell is None:
        return MISSING
    title = RUNNERS_BY_NAME[runner].title if runner in RUNNERS_BY_NAME else runner
    notes = "".join(footnotes.mark(f"{title}, {row.case}: {problem}") for problem in dict.fromkeys(cell.problems))
    value = cell.median(row.metric)
    if value is None:
        reasons = cell.problems + cell.missing.get(row.metric, [])
        notes += "".join(
            footnotes.mark(f"{title}, {row_title(row)}: {reason}")
            for reason in dict.fromkeys(cell.missing.get(row.metric, []))
        )
        if not reasons:
            return MISSING
        label = "n/a" if all(reason.startswith("unavailable") for reason in reasons) else "failed"
        return f"{label} {notes}"
    text = format_number(value, row.digits)
    if runner != BASELINE:
        baseline = summary.get((row.case, BASELINE))
        factor = ratio(row, baseline.median(row.metric) if baseline else None, value)
        if factor is not None:
            text += f" ({factor:.2f}x)"
    return f"{text} {notes}" if notes else text


def format_spread(summary: Summary, row: Row, runner: str) -> str:
    cell = summary.get((row.case, runner))
    values = cell.values.get(row.metric) if cell else None
    if not values:
        return MISSING
    return f"{format_number(min(values), row.digits)} - {format_number(max(values), row.digits)} (n={len(values)})"


def row_title(row: Row) -> str:
    return f"{row.label} [{row.unit}]" if row.unit else row.label


def table(
    summary: Summary, runners: list[str], cases: list[str], footnotes: Footnotes, spread: bool = False
) -> list[str]:
    """Markdown table lines: one row per metric of a run case, one column per runner."""
    titles = [RUNNERS_BY_NAME[name].title for name in runners]
    lines = ["| measurement | " + " | ".join(titles) + " |", "| --- | " + " | ".join("---:" for _ in runners) + " |"]
    for row in ROWS:
        if row.case not in cases or not any((row.case, runner) in summary for runner in runners):
            continue
        if spread and row.better is None:
            continue
        cells = [
            format_spread(summary, row, runner) if spread else format_cell(summary, row, runner, footnotes)
            for runner in runners
        ]
        lines.append(f"| {row_title(row)} | " + " | ".join(cells) + " |")
    return lines


@dataclasses.dataclass(frozen=True)
class Target:
    """tfkit's median against a peer's: ``tfkit / peer <= bound`` (or ``>= bound`` for throughput).

    With ``peer=None`` the bound is absolute: ``tfkit <= bound`` in the metric's unit; with a tuple of
    runners, tfkit is held to the best of them (the better XLA setting, for ``jit_compile="auto"``).
    """

    description: str
    case: str
    metric: str
    peer: str | tuple[str, ...] | None
    bound: float
    higher_is_better: bool = False


SERVING_CALLS_NEEDED = 1000  # the latency target is judged on the median of at least this many calls


def _targets() -> tuple[Target, ...]:
    labels = {row.case: row.label.split(":")[0] for row in ROWS}
    targets = []
    for case in TRAINING_WORKLOADS:
        label = labels[case]
        floor_bound = {"vae": 0.8, "cnn": 1.0, "transformer": 1.0}.get(case, 1.05)
        first_bound = 1.0 if case == "tfdata" else 1.1
        targets += [
            Target(
                f"{label}: steady epoch, tfkit <= {floor_bound:.2f}x the floor",
                case,
                "epoch_steady_s",
                "raw_tf",
                floor_bound,
            ),
            Target(f"{label}: steady epoch, tfkit <= 0.60x Keras 3", case, "epoch_steady_s", "keras3", 0.6),
            Target(
                f"{label}: first epoch (tracing incl.), tfkit <= {first_bound:.2f}x the floor",
                case,
                "epoch_first_s",
                "raw_tf",
                first_bound,
            ),
            Target(
                f"{label}: whole run (first + steady epochs), jit_compile='auto' <= 1.05x the better of XLA off and on",
                case,
                "run_s",
                XLA_RUNNERS,
                1.05,
            ),
        ]
        if case in JAX_CASES:
            targets += [
                Target(f"{label}: {words}, tfkit <= Keras 3 on JAX", case, metric, "keras3_jax", 1.0)
                for metric, words in (
                    ("epoch_steady_s", "steady epoch"),
                    ("epoch_first_s", "first epoch (tracing incl.)"),
                    ("run_s", "whole fit"),
                )
            ]
    targets += [
        Target(
            "VAE predict throughput: tfkit >= 0.90x the floor",
            "predict",
            "predict_samples_per_s",
            "raw_tf",
            0.9,
            higher_is_better=True,
        ),
        Target("VAE predict, first call: tfkit <= Keras 3", "predict", "predict_first_s", "keras3", 1.0),
        Target(
            f"VAE SavedModel 1-sample latency (median of >= {SERVING_CALLS_NEEDED:,} calls): "
            f"tfkit's export <= tf-keras's",
            "predict",
            "serving_latency_ms",
            "tf_keras",
            1.0,
        ),
    ]
    for case in GRAPH_CASES:
        label = GRAPH_LABELS[case].split(": ", 1)[1]
        targets += [
            Target(f"{label}: build per layer call, tfkit <= Keras 3", case, "build_ms_per_call", "keras3", 1.0),
            Target(f"{label}: load_model per layer call, tfkit <= Keras 3", case, "load_ms_per_call", "keras3", 1.0),
        ]
    targets += [
        Target("Dense chain of 4,000 calls: load_model under 2 s", "graph_chain4000", "load_s", None, 2.0),
        Target("Guide VAE: load_model, tfkit's .h5 <= 1.5x Keras 3's .keras", "vae_load", "load_s", "keras3", 1.5),
    ]
    targets += [Target(*fields) for fields in pretrained.target_fields()]  # issue 56: tfkit.hub vs KerasHub on JAX
    return tuple(targets)


XLA_RUNNERS = ("tfkit_xla_off", "tfkit_xla_on")
TARGETS: tuple[Target, ...] = _targets()


def _with_unit(value: float, metric: str) -> str:
    row = next((row for row in ROWS if row.metric == metric), None)
    digits, unit = (row.digits, row.unit) if row else (3, "")
    return f"{format_number(value, digits)} {unit}".rstrip()


def _title(peer: str | tuple[str, ...]) -> str:
    if isinstance(peer, tuple):
        return "the better of " + " and ".join(_title(name) for name in peer)
    return RUNNERS_BY_NAME[peer].title if peer in RUNNERS_BY_NAME else peer


def _reference(summary: Summary, target: Target) -> tuple[Cell | None, float | None]:
    """The cell and median tfkit is held to: the peer's, or the best of several runners' (all measured)."""
    names = target.peer if isinstance(target.peer, tuple) else (target.peer,)
    cells = [summary.get((target.case, name)) for name in names]
    values = [cell.median(target.metric) if cell else None for cell in cells]
    if any(value is None for value in values):
        return None, None
    pick = max if target.higher_is_better else min
    best = pick(range(len(values)), key=lambda index: values[index])
    return cells[best], values[best]


def in_process_factor(in_process: list[dict[str, Any]] | None, target: Target) -> tuple[float, int] | None:
    """tfkit / peer for ``target`` from the in-process A/B (median of the per-pair ratios, pairs), if it has it."""
    if not in_process or not isinstance(target.peer, str) or target.higher_is_better:
        return None
    from bench import inprocess

    for result in in_process:
        if result.get("case") == target.case:
            ratios = inprocess.pair_ratios(result.get("rounds", []), BASELINE, target.metric, baseline=target.peer)
            return (statistics.median(ratios), len(ratios)) if ratios else None
    return None


PAIRED_BY_REPEAT = ("keras3_jax",)  # peers that cannot share tfkit's process: judged on per-repeat pairs


def repeat_pair_ratios(summary: Summary, target: Target) -> list[float]:
    """tfkit / peer for each repeat both measured: their jobs ran one after the other in that repeat."""
    mine, theirs = summary.get((target.case, BASELINE)), summary.get((target.case, target.peer))
    if mine is None or theirs is None:
        return []
    a, b = mine.by_repeat.get(target.metric, {}), theirs.by_repeat.get(target.metric, {})
    return [a[repeat] / b[repeat] for repeat in sorted(set(a) & set(b)) if a[repeat] > 0 and b[repeat] > 0]


def target_lines(summary: Summary, in_process: list[dict[str, Any]] | None = None) -> list[str]:
    """The targets: met or missed with the numbers, or not measured.

    A target against a peer that ran in the in-process A/B is judged on that figure (the median of the
    per-pair ratios); the cross-process medians are quoted beside it. Keras 3 on JAX runs in its own
    process: with two or more repeats, its targets are judged on the median of the per-repeat ratios
    (each repeat runs tfkit's job and JAX's one after the other), so drift between repeats cancels.
    """
    lines = []
    for target in TARGETS:
        pairs = repeat_pair_ratios(summary, target) if target.peer in PAIRED_BY_REPEAT else []
        if len(pairs) >= 2:
            factor = statistics.median(pairs)
            met = factor >= target.bound if target.higher_is_better else factor <= target.bound
            verdict = "met" if met else "missed"
            lines.append(
                f"- {target.description}: median of {len(pairs)} per-repeat ratios tfkit / "
                f"{_title(target.peer)} = {factor:.2f}x ({min(pairs):.2f}-{max(pairs):.2f}; target "
                f"{'>=' if target.higher_is_better else '<='} "
                f"{target.bound:.2f}x) -> **{verdict}**" + _cross_process_aside(summary, target)
            )
            continue
        paired = in_process_factor(in_process, target)
        if paired is not None:
            factor, pairs = paired
            verdict = "met" if factor <= target.bound else "missed"
            lines.append(
                f"- {target.description}: in-process A/B, median of {pairs} per-pair ratios tfkit / "
                f"{_title(target.peer)} = {factor:.2f}x (target <= {target.bound:.2f}x) -> **{verdict}**"
                + _cross_process_aside(summary, target)
            )
            continue
        mine = summary.get((target.case, BASELINE))
        a = mine.median(target.metric) if mine else None
        if target.peer is None:
            if a is None:
                lines.append(f"- {target.description}: not measured in this run")
            else:
                verdict = "met" if a <= target.bound else "missed"
                lines.append(
                    f"- {target.description}: tfkit {_with_unit(a, target.metric)} "
                    f"(target <= {_with_unit(target.bound, target.metric)}) -> **{verdict}**"
                )
            continue
        theirs, b = _reference(summary, target)
        if mine is None or theirs is None or a is None or b is None or b <= 0 or a <= 0:
            lines.append(f"- {target.description}: not measured in this run")
            continue
        factor = a / b  # tfkit relative to the peer, in the metric's own direction
        met = factor >= target.bound if target.higher_is_better else factor <= target.bound
        verdict = "met" if met else "missed"
        if target.metric == "serving_latency_ms":
            calls = min(cell.median("serving_calls") or 0 for cell in (mine, theirs))
            if calls < SERVING_CALLS_NEEDED:
                verdict = (
                    f"not judged ({verdict} on a median of {calls:,.0f} calls; "
                    f"the target needs >= {SERVING_CALLS_NEEDED:,})"
                )
        peer = _title(target.peer)
        sign = ">=" if target.higher_is_better else "<="
        lines.append(
            f"- {target.description}: tfkit {_with_unit(a, target.metric)} vs {peer} "
            f"{_with_unit(b, target.metric)} = {factor:.2f}x (target {sign} {target.bound:.2f}x) "
            f"-> **{verdict}**"
        )
    return lines


def _cross_process_aside(summary: Summary, target: Target) -> str:
    mine, theirs = summary.get((target.case, BASELINE)), summary.get((target.case, target.peer))
    a = mine.median(target.metric) if mine else None
    b = theirs.median(target.metric) if theirs else None
    if a is None or b is None or b <= 0:
        return ""
    return f" (cross-process medians: {_with_unit(a, target.metric)} vs {_with_unit(b, target.metric)} = {a / b:.2f}x)"


def parameter_lines(summary: Summary, runners: list[str], cases: list[str]) -> list[str]:
    """Trainable parameters each runner built, per training case (they should agree)."""
    rows = []
    for case in cases:
        counts = {runner: summary[(case, runner)].info.get("params") for runner in runners if (case, runner) in summary}
        if not any(value is not None for value in counts.values()):
            continue
        cells = [
            MISSING
            if counts.get(runner) is None
            else format_number(counts[runner], 0)
            if isinstance(counts[runner], (int, float))
            else str(counts[runner])
            for runner in runners
        ]
        known = {value for value in counts.values() if isinstance(value, (int, float))}
        rows.append(f"| {case} | " + " | ".join(cells) + f" | {'yes' if len(known) == 1 else 'NO'} |")
    if not rows:
        return []
    titles = [RUNNERS_BY_NAME[name].title for name in runners]
    return [
        "| case | " + " | ".join(titles) + " | same |",
        "| --- | " + " | ".join("---:" for _ in runners) + " | --- |",
    ] + rows


_PATH = re.compile(r"(?<![\w.:/~-])(?:~|\.{1,2})?/(?:[^\s/`'\"()\[\],;:]+/)+([^\s/`'\"()\[\],;:]+)")


def scrub_paths(text: str) -> str:
    """Absolute paths of the machine a run happened on, reduced to their last part (``<...>/name``)."""
    return _PATH.sub(lambda match: f"<...>/{match.group(1)}", text)


def machine_info() -> dict[str, str]:
    """CPU model, cores, RAM, OS and Python, read without third-party imports."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = "unknown"
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemTotal"):
                    memory = f"{int(line.split()[1]) / 1024**2:.1f} GiB"
                    break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "CPU": cpu,
        "cores": f"{os.cpu_count()} logical, {usable} usable by this process",
        "RAM": memory,
        "OS": platform.platform(),
        "Python": sys.version.split()[0],
    }


def package_versions() -> dict[str, str]:
    """Installed versions of TensorFlow, Keras 3, tf-keras, JAX and numpy (metadata only, no imports)."""
    from importlib import metadata

    versions = {}
    for label, distributions in (
        ("TensorFlow", ("tensorflow", "tensorflow-cpu")),  # the same package under either name
        ("Keras", ("keras",)),
        ("tf-keras", ("tf-keras",)),
        ("JAX", ("jax",)),
        ("numpy", ("numpy",)),
    ):
        versions[label] = "not installed"
        for distribution in distributions:
            try:
                versions[label] = metadata.version(distribution)
                break
            except metadata.PackageNotFoundError:
                continue
    return versions


_INFO_SHOWN_ELSEWHERE = ("tfkit_file", "keras_version", "params")


def settings_lines(summary: Summary, runners: list[str]) -> list[str]:
    """What each runner ran with: its named settings and what its framework resolved (per case if it varies)."""
    lines = []
    for name in runners:
        runner = RUNNERS_BY_NAME[name]
        named = ", ".join(f"{key}={value}" for key, value in runner.settings.items()) or "defaults"
        resolved: dict[str, list[str]] = {}  # details -> the cases that resolved to them
        for (case, runner_name), cell in summary.items():
            if runner_name == name and cell.info:
                details = ", ".join(
                    f"{key}={value}" for key, value in cell.info.items() if key not in _INFO_SHOWN_ELSEWHERE
                )
                if details:
                    resolved.setdefault(details, []).append(case)
        if len(resolved) <= 1:
            lines.append(f"- {runner.title}: {named}" + "".join(f" (resolved: {details})" for details in resolved))
        else:
            lines.append(
                f"- {runner.title}: {named}"
                + "".join(f"\n  - {', '.join(cases)}: {details}" for details, cases in resolved.items())
            )
    return lines


HEADER = f"""# Performance

Generated by `tools/bench.py`; rerun it instead of editing this file. Every
measurement runs in its own subprocess; runners are interleaved (tfkit, Keras 3,
tf-keras, raw TF, tfkit, ...) and the whole plan is repeated; each cell is the
median over repeats. Ratios in parentheses are "how many times better tfkit is":
peer / tfkit for times and memory, tfkit / peer for throughput, so above 1 means
tfkit wins. "Steady state" is the median epoch time of epochs 2..k (wall time
between consecutive epoch ends); the first epoch is timed from the call of `fit`
and includes tracing. The raw TF floor runs each epoch as one `tf.function` with
in-graph batching and Adam written out by hand, no XLA. Every runner uses its
framework's default settings (fit with `verbose=0`) unless its column names one.
"Data size" divides the steady epoch by the rows (MNIST subset or tiled): flat
means cost grows linearly with the data. "Memory" is the process's current
resident set size (not its peak) after epoch 1 and after epoch {MEMORY_EPOCHS} of the VAE.
"Graph" builds a functional model (after one warm-up build) and loads it from the
file its framework wrote (tfkit's `.h5`, Keras's own `.keras`), per symbolic layer
call (a layer shared by 400 calls counts 400); "Guide VAE" loads the guide's
compiled, trained VAE the same way (tools/bench/graphs.py).
tfkit's default `jit_compile="auto"` times both compiled forms on the first steps
and keeps the faster; the "tfkit XLA off" / "tfkit XLA on" columns pin each form so
"whole fit" shows whether the choice paid, compile time included. The "1 intra-op
thread" columns run the VAE with `TF_NUM_INTRAOP_THREADS=1` (every other column
uses TensorFlow's default, one per core): what splitting each small op across the
cores costs, a process-wide setting a user may make and no framework makes. "Arithmetic"
counts one training step's FLOPs from tfkit's traced `train_step` (an RNN's loop
once per timestep, `Einsum` from its equation, results nothing uses left out) and
divides each runner's epoch FLOPs by its steady epoch.
"Keras 3 on JAX" runs Keras 3 with `KERAS_BACKEND=jax` (its own process: XLA
compiles the whole step), the custom-`train_step` VAE in keras-io's JAX spelling;
its targets are judged on the median of the per-repeat ratios (tfkit's job and
JAX's run one after the other in each repeat).

The same compiled loop moves 1.3-2x between processes on this shared machine, so
the targets against a TensorFlow peer are judged on the **in-process A/B**
(tools/bench/inprocess.py): tfkit, the floor, Keras 3 and tf-keras loaded into one
process, a fresh fit of each in turn (order rotated, a warm-up round first), the
median of the per-round ratios with their spread. Start-up (import, cold start)
pairs fresh processes round by round, and serving latency interleaves the calls of
every export in one process (tools/serving_latency.py). The cross-process medians
above stay as a second view. Timings are never asserted by the test suite.
"""


def render(summary: Summary, runners: list[str], cases: list[str], context: dict[str, Any]) -> str:
    """The whole report: header, machine and versions, settings, table, spread, targets, notes."""
    footnotes = Footnotes()
    lines = [HEADER]
    if context.get("quick"):
        lines += [
            "**Quick smoke run** (`--quick`): the numbers are for checking that the tool "
            "works, not for judging targets.",
            "",
        ]
    lines += ["## Run", ""]
    lines += [
        f"- Date: {context['date']}",
        f"- Command: `{context['command']}`",
        f"- Repeats: {context['repeats']} (each cell is the median of that many runs); epochs: {context['epochs']}",
        f"- tfkit: {context.get('tfkit_version', 'unknown')}",
        f"- Load average (1 min) at start / end: {context.get('load_start', '?')} / {context.get('load_end', '?')}",
        f"- Wall time of the run: {context.get('wall', '?')}",
    ]
    lines += [f"- {key}: {value}" for key, value in context["machine"].items()]
    lines += [f"- {key}: {value}" for key, value in context["versions"].items()]
    lines += ["", "## Settings", ""] + settings_lines(summary, runners)
    lines += ["", "## Results (medians)", ""] + table(summary, runners, cases, footnotes)
    if int(context.get("repeats", 1)) > 1:
        lines += ["", "## Spread (min - max over repeats)", ""]
        lines += table(summary, runners, cases, footnotes, spread=True)
    arithmetic_rows = arithmetic.table_lines(
        summary, runners, [case for case in cases if case in TRAINING_WORKLOADS], context.get("matmul_gflops")
    )
    if arithmetic_rows:
        lines += ["", "## Arithmetic (FLOPs counted from tfkit's traced train_step)", ""] + arithmetic_rows
    parameters = parameter_lines(summary, runners, [case for case in cases if case in TRAINING_WORKLOADS])
    if parameters:
        lines += ["", "## Trainable parameters (every runner should build the same model)", ""] + parameters
    lines += pretrained.section_lines(summary)
    lines += extra_sections(context)
    lines += [
        "",
        "## Targets",
        "",
        "tfkit against the floor, Keras 3 (on TensorFlow and on JAX) and tf-keras; a target is met or "
        "missed as the numbers say, judged on the in-process A/B where its peer ran there.",
        "",
    ]
    lines += target_lines(summary, context.get("in_process")) + start_up_target_lines(context)
    if footnotes.texts:
        lines += ["", "## Notes", ""] + [f"{line}  " for line in footnotes.lines()]
    return scrub_paths("\n".join(lines).rstrip() + "\n")


def extra_sections(context: dict[str, Any]) -> list[str]:
    """The in-process A/B, start-up, serving and device-mesh sections a full run adds (each only when it ran)."""
    import mesh_bench  # tools/mesh_bench.py, beside the bench package

    from bench import inprocess, startup

    lines: list[str] = []
    if context.get("in_process"):
        peers = list(context.get("in_process_peers") or inprocess.TF_PEERS)
        lines += [""] + inprocess.render(context["in_process"], peers).rstrip("\n").split("\n")
    if context.get("startup"):
        lines += [""] + startup.render(context["startup"]).rstrip("\n").split("\n")
    serving = context.get("serving")
    if serving:
        exports = serving["exports"]
        first = exports.get(BASELINE) or next(iter(exports.values()))
        lines += [
            "",
            "## Serving latency (tools/serving_latency.py: exports loaded in one process, calls interleaved)",
            "",
            f"The guide's VAE, `serving_default` on one sample, {serving['calls']:,} "
            "calls each. Graph nodes: the operations the signature runs (its graph and the functions it "
            "calls).",
            "",
            "| export | p50 [ms] | p90 [ms] | graph nodes |",
            "| --- | ---: | ---: | ---: |",
        ]
        for label, result in exports.items():
            lines.append(
                f"| {_title(label)} | {result['p50_ms']:.4f} ({result['p50_ms'] / first['p50_ms']:.2f}x) | "
                f"{result['p90_ms']:.4f} ({result['p90_ms'] / first['p90_ms']:.2f}x) | "
                f"{result['nodes']:.0f} |"
            )
    if context.get("mesh"):
        lines += [""] + mesh_bench.section(context["mesh"]).rstrip("\n").split("\n")
    return lines


def start_up_target_lines(context: dict[str, Any]) -> list[str]:
    """Import, cold start and serving latency against their peers (paired rounds / interleaved calls)."""
    from bench import inprocess

    lines = []
    result = context.get("startup")
    for metric, words in (
        ("import_min_s", "import tfkit <= import keras (each in its minimal environment)"),
        ("cold_total_s", "cold start (import, load the 400-call chain, first predict) <= Keras 3"),
    ):
        ratios = inprocess.pair_ratios(result["rounds"], BASELINE, metric, baseline="keras3") if result else []
        if not ratios:
            lines.append(f"- {words}: not measured in this run")
            continue
        factor = statistics.median(ratios)
        lines.append(
            f"- {words}: median of {len(ratios)} paired rounds tfkit / Keras 3 = {factor:.2f}x "
            f"-> **{'met' if factor <= 1.0 else 'missed'}**"
        )
    serving = context.get("serving")
    for metric in ("p50_ms", "p90_ms"):
        exports = serving["exports"] if serving else {}
        if BASELINE not in exports or "tf_keras" not in exports:
            lines.append(f"- Serving latency {metric[:3]}: tfkit's export <= tf-keras's: not measured in this run")
            continue
        factor = exports[BASELINE][metric] / exports["tf_keras"][metric]
        lines.append(
            f"- Serving latency {metric[:3]} (interleaved, {serving['calls']:,} calls): tfkit's export "
            f"{exports[BASELINE][metric]:.4f} ms vs tf-keras's {exports['tf_keras'][metric]:.4f} ms = "
            f"{factor:.2f}x -> **{'met' if factor <= 1.0 else 'missed'}**"
        )
    return lines
