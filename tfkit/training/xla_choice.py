"""``jit_compile="auto"`` decided by measurement: the first epoch of ``fit`` times both compiled forms.

    model.compile("adam", "mse")                     # jit_compile="auto"
    model.fit(x, y, epochs=10, verbose=2)            # prints "jit_compile='auto' kept XLA off: ..." once decided
    model.jit_compile_decision                       # XlaDecision(jit_compile=False, reason=..., ...)

The step loops first run in the form measured to be faster on this kind of
device and model (``starting_form``): XLA on a GPU; on a CPU, XLA only for a
model with a recurrent layer of matrix products such as LSTM or GRU, and only
for a run of at least 500 steps, since XLA's compile costs seconds more than a
plain trace and a shorter run cannot earn that back. The first form runs one
step to trace, two to estimate a step's time, then a chunk of about 0.4 s to
time it. The other form is tried only when its trial is cheap against the rest
of the run: its compile time is estimated from the first form's, erring long
(XLA at eight times a plain trace, a plain trace at half XLA's), and it may take
no more than 3% of the remaining time, nor two thirds of what the other form may
save at most (``expected_saving``). A trial that does not pay then costs the
run about 3% at worst, while one that pays (a long run) saves far more; the
price is that a run just too short to risk a trial keeps the first form where
the other would have won (longer by at most the ratio of their step times).
When tried, the other form gets one step to compile and two to check it (1.5x
slower there: dropped at once), then a timing chunk (1.5x slower or faster
there: decided at once); otherwise both forms are timed once more on chunks of
the same length, and the other form must be 7% faster per step to run the rest
of the run. Both forms' compiled loops are kept, so switching back costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_MEASURE_SECONDS = 0.4  # a timing chunk lasts about this long
_CHECK_STEPS = 2  # steps of the other form, right after its compile, that may drop it at once
# A recurrent model on a CPU starts with XLA only for a run of at least this many steps. Measured on a 2-core
# CPU (fresh processes, load 2.5-3): XLA's first compile of an LSTM or GRU step took 1.4-2.7 s, 0.2-1.6 s more
# than a plain trace (4-6 s at a load of 5-12), and saved 0.3 ms (LSTM(16) over 8 timesteps), 2-3 ms (LSTM(64)
# over 32), 0.7-1.4 ms (GRU(32) over 16) and 11 ms (the bench's masked LSTM(64) over 80, a 500-step run) a step:
# earned back after about 45 to 4,000 steps, 300-800 for the LSTM(64) over 32 (400 steps ran faster without XLA,
# 1,000 with it). The LSTM(16) over 8 pays at 500 steps: 4.6-6.4 s against 1.3-2.8 s (docs/guides).
_XLA_FIRST_STEPS = 500
# A form's compile time estimated from the first form's, erring long (a trial must clearly pay):
_XLA_COMPILE_FACTOR = 8.0  # XLA on from a plain trace (CPU: 3.8 for the VAE's MLP, 5 for the transformer,
# 5-9.4 for the CNN; 4.0 made the bench's 3-epoch CNN try XLA for 1.4 s, 10% of it)
_PLAIN_COMPILE_FACTOR = 0.5  # a plain trace from XLA's compile (CPU: 0.46 for the LSTM; 4.0's inverse made the
# LSTM try XLA off, 0.8 s of its first epoch for a form 1.4x slower)
# The most the other form is expected to save of a step, as measured on a 2-core CPU (docs/PERFORMANCE.md):
_SAVING_OTHER_ON_CPU = 0.15  # XLA on (docs/PERFORMANCE.md, since tfkit.random names Philox under XLA): the VAE
# 11% and the CNN 3.2x slower, the transformer 12% and the two-input functional model
# 35-57% faster; XLA off for an LSTM: 1.6x slower. Any value above 0.045 acts alike:
# the 3% risk cap (_RISK) binds first
_SAVING_XLA_OFF_GPU = 1 / 3  # turning XLA off on a GPU
_CLEAR_RATIO = 1.5  # a form this much slower or faster on its first timing is decided at once
_PAYBACK = 1.5  # the best saving must exceed the trial's estimated cost by half again
_RISK = 0.03  # a trial may cost at most this share of the run's remaining time
_MARGIN = 0.93  # the other form must be 7% faster per step to win (timings are noisy)


def _xla(on: bool) -> str:
    return "XLA on" if on else "XLA off"


def duration(seconds: float) -> str:
    """``seconds`` as a person reads it: ``"0.31 s"``, ``"1.9 s"``, ``"12 s"``, ``"5.1 ms"``, ``"15 ms"``."""
    if seconds >= 9.95:
        return f"{seconds:.0f} s"
    if seconds >= 0.0995:
        return f"{seconds:.2g} s"
    milliseconds = seconds * 1e3
    return f"{milliseconds:.0f} ms" if milliseconds >= 9.95 else f"{milliseconds:.2g} ms"


@dataclass
class XlaDecision:
    """What `jit_compile="auto"` chose for a model, and the timings it chose from.

    `Model.fit` with `jit_compile="auto"` (the default of `compile`) runs the
    first steps of its first epoch in one compiled form, times them, tries the
    other form when the run is long enough to earn back its compile, and keeps
    the faster. `model.jit_compile_decision` then holds this record (`None`
    before such a `fit`, and for a model compiled with `jit_compile=True` or
    `False`); `fit(verbose=2)` prints it once made.

    Args:
        jit_compile: The form chosen: `True` for XLA on, `False` for the plain
            compiled graph. `predict` and `evaluate` use it too.
        reason: Why, as a sentence with the numbers it compared, e.g.
            `"kept XLA off: the 3 steps left would take about 15 ms (5.1 ms
            each), too few to earn back a trial of XLA on ..."`.
        seconds_per_step: Seconds a training step took, by form (`False`: XLA
            off, `True`: XLA on); a form that was not run is absent.
        compile_seconds: Seconds each form that ran took to trace and compile
            (its first step's time less a step's), keyed as `seconds_per_step`.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
        >>> model.compile("sgd", "mse")                        # jit_compile="auto"
        >>> x, y = np.ones((64, 3), "float32"), np.ones((64, 1), "float32")
        >>> _ = model.fit(x, y, batch_size=8, verbose=0)      # 8 steps: 5 to measure, 3 left
        >>> decision = model.jit_compile_decision
        >>> print(decision.reason)
        kept XLA ...: the 3 steps left would take about ... ms (... ms each), too few to earn back ...
        >>> list(decision.seconds_per_step) == [decision.jit_compile]   # the other form was not run
        True
    """

    jit_compile: bool
    reason: str
    seconds_per_step: dict[bool, float] = field(default_factory=dict)
    compile_seconds: dict[bool, float] = field(default_factory=dict)

    def __str__(self) -> str:
        def form(on: bool) -> str:
            if on not in self.seconds_per_step:
                return f"{_xla(on)} not run"
            return (
                f"{_xla(on)} {duration(self.seconds_per_step[on])} a step after a "
                f"{duration(self.compile_seconds.get(on, 0.0))} compile"
            )

        first, second = sorted((False, True), key=lambda on: on not in self.seconds_per_step)
        return f"jit_compile='auto' {self.reason} (measured: {form(first)}; {form(second)})"


def starting_form(gpu: bool, time_loop: bool, expected_steps: int | None = None) -> bool:
    """The form a run starts with: XLA on a GPU, and on a CPU for a long run of a model with a recurrent layer.

    ``time_loop``: the model has a recurrent layer of matrix products (LSTM, GRU, SimpleRNN, a custom cell);
    a convolutional one (ConvLSTM) does not count: XLA's CPU convolutions made a ConvLSTM2D step 40x slower.
    ``expected_steps``: the run's training steps (None when unknown); a CPU run of fewer than 500 starts
    without XLA, whose compile it could not earn back.
    """
    if gpu:
        return True
    return time_loop and (expected_steps is None or expected_steps >= _XLA_FIRST_STEPS)


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
        self._steps, self._seconds = 0, 0.0  # what the current phase has run so far
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
        if state.jit_compile != form:  # XLA could not compile: the fallback already chose off
            self._decide(
                state,
                False,
                "chose XLA off: XLA could not compile the step, so fit fell back to the plain compiled graph",
            )
            return
        self._steps, self._seconds = self._steps + steps, self._seconds + seconds
        if kind != "warm" and self._wanted() > 0:
            return  # chunks given by the planner: the phase goes on
        steps, seconds, self._steps, self._seconds = self._steps, self._seconds, 0, 0.0
        self.plan.pop(0)
        if kind == "warm":
            self.warm_seconds[form], self.warm_steps[form] = seconds, steps
        elif kind == "probe":
            wanted = int(_MEASURE_SECONDS * steps / max(seconds, 1e-6))
            if self.expected_steps is not None:  # a short run still decides early in its first epoch
                wanted = min(wanted, self.expected_steps // 16)
            self.measure_count = max(2, wanted)
        elif kind == "check":  # the other form's first steps after its compile
            if seconds / steps >= _CLEAR_RATIO * self.per_step[self.start]:
                self.per_step[form] = seconds / steps
                first, ratio = self.per_step[self.start], seconds / steps / self.per_step[self.start]
                self._decide(
                    state,
                    self.start,
                    f"kept {_xla(self.start)}: {_xla(form)}'s first {steps} steps after "
                    f"its compile took {duration(seconds / steps)} each, {ratio:.1f} "
                    f"times {_xla(self.start)}'s {duration(first)}; a form "
                    f"{_CLEAR_RATIO:g} times slower there is dropped",
                )
                return
        else:
            per_step = seconds / steps
            self.per_step[form] = min(per_step, self.per_step.get(form, per_step))
            ratio = per_step / self.per_step[self.start]
            if form != self.start and not 1 / _CLEAR_RATIO < ratio < _CLEAR_RATIO:
                self.plan = []  # clearly slower or faster: no second timing
        if not self.plan:
            if len(self.per_step) == 1:
                self._after_first_form(state)
            else:
                other = not self.start
                self._decide(state, *self._compared(other))
                return
        if self.plan:
            state.jit_compile = self.plan[0][1]

    def _compared(self, other: bool) -> tuple[bool, str]:
        """The form to keep once both are timed, and why."""
        theirs, ours = self.per_step[other], self.per_step[self.start]
        less = 1 - theirs / ours
        if theirs < _MARGIN * ours:
            return other, (
                f"switched to {_xla(other)}: {duration(theirs)} a step against {duration(ours)} with "
                f"{_xla(self.start)}, {less:.0%} less (it needed {1 - _MARGIN:.0%} less to win)"
            )
        short = "no faster" if less <= 0 else f"only {less:.0%} less, not the {1 - _MARGIN:.0%} it needed to win"
        return self.start, (
            f"kept {_xla(self.start)}: {_xla(other)} took {duration(theirs)} a step against {duration(ours)}, {short}"
        )

    def _compile_seconds(self, form: bool) -> float:
        return max(0.0, self.warm_seconds[form] - self.warm_steps[form] * self.per_step.get(form, 0.0))

    def _after_first_form(self, state: Any) -> None:
        first, other = _xla(self.start), _xla(not self.start)
        if self.expected_steps is None:
            self._decide(
                state,
                self.start,
                f"kept {first}: the run's length is unknown (a dataset of unknown "
                f"size without steps_per_epoch), so a compile of {other} might never "
                f"be earned back",
            )
            return
        remaining = max(0, self.expected_steps - self.done_steps)
        per_step = self.per_step[self.start]
        remaining_seconds = remaining * per_step
        first_compile = self._compile_seconds(self.start)
        factor = _PLAIN_COMPILE_FACTOR if self.start else _XLA_COMPILE_FACTOR
        trial = first_compile * factor + _CHECK_STEPS * (_CLEAR_RATIO - 1) * per_step
        share = min(self.best_saving / _PAYBACK, _RISK)
        affordable = share * remaining_seconds
        if trial > affordable:
            if remaining == 0:
                left = f"the run's {self.done_steps} steps were all spent timing it, none left to try {other}"
            else:
                left = (
                    f"the {remaining} steps left would take about {duration(remaining_seconds)} "
                    f"({duration(per_step)} each), too few to earn back a trial of {other}: its compile "
                    f"(estimated at {factor:g} times this form's {duration(first_compile)}) and first steps "
                    f"would cost about {duration(trial)}, more than the {share:.0%} of the time left "
                    f"({duration(affordable)}) a trial may take"
                )
            self._decide(state, self.start, f"kept {first}: {left}")
            return
        self.plan = [
            ("warm", not self.start),
            ("check", not self.start),
            ("measure", not self.start),
            ("measure", self.start),
            ("measure", not self.start),
        ]

    def _decide(self, state: Any, jit_compile: bool, reason: str) -> None:
        state.jit_compile = jit_compile
        compile_seconds = {form: self._compile_seconds(form) for form in self.warm_seconds}
        self.decision = XlaDecision(jit_compile, reason, dict(self.per_step), compile_seconds)
        self.plan = []
