"""Run keras-io example scripts with `keras` replaced by `tfkit`, and with Keras itself.

    python tools/keras_io_sweep.py --examples /work/keras_io_examples --backend both
    python tools/keras_io_sweep.py --examples DIR --only vision/mnist_convnet --backend tfkit
    python tools/keras_io_sweep.py --report-only   # rewrite docs/KERAS_IO_SWEEP.md from the cache

Each example (a plain `.py` file under `<examples>/<category>/`) is rewritten in its
imports only (`import keras` -> `import tfkit as keras`, `from keras.x import y` ->
`from tfkit.x import y`, the old `tensorflow.keras` spellings likewise), prefixed with a
small prelude and run in its own subprocess with a timeout.  The prelude:

* caps training with `config.set_max_epochs(1)` and `config.set_max_steps_per_epoch(3)`;
* blocks the network (the sweep machines have none; a blocked connection fails fast
  with a recognisable message, so the run is classified "needs data");
* optionally (`--fake-datasets`, on by default) replaces the built-in
  `datasets.<name>.load_data()` loaders other than MNIST with random arrays of the
  real shapes and dtypes (fewer rows), so the model code runs; MNIST is real
  (`TFKIT_DATA_DIR`, and a Keras cache folder holding the same `mnist.npz`); with it,
  two downloads are faked the same way: `utils.get_file("moving_mnist.npy", ...)` and
  `pandas.read_csv(".../heart.csv")`;
* selects the TensorFlow backend for Keras (`KERAS_BACKEND` lines in an example are
  rewritten to "tensorflow", the only backend tfkit has and the only one installed);
* uses the non-interactive matplotlib backend.

Results are cached as JSON (`build/keras_io_sweep.json`) and written as a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CACHE = ROOT / "build" / "keras_io_sweep.json"
DEFAULT_DOC = ROOT / "docs" / "KERAS_IO_SWEEP.md"
DEFAULT_DATA = (ROOT / ".." / "shared" / "datasets").resolve()

# --------------------------------------------------------------------------- rewrite

_IMPORT_RULES = [
    # (pattern, replacement template); {lib} is "tfkit" or "keras".
    (r"^(\s*)from tensorflow import keras\s*$", r"\1import {lib} as keras"),
    (r"^(\s*)import tensorflow\.keras as (\w+)\s*$", r"\1import {lib} as \2"),
    (r"^(\s*)from tensorflow\.keras import ", r"\1from {lib} import "),
    (r"^(\s*)from tensorflow\.keras\.", r"\1from {lib}."),
    (r"^(\s*)import keras\s*$", r"\1import {lib} as keras"),
    (r"^(\s*)import keras as (\w+)\s*$", r"\1import {lib} as \2"),
    (r"^(\s*)import keras\.([\w.]+) as (\w+)\s*$", r"\1import {lib}.\2 as \3"),
    (r"^(\s*)from keras import ", r"\1from {lib} import "),
    (r"^(\s*)from keras\.", r"\1from {lib}."),
]
_BACKEND_LINE = re.compile(r"""^(\s*os\.environ\[["']KERAS_BACKEND["']\]\s*=\s*)["']\w+["']""")


def rewrite_source(source: str, lib: str) -> str:
    """Rewrites the Keras imports of `source` to import `lib` ("tfkit" or "keras")."""
    if lib not in ("tfkit", "keras"):
        raise ValueError(f"rewrite_source: lib must be 'tfkit' or 'keras', got {lib!r}")
    out = []
    for line in source.splitlines():
        for pattern, template in _IMPORT_RULES:
            new = re.sub(pattern, template.replace("{lib}", lib), line)
            if new != line:
                line = new
                break
        line = _BACKEND_LINE.sub(r'\1"tensorflow"', line)
        out.append(line)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- prelude

_PRELUDE = """\
# ---- keras_io_sweep prelude (not part of the example) ----
import os as _sw_os, socket as _sw_socket, sys as _sw_sys
import numpy as _sw_np
_sw_os.environ.setdefault("MPLBACKEND", "Agg")
def _sw_no_net(*a, **k):
    raise OSError("SWEEP_NO_NETWORK: this machine has no internet access")
_sw_socket.socket.connect = _sw_no_net
_sw_socket.create_connection = _sw_no_net
_sw_socket.getaddrinfo = _sw_no_net
import {lib} as _sw_lib
_sw_lib.config.set_max_epochs(1)
_sw_lib.config.set_max_steps_per_epoch(3)
_SW_FAKE = {fake}
_SW_SHAPES = {{
    "cifar10": ((32, 32, 3), "uint8", 10, (1, )),
    "cifar100": ((32, 32, 3), "uint8", 100, (1, )),
    "fashion_mnist": ((28, 28), "uint8", 10, ()),
}}
def _sw_fake_images(name):
    shape, dtype, classes, yshape = _SW_SHAPES[name]
    def load_data(*a, **k):
        r = _sw_np.random.default_rng(0)
        def part(n):
            x = r.integers(0, 256, (n,) + shape).astype(dtype)
            y = r.integers(0, classes, (n,) + yshape).astype("uint8" if classes <= 255 else "int64")
            return x, y
        return part(512), part(128)
    return load_data
def _sw_fake_sequences(num_words_default):
    def load_data(path=None, num_words=None, maxlen=None, **k):
        r = _sw_np.random.default_rng(0)
        top = num_words or num_words_default
        def part(n):
            lengths = r.integers(20, maxlen or 200, n)
            x = _sw_np.empty(n, dtype=object)
            for i, length in enumerate(lengths):
                x[i] = [1] + r.integers(2, top, length).tolist()
            return x, r.integers(0, 2, n).astype("int64")
        return part(512), part(128)
    return load_data
def _sw_fake_regression(features):
    def load_data(*a, **k):
        r = _sw_np.random.default_rng(0)
        def part(n):
            return r.normal(size=(n, features)), r.normal(size=(n,)) * 10 + 20
        return part(404), part(102)
    return load_data
if _SW_FAKE:
    import importlib as _sw_il
    _sw_fakes = {{name: _sw_fake_images(name) for name in _SW_SHAPES}}
    _sw_fakes["imdb"] = _sw_fake_sequences(88584)
    _sw_fakes["reuters"] = _sw_fake_sequences(30979)
    _sw_fakes["boston_housing"] = _sw_fake_regression(13)
    _sw_fakes["california_housing"] = _sw_fake_regression(8)
    for _sw_name, _sw_fn in _sw_fakes.items():
        try:
            _sw_mod = _sw_il.import_module("{lib}.datasets." + _sw_name)
        except ImportError:
            continue
        _sw_mod.load_data = _sw_fn
if {patch_keras_mnist} and _sw_os.environ.get("SWEEP_MNIST"):
    # Keras checks the canonical zip's hash; the local copy holds the same arrays in
    # a rebuilt zip, so hand its path to the MNIST loader directly.
    import keras.src.datasets.mnist as _sw_km
    _sw_get_file = _sw_km.get_file
    def _sw_local_get_file(fname=None, origin=None, **k):
        if fname == "mnist.npz":
            return _sw_os.environ["SWEEP_MNIST"]
        return _sw_get_file(fname=fname, origin=origin, **k)
    _sw_km.get_file = _sw_local_get_file
if _SW_FAKE:
    # Downloads a few examples need, replaced by random data of the real layout (fewer rows).
    def _sw_fake_file(name):
        r = _sw_np.random.default_rng(0)
        if name in ("moving_mnist.npy", "mnist_test_seq.npy"):
            # Moving MNIST: (20 frames, 10000 sequences, 64, 64) uint8; 40 sequences here
            path = _sw_os.path.abspath("moving_mnist.npy")
            _sw_np.save(path, r.integers(0, 256, (20, 40, 64, 64)).astype("uint8"))
            return path
        return None
    _sw_utils = _sw_il.import_module("{lib}.utils")
    _sw_real_get_file = _sw_utils.get_file
    def _sw_get_file(fname=None, origin=None, *a, **k):
        fake = _sw_fake_file(_sw_os.path.basename(str(fname or origin or "")))
        return fake if fake else _sw_real_get_file(fname, origin, *a, **k)
    _sw_utils.get_file = _sw_get_file
    def _sw_fake_heart_csv():
        # heart.csv (Cleveland heart disease, 303 rows): the columns and value ranges of the real file
        import pandas as _sw_pd
        r = _sw_np.random.default_rng(0)
        n = 303
        return _sw_pd.DataFrame({{
            "age": r.integers(29, 78, n), "sex": r.integers(0, 2, n), "cp": r.integers(0, 5, n),
            "trestbps": r.integers(94, 201, n), "chol": r.integers(126, 565, n),
            "fbs": r.integers(0, 2, n), "restecg": r.integers(0, 3, n),
            "thalach": r.integers(71, 203, n), "exang": r.integers(0, 2, n),
            "oldpeak": _sw_np.round(r.uniform(0, 6.2, n), 1), "slope": r.integers(1, 4, n),
            "ca": r.integers(0, 4, n),
            "thal": r.choice(["fixed", "normal", "reversible"], n).astype(object),
            "target": r.integers(0, 2, n),
        }})
    if {patch_pandas}:
        import pandas as _sw_pd0
        _sw_real_read_csv = _sw_pd0.read_csv
        def _sw_read_csv(path, *a, **k):
            if str(path).endswith("/heart.csv"):
                return _sw_fake_heart_csv()
            return _sw_real_read_csv(path, *a, **k)
        _sw_pd0.read_csv = _sw_read_csv
try:
    import matplotlib.pyplot as _sw_plt
    _sw_plt.show = lambda *a, **k: None
except ImportError:
    pass
# ---- end of prelude; the example follows ----
"""


def build_script(source: str, lib: str, fake_datasets: bool) -> str:
    """The example rewritten for `lib`, with the sweep prelude in front."""
    body = rewrite_source(source, lib)
    future = [l for l in body.splitlines() if l.startswith("from __future__ import")]
    rest = "\n".join(l for l in body.splitlines() if not l.startswith("from __future__ import"))
    # tf.keras.datasets.mnist is Keras's own loader even in a tfkit run: give it the local copy too
    patch_keras_mnist = lib == "keras" or "tf.keras.datasets" in source
    # pandas is imported by the prelude only for the examples that read a faked CSV
    patch_pandas = "heart.csv" in source
    prelude = _PRELUDE.format(
        lib=lib, fake=bool(fake_datasets), patch_keras_mnist=patch_keras_mnist, patch_pandas=patch_pandas
    )
    return "\n".join(future) + "\n" + prelude + rest + "\n"


# --------------------------------------------------------------------------- classify

_NEEDS_DATA = (
    "SWEEP_NO_NETWORK",
    "URL fetch failure",
    "urlopen error",
    "get_file",
    "tensorflow_datasets",
    "kagglehub",
    "Temporary failure in name resolution",
    "wget",
    "curl:",
    "HTTPError",
    "No such file or directory",
    "not found in cache",
    "Name or service not known",
    # tf.io / tf.data reading a gs:// or https:// path
    "Error executing an HTTP request",
    "libcurl code",
    # tfkit's *_dataset_from_directory on a folder that was never downloaded (Keras: FileNotFoundError)
    "is not a folder",
)
_SKIP_FRAMES = ("/prelude", "<frozen", "site-packages/numpy", "/threading.py")


def classify(rc: Optional[int], stderr: str, lib: str) -> Dict[str, str]:
    """Maps a finished run to {"result": ..., "reason": ...}."""
    if rc is None:
        return {"result": "timeout", "reason": ""}
    if rc == 0:
        return {"result": "passed", "reason": ""}
    if rc < 0 and "Traceback (most recent call last)" not in stderr:
        return {"result": "failed", "reason": f"the process died of signal {-rc} (a crash inside TensorFlow)"}
    stderr = re.sub(r"\x1b\[[0-9;]*m", "", stderr)  # Keras colours its messages
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    err = ""
    for line in reversed(lines):
        if line.endswith("in user code:"):
            continue  # TensorFlow's wrapper line; the real message comes after it
        if re.match(r"^[\w.]+(Error|Exception|Exit|Interrupt)\b", line):
            err = line
            break
    if not err and lines:
        err = lines[-1].strip()
    if "Exception encountered when calling" in err and err in lines:
        # Keras puts the real message on the next non-empty line
        follow = lines[lines.index(err) + 1 : lines.index(err) + 2]
        err = err + " " + follow[0] if follow else err
    if "TBNotInstalledError" in err:
        return {"result": "needs package", "reason": "tensorboard"}
    if "plot_model" in err and ("raphviz" in err or "pydot" in err):
        return {"result": "needs package", "reason": "graphviz (plot_model)"}
    missing = re.search(r"No module named '([\w.]+)'", err)
    if missing and not missing.group(1).startswith(("tfkit", "keras")):
        return {"result": "needs package", "reason": missing.group(1).split(".")[0]}
    if any(marker in stderr for marker in _NEEDS_DATA) or re.search(r"(Error|error).*https?://", err):
        return {"result": "needs data", "reason": _short(err)}
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', stderr)
    where = ""
    lib_frames = [f for f in frames if f"/{lib}/" in f[0]]
    own = [f for f in frames if f[0].endswith("example.py")]
    pick = lib_frames[-1] if lib_frames else (own[-1] if own else (frames[-1] if frames else None))
    if pick:
        path = pick[0]
        if f"/{lib}/" in path:
            path = lib + "/" + path.split(f"/{lib}/", 1)[1]
        elif path.endswith("example.py"):
            path = "example"
        where = f" ({path}:{pick[1]} in {pick[2]})"
    return {"result": "failed", "reason": _short(err) + where}


def _short(text: str, limit: int = 220) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- run


def run_example(
    path: Path, lib: str, timeout: float, fake_datasets: bool, data_dir: Path, keep_logs: Optional[Path] = None
) -> Dict[str, object]:
    """Runs one example under `lib` in a fresh temporary folder; returns its record."""
    script = build_script(path.read_text(encoding="utf-8"), lib, fake_datasets)
    with tempfile.TemporaryDirectory(prefix="kio_sweep_") as work:
        work_dir = Path(work)
        (work_dir / "example.py").write_text(script, encoding="utf-8")
        keras_home = work_dir / "keras_home"
        (keras_home / "datasets").mkdir(parents=True)
        mnist = data_dir / "mnist.npz"
        if mnist.exists():
            shutil.copy(mnist, keras_home / "datasets" / "mnist.npz")
        env = dict(os.environ)
        env.update(
            {
                "TFKIT_DATA_DIR": str(data_dir),
                "KERAS_HOME": str(keras_home),
                "KERAS_BACKEND": "tensorflow",
                "MPLBACKEND": "Agg",
                "TF_CPP_MIN_LOG_LEVEL": "2",
                "SWEEP_MNIST": str(mnist) if mnist.exists() else "",
                "PYTHONPATH": os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])),
            }
        )
        start = time.time()
        try:
            proc = subprocess.run(
                [sys.executable, "example.py"], cwd=work_dir, env=env, capture_output=True, text=True, timeout=timeout
            )
            rc, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:
            rc = None
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        seconds = time.time() - start
    record = classify(rc, err, lib)
    record["seconds"] = round(seconds, 1)
    if keep_logs is not None:
        keep_logs.mkdir(parents=True, exist_ok=True)
        name = f"{path.parent.name}__{path.stem}__{lib}.log"
        (keep_logs / name).write_text(
            f"----- exit status {rc} -----\n" + out[-20000:] + "\n----- stderr -----\n" + err[-40000:]
        )
    return record


