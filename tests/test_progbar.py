"""Progbar and ProgbarLogger output, captured into StringIO streams."""

from __future__ import annotations

import io
import re

import pytest

from tfkit.callbacks import CallbackList, Progbar, ProgbarLogger
from tfkit.callbacks import progbar as progbar_module

ANSI = re.compile(r"\x1b\[[0-9;]*m")
FINAL_LINE = re.compile(
    r"^(?P<count>\d+/\d+) (?P<bar>━{20}) (?P<elapsed>\d+s) (?P<per_step>\d+(s|ms|us))/step(?P<metrics>( - \w+: \S+)*)$"
)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(progbar_module.time, "time", fake)
    return fake


# ---------------------------------------------------------------------------
# Progbar
# ---------------------------------------------------------------------------


def test_non_terminal_output_is_only_the_final_line(clock):
    out = io.StringIO()
    bar = Progbar(938, stream=out)
    assert not bar.dynamic_display
    for step in range(1, 939):
        clock.now += 0.001
        bar.update(step, [("loss", 0.0942)])
    lines = out.getvalue().split("\n")
    assert lines[-1] == "" and len(lines) == 2
    match = FINAL_LINE.match(lines[0])
    assert match, lines[0]
    assert match["count"] == "938/938"
    assert match["elapsed"] == "1s"
    assert match["per_step"] == "1ms"
    assert match["metrics"] == " - loss: 0.0942"
    assert "\x1b" not in out.getvalue() and "\r" not in out.getvalue()


def test_terminal_output_redraws_in_place_with_colours(clock):
    out = Terminal()
    bar = Progbar(4, stream=out, interval=0.05)
    assert bar.dynamic_display
    for step in range(1, 5):
        clock.now += 0.5
        bar.update(step, [("loss", 1.0)])
    text = out.getvalue()
    assert text.count("\r") == 4 and text.endswith("\n") and text.count("\n") == 1
    assert "\x1b[32m" in text and "\x1b[37m" in text  # green done cells, dimmed rest
    frames = [ANSI.sub("", frame).rstrip("\n") for frame in text.split("\r")[1:]]
    assert frames[1].startswith("2/4 ━━━━━━━━━━━━━━━━━━━━ 1s 500ms/step - loss: 1.0000")  # ETA 1s while running
    assert FINAL_LINE.match(frames[-1].rstrip()), frames[-1]
    assert frames[-1].startswith("4/4 ━━━━━━━━━━━━━━━━━━━━ 2s 500ms/step")


def test_terminal_redraws_are_throttled_by_interval(clock):
    out = Terminal()
    bar = Progbar(100, stream=out, interval=1.0)
    for step in range(1, 101):
        clock.now += 0.05  # 20 updates per second -> a redraw every 20 steps
        bar.update(step)
    assert out.getvalue().count("\r") == 5 + 1  # steps 1, 21, 41, 61, 81 and the final one


def test_bar_cells_show_progress_and_shorter_lines_are_padded(clock):
    out = Terminal()
    bar = Progbar(10, stream=out, interval=0)
    bar.update(5, [("loss", 123.5)])
    bar.update(6, [("loss", 0.5)])
    first, second = (ANSI.sub("", frame) for frame in out.getvalue().split("\r")[1:])
    assert " ━━━━━━━━━━━━━━━━━━━━ " in first  # 10 green + 10 dimmed cells
    assert out.getvalue().split("\r")[1].count("━") == 20
    assert "\x1b[32m" + "━" * 10 + "\x1b[0m" in out.getvalue().split("\r")[1]
    assert "\x1b[32m" + "━" * 12 + "\x1b[0m" in out.getvalue().split("\r")[2]
    assert len(second) >= len(first)  # the old, longer text is overwritten with spaces


def test_plain_partial_bar_uses_light_cells_for_the_rest(clock):
    out = io.StringIO()
    Progbar(10, stream=out).update(5, finalize=True)
    assert out.getvalue().startswith(" 5/10 " + "━" * 10 + "─" * 10 + " 0s")  # count padded to the target's width


def test_stateless_metrics_are_averaged_over_steps_and_stateful_ones_shown_as_given(clock):
    out = Terminal()
    bar = Progbar(10, stream=out, interval=0, stateful_metrics=["acc"])
    bar.update(1, [("loss", 1.0), ("acc", 0.5)])
    bar.update(3, [("loss", 4.0), ("acc", 0.25)])  # loss weighted by 2 steps: (1 + 4 * 2) / 3
    last = ANSI.sub("", out.getvalue().split("\r")[-1])
    assert "loss: 3.0000 - acc: 0.2500" in last


def test_small_values_use_scientific_notation_and_strings_pass_through(clock):
    out = io.StringIO()
    Progbar(2, stream=out, stateless_metrics=set()).update(2, [("loss", 0.0005), ("lr", 0.0), ("tag", "best")])
    assert out.getvalue().rstrip("\n").endswith(" - loss: 5.0000e-04 - lr: 0.0000e+00 - tag: best")


def test_verbose_2_prints_one_summary_line(clock):
    out = Terminal()
    bar = Progbar(50, stream=out, verbose=2)
    for step in range(1, 51):
        clock.now += 0.04
        bar.update(step, [("loss", 0.25)])
    assert out.getvalue() == "50/50 - 2s - 40ms/step - loss: 0.2500\n"


def test_verbose_0_is_silent_and_bad_verbose_is_rejected(clock):
    out = Terminal()
    bar = Progbar(3, stream=out, verbose=0)
    for step in range(1, 4):
        bar.update(step, [("loss", 1.0)])
    assert out.getvalue() == ""
    assert Progbar(3, verbose="auto", stream=out).verbose == 1
    with pytest.raises(ValueError, match="verbose must be 0, 1, 2 or 'auto'; got 3"):
        Progbar(3, verbose=3)
    with pytest.raises(ValueError, match="not both"):
        Progbar(3, stateful_metrics=["a"], stateless_metrics=["b"])


