"""jit_compile="auto" decides XLA by timing both compiled forms in the first epoch of fit."""

import numpy as np
import pytest

import tfkit
from tfkit import layers
from tfkit.training import compiled_state, xla_choice
from tfkit.training.xla_choice import XlaChooser


class _State:
    jit_compile = False


def _drive(chooser, state, seconds_per_step, compile_seconds, chunks=20):
    """Feed the chooser chunks timed as ``seconds_per_step[form] * steps (+ compile on a form's first chunk)``."""
    compiled = set()
    for _ in range(chunks):
        if not chooser.deciding:
            break
        steps = chooser.count(1000, None)
        form = state.jit_compile
        seconds = seconds_per_step[form] * steps + (compile_seconds[form] if form not in compiled else 0.0)
        compiled.add(form)
        chooser.record(state, steps, seconds)
    return chooser.decision


def test_a_long_run_tries_xla_and_keeps_it_when_it_is_faster_per_step():
    state = _State()
    decision = _drive(
        XlaChooser(False, expected_steps=10_000), state, {False: 0.03, True: 0.02}, {False: 0.7, True: 2.8}
    )
    assert decision.jit_compile is True and state.jit_compile is True
    assert decision.seconds_per_step == pytest.approx({False: 0.03, True: 0.02})
    assert decision.compile_seconds == pytest.approx({False: 0.7, True: 2.8})
    assert (
        decision.reason == "switched to XLA on: 20 ms a step against 30 ms with XLA off, 33% less (it needed 7% "
        "less to win)"
    )
    assert str(decision) == (
        f"jit_compile='auto' {decision.reason} (measured: XLA off 30 ms a step after a 0.7 s "
        f"compile; XLA on 20 ms a step after a 2.8 s compile)"
    )


def test_xla_that_is_not_faster_is_dropped_and_the_first_form_runs_on():
    state = _State()
    decision = _drive(
        XlaChooser(False, expected_steps=10_000), state, {False: 0.01, True: 0.0105}, {False: 0.3, True: 1.5}
    )
    assert decision.jit_compile is False and state.jit_compile is False
    assert set(decision.seconds_per_step) == {False, True}
    assert decision.reason == "kept XLA off: XLA on took 10 ms a step against 10 ms, no faster"


def _phases(chooser):
    """Record the (phase, form) of every chunk the chooser is given."""
    timed, original = [], chooser.record

    def record(state_, steps, seconds):
        timed.append((chooser.plan[0], steps))
        original(state_, steps, seconds)

    chooser.record = record
    return timed


def test_a_form_clearly_slower_on_its_first_steps_is_dropped_before_a_timing_chunk():
    state = _State()
    chooser = XlaChooser(False, expected_steps=10_000)
    timed = _phases(chooser)
    decision = _drive(chooser, state, {False: 0.011, True: 0.026}, {False: 0.26, True: 1.2})  # the CNN's figures
    assert decision.jit_compile is False and state.jit_compile is False
    assert [phase for phase, _ in timed] == [
        ("warm", False),
        ("probe", False),
        ("measure", False),
        ("warm", True),
        ("check", True),
    ]
    assert timed[-1][1] == 2  # two XLA steps, not a 0.4 s chunk
    assert decision.seconds_per_step == pytest.approx({False: 0.011, True: 0.026})
    assert decision.reason == (
        "kept XLA off: XLA on's first 2 steps after its compile took 26 ms each, 2.4 times "
        "XLA off's 11 ms; a form 1.5 times slower there is dropped"
    )


def test_a_form_clearly_slower_on_its_first_timing_chunk_is_not_timed_again():
    state = _State()
    chooser = XlaChooser(False, expected_steps=10_000)
    timed = _phases(chooser)
    xla = {"warm": 0.014, "check": 0.014, "measure": 0.03}  # the check passes (1.4x), the timing chunk: 3x
    while chooser.deciding:
        (phase, form), steps = chooser.plan[0], chooser.count(1000, None)
        per_step = xla[phase] if form else 0.01
        compile_seconds = {False: 0.2, True: 1.0}[form] if phase == "warm" else 0.0
        chooser.record(state, steps, per_step * steps + compile_seconds)
    assert [phase for phase, _ in timed].count(("measure", True)) == 1  # no second A/B round
    assert chooser.decision.jit_compile is False
    assert chooser.decision.reason == "kept XLA off: XLA on took 30 ms a step against 10 ms, no faster"


