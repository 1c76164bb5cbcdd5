"""Run one target under atheris (libFuzzer) in its own process, and read what libFuzzer reports.

    summary = run(get("pickle"), seconds=60, workdir=Path("~/.cache/tfkit-fuzz"))
    summary["executions"], summary["coverage"], summary["findings"]

The child instruments only the target's reader modules (``Target.modules``), runs
the target's setup, and hands ``Target.check`` to libFuzzer with the committed
seeds and regressions as corpora after the campaign's own (where new inputs go).
libFuzzer stops at the first finding and writes its input to the crashes folder;
a hang past ``Target.timeout`` and a resident size past ``rss_limit_mb`` are
findings too. The parent keeps libFuzzer's log and returns a summary.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fuzzing import corpus
from fuzzing.target import Target, get, warm_up

TOOLS = Path(__file__).resolve().parents[1]
DEFAULT_RSS_LIMIT_MB = 4096
_STATUS = re.compile(r"^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)")
_STAT = re.compile(r"^stat::(\w+):\s+(\d+)")


def _dictionary_file(target: Target, folder: Path) -> Path | None:
    if not target.dictionary:
        return None
    path = folder / "dictionary.txt"
    escaped = (
        "".join(chr(b) if 32 <= b < 127 and b not in b'"\\' else f"\\x{b:02x}" for b in token)
        for token in target.dictionary
    )
    path.write_text("".join(f'kw{i}="{token}"\n' for i, token in enumerate(escaped)))
    return path


def libfuzzer_arguments(
    target: Target, seconds: float, workdir: Path, rss_limit_mb: int, runs: int | None = None, seed: int | None = None
) -> list[str]:
    work_corpus, crashes = corpus.campaign_dirs(workdir, target.name)
    folders = [str(work_corpus)] + [
        str(f) for f in (corpus.seeds_dir(target.name), corpus.regressions_dir(target.name)) if f.is_dir()
    ]
    repeatable = [] if runs is None else [f"-runs={runs}", f"-seed={seed or 1}"]
    arguments = repeatable + [
        f"-max_total_time={max(1, int(seconds))}",
        f"-timeout={target.timeout}",
        f"-rss_limit_mb={rss_limit_mb}",
        f"-max_len={target.max_len}",
        f"-artifact_prefix={crashes}/",
        "-print_final_stats=1",
        "-print_pcs=0",
    ]
    dictionary = _dictionary_file(target, workdir / target.name)
    if dictionary is not None:
        arguments.append(f"-dict={dictionary}")
    return arguments + folders


def parse_log(log: str) -> dict[str, Any]:
    """Executions, coverage, corpus size and findings from libFuzzer's output."""
    summary: dict[str, Any] = {
        "executions": 0,
        "coverage": 0,
        "features": 0,
        "corpus_files": 0,
        "stats": {},
        "findings": [],
    }
    for line in log.splitlines():
        status = _STATUS.match(line)
        if status:
            summary.update(
                executions=int(status[1]), coverage=int(status[3]), features=int(status[4]), corpus_files=int(status[5])
            )
        stat = _STAT.match(line)
        if stat:
            summary["stats"][stat[1]] = int(stat[2])
        if "Test unit written to " in line or "artifact_prefix" in line and "Test unit" in line:
            summary["findings"].append(line.split("Test unit written to ", 1)[-1].strip())
    executions = summary["stats"].get("number_of_executed_units")
    if executions:
        summary["executions"] = executions
    return summary


def _finding_text(log: str) -> str:
    """The traceback or libFuzzer error that ended the run (the last 40 lines before the crash report)."""
    lines = log.splitlines()
    for index, line in enumerate(lines):
        if "Uncaught Python exception" in line or "ERROR: libFuzzer" in line or "==ERROR" in line:
            return "\n".join(lines[index : index + 40])
    return ""


def run(
    target: Target,
    seconds: float,
    workdir: Path,
    rss_limit_mb: int = DEFAULT_RSS_LIMIT_MB,
    runs: int | None = None,
    seed: int | None = None,
) -> dict[str, Any]:
    """Fuzz ``target`` for ``seconds`` in a child process; the summary of the run (also saved beside it).

    With ``runs`` (and ``seed``, default 1), the run stops after that many inputs, made from that seed: the
    same inputs on every machine (what the test suite runs), ``seconds`` then being only an upper bound.
    """
    workdir = Path(workdir).expanduser()
    arguments = libfuzzer_arguments(target, seconds, workdir, rss_limit_mb, runs, seed)
    env = dict(
        os.environ,
        TF_CPP_MIN_LOG_LEVEL="3",
        PYTHONPATH=os.pathsep.join([str(TOOLS)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
    )
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-m", "fuzzing.engine", target.name, *arguments],
        env=env,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=seconds + 600,
    )
    log = done.stdout + done.stderr
    (workdir / target.name / "last_run.log").write_text(log)
    summary = {
        "target": target.name,
        "reader": target.reader,
        "seconds": round(time.time() - started, 1),
        "exit_code": done.returncode,
        **parse_log(log),
    }
    summary["finding"] = _finding_text(log) if done.returncode != 0 else ""
    with open(workdir / target.name / "runs.jsonl", "a") as handle:
        handle.write(json.dumps({key: value for key, value in summary.items() if key != "finding"}) + "\n")
    return summary


def instrument(modules: tuple[str, ...]) -> int:
    """Give atheris's coverage instrumentation to every function defined in ``modules`` (only those).

    ``atheris.instrument_imports`` instruments whole top-level packages (all of tfkit, slowing every call
    it makes tenfold); patching the functions of the reader modules keeps the feedback on the reader.
    """
    import importlib

    import atheris

    functions = [f for module in modules for f in module_functions(importlib.import_module(module))]
    for function in functions:
        atheris.instrument_func(function)  # nested functions and lambdas are patched with their parent
    return len(functions)


def module_functions(module: Any) -> list[Any]:
    """The functions ``module`` defines: top-level ones and the methods of its classes (not imported ones)."""
    import inspect
    import types

    found: dict[int, Any] = {}

    def add(value: Any) -> None:
        value = getattr(value, "__func__", value)  # staticmethod, classmethod
        if isinstance(value, property):
            for accessor in (value.fget, value.fset, value.fdel):
                if accessor is not None:
                    add(accessor)
        elif isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            found[id(value)] = value

    for value in vars(module).values():
        if inspect.isclass(value) and value.__module__ == module.__name__:
            for member in vars(value).values():
                add(member)
        else:
            add(value)
    return list(found.values())


def _child(name: str, arguments: list[str]) -> None:
    import atheris

    target = get(name)
    warm_up(target)  # imports the reader (setup), then its seeds once, uninstrumented
    count = instrument(target.modules + target.guide_modules)
    print(
        f"INFO: instrumented {count} functions of {', '.join(target.modules + target.guide_modules)}", file=sys.stderr
    )
    if target.mutator is None:
        atheris.Setup([sys.argv[0], *arguments], target.check)
    else:
        atheris.Setup([sys.argv[0], *arguments], target.check, custom_mutator=target.mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2:])
