"""``tools/bench.py --baseline COMMIT`` without training anything: the plan, the figures, the checkout.

The jobs are fakes that answer at once; the checkout and the ``PYTHONPATH`` that
makes a process import the old tfkit are real (a throwaway git repository with a
two-line ``tfkit`` package, and ``git archive`` of this repository's HEAD).
"""

from __future__ import annotations

import importlib
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys

import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(TOOLS))
    modules = {name: importlib.import_module(f"bench.{name}") for name in ("baseline", "cli", "orchestrate", "startup")}
    return type("Bench", (), modules)


def record(side, repeat, metrics, case="vae", status="ok", reason=None, info=None):
    return {
        "repeat": repeat,
        "side": side,
        "job": {"case": case, "runner": "tfkit"},
        "result": {"status": status, "reason": reason, "metrics": metrics, "missing": {}, "info": info or {}},
    }


def test_the_plan_runs_the_tfkit_runner_only_and_alternates_the_sides_swapping_who_goes_first(bench):
    jobs = bench.baseline.plan_jobs(["vae", "cnn"], {"vae": 3, "cnn": 2}, quick=False)
    assert [(job.case, job.runner, job.epochs, job.settings) for job in jobs] == [
        ("vae", "tfkit", 3, {}),
        ("cnn", "tfkit", 2, {}),
    ]
    runs = bench.baseline.plan(jobs, 3)
    assert [(repeat, side, job.case) for repeat, side, job in runs] == [
        (1, "baseline", "vae"),
        (1, "current", "vae"),
        (1, "baseline", "cnn"),
        (1, "current", "cnn"),
        (2, "current", "vae"),
        (2, "baseline", "vae"),
        (2, "current", "cnn"),
        (2, "baseline", "cnn"),
        (3, "baseline", "vae"),
        (3, "current", "vae"),
        (3, "baseline", "cnn"),
        (3, "current", "cnn"),
    ]


def test_a_training_case_compares_its_steady_and_first_epoch_and_predict_its_own_rows(bench):
    assert [row.metric for row in bench.baseline.rows_for("vae")] == ["epoch_steady_s", "epoch_first_s"]
    assert [row.metric for row in bench.baseline.rows_for("predict")] == [
        "predict_samples_per_s",
        "predict_first_s",
        "serving_latency_ms",
    ]


def test_the_ratio_is_the_median_of_per_repeat_ratios_oriented_so_above_one_is_slower(bench):
    steady = {"baseline": (1.0, 2.0, 3.0), "current": (1.2, 2.0, 3.6)}  # medians equal, pairs 1.2, 1.0, 1.2
    first = {"baseline": (5.0, 5.0, 5.0), "current": (5.1, 4.9, 5.0)}
    records = [
        record(side, repeat, {"epoch_steady_s": steady[side][repeat - 1], "epoch_first_s": first[side][repeat - 1]})
        for repeat in (1, 2, 3)
        for side in ("baseline", "current")
    ]
    records += [  # throughput: higher is better, so baseline / current
        record("baseline", 1, {"predict_samples_per_s": 1000.0, "predict_first_s": 1.0}, case="predict"),
        record("current", 1, {"predict_samples_per_s": 800.0, "predict_first_s": 0.5}, case="predict"),
        record("baseline", 2, {"predict_samples_per_s": 1000.0, "predict_first_s": 1.0}, case="predict"),
        record("current", 2, {}, case="predict", status="failed", reason="worker exited 1: boom"),
    ]
    items = {(item["row"].case, item["row"].metric): item for item in bench.baseline.summarize(records, 0.05)}
    vae = items[("vae", "epoch_steady_s")]
    assert (vae["baseline"], vae["current"]) == (2.0, 2.0)
    assert vae["ratios"] == pytest.approx([1.2, 1.0, 1.2])
    assert vae["ratio"] == pytest.approx((math.sqrt(1.2 * 1.0) + 1.2) / 2)  # repeats 1 and 2 paired, 3 alone
    assert vae["verdict"] == "slower"
    assert items[("vae", "epoch_first_s")]["verdict"] == "within noise"
    throughput = items[("predict", "predict_samples_per_s")]
    assert throughput["ratios"] == pytest.approx([1.25]) and throughput["verdict"] == "slower"  # n=1: repeat 2 failed
    assert items[("predict", "predict_first_s")]["verdict"] == "faster"
    assert items[("predict", "serving_latency_ms")]["ratio"] is None
    assert throughput["problems"] == {"baseline": [], "current": ["failed: worker exited 1: boom"]}
    assert bench.baseline.summarize(records, 0.25)[0]["verdict"] == "within noise"  # a wider margin


