"""How many steps each compiled call runs, and the logs it returns as Python floats.

    planner = ChunkPlanner("auto", per_batch=False, quiet=False)
    steps = planner.next(remaining=100)          # 1, then 2, then sized from measured time
    planner.record(steps, seconds=0.02)

With ``steps_per_execution="auto"`` a chunk lasts about a tenth of a second (a
second when nothing is printed): the progress bar still moves smoothly and the
per-call overhead vanishes. A callback with batch hooks gets chunks of one step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_TARGET_CHUNK_SECONDS = 0.1
_QUIET_CHUNK_SECONDS = 1.0
_MAX_CHUNK = 10_000


class ChunkPlanner:
    """How many steps the next compiled call should run."""

    def __init__(self, setting: Any, per_batch: bool, quiet: bool, seconds_per_step: float | None = None) -> None:
        self.fixed = None if setting == "auto" else int(setting)
        if self.fixed is not None and self.fixed < 1:
            raise ValueError(f"steps_per_execution must be a positive int or 'auto', got {setting!r}")
        self.per_batch = per_batch
        self.target = _QUIET_CHUNK_SECONDS if quiet else _TARGET_CHUNK_SECONDS
        self.seconds_per_step = seconds_per_step  # remembered from earlier epochs of the same loop
        self.calls = 0 if seconds_per_step is None else 1
        self.size = 1 if seconds_per_step is None else self._size_for(seconds_per_step, _MAX_CHUNK)

    @property
    def free(self) -> bool:
        """Whether chunk lengths are the planner's to choose (no fixed setting, no per-batch hooks)."""
        return self.fixed is None and not self.per_batch

    def next(self, remaining: int | None) -> int:
        if self.per_batch:
            size = 1
        elif self.fixed is not None:
            size = self.fixed
        else:
            size = self.size
        return size if remaining is None else max(1, min(size, remaining))

    def record(self, steps: int, seconds: float) -> None:
        self.calls += 1
        if self.fixed is not None or self.per_batch or self.calls == 1 or steps == 0:
            if self.calls == 1:
                self.size = 2
            return
        measured = seconds / steps
        self.seconds_per_step = measured if self.seconds_per_step is None else 0.5 * (self.seconds_per_step + measured)
        self.size = self._size_for(self.seconds_per_step, self.size * 8)

    def _size_for(self, seconds_per_step: float, limit: int) -> int:
        wanted = int(self.target / max(seconds_per_step, 1e-7))
        return int(max(1, min(wanted, limit, _MAX_CHUNK)))


def to_floats(logs: Any) -> dict[str, float]:
    out: dict[str, float] = {}

    def put(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                put(k, v)
            return
        array = np.asarray(value)
        out[prefix] = float(array) if array.size == 1 else array

    if isinstance(logs, dict):
        for key, value in logs.items():
            put(key, value)
    return out
