"""NaN and infinity in the data of ``fit``, ``evaluate`` and ``predict``, found before a step runs on them.

    finite = FiniteCheck("fit")
    finite.report([f for f in (find_non_finite("x", x_train), find_non_finite("y", y_train)) if f])
    # ValueError: fit: x holds 2 NaN and 0 Inf among its 47,040,000 values, the first at x[3, 14, 2] = nan. ...

A NaN in the data does not always show: ``relu`` maps it to 0 on a CPU, so ``fit`` on
inputs half NaN reported a finite loss while it trained on garbage. ``fit`` and
``evaluate`` refuse such data (``ValueError``); ``predict`` warns (``RuntimeWarning``)
and goes on. ``check_finite=False`` on each of them turns the check off.

Only floating-point and complex arrays are checked (integers, booleans and strings
cannot hold NaN). An array costs one sum, which a NaN or an infinity makes
non-finite (about 12 ms for MNIST's 60,000x28x28 float32 on 2 cores, a tenth of
converting it to a tensor); only when the sum is not finite, which also happens when
large finite values overflow, an exact pass, a chunk of rows at a time, counts the
NaN and infinite values and finds the first. A dataset, generator or ``PyDataset`` is
checked on its first batch only, as the loop takes it (``data.DatasetData``).
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Iterable, NamedTuple

import numpy as np
import tensorflow as tf

from tfkit.utils.data_tuples import unpack_x_y_sample_weight

_CHUNK_VALUES = 1 << 22  # the exact pass looks at about 4M values (16 MB of float32) at a time
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # tfkit/: warnings point past it
_PARTS = ("x", "y", "sample_weight")


class Finding(NamedTuple):
    """The non-finite values of one array: its name, how many NaN and infinities, and the first one."""

    label: str
    nan: int
    inf: int
    size: int
    index: tuple[int, ...]
    value: Any

    def __str__(self) -> str:
        at = f"{self.label}[{', '.join(map(str, self.index))}]" if self.index else self.label
        return (
            f"{self.label} holds {self.nan:,} NaN and {self.inf:,} Inf among its {self.size:,} values, "
            f"the first at {at} = {self.value!r}"
        )


def find_non_finite(label: str, array: Any) -> Finding | None:
    """The NaN and infinities of ``array`` (a numpy array or a tensor), or ``None``: all finite or not floating.

    ``label`` names the array in the finding (``x``, ``x['image']``, ``y[1]``).
    """
    if isinstance(array, tf.Tensor):
        if not (array.dtype.is_floating or array.dtype.is_complex) or _tensor_sum_is_finite(array):
            return None
        array = array.numpy()
    elif not isinstance(array, np.ndarray) or array.dtype.kind not in "fc" or _sum_is_finite(array):
        return None
    return _exact(label, array)


def _sum_is_finite(array: np.ndarray) -> bool:
    """Whether the sum of ``array`` is finite: always, when every value is; rarely not, when they are (overflow)."""
    with np.errstate(all="ignore"):
        total = array.sum(dtype=np.float32 if array.dtype == np.float16 else None)
    return bool(np.isfinite(total))


def _tensor_sum_is_finite(tensor: tf.Tensor) -> bool:
    if tensor.dtype.is_complex:
        tensor = tf.abs(tensor)
    elif tensor.dtype.size < 4:  # float16, bfloat16: a sum overflows at once
        tensor = tf.cast(tensor, tf.float32)
    return bool(tf.math.is_finite(tf.reduce_sum(tensor)))


def _exact(label: str, array: np.ndarray) -> Finding | None:
    """Count and locate the non-finite values, a chunk of rows at a time (no flags as large as the array)."""
    rows = array.reshape(1) if array.ndim == 0 else array
    per_row = max(1, rows[:1].size)
    step = max(1, _CHUNK_VALUES // per_row)
    nan = bad_total = 0
    first: tuple[int, ...] | None = None
    for start in range(0, len(rows), step):
        part = rows[start : start + step]
        if part.dtype.kind not in "fc":  # bfloat16 from a tensor: numpy's ufuncs want a builtin dtype
            part = part.astype(np.float32)
        bad = ~np.isfinite(part)
        count = int(np.count_nonzero(bad))
        if not count:
            continue
        bad_total += count
        nan += int(np.count_nonzero(np.isnan(part)))
        if first is None:
            position = np.unravel_index(int(np.argmax(bad)), part.shape)
            first = (start + int(position[0]), *(int(i) for i in position[1:]))
    if first is None:
        return None  # the sum overflowed; every value is finite
    index = () if array.ndim == 0 else first
    return Finding(label, nan, bad_total - nan, int(array.size), index, rows[first].item())


def labelled_leaves(label: str, value: Any) -> Iterable[tuple[str, Any]]:
    """``(label, leaf)`` for each leaf of ``value`` in ``tf.nest.flatten``'s order (dicts by sorted key):
    dict entries as ``x['image']``, sequence items as ``x[1]``."""
    if isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError:
            keys = list(value)
        for key in keys:
            yield from labelled_leaves(f"{label}[{key!r}]", value[key])
    elif isinstance(value, (list, tuple)) and tf.nest.is_nested(value):
        for position, item in enumerate(value):
            yield from labelled_leaves(f"{label}[{position}]", item)
    else:
        yield label, value


@dataclass(frozen=True)
class FiniteCheck:
    """What ``fit``, ``evaluate`` or ``predict`` (``method``) does about non-finite data: refuse it or warn."""

    method: str

    def report(self, findings: list[Finding], where: str = "") -> None:
        """Raise a ``ValueError`` naming each finding (a ``RuntimeWarning`` for ``predict``); nothing when none.

        ``where`` says where the arrays came from ("the first batch of the tf.data.Dataset passed as x").
        """
        if not findings:
            return
        found = "; ".join(map(str, findings))
        found = f"in {where}, {found} (counting from the batch's first sample)" if where else found
        later = " Only the first batch of a dataset, generator or PyDataset is checked." if where else ""
        if self.method == "predict":
            warnings.warn(
                f"predict: {found}. NaN or infinity in the inputs makes the predictions of those samples "
                f"NaN, or wrong without a sign (relu maps NaN to 0 on a CPU). predict goes on; replace "
                f"those values first, or pass check_finite=False to predict to skip this check.{later}",
                RuntimeWarning,
                stacklevel=_stack_level_outside_tfkit(),
            )
            return
        if where and self.method == "fit":
            later += " A NaN loss from a later batch can stop training with the TerminateOnNaN callback."
        raise ValueError(
            f"{self.method}: {found}. NaN or infinity in the data makes the loss NaN, or is lost without "
            f"a sign inside the model (relu maps NaN to 0 on a CPU). Replace or drop those values first "
            f"(np.nan_to_num, or keep the rows where np.isfinite holds), or pass check_finite=False to "
            f"{self.method} to use the data as it is.{later}"
        )

    def batch(self, batch: Any, source: str) -> None:
        """Check the first batch of ``source`` (a dataset, generator or ``PyDataset``): ``(x, y, sample_weight)``
        tensors or arrays, of which ``predict`` uses (and checks) ``x`` only."""
        parts = unpack_x_y_sample_weight(batch)
        parts = parts[:1] if self.method == "predict" else parts
        self.report(
            [
                found
                for name, part in zip(_PARTS, parts)
                for label, leaf in labelled_leaves(name, part)
                if (found := find_non_finite(label, leaf)) is not None
            ],
            where=f"the first batch of {source}",
        )


def _stack_level_outside_tfkit() -> int:
    """The ``stacklevel`` of the first caller outside the tfkit package, as seen from the caller of this function."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