@pytest.mark.parametrize(
    "gpu, time_loop, steps, start, saving",
    [
        (False, False, 100_000, False, xla_choice._SAVING_OTHER_ON_CPU),
        (False, True, 100_000, True, xla_choice._SAVING_OTHER_ON_CPU),
        (False, True, 500, True, xla_choice._SAVING_OTHER_ON_CPU),
        (False, True, 499, False, xla_choice._SAVING_OTHER_ON_CPU),  # too short to earn back XLA's compile
        (False, True, 8, False, xla_choice._SAVING_OTHER_ON_CPU),
        (False, True, None, True, xla_choice._SAVING_OTHER_ON_CPU),  # unknown length: as a long run
        (True, False, 8, True, xla_choice._SAVING_XLA_OFF_GPU),
        (True, True, 100_000, True, xla_choice._SAVING_XLA_OFF_GPU),
    ],
)
def test_the_starting_form_and_what_the_other_may_save_follow_the_device_recurrent_layers_and_run_length(
    gpu, time_loop, steps, start, saving
):
    assert xla_choice.starting_form(gpu, time_loop, steps) is start
    assert xla_choice.expected_saving(gpu) == saving


def test_a_form_clearly_faster_on_its_first_timing_is_chosen_without_a_second_round():
    state = _State()
    chooser = XlaChooser(False, expected_steps=100_000, best_saving=0.6)
    decision = _drive(chooser, state, {False: 0.019, True: 0.011}, {False: 0.6, True: 1.4})  # the LSTM's figures
    assert decision.jit_compile is True and state.jit_compile is True
    assert (
        decision.reason == "switched to XLA on: 11 ms a step against 19 ms with XLA off, 42% less (it needed 7% "
        "less to win)"
    )
    assert chooser.done_steps < 1 + 2 + 2 * int(0.4 / 0.019) + 1 + int(0.4 / 0.011) + 1  # no second A/B round


def test_a_cpu_run_without_a_time_loop_tries_xla_only_when_the_trial_costs_at_most_3_percent_of_the_rest():
    # The bench's CNN: 1,400 steps of 11 ms after the first form's 0.26 s trace (XLA: 1.2-2 s to compile; an
    # estimate of four traces, 1.04 s, made the 3-epoch CNN try it: 1.4 s, 10% of the run).
    saving = xla_choice.expected_saving(gpu=False)
    short = _drive(XlaChooser(False, 1_407, saving), _State(), {False: 0.011, True: 0.026}, {False: 0.26, True: 1.2})
    assert set(short.seconds_per_step) == {False} and "would cost about 2.1 s" in short.reason
    long = _drive(XlaChooser(False, 14_070, saving), _State(), {False: 0.011, True: 0.026}, {False: 0.26, True: 1.2})
    assert set(long.seconds_per_step) == {False, True} and long.jit_compile is False


# Seconds per step and to compile of each form, about as the bench measured them on 2-core CPUs, and the
# form each starts with. XLA loses for the VAE and the CNN, wins for the others.
_WORKLOADS = {
    "vae": (False, {False: 0.00065, True: 0.0015}, {False: 0.3, True: 1.2}),
    "cnn": (False, {False: 0.011, True: 0.026}, {False: 0.26, True: 1.8}),
    "transformer": (False, {False: 0.021, True: 0.0185}, {False: 0.9, True: 4.5}),
    "multi_io": (False, {False: 0.00085, True: 0.0007}, {False: 0.25, True: 1.0}),
    "lstm": (True, {False: 0.019, True: 0.011}, {False: 0.55, True: 1.2}),
}


def _auto_over_best(workload, total_steps):
    """A whole run with "auto" (the chooser's chunks, then the rest in the chosen form) over the better pinned form."""
    start, per_step, compile_seconds = _WORKLOADS[workload]
    state, compiled, elapsed = _State(), set(), 0.0
    state.jit_compile = start
    chooser = XlaChooser(start, total_steps, xla_choice.expected_saving(gpu=False))
    while chooser.deciding and chooser.done_steps < total_steps:
        steps, form = chooser.count(10_000, total_steps - chooser.done_steps), state.jit_compile
        seconds = per_step[form] * steps + (0.0 if form in compiled else compile_seconds[form])
        compiled.add(form)
        chooser.record(state, steps, seconds)
        elapsed += seconds
    elapsed += max(0, total_steps - chooser.done_steps) * per_step[state.jit_compile]
    return elapsed / min(compile_seconds[f] + total_steps * per_step[f] for f in (False, True))


