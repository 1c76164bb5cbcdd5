"""tools/bench.py without running anything: argument parsing, the plan, medians, the table.

No subprocess, no timing assertion, no Keras import: fake numbers go through the
same functions that turn real measurements into docs/PERFORMANCE.md.
"""

from __future__ import annotations

import importlib
import json
import pathlib
import sys
import types

import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(TOOLS))
    modules = {
        name: importlib.import_module(f"bench.{name}")
        for name in ("cli", "spec", "report", "timing", "data", "orchestrate", "inprocess", "startup")
    }
    return type("Bench", (), modules)


def record(case, runner, repeat=1, status="ok", reason=None, metrics=None, missing=None, info=None):
    return {
        "repeat": repeat,
        "job": {"case": case, "runner": runner},
        "result": {
            "status": status,
            "reason": reason,
            "metrics": metrics or {},
            "missing": missing or {},
            "info": info or {},
        },
    }


# ------------------------------------------------------------------ arguments


def test_defaults_run_everything_five_times_into_the_performance_file(bench):
    args = bench.cli.parse_args([])
    assert args.repeats == 5
    assert args.workloads == [
        "vae",
        "vae_train_step",
        "tfdata",
        "cnn",
        "lstm",
        "transformer",
        "functional_multi_io",
        "predict",
        "scaling",
        "data_size",
        "memory",
        "graph",
        "vae_load",
        "pretrained",
    ]
    assert args.peers == ["tfkit", "keras3", "tf_keras", "raw_tf", "keras3_jax", "transformers_torch"]
    assert args.pairs == 10
    assert args.epoch_counts == {
        "vae": 5,
        "vae_train_step": 5,
        "tfdata": 5,
        "cnn": 3,
        "lstm": 4,
        "transformer": 3,
        "functional_multi_io": 4,
        "scaling": 3,
        "data_size": 3,
    }
    assert args.out == "docs/PERFORMANCE.md"


def test_quick_is_one_repeat_two_epochs_fewer_workloads_and_only_prints(bench):
    args = bench.cli.parse_args(["--quick"])
    assert args.repeats == 1
    assert args.workloads == ["vae", "predict"]
    assert set(args.epoch_counts.values()) == {2}
    assert args.out == "-"


@pytest.mark.parametrize(
    "argv, out",
    [
        (["--workloads", "vae"], "-"),  # a partial run prints
        (["--peers", "tfkit,keras3"], "-"),
        (["--repeats", "2"], "docs/PERFORMANCE.md"),  # every workload and peer: a full run
        (["--quick", "--out", "quick.md"], "quick.md"),  # an explicit file is written
    ],
)
def test_only_a_full_run_writes_the_performance_file_by_default(bench, argv, out):
    assert bench.cli.parse_args(argv).out == out


def test_a_quick_run_refuses_to_write_the_performance_file(bench, capsys):
    with pytest.raises(SystemExit):
        bench.cli.parse_args(["--quick", "--out", "docs/PERFORMANCE.md"])
    assert "does not write docs/PERFORMANCE.md" in capsys.readouterr().err


def test_the_command_in_the_report_holds_no_machine_path(bench):
    command = bench.cli.public_command(
        ["--json", "/work/lead/bench3.json", "--out=/home/me/perf.md", "--workloads", "vae", "--out", "-"]
    )
    assert command == "python tools/bench.py --json bench3.json --out=perf.md --workloads vae --out -"
    text = bench.report.scrub_paths(
        'see /work/lead/bench3.json, File "/tmp/x/worker.py", https://a.org/b/c and docs/PERFORMANCE.md; peer / tfkit'
    )
    assert text == (
        'see <...>/bench3.json, File "<...>/worker.py", https://a.org/b/c and docs/PERFORMANCE.md; peer / tfkit'
    )


def test_explicit_options_win_over_quick(bench):
    args = bench.cli.parse_args(
        ["--quick", "--workloads", "cnn,lstm", "--repeats", "2", "--peers", "tfkit, raw_tf", "--epochs", "3"]
    )
    assert (args.repeats, args.workloads, args.peers) == (2, ["cnn", "lstm"], ["tfkit", "raw_tf"])
    assert set(args.epoch_counts.values()) == {3}


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--workloads", "vae,gan"], "unknown workload gan"),
        (["--peers", "pytorch"], "unknown peer pytorch"),
        (["--repeats", "0"], "positive integer"),
    ],
)
def test_bad_options_say_what_was_expected(bench, capsys, argv, expected):
    with pytest.raises(SystemExit):
        bench.cli.parse_args(argv)
    assert expected in capsys.readouterr().err


# ------------------------------------------------------------------ the plan


def test_plan_interleaves_runners_and_adds_the_steps_per_execution_and_xla_rows(bench):
    jobs = bench.spec.plan_jobs(["vae", "predict"], list(bench.spec.PEERS), {"vae": 5})
    assert [(job.case, job.runner) for job in jobs] == [
        ("vae", "tfkit"),
        ("vae", "keras3"),
        ("vae", "tf_keras"),
        ("vae", "tf_keras_spe100"),
        ("vae", "raw_tf"),
        ("vae", "keras3_jax"),
        ("vae", "tfkit_xla_off"),
        ("vae", "tfkit_xla_on"),
        ("vae", "tfkit_intra1"),
        ("vae", "raw_tf_intra1"),
        ("predict", "tfkit"),
        ("predict", "keras3"),
        ("predict", "tf_keras"),
        ("predict", "raw_tf"),
    ]
    spe = next(job for job in jobs if job.runner == "tf_keras_spe100")
    assert (spe.peer, spe.settings, spe.batch_size, spe.epochs) == ("tf_keras", {"steps_per_execution": 100}, 64, 5)
    pinned = {job.runner: job.settings for job in jobs if job.runner.startswith("tfkit_xla")}
    assert pinned == {"tfkit_xla_off": {"jit_compile": False}, "tfkit_xla_on": {"jit_compile": True}}
    threads = {job.runner: (job.peer, job.settings) for job in jobs if job.runner.endswith("_intra1")}
    assert threads == {
        "tfkit_intra1": ("tfkit", {"intra_op_threads": 1}),
        "raw_tf_intra1": ("raw_tf", {"intra_op_threads": 1}),
    }
    named = ("tf_keras_spe100", "tfkit_xla_off", "tfkit_xla_on", "tfkit_intra1", "raw_tf_intra1")
    assert all(job.settings == {} for job in jobs if job.runner not in named)
    assert {job.epochs for job in jobs if job.case == "predict"} == {0}


