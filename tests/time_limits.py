"""Time limits that hold on a busy machine and still catch a hang: one home for the tests' wall-clock limits.

    done = subprocess.run(command, timeout=time_limits.seconds(300))   # 300 s on a quiet machine, more on a busy one
    deadline = time_limits.Deadline(60)          # polled: grows while the machine gets busier, never shrinks
    while not deadline.passed():
        ...

A limit in a test is a hang detector, never a speed test: its base value is a few times what its work
takes on a quiet 2-core machine. Work beside it slows that work by as much as the machine is
oversubscribed: at a load average of 8-12 on 2 cores a busy process gets a quarter to a sixth of a
core, and a load that takes 20 s alone takes 80-120 s. So each limit is the base times the load per
usable core (the larger of the 1- and 5-minute load averages, over the cores this process may run on;
never below 1) and times ``TFKIT_TEST_TIME_SCALE`` (default 1; more for a slow emulated or sanitized
build). A real hang still fails the test, later where the machine is busy; on a quiet machine every
limit is its base value.
"""

from __future__ import annotations

import os
import time


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def load_factor() -> float:
    """How many times slower than alone a busy process runs now: the load per usable core, at least 1."""
    try:
        load = max(os.getloadavg()[:2])
    except (AttributeError, OSError):  # no load average on this platform
        load = 0.0
    return max(1.0, load / usable_cores())


def scale() -> float:
    """The factor every limit is multiplied by now: ``load_factor()`` times ``TFKIT_TEST_TIME_SCALE``."""
    return load_factor() * max(1.0, float(os.environ.get("TFKIT_TEST_TIME_SCALE", "1")))


def seconds(base: float) -> float:
    """``base`` seconds (a quiet machine's limit) with the margin the machine's load asks for now."""
    return base * scale()


class Deadline:
    """A limit of ``base`` seconds from now, re-scaled each time it is read: a rising load extends it."""

    def __init__(self, base: float) -> None:
        self.base = base
        self.start = time.monotonic()
        self.limit = seconds(base)

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def remaining(self) -> float:
        """Seconds left (negative once passed); the limit grows with the load, never shrinks."""
        self.limit = max(self.limit, seconds(self.base))
        return self.limit - self.elapsed()

    def passed(self) -> bool:
        return self.remaining() <= 0