@pytest.mark.parametrize("workload", ["vae", "cnn"])
@pytest.mark.parametrize("total_steps", [300, 1_000, 3_000, 10_000, 100_000, 1_000_000])
def test_a_trial_that_does_not_pay_costs_a_run_of_any_length_at_most_5_percent(workload, total_steps):
    assert _auto_over_best(workload, total_steps) <= 1.05


@pytest.mark.parametrize("workload", ["transformer", "multi_io", "lstm"])
@pytest.mark.parametrize("total_steps", [300, 1_000, 300_000, 1_000_000])
def test_when_the_other_form_wins_short_and_long_runs_end_within_5_percent_of_it(workload, total_steps):
    assert _auto_over_best(workload, total_steps) <= 1.05


@pytest.mark.parametrize("workload", ["transformer", "multi_io", "lstm"])
def test_between_them_a_run_too_short_to_risk_a_trial_loses_at_most_what_the_other_form_saves(workload):
    # The price of capping a trial at 3% of the run: a run a little too short to try the other form, where it
    # would have won, runs without it (the two-input model, whose plain step takes 1.21x XLA's, runs up to 1.19x longer).
    start, per_step, _ = _WORKLOADS[workload]
    slower = max(per_step.values()) / min(per_step.values())
    worst = max(_auto_over_best(workload, steps) for steps in np.geomspace(300, 1_000_000, 60).astype(int))
    assert worst <= slower


def test_on_a_cpu_a_model_with_an_lstm_starts_with_xla_and_a_convolutional_recurrence_does_not(monkeypatch):
    monkeypatch.setattr(compiled_state, "gpu_available", lambda: False)
    seen = []
    monkeypatch.setattr(
        xla_choice.XlaChooser,
        "__init__",
        lambda self, start, steps, saving: seen.append((start, saving)) or setattr(self, "decision", 1),
    )
    models = [
        tfkit.Sequential([tfkit.Input((5, 3)), layers.Bidirectional(layers.LSTM(4))]),
        tfkit.Sequential([tfkit.Input((5, 3)), layers.Dense(4)]),
        tfkit.Sequential([tfkit.Input((2, 4, 4, 1)), layers.ConvLSTM2D(2, 3)]),
    ]
    for steps in (1000, 8):
        for model in models:
            model.compile("sgd", "mse")
            assert model._compiled.jit_compile is False  # before fit: the CPU default
            model._compiled.choose_xla(steps, model)
    assert [start for start, _ in seen] == [True, False, False] + [False, False, False]  # 8 steps: never XLA first
    assert [model._compiled.jit_compile for model in models] == [False, False, False]
    assert {saving for _, saving in seen} == {xla_choice._SAVING_OTHER_ON_CPU}


def test_the_bench_lstm_keeps_xla_without_trying_the_plain_form():
    # The bench's LSTM on a CPU: 500 steps, XLA 11 ms a step after a 1.2 s compile; plain 1.4x slower. A plain
    # trace takes about half XLA's compile (0.55 s): a tenth of the remaining 5 s cannot repay it (a quarter,
    # the estimate before, made it try and spend 0.8 s of the first epoch).
    saving = xla_choice.expected_saving(gpu=False)
    state = _State()
    state.jit_compile = True  # the starting form (choose_xla sets it)
    decision = _drive(XlaChooser(True, 500, saving), state, {True: 0.011, False: 0.0155}, {True: 1.2, False: 0.55})
    assert decision.jit_compile is True and set(decision.seconds_per_step) == {True}
    assert "a trial of XLA off" in decision.reason