def test_a_cost_on_whichever_process_runs_first_cancels_out(bench):
    """The tf.data VAE's first epoch: 2.1 s first in its pair, 1.4 s second, on either tree (plan's order)."""
    first_in_pair = {1: ("baseline", "current"), 2: ("current", "baseline")}
    records = [
        record(side, repeat, {"epoch_steady_s": 1.0, "epoch_first_s": 2.1 if side == order[0] else 1.4})
        for repeat in (1, 2, 3, 4, 5, 6)
        for order in [first_in_pair[2 - repeat % 2]]
        for side in order
    ]
    first = {item["row"].metric: item for item in bench.baseline.summarize(records, 0.05)}["epoch_first_s"]
    assert sorted(first["ratios"]) == pytest.approx([1.4 / 2.1] * 3 + [2.1 / 1.4] * 3)
    assert statistics.median(first["ratios"]) == pytest.approx((1.4 / 2.1 + 2.1 / 1.4) / 2)  # 1.08: "slower"
    assert first["ratio"] == pytest.approx(1.0) and first["verdict"] == "within noise"
    assert bench.baseline.order_balanced({1: 0.5, 2: 2.0, 3: 1.2}) == pytest.approx([1.0, 1.2])


def test_the_report_flags_what_is_slower_and_names_no_machine_path(bench):
    records = [
        record("baseline", 1, {"epoch_steady_s": 1.0, "epoch_first_s": 2.0}),
        record("current", 1, {"epoch_steady_s": 1.1, "epoch_first_s": 2.0}),
        record("baseline", 2, {}, status="failed", reason="imported tfkit from /home/me/repo/tfkit/__init__.py"),
        record("current", 2, {"epoch_steady_s": 1.1, "epoch_first_s": 2.0}),
    ]
    context = {
        "baseline_name": "HEAD~3",
        "baseline_commit": "0123456789abcdef" * 2 + "01234567",
        "current": "the working tree at fedcba9876",
        "margin": 0.05,
        "repeats": 2,
        "date": "2026-01-01 00:00 UTC",
        "command": "python tools/bench.py --baseline HEAD~3",
        "epochs": "vae 2",
        "load_start": "1.00",
        "load_end": "1.50",
        "wall": "60 s",
        "machine": {"CPU": "test"},
        "versions": {"tensorflow": "2.x"},
    }
    text = bench.baseline.render(records, context)
    assert "`HEAD~3` = commit 0123456789" in text
    assert "| VAE b64: epoch, steady state | 1.000 s [1] | 1.100 s | 1.10x (1.10-1.10, n=1) | **slower** |" in text
    assert (
        "| VAE b64: first epoch (tracing incl.) | 2.000 s [1] | 2.000 s | 1.00x (1.00-1.00, n=1) | within noise |"
        in text
    )
    assert "Slower than the baseline beyond the margin: VAE b64: epoch, steady state (1.10x)." in text
    assert "/home/me" not in text and "<...>/__init__.py" in text


def _git(repo, *args):
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def test_the_old_tfkit_is_extracted_imported_first_and_removed_and_the_repository_left_alone(bench, tmp_path):
    repo = tmp_path / "repo"
    (repo / "tfkit").mkdir(parents=True)
    _git(tmp_path, "init", "-q", str(repo))
    for version in ("old", "new"):
        (repo / "tfkit" / "__init__.py").write_text(f"VERSION = {version!r}\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", version)
    commit = bench.baseline.resolve_commit("HEAD~1", repo)
    assert commit == _git(repo, "rev-parse", "HEAD~1").strip() and len(commit) == 40
    with pytest.raises(ValueError, match="names no commit"):
        bench.baseline.resolve_commit("no-such-branch", repo)

    elsewhere = tmp_path / "elsewhere"  # ``python -c`` puts its working folder first on sys.path
    elsewhere.mkdir()
    probe = "import tfkit; print(tfkit.__file__); print(tfkit.VERSION)"
    env = {**os.environ, "PYTHONPATH": str(repo)}
    with bench.baseline.checkout(commit, repo) as tree:
        assert (tree / "tfkit" / "__init__.py").read_text() == "VERSION = 'old'\n"
        answers = {}
        for side, folder in (("baseline", tree), ("current", None)):
            done = subprocess.run(
                [sys.executable, "-c", probe],
                env=bench.baseline.side_env(env, folder),
                cwd=elsewhere,
                capture_output=True,
                text=True,
                check=True,
            )
            answers[side] = done.stdout.split()
    assert answers["baseline"] == [str(tree / "tfkit" / "__init__.py"), "old"]
    assert answers["current"] == [str(repo / "tfkit" / "__init__.py"), "new"]
    assert not tree.exists()
    assert _git(repo, "status", "--porcelain") == ""
    assert len(_git(repo, "worktree", "list").splitlines()) == 1
    with pytest.raises(RuntimeError, match="git archive"):
        with bench.baseline.checkout(commit, repo, paths=("not_there",)):
            pass


