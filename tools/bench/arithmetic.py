"""How much arithmetic each training case does, and how fast each runner does it (no TensorFlow here).

    lines = arithmetic.table_lines(summary, ["tfkit", "raw_tf"], ["vae"], matmul_gflops=195.0)
    # | VAE b64 | 0.539 | 32.3 | 83.1 (43%) | 72.1 (37%) |

tfkit's peer counts the FLOPs of one ``train_step`` from its traced graph (``bench.flops``) and
divides by the batch; every runner trains the same model on the same rows, so one count serves
all columns. Achieved GFLOP/s is the epoch's FLOPs over the steady epoch time; the percentage is
that rate over the machine's ``tf.matmul`` rate on 2048x2048 float32, measured once per run.
"""

from __future__ import annotations

from typing import Any

from bench.spec import BASELINE, ROWS, RUNNERS_BY_NAME

NOT_MEASURED = "-"


def table_lines(
    summary: dict[tuple[str, str], Any], runners: list[str], cases: list[str], matmul_gflops: float | None
) -> list[str]:
    """Markdown lines: one row per training case tfkit counted, achieved GFLOP/s per runner."""
    labels = {row.case: row.label.split(":")[0] for row in ROWS}
    rows = []
    for case in cases:
        mine = summary.get((case, BASELINE))
        per_sample = mine.median("flops_per_sample") if mine else None
        samples = mine.median("samples_per_epoch") if mine else None
        if not per_sample or not samples:
            continue
        epoch_flops = per_sample * samples
        cells = [_rate_cell(summary.get((case, runner)), epoch_flops, matmul_gflops) for runner in runners]
        rows.append(
            f"| {labels.get(case, case)} | {per_sample / 1e6:.3f} | {epoch_flops / 1e9:.1f} | "
            + " | ".join(cells)
            + " |"
        )
    if not rows:
        return []
    titles = [RUNNERS_BY_NAME[name].title for name in runners]
    rate = f"{matmul_gflops:.0f} GFLOP/s" if matmul_gflops else "not measured"
    return [
        f"Machine's large-matmul rate (tf.matmul, 2048x2048 float32): {rate}. Cells: achieved "
        f"GFLOP/s in the steady epoch (fraction of that rate).",
        "",
        "| case | MFLOP per sample | GFLOP per epoch | " + " | ".join(titles) + " |",
        "| --- | ---: | ---: | " + " | ".join("---:" for _ in runners) + " |",
    ] + rows


def _rate_cell(cell: Any, epoch_flops: float, matmul_gflops: float | None) -> str:
    seconds = cell.median("epoch_steady_s") if cell else None
    if not seconds:
        return NOT_MEASURED
    rate = epoch_flops / seconds / 1e9
    return f"{rate:.1f} ({rate / matmul_gflops:.0%})" if matmul_gflops else f"{rate:.1f}"