def test_a_short_run_does_not_pay_for_a_second_compile():
    state = _State()
    # 300 steps of 1 ms: a trial may cost 3% of the remaining 0.3 s, compiling XLA would take about 8 x 0.3 s
    decision = _drive(
        XlaChooser(False, expected_steps=300), state, {False: 0.001, True: 0.0005}, {False: 0.3, True: 1.2}
    )
    assert decision.jit_compile is False and set(decision.seconds_per_step) == {False}
    assert decision.reason == (
        "kept XLA off: the 279 steps left would take about 0.28 s (1 ms each), too few to earn back a trial of XLA "
        "on: its compile (estimated at 8 times this form's 0.3 s) and first steps would cost about 2.4 s, more than "
        "the 3% of the time left (8.4 ms) a trial may take"
    )


# The LSTM of issue 48 on a 2-core CPU: LSTM(64) over 32 timesteps, batches of 32. XLA saves 1.5 ms of a 5.1 ms
# step, but its compile took 6 s (under load) against a plain trace's 1.1 s.
_ISSUE_LSTM = ({False: 0.0051, True: 0.0036}, {False: 1.1, True: 6.0})


def _auto_run(total_steps, per_step, compile_seconds, time_loop=True):
    """A whole CPU run with "auto" (start, chooser's chunks, the rest in the chosen form): seconds and decision."""
    state, compiled, elapsed = _State(), set(), 0.0
    state.jit_compile = xla_choice.starting_form(False, time_loop, total_steps)
    chooser = XlaChooser(state.jit_compile, total_steps, xla_choice.expected_saving(gpu=False))
    while chooser.deciding and chooser.done_steps < total_steps:
        steps, form = chooser.count(10_000, total_steps - chooser.done_steps), state.jit_compile
        seconds = per_step[form] * steps + (0.0 if form in compiled else compile_seconds[form])
        compiled.add(form)
        chooser.record(state, steps, seconds)
        elapsed += seconds
    elapsed += max(0, total_steps - chooser.done_steps) * per_step[state.jit_compile]
    return elapsed, chooser.decision, compiled


def test_a_short_lstm_run_on_a_cpu_never_compiles_xla_and_says_why_with_its_numbers():
    per_step, compile_seconds = _ISSUE_LSTM
    elapsed, decision, compiled = _auto_run(8, per_step, compile_seconds)
    assert compiled == {False} and decision.jit_compile is False
    assert elapsed == pytest.approx(compile_seconds[False] + 8 * per_step[False])  # as jit_compile=False
    assert elapsed < compile_seconds[True] + 8 * per_step[True]  # XLA: its 6 s compile
    assert decision.reason == (
        "kept XLA off: the 3 steps left would take about 15 ms (5.1 ms each), too few to earn back a trial of XLA "
        "on: its compile (estimated at 8 times this form's 1.1 s) and first steps would cost about 8.8 s, more "
        "than the 3% of the time left (0.46 ms) a trial may take"
    )
    assert str(decision) == (
        f"jit_compile='auto' {decision.reason} (measured: XLA off 5.1 ms a step after a 1.1 s compile; XLA on not run)"
    )


def test_a_long_lstm_run_on_a_cpu_starts_with_xla_and_keeps_it_where_it_pays():
    per_step, compile_seconds = _ISSUE_LSTM
    elapsed, decision, compiled = _auto_run(100_000, per_step, compile_seconds)
    assert decision.jit_compile is True and compiled == {True, False}  # XLA first; the plain trial is cheap
    assert decision.reason == "kept XLA on: XLA off took 5.1 ms a step against 3.6 ms, no faster"
    assert decision.seconds_per_step == pytest.approx(per_step)
    assert decision.compile_seconds == pytest.approx(compile_seconds)
    pinned = min(compile_seconds[f] + 100_000 * per_step[f] for f in (False, True))
    assert elapsed <= 1.05 * pinned


def test_durations_in_reasons_read_as_a_person_writes_them():
    assert [xla_choice.duration(s) for s in (0.0, 0.00044, 0.0051, 0.015, 0.0996, 0.31, 1.94, 9.96, 350.0)] == [
        "0 ms",
        "0.44 ms",
        "5.1 ms",
        "15 ms",
        "0.1 s",
        "0.31 s",
        "1.9 s",
        "10 s",
        "350 s",
    ]


def test_an_unknown_run_length_keeps_the_default_form():
    state = _State()
    decision = _drive(
        XlaChooser(False, expected_steps=None), state, {False: 0.01, True: 0.001}, {False: 0.1, True: 0.1}
    )
    assert decision.jit_compile is False
    assert decision.reason == (
        "kept XLA off: the run's length is unknown (a dataset of unknown size without "
        "steps_per_epoch), so a compile of XLA on might never be earned back"
    )


