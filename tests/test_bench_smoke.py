"""tools/bench.py without running anything: argument parsing, the plan, medians, the table.

No subprocess, no timing assertion, no Keras import: fake numbers go through the
same functions that turn real measurements into docs/PERFORMANCE.md.
"""

from __future__ import annotations

import importlib
import json
import pathlib

import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(TOOLS))
    modules = {name: importlib.import_module(f"bench.{name}")
               for name in ("cli", "spec", "report", "timing", "data", "orchestrate")}
    return type("Bench", (), modules)


def record(case, runner, repeat=1, status="ok", reason=None, metrics=None, missing=None):
    return {"repeat": repeat, "job": {"case": case, "runner": runner},
            "result": {"status": status, "reason": reason, "metrics": metrics or {},
                       "missing": missing or {}, "info": {}}}


# ------------------------------------------------------------------ arguments

def test_defaults_run_everything_three_times(bench):
    args = bench.cli.parse_args([])
    assert args.repeats == 3
    assert args.workloads == ["vae", "cnn", "lstm", "predict", "scaling"]
    assert args.peers == ["tfkit", "keras3", "tf_keras", "raw_tf"]
    assert args.epoch_counts == {"vae": 5, "cnn": 3, "lstm": 4, "scaling": 3}
    assert args.out == "docs/PERFORMANCE.md"


def test_quick_is_one_repeat_two_epochs_fewer_workloads(bench):
    args = bench.cli.parse_args(["--quick"])
    assert args.repeats == 1
    assert args.workloads == ["vae", "predict"]
    assert set(args.epoch_counts.values()) == {2}


def test_explicit_options_win_over_quick(bench):
    args = bench.cli.parse_args(["--quick", "--workloads", "cnn,lstm", "--repeats", "2",
                                 "--peers", "tfkit, raw_tf", "--epochs", "3"])
    assert (args.repeats, args.workloads, args.peers) == (2, ["cnn", "lstm"], ["tfkit", "raw_tf"])
    assert set(args.epoch_counts.values()) == {3}


@pytest.mark.parametrize("argv, expected", [
    (["--workloads", "vae,gan"], "unknown workload gan"),
    (["--peers", "pytorch"], "unknown peer pytorch"),
    (["--repeats", "0"], "positive integer"),
])
def test_bad_options_say_what_was_expected(bench, capsys, argv, expected):
    with pytest.raises(SystemExit):
        bench.cli.parse_args(argv)
    assert expected in capsys.readouterr().err


# ------------------------------------------------------------------ the plan

def test_plan_interleaves_runners_and_adds_the_steps_per_execution_row(bench):
    jobs = bench.spec.plan_jobs(["vae", "predict"], list(bench.spec.PEERS), {"vae": 5})
    assert [(job.case, job.runner) for job in jobs] == [
        ("vae", "tfkit"), ("vae", "keras3"), ("vae", "tf_keras"), ("vae", "tf_keras_spe100"),
        ("vae", "raw_tf"),
        ("predict", "tfkit"), ("predict", "keras3"), ("predict", "tf_keras"), ("predict", "raw_tf"),
    ]
    spe = next(job for job in jobs if job.runner == "tf_keras_spe100")
    assert (spe.peer, spe.settings, spe.batch_size, spe.epochs) == ("tf_keras", {"steps_per_execution": 100}, 64, 5)
    assert all(job.settings == {} for job in jobs if job.runner != "tf_keras_spe100")
    assert {job.epochs for job in jobs if job.case == "predict"} == {0}


def test_scaling_runs_tfkit_and_keras3_at_four_batch_sizes(bench):
    jobs = bench.spec.plan_jobs(["scaling"], list(bench.spec.PEERS), {"scaling": 3})
    assert [(job.batch_size, job.runner) for job in jobs] == [
        (batch, runner) for batch in (32, 64, 256, 1024) for runner in ("tfkit", "keras3")]
    assert {job.workload for job in jobs} == {"vae"}


