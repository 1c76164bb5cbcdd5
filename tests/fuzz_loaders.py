"""A seeded fuzz campaign against tfkit's loaders: mutate valid files, load each, classify the outcome.

    python tests/fuzz_loaders.py --count 2000 --seed 7      # the long local mode; prints a JSON summary
    run_campaign(workdir, count=110, seed=2024)             # what tests/test_fuzz_loaders.py runs in CI

Seeds are tfkit's own files: a model file, a weights file, a SavedModel
export and a TensorFlow checkpoint. Each mutation flips bits, overwrites
bytes with boundary values, zeroes a run, or truncates the file; a
checkpoint index is also mutated entry by entry behind valid checksums (so
the damage reaches the entry parser, not just a checksum). Config mutations
(``fuzz_configs``) rewrite the model config of four more seed models as data:
repeated vocabularies, huge unroll lengths, one multiplying argument (repeat
counts, one-hot widths, paddings, n-grams, lookup tables, ...) set to a huge
or boundary value, a nested model called thousands of times, an input axis a
recorded ``tf.unstack`` splits into millions of tensors. Every mutated file
is loaded by the loader that reads its kind (``load_model``, ``load_weights``
for .h5 files and checkpoint prefixes, ``tfkit inspect``) inside one worker process (TensorFlow imported once) under an
address-space limit; the parent gives each load a time limit and restarts
the worker when one is exceeded or the worker dies. Outcomes: ``loaded``
(the mutation did not matter), ``ValueError`` (refused, as it should be),
any other exception type, ``hang``, ``crash`` and ``over_memory``; the
peak memory (VmHWM) of the loading process and of the HDF5 parsing child,
measured per load; and how many loads succeeded with weights that differ from
the unmutated file's (a flipped bit in stored data that no checksum caught: every
array tfkit writes carries a CRC-32, so this should stay 0 for tfkit's files).
"""

from __future__ import annotations

import argparse
import json
import random
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import time_limits
from fuzz_configs import CLASSES, CONFIG_SEED_FILES, CONFIG_SEEDS, mutate_model_file

WORKER = r"""
import hashlib, json, os, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np, tfkit
import tfkit.saving.h5_snapshot as snapshot
from tfkit.saving.file_description import describe
# The HDF5 parsing child reports its own VmHWM (CHILD_PEAK below) into a file named here.
child_peaks = sys.argv[2]
os.environ["TFKIT_FUZZ_REAL_CHILD"], os.environ["TFKIT_FUZZ_CHILD_PEAKS"] = snapshot.CHILD_SCRIPT, child_peaks
snapshot.CHILD_SCRIPT = sys.argv[3]
model = tfkit.Sequential([tfkit.Input((6,)), tfkit.layers.Dense(4, activation="relu"), tfkit.layers.Dense(3)])
loaders = {"load_model": tfkit.load_model, "load_weights": model.load_weights, "inspect": describe}

def hwm():
    return int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) * 1024

def memory_error_in(error):
    while error is not None:
        if isinstance(error, MemoryError):
            return True
        error = error.__cause__ or error.__context__
    return False

print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    job = json.loads(line)
    # Per load: reset this process's VmHWM (clear_refs 5) and the children's peak file.
    # VmHWM, not ru_maxrss: Linux carries a forking parent's size into a child's ru_maxrss across exec.
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")
    open(child_peaks, "w").close()
    start = time.time()
    memory_error = False
    digest = None
    try:
        loaded = loaders[job["loader"]](job["path"])
        outcome, message = "loaded", ""
        weights = loaded.weights if job["loader"] == "load_model" else model.weights \
            if job["loader"] == "load_weights" else None
        if weights is not None:      # what the load produced: compared with the unmutated file's weights
            digest = hashlib.sha256(b"".join(np.ascontiguousarray(w.numpy()).tobytes() for w in weights)).hexdigest()
    except Exception as error:
        outcome, message = type(error).__name__, str(error)[:1000]
        memory_error = memory_error_in(error)
    child = max([int(n) for n in open(child_peaks).read().split()] or [0])
    print(json.dumps({"outcome": outcome, "message": message, "seconds": time.time() - start,
                      "peak_bytes": hwm(), "child_peak_bytes": child, "memory_error": memory_error, "digest": digest,
                      "names_file": outcome != "ValueError" or job["path"] in message}), flush=True)
"""

# Runs the guarded reader's child script and appends its VmHWM to a file at exit (a child killed by a
# limit writes nothing: its address-space limit bounds it).
CHILD_PEAK = r"""
import atexit, os, runpy, sys

def report():
    peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) * 1024
    with open(os.environ["TFKIT_FUZZ_CHILD_PEAKS"], "a") as handle:
        handle.write(f"{peak}\n")

atexit.register(report)
sys.argv[0] = os.environ["TFKIT_FUZZ_REAL_CHILD"]
runpy.run_path(sys.argv[0], run_name="__main__")
"""

