"""What the benchmark measures: runners, cases, jobs and table rows (plain data, no TF).

    from bench import spec
    jobs = spec.plan_jobs(["vae"], ["tfkit", "keras3"], epochs={"vae": 5})
    [job.runner for job in jobs]        # ['tfkit', 'keras3']

A *peer* is a framework the user picks with ``--peers``; a *runner* is one column
of the table (a peer with its default settings, or a peer with one named setting,
such as tf-keras with ``steps_per_execution=100``). A *case* is one workload at one
batch size; a *job* is one (case, runner) measurement, run in its own subprocess.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from bench import pretrained

PEERS: tuple[str, ...] = ("tfkit", "keras3", "tf_keras", "raw_tf", "keras3_jax", "transformers_torch")
WORKLOADS: tuple[str, ...] = (
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
)
QUICK_WORKLOADS: tuple[str, ...] = ("vae", "predict")
SCALING_BATCH_SIZES: tuple[int, ...] = (32, 64, 256, 1024)
SCALING_PEERS: tuple[str, ...] = ("tfkit", "keras3")
DATA_SIZES: tuple[int, ...] = (6_000, 60_000, 600_000)  # MNIST rows: a tenth, all, tiled 10 times
DATA_SIZE_PEERS: tuple[str, ...] = ("tfkit", "keras3", "raw_tf")
MEMORY_EPOCHS = 10  # the memory workload always runs this many epochs (--epochs does not change it)
GRAPH_CASES: tuple[str, ...] = ("graph_chain400", "graph_chain4000", "graph_resnet", "graph_transformer")
GRAPH_PEERS: tuple[str, ...] = ("tfkit", "keras3")  # building and loading functional graphs (tools/bench/graphs.py)
JAX_CASES: tuple[str, ...] = ("vae", "vae_train_step", "cnn", "lstm", "transformer")
# tfkit.hub, KerasHub on TensorFlow (the keras3 peer) and KerasHub on JAX (keras3_jax): bench/pretrained.py
PRETRAINED_CASES: tuple[str, ...] = pretrained.CASE_NAMES
# Cases whose tfkit time is held to the targets (the others describe how cost grows).
TRAINING_WORKLOADS: tuple[str, ...] = (
    "vae",
    "vae_train_step",
    "tfdata",
    "cnn",
    "lstm",
    "transformer",
    "functional_multi_io",
)


@dataclasses.dataclass(frozen=True)
class Runner:
    """One column of the table: a peer plus the settings it is run with."""

    name: str
    peer: str
    title: str
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    cases: tuple[str, ...] | None = None  # None: every case its peer runs


RUNNERS: tuple[Runner, ...] = (
    Runner("tfkit", "tfkit", "tfkit"),
    Runner("keras3", "keras3", "Keras 3"),
    Runner("tf_keras", "tf_keras", "tf-keras"),
    Runner("tf_keras_spe100", "tf_keras", "tf-keras spe=100", settings={"steps_per_execution": 100}, cases=("vae",)),
    Runner("raw_tf", "raw_tf", "raw TF (floor)"),
    # Keras 3 on JAX compiles the whole step with XLA: the peer a user who wants speed may pick (bench extra: jax).
    Runner("keras3_jax", "keras3_jax", "Keras 3 on JAX", cases=JAX_CASES + PRETRAINED_CASES),
    # Hugging Face Transformers on PyTorch, the pretrained workload only, under the interpreter --torch-python names
    # (bench/peer_transformers.py); without one, its cells are "unavailable".
    Runner("transformers_torch", "transformers_torch", "Transformers on PyTorch", cases=PRETRAINED_CASES),
    # tfkit's default is jit_compile="auto" (measured per run); these pin XLA so "auto" can be judged.
    Runner("tfkit_xla_off", "tfkit", "tfkit XLA off", settings={"jit_compile": False}, cases=TRAINING_WORKLOADS),
    Runner("tfkit_xla_on", "tfkit", "tfkit XLA on", settings={"jit_compile": True}, cases=TRAINING_WORKLOADS),
    # Every other column runs as many intra-op threads as cores (TensorFlow's default). These two show what one
    # thread does to the VAE's small ops: a process-wide setting a user may make, which no framework makes for
    # them (tools/bench/worker.py sets it before TensorFlow starts).
    Runner("tfkit_intra1", "tfkit", "tfkit 1 intra-op thread", settings={"intra_op_threads": 1}, cases=("vae",)),
    Runner("raw_tf_intra1", "raw_tf", "raw TF 1 intra-op thread", settings={"intra_op_threads": 1}, cases=("vae",)),
)
RUNNERS_BY_NAME: dict[str, Runner] = {runner.name: runner for runner in RUNNERS}
BASELINE = "tfkit"


@dataclasses.dataclass(frozen=True)
class Case:
    """One workload at one batch size."""

    name: str
    workload: str  # what the worker builds: a key of data.load ("vae", "tfdata", "transformer", ...)
    batch_size: int
    peers: tuple[str, ...] = PEERS
    trains: bool = True
    rows: int | None = None  # VAE cases: train on this many MNIST rows (subset or tiled)
    epochs: int | None = None  # fixed epoch count, whatever --epochs says


def _size_label(rows: int) -> str:
    return f"{rows // 1000}k" if rows % 1000 == 0 else str(rows)


CASES: dict[str, Case] = {
    "vae": Case("vae", "vae", 64),
    "vae_train_step": Case("vae_train_step", "vae_train_step", 64),
    "tfdata": Case("tfdata", "tfdata", 64),
    "cnn": Case("cnn", "cnn", 128),
    "lstm": Case("lstm", "lstm", 64),
    "transformer": Case("transformer", "transformer", 32),
    "functional_multi_io": Case("functional_multi_io", "functional_multi_io", 64),
    "predict": Case("predict", "predict", 1024, trains=False),
}
for _batch in SCALING_BATCH_SIZES:
    CASES[f"scaling_b{_batch}"] = Case(f"scaling_b{_batch}", "vae", _batch, peers=SCALING_PEERS)
for _rows in DATA_SIZES:
    CASES[f"size_{_size_label(_rows)}"] = Case(
        f"size_{_size_label(_rows)}", "vae", 64, peers=DATA_SIZE_PEERS, rows=_rows
    )
CASES["memory"] = Case("memory", "vae", 64, epochs=MEMORY_EPOCHS)
for _graph in GRAPH_CASES:
    CASES[_graph] = Case(_graph, "graph", 0, peers=GRAPH_PEERS, trains=False)
CASES["vae_load"] = Case("vae_load", "vae_load", 0, peers=GRAPH_PEERS, trains=False)
for _case in pretrained.CASES.values():
    CASES[_case.name] = Case(_case.name, "pretrained", _case.batch_size, peers=_case.peers, trains=False)


def cases_for_workload(workload: str) -> list[str]:
    """The case names a ``--workloads`` entry expands to."""
    if workload == "scaling":
        return [f"scaling_b{batch}" for batch in SCALING_BATCH_SIZES]
    if workload == "data_size":
        return [f"size_{_size_label(rows)}" for rows in DATA_SIZES]
    if workload == "graph":
        return list(GRAPH_CASES)
    if workload == "pretrained":
        return list(PRETRAINED_CASES)
    return [workload]


@dataclasses.dataclass(frozen=True)
class Row:
    """One line of the table: a metric of a case."""

    case: str
    metric: str
    label: str
    unit: str
    better: str | None  # "lower", "higher" or None (no ratio: a sanity value)
    digits: int = 3


def _training_rows(case: str, label: str, extra: tuple[Row, ...] = ()) -> tuple[Row, ...]:
    return (
        (
            Row(case, "epoch_steady_s", f"{label}: epoch, steady state", "s", "lower"),
            Row(case, "epoch_first_s", f"{label}: first epoch (tracing incl.)", "s", "lower"),
            Row(case, "run_s", f"{label}: whole fit, all epochs", "s", "lower"),
        )
        + extra
        + (Row(case, "loss_epoch2", f"{label}: loss after epoch 2 (sanity)", "", None, 4),)
    )


GRAPH_LABELS: dict[str, str] = {
    "graph_chain400": "Graph: Dense chain, 400 calls",
    "graph_chain4000": "Graph: Dense chain, 4,000 calls",
    "graph_resnet": "Graph: ResNet-50-shaped CNN",
    "graph_transformer": "Graph: 6-block transformer",
}

CASE_LABELS: dict[str, str] = {
    "vae": "VAE b64",
    "vae_train_step": "VAE own train_step b64",
    "tfdata": "VAE from tf.data b64",
    "cnn": "CNN b128",
    "lstm": "LSTM b64",
    "transformer": "Transformer b32",
    "functional_multi_io": "2-in/2-out functional b64",
}

ROWS: tuple[Row, ...] = (
    _training_rows("vae", CASE_LABELS["vae"], (Row("vae", "peak_rss_mib", "VAE b64: peak RSS", "MiB", "lower", 0),))
    + sum((_training_rows(case, CASE_LABELS[case]) for case in TRAINING_WORKLOADS[1:]), ())
    + (
        Row("predict", "predict_samples_per_s", "VAE predict b1024: throughput", "samples/s", "higher", 0),
        Row("predict", "predict_first_s", "VAE predict: first call (tracing incl.)", "s", "lower"),
        Row("predict", "serving_latency_ms", "VAE SavedModel: 1-sample latency", "ms", "lower"),
    )
    + tuple(
        Row(f"scaling_b{batch}", "epoch_steady_s", f"Scaling: VAE b{batch} epoch, steady", "s", "lower")
        for batch in SCALING_BATCH_SIZES
    )
    + tuple(
        Row(
            f"size_{_size_label(rows)}",
            "us_per_sample",
            f"Data size: VAE {rows:,} rows, steady, per sample",
            "us",
            "lower",
            2,
        )
        for rows in DATA_SIZES
    )
    + tuple(
        row
        for case, label in GRAPH_LABELS.items()
        for row in (
            Row(case, "build_ms_per_call", f"{label}: build, per layer call", "ms", "lower"),
            Row(case, "load_ms_per_call", f"{label}: load_model, per layer call", "ms", "lower"),
            Row(case, "load_s", f"{label}: load_model, whole model", "s", "lower"),
        )
    )
    + (
        Row("vae_load", "load_s", "Guide VAE: load_model (.h5 / Keras's .keras)", "s", "lower"),
        Row("vae_load", "reader_child_s", "Guide VAE: tfkit's HDF5 reader child alone", "s", None),
    )
    + (
        Row("memory", "rss_epoch1_mib", "Memory: VAE RSS after epoch 1", "MiB", "lower", 0),
        Row("memory", "rss_last_mib", f"Memory: VAE RSS after epoch {MEMORY_EPOCHS}", "MiB", "lower", 0),
        Row("memory", "rss_growth_mib", f"Memory: VAE RSS growth, epoch 1 to {MEMORY_EPOCHS}", "MiB", None, 0),
    )
    + tuple(Row(*fields) for fields in pretrained.row_fields())
)

DEFAULT_EPOCHS: dict[str, int] = {
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
QUICK_EPOCHS = 2


@dataclasses.dataclass(frozen=True)
class Job:
    """One measurement: a case run by a runner, in its own subprocess."""

    case: str
    runner: str
    peer: str
    workload: str
    batch_size: int
    epochs: int
    settings: dict[str, Any]
    quick: bool = False
    rows: int | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def epochs_for_case(case: str, epochs: dict[str, int]) -> int:
    """Epoch count of a case: scaling cases share ``"scaling"``, size cases ``"data_size"``."""
    fixed = CASES[case].epochs if case in CASES else None
    if fixed is not None:
        return fixed
    key = "scaling" if case.startswith("scaling_") else "data_size" if case.startswith("size_") else case
    return int(epochs.get(key, DEFAULT_EPOCHS.get(key, 1)))


def plan_jobs(workloads: list[str], peers: list[str], epochs: dict[str, int], quick: bool = False) -> list[Job]:
    """The jobs of one repeat, interleaved: every runner of a case before the next case."""
    jobs = []
    for workload in workloads:
        for case_name in cases_for_workload(workload):
            case = CASES[case_name]
            for runner in RUNNERS:
                if runner.peer not in peers or runner.peer not in case.peers:
                    continue
                if runner.cases is not None and case_name not in runner.cases:
                    continue
                jobs.append(
                    Job(
                        case=case_name,
                        runner=runner.name,
                        peer=runner.peer,
                        workload=case.workload,
                        batch_size=case.batch_size,
                        epochs=epochs_for_case(case_name, epochs) if case.trains else 0,
                        settings=dict(runner.settings),
                        quick=quick,
                        rows=case.rows,
                    )
                )
    return jobs


def rotated(jobs: list[Job], repeat: int) -> list[Job]:
    """``jobs`` with each case's runners rotated by ``repeat - 1``, so that over the repeats every runner
    takes every place in its case's turn: the first job after another case's measured slower first epochs
    (tfkit's tf.data first epoch 2.5-3.2 s in first place, 1.9-2.4 s for the same settings in third)."""
    out: list[Job] = []
    for case in dict.fromkeys(job.case for job in jobs):
        group = [job for job in jobs if job.case == case]
        shift = (repeat - 1) % len(group)
        out.extend(group[shift:] + group[:shift])
    return out
