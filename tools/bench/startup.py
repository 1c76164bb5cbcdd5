"""Start-up costs, one fresh process per measurement, paired: import, and a cold start.

    python tools/bench.py --startup --pairs 10

* ``import``: the time of ``import tfkit`` against ``import keras`` (Keras 3 on
  its TensorFlow backend) and ``import tensorflow`` alone, each timed inside a
  fresh interpreter around the import statement. ``beyond TF`` is the median of
  a framework's import times minus the median of ``import tensorflow``'s: what
  the framework itself costs, a difference of medians in seconds, with no ratio
  (a ratio of two such differences, a few tens of ms each, is a ratio of noise).
* ``cold``: what a serving process or a script pays before its first answer: a
  fresh interpreter imports the framework, loads the 400-call Dense chain from
  the file its framework wrote (tfkit's ``.h5`` through the guarded reader,
  Keras's ``.keras``) and predicts one sample.

Each import is timed twice: in the benchmark's environment, where Keras 3, tf-keras,
JAX and scikit-learn are all installed, and in a *minimal* one, a view of the same
site-packages without the packages the framework does not need
(``minimal_site``): TensorFlow's own ``__init__`` imports ``keras.src.optimizers``
whenever Keras 3 is installed (and Keras its scikit-learn wrappers, TensorFlow Lite
JAX when they are), so in a shared environment ``import tensorflow`` already pays
for Keras. A tfkit user's environment holds TensorFlow and tfkit; a Keras user's,
TensorFlow and Keras.

Every package is timed from bytecode, as a pip install of a wheel leaves it:
``ensure_bytecode`` compiles tfkit's sources first (Keras and TensorFlow arrive
compiled). Without it, a machine with ``PYTHONDONTWRITEBYTECODE`` set (this
project's development machines, CI likely too) recompiles all of tfkit's ~390 modules in
every process, which made ``import tfkit`` look 5x slower than it is.

A round runs every peer once, the order rotated each round; the per-pair ratio
is peer / tfkit within a round (above 1: tfkit is faster). Processes cannot share
an interpreter for these, so the pairing is of consecutive processes: drift
slower than a few seconds still cancels in the ratio.
"""

from __future__ import annotations

import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
from typing import Any

from bench import spec

PEERS: tuple[str, ...] = ("tfkit", "keras3")
CHAIN_CALLS = 400

_IMPORT = {"tensorflow": "import tensorflow", "tfkit": "import tfkit", "keras3": "import keras"}

