"""``jit_compile="auto"`` decided by measurement: the first epoch of ``fit`` times both compiled forms.

    model.compile("adam", "mse")                     # jit_compile="auto"
    model.fit(x, y, epochs=10, verbose=2)            # prints "jit_compile='auto': XLA on ..." once decided
    model.jit_compile_decision                       # XlaDecision(jit_compile=True, seconds_per_step=...)

The step loops first run with the form measured to be faster on this kind of
device and model (``starting_form``: XLA on a GPU; on a CPU, XLA only for a model
with a recurrent layer of matrix products such as LSTM or GRU): one step to
trace, two to estimate a step's time, then a chunk of about 0.4 s to time it.
The other form is tried only when its trial is cheap against the rest of the
run: its compile time is estimated from the first form's, erring long (XLA at
eight times a plain trace, a plain trace at half XLA's), and it may take no more
than 3% of the remaining time, nor two thirds of what the other form may save
at most (``expected_saving``). A trial that does not pay then costs the run
about 3% at worst, while one that pays (a long run) saves far more; the price
is that a run just too short to risk a trial keeps the first form where the
other would have won (longer by at most the ratio of their step times).
When tried, the other form gets one step to compile and two to check it (1.5x
slower there: dropped at once), then a timing chunk (1.5x slower or faster
there: decided at once); otherwise both forms are timed once more on chunks of
the same length, and the other form must be 7% faster per step to run the rest
of the run. Both forms' compiled loops are kept, so switching back costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_MEASURE_SECONDS = 0.4      # a timing chunk lasts about this long
_CHECK_STEPS = 2            # steps of the other form, right after its compile, that may drop it at once
# A form's compile time estimated from the first form's, erring long (a trial must clearly pay):
_XLA_COMPILE_FACTOR = 8.0   # XLA on from a plain trace (CPU: 3.8 for the VAE's MLP, 5 for the transformer,
                            # 5-9.4 for the CNN; 4.0 made the bench's 3-epoch CNN try XLA for 1.4 s, 10% of it)
_PLAIN_COMPILE_FACTOR = 0.5  # a plain trace from XLA's compile (CPU: 0.46 for the LSTM; 4.0's inverse made the
                             # LSTM try XLA off, 0.8 s of its first epoch for a form 1.4x slower)
# The most the other form is expected to save of a step, as measured on a 2-core CPU (docs/PERFORMANCE.md):
_SAVING_OTHER_ON_CPU = 0.15  # XLA on (docs/PERFORMANCE.md, since tfkit.random names Philox under XLA): the VAE
                             # 11% and the CNN 3.2x slower, the transformer 12% and the two-input functional model
                             # 35-57% faster; XLA off for an LSTM: 1.6x slower. Any value above 0.045 acts alike:
                             # the 3% risk cap (_RISK) binds first
_SAVING_XLA_OFF_GPU = 1 / 3  # turning XLA off on a GPU
_CLEAR_RATIO = 1.5          # a form this much slower or faster on its first timing is decided at once
_PAYBACK = 1.5              # the best saving must exceed the trial's estimated cost by half again
_RISK = 0.03                # a trial may cost at most this share of the run's remaining time
_MARGIN = 0.93              # the other form must be 7% faster per step to win (timings are noisy)


@dataclass
class XlaDecision:
    """What ``jit_compile="auto"`` chose, from what it measured (seconds per step and to compile, by form)."""

    jit_compile: bool
    reason: str
    seconds_per_step: dict[bool, float] = field(default_factory=dict)
    compile_seconds: dict[bool, float] = field(default_factory=dict)

    def __str__(self) -> str:
        def form(on: bool) -> str:
            if on not in self.seconds_per_step:
                return f"XLA {'on' if on else 'off'} not timed"
            return (f"XLA {'on' if on else 'off'} {self.seconds_per_step[on] * 1e3:.3g} ms/step "
                    f"(compiled in {self.compile_seconds.get(on, 0.0):.2f} s)")
        chosen = "on" if self.jit_compile else "off"
        return f"jit_compile='auto': XLA {chosen}; {form(False)}, {form(True)}: {self.reason}"


def starting_form(gpu: bool, time_loop: bool) -> bool:
    """The form a run starts with: XLA on a GPU, and on a CPU for a model with a recurrent layer of matrix products.

    ``time_loop``: the model has such a layer (LSTM, GRU, SimpleRNN, a custom cell); a convolutional one
    (ConvLSTM) does not count: XLA's CPU convolutions made a ConvLSTM2D step 40x slower.
    """
    return gpu or time_loop


def expected_saving(gpu: bool) -> float:
    """The most the form other than ``starting_form``'s may save of a step."""
    return _SAVING_XLA_OFF_GPU if gpu else _SAVING_OTHER_ON_CPU