def test_each_repeat_rotates_a_cases_runners_so_none_always_runs_first(bench):
    jobs = bench.spec.plan_jobs(["predict", "cnn"], ["tfkit", "keras3", "raw_tf"], {})
    runners = {case: [job.runner for job in jobs if job.case == case] for case in ("predict", "cnn")}
    assert runners["predict"] == ["tfkit", "keras3", "raw_tf"]
    firsts = {case: [] for case in runners}
    for repeat in range(1, len(runners["cnn"]) + 1):
        order = [(job.case, job.runner) for job in bench.spec.rotated(jobs, repeat)]
        assert sorted(order) == sorted((job.case, job.runner) for job in jobs)
        assert [case for case, _ in order] == [job.case for job in jobs]  # cases stay in their order
        for case in runners:
            firsts[case].append(next(runner for c, runner in order if c == case))
    assert firsts["cnn"] == runners["cnn"]  # each runner first once
    assert (
        firsts["predict"]
        == ["tfkit", "keras3", "raw_tf"] * (len(runners["cnn"]) // 3)
        + ["tfkit", "keras3", "raw_tf"][: len(runners["cnn"]) % 3]
    )


def test_scaling_runs_tfkit_and_keras3_at_four_batch_sizes(bench):
    jobs = bench.spec.plan_jobs(["scaling"], list(bench.spec.PEERS), {"scaling": 3})
    assert [(job.batch_size, job.runner) for job in jobs] == [
        (batch, runner) for batch in (32, 64, 256, 1024) for runner in ("tfkit", "keras3")
    ]
    assert {job.workload for job in jobs} == {"vae"}


def test_data_size_runs_the_vae_on_three_row_counts(bench):
    jobs = bench.spec.plan_jobs(["data_size"], list(bench.spec.PEERS), {"data_size": 3})
    assert [(job.case, job.rows, job.runner) for job in jobs] == [
        (f"size_{label}", rows, runner)
        for label, rows in (("6k", 6_000), ("60k", 60_000), ("600k", 600_000))
        for runner in ("tfkit", "keras3", "raw_tf")
    ]
    assert {(job.workload, job.batch_size, job.epochs) for job in jobs} == {("vae", 64, 3)}


def test_memory_always_runs_ten_epochs_with_every_peer(bench):
    jobs = bench.spec.plan_jobs(["memory"], list(bench.spec.PEERS), {"vae": 2})
    assert [(job.runner, job.epochs, job.workload) for job in jobs] == [
        (runner, 10, "vae") for runner in ("tfkit", "keras3", "tf_keras", "raw_tf")
    ]
    args = bench.cli.parse_args(["--workloads", "memory", "--epochs", "2"])
    assert {job.epochs for job in bench.spec.plan_jobs(args.workloads, args.peers, args.epoch_counts)} == {10}


def test_the_new_workloads_run_every_peer_at_their_batch_sizes(bench):
    workloads = ["vae_train_step", "tfdata", "transformer", "functional_multi_io"]
    jobs = bench.spec.plan_jobs(workloads, list(bench.spec.PEERS), {"transformer": 3})
    jax = {"vae_train_step", "transformer"}  # Keras 3 on JAX runs the issue's five workloads
    assert [(job.case, job.runner) for job in jobs] == [
        (workload, runner)
        for workload in workloads
        for runner in ("tfkit", "keras3", "tf_keras", "raw_tf")
        + (("keras3_jax",) if workload in jax else ())
        + ("tfkit_xla_off", "tfkit_xla_on")
    ]
    assert {job.workload: job.batch_size for job in jobs} == {
        "vae_train_step": 64,
        "tfdata": 64,
        "transformer": 32,
        "functional_multi_io": 64,
    }
    assert {job.workload: job.epochs for job in jobs}["transformer"] == 3


def test_graph_and_vae_load_run_tfkit_and_keras3_without_training(bench):
    jobs = bench.spec.plan_jobs(["graph", "vae_load"], list(bench.spec.PEERS), {})
    assert [(job.case, job.runner) for job in jobs] == [
        (case, runner)
        for case in ("graph_chain400", "graph_chain4000", "graph_resnet", "graph_transformer", "vae_load")
        for runner in ("tfkit", "keras3")
    ]
    assert {job.workload for job in jobs} == {"graph", "vae_load"} and {job.epochs for job in jobs} == {0}


def test_graph_rows_report_per_call_costs_and_the_absolute_target(bench):
    def graph_record(case, runner, build, load, calls):
        return record(
            case,
            runner,
            metrics={
                "build_ms_per_call": build,
                "load_ms_per_call": load,
                "load_s": load * calls / 1e3,
                "layer_calls": calls,
            },
        )

    records = [
        graph_record("graph_chain4000", "tfkit", 0.1, 0.25, 4000),
        graph_record("graph_resnet", "tfkit", 3.0, 9.0, 174),
        graph_record("graph_resnet", "keras3", 4.0, 6.0, 174),
        record("vae_load", "tfkit", metrics={"load_s": 0.4, "reader_child_s": 0.2}),
        record("vae_load", "keras3", metrics={"load_s": 0.3}),
    ]
    summary = bench.report.aggregate(records)
    runners, cases = bench.cli.runners_in(records), bench.cli.cases_in(records)
    context = {"date": "d", "command": "c", "repeats": 1, "epochs": "e", "quick": False, "machine": {}, "versions": {}}
    text = bench.report.render(summary, runners, cases, context)
    for line in (
        "| Graph: ResNet-50-shaped CNN: build, per layer call [ms] | 3.000 | 4.000 (1.33x) |",
        "| Graph: ResNet-50-shaped CNN: load_model, per layer call [ms] | 9.000 | 6.000 (0.67x) |",
        "| Guide VAE: tfkit's HDF5 reader child alone [s] | 0.200 | - |",
        "- ResNet-50-shaped CNN: build per layer call, tfkit <= Keras 3: tfkit 3.000 ms vs Keras 3 4.000 ms "
        "= 0.75x (target <= 1.00x) -> **met**",
        "- ResNet-50-shaped CNN: load_model per layer call, tfkit <= Keras 3: tfkit 9.000 ms vs Keras 3 "
        "6.000 ms = 1.50x (target <= 1.00x) -> **missed**",
        "- Dense chain of 4,000 calls: load_model under 2 s: tfkit 1.000 s (target <= 2.000 s) -> **met**",
        "- Guide VAE: load_model, tfkit's .h5 <= 1.5x Keras 3's .keras: tfkit 0.400 s vs Keras 3 0.300 s "
        "= 1.33x (target <= 1.50x) -> **met**",
        "- Dense chain, 400 calls: build per layer call, tfkit <= Keras 3: not measured in this run",
    ):
        assert line in text, line


def test_columns_follow_the_fixed_runner_order(bench):
    jobs = bench.spec.plan_jobs(["cnn"], ["raw_tf", "tfkit"], {})
    assert [(job.runner, job.epochs) for job in jobs] == [
        ("tfkit", 3),
        ("raw_tf", 3),
        ("tfkit_xla_off", 3),
        ("tfkit_xla_on", 3),
    ]
    records = [record("lstm", "raw_tf"), record("cnn", "keras3"), record("lstm", "tfkit")]
    assert bench.cli.runners_in(records) == ["tfkit", "keras3", "raw_tf"]
    assert bench.cli.cases_in(records) == ["lstm", "cnn"]


# ------------------------------------------------------------------ numbers


def test_epoch_metrics_split_first_epoch_from_steady_state(bench):
    metrics = bench.timing.epoch_metrics(10.0, [13.0, 14.0, 15.5, 16.5], [0.3, 0.2, 0.1, 0.1])
    assert metrics["epoch_first_s"] == pytest.approx(3.0)
    assert metrics["epoch_steady_s"] == pytest.approx(1.0)  # median of 1.0, 1.5, 1.0
    assert metrics["loss_epoch2"] == pytest.approx(0.2)
    assert "rss_epoch1_mib" not in metrics


def test_step_metrics_divide_the_steady_epoch_and_take_the_warm_up_off_the_first(bench):
    # epochs of 4 steps: 13 s first, then 1 s, 1.5 s, 1 s (median 1 s, so 0.25 s a step)
    epoch = bench.timing.epoch_metrics(10.0, [23.0, 24.0, 25.5, 26.5], [0.3, 0.2, 0.1, 0.1])
    metrics = bench.timing.step_metrics(epoch, steps=4)
    assert metrics == pytest.approx(
        {"step_steady_s": 0.25, "epoch_first_s": 13.0, "warmup_s": 12.0, "loss_epoch2": 0.2}
    )
    one_epoch = bench.timing.step_metrics({"epoch_first_s": 3.0, "epoch_steady_s": 4.0}, steps=4)
    assert one_epoch == {"step_steady_s": 1.0, "epoch_first_s": 3.0, "warmup_s": 0.0}


def test_epoch_metrics_report_current_rss_after_the_first_and_last_epoch(bench):
    metrics = bench.timing.epoch_metrics(0.0, [1.0, 2.0, 3.0], [], rss_mib=[800.0, 805.0, 812.5])
    assert (metrics["rss_epoch1_mib"], metrics["rss_last_mib"], metrics["rss_growth_mib"]) == (800.0, 812.5, 12.5)
    assert bench.timing.current_rss_mib() > 0  # this process, now


def test_serving_latency_is_the_median_of_a_thousand_calls_in_a_full_run(bench):
    assert (bench.timing.serving_calls(quick=False), bench.timing.serving_calls(quick=True)) == (1000, 100)


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
    records.append(record("cnn", "tfkit", status="unavailable", reason="tfkit.layers.Conv2D is not available"))
    records.append(record("cnn", "keras3", metrics={"epoch_steady_s": 20.0}))
    records.append(
        record(
            "predict",
            "tfkit",
            metrics={"predict_samples_per_s": 50_000, "predict_first_s": 1.5},
            missing={"serving_latency_ms": "unavailable: no export_saved_model"},
        )
    )
    records.append(
        record(
            "predict",
            "keras3",
            metrics={"predict_samples_per_s": 10_000, "predict_first_s": 1.0, "serving_latency_ms": 0.5},
        )
    )
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
    context = {
        "date": "2026-01-02 03:04 UTC",
        "command": "python tools/bench.py --workloads vae",
        "repeats": 3,
        "epochs": "vae 5",
        "quick": False,
        "load_start": "1.20",
        "load_end": "1.80",
        "machine": {"CPU": "Fake CPU", "cores": "2 logical"},
        "versions": {"TensorFlow": "2.21.0"},
    }
    text = bench.report.render(summary, ["tfkit", "keras3", "raw_tf"], ["vae", "cnn", "predict"], context)
    assert text.startswith("# Performance")
    for fact in (
        "2026-01-02 03:04 UTC",
        "`python tools/bench.py --workloads vae`",
        "CPU: Fake CPU",
        "TensorFlow: 2.21.0",
        "- Keras 3: defaults",
        "- Repeats: 3 (each cell is the median",
        "Load average (1 min) at start / end: 1.20 / 1.80",
    ):
        assert fact in text
    assert "| VAE b64: epoch, steady state [s] | 0.500 - 0.700 (n=3) | 1.000 - 1.500 (n=3) |" in text
    targets = text.split("## Targets", 1)[1]
    assert (
        "- VAE b64: steady epoch, tfkit <= 0.80x the floor: tfkit 0.600 s vs raw TF (floor) 0.500 s "
        "= 1.20x (target <= 0.80x) -> **missed**"
    ) in targets
    assert (
        "- VAE b64: steady epoch, tfkit <= 0.60x Keras 3: tfkit 0.600 s vs Keras 3 1.200 s "
        "= 0.50x (target <= 0.60x) -> **met**"
    ) in targets
    assert "- CNN b128: steady epoch, tfkit <= 1.00x the floor: not measured in this run" in targets
    assert "- Transformer b32: steady epoch, tfkit <= 1.00x the floor: not measured in this run" in targets
    assert (
        "- VAE predict, first call: tfkit <= Keras 3: tfkit 1.500 s vs Keras 3 1.000 s "
        "= 1.50x (target <= 1.00x) -> **missed**"
    ) in targets
    assert "- VAE predict throughput: tfkit >= 0.90x the floor: not measured in this run" in targets
    assert "ssue" not in text  # targets, never issue numbers


def new_workloads_run(serving_calls=1000):
    """One repeat of the new workloads and the growth cases, as the workers would report them."""
    records = []
    params = {"vae_train_step": 107_472, "tfdata": 107_472, "transformer": 657_758, "functional_multi_io": 111_851}
    for case, (mine, keras3, floor) in {
        "vae_train_step": (0.9, 2.0, 0.85),
        "tfdata": (1.5, 2.5, 1.4),
        "transformer": (20.0, 40.0, 21.0),
        "functional_multi_io": (1.0, 3.0, 0.8),
    }.items():
        for runner, steady in (("tfkit", mine), ("keras3", keras3), ("raw_tf", floor)):
            records.append(
                record(
                    case,
                    runner,
                    metrics={"epoch_steady_s": steady, "epoch_first_s": 2 * steady, "loss_epoch2": 0.0676},
                    info={"params": params[case] + (6 if (case, runner) == ("tfdata", "keras3") else 0)},
                )
            )
    for label, rows, steady in (("6k", 6_000, 0.09), ("60k", 60_000, 0.8), ("600k", 600_000, 8.4)):
        records.append(record(f"size_{label}", "tfkit", metrics={"us_per_sample": 1e6 * steady / rows}))
    records.append(
        record("memory", "tfkit", metrics={"rss_epoch1_mib": 1100.0, "rss_last_mib": 1112.0, "rss_growth_mib": 12.0})
    )
    records.append(
        record("memory", "keras3", metrics={"rss_epoch1_mib": 1400.0, "rss_last_mib": 1540.0, "rss_growth_mib": 140.0})
    )
    records.append(record("predict", "tfkit", metrics={"serving_latency_ms": 0.30, "serving_calls": serving_calls}))
    records.append(record("predict", "tf_keras", metrics={"serving_latency_ms": 0.25, "serving_calls": serving_calls}))
    return records


def test_new_rows_parameter_counts_and_targets(bench):
    records = new_workloads_run()
    summary = bench.report.aggregate(records)
    runners, cases = bench.cli.runners_in(records), bench.cli.cases_in(records)
    assert runners == ["tfkit", "keras3", "tf_keras", "raw_tf"]
    context = {"date": "d", "command": "c", "repeats": 1, "epochs": "e", "quick": False, "machine": {}, "versions": {}}
    text = bench.report.render(summary, runners, cases, context)
    for line in (
        "| VAE own train_step b64: epoch, steady state [s] | 0.900 | 2.000 (2.22x) | - | 0.850 (0.94x) |",
        "| VAE from tf.data b64: loss after epoch 2 (sanity) | 0.0676 | 0.0676 | - | 0.0676 |",
        "| Transformer b32: first epoch (tracing incl.) [s] | 40.000 | 80.000 (2.00x) | - | 42.000 (1.05x) |",
        "| Data size: VAE 600,000 rows, steady, per sample [us] | 14.00 | - | - | - |",
        "| Memory: VAE RSS after epoch 10 [MiB] | 1,112 | 1,540 (1.38x) | - | - |",
        "| Memory: VAE RSS growth, epoch 1 to 10 [MiB] | 12 | 140 | - | - |",
        "| transformer | 657,758 | 657,758 | - | 657,758 | yes |",
        "| tfdata | 107,472 | 107,478 | - | 107,472 | NO |",
        "- VAE own train_step b64: steady epoch, tfkit <= 1.05x the floor: tfkit 0.900 s vs raw TF (floor) "
        "0.850 s = 1.06x (target <= 1.05x) -> **missed**",
        "- Transformer b32: steady epoch, tfkit <= 1.00x the floor: tfkit 20.000 s vs raw TF (floor) "
        "21.000 s = 0.95x (target <= 1.00x) -> **met**",
        "- 2-in/2-out functional b64: first epoch (tracing incl.), tfkit <= 1.10x the floor: tfkit 2.000 s "
        "vs raw TF (floor) 1.600 s = 1.25x (target <= 1.10x) -> **missed**",
        "- VAE SavedModel 1-sample latency (median of >= 1,000 calls): tfkit's export <= tf-keras's: "
        "tfkit 0.300 ms vs tf-keras 0.250 ms = 1.20x (target <= 1.00x) -> **missed**",
    ):
        assert line in text, line


def test_auto_xla_is_held_to_the_better_pinned_setting_and_arithmetic_is_reported(bench):
    records = [
        record(
            "lstm",
            "tfkit",
            metrics={"epoch_steady_s": 2.0, "run_s": 10.4, "flops_per_sample": 1.5e7, "samples_per_epoch": 20_000},
        ),
        record("lstm", "raw_tf", metrics={"epoch_steady_s": 4.0}),
        record("lstm", "tfkit_xla_off", metrics={"epoch_steady_s": 3.0, "run_s": 13.0}),
        record("lstm", "tfkit_xla_on", metrics={"epoch_steady_s": 2.0, "run_s": 10.0}),
    ]
    summary = bench.report.aggregate(records)
    runners = bench.cli.runners_in(records)
    assert runners == ["tfkit", "raw_tf", "tfkit_xla_off", "tfkit_xla_on"]
    context = {
        "date": "d",
        "command": "c",
        "repeats": 1,
        "epochs": "e",
        "quick": False,
        "machine": {},
        "versions": {},
        "matmul_gflops": 200.0,
    }
    text = bench.report.render(summary, runners, ["lstm"], context)
    assert (
        "- LSTM b64: whole run (first + steady epochs), jit_compile='auto' <= 1.05x the better of XLA off "
        "and on: tfkit 10.400 s vs the better of tfkit XLA off and tfkit XLA on 10.000 s = 1.04x "
        "(target <= 1.05x) -> **met**"
    ) in text
    # 15 MFLOP x 20,000 samples = 300 GFLOP per epoch: 150 GFLOP/s in 2 s (75% of 200), 75 in 4 s
    assert "| LSTM b64 | 15.000 | 300.0 | 150.0 (75%) | 75.0 (38%) | 100.0 (50%) | 150.0 (75%) |" in text
    assert "large-matmul rate (tf.matmul, 2048x2048 float32): 200 GFLOP/s" in text


def test_the_latency_target_is_not_judged_on_fewer_than_a_thousand_calls(bench):
    summary = bench.report.aggregate(new_workloads_run(serving_calls=100))
    lines = [line for line in bench.report.target_lines(summary) if "SavedModel" in line]
    assert lines[0].endswith("-> **not judged (missed on a median of 100 calls; the target needs >= 1,000)**")


def test_raw_tf_settings_name_each_loop_with_its_cases(bench):
    records = [
        record("vae", "raw_tf", info={"loop": "in-graph gather", "params": 1}),
        record("tfdata", "raw_tf", info={"loop": "in-graph dataset", "params": 1}),
        record("vae", "tfkit", info={"jit_compile": "False", "tfkit_file": "/x/tfkit/__init__.py"}),
    ]
    lines = bench.report.settings_lines(bench.report.aggregate(records), ["tfkit", "raw_tf"])
    assert lines[0] == "- tfkit: defaults (resolved: jit_compile=False)"
    assert lines[1] == ("- raw TF (floor): defaults\n  - vae: loop=in-graph gather\n  - tfdata: loop=in-graph dataset")


# ------------------------------------------------------------------ helpers


def test_lstm_sequences_are_fixed_left_padded_and_labelled(bench):
    sequences, labels = bench.data.make_sequences(samples=200, length=20, vocab=50, seed=3)
    again, _ = bench.data.make_sequences(samples=200, length=20, vocab=50, seed=3)
    assert sequences.shape == (200, 20) and labels.shape == (200, 1)
    assert (sequences == again).all()
    assert (sequences[:, -1] > 0).all()  # padding is on the left
    assert ((sequences[:, 1:] > 0) | (sequences[:, :-1] == 0)).all()  # no zero after a token
    assert 0.2 < labels.mean() < 0.8


def test_text_sequences_are_fixed_padded_and_balanced(bench):
    sequences, labels = bench.data.make_text(samples=500, length=50, vocab=2000, seed=5)
    again, _ = bench.data.make_text(samples=500, length=50, vocab=2000, seed=5)
    assert sequences.shape == (500, 50) and labels.shape == (500,) and labels.dtype.name == "int32"
    assert (sequences == again).all() and sequences.max() < 2000
    assert (sequences[:, -1] > 0).all() and ((sequences[:, 1:] > 0) | (sequences[:, :-1] == 0)).all()
    assert 0.3 < labels.mean() < 0.7


def test_aux_inputs_and_targets_are_fixed(bench):
    import numpy as np

    images = np.arange(20 * 784, dtype="uint8").reshape(20, 28, 28)
    aux, target = bench.data.make_aux(images, np.arange(20) % 10)
    again, _ = bench.data.make_aux(images, np.arange(20) % 10)
    assert aux.shape == (20, 10) and target.shape == (20, 1) and (aux == again).all()


def test_vae_data_can_be_a_subset_or_tiled(bench, tmp_path):
    import numpy as np

    np.save(tmp_path / "mnist_x.npy", np.arange(3 * 784, dtype="uint8").reshape(3, 28, 28) % 251)
    x, y = bench.data.load(tmp_path, "vae", rows=7)
    assert x.shape == (7, 784) and x.dtype.name == "float32" and y is x
    assert (x[3] == x[0]).all() and (x[6] == x[0]).all()
    assert bench.data.load(tmp_path, "tfdata", rows=2)[0].shape == (2, 784)
    with pytest.raises(ValueError, match="rows="):
        bench.data.load(tmp_path, "cnn", rows=2)


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
    context = {
        "date": "2026-01-02 03:04 UTC",
        "command": "python tools/bench.py --quick",
        "repeats": 1,
        "epochs": "vae 2",
        "quick": True,
        "machine": {"CPU": "Fake CPU"},
        "versions": {},
    }
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps({"context": context, "records": fake_run()}))
    out = tmp_path / "PERFORMANCE.md"
    assert bench.cli.main(["--from-json", str(saved), "--out", str(out)]) == 0
    text = out.read_text()
    assert text == capsys.readouterr().out
    assert "**Quick smoke run**" in text and "`python tools/bench.py --quick`" in text
    assert "| VAE b64: epoch, steady state [s] | 0.600 | 1.200 (2.00x) | 0.500 (0.83x) |" in text
    assert "## Spread" not in text  # one repeat: nothing to spread


