"""Approximate quantiles over batches, with Keras 3's numbers: what ``Discretization.adapt`` computes.

    summary = empty_summary()
    for batch in batches: summary = add_batch(summary, batch, epsilon=0.01)
    boundaries = bin_boundaries(summary, num_bins=8)        # Keras's boundaries for the same batches

A summary is a ``(2, n)`` float32 array: sorted values in row 0 and the weight
(count of samples) each stands for in row 1. Each batch is summarized on its
own, merged into the running summary and compressed back to about
``1 / epsilon`` points; the boundaries are the summary compressed to
``num_bins`` points, less the last. Keras's ``Discretization`` computes this
(not exact quantiles), so the bins depend on the batching as Keras's do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["empty_summary", "add_batch", "bin_boundaries"]


def empty_summary() -> np.ndarray:
    return np.zeros((2, 0), dtype="float32")


def _summarize(values: np.ndarray, epsilon: float) -> np.ndarray:
    """Every ``step``-th sorted value (the ``step``-th first), each weighing ``step`` samples."""
    ordered = np.sort(values.reshape(-1))
    step = max(ordered.size * epsilon, 1)  # size / (1 / epsilon) points per summary point
    points = ordered[int(step - 1) :: int(step)]
    return np.stack([points, np.full_like(points, step)])


def _compress(summary: np.ndarray, epsilon: float) -> np.ndarray:
    """At most ``1 / epsilon`` points, interpolated on the cumulative weight; unchanged when already that small."""
    if summary.shape[1] * epsilon < 1:
        return summary
    targets = np.arange(0.0, 1.0, epsilon) + epsilon
    cumulative = summary[1].cumsum()
    fraction = cumulative / cumulative[-1]
    values = np.interp(targets, fraction, summary[0])
    reached = np.interp(targets, fraction, cumulative)
    weights = np.diff(reached, prepend=0.0)
    return np.stack([values, weights]).astype("float32")


def add_batch(summary: np.ndarray, batch: Any, epsilon: float) -> np.ndarray:
    """``summary`` with one more batch of values merged in."""
    merged = np.concatenate([_summarize(np.asarray(batch, dtype="float32"), epsilon), summary], axis=1)
    merged = merged[:, np.argsort(merged[0])]
    return _compress(merged, epsilon)


def bin_boundaries(summary: np.ndarray, num_bins: int) -> list[float]:
    """The ``num_bins - 1`` boundaries (fewer when the data had fewer distinct summary points)."""
    return [float(b) for b in _compress(summary, 1.0 / num_bins)[0, :-1]]
