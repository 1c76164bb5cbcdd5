"""Command line of ``tools/bench.py``: parse the options, run the plan, write the report.

    args = cli.parse_args(["--quick", "--peers", "tfkit,raw_tf"])
    args.repeats, args.workloads, args.out    # 1, ['vae', 'predict'], '-'
    cli.main(["--workloads", "vae", "--repeats", "3"])

Only a full run (every workload and peer, not ``--quick``) writes
``docs/PERFORMANCE.md`` by default; any other run prints its report, or writes
where ``--out`` says. A ``--quick`` run never writes ``docs/PERFORMANCE.md``, nor do
``--baseline`` (``bench/baseline.py``: tfkit at an older commit against the working
tree's) and ``--mesh`` (``tools/mesh_bench.py``'s plan: training on 8 logical CPU
devices against Keras 3 on JAX), which print their own section.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import pathlib
import re
import shlex
import signal
import sys
import tempfile
import time
from typing import Any, Iterator

from bench import pretrained, spec

DEFAULT_REPEATS = 5
DEFAULT_OUT = "docs/PERFORMANCE.md"
MESH_EPOCHS = 4  # epochs a mesh run, as tools/mesh_bench.py's default


def _name_list(allowed: tuple[str, ...], what: str):
    def parse(text: str) -> list[str]:
        names = [name.strip() for name in text.split(",") if name.strip()]
        unknown = [name for name in names if name not in allowed]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {', '.join(unknown) or '(none given)'}; expected a comma-separated "
                f"subset of {','.join(allowed)}"
            )
        return list(dict.fromkeys(names))

    return parse


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    import mesh_bench  # tools/mesh_bench.py, beside the bench package

    parser = argparse.ArgumentParser(
        prog="tools/bench.py",
        description="Benchmark tfkit against Keras 3, tf-keras and a hand-written TensorFlow loop.",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 1 repeat, 2 epochs, workloads vae,predict unless --workloads is given",
    )
    parser.add_argument(
        "--repeats",
        type=_positive_int,
        default=None,
        help=f"how many times the whole plan runs (default {DEFAULT_REPEATS}, --quick: 1)",
    )
    parser.add_argument(
        "--workloads",
        type=_name_list(spec.WORKLOADS, "workload"),
        default=None,
        help=f"comma-separated subset of {','.join(spec.WORKLOADS)} (default: all)",
    )
    parser.add_argument(
        "--peers",
        type=_name_list(spec.PEERS, "peer"),
        default=list(spec.PEERS),
        help=f"comma-separated subset of {','.join(spec.PEERS)} (default: all)",
    )
    defaults = ", ".join(f"{key} {value}" for key, value in spec.DEFAULT_EPOCHS.items())
    parser.add_argument(
        "--epochs",
        type=_positive_int,
        default=None,
        help=f"epochs of every training workload (default: {defaults}; --quick: "
        f"{spec.QUICK_EPOCHS}); steady state needs at least 2; the memory workload "
        f"always runs {spec.MEMORY_EPOCHS}",
    )
    parser.add_argument(
        "--out",
        default=None,
        help=f"Markdown report, overwritten; a relative path is taken from the repository "
        f"root ('-' writes none). Default: {DEFAULT_OUT} for a full run (every workload "
        f"and peer, not --quick), else none (the report is printed); --quick never "
        f"writes {DEFAULT_OUT}",
    )
    parser.add_argument("--json", default=None, help="also write every raw measurement to this JSON file")
    parser.add_argument(
        "--resume",
        default=None,
        metavar="FILE",
        help="keep each measurement in FILE as it ends and skip those FILE already holds, so a "
        "stopped run goes on where it stopped (tools/bench/progress.py); refused when FILE "
        "measured other code, versions or options. A finished FILE renders with --from-json",
    )
    parser.add_argument("--from-json", default=None, help="run nothing: render the report of a run saved with --json")
    parser.add_argument(
        "--timeout",
        type=float,
        default=1800.0,
        help="seconds one measurement may take before it counts as failed (default 1800)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run only the in-process A/B of the TensorFlow peers (tools/bench/inprocess.py) "
        "on the training workloads selected; a full run includes it",
    )
    parser.add_argument(
        "--startup",
        action="store_true",
        help="run only the start-up pairs (tools/bench/startup.py): import tfkit / keras / "
        "tensorflow, and a cold start (import, load, first predict), fresh processes",
    )
    parser.add_argument(
        "--pairs",
        type=_positive_int,
        default=None,
        help="counted rounds of the in-process A/B, after one warm-up round (default 10, --quick: 2)",
    )
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="COMMIT",
        help="run only a comparison of tfkit at COMMIT (its tfkit/ extracted with git archive into a temporary "
        "folder) with the working tree's tfkit, in alternating fresh processes on the selected workloads "
        "(default: the training workloads; --quick: vae,predict), --repeats times (tools/bench/baseline.py)",
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=None,
        help="--baseline: the noise margin; a median current / baseline ratio above 1 + MARGIN is flagged "
        "slower (default 0.05)",
    )
    parser.add_argument(
        "--mesh",
        action="store_true",
        help="run only the device-mesh section (tools/mesh_bench.py: tfkit and Keras 3 on JAX on 8 logical "
        "CPU devices, one device / DataParallel / ModelParallel); --repeats rounds (default 2, --quick: 1), "
        f"--epochs a run (default {MESH_EPOCHS}); a full run includes it",
    )
    parser.add_argument(
        "--mesh-models",
        type=_name_list(mesh_bench.MODELS, "mesh model"),
        default=None,
        help=f"the mesh section's models: {','.join(mesh_bench.MODELS)} (default: all; --quick: guide)",
    )
    parser.add_argument(
        "--mirrored", action="store_true", help="the mesh section also runs tfkit under MirroredStrategy (slow)"
    )
    parser.add_argument(
        "--keras-python",
        default=None,
        metavar="PYTHON",
        help="the interpreter that runs the mesh section's Keras 3 on JAX (needs keras and jax; default: this one)",
    )
    parser.add_argument(
        "--torch-python",
        default=None,
        metavar="PYTHON",
        help="the interpreter that runs the pretrained workload's Transformers on PyTorch peer (needs torch, "
        "transformers and h5py; peft for the LoRA case); without it that column is unavailable",
    )
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--in-process-worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--prepare-data", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--prepare-presets", default=None, help=argparse.SUPPRESS)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse and fill in the defaults that depend on ``--quick``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.quick and args.out is not None and _is_default_out(args.out):
        parser.error(f"a --quick run does not write {DEFAULT_OUT} (only a full run does); pass another --out, or '-'")
    if args.resume is not None and (
        args.in_process or args.startup or args.from_json is not None or args.baseline or args.mesh
    ):
        parser.error(
            "--resume keeps the progress of a benchmark run; --in-process, --startup, --baseline, --mesh and "
            "--from-json runs are not resumed"
        )
    modes = [name for name in ("in_process", "startup", "baseline", "mesh") if getattr(args, name)]
    if len(modes) > 1 or (modes and args.from_json is not None):
        parser.error("--in-process, --startup, --baseline, --mesh and --from-json each run alone: pick one")
    if (args.baseline or args.mesh) and args.out is not None and _is_default_out(args.out):
        parser.error(f"only a full run writes {DEFAULT_OUT}; pass another --out, or '-'")
    if args.margin is not None and (not args.baseline or args.margin < 0):
        parser.error("--margin goes with --baseline, and is not negative")
    if args.repeats is None:
        args.repeats = 1 if args.quick else 2 if args.mesh else DEFAULT_REPEATS
    if args.pairs is None:
        args.pairs = 2 if args.quick else inprocess_defaults()[0]
    if args.margin is None:
        from bench import baseline

        args.margin = baseline.DEFAULT_MARGIN
    if args.mesh_models is None:
        args.mesh_models = ["guide"] if args.quick else ["guide", "mlp4x1024"]
    if args.mesh and args.epochs == 1:
        parser.error("--mesh needs --epochs 2 or more: the first epoch is reported apart from the steady ones")
    args.mesh_epochs = max(args.epochs or MESH_EPOCHS, 2)  # a full run's mesh section: at least 2 too
    if args.keras_python is None:
        args.keras_python = sys.executable
    if args.workloads is None and args.baseline:  # the workloads the targets are judged on
        args.workloads = list(spec.QUICK_WORKLOADS if args.quick else spec.TRAINING_WORKLOADS)
    elif args.workloads is None:
        args.workloads = list(spec.QUICK_WORKLOADS if args.quick else spec.WORKLOADS)
    if args.epochs is not None:
        args.epoch_counts = {key: args.epochs for key in spec.DEFAULT_EPOCHS}
    elif args.quick:
        args.epoch_counts = {key: spec.QUICK_EPOCHS for key in spec.DEFAULT_EPOCHS}
    else:
        args.epoch_counts = dict(spec.DEFAULT_EPOCHS)
    if args.out is None and args.from_json is None:
        full = is_full_run(args.quick, args.workloads, args.peers) and not (args.baseline or args.mesh)
        args.out = DEFAULT_OUT if full else "-"
    return args


def inprocess_defaults() -> tuple[int, int]:
    """(pairs, epochs per fit) of the in-process A/B."""
    from bench import inprocess

    return inprocess.DEFAULT_PAIRS, inprocess.DEFAULT_EPOCHS


def run_in_process(args: argparse.Namespace, progress: Any = None, clock: Any = lambda: 0.0) -> list[dict[str, Any]]:
    """The in-process A/B of every selected training case, one worker process per case; a case that
    ``progress`` (a ``bench.progress.Progress``) holds is not run again, and each one run is kept there."""
    from bench import inprocess, orchestrate

    cases = [case for case in args.workloads if case in spec.TRAINING_WORKLOADS]
    peers = [peer for peer in inprocess.TF_PEERS if peer in args.peers]
    if spec.BASELINE not in peers or len(peers) < 2 or not cases:
        return []
    epochs = spec.QUICK_EPOCHS if args.quick else inprocess.DEFAULT_EPOCHS
    env = orchestrate.base_env()
    results = []
    with tempfile.TemporaryDirectory(prefix="tfkit_bench_ab_data_") as data_dir:
        orchestrate.prepare_data(data_dir, env, timeout=args.timeout)
        for case in cases:
            if progress is not None and case in progress.in_process:
                results.append(progress.in_process[case])
                continue
            print(f"in-process A/B: {case}, {args.pairs} pairs of {'/'.join(peers)}", file=sys.stderr, flush=True)
            results.append(
                inprocess.run_case(
                    case, peers, args.pairs, epochs, data_dir, env, timeout=args.timeout * (args.pairs + 1)
                )
            )
            if progress is not None and "signal" not in results[-1]:
                progress.set_in_process(case, results[-1], clock())
    return results


def run_serving_latency(env: dict[str, str], timeout: float, calls: int = 3000) -> dict[str, Any] | None:
    """``tools/serving_latency.py --vae`` in its own process: p50, p90 and graph nodes of each export."""
    import subprocess

    from bench import orchestrate

    with tempfile.TemporaryDirectory(prefix="tfkit_bench_serving_") as directory:
        out = pathlib.Path(directory) / "serving.json"
        completed = subprocess.run(
            [
                sys.executable,
                str(orchestrate.TOOLS_DIR / "serving_latency.py"),
                "--vae",
                "--calls",
                str(calls),
                "--json",
                str(out),
            ],
            env=env,
            cwd=orchestrate.REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if completed.returncode != 0 or not out.exists():
            print(f"serving latency failed: {completed.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            return None
        return json.loads(out.read_text())


def is_full_run(quick: bool, workloads: list[str], peers: list[str]) -> bool:
    """Whether a run may write docs/PERFORMANCE.md: every workload, every peer, not --quick."""
    return not quick and set(workloads) == set(spec.WORKLOADS) and set(peers) == set(spec.PEERS)


def _is_default_out(out: str) -> bool:
    from bench import orchestrate

    path = pathlib.Path(out)
    path = path if path.is_absolute() else orchestrate.REPO_ROOT / path
    return path.resolve() == (orchestrate.REPO_ROOT / DEFAULT_OUT).resolve()


_PATH_OPTIONS = ("--json", "--out", "--from-json", "--resume", "--keras-python", "--torch-python")


def public_command(argv: list[str]) -> str:
    """The command line for the report, with file arguments reduced to their names (no machine paths)."""
    shown, after_path_option = [], False
    for arg in argv:
        if after_path_option:
            arg, after_path_option = (arg if arg == "-" else pathlib.PurePath(arg).name), False
        elif arg in _PATH_OPTIONS:
            after_path_option = True
        elif "=" in arg and arg.split("=", 1)[0] in _PATH_OPTIONS:
            option, value = arg.split("=", 1)
            arg = f"{option}={value if value == '-' else pathlib.PurePath(value).name}"
        shown.append(arg)
    return "python tools/bench.py" + (" " + shlex.join(shown) if shown else "")


def runners_in(records: list[dict[str, Any]]) -> list[str]:
    """The table's columns: runners with at least one record, in the fixed order."""
    used = {record["job"]["runner"] for record in records}
    return [runner.name for runner in spec.RUNNERS if runner.name in used]