def test_a_saved_quick_run_only_prints_and_old_paths_are_scrubbed(bench, tmp_path, capsys):
    context = {
        "date": "d",
        "command": "python tools/bench.py --quick --json /work/lead/bench3.json",
        "repeats": 1,
        "epochs": "vae 2",
        "quick": True,
        "machine": {},
        "versions": {},
    }
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps({"context": context, "records": fake_run()}))
    assert bench.cli.main(["--from-json", str(saved)]) == 0
    captured = capsys.readouterr()
    assert "`python tools/bench.py --quick --json <...>/bench3.json`" in captured.out
    assert "/work/" not in captured.out and "wrote" not in captured.err
    with pytest.raises(SystemExit, match="does not go to docs/PERFORMANCE.md"):
        bench.cli.main(["--from-json", str(saved), "--out", "docs/PERFORMANCE.md"])


def test_the_tfkit_commit_is_read_from_a_checkout_or_a_worktree(bench, tmp_path):
    main, worktree = tmp_path / "main", tmp_path / "wt"
    (main / ".git" / "refs" / "heads").mkdir(parents=True)
    (main / ".git" / "HEAD").write_text("ref: refs/heads/trunk\n")
    (main / ".git" / "refs" / "heads" / "trunk").write_text("a" * 40 + "\n")
    (main / ".git" / "packed-refs").write_text("# pack-refs\n" + "b" * 40 + " refs/heads/side\n")
    assert bench.cli._git_commit(main) == "a" * 40
    (main / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (main / ".git" / "worktrees" / "wt" / "HEAD").write_text("ref: refs/heads/side\n")
    (main / ".git" / "worktrees" / "wt" / "commondir").write_text("../..\n")
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'wt'}\n")
    assert bench.cli._git_commit(worktree) == "b" * 40
    assert bench.cli._git_commit(tmp_path / "nowhere") is None


