"""``tools/bench.py --resume``: a stopped run goes on where it stopped, and only over the code it measured.

Nothing is measured: the jobs, the in-process cases and the sections are fakes
that count their calls, so the test checks what runs again and what does not.
"""

from __future__ import annotations

import importlib
import json
import pathlib

import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"


class Stop(Exception):
    """Stands for the run being killed: raised by a fake job."""


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(TOOLS))
    modules = {
        name: importlib.import_module(f"bench.{name}")
        for name in ("cli", "data", "orchestrate", "inprocess", "startup", "progress")
    }
    return type("Bench", (), modules)


@pytest.fixture
def fakes(bench, monkeypatch):
    """Every measurement replaced; ``calls`` lists what ran, ``stop_after`` kills the run after that many jobs."""
    state = {"calls": [], "stop_after": None, "killed": set()}

    def run_job(job, data_dir, env, timeout, python=None):
        if state["stop_after"] is not None and len(_jobs(state)) >= state["stop_after"]:
            raise Stop()
        state["calls"].append(("job", job.case, job.runner))
        if (job.case, job.runner) in state["killed"]:  # what orchestrate.run_job returns for a worker killed
            return {
                "status": "failed",
                "reason": "worker exited -15: ",
                "metrics": {},
                "missing": {},
                "info": {},
                "signal": 15,
                "wall_s": 0.0,
            }
        return {
            "status": "ok",
            "reason": None,
            "metrics": {"epoch_steady_s": 1.0},
            "missing": {},
            "info": {},
            "wall_s": 0.0,
        }

    def run_case(case, peers, pairs, epochs, *rest, **kwargs):
        state["calls"].append(("in_process", case))
        return {"case": case, "rounds": [], "problems": {"all": "fake"}}

    def sections(name, value):
        def run(*args, **kwargs):
            state["calls"].append((name,))
            return value

        return run

    monkeypatch.setattr(bench.orchestrate, "prepare_data", lambda *args, **kwargs: None)
    monkeypatch.setattr(bench.orchestrate, "run_job", run_job)
    monkeypatch.setattr(bench.data, "matmul_rate", sections("matmul", 100.0))
    monkeypatch.setattr(bench.inprocess, "run_case", run_case)
    monkeypatch.setattr(bench.startup, "run_rounds", sections("startup", {}))
    export = {"p50_ms": 0.5, "p90_ms": 0.7, "nodes": 76}
    monkeypatch.setattr(
        bench.cli,
        "run_serving_latency",
        sections("serving", {"calls": 1000, "exports": {"tfkit": export, "tf_keras": export}}),
    )
    mesh_run = {"framework": "tfkit", "mode": "one", "model": "guide", "round": 1, "epochs": [2.0, 1.0], "cpu": 3.0}
    mesh = {"models": ["guide"], "modes": ["one"], "rounds": 1, "epochs": 2, "runs": [{**mesh_run, "loss": 0.3}]}
    monkeypatch.setattr(bench.cli, "run_mesh", sections("mesh", mesh))
    return state


def _jobs(state):
    return [call for call in state["calls"] if call[0] == "job"]


FULL = ["--repeats", "1", "--pairs", "1", "--out", "-"]


def test_a_stopped_full_run_goes_on_where_it_stopped_and_renders_from_its_file(bench, fakes, tmp_path, capsys):
    saved = tmp_path / "run.json"
    fakes["stop_after"] = 7
    with pytest.raises(Stop):
        bench.cli.main(FULL + ["--resume", str(saved)])
    first = list(fakes["calls"])
    assert [call[0] for call in first] == ["matmul"] + ["job"] * 7
    assert len(json.loads(saved.read_text())["records"]) == 7

    fakes["calls"].clear()
    fakes["stop_after"] = None
    assert bench.cli.main(FULL + ["--resume", str(saved)]) == 0
    second = fakes["calls"]
    assert ("matmul",) not in second  # kept from the first sitting
    assert not set(_jobs({"calls": first})) & set(_jobs({"calls": second}))  # no job ran twice
    everything = {
        (job.case, job.runner)
        for job in bench.cli.spec.plan_jobs(
            list(bench.cli.spec.WORKLOADS), list(bench.cli.spec.PEERS), dict(bench.cli.spec.DEFAULT_EPOCHS)
        )
    }
    assert {call[1:] for call in _jobs({"calls": first + second})} == everything
    in_process = [call for call in second if call[0] == "in_process"]
    assert [call[1] for call in in_process] == [
        case for case in bench.cli.spec.WORKLOADS if case in bench.cli.spec.TRAINING_WORKLOADS
    ]
    assert ("startup",) in second and ("serving",) in second and ("mesh",) in second

    finished = json.loads(saved.read_text())
    assert finished["progress"]["sittings"] == 2
    assert "in 2 sittings (--resume)" in finished["context"]["wall"]
    assert len(finished["records"]) == len(everything)

    fakes["calls"].clear()  # a third call has nothing left to run
    assert bench.cli.main(FULL + ["--resume", str(saved)]) == 0
    assert fakes["calls"] == []
    assert json.loads(saved.read_text())["progress"]["sittings"] == 2
    capsys.readouterr()
    assert bench.cli.main(["--from-json", str(saved), "--out", "-"]) == 0
    out = capsys.readouterr().out
    assert "## Run" in out
    assert "| guide | one | tfkit | 2.00 | 1.000 |  | 1.00x | 3.0 | 0.3000 |" in out  # the mesh section


