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

PEERS: tuple[str, ...] = ("tfkit", "keras3", "tf_keras", "raw_tf")
WORKLOADS: tuple[str, ...] = ("vae", "cnn", "lstm", "predict", "scaling")
QUICK_WORKLOADS: tuple[str, ...] = ("vae", "predict")
SCALING_BATCH_SIZES: tuple[int, ...] = (32, 64, 256, 1024)
SCALING_PEERS: tuple[str, ...] = ("tfkit", "keras3")


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
    Runner("tf_keras_spe100", "tf_keras", "tf-keras spe=100",
           settings={"steps_per_execution": 100}, cases=("vae",)),
    Runner("raw_tf", "raw_tf", "raw TF (floor)"),
)
RUNNERS_BY_NAME: dict[str, Runner] = {runner.name: runner for runner in RUNNERS}
BASELINE = "tfkit"


@dataclasses.dataclass(frozen=True)
class Case:
    """One workload at one batch size."""

    name: str
    workload: str  # what the worker builds: "vae", "cnn", "lstm" or "predict"
    batch_size: int
    peers: tuple[str, ...] = PEERS
    trains: bool = True


CASES: dict[str, Case] = {
    "vae": Case("vae", "vae", 64),
    "cnn": Case("cnn", "cnn", 128),
    "lstm": Case("lstm", "lstm", 64),
    "predict": Case("predict", "predict", 1024, trains=False),
}
for _batch in SCALING_BATCH_SIZES:
    CASES[f"scaling_b{_batch}"] = Case(f"scaling_b{_batch}", "vae", _batch, peers=SCALING_PEERS)


def cases_for_workload(workload: str) -> list[str]:
    """The case names a ``--workloads`` entry expands to."""
    if workload == "scaling":
        return [f"scaling_b{batch}" for batch in SCALING_BATCH_SIZES]
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


ROWS: tuple[Row, ...] = (
    Row("vae", "epoch_steady_s", "VAE b64: epoch, steady state", "s", "lower"),
    Row("vae", "epoch_first_s", "VAE b64: first epoch (tracing incl.)", "s", "lower"),
    Row("vae", "peak_rss_mib", "VAE b64: peak RSS", "MiB", "lower", 0),
    Row("vae", "loss_epoch2", "VAE b64: loss after epoch 2 (sanity)", "", None, 4),
    Row("cnn", "epoch_steady_s", "CNN b128: epoch, steady state", "s", "lower"),
    Row("cnn", "epoch_first_s", "CNN b128: first epoch (tracing incl.)", "s", "lower"),
    Row("lstm", "epoch_steady_s", "LSTM b64: epoch, steady state", "s", "lower"),
    Row("lstm", "epoch_first_s", "LSTM b64: first epoch (tracing incl.)", "s", "lower"),
    Row("predict", "predict_samples_per_s", "VAE predict b1024: throughput", "samples/s", "higher", 0),
    Row("predict", "predict_first_s", "VAE predict: first call (tracing incl.)", "s", "lower"),
    Row("predict", "serving_latency_ms", "VAE SavedModel: 1-sample latency", "ms", "lower"),
) + tuple(
    Row(f"scaling_b{batch}", "epoch_steady_s", f"Scaling: VAE b{batch} epoch, steady", "s", "lower")
    for batch in SCALING_BATCH_SIZES
)

DEFAULT_EPOCHS: dict[str, int] = {"vae": 5, "cnn": 3, "lstm": 4, "scaling": 3}
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

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def epochs_for_case(case: str, epochs: dict[str, int]) -> int:
    """Epoch count of a case: scaling cases share the ``"scaling"`` entry."""
    key = "scaling" if case.startswith("scaling_") else case
    return int(epochs.get(key, DEFAULT_EPOCHS.get(key, 1)))


def plan_jobs(workloads: list[str], peers: list[str], epochs: dict[str, int],
              quick: bool = False) -> list[Job]:
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
                jobs.append(Job(
                    case=case_name, runner=runner.name, peer=runner.peer,
                    workload=case.workload, batch_size=case.batch_size,
                    epochs=epochs_for_case(case_name, epochs) if case.trains else 0,
                    settings=dict(runner.settings), quick=quick,
                ))
    return jobs