def test_the_worker_sets_the_intra_op_threads_before_the_peer_runs_and_never_passes_them_on(bench, monkeypatch):
    import os
    import sys
    import types

    import numpy as np

    worker = importlib.import_module("bench.worker")
    seen = {}

    def train(job, x, y):
        seen.update(settings=job["settings"], threads=os.environ.get("TF_NUM_INTRAOP_THREADS"))
        return {"epoch_steady_s": 1.0}, {}

    peer = types.ModuleType("bench.peer_tfkit")
    peer.load, peer.train = (lambda name: None), train
    monkeypatch.setitem(sys.modules, "bench.peer_tfkit", peer)
    monkeypatch.setattr(bench.data, "load", lambda directory, workload, rows=None: (np.zeros(2), np.zeros(2)))
    environ = {key: value for key, value in os.environ.items() if key != "TF_NUM_INTRAOP_THREADS"}
    monkeypatch.setattr(os, "environ", environ)  # this process's TensorFlow is never told
    job = {"peer": "tfkit", "workload": "vae", "settings": {"intra_op_threads": 1}, "rows": None}
    result = worker.run_job(job, "unused")
    assert result["status"] == "ok" and seen == {"settings": {}, "threads": "1"}
    assert job["settings"] == {"intra_op_threads": 1}  # the caller's job is left as it was