class XlaChooser:
    """Drives the first chunks of a training run with ``jit_compile="auto"`` and decides the form.

    ``count(planned, remaining)`` gives the next chunk's length, ``record(state, steps, seconds)``
    takes its duration and may switch ``state.jit_compile``; ``decision`` is set once decided.
    The chunks: the first form warms up (one step: the trace), probes (two steps: a rough step
    time that sizes the timing chunks) and is timed; if a trial of the other form is cheap enough,
    it warms up, is checked (two steps: a form 1.5x slower is dropped there) and both are timed
    once more, alternating (A, B, A, B), and each form keeps its best time: the first chunks
    after a trace run slower (allocations, thread pools), whichever form it is.
    """

    def __init__(self, start: bool, expected_steps: int | None, best_saving: float = _SAVING_XLA_OFF_GPU) -> None:
        self.start = start
        self.expected_steps = expected_steps
        self.best_saving = best_saving
        self.done_steps = 0
        self.plan: list[tuple[str, bool]] = [("warm", start), ("probe", start), ("measure", start)]
        self.warm_seconds: dict[bool, float] = {}
        self.per_step: dict[bool, float] = {}
        self.measure_count = 2
        self._steps, self._seconds = 0, 0.0     # what the current phase has run so far
        self.warm_steps: dict[bool, int] = {}
        self.decision: XlaDecision | None = None

    @property
    def deciding(self) -> bool:
        return self.decision is None

    def _wanted(self) -> int:
        """Steps the current phase still needs."""
        kind = self.plan[0][0]
        return {"warm": 1, "probe": 2, "check": _CHECK_STEPS}.get(kind, self.measure_count) - self._steps

    def count(self, planned: int, remaining: int | None, free: bool = True) -> int:
        """The next chunk's length: ``planned`` (the planner's) once decided, or when not ``free`` to choose
        (a fixed ``steps_per_execution``, or batch hooks that want one step per call)."""
        if not self.plan or not free:
            return planned
        wanted = self._wanted()
        return wanted if remaining is None else max(1, min(wanted, remaining))

    def record(self, state: Any, steps: int, seconds: float) -> None:
        self.done_steps += steps
        if self.decision is not None or steps == 0:
            return
        kind, form = self.plan[0]
        if state.jit_compile != form:            # XLA could not compile: the fallback already chose off
            self._decide(state, False, "XLA could not compile the step")
            return
        self._steps, self._seconds = self._steps + steps, self._seconds + seconds
        if kind != "warm" and self._wanted() > 0:
            return                               # chunks given by the planner: the phase goes on
        steps, seconds, self._steps, self._seconds = self._steps, self._seconds, 0, 0.0
        self.plan.pop(0)
        if kind == "warm":
            self.warm_seconds[form], self.warm_steps[form] = seconds, steps
        elif kind == "probe":
            wanted = int(_MEASURE_SECONDS * steps / max(seconds, 1e-6))
            if self.expected_steps is not None:       # a short run still decides early in its first epoch
                wanted = min(wanted, self.expected_steps // 16)
            self.measure_count = max(2, wanted)
        elif kind == "check":                     # the other form's first steps after its compile
            if seconds / steps >= _CLEAR_RATIO * self.per_step[self.start]:
                self.per_step[form] = seconds / steps
                self._decide(state, self.start, f"XLA {'on' if form else 'off'} was {_CLEAR_RATIO:g}x slower "
                                                f"or more on its first steps")
                return
        else:
            per_step = seconds / steps
            self.per_step[form] = min(per_step, self.per_step.get(form, per_step))
            ratio = per_step / self.per_step[self.start]
            if form != self.start and not 1 / _CLEAR_RATIO < ratio < _CLEAR_RATIO:
                self.plan = []                   # clearly slower or faster: no second timing
        if not self.plan:
            if len(self.per_step) == 1:
                self._after_first_form(state)
            else:
                other = not self.start
                faster = self.per_step[other] < _MARGIN * self.per_step[self.start]
                self._decide(state, other if faster else self.start,
                             "faster per step" if faster else f"XLA {'on' if other else 'off'} was not faster")
                return
        if self.plan:
            state.jit_compile = self.plan[0][1]

    def _compile_seconds(self, form: bool) -> float:
        return max(0.0, self.warm_seconds[form] - self.warm_steps[form] * self.per_step.get(form, 0.0))

    def _after_first_form(self, state: Any) -> None:
        other = not self.start
        if self.expected_steps is None:
            self._decide(state, self.start, "the run's length is unknown, so a second compile may not pay")
            return
        remaining = max(0, self.expected_steps - self.done_steps)
        remaining_seconds = remaining * self.per_step[self.start]
        first_compile = self._compile_seconds(self.start)
        other_compile = first_compile * (_XLA_COMPILE_FACTOR if other else _PLAIN_COMPILE_FACTOR)
        trial = other_compile + _CHECK_STEPS * (_CLEAR_RATIO - 1) * self.per_step[self.start]
        affordable = min(self.best_saving / _PAYBACK, _RISK) * remaining_seconds
        if trial > affordable:
            self._decide(state, self.start, f"a trial of XLA {'on' if other else 'off'} would take about {trial:.2f} s "
                                            f"(its compile estimated from this form's), more than the "
                                            f"{affordable:.2f} s one may cost of the remaining {remaining} steps "
                                            f"({remaining_seconds:.1f} s)")
            return
        self.plan = [("warm", other), ("check", other), ("measure", other), ("measure", self.start),
                     ("measure", other)]

    def _decide(self, state: Any, jit_compile: bool, reason: str) -> None:
        state.jit_compile = jit_compile
        compile_seconds = {form: self._compile_seconds(form) for form in self.warm_seconds}
        self.decision = XlaDecision(jit_compile, reason, dict(self.per_step), compile_seconds)
        self.plan = []
