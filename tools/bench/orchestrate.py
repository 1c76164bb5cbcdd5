"""One subprocess per measurement: environments, data preparation, result parsing.

    env = orchestrate.base_env()
    orchestrate.prepare_data(data_dir, env, timeout=600, presets=["gpt2_124m"])   # presets: the pretrained workload's
    result = orchestrate.run_job(job, data_dir, env, timeout=1800)
    orchestrate.run_job(job, data_dir, env, 1800, python=orchestrate.python_for(job.peer, torch_python))

Each peer gets a fresh interpreter, so imports, thread pools, traced functions and
peak memory never leak from one measurement into the next. tf-keras needs
``TF_USE_LEGACY_KERAS=1`` and Keras 3 ``KERAS_BACKEND=tensorflow``; the other
peers run with neither legacy switch set. Every peer runs under this interpreter
but ``transformers_torch``, which runs under the one ``--torch-python`` names
(torch and transformers, no TensorFlow): without one, its jobs are "unavailable"
and no process starts.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time
from typing import Any, Sequence

from bench.spec import Job
from bench.worker import RESULT_MARKER

TOOLS_DIR = pathlib.Path(__file__).resolve().parents[1]
REPO_ROOT = TOOLS_DIR.parent
ENTRY = TOOLS_DIR / "bench.py"


def shared_datasets_dir() -> pathlib.Path:
    """Where this workplace keeps MNIST: ``../shared/datasets`` beside the repository."""
    return REPO_ROOT.parent / "shared" / "datasets"


def base_env() -> dict[str, str]:
    """The environment every subprocess starts from: repo on the path, quiet TF, local MNIST."""
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    paths = [str(REPO_ROOT), str(TOOLS_DIR)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    if "TFKIT_DATA_DIR" not in env and shared_datasets_dir().is_dir():
        env["TFKIT_DATA_DIR"] = str(shared_datasets_dir())
    return env


def peer_env(peer: str, env: dict[str, str]) -> dict[str, str]:
    """``env`` with the switches one peer needs (and the others' switches removed)."""
    env = dict(env)
    env.pop("TF_USE_LEGACY_KERAS", None)
    if peer == "keras3":
        env["KERAS_BACKEND"] = "tensorflow"
    elif peer == "keras3_jax":
        env["KERAS_BACKEND"] = "jax"
    elif peer == "tf_keras":
        env["TF_USE_LEGACY_KERAS"] = "1"
    return env


def worker_env(peer: str, env: dict[str, str], data_dir: str) -> dict[str, str]:
    """``peer_env`` with ``TMPDIR`` in the run's data folder: what a worker killed mid-job leaves there
    (AutoGraph's generated modules, a half-written model file) goes when the run removes that folder."""
    return {**peer_env(peer, env), "TMPDIR": data_dir}


def prepare_data(data_dir: str, env: dict[str, str], timeout: float, presets: Sequence[str] = ()) -> None:
    """Write the shared arrays (MNIST through tfkit's loader) into ``data_dir``, and the random presets of the
    pretrained workload's ``presets`` (``bench.pretrained.MODELS`` keys) that it lacks."""
    completed = subprocess.run(
        [sys.executable, str(ENTRY), "--prepare-data", data_dir],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"preparing the data failed (exit {completed.returncode}):\n{completed.stderr[-3000:]}")
    if presets:
        prepare_presets(data_dir, env, presets, timeout)


def prepare_presets(
    data_dir: str, env: dict[str, str], models: Sequence[str], timeout: float, tiny: bool = False
) -> None:
    """Build the pretrained workload's presets with KerasHub on TensorFlow, in a subprocess of their own
    (``bench.pretrained_presets``): every peer then loads the same weights."""
    payload = json.dumps({"directory": data_dir, "models": list(models), "tiny": tiny})
    completed = subprocess.run(
        [sys.executable, str(ENTRY), "--prepare-presets", payload],
        env=peer_env("keras3", env),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if completed.returncode != 0:
        raise RuntimeError(
            f"building the presets {', '.join(models)} failed (exit {completed.returncode}):\n{completed.stderr[-3000:]}"
        )


TORCH_PEER = "transformers_torch"
NO_TORCH_PYTHON = (
    "Transformers on PyTorch runs under the interpreter --torch-python names (one with torch, transformers "
    "and h5py; peft for LoRA); none was given"
)


def python_for(peer: str, torch_python: str | None) -> str | None:
    """The interpreter a peer's worker runs under: ``torch_python`` for Transformers on PyTorch (None when
    not given: the job is unavailable), this one for every other peer."""
    return torch_python if peer == TORCH_PEER else sys.executable


def unavailable(reason: str) -> dict[str, Any]:
    """The record of a job that could not start: ``"unavailable"`` with ``reason``."""
    return {"status": "unavailable", "reason": reason, "metrics": {}, "missing": {}, "info": {}, "wall_s": 0.0}


def parse_result(stdout: str) -> dict[str, Any] | None:
    """The worker's result record: the last stdout line that starts with the marker."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_MARKER):
            return json.loads(line[len(RESULT_MARKER) :])
    return None


def _last_error_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1][:240] if lines else "no output"


def run_job(
    job: Job, data_dir: str, env: dict[str, str], timeout: float, python: str | None = sys.executable
) -> dict[str, Any]:
    """Run one job in a fresh interpreter (``python``; None: the job is unavailable, see ``python_for``);
    a crash or timeout becomes a "failed" record, an interpreter that does not start an "unavailable" one."""
    if python is None:
        return unavailable(NO_TORCH_PYTHON if job.peer == TORCH_PEER else f"no interpreter for {job.peer}")
    payload = json.dumps({"job": job.to_json(), "data_dir": data_dir})
    start = time.perf_counter()
    try:
        completed = subprocess.run(
            [python, str(ENTRY), "--worker", payload],
            env=worker_env(job.peer, env, data_dir),
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except OSError as error:  # no such interpreter, or not executable
        return unavailable(f"cannot start {python}: {type(error).__name__}: {error.strerror or error}")
    except subprocess.TimeoutExpired:
        return {
            "status": "failed",
            "reason": f"timed out after {timeout:.0f} s",
            "metrics": {},
            "missing": {},
            "info": {},
            "wall_s": time.perf_counter() - start,
        }
    result = parse_result(completed.stdout)
    if result is None:
        result = {
            "status": "failed",
            "metrics": {},
            "missing": {},
            "info": {},
            "reason": f"worker exited {completed.returncode}: {_last_error_line(completed.stderr)}",
        }
        if completed.returncode < 0:  # killed from outside (a stopped run): --resume runs it again
            result["signal"] = -completed.returncode
    elif result["status"] == "failed":
        result["stderr_tail"] = completed.stderr[-2000:]
    result["wall_s"] = time.perf_counter() - start
    return result
