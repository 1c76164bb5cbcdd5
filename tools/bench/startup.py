"""Start-up costs, one fresh process per measurement, paired: import, and a cold start.

    python tools/bench.py --startup --pairs 10

* ``import``: the time of ``import tfkit`` against ``import keras`` (Keras 3 on
  its TensorFlow backend) and ``import tensorflow`` alone, each timed inside a
  fresh interpreter around the import statement. ``beyond TF`` is a framework's
  import minus TensorFlow's in the same round: what the framework itself costs.
* ``cold``: what a serving process or a script pays before its first answer: a
  fresh interpreter imports the framework, loads the 400-call Dense chain from
  the file its framework wrote (tfkit's ``.h5`` through the guarded reader,
  Keras's ``.keras``) and predicts one sample.

A round runs every peer once, the order rotated each round; the per-pair ratio
is peer / tfkit within a round (above 1: tfkit is faster). Processes cannot share
an interpreter for these, so the pairing is of consecutive processes: drift
slower than a few seconds still cancels in the ratio.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from typing import Any

from bench import spec

PEERS: tuple[str, ...] = ("tfkit", "keras3")
CHAIN_CALLS = 400

_IMPORT = {
    "tensorflow": "import tensorflow",
    "tfkit": "import tfkit",
    "keras3": "import keras",
}

_PREPARE = {
    "tfkit": "import tfkit as ns\nsave = lambda model, path: model.save(path)\nsuffix = '.h5'",
    "keras3": "import keras as ns\nsave = lambda model, path: model.save(path)\nsuffix = '.keras'",
}

_COLD = {
    "tfkit": ("import tfkit", "model = tfkit.load_model(PATH)"),
    "keras3": ("import keras", "model = keras.saving.load_model(PATH)"),
}


def _timed_script(steps: list[tuple[str, str]]) -> str:
    """Python source that runs each (name, code) step, timing it, and prints the times as JSON."""
    lines = ["import json, time", "times = {}"]
    for name, code in steps:
        lines += ["start = time.perf_counter()", code, f"times[{name!r}] = time.perf_counter() - start"]
    lines.append("print('STARTUP ' + json.dumps(times))")
    return "\n".join(lines)


def _run(source: str, env: dict[str, str], timeout: float) -> dict[str, float]:
    completed = subprocess.run([sys.executable, "-c", source], env=env, capture_output=True, text=True,
                               timeout=timeout)
    for line in reversed(completed.stdout.splitlines()):
        if line.startswith("STARTUP "):
            return json.loads(line[len("STARTUP "):])
    raise RuntimeError(f"exit {completed.returncode}: {completed.stderr.strip().splitlines()[-1:]}")


def prepare_models(directory: str, env: dict[str, str], timeout: float) -> dict[str, str]:
    """The chain model written by each framework in its own format; {peer: path}."""
    from bench import orchestrate

    paths = {}
    for peer, setup in _PREPARE.items():
        source = "\n".join([
            setup, "import sys; sys.path.insert(0, %r)" % str(orchestrate.TOOLS_DIR),
            "from bench import graphs",
            f"model, _ = graphs.chain(ns, {CHAIN_CALLS})",
            f"path = {directory!r} + '/chain' + suffix", "save(model, path)",
            "print('STARTUP ' + __import__('json').dumps({'path': path}))"])
        paths[peer] = _run(source, orchestrate.peer_env(peer, env), timeout)["path"]
    return paths


def run_rounds(pairs: int, env: dict[str, str], timeout: float) -> dict[str, Any]:
    """``pairs`` counted rounds (after a warm-up round) of the import and cold-start processes."""
    from bench import orchestrate

    rounds: list[dict[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="tfkit_bench_startup_") as directory:
        paths = prepare_models(directory, env, timeout)
        importers = list(_IMPORT)
        for number in range(pairs + 1):
            values: dict[str, dict[str, float]] = {}
            shift = number % len(importers)
            for peer in importers[shift:] + importers[:shift]:
                values.setdefault(peer, {}).update(
                    _run(_timed_script([("import_s", _IMPORT[peer])]), orchestrate.peer_env(peer, env), timeout))
            for peer in PEERS[number % 2:] + PEERS[:number % 2]:
                imports, load = _COLD[peer]
                script = _timed_script([("cold_import_s", imports),
                                        ("cold_load_s", f"PATH = {paths[peer]!r}\n{load}"),
                                        ("cold_first_call_s", "model.predict(__import__('numpy').ones("
                                                              "(1, 16), 'float32'), verbose=0)")])
                times = _run(script, orchestrate.peer_env(peer, env), timeout)
                times["cold_total_s"] = sum(times.values())
                values[peer].update(times)
            for peer in PEERS:
                values[peer]["beyond_tf_s"] = values[peer]["import_s"] - values["tensorflow"]["import_s"]
            if number:
                rounds.append(values)
            print(f"  startup round {number}/{pairs}: " + ", ".join(
                f"{peer} import {v['import_s']:.2f} s" for peer, v in values.items()), file=sys.stderr, flush=True)
    return {"pairs": pairs, "rounds": rounds}


ROWS: tuple[tuple[str, str], ...] = (
    ("import_s", "import (in a fresh process) [s]"),
    ("beyond_tf_s", "import beyond `import tensorflow` [s]"),
    ("cold_total_s", "cold start: import + load 400-call chain + first predict [s]"),
    ("cold_import_s", "cold start: import [s]"),
    ("cold_load_s", "cold start: load_model [s]"),
    ("cold_first_call_s", "cold start: first predict [s]"),
)


def render(result: dict[str, Any]) -> str:
    """Markdown: median per peer, median per-pair ratio peer / tfkit with its lowest - highest."""
    from bench import inprocess

    titles = {"tfkit": "tfkit", "keras3": "Keras 3", "tensorflow": "TensorFlow alone"}
    columns = ["tfkit", "keras3", "tensorflow"]
    lines = ["## Start-up (fresh processes, paired)", "",
             f"{result['pairs']} rounds after a warm-up round; each cell is the median, and in parentheses the "
             "median of the per-round ratios peer / tfkit (above 1: tfkit is faster) with their lowest - "
             "highest.", "",
             "| measurement | " + " | ".join(titles[c] for c in columns) + " |",
             "| --- |" + " ---: |" * len(columns)]
    for metric, label in ROWS:
        cells = []
        for column in columns:
            summary = inprocess.summarize(result, column, metric)
            if column == "tensorflow" and metric != "import_s":
                summary = None
            cells.append("-" if summary is None else inprocess.format_cell(summary, column == spec.BASELINE))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