def test_chunks_given_by_the_planner_are_added_up_until_a_phase_has_its_steps():
    state = _State()
    chooser = XlaChooser(False, expected_steps=100_000)
    assert chooser.count(1, 50, free=False) == 1  # a fixed steps_per_execution / batch hooks: kept
    for _ in range(3):
        chooser.record(state, 1, 0.5 if _ == 0 else 0.01)  # warm (1 step), then the probe needs 2 steps
    assert chooser.measure_count == 40  # 0.4 s at 10 ms a step
    for _ in range(40):
        chooser.record(state, 1, 0.01)
    assert chooser.per_step == pytest.approx({False: 0.01})
    assert state.jit_compile is True  # XLA is tried next


def _sgd_reference(x, y, w, b, lr, batch, epochs):
    for _ in range(epochs):
        for start in range(0, len(x), batch):
            xb, yb = x[start : start + batch], y[start : start + batch]
            error = xb @ w + b - yb
            w = w - lr * 2 * xb.T @ error / error.size
            b = b - lr * 2 * error.mean(axis=0)
    return w, b


@pytest.mark.parametrize("data", ["arrays", "dataset"])
def test_fit_switching_forms_while_choosing_trains_as_numpy_says(monkeypatch, capsys, data):
    import tensorflow as tf

    monkeypatch.setattr(xla_choice, "_XLA_COMPILE_FACTOR", 0.0)  # always worth a try: both forms run
    rng = np.random.default_rng(0)
    x = rng.random((640, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype("float32")
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    model.compile(tfkit.optimizers.SGD(0.1), "mse")
    w0, b0 = (v.numpy() for v in model.weights)
    source = tf.data.Dataset.from_tensor_slices((x, y)).batch(8) if data == "dataset" else x
    model.fit(
        source,
        y if data == "arrays" else None,
        batch_size=8 if data == "arrays" else None,
        epochs=3,
        shuffle=False,
        verbose=2,
    )
    decision = model.jit_compile_decision
    assert decision is not None and set(decision.seconds_per_step) == {False, True}
    assert model.jit_compile is decision.jit_compile
    assert str(decision) in capsys.readouterr().out  # verbose=2 says what it chose and why
    w, b = _sgd_reference(x.astype("float64"), y.astype("float64"), w0, b0, 0.1, 8, 3)
    np.testing.assert_allclose(model.weights[0].numpy(), w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(model.weights[1].numpy(), b, rtol=1e-4, atol=1e-5)


def test_fit_of_a_short_lstm_run_on_a_cpu_with_auto_never_builds_the_xla_loops(monkeypatch):
    monkeypatch.setattr(compiled_state, "gpu_available", lambda: False)
    rng = np.random.default_rng(0)
    x, y = rng.random((64, 3, 2)).astype("float32"), rng.random((64, 1)).astype("float32")
    model = tfkit.Sequential([tfkit.Input((3, 2)), layers.LSTM(2)])
    model.compile("sgd", "mse")  # jit_compile="auto"
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)  # 8 steps
    decision = model.jit_compile_decision
    assert decision.jit_compile is False and model.jit_compile is False
    assert list(model._compiled._loops) == [False]  # XLA was never traced nor compiled
    assert decision.reason.startswith("kept XLA off: the 3 steps left would take about ")
    assert set(decision.seconds_per_step) == set(decision.compile_seconds) == {False}


def test_the_decisions_docstring_example_runs_as_written(monkeypatch):
    import doctest

    import tensorflow as tf

    monkeypatch.setattr(compiled_state, "gpu_available", lambda: False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder(recurse=False).find(
        xla_choice.XlaDecision, "XlaDecision", module=False, globs={"tfkit": tfkit, "tf": tf, "np": np}
    ):
        runner.run(test)
    assert runner.summarize(verbose=False) == (0, 7)


def test_an_explicit_jit_compile_is_never_second_guessed():
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    model.compile("sgd", "mse", jit_compile=False)
    model.fit(np.ones((64, 3), "float32"), np.ones((64, 1), "float32"), batch_size=8, epochs=2, verbose=0)
    assert model.jit_compile_decision is None and model.jit_compile is False
