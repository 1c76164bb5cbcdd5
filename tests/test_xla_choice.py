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
    decision = _drive(XlaChooser(False, expected_steps=10_000), state, {False: 0.03, True: 0.02},
                      {False: 0.7, True: 2.8})
    assert decision.jit_compile is True and state.jit_compile is True
    assert decision.seconds_per_step == pytest.approx({False: 0.03, True: 0.02})
    assert decision.compile_seconds == pytest.approx({False: 0.7, True: 2.8})
    assert "XLA on" in str(decision) and "30 ms/step" in str(decision)


def test_xla_that_is_not_faster_is_dropped_and_the_first_form_runs_on():
    state = _State()
    decision = _drive(XlaChooser(False, expected_steps=10_000), state, {False: 0.01, True: 0.024},
                      {False: 0.3, True: 1.5})
    assert decision.jit_compile is False and state.jit_compile is False
    assert set(decision.seconds_per_step) == {False, True}
    assert "was not faster" in decision.reason


def test_a_form_clearly_slower_on_its_first_timing_is_not_timed_again():
    state, timed = _State(), []
    chooser = XlaChooser(False, expected_steps=10_000)
    original = chooser.record

    def record(state_, steps, seconds):
        timed.append((chooser.plan[0], state_.jit_compile))
        original(state_, steps, seconds)

    chooser.record = record
    decision = _drive(chooser, state, {False: 0.011, True: 0.026}, {False: 0.26, True: 1.2})   # the CNN's figures
    assert decision.jit_compile is False and state.jit_compile is False
    assert [kind for (kind, _), _ in timed].count("measure") == 2    # off once, XLA once: no second round
    assert "was not faster" in decision.reason


@pytest.mark.parametrize("gpu, time_loop, start, saving", [
    (False, False, False, xla_choice._SAVING_OTHER_ON_CPU),
    (False, True, True, xla_choice._SAVING_OTHER_ON_CPU),
    (True, False, True, xla_choice._SAVING_XLA_OFF_GPU),
    (True, True, True, xla_choice._SAVING_XLA_OFF_GPU),
])
def test_the_starting_form_and_what_the_other_may_save_follow_the_device_and_recurrent_layers(
        gpu, time_loop, start, saving):
    assert xla_choice.starting_form(gpu, time_loop) is start
    assert xla_choice.expected_saving(gpu) == saving


def test_a_form_clearly_faster_on_its_first_timing_is_chosen_without_a_second_round():
    state = _State()
    chooser = XlaChooser(False, expected_steps=100_000, best_saving=0.6)
    decision = _drive(chooser, state, {False: 0.019, True: 0.011}, {False: 0.6, True: 1.4})   # the LSTM's figures
    assert decision.jit_compile is True and state.jit_compile is True
    assert decision.reason == "faster per step"
    assert chooser.done_steps < 1 + 2 + 2 * int(0.4 / 0.019) + 1 + int(0.4 / 0.011) + 1   # no second A/B round


def test_a_cpu_run_without_a_time_loop_tries_xla_only_when_a_tenth_of_it_repays_the_compile():
    # The bench's CNN: 1,400 steps of 11 ms after the first form's 0.26 s trace (XLA: about 1 s to compile).
    saving = xla_choice.expected_saving(gpu=False)
    short = _drive(XlaChooser(False, 1_407, saving), _State(), {False: 0.011, True: 0.026}, {False: 0.26, True: 1.2})
    assert set(short.seconds_per_step) == {False} and "could save at most" in short.reason
    long = _drive(XlaChooser(False, 14_070, saving), _State(), {False: 0.011, True: 0.026}, {False: 0.26, True: 1.2})
    assert set(long.seconds_per_step) == {False, True} and long.jit_compile is False


def test_on_a_cpu_a_model_with_an_lstm_starts_with_xla_and_a_convolutional_recurrence_does_not(monkeypatch):
    monkeypatch.setattr(compiled_state, "gpu_available", lambda: False)
    seen = []
    monkeypatch.setattr(xla_choice.XlaChooser, "__init__",
                        lambda self, start, steps, saving: seen.append((start, saving)) or setattr(self, "decision", 1))
    models = [
        tfkit.Sequential([tfkit.Input((5, 3)), layers.Bidirectional(layers.LSTM(4))]),
        tfkit.Sequential([tfkit.Input((5, 3)), layers.Dense(4)]),
        tfkit.Sequential([tfkit.Input((2, 4, 4, 1)), layers.ConvLSTM2D(2, 3)]),
    ]
    for model in models:
        model.compile("sgd", "mse")
        assert model._compiled.jit_compile is False           # before fit: the CPU default
        model._compiled.choose_xla(1000, model)
    assert [start for start, _ in seen] == [True, False, False]
    assert [model._compiled.jit_compile for model in models] == [True, False, False]
    assert {saving for _, saving in seen} == {xla_choice._SAVING_OTHER_ON_CPU}