MAKE_SEEDS = r"""
import os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np, tfkit
out = sys.argv[1]
model = tfkit.Sequential([tfkit.Input((6,)), tfkit.layers.Dense(4, activation="relu"), tfkit.layers.Dense(3)])
model.compile("adam", "mse")
model.fit(np.ones((8, 6), "float32"), np.zeros((8, 3), "float32"), epochs=1, verbose=0)
model.save(os.path.join(out, "model.h5"))
model.save_weights(os.path.join(out, "weights.h5"))
model.export(os.path.join(out, "export"))
model.save_weights(os.path.join(out, "ckpt", "w"))
"""

MEMORY_LIMIT = 3 * 2**30
PEAK_LIMIT = int(1.5 * 2**30)


def make_seeds(folder: Path) -> dict[str, Path]:
    for script in (MAKE_SEEDS, CONFIG_SEEDS):
        subprocess.run(
            [sys.executable, "-c", script, str(folder)],
            check=True,
            timeout=time_limits.seconds(300),
            capture_output=True,
        )
    return {
        "model": folder / "model.h5",
        "weights": folder / "weights.h5",
        "export": folder / "export",
        "ckpt": folder / "ckpt",
        **{name: folder / file for name, file in CONFIG_SEED_FILES.items()},
    }


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One random mutation of ``data``."""
    data = bytearray(data)
    kind = rng.choice(["flip", "flip", "flip", "boundary", "zero_run", "truncate"])
    if kind == "flip":
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(len(data))
            data[position] ^= 1 << rng.randrange(8)
    elif kind == "boundary":
        position = rng.randrange(max(1, len(data) - 8))
        value = rng.choice([b"\x00" * 8, b"\xff" * 8, b"\x7f\xff\xff\xff", b"\x00\x00\x00\x80", b"\x01\x00\x00\x00"])
        data[position : position + len(value)] = value
    elif kind == "zero_run":
        position = rng.randrange(len(data))
        data[position : position + rng.randint(1, 64)] = bytes(min(64, len(data) - position))
    else:
        data = data[: rng.randrange(1, len(data))]
    return bytes(data[: len(data)])


def mutate_index(data: bytes, rng: random.Random) -> bytes:
    """A checkpoint index: half the time raw bytes (mostly caught by block checksums), half the time one
    entry's key or value, re-encoded with valid checksums so the damage reaches the entry parser."""
    if rng.random() < 0.5:
        return mutate(data, rng)
    from checkpoint_tables import _table_entries, encode_index  # noqa: PLC0415  (tests/ is on sys.path)

    entries = _table_entries(data)
    index = rng.randrange(len(entries))
    key, value = entries[index]
    if rng.random() < 0.8 and value:
        value = mutate(value, rng)
    else:
        key = mutate(key, rng) if key else key
    entries[index] = (key, value)
    return encode_index(entries)


class Worker:
    """One loading process; restarted after a hang or a crash.

    A load that has not answered within its ``timeout`` is a hang. The limit is a quiet machine's and grows
    with the machine's load while the load runs (``time_limits.Deadline``): the budgeted work a file may ask
    for (600 unrolled GRU steps take 20-55 s to trace on 2 cores) must not read as a hang on a busy machine.
    """

    def __init__(self, workdir: Path) -> None:
        wrapper = workdir / "child_peak.py"
        wrapper.write_text(CHILD_PEAK)
        self.process = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(MEMORY_LIMIT), str(workdir / "child_peaks.txt"), str(wrapper)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self._read(time_limits.Deadline(120))  # TensorFlow's import

    def _read(self, deadline: time_limits.Deadline) -> dict | None:
        while True:
            remaining = deadline.remaining()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self.process.stdout], [], [], min(remaining, 5.0))
            if ready:
                line = self.process.stdout.readline()
                return json.loads(line) if line else None

    def load(self, loader: str, path: str, timeout: float) -> dict:
        self.process.stdin.write(json.dumps({"loader": loader, "path": path}) + "\n")
        self.process.stdin.flush()
        deadline = time_limits.Deadline(timeout)
        result = self._read(deadline)
        if result is None:
            outcome = "hang" if self.process.poll() is None else "crash"
            self.stop()
            return {
                "outcome": outcome,
                "message": "",
                "seconds": deadline.elapsed(),
                "peak_bytes": 0,
                "child_peak_bytes": 0,
            }
        return result

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)