def cases_in(records: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(record["job"]["case"] for record in records))


def render_records(records: list[dict[str, Any]], context: dict[str, Any]) -> str:
    """The Markdown report of a run's raw records."""
    from bench import report

    return report.render(report.aggregate(records), runners_in(records), cases_in(records), context)


def run_epochs(workloads: list[str], epoch_counts: dict[str, int]) -> str:
    """The epochs of the selected workloads for the report's Run line (``"vae 5, memory 10"``); the pretrained
    workload's fine-tuning epochs are fixed (``pretrained.FINE_TUNE_EPOCHS``)."""
    parts = [f"{key} {value}" for key, value in epoch_counts.items() if key in workloads]
    if "memory" in workloads:
        parts.append(f"memory {spec.MEMORY_EPOCHS}")
    if "pretrained" in workloads:
        parts.append(f"pretrained fine-tuning {pretrained.FINE_TUNE_EPOCHS}")
    return ", ".join(parts) or "none"


def _tfkit_version(repo_root: pathlib.Path) -> str:
    try:
        text = (repo_root / "tfkit" / "base" / "version.py").read_text()
    except OSError:
        return "unknown"
    match = re.search(r'^VERSION\s*=\s*"([^"]+)"', text, re.MULTILINE)
    version = match.group(1) if match else "unknown"
    commit = _git_commit(repo_root)
    return f"{version} (commit {commit[:10]})" if commit else version