def find_examples(root: Path, only: List[str]) -> List[Path]:
    """`<root>/<category>/<name>.py`, sorted, filtered by `only` ("category/name" prefixes)."""
    found = sorted(p for p in root.glob("*/*.py") if not p.name.startswith("_"))
    if only:
        found = [p for p in found if any(f"{p.parent.name}/{p.stem}".startswith(o) for o in only)]
    return found


# --------------------------------------------------------------------------- report

_ORDER = ("passed", "failed", "needs data", "needs package", "timeout")


def write_report(results: Dict[str, Dict[str, dict]], doc: Path, command: str) -> None:
    """Writes the Markdown table and totals for every example in `results`."""
    rows = []
    totals = {lib: {k: 0 for k in _ORDER} for lib in ("tfkit", "keras")}
    for key in sorted(results):
        category, name = key.split("/", 1)
        rec = results[key]
        cells = []
        for lib in ("tfkit", "keras"):
            r = rec.get(lib)
            if r:
                totals[lib][r["result"]] += 1
            cells.append(r["result"] if r else "not run")
        reason = ""
        t = rec.get("tfkit")
        if t and t["result"] != "passed":
            reason = t["reason"]
            k = rec.get("keras")
            if t["result"] == "failed" and k and k["result"] == "failed":
                reason += " (fails under Keras too: " + k["reason"] + ")"
        elif t and (k := rec.get("keras")) and k["result"] != "passed":
            reason = f"(passes under tfkit; Keras: {k['result']}: {k['reason']})"
        note = rec.get("note", "")
        if note:
            reason = (reason + "; " if reason else "") + note
        rows.append(f"| {name} | {category} | {cells[0]} | {cells[1]} | {reason} |")
    lines = [
        "# keras-io examples with `keras` replaced by `tfkit`",
        "",
        "Generated by `tools/keras_io_sweep.py`. Each example from keras-io "
        "(keras-team/keras-io, `examples/<category>/`) had only its Keras imports rewritten "
        "and was run once with tfkit and once with Keras 3.15 (TensorFlow backend), under the "
        "same prelude: `config.set_max_epochs(1)`, `config.set_max_steps_per_epoch(3)`, no "
        "network, built-in `datasets.*.load_data()` other than MNIST replaced by random "
        "arrays of the real shapes/dtypes (MNIST is the real local copy), matplotlib `Agg`.",
        "",
        "Results: **passed**; **failed** (first error line, and where: the deepest tfkit frame, "
        "else the example line); **needs data** (a download: no internet on this machine); "
        "**needs package** (a module that is not installed); **timeout**.",
        "",
        "## Totals",
        "",
        "| result | tfkit | keras |",
        "| --- | --- | --- |",
    ]
    for k in _ORDER:
        lines.append(f"| {k} | {totals['tfkit'][k]} | {totals['keras'][k]} |")
    lines.append(f"| total | {sum(totals['tfkit'].values())} | {sum(totals['keras'].values())} |")
    lines += [
        "",
        "## Examples",
        "",
        "| example | category | tfkit | keras | reason (tfkit) |",
        "| --- | --- | --- | --- | --- |",
    ] + rows
    lines += [
        "",
        "## Reproduce",
        "",
        "The example sources are reference data and are not in "
        "this repository: save keras-io `examples/<category>/<name>.py` files as "
        "`<dir>/<category>/<name>.py`, then run from the project root:",
        "",
        "```",
        command,
        "```",
        "",
    ]
    extra = doc.with_name(doc.stem + "_NOTES.md")
    if extra.exists():
        lines += [extra.read_text(encoding="utf-8")]
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text("\n".join(lines), encoding="utf-8")