def test_a_result_that_imported_the_other_sides_tfkit_counts_as_failed(bench, tmp_path):
    package = tmp_path / "old" / "tfkit"
    ok = {"status": "ok", "reason": None, "metrics": {"epoch_steady_s": 1.0}, "info": {}}
    right = {**ok, "info": {"tfkit_file": str(package / "__init__.py")}}
    assert bench.baseline.check_tfkit(right, package) == right
    wrong = bench.baseline.check_tfkit({**ok, "info": {"tfkit_file": "/repo/tfkit/__init__.py"}}, package)
    assert wrong["status"] == "failed" and "imported tfkit from /repo/tfkit/__init__.py" in wrong["reason"]
    assert bench.baseline.check_tfkit(ok, package)["status"] == "failed"  # no tfkit_file: not verified
    failed = {**ok, "status": "failed", "reason": "boom"}
    assert bench.baseline.check_tfkit(failed, package) is failed


def test_baseline_options_default_to_the_training_workloads_and_never_write_the_performance_report(bench):
    args = bench.cli.parse_args(["--baseline", "HEAD~3"])
    assert args.workloads == list(bench.cli.spec.TRAINING_WORKLOADS)
    assert (args.repeats, args.margin, args.out) == (5, 0.05, "-")
    quick = bench.cli.parse_args(["--baseline", "HEAD~3", "--quick", "--margin", "0.1"])
    assert (quick.workloads, quick.repeats, quick.margin) == (["vae", "predict"], 1, 0.1)
    for wrong in (
        ["--baseline", "HEAD~3", "--out", "docs/PERFORMANCE.md"],
        ["--baseline", "HEAD~3", "--mesh"],
        ["--baseline", "HEAD~3", "--resume", "run.json"],
        ["--margin", "0.1"],
    ):
        with pytest.raises(SystemExit):
            bench.cli.parse_args(wrong)


def test_a_baseline_run_alternates_processes_checks_their_tfkit_and_writes_its_report(
    bench, tmp_path, monkeypatch, capsys
):
    """The real checkout of this repository's HEAD, the real environments; only the jobs are fakes."""
    calls = []

    def run_job(job, data_dir, env, timeout):
        first = pathlib.Path(env["PYTHONPATH"].split(os.pathsep)[0])  # what ``import tfkit`` finds first
        calls.append(first)
        steady = 1.0 if first != bench.orchestrate.REPO_ROOT else 1.5
        return {
            "status": "ok",
            "reason": None,
            "metrics": {"epoch_steady_s": steady, "epoch_first_s": 2.0},
            "missing": {},
            "info": {"tfkit_file": str(first / "tfkit" / "__init__.py")},
            "wall_s": 0.0,
        }

    monkeypatch.setattr(bench.orchestrate, "run_job", run_job)
    monkeypatch.setattr(bench.orchestrate, "prepare_data", lambda *args, **kwargs: None)
    monkeypatch.setattr(bench.startup, "ensure_bytecode", lambda package=None: None)
    out, raw = tmp_path / "baseline.md", tmp_path / "baseline.json"
    argv = ["--baseline", "HEAD", "--quick", "--workloads", "vae", "--repeats", "2", "--out", str(out)]
    assert bench.cli.main(argv + ["--json", str(raw)]) == 0
    tree = calls[0]
    assert calls == [tree, bench.orchestrate.REPO_ROOT, bench.orchestrate.REPO_ROOT, tree]  # A B, then B A
    assert tree != bench.orchestrate.REPO_ROOT and not tree.exists()  # the checkout is gone
    saved = json.loads(raw.read_text())
    assert [(r["repeat"], r["side"]) for r in saved["records"]] == [
        (1, "baseline"),
        (1, "current"),
        (2, "current"),
        (2, "baseline"),
    ]
    assert all(r["result"]["status"] == "ok" for r in saved["records"])
    assert saved["records"][0]["result"]["info"]["tfkit_file"] == str(tree / "tfkit" / "__init__.py")
    head = subprocess.run(
        ["git", "-C", str(bench.orchestrate.REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    assert saved["context"]["baseline_commit"] == head
    text = out.read_text()
    assert "| VAE b64: epoch, steady state | 1.000 s | 1.500 s | 1.50x (1.50-1.50, n=2) | **slower** |" in text
    assert text in capsys.readouterr().out
    assert bench.cli.main(["--from-json", str(raw)]) == 0
    assert capsys.readouterr().out == text