def test_unknown_target_counts_steps(clock):
    out = io.StringIO()
    bar = Progbar(None, stream=out)
    bar.add(3)
    bar.add(4)
    assert out.getvalue() == ""  # never finalized by itself
    clock.now += 7
    bar.update(7, [("loss", 0.5)], finalize=True)
    # 7 seconds for the 4 steps after the first update: 1.75 s/step.
    assert out.getvalue() == "      7/Unknown 7s 2s/step - loss: 0.5000\n"


def test_time_per_step_leaves_out_the_first_update(clock):
    out = io.StringIO()
    bar = Progbar(25, stream=out)
    clock.now += 10.0  # the first chunk of 5 steps includes tracing
    bar.update(5)
    clock.now += 2.0  # 20 more steps in 2 seconds
    bar.update(25)
    assert out.getvalue() == "25/25 ━━━━━━━━━━━━━━━━━━━━ 12s 100ms/step\n"


def test_time_and_eta_formats():
    assert progbar_module.format_time_per_unit(2.0) == "2s/step"
    assert progbar_module.format_time_per_unit(0.0134) == "13ms/step"
    assert progbar_module.format_time_per_unit(0.00087, "sample") == "870us/sample"
    assert progbar_module.format_time_per_unit(0.0009999) == "1ms/step"
    assert progbar_module.format_time_per_unit(0.9999) == "1s/step"
    assert progbar_module.format_eta(45.7) == "45s"
    assert progbar_module.format_eta(125) == "2:05"
    assert progbar_module.format_eta(3725) == "1:02:05"


# ---------------------------------------------------------------------------
# ProgbarLogger, driven like the trainer: once per compiled chunk
# ---------------------------------------------------------------------------


def _fit_output(stream, verbose=1, epochs=2, steps=6, chunk=3, clock=None):
    logger = ProgbarLogger(stream=stream)
    callbacks = CallbackList([logger], add_progbar=True, epochs=epochs, steps=steps, verbose=verbose)
    callbacks.on_train_begin()
    for epoch in range(epochs):
        callbacks.on_epoch_begin(epoch)
        for last in range(chunk - 1, steps, chunk):
            if clock is not None:
                clock.now += 0.01 * chunk
            callbacks.on_train_batch_end(last, {"loss": 0.5 / (epoch + 1)})
        callbacks.on_test_begin()
        callbacks.on_test_batch_end(0, {"loss": 9.0})  # silent inside fit
        callbacks.on_test_end({"loss": 0.75})
        callbacks.on_epoch_end(epoch, {"loss": 0.5 / (epoch + 1), "val_loss": 0.75})
    callbacks.on_train_end()
    return stream.getvalue()


def test_fit_output_in_a_log_file(clock):
    text = _fit_output(io.StringIO(), clock=clock)
    lines = text.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    for line, loss in ((lines[1], "0.5000"), (lines[3], "0.2500")):
        match = FINAL_LINE.match(line)
        assert match, line
        assert match["count"] == "6/6" and match["per_step"] == "10ms"
        assert match["metrics"] == f" - loss: {loss} - val_loss: 0.7500"


def test_fit_output_in_a_terminal(clock):
    text = _fit_output(Terminal(), clock=clock)
    plain = ANSI.sub("", text)
    assert plain.startswith("Epoch 1/2\n\r3/6 ━━━━━━━━━━━━━━━━━━━━ 0s 10ms/step - loss: 0.5000")
    epoch_lines = [segment.split("\n")[0].rstrip() for segment in plain.split("\r") if segment.startswith("6/6")]
    assert len(epoch_lines) == 2 and all(FINAL_LINE.match(line) for line in epoch_lines)
    assert epoch_lines[1].endswith("- loss: 0.2500 - val_loss: 0.7500")
    assert "9.0000" not in plain  # validation batches are silent inside fit


def test_fit_output_verbose_2_and_single_epoch(clock):
    text = _fit_output(io.StringIO(), verbose=2, epochs=1, clock=clock)
    assert text == "6/6 - 0s - 10ms/step - loss: 0.5000 - val_loss: 0.7500\n"  # no "Epoch 1/1" header


def test_evaluate_and_predict_show_their_own_bar(clock):
    out = io.StringIO()
    callbacks = CallbackList([], add_progbar=True, epochs=1, steps=4, verbose=1)
    callbacks.progbar._stream = out
    callbacks.on_test_begin()
    for batch in range(4):
        callbacks.on_test_batch_end(batch, {"loss": 0.1 * batch})
    callbacks.on_test_end({"loss": 0.125})
    callbacks.on_predict_begin()
    callbacks.on_predict_batch_end(3, {"outputs": [1, 2]})
    callbacks.on_predict_end()
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert FINAL_LINE.match(lines[0]) and lines[0].endswith(" - loss: 0.1250")
    assert FINAL_LINE.match(lines[1]) and "outputs" not in lines[1]


def test_unknown_step_count_is_learned_in_the_first_epoch(clock):
    out = io.StringIO()
    callbacks = CallbackList([ProgbarLogger(stream=out)], epochs=1, steps=None, verbose=1)
    callbacks.on_train_begin()
    callbacks.on_epoch_begin(0)
    callbacks.on_train_batch_end(4, {"loss": 1.0})
    callbacks.on_epoch_end(0, {"loss": 1.0})
    callbacks.on_train_end()
    assert out.getvalue().startswith("5/5 ━━━━━━━━━━━━━━━━━━━━ ")