def run_campaign(workdir: Path, count: int, seed: int, timeout: float = 45.0) -> dict:
    """Mutate and load ``count`` files; returns counts by outcome and the bad cases.

    Outcomes: ``loaded``, ``ValueError``, any other exception's type name, ``hang`` (no answer within
    ``timeout`` seconds times the machine's load per core: ``time_limits``), ``crash`` (the worker died) and
    ``over_memory`` (the caller or the HDF5 parsing child peaked above ``PEAK_LIMIT``, or the caller hit its
    address-space limit: a ``MemoryError`` anywhere in the error's chain). Peaks are per load: VmHWM reset
    before each one.
    """
    workdir = Path(workdir)
    seeds = make_seeds(workdir)
    rng = random.Random(seed)
    targets = [
        ("model", "load_model"),
        ("weights", "load_weights"),
        ("model", "inspect"),
        ("export_pb", "inspect"),
        ("export_index", "inspect"),
        ("ckpt_index", "load_weights"),
    ]
    targets += [(f"config:{kind}", "load_model") for kind in CLASSES]
    worker = Worker(workdir)
    originals = {  # the weights each loader gives for the unmutated seed: a "loaded" file that differs is counted
        "model": worker.load("load_model", str(seeds["model"]), timeout)["digest"],
        "weights": worker.load("load_weights", str(seeds["weights"]), timeout)["digest"],
        "ckpt_index": worker.load("load_weights", str(seeds["ckpt"] / "w"), timeout)["digest"],
        **{name: worker.load("load_model", str(seeds[name]), timeout)["digest"] for name in CONFIG_SEED_FILES},
    }
    altered = 0
    altered_configs: list[dict] = []
    counts: dict[str, int] = {}
    by_class: dict[str, dict[str, int]] = {}
    bad: list[dict] = []
    peak = child_peak = slowest = 0
    slowest_case = ""
    unnamed: list[str] = []
    started = time.time()
    try:
        for index in range(count):
            source, loader = targets[index % len(targets)]
            origin, label = source, f"bytes:{source}:{loader}"
            if source.startswith("config:"):
                kind = source.split(":", 1)[1]
                origin, label = rng.choice(CLASSES[kind]), source
                path = workdir / f"case_{index}.h5"
                mutate_model_file(seeds[origin], path, kind, rng)
            elif source.startswith("export"):
                folder = workdir / f"case_{index}"
                shutil.copytree(seeds["export"], folder)
                if source == "export_pb":
                    victim = folder / "saved_model.pb"
                    victim.write_bytes(mutate(victim.read_bytes(), rng))
                else:
                    victim = folder / "variables" / "variables.index"
                    victim.write_bytes(mutate_index(victim.read_bytes(), rng))
                path = folder
            elif source == "ckpt_index":
                folder = workdir / f"case_{index}"
                shutil.copytree(seeds["ckpt"], folder)
                (folder / "w.index").write_bytes(mutate_index((folder / "w.index").read_bytes(), rng))
                path = folder / "w"
            else:
                path = workdir / f"case_{index}.h5"
                path.write_bytes(mutate(seeds[source].read_bytes(), rng))
            result = worker.load(loader, str(path), timeout)
            if result["outcome"] in ("hang", "crash"):
                worker = Worker(workdir)
            outcome = result["outcome"]
            if result.get("memory_error"):
                outcome = "over_memory"
            if max(result["peak_bytes"], result["child_peak_bytes"]) > PEAK_LIMIT:
                outcome = "over_memory"
            result["outcome"] = outcome
            counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
            by_class.setdefault(label, {})
            by_class[label][outcome] = by_class[label].get(outcome, 0) + 1
            peak = max(peak, result["peak_bytes"])
            if outcome == "loaded" and result.get("digest") and result["digest"] != originals.get(origin):
                altered += 1
                if source.startswith("config:"):  # a config change cannot alter stored weights: a bug if it does
                    altered_configs.append({"case": index, "class": source, "seed": origin})
            child_peak = max(child_peak, result["child_peak_bytes"])
            if result["seconds"] > slowest:
                slowest, slowest_case = result["seconds"], f"case {index} ({label}, seed {origin})"
            if not result.get("names_file", True):
                unnamed.append(f"{loader} {source}: {result['message']}")
            if result["outcome"] not in ("loaded", "ValueError"):
                bad.append({"case": index, "loader": loader, "source": source, "seed": origin, **result})
            shutil.rmtree(folder) if source.startswith(("export", "ckpt")) else path.unlink()
    finally:
        worker.stop()
    return {
        "files": count,
        "seconds": round(time.time() - started, 1),
        "outcomes": counts,
        "by_class": by_class,
        "peak_bytes": peak,
        "child_peak_bytes": child_peak,
        "slowest_load_seconds": round(slowest, 2),
        "slowest_case": slowest_case,
        "loaded_with_altered_weights": altered,
        "config_mutations_with_altered_weights": altered_configs,
        "value_errors_not_naming_the_file": len(unnamed),
        "unnamed_examples": unnamed[:5],
        "bad": bad[:20],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", default=None)
    parser.add_argument(
        "--timeout",
        type=float,
        default=45.0,
        help="seconds before a load counts as a hang on a quiet machine (grows with the load)",
    )
    args = parser.parse_args()
    import tempfile

    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="tfkit-fuzz-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(json.dumps(run_campaign(workdir, args.count, args.seed, args.timeout), indent=2))


if __name__ == "__main__":
    main()