def test_a_graph_job_reports_which_tfkit_it_imported(bench, monkeypatch):
    """--baseline refuses a result without info.tfkit_file: the graph branch returned before setting it."""
    import tfkit  # the worker reports the tfkit this process imported

    worker = importlib.import_module("bench.worker")
    peer = types.ModuleType("bench.peer_tfkit")
    peer.load, peer.graph = (lambda name: None), (lambda job, work_dir: ({"build_s": 0.5}, {"layer_calls": 3}))
    monkeypatch.setitem(sys.modules, "bench.peer_tfkit", peer)
    result = worker.run_job({"peer": "tfkit", "workload": "graph", "settings": {}}, "unused")
    assert result["status"] == "ok" and result["metrics"] == {"build_s": 0.5}
    assert result["info"]["tfkit_file"] == tfkit.__file__


# ------------------------------------------------------------------ the in-process A/B


def rounds_of(*pairs):
    """Rounds of (tfkit steady epoch, keras3 steady epoch)."""
    return [
        {
            "tfkit": {"epoch_steady_s": mine, "loss_epoch2": 0.0676},
            "keras3": {"epoch_steady_s": theirs, "loss_epoch2": 0.0676},
        }
        for mine, theirs in pairs
    ]


def test_in_process_ratios_are_taken_per_pair_not_from_the_medians(bench):
    # a drift that slows both sides of a round cancels in its ratio: each pair is exactly 3x
    rounds = rounds_of((0.1, 0.3), (0.2, 0.6), (0.4, 1.2))
    assert bench.inprocess.pair_ratios(rounds, "keras3", "epoch_steady_s") == pytest.approx([3.0, 3.0, 3.0])
    summary = bench.inprocess.summarize({"rounds": rounds}, "keras3", "epoch_steady_s")
    assert summary == pytest.approx({"median": 0.6, "n": 3, "ratio": 3.0, "low": 3.0, "high": 3.0, "pairs": 3})
    # a round a peer missed (it failed) pairs nothing
    rounds.append({"tfkit": {"epoch_steady_s": 0.1}})
    assert len(bench.inprocess.pair_ratios(rounds, "keras3", "epoch_steady_s")) == 3
    assert bench.inprocess.summarize({"rounds": rounds}, "tf_keras", "epoch_steady_s") is None