def test_columns_follow_the_fixed_runner_order(bench):
    jobs = bench.spec.plan_jobs(["cnn"], ["raw_tf", "tfkit"], {})
    assert [job.epochs for job in jobs] == [3, 3]
    records = [record("lstm", "raw_tf"), record("cnn", "keras3"), record("lstm", "tfkit")]
    assert bench.cli.runners_in(records) == ["tfkit", "keras3", "raw_tf"]
    assert bench.cli.cases_in(records) == ["lstm", "cnn"]


# ------------------------------------------------------------------ numbers

def test_epoch_metrics_split_first_epoch_from_steady_state(bench):
    metrics = bench.timing.epoch_metrics(10.0, [13.0, 14.0, 15.5, 16.5], [0.3, 0.2, 0.1, 0.1])
    assert metrics["epoch_first_s"] == pytest.approx(3.0)
    assert metrics["epoch_steady_s"] == pytest.approx(1.0)  # median of 1.0, 1.5, 1.0
    assert metrics["loss_epoch2"] == pytest.approx(0.2)


def test_ratio_is_above_one_when_tfkit_wins(bench):
    rows = {(row.case, row.metric): row for row in bench.spec.ROWS}
    epoch, throughput = rows[("vae", "epoch_steady_s")], rows[("predict", "predict_samples_per_s")]
    assert bench.report.ratio(epoch, 0.5, 1.2) == pytest.approx(2.4)
    assert bench.report.ratio(throughput, 50_000.0, 10_000.0) == pytest.approx(5.0)
    assert bench.report.ratio(rows[("vae", "loss_epoch2")], 0.07, 0.07) is None


def fake_run():
    records = []
    for repeat, (mine, theirs) in enumerate([(0.5, 1.2), (0.7, 1.0), (0.6, 1.5)], start=1):
        records.append(record("vae", "tfkit", repeat, metrics={"epoch_steady_s": mine, "peak_rss_mib": 900}))
        records.append(record("vae", "keras3", repeat, metrics={"epoch_steady_s": theirs, "peak_rss_mib": 1000}))
        records.append(record("vae", "raw_tf", repeat, metrics={"epoch_steady_s": 0.5}))
    records.append(record("cnn", "tfkit", status="unavailable",
                          reason="tfkit.layers.Conv2D is not available"))
    records.append(record("cnn", "keras3", metrics={"epoch_steady_s": 20.0}))
    records.append(record("predict", "tfkit", metrics={"predict_samples_per_s": 50_000},
                          missing={"serving_latency_ms": "unavailable: no export_saved_model"}))
    records.append(record("predict", "keras3", metrics={"predict_samples_per_s": 10_000,
                                                        "serving_latency_ms": 0.5}))
    records.append(record("predict", "raw_tf", status="failed", reason="RuntimeError: boom"))
    return records


def test_table_holds_medians_ratios_and_footnotes(bench):
    summary = bench.report.aggregate(fake_run())
    footnotes = bench.report.Footnotes()
    lines = bench.report.table(summary, ["tfkit", "keras3", "raw_tf"], ["vae", "cnn", "predict"], footnotes)
    text = "\n".join(lines)
    assert lines[0] == "| measurement | tfkit | Keras 3 | raw TF (floor) |"
    assert "| VAE b64: epoch, steady state [s] | 0.600 | 1.200 (2.00x) | 0.500 (0.83x) |" in text
    assert "| CNN b128: epoch, steady state [s] | n/a [1] | 20.000 | - |" in text
    assert "| VAE predict b1024: throughput [samples/s] | 50,000 | 10,000 (5.00x) | failed [2] |" in text
    assert "| VAE SavedModel: 1-sample latency [ms] | n/a [3] | 0.500 | failed [2] |" in text
    assert footnotes.lines()[0] == "[1] tfkit, cnn: unavailable: tfkit.layers.Conv2D is not available"
    assert "RuntimeError: boom" in footnotes.lines()[1]
    assert "no export_saved_model" in footnotes.lines()[2]