# what each minimal environment leaves out of site-packages (top-level names, dist-info names alike)
_NOT_NEEDED = {
    "tensorflow": ("keras", "tf_keras", "jax", "jaxlib", "jax_plugins", "sklearn", "scikit_learn"),
    "tfkit": ("keras", "tf_keras", "jax", "jaxlib", "jax_plugins", "sklearn", "scikit_learn"),
    "keras3": ("tf_keras", "jax", "jaxlib", "jax_plugins", "sklearn", "scikit_learn"),
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


def _run(source: str, env: dict[str, str], timeout: float, python_flags: tuple[str, ...] = ()) -> dict[str, float]:
    completed = subprocess.run(
        [sys.executable, *python_flags, "-c", source], env=env, capture_output=True, text=True, timeout=timeout
    )
    for line in reversed(completed.stdout.splitlines()):
        if line.startswith("STARTUP "):
            return json.loads(line[len("STARTUP ") :])
    raise RuntimeError(f"exit {completed.returncode}: {completed.stderr.strip().splitlines()[-1:]}")


def minimal_site(directory: str, leave_out: tuple[str, ...]) -> str:
    """A folder of links to this environment's site-packages entries, less those named in ``leave_out``."""
    import os
    import sysconfig

    site = sysconfig.get_paths()["purelib"]
    view = os.path.join(directory, "site-" + "-".join(sorted(set(leave_out)))[:80])
    os.makedirs(view, exist_ok=True)
    for entry in os.listdir(site):
        top = entry.split("-")[0].split(".")[0]
        if top not in leave_out and not os.path.exists(os.path.join(view, entry)):
            os.symlink(os.path.join(site, entry), os.path.join(view, entry))
    return view


def _in_minimal_site(source: str, site: str) -> str:
    """``source`` run by ``python -S`` with only ``site`` (and the repository) on the path."""
    from bench import orchestrate

    return "\n".join(
        [f"import site, sys; site.addsitedir({site!r}); sys.path.insert(0, {str(orchestrate.REPO_ROOT)!r})", source]
    )


def _run_minimal(source: str, site: str, env: dict[str, str], timeout: float) -> dict[str, float]:
    return _run(_in_minimal_site(source, site), env, timeout, python_flags=("-S",))


def prepare_models(directory: str, env: dict[str, str], timeout: float) -> dict[str, str]:
    """The chain model written by each framework in its own format; {peer: path}."""
    from bench import orchestrate

    paths = {}
    for peer, setup in _PREPARE.items():
        source = "\n".join(
            [
                setup,
                "import sys; sys.path.insert(0, %r)" % str(orchestrate.TOOLS_DIR),
                "from bench import graphs",
                f"model, _ = graphs.chain(ns, {CHAIN_CALLS})",
                f"path = {directory!r} + '/chain' + suffix",
                "save(model, path)",
                "print('STARTUP ' + __import__('json').dumps({'path': path}))",
            ]
        )
        paths[peer] = _run(source, orchestrate.peer_env(peer, env), timeout)["path"]
    return paths


def ensure_bytecode(package: pathlib.Path | None = None) -> None:
    """Compile tfkit's modules to ``__pycache__``, as installing a wheel does (up-to-date ones are skipped).

    Args:
        package: The ``tfkit`` folder to compile; None: this repository's.
    """
    import compileall

    from bench import orchestrate

    package = orchestrate.REPO_ROOT / "tfkit" if package is None else package
    if not compileall.compile_dir(str(package), quiet=1):
        raise RuntimeError(f"could not compile {package} to bytecode")


def run_rounds(pairs: int, env: dict[str, str], timeout: float) -> dict[str, Any]:
    """``pairs`` counted rounds (after a warm-up round) of the import and cold-start processes."""
    from bench import orchestrate

    rounds: list[dict[str, dict[str, float]]] = []
    ensure_bytecode()
    with tempfile.TemporaryDirectory(prefix="tfkit_bench_startup_") as directory:
        paths = prepare_models(directory, env, timeout)
        sites = {peer: minimal_site(directory, leave_out) for peer, leave_out in _NOT_NEEDED.items()}
        importers = list(_IMPORT)
        for number in range(pairs + 1):
            values: dict[str, dict[str, float]] = {}
            shift = number % len(importers)
            for peer in importers[shift:] + importers[:shift]:
                values.setdefault(peer, {}).update(
                    _run(_timed_script([("import_s", _IMPORT[peer])]), orchestrate.peer_env(peer, env), timeout)
                )
                values[peer].update(
                    _run_minimal(
                        _timed_script([("import_min_s", _IMPORT[peer])]),
                        sites[peer],
                        orchestrate.peer_env(peer, env),
                        timeout,
                    )
                )
            for peer in PEERS[number % 2 :] + PEERS[: number % 2]:
                imports, load = _COLD[peer]
                script = _timed_script(
                    [
                        ("cold_import_s", imports),
                        ("cold_load_s", f"PATH = {paths[peer]!r}\n{load}"),
                        ("cold_first_call_s", "model.predict(__import__('numpy').ones((1, 16), 'float32'), verbose=0)"),
                    ]
                )
                times = _run(script, orchestrate.peer_env(peer, env), timeout)
                times["cold_total_s"] = sum(times.values())
                values[peer].update(times)
            if number:
                rounds.append(values)
            print(
                f"  startup round {number}/{pairs}: "
                + ", ".join(f"{peer} import {v['import_s']:.2f} s" for peer, v in values.items()),
                file=sys.stderr,
                flush=True,
            )
    return {"pairs": pairs, "rounds": rounds}


_BEYOND = "import beyond `import tensorflow` (median - median of `import tensorflow`, no ratio)"
ROWS: tuple[tuple[str, str], ...] = (
    ("import_min_s", "import, minimal environment (TensorFlow + the framework) [s]"),
    ("beyond_tf_min_s", f"{_BEYOND}, minimal environment [s]"),
    ("import_s", "import, shared environment (Keras, tf-keras, JAX, scikit-learn installed) [s]"),
    ("beyond_tf_s", f"{_BEYOND}, shared environment [s]"),
    ("cold_total_s", "cold start: import + load 400-call chain + first predict [s]"),
    ("cold_import_s", "cold start: import [s]"),
    ("cold_load_s", "cold start: load_model [s]"),
    ("cold_first_call_s", "cold start: first predict [s]"),
)
# rows that are a difference of medians: the import metric they are computed from
BEYOND_TF: dict[str, str] = {"beyond_tf_min_s": "import_min_s", "beyond_tf_s": "import_s"}


def beyond_tf(result: dict[str, Any], peer: str, metric: str) -> float | None:
    """The median of ``peer``'s ``metric`` (an import time) minus the median of ``import tensorflow``'s.

    Args:
        result: What ``run_rounds`` returned.
        peer: A name from ``PEERS``.
        metric: ``import_s`` (shared environment) or ``import_min_s`` (minimal environment).

    Returns:
        Seconds (negative when the framework's median is the lower), or None when either side has
        no times. A difference of medians, never a median of per-round differences or a ratio.
    """
    sides = [
        [values[name][metric] for values in result["rounds"] if metric in values.get(name, {})]
        for name in (peer, "tensorflow")
    ]
    if not all(sides):
        return None
    return statistics.median(sides[0]) - statistics.median(sides[1])


def render(result: dict[str, Any]) -> str:
    """Markdown: median per peer, median per-pair ratio peer / tfkit with its lowest - highest."""
    from bench import inprocess

    titles = {"tfkit": "tfkit", "keras3": "Keras 3", "tensorflow": "TensorFlow alone"}
    columns = ["tfkit", "keras3", "tensorflow"]
    lines = [
        "## Start-up (fresh processes, paired)",
        "",
        f"{result['pairs']} rounds after a warm-up round; each cell is the median, and in parentheses the "
        "median of the per-round ratios peer / tfkit (above 1: tfkit is faster) with their lowest - "
        "highest. The two *beyond `import tensorflow`* rows are the median import time minus the median "
        "`import tensorflow` time of the same environment, in seconds: a difference of medians, with no "
        "ratio.",
        "",
        "| measurement | " + " | ".join(titles[c] for c in columns) + " |",
        "| --- |" + " ---: |" * len(columns),
    ]
    for metric, label in ROWS:
        if metric in BEYOND_TF:
            values = [beyond_tf(result, column, BEYOND_TF[metric]) if column in PEERS else None for column in columns]
            lines.append(f"| {label} | " + " | ".join("-" if v is None else f"{v:+.3f}" for v in values) + " |")
            continue
        cells = []
        for column in columns:
            summary = inprocess.summarize(result, column, metric)
            if column == "tensorflow" and metric not in ("import_s", "import_min_s"):
                summary = None
            cells.append("-" if summary is None else inprocess.format_cell(summary, column == spec.BASELINE))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