def test_in_process_table_gives_median_ratio_and_spread(bench):
    result = {
        "case": "vae",
        "rounds": rounds_of((0.30, 1.2), (0.40, 1.0), (0.35, 1.4)),
        "problems": {"tf_keras": "unavailable: ModuleNotFoundError: No module named 'tf_keras'"},
    }
    text = bench.inprocess.render([result], ["tfkit", "keras3", "tf_keras"])
    assert "| measurement | tfkit | Keras 3 | tf-keras |" in text
    assert "| VAE b64: epoch, steady state [s] | 0.350 | 1.200 (4.00x; 2.50-4.00, n=3) | - |" in text
    assert "| VAE b64: loss after epoch 2 (sanity) | 0.0676 | 0.0676 | - |" in text
    assert "- vae, tf_keras: unavailable: ModuleNotFoundError" in text


def test_in_process_runs_the_training_cases_with_the_tensorflow_peers_only(bench, monkeypatch):
    ran = []
    monkeypatch.setattr(bench.orchestrate, "prepare_data", lambda *args, **kwargs: None)
    monkeypatch.setattr(
        bench.inprocess,
        "run_case",
        lambda case, peers, pairs, epochs, *rest, **kwargs: ran.append((case, peers, pairs, epochs)),
    )
    args = bench.cli.parse_args(["--in-process", "--workloads", "vae,predict,cnn", "--pairs", "12"])
    bench.cli.run_in_process(args)
    assert ran == [
        ("vae", ["tfkit", "keras3", "tf_keras", "raw_tf"], 12, 3),
        ("cnn", ["tfkit", "keras3", "tf_keras", "raw_tf"], 12, 3),
    ]
    assert bench.cli.run_in_process(bench.cli.parse_args(["--in-process", "--peers", "keras3,raw_tf"])) == []