def test_a_resume_over_other_code_or_options_is_refused_and_the_file_kept(bench, fakes, tmp_path, monkeypatch):
    saved = tmp_path / "run.json"
    fakes["stop_after"] = 2
    with pytest.raises(Stop):
        bench.cli.main(FULL + ["--resume", str(saved)])
    before = saved.read_text()

    with pytest.raises(SystemExit, match=r"options: saved .*'pairs': 1.*now .*'pairs': 2"):
        bench.cli.main(["--repeats", "1", "--pairs", "2", "--out", "-", "--resume", str(saved)])
    monkeypatch.setattr(bench.progress, "code_fingerprint", lambda root: "0123456789abcdef")
    with pytest.raises(SystemExit, match="code: saved '[0-9a-f]{16}', now '0123456789abcdef'"):
        bench.cli.main(FULL + ["--resume", str(saved)])
    assert saved.read_text() == before
    assert len(_jobs(fakes)) == 2


def test_a_file_that_is_not_a_runs_progress_is_refused(bench, fakes, tmp_path):
    other = tmp_path / "notes.json"
    other.write_text('{"records": []}')
    with pytest.raises(SystemExit, match="not the progress of a tools/bench.py run"):
        bench.cli.main(FULL + ["--resume", str(other)])
    assert other.read_text() == '{"records": []}'
    assert fakes["calls"] == []


def test_the_code_fingerprint_follows_the_content_of_the_code_only(bench, tmp_path):
    for directory in bench.progress.CODE_DIRECTORIES:
        (tmp_path / directory).mkdir()
    (tmp_path / "tfkit" / "a.py").write_text("x = 1\n")
    (tmp_path / "docs").mkdir()
    first = bench.progress.code_fingerprint(tmp_path)
    (tmp_path / "docs" / "guide.md").write_text("words")
    (tmp_path / "tfkit" / "__pycache__").mkdir()
    (tmp_path / "tfkit" / "__pycache__" / "a.py").write_text("compiled")
    assert bench.progress.code_fingerprint(tmp_path) == first
    (tmp_path / "tfkit" / "a.py").write_text("x = 2\n")
    assert bench.progress.code_fingerprint(tmp_path) != first


def test_a_job_killed_from_outside_is_not_kept_and_runs_again(bench, fakes, tmp_path):
    """A worker killed by a signal (the run being stopped) is no measurement: the next sitting runs it."""
    saved = tmp_path / "run.json"
    fakes["killed"] = {("vae", "keras3")}
    fakes["stop_after"] = 3
    with pytest.raises(Stop):
        bench.cli.main(FULL + ["--resume", str(saved)])
    assert [call[1:] for call in _jobs(fakes)] == [("vae", "tfkit"), ("vae", "keras3"), ("vae", "tf_keras")]
    kept = [(r["job"]["case"], r["job"]["runner"]) for r in json.loads(saved.read_text())["records"]]
    assert kept == [("vae", "tfkit"), ("vae", "tf_keras")]

    fakes["calls"].clear()
    fakes["killed"], fakes["stop_after"] = set(), 1
    with pytest.raises(Stop):
        bench.cli.main(FULL + ["--resume", str(saved)])
    assert _jobs(fakes) == [("job", "vae", "keras3")]


def test_a_worker_writes_temporary_files_in_the_data_folder_and_a_signal_that_killed_it_is_marked(bench, monkeypatch):
    """The data folder goes at the run's end, with what a killed worker left (AutoGraph's modules)."""
    import subprocess
    import types

    started = []

    def killed(*args, **kwargs):
        started.append(kwargs["env"])
        return types.SimpleNamespace(returncode=-9, stdout="", stderr="")

    monkeypatch.setattr(subprocess, "run", killed)
    job = bench.cli.spec.plan_jobs(["vae"], ["tfkit"], dict(bench.cli.spec.DEFAULT_EPOCHS))[0]
    result = bench.orchestrate.run_job(job, "/data/folder", {"PATH": "/bin"}, timeout=1.0)
    assert result["status"] == "failed" and result["signal"] == 9
    assert started[0]["TMPDIR"] == "/data/folder" and started[0]["PATH"] == "/bin"


SIGTERM_CHILD = """
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from bench import cli
before = signal.getsignal(signal.SIGTERM)
try:
    with cli.sigterm_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        signal.sigtimedwait([], 0.001)  # the handler runs between Python instructions
        for _ in range(1000):
            pass
    print("not interrupted")
except KeyboardInterrupt as error:
    print("interrupted:", error)
print("restored" if signal.getsignal(signal.SIGTERM) is before else "not restored")
"""


def test_sigterm_stops_a_run_as_ctrl_c_does_and_the_handler_is_restored():
    """In a process of its own: sent to the suite's own worker, the SIGTERM killed that worker in two full
    runs out of three (CI at stop 57, and here; the cause was not found, the test alone never failed), and
    pytest-xdist then waited for the dead worker's files until CI's time limit."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", SIGTERM_CHILD, str(TOOLS)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:2] == ["interrupted: stopped by signal 15", "restored"]