def test_report_has_the_run_facts_spread_and_targets(bench):
    summary = bench.report.aggregate(fake_run())
    context = {"date": "2026-01-02 03:04 UTC", "command": "python tools/bench.py --workloads vae",
               "repeats": 3, "epochs": "vae 5", "quick": False,
               "machine": {"CPU": "Fake CPU", "cores": "2 logical"}, "versions": {"TensorFlow": "2.21.0"}}
    text = bench.report.render(summary, ["tfkit", "keras3", "raw_tf"], ["vae", "cnn", "predict"], context)
    assert text.startswith("# Performance")
    for fact in ("2026-01-02 03:04 UTC", "`python tools/bench.py --workloads vae`", "CPU: Fake CPU",
                 "TensorFlow: 2.21.0", "- Keras 3: defaults"):
        assert fact in text
    assert "| VAE b64: epoch, steady state [s] | 0.500 - 0.700 (n=3) | 1.000 - 1.500 (n=3) |" in text
    assert "VAE epoch: tfkit <= 1.15x the raw TF floor: tfkit/peer = 1.20 -> missed by 1.04x" in text
    assert "VAE epoch: tfkit <= 0.5x Keras 3: tfkit/peer = 0.50 -> met" in text
    assert "predict throughput: tfkit >= Keras 3: peer/tfkit throughput = 0.20 -> met" in text
    assert "LSTM epoch: tfkit <= Keras 3: not measured in this run" in text


# ------------------------------------------------------------------ helpers

def test_lstm_sequences_are_fixed_left_padded_and_labelled(bench):
    sequences, labels = bench.data.make_sequences(samples=200, length=20, vocab=50, seed=3)
    again, _ = bench.data.make_sequences(samples=200, length=20, vocab=50, seed=3)
    assert sequences.shape == (200, 20) and labels.shape == (200, 1)
    assert (sequences == again).all()
    assert (sequences[:, -1] > 0).all()  # padding is on the left
    assert ((sequences[:, 1:] > 0) | (sequences[:, :-1] == 0)).all()  # no zero after a token
    assert 0.2 < labels.mean() < 0.8


def test_each_peer_gets_only_its_own_keras_switch(bench):
    env = {"TF_USE_LEGACY_KERAS": "1", "PATH": "/bin"}
    assert "TF_USE_LEGACY_KERAS" not in bench.orchestrate.peer_env("tfkit", env)
    keras3 = bench.orchestrate.peer_env("keras3", env)
    assert keras3["KERAS_BACKEND"] == "tensorflow" and "TF_USE_LEGACY_KERAS" not in keras3
    assert bench.orchestrate.peer_env("tf_keras", {})["TF_USE_LEGACY_KERAS"] == "1"


def test_the_worker_result_is_the_last_marked_line(bench):
    stdout = 'noise\nBENCH_RESULT {"status": "ok", "metrics": {"a": 1}}\nmore noise\n'
    assert bench.orchestrate.parse_result(stdout) == {"status": "ok", "metrics": {"a": 1}}
    assert bench.orchestrate.parse_result("crashed before printing") is None


def test_a_saved_run_renders_again_without_running_anything(bench, tmp_path, capsys):
    context = {"date": "2026-01-02 03:04 UTC", "command": "python tools/bench.py --quick", "repeats": 1,
               "epochs": "vae 2", "quick": True, "machine": {"CPU": "Fake CPU"}, "versions": {}}
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps({"context": context, "records": fake_run()}))
    out = tmp_path / "PERFORMANCE.md"
    assert bench.cli.main(["--from-json", str(saved), "--out", str(out)]) == 0
    text = out.read_text()
    assert text == capsys.readouterr().out
    assert "**Quick smoke run**" in text and "`python tools/bench.py --quick`" in text
    assert "| VAE b64: epoch, steady state [s] | 0.600 | 1.200 (2.00x) | 0.500 (0.83x) |" in text
    assert "## Spread" not in text  # one repeat: nothing to spread