def test_startup_script_times_each_step_and_prints_them(bench):
    source = bench.startup._timed_script([("a_s", "x = 1"), ("b_s", "y = x + 1")])
    namespace = {}
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<startup>", "exec"), namespace)
    assert namespace["y"] == 2
    times = json.loads(out.getvalue().split("STARTUP ", 1)[1])
    assert set(times) == {"a_s", "b_s"} and all(value >= 0 for value in times.values())


def test_startup_table_pairs_each_round_and_leaves_tensorflow_to_the_import_row(bench):
    rounds = [
        {
            "tensorflow": {"import_s": tf_s, "import_min_s": 1.0},
            "tfkit": {"import_s": tfkit_s, "import_min_s": 1.5, "cold_total_s": 4.0},
            "keras3": {"import_s": keras_s, "import_min_s": 2.0, "cold_total_s": 6.0},
        }
        for tf_s, tfkit_s, keras_s in ((2.0, 2.1, 3.0), (2.4, 2.9, 3.1), (1.0, 1.2, 2.9))
    ]
    text = bench.startup.render({"pairs": 3, "rounds": rounds})
    assert (
        "| import, minimal environment (TensorFlow + the framework) [s] | 1.500 | 2.000 (1.33x; 1.33-1.33, n=3) "
        "| 1.000 (0.67x; 0.67-0.67, n=3) |"
    ) in text
    # median(tfkit) - median(tensorflow) = 2.1 - 2.0, not the median of the per-round differences (0.2)
    beyond = next(line for line in text.splitlines() if "beyond `import tensorflow`" in line and "shared" in line)
    assert beyond.endswith("| +0.100 | +1.000 | - |")
    assert "difference of medians" in text and "(median - median of `import tensorflow`, no ratio)" in beyond
    minimal = next(line for line in text.splitlines() if "beyond `import tensorflow`" in line and "minimal" in line)
    assert minimal.endswith("| +0.500 | +1.000 | - |") and "x;" not in minimal