def _git_commit(repo_root: pathlib.Path) -> str | None:
    """HEAD's commit read from the files, without running git (a checkout or a worktree)."""
    try:
        git_dir = repo_root / ".git"
        if git_dir.is_file():  # a worktree: ".git" holds "gitdir: <path>"
            git_dir = (repo_root / git_dir.read_text().split(":", 1)[1].strip()).resolve()
        common = git_dir
        if (git_dir / "commondir").is_file():
            common = (git_dir / (git_dir / "commondir").read_text().strip()).resolve()
        head = (git_dir / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head
        ref = head[5:]
        for base in (git_dir, common):
            if (base / ref).is_file():
                return (base / ref).read_text().strip()
        for line in (common / "packed-refs").read_text().splitlines():
            if line.endswith(" " + ref):
                return line.split()[0]
    except (OSError, IndexError):
        pass
    return None


def load_average() -> str:
    """The 1-minute load average, as text ("?" where the system has none)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "?"


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Inside this block, SIGTERM (``kill``, a session's end) unwinds the run as Ctrl-C does: the job's worker
    is killed, the temporary data folder removed, and ``--resume`` keeps what had ended."""

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"stopped by signal {signum}")

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: signals stay as they are
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_benchmark(args: argparse.Namespace, argv: list[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run every job ``args.repeats`` times, interleaved, each case's runners in turn first; return the records and the run's facts."""
    from bench import data, orchestrate, pretrained, report

    jobs = spec.plan_jobs(args.workloads, args.peers, args.epoch_counts, quick=args.quick)
    if not jobs:
        raise SystemExit("nothing to run: no selected peer runs the selected workloads")
    started, load_start = time.perf_counter(), load_average()
    progress = run_progress(args, orchestrate.REPO_ROOT, report.package_versions())
    load_start = progress.sections.setdefault("load_start", load_start)

    def clock() -> float:
        return time.perf_counter() - started

    env = orchestrate.base_env()
    records: list[dict[str, Any]] = []
    given_up: set[tuple[str, str]] = set()  # (case, runner) found unavailable: not retried
    with tempfile.TemporaryDirectory(prefix="tfkit_bench_data_") as data_dir:
        presets = pretrained.models_for(job.case for job in jobs)  # the pretrained workload's, built by KerasHub
        print(f"preparing data{' and presets' if presets else ''} in {data_dir} ...", file=sys.stderr, flush=True)
        orchestrate.prepare_data(data_dir, env, timeout=args.timeout, presets=presets)
        if "matmul_gflops" not in progress.sections:
            progress.set_section("matmul_gflops", data.matmul_rate(data_dir), clock())
        for repeat in range(1, args.repeats + 1):
            for job in spec.rotated(jobs, repeat):
                if (job.case, job.runner) in given_up:
                    continue
                record = progress.record_for(repeat, job.case, job.runner)
                if record is None:
                    print(
                        f"[{repeat}/{args.repeats}] {job.case:<19} {job.runner:<16}",
                        end=" ",
                        file=sys.stderr,
                        flush=True,
                    )
                    python = orchestrate.python_for(job.peer, args.torch_python)
                    result = orchestrate.run_job(job, data_dir, env, timeout=args.timeout, python=python)
                    brief = result.get("reason") or ", ".join(
                        f"{key}={value:.4g}" for key, value in result["metrics"].items() if key != "epochs_run"
                    )
                    print(f"{result['wall_s']:6.1f} s  {result['status']}: {brief}", file=sys.stderr, flush=True)
                    record = {"repeat": repeat, "job": job.to_json(), "result": result}
                    if "signal" not in result:
                        progress.add_record(record, clock())
                if record["result"]["status"] == "unavailable":
                    given_up.add((job.case, job.runner))
                records.append(record)
    extra: dict[str, Any] = {}
    if is_full_run(args.quick, args.workloads, args.peers):  # the paired figures the targets are judged on
        from bench import inprocess, startup

        extra["in_process"] = run_in_process(args, progress, clock)
        extra["in_process_peers"] = [peer for peer in inprocess.TF_PEERS if peer in args.peers]
        if "startup" not in progress.sections:
            print("start-up pairs ...", file=sys.stderr, flush=True)
            progress.set_section("startup", startup.run_rounds(args.pairs, env, timeout=args.timeout), clock())
        extra["startup"] = progress.sections["startup"]
        if progress.sections.get("serving") is None:  # None: it failed, and is tried again
            progress.set_section("serving", run_serving_latency(env, timeout=args.timeout), clock())
        extra["serving"] = progress.sections["serving"]
        if "mesh" not in progress.sections:
            print("device mesh (tools/mesh_bench.py) ...", file=sys.stderr, flush=True)
            progress.set_section("mesh", run_mesh(args, env), clock())
        extra["mesh"] = progress.sections["mesh"]
    total = progress.total_seconds(clock())
    context = {
        **extra,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": public_command(argv),
        "repeats": args.repeats,
        "epochs": run_epochs(args.workloads, args.epoch_counts),
        "quick": args.quick,
        "full": is_full_run(args.quick, args.workloads, args.peers),
        "tfkit_version": _tfkit_version(orchestrate.REPO_ROOT),
        "load_start": load_start,
        "load_end": load_average(),
        "wall": f"{total:.0f} s" + (f" in {progress.sittings} sittings (--resume)" if progress.sittings > 1 else ""),
        "machine": report.machine_info(),
        "versions": report.package_versions(),
        "matmul_gflops": progress.sections["matmul_gflops"],
    }
    progress.finish(context, clock())
    return records, context


def run_progress(args: argparse.Namespace, repo_root: pathlib.Path, versions: dict[str, str]) -> Any:
    """The run's ``bench.progress.Progress``: read from ``--resume``'s file, or kept in memory only."""
    from bench import progress

    identity = {
        "code": progress.code_fingerprint(repo_root),
        "versions": versions,
        "options": {
            "repeats": args.repeats,
            "workloads": args.workloads,
            "peers": args.peers,
            "epochs": args.epoch_counts,
            "pairs": args.pairs,
            "quick": args.quick,
            "torch_python": args.torch_python,
            "mesh": {
                "models": args.mesh_models,
                "epochs": args.mesh_epochs,
                "mirrored": args.mirrored,
                "keras_python": args.keras_python,
            },
        },
    }
    if args.resume is None:
        return progress.Progress(None, identity)
    return progress.Progress.open(args.resume, identity)


def run_mesh(args: argparse.Namespace, env: dict[str, str] | None = None) -> dict[str, Any]:
    """``tools/mesh_bench.py``'s plan with this run's options: ``--repeats`` rounds, ``--epochs`` a run
    (default 4), ``--mesh-models``, ``--mirrored``, ``--keras-python`` for Keras 3 on JAX."""
    import mesh_bench  # tools/mesh_bench.py, beside the bench package

    return mesh_bench.run_plan(
        args.mesh_models, args.repeats, args.mesh_epochs, args.mirrored, args.keras_python, args.timeout, env
    )


def write_out(text: str, out: str) -> None:
    """Print ``text``; also write it to ``out`` (relative: to the repository root) unless ``out`` is '-'."""
    print(text, end="")
    if out == "-":
        return
    from bench import orchestrate

    path = pathlib.Path(out)
    if not path.is_absolute():
        path = orchestrate.REPO_ROOT / path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"wrote {path}", file=sys.stderr)


def _stopped(stop: KeyboardInterrupt, resume: str | None = None) -> int:
    kept = f"; `--resume {resume}` goes on from what ended" if resume else ""
    print(f"\nthe run was stopped ({stop or 'Ctrl-C'}){kept}", file=sys.stderr)
    return 130


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.worker is not None:
        from bench import worker

        return worker.main(args.worker)
    if args.in_process_worker is not None:
        from bench import inprocess

        return inprocess.worker_main(args.in_process_worker)
    if args.startup:
        from bench import orchestrate, startup

        result = startup.run_rounds(args.pairs, orchestrate.base_env(), timeout=args.timeout)
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps({"startup": result}, indent=1))
        print(startup.render(result), end="")
        return 0
    if args.in_process:
        from bench import inprocess

        results = run_in_process(args)
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps({"in_process": results}, indent=1))
        peers = [peer for peer in inprocess.TF_PEERS if peer in args.peers]
        print(inprocess.render(results, peers), end="")
        return 0
    if args.prepare_data is not None:
        from bench import data

        data.prepare(args.prepare_data)
        return 0
    if args.prepare_presets is not None:
        from bench import pretrained_presets

        return pretrained_presets.main(args.prepare_presets)
    if args.mesh:
        import mesh_bench

        from bench import orchestrate

        try:
            with sigterm_as_interrupt():
                result = run_mesh(args, orchestrate.base_env())
        except KeyboardInterrupt as stop:
            return _stopped(stop)
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps({"mesh": result}, indent=1))
        write_out(mesh_bench.section(result), args.out)
        return 0
    if args.baseline:
        from bench import baseline

        try:
            with sigterm_as_interrupt():  # the checkout's folder is removed however the run ends
                records, context = baseline.run(args, public_command(argv))
        except KeyboardInterrupt as stop:
            return _stopped(stop)
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps({"context": context, "records": records}, indent=1))
        write_out(baseline.render(records, context), args.out)
        return 0
    if args.from_json is not None:
        saved = json.loads(pathlib.Path(args.from_json).read_text())
        if "baseline_commit" in saved.get("context", {}):  # a --baseline run's file
            from bench import baseline

            if args.out is not None and _is_default_out(args.out):
                raise SystemExit(f"a --baseline run's report does not go to {DEFAULT_OUT}; pass another --out, or '-'")
            write_out(baseline.render(saved["records"], saved["context"]), args.out or "-")
            return 0
        records, context = saved["records"], saved["context"]
        if args.out is None:  # a saved full run goes where a full run goes
            full = context.get("full", not context.get("quick", False))
            args.out = DEFAULT_OUT if full else "-"
        if context.get("quick") and _is_default_out(args.out):
            raise SystemExit(f"a --quick run's report does not go to {DEFAULT_OUT}; pass another --out, or '-'")
    else:
        try:
            with sigterm_as_interrupt():
                records, context = run_benchmark(args, argv)
        except KeyboardInterrupt as stop:
            return _stopped(stop, args.resume)
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps({"context": context, "records": records}, indent=1))
    write_out(render_records(records, context), args.out)
    return 0
