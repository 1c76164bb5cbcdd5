"""``Progbar``: the Keras 3 progress line, reusable in custom loops.

    bar = Progbar(target=938)
    for step in range(938): bar.update(step + 1, [("loss", loss)])
    # 938/938 ━━━━━━━━━━━━━━━━━━━━ 2s 1ms/step - loss: 0.0942

In a terminal the line is redrawn in place (``\\r``, at most once per
``interval`` seconds) with the finished part of the bar in green and the rest
dimmed. When the output is not a terminal (a log file, CI), only the final
line of each bar is written, without colour codes. ``verbose=2`` writes one
summary line per bar: ``938/938 - 2s - 1ms/step - loss: 0.0942``.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any, Iterable, Sequence, TextIO

import numpy as np

from tfkit.base import console, settings

DONE_CELL = "━"
PLAIN_TODO_CELL = "─"
_BOLD, _GREEN, _DIM, _RESET = "\x1b[1m", "\x1b[32m", "\x1b[37m", "\x1b[0m"


def format_time_per_unit(seconds: float, unit_name: str = "step") -> str:
    """``2s/step``, ``13ms/step`` or ``870us/step``: the unit that keeps the number readable."""
    # Thresholds sit half a unit lower so that 0.9999 shows as "1s", never "1000ms".
    if seconds >= 0.9995 or seconds == 0:
        return f"{seconds:.0f}s/{unit_name}"
    if seconds >= 0.9995e-3:
        return f"{seconds * 1e3:.0f}ms/{unit_name}"
    return f"{seconds * 1e6:.0f}us/{unit_name}"


def format_eta(seconds: float) -> str:
    """Remaining time as ``1:02:03``, ``2:03`` or ``45s``."""
    if seconds > 3600:
        return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"
    if seconds > 60:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds)}s"


def format_metric_value(value: Any) -> str:
    """Four decimals, or scientific notation for values at or below 1e-3 in magnitude."""
    if isinstance(value, str):
        return value
    number = float(np.mean(value))
    return f"{number:.4f}" if abs(number) > 1e-3 else f"{number:.4e}"


class Progbar:
    """Displays a progress bar.

    The Keras 3 progress line, reusable in custom loops: call `update(current,
    values)` after each step (`add(steps, values)` counts on from the last update). In
    a terminal the line is redrawn in place (at most once per `interval` seconds) with
    the finished part of the bar in green and the rest dimmed. When the output is not
    a terminal (a log file, CI), only the final line of each bar is written, without
    colour codes. `verbose=2` writes one summary line per bar:
    `938/938 - 2s - 1ms/step - loss: 0.0942`. Values are shown with four decimals, or
    in scientific notation at or below `1e-3` in magnitude. Metrics are averaged over
    the steps unless listed as stateful, but the values given with the final update
    (`finalize`, by default when `current >= target`) are shown as given, as in Keras 3.

    Args:
        target: Total number of steps expected, `None` if unknown.
        width: Progress bar width on screen, in cells. Defaults to `20`.
        verbose: Verbosity mode, 0 (silent), 1 (progress bar), 2 (one line when
            finished), or `"auto"` (1). Defaults to `1`.
        interval: Minimum visual progress update interval (in seconds) in a terminal.
            Defaults to `0.05`.
        stateful_metrics: Iterable of string names of metrics that should not be
            averaged over time: metrics in this list will be displayed as-is, all others
            will be averaged by the progress bar before display. Defaults to `None`.
        unit_name: Display name for step counts (usually "step" or "sample").
            Defaults to `"step"`.
        stateless_metrics: Keyword-only. The opposite selection: only these names are
            averaged (pass `set()` to show every value as given). Give at most one of
            `stateful_metrics` and `stateless_metrics`. Defaults to `None`.
        stream: Keyword-only. Where to write: a text stream, or `None` for `sys.stdout`
            (looked up at each write). Defaults to `None`.
        dynamic_display: Keyword-only. Whether to redraw the line in place; `None` means
            whether the stream is a terminal (and interactive logging is on).
            Defaults to `None`.

    Raises:
        ValueError: If both `stateful_metrics` and `stateless_metrics` are given, or
            `verbose` is not 0, 1, 2 or `"auto"`.

    Example:
        >>> bar = tfkit.callbacks.Progbar(target=3, verbose=2)
        >>> for step in range(3):
        ...     bar.update(step + 1, [("loss", 0.5 - 0.1 * step)])
        3/3 - ... - loss: 0.3000
    """

    def __init__(
        self,
        target: int | None,
        width: int = 20,
        verbose: int | str = 1,
        interval: float = 0.05,
        stateful_metrics: Iterable[str] | None = None,
        unit_name: str = "step",
        *,
        stateless_metrics: Iterable[str] | None = None,
        stream: TextIO | None = None,
        dynamic_display: bool | None = None,
    ) -> None:
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError(
                "Progbar takes stateful_metrics (names shown as given) or stateless_metrics "
                "(names averaged by the bar), not both."
            )
        if verbose == "auto":
            verbose = 1
        if verbose not in (0, 1, 2):
            raise ValueError(f"Progbar verbose must be 0, 1, 2 or 'auto'; got {verbose!r}")
        self.target = target
        self.width = int(width)
        self.verbose = verbose
        self.interval = float(interval)
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics is not None else None
        self.stateless_metrics = set(stateless_metrics) if stateless_metrics is not None else None
        if self.stateful_metrics is None and self.stateless_metrics is None:
            self.stateful_metrics = set()
        self._stream = stream
        if dynamic_display is None:
            out = self.stream
            dynamic_display = bool(
                getattr(out, "isatty", None)
                and out.isatty()
                and (stream is not None or settings.is_interactive_logging_enabled())
            )
        self.dynamic_display = dynamic_display
        self._totals: dict[str, list[Any]] = {}
        self._order: list[str] = []
        self._seen_so_far = 0
        self._start = time.time()
        self._last_update = 0.0
        self._first_update: tuple[int, float] | None = None
        self._previous_width = 0

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stdout

    # -- public API --

    def update(
        self, current: int, values: Sequence[tuple[str, Any]] | None = None, finalize: bool | None = None
    ) -> None:
        """Show step ``current`` (1-based count of finished steps).

        Args:
            current: steps finished so far.
            values: ``(name, value)`` pairs for this step.
            finalize: whether this is the last update; by default
                ``current >= target``.
        """
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        self._record(current, values or (), finalize)
        self._seen_so_far = current
        now = time.time()
        time_per_unit = self._time_per_unit(current, now)
        if self.verbose == 1:
            self._draw_bar(current, now, time_per_unit, finalize)
        elif self.verbose == 2 and finalize:
            self._write(self._summary_line(current, now, time_per_unit) + "\n")

    def add(self, steps: int, values: Sequence[tuple[str, Any]] | None = None) -> None:
        """Advance by ``steps`` steps."""
        self.update(self._seen_so_far + steps, values)

    # -- bookkeeping --

    def _is_averaged(self, name: str) -> bool:
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def _record(self, current: int, values: Sequence[tuple[str, Any]], finalize: bool) -> None:
        for name, value in values:
            if name not in self._order:
                self._order.append(name)
            if self._is_averaged(name) and not finalize and not isinstance(value, str):
                value = float(np.mean(value))
                weight = max(current - self._seen_so_far, 1)
                total = self._totals.setdefault(name, [0.0, 0])
                total[0] += value * weight
                total[1] += weight
            else:
                self._totals[name] = [value, 1]

    def _value_of(self, name: str) -> Any:
        total, count = self._totals[name]
        if isinstance(total, str):
            return total
        return np.mean(total) / max(1, count)

    def _time_per_unit(self, current: int, now: float) -> float:
        """Seconds per step, leaving out the first update (tracing, warm-up) once possible."""
        if not current:
            return 0.0
        if self._first_update is None:
            self._first_update = (current, now)
        first_step, first_time = self._first_update
        if current > first_step:
            return (now - first_time) / (current - first_step)
        return (now - self._start) / current

    # -- rendering --

    def _metrics_text(self) -> str:
        return "".join(f" - {name}: {format_metric_value(self._value_of(name))}" for name in self._order)

    def _count_text(self, current: int) -> str:
        if self.target is None or self.target <= 0:
            return f"{current:7d}/Unknown"
        digits = int(math.log10(self.target)) + 1
        return f"{current:{digits}d}/{self.target}"

    def _bar_cells(self, current: int) -> tuple[int, int]:
        fraction = min(max(float(current) / self.target, 0.0), 1.0)
        done = int(self.width * fraction)
        return done, self.width - done

    def _draw_bar(self, current: int, now: float, time_per_unit: float, finalize: bool) -> None:
        if not self.dynamic_display and not finalize:
            return
        if self.dynamic_display and not finalize and now - self._last_update < self.interval:
            return
        self._last_update = now
        count = self._count_text(current)
        known = self.target is not None and self.target > 0
        if known and not finalize:
            clock = format_eta(time_per_unit * (self.target - current))
        else:
            clock = f"{now - self._start:.0f}s"
        tail = f" {format_time_per_unit(time_per_unit, self.unit_name)}{self._metrics_text()}"
        if known:
            done, todo = self._bar_cells(current)
        else:
            done = todo = 0
        if self.dynamic_display:
            bar = f" {_GREEN}{DONE_CELL * done}{_RESET}" if done else " "
            bar += f"{_DIM}{DONE_CELL * todo}{_RESET}" if todo else ""
            line = f"{_BOLD}{count}{_RESET}{bar if known else ''} {_BOLD}{clock}{_RESET}{tail}"
        else:
            bar = f" {DONE_CELL * done}{PLAIN_TODO_CELL * todo}" if known else ""
            line = f"{count}{bar} {clock}{tail}"
        visible_width = len(count) + (1 + self.width if known else 0) + 1 + len(clock) + len(tail)
        if self.dynamic_display:
            padding = " " * max(self._previous_width - visible_width, 0)
            self._previous_width = 0 if finalize else visible_width
            self._write("\r" + line + padding + ("\n" if finalize else ""))
        else:
            self._write(line + "\n")

    def _summary_line(self, current: int, now: float, time_per_unit: float) -> str:
        return (
            f"{self._count_text(current)} - {now - self._start:.0f}s"
            f" - {format_time_per_unit(time_per_unit, self.unit_name)}{self._metrics_text()}"
        )

    def _write(self, text: str) -> None:
        console.write(text, self._stream)  # the default stdout becomes the log with interactive logging off