def test_a_minimal_site_links_everything_but_what_it_leaves_out(bench, tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    for name in ("keras", "keras-3.15.1.dist-info", "numpy", "numpy-2.4.6.dist-info", "sklearn", "a.pth"):
        (site / name).mkdir(parents=True) if "." not in name or name.endswith("info") else (site / name).write_text("")
    import sysconfig

    monkeypatch.setattr(sysconfig, "get_paths", lambda: {"purelib": str(site)})
    view = bench.startup.minimal_site(str(tmp_path), ("keras", "sklearn"))
    assert sorted(p.name for p in pathlib.Path(view).iterdir()) == ["a.pth", "numpy", "numpy-2.4.6.dist-info"]
    assert (pathlib.Path(view) / "numpy").resolve() == site / "numpy"


def test_start_up_is_timed_from_bytecode_even_where_python_writes_none(bench, tmp_path, monkeypatch):
    package = tmp_path / "tfkit" / "sub"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("X = 1\n")
    (tmp_path / "tfkit" / "__init__.py").write_text("")
    monkeypatch.setattr(bench.orchestrate, "REPO_ROOT", tmp_path)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # PYTHONDONTWRITEBYTECODE=1, as on CI
    bench.startup.ensure_bytecode()
    import importlib.util

    for source in ("tfkit/__init__.py", "tfkit/sub/__init__.py"):
        assert pathlib.Path(importlib.util.cache_from_source(str(tmp_path / source))).is_file()


def test_keras3_on_jax_targets_are_judged_on_per_repeat_pairs_not_on_medians(bench):
    # tfkit's repeats drift 1 s -> 3 s; JAX's third repeat ran in a quiet moment
    records = [
        record("vae", runner, repeat=repeat, metrics={"epoch_steady_s": value})
        for runner, values in (("tfkit", (1.0, 2.0, 3.0)), ("keras3_jax", (1.1, 2.2, 1.5)))
        for repeat, value in zip((1, 2, 3), values)
    ]
    summary = bench.report.aggregate(records)
    target = next(
        t for t in bench.report.TARGETS if t.case == "vae" and t.peer == "keras3_jax" and t.metric == "epoch_steady_s"
    )
    assert bench.report.repeat_pair_ratios(summary, target) == pytest.approx([1 / 1.1, 2 / 2.2, 2.0])
    line = next(line for line in bench.report.target_lines(summary) if line.startswith(f"- {target.description}"))
    assert line == (
        f"- {target.description}: median of 3 per-repeat ratios tfkit / Keras 3 on JAX = 0.91x "
        f"(0.91-2.00; target <= 1.00x) -> **met** (cross-process medians: 2.000 s vs 1.500 s = 1.33x)"
    )
    one_repeat = bench.report.aggregate([r for r in records if r["repeat"] == 3])  # one pair: medians decide
    line = next(line for line in bench.report.target_lines(one_repeat) if line.startswith(f"- {target.description}"))
    assert "= 2.00x (target <= 1.00x) -> **missed**" in line and "per-repeat" not in line


def test_targets_are_judged_on_the_in_process_pairs_and_the_paired_start_up(bench):
    records = [
        record("vae", "tfkit", metrics={"epoch_steady_s": 0.40}),
        record("vae", "keras3", metrics={"epoch_steady_s": 0.60}),  # cross-process: 0.67x, met
        record("vae", "keras3_jax", metrics={"epoch_steady_s": 0.35, "epoch_first_s": 2.0}),
    ]
    summary = bench.report.aggregate(records)
    in_process = [{"case": "vae", "rounds": rounds_of((0.30, 0.45), (0.32, 0.40), (0.31, 0.50))}]  # 0.62-0.80
    startup = {
        "pairs": 2,
        "rounds": [
            {"tfkit": {"import_min_s": 3.0, "cold_total_s": 5.0}, "keras3": {"import_min_s": 4.0, "cold_total_s": 4.5}}
        ]
        * 2,
    }
    serving = {
        "calls": 3000,
        "exports": {
            "tfkit": {"p50_ms": 0.15, "p90_ms": 0.20, "nodes": 77.0},
            "tf_keras": {"p50_ms": 0.16, "p90_ms": 0.19, "nodes": 70.0},
        },
    }
    context = {
        "date": "d",
        "command": "c",
        "repeats": 1,
        "epochs": "e",
        "quick": False,
        "machine": {},
        "versions": {},
        "in_process": in_process,
        "in_process_peers": ["tfkit", "keras3"],
        "startup": startup,
        "serving": serving,
    }
    text = bench.report.render(summary, ["tfkit", "keras3", "keras3_jax"], ["vae"], context)
    targets = text.split("## Targets", 1)[1]
    assert (
        "- VAE b64: steady epoch, tfkit <= 0.60x Keras 3: in-process A/B, median of 3 per-pair ratios "
        "tfkit / Keras 3 = 0.67x (target <= 0.60x) -> **missed** (cross-process medians: 0.400 s vs 0.600 s "
        "= 0.67x)"
    ) in targets
    assert (
        "- VAE b64: steady epoch, tfkit <= Keras 3 on JAX: tfkit 0.400 s vs Keras 3 on JAX 0.350 s = 1.14x "
        "(target <= 1.00x) -> **missed**"
    ) in targets
    assert "- VAE b64: whole fit, tfkit <= Keras 3 on JAX: not measured in this run" in targets
    assert (
        "- import tfkit <= import keras (each in its minimal environment): median of 2 paired rounds "
        "tfkit / Keras 3 = 0.75x -> **met**"
    ) in targets
    assert (
        "cold start (import, load the 400-call chain, first predict) <= Keras 3: median of 2 paired rounds "
        "tfkit / Keras 3 = 1.11x -> **missed**" in targets
    )
    assert (
        "- Serving latency p50 (interleaved, 3,000 calls): tfkit's export 0.1500 ms vs tf-keras's 0.1600 ms "
        "= 0.94x -> **met**" in targets
    )
    assert "-> **missed**" in targets.split("Serving latency p90")[1].split("\n")[0]
    assert "## In-process A/B (TensorFlow peers in one process)" in text and "## Start-up" in text
    assert "| tf-keras | 0.1600 (1.07x) | 0.1900 (0.95x) | 70 |" in text