def test_the_bench_lstm_keeps_xla_without_trying_the_plain_form():
    # The bench's LSTM on a CPU: 500 steps, XLA 11 ms a step after a 1.2 s compile; plain 1.4x slower. A plain
    # trace takes about half XLA's compile (0.55 s): a tenth of the remaining 5 s cannot repay it (a quarter,
    # the estimate before, made it try and spend 0.8 s of the first epoch).
    saving = xla_choice.expected_saving(gpu=False)
    state = _State()
    state.jit_compile = True                               # the starting form (choose_xla sets it)
    decision = _drive(XlaChooser(True, 500, saving), state, {True: 0.011, False: 0.0155}, {True: 1.2, False: 0.55})
    assert decision.jit_compile is True and set(decision.seconds_per_step) == {True}
    assert "could save at most" in decision.reason


def test_a_short_run_does_not_pay_for_a_second_compile():
    state = _State()
    # 300 steps of 1 ms: XLA could save at most 0.1 s, compiling it would take about 4 x 0.3 s
    decision = _drive(XlaChooser(False, expected_steps=300), state, {False: 0.001, True: 0.0005},
                      {False: 0.3, True: 1.2})
    assert decision.jit_compile is False and set(decision.seconds_per_step) == {False}
    assert "could save at most" in decision.reason


def test_an_unknown_run_length_keeps_the_default_form():
    state = _State()
    decision = _drive(XlaChooser(False, expected_steps=None), state, {False: 0.01, True: 0.001}, {False: 0.1, True: 0.1})
    assert decision.jit_compile is False and "unknown" in decision.reason


def test_chunks_given_by_the_planner_are_added_up_until_a_phase_has_its_steps():
    state = _State()
    chooser = XlaChooser(False, expected_steps=100_000)
    assert chooser.count(1, 50, free=False) == 1          # a fixed steps_per_execution / batch hooks: kept
    for _ in range(3):
        chooser.record(state, 1, 0.5 if _ == 0 else 0.01)  # warm (1 step), then the probe needs 2 steps
    assert chooser.measure_count == 40                     # 0.4 s at 10 ms a step
    for _ in range(40):
        chooser.record(state, 1, 0.01)
    assert chooser.per_step == pytest.approx({False: 0.01})
    assert state.jit_compile is True                       # XLA is tried next


def _sgd_reference(x, y, w, b, lr, batch, epochs):
    for _ in range(epochs):
        for start in range(0, len(x), batch):
            xb, yb = x[start:start + batch], y[start:start + batch]
            error = xb @ w + b - yb
            w = w - lr * 2 * xb.T @ error / error.size
            b = b - lr * 2 * error.mean(axis=0)
    return w, b


@pytest.mark.parametrize("data", ["arrays", "dataset"])
def test_fit_switching_forms_while_choosing_trains_as_numpy_says(monkeypatch, capsys, data):
    import tensorflow as tf

    monkeypatch.setattr(xla_choice, "_XLA_COMPILE_FACTOR", 0.0)   # always worth a try: both forms run
    rng = np.random.default_rng(0)
    x = rng.random((640, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype("float32")
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    model.compile(tfkit.optimizers.SGD(0.1), "mse")
    w0, b0 = (v.numpy() for v in model.weights)
    source = tf.data.Dataset.from_tensor_slices((x, y)).batch(8) if data == "dataset" else x
    model.fit(source, y if data == "arrays" else None, batch_size=8 if data == "arrays" else None, epochs=3,
              shuffle=False, verbose=2)
    decision = model.jit_compile_decision
    assert decision is not None and set(decision.seconds_per_step) == {False, True}
    assert model.jit_compile is decision.jit_compile
    assert str(decision) in capsys.readouterr().out        # verbose=2 says what it chose and why
    w, b = _sgd_reference(x.astype("float64"), y.astype("float64"), w0, b0, 0.1, 8, 3)
    np.testing.assert_allclose(model.weights[0].numpy(), w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(model.weights[1].numpy(), b, rtol=1e-4, atol=1e-5)


def test_an_explicit_jit_compile_is_never_second_guessed():
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    model.compile("sgd", "mse", jit_compile=False)
    model.fit(np.ones((64, 3), "float32"), np.ones((64, 1), "float32"), batch_size=8, epochs=2, verbose=0)
    assert model.jit_compile_decision is None and model.jit_compile is False