def _reclassify_from_logs(results: Dict[str, Dict[str, dict]], logs: Path) -> None:
    """Re-derives the reason of every non-passing record from its kept log (after a classifier change)."""
    for key, per_lib in results.items():
        for lib, rec in per_lib.items():
            log = logs / f"{key.replace('/', '__')}__{lib}.log"
            if rec["result"] in ("passed", "timeout") or not log.exists():
                continue
            text = log.read_text()
            status = re.match(r"----- exit status (-?\d+) -----", text)
            rc = int(status.group(1)) if status else 1
            rec.update(classify(rc, text.split("----- stderr -----\n", 1)[-1], lib))


# --------------------------------------------------------------------------- main


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=Path, default=Path("/work/keras_io_examples"))
    parser.add_argument("--backend", choices=("tfkit", "keras", "both"), default="both")
    parser.add_argument("--only", nargs="*", default=[], help="category/name prefixes")
    parser.add_argument("--timeout", type=float, default=240.0)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--no-fake-datasets", action="store_true")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--doc", type=Path, default=DEFAULT_DOC)
    parser.add_argument("--logs", type=Path, default=ROOT / "build" / "keras_io_sweep_logs")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)

    results: Dict[str, Dict[str, dict]] = {}
    if args.cache.exists():
        results = json.loads(args.cache.read_text())
    if not args.report_only:
        libs = ("tfkit", "keras") if args.backend == "both" else (args.backend,)
        examples = find_examples(args.examples, args.only)
        if not examples:
            print(f"no examples found under {args.examples} (expected <category>/<name>.py)")
            return 2
        for path in examples:
            key = f"{path.parent.name}/{path.stem}"
            for lib in libs:
                rec = run_example(path, lib, args.timeout, not args.no_fake_datasets, args.data_dir, args.logs)
                results.setdefault(key, {})[lib] = rec
                print(
                    f"{key:55s} {lib:6s} {rec['result']:14s} {rec['seconds']:6.1f}s {rec['reason'][:120]}", flush=True
                )
                args.cache.parent.mkdir(parents=True, exist_ok=True)
                args.cache.write_text(json.dumps(results, indent=1, sort_keys=True))
    if args.report_only and args.logs.exists():
        _reclassify_from_logs(results, args.logs)
        args.cache.write_text(json.dumps(results, indent=1, sort_keys=True))
    command = (
        "source /work/venv/bin/activate && PYTHONPATH=$PWD python tools/keras_io_sweep.py "
        "--examples /work/keras_io_examples --backend both --timeout 240"
    )
    write_report(results, args.doc, command)
    print(f"wrote {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
