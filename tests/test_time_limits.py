"""The tests' time limits (tests/time_limits.py): a quiet machine's seconds, stretched by the load, never shrunk."""

import pytest
import time_limits


@pytest.fixture
def machine(monkeypatch):
    """A 2-core machine whose 1- and 5-minute load averages the test sets."""
    state = {"load": (0.5, 0.5, 0.5)}
    monkeypatch.setattr(time_limits.os, "getloadavg", lambda: state["load"])
    monkeypatch.setattr(time_limits, "usable_cores", lambda: 2)
    monkeypatch.delenv("TFKIT_TEST_TIME_SCALE", raising=False)
    return state


@pytest.mark.parametrize(
    "load, seconds",
    [
        ((0.5, 0.5, 0.5), 60.0),  # quiet: the base value
        ((2.0, 1.0, 0.5), 60.0),  # one busy process per core: still the base value
        ((12.0, 8.0, 4.0), 360.0),  # the load: six runnable processes per core
        ((3.0, 10.0, 4.0), 300.0),  # a load just easing off: the 5-minute average still counts
    ],
)
def test_a_limit_is_its_base_times_the_load_per_core_and_never_less(machine, load, seconds):
    machine["load"] = load
    assert time_limits.seconds(60) == pytest.approx(seconds)


def test_the_environment_scales_every_limit_further(machine, monkeypatch):
    monkeypatch.setenv("TFKIT_TEST_TIME_SCALE", "3")
    machine["load"] = (8.0, 8.0, 8.0)
    assert time_limits.seconds(10) == pytest.approx(10 * 4 * 3)


def test_a_deadline_grows_when_the_load_rises_and_keeps_its_length_when_it_falls(machine, monkeypatch):
    clock = {"now": 100.0}
    monkeypatch.setattr(time_limits.time, "monotonic", lambda: clock["now"])
    deadline = time_limits.Deadline(60)
    clock["now"] += 70
    assert deadline.passed() and deadline.remaining() == pytest.approx(-10)  # quiet: a hang after 60 s
    machine["load"] = (8.0, 4.0, 2.0)  # the machine got busy meanwhile
    assert not deadline.passed() and deadline.limit == pytest.approx(240)
    machine["load"] = (0.5, 0.5, 0.5)
    assert deadline.remaining() == pytest.approx(170)  # what was granted stays granted
    clock["now"] += 171
    assert deadline.passed() and deadline.elapsed() == pytest.approx(241)
