"""Callbacks against a fake model and a small loop that calls hooks like the trainer.

Integration tests through the real ``tfkit.Model.fit`` are at the end, marked
``@pytest.mark.integration`` (search for "INTEGRATION").
"""

from __future__ import annotations

import csv
import math
import os

import numpy as np
import pytest
import tensorflow as tf

from tfkit import callbacks as cb
from tfkit.base import registry


class FakeOptimizer(tf.Module):
    def __init__(self, learning_rate: float = 0.1) -> None:
        super().__init__()
        self.learning_rate = tf.Variable(learning_rate, dtype=tf.float32, trainable=False)
        self.iterations = tf.Variable(0, dtype=tf.int64, trainable=False)


class FakeModel(tf.Module):
    """The attributes the trainer contract promises, nothing more."""

    def __init__(self, learning_rate: float = 0.1) -> None:
        super().__init__(name="fake_model")
        self.kernel = tf.Variable([1.0, 2.0])
        self.optimizer = FakeOptimizer(learning_rate)
        self.stop_training = False
        self.train_function = None
        self.saved: list[tuple[str, str]] = []

    @property
    def weights(self) -> list[tf.Variable]:
        return [self.kernel]

    @property
    def trainable_weights(self) -> list[tf.Variable]:
        return [self.kernel]

    def get_weights(self) -> list[np.ndarray]:
        return [w.numpy() for w in self.weights]

    def set_weights(self, values) -> None:
        for w, v in zip(self.weights, values):
            w.assign(v)

    def save(self, filepath: str) -> None:
        self.saved.append(("model", filepath))
        with open(filepath, "w") as f:
            f.write("model")

    def save_weights(self, filepath: str) -> None:
        self.saved.append(("weights", filepath))
        with open(filepath, "w") as f:
            f.write("weights")


def simulate_fit(model, callbacks, epochs, epoch_logs=None, steps=4, chunk=2, verbose=0, on_epoch=None):
    """Call hooks in the trainer's order: batch hooks per batch only when asked for.

    ``epoch_logs[epoch]`` gives the epoch's logs (including ``val_`` ones);
    batch logs carry the epoch's ``loss``. ``on_epoch(model, epoch)`` runs
    before each epoch end (to change the weights as training would).
    """
    epoch_logs = epoch_logs or [{"loss": 1.0 / (e + 1), "val_loss": 1.0 / (e + 1)} for e in range(epochs)]
    callback_list = cb.CallbackList(
        callbacks, add_history=True, add_progbar=True, model=model, epochs=epochs, steps=steps, verbose=verbose
    )
    per_batch = callback_list.needs_batch_hooks("train")
    per_test_batch = callback_list.needs_batch_hooks("test")
    model.stop_training = False
    callback_list.on_train_begin()
    start = getattr(model, "_initial_epoch", None) or 0
    logs = {}
    for epoch in range(start, epochs):
        callback_list.on_epoch_begin(epoch)
        train_logs = {k: v for k, v in epoch_logs[epoch].items() if not k.startswith("val_")}
        for first in range(0, steps, chunk):
            last = min(first + chunk, steps) - 1
            if per_batch:
                for batch in range(first, last + 1):
                    callback_list.on_train_batch_begin(batch)
                    model.optimizer.iterations.assign_add(1)
                    callback_list.on_train_batch_end(batch, dict(train_logs))
            else:
                model.optimizer.iterations.assign_add(last - first + 1)
                if callback_list.progbar is not None:
                    callback_list.progbar.on_train_batch_end(last, dict(train_logs))
        val_logs = {k[4:]: v for k, v in epoch_logs[epoch].items() if k.startswith("val_")}
        if val_logs:
            callback_list.on_test_begin()
            if per_test_batch:
                for batch in range(2):
                    callback_list.on_test_batch_begin(batch)
                    callback_list.on_test_batch_end(batch, dict(val_logs))
            callback_list.on_test_end(dict(val_logs))
        if on_epoch is not None:
            on_epoch(model, epoch)
        logs = dict(epoch_logs[epoch])
        callback_list.on_epoch_end(epoch, logs)
        if model.stop_training:
            break
    callback_list.on_train_end(logs)
    return callback_list.history


class Recorder(cb.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple] = []

    def __getattribute__(self, name):
        attribute = super().__getattribute__(name)
        if name.startswith("on_") and callable(attribute):
            calls = super().__getattribute__("calls")

            def record(*args, **kwargs):
                calls.append((name, *args[:1]) if args and isinstance(args[0], int) else (name,))
                return attribute(*args, **kwargs)

            return record
        return attribute


# ---------------------------------------------------------------------------
# Callback base and CallbackList
# ---------------------------------------------------------------------------


def test_hook_order_and_counts_with_per_batch_hooks():
    class Batches(cb.Callback):
        def __init__(self):
            super().__init__()
            self.events = []

        def on_train_begin(self, logs=None):
            self.events.append("train_begin")

        def on_epoch_begin(self, epoch, logs=None):
            self.events.append(f"epoch_begin {epoch}")

        def on_train_batch_begin(self, batch, logs=None):
            self.events.append(f"batch_begin {batch}")

        def on_train_batch_end(self, batch, logs=None):
            self.events.append(f"batch_end {batch} loss={logs['loss']}")

        def on_test_begin(self, logs=None):
            self.events.append("test_begin")

        def on_test_end(self, logs=None):
            self.events.append(f"test_end {sorted(logs)}")

        def on_epoch_end(self, epoch, logs=None):
            self.events.append(f"epoch_end {epoch} {sorted(logs)}")

        def on_train_end(self, logs=None):
            self.events.append("train_end")

    recorder = Batches()
    simulate_fit(
        FakeModel(),
        [recorder],
        epochs=2,
        steps=3,
        epoch_logs=[{"loss": 0.5, "val_loss": 0.6}, {"loss": 0.25, "val_loss": 0.3}],
    )
    assert recorder.events == [
        "train_begin",
        "epoch_begin 0",
        "batch_begin 0",
        "batch_end 0 loss=0.5",
        "batch_begin 1",
        "batch_end 1 loss=0.5",
        "batch_begin 2",
        "batch_end 2 loss=0.5",
        "test_begin",
        "test_end ['loss']",
        "epoch_end 0 ['loss', 'val_loss']",
        "epoch_begin 1",
        "batch_begin 0",
        "batch_end 0 loss=0.25",
        "batch_begin 1",
        "batch_end 1 loss=0.25",
        "batch_begin 2",
        "batch_end 2 loss=0.25",
        "test_begin",
        "test_end ['loss']",
        "epoch_end 1 ['loss', 'val_loss']",
        "train_end",
    ]


def test_every_hook_is_forwarded_once_to_every_callback():
    first, second = Recorder(), Recorder()
    callback_list = cb.CallbackList([first, second])
    hooks_with_index = [
        "on_batch_begin",
        "on_batch_end",
        "on_train_batch_begin",
        "on_train_batch_end",
        "on_test_batch_begin",
        "on_test_batch_end",
        "on_predict_batch_begin",
        "on_predict_batch_end",
        "on_epoch_begin",
        "on_epoch_end",
    ]
    hooks_without = [
        "on_train_begin",
        "on_train_end",
        "on_test_begin",
        "on_test_end",
        "on_predict_begin",
        "on_predict_end",
    ]
    for name in hooks_with_index:
        getattr(callback_list, name)(3, {"loss": 1.0})
    for name in hooks_without:
        getattr(callback_list, name)({"loss": 1.0})
    for recorder in (first, second):
        names = [call[0] for call in recorder.calls]
        for name in hooks_with_index + hooks_without:
            # on_train_batch_* forward to the on_batch_* aliases, which adds one call each.
            expected = 2 if name in ("on_batch_begin", "on_batch_end") else 1
            assert names.count(name) == expected, name
        assert ("on_epoch_end", 3) in recorder.calls


def test_default_callback_implements_no_batch_hooks():
    plain = cb.Callback()
    assert not plain._implements_train_batch_hooks()
    assert not plain._implements_test_batch_hooks()
    assert not plain._implements_predict_batch_hooks()


@pytest.mark.parametrize(
    "hook, mode",
    [
        ("on_train_batch_end", "train"),
        ("on_train_batch_begin", "train"),
        ("on_batch_end", "train"),
        ("on_test_batch_end", "test"),
        ("on_predict_batch_begin", "predict"),
    ],
)
def test_overriding_a_batch_hook_asks_for_batch_hooks_of_that_mode(hook, mode):
    subclass = type("Custom", (cb.Callback,), {hook: lambda self, batch, logs=None: None})
    callback = subclass()
    answers = {
        "train": callback._implements_train_batch_hooks(),
        "test": callback._implements_test_batch_hooks(),
        "predict": callback._implements_predict_batch_hooks(),
    }
    assert answers == {m: m == mode for m in answers}
    assert cb.CallbackList([callback]).needs_batch_hooks(mode)


def test_needs_batch_hooks_ignores_the_progress_bar_and_rejects_bad_modes():
    callback_list = cb.CallbackList([cb.ProgbarLogger(), cb.History()], verbose=1, epochs=1, steps=2)
    assert callback_list.progbar._implements_train_batch_hooks()
    assert not callback_list.needs_batch_hooks("train")
    assert not callback_list.needs_batch_hooks("test")
    assert not callback_list.needs_batch_hooks("predict")
    with pytest.raises(ValueError, match="'train', 'test', 'predict'"):
        callback_list.needs_batch_hooks("fit")


def test_callback_list_adds_history_and_progbar_once():
    model = FakeModel()
    callback_list = cb.CallbackList([], add_history=True, add_progbar=True, model=model, epochs=2, steps=3, verbose=1)
    assert [type(c).__name__ for c in callback_list] == ["History", "ProgbarLogger"]
    assert model.history is callback_list.history
    assert callback_list.progbar.epochs == 2 and callback_list.progbar.target == 3
    assert all(c.model is model for c in callback_list)
    assert all(c.params == {"epochs": 2, "steps": 3, "verbose": 1} for c in callback_list)

    silent = cb.CallbackList([], add_history=True, add_progbar=True, model=model, epochs=2, steps=3, verbose=0)
    assert [type(c).__name__ for c in silent] == ["History"]

    mine = cb.History()
    user_given = cb.CallbackList([mine], add_history=True, model=model, verbose=1)
    assert list(user_given) == [mine] and user_given.history is mine


def test_callback_list_rejects_non_callbacks():
    with pytest.raises(ValueError, match="Callback instances; got function"):
        cb.CallbackList([lambda: None])


def test_callback_list_turns_log_values_into_python_floats_and_shares_one_dict():
    seen = []

    class Adds(cb.Callback):
        def on_epoch_end(self, epoch, logs=None):
            logs["extra"] = 1.5

    class Reads(cb.Callback):
        def on_epoch_end(self, epoch, logs=None):
            seen.append(dict(logs))

    cb.CallbackList([Adds(), Reads()]).on_epoch_end(
        0, {"loss": tf.constant(0.5), "acc": np.float32(0.25), "count": np.int64(3)}
    )
    assert seen == [{"loss": 0.5, "acc": 0.25, "count": 3.0, "extra": 1.5}]
    assert all(type(value) is float for value in seen[0].values())


def test_callbacks_are_registered_by_name():
    assert registry.lookup("callbacks", "EarlyStopping") is cb.EarlyStopping
    assert isinstance(registry.resolve("callbacks", "TerminateOnNaN"), cb.TerminateOnNaN)


# ---------------------------------------------------------------------------
# History
# ---------------------------------------------------------------------------


def test_history_collects_every_epoch_and_sits_on_the_model():
    model = FakeModel()
    logs = [{"loss": 0.9, "val_loss": 1.0}, {"loss": 0.5, "val_loss": 0.7}, {"loss": 0.2, "val_loss": 0.4}]
    history = simulate_fit(model, [], epochs=3, epoch_logs=logs)
    assert history.epoch == [0, 1, 2]
    assert history.history == {"loss": [0.9, 0.5, 0.2], "val_loss": [1.0, 0.7, 0.4]}
    assert model.history is history
    assert not history._implements_train_batch_hooks()


# ---------------------------------------------------------------------------
# LambdaCallback and TerminateOnNaN
# ---------------------------------------------------------------------------


def test_lambda_callback_calls_the_given_functions():
    events = []
    callback = cb.LambdaCallback(
        on_train_begin=lambda logs: events.append("begin"),
        on_epoch_end=lambda epoch, logs: events.append(("epoch", epoch, logs["loss"])),
        on_train_batch_end=lambda batch, logs: events.append(("batch", batch)),
        on_train_end=lambda logs: events.append("end"),
    )
    assert callback._implements_train_batch_hooks()
    assert not callback._implements_test_batch_hooks()
    simulate_fit(FakeModel(), [callback], epochs=2, steps=2, epoch_logs=[{"loss": 3.0}, {"loss": 2.0}])
    assert events == [
        "begin",
        ("batch", 0),
        ("batch", 1),
        ("epoch", 0, 3.0),
        ("batch", 0),
        ("batch", 1),
        ("epoch", 1, 2.0),
        "end",
    ]


def test_lambda_callback_without_batch_functions_needs_no_batch_hooks_and_checks_names():
    callback = cb.LambdaCallback(on_epoch_end=lambda epoch, logs: None, on_test_end=lambda logs: None)
    assert not callback._implements_train_batch_hooks()
    with pytest.raises(ValueError, match="unknown hook names \\['on_epoch_finish'\\]"):
        cb.LambdaCallback(on_epoch_finish=print)
    with pytest.raises(ValueError, match="on_epoch_end must be callable"):
        cb.LambdaCallback(on_epoch_end=3)


def test_terminate_on_nan_stops_at_the_first_bad_batch(capsys):
    model = FakeModel()
    logs = [{"loss": 1.0}, {"loss": float("nan")}, {"loss": 0.5}]
    history = simulate_fit(model, [cb.TerminateOnNaN()], epochs=3, epoch_logs=logs, steps=2)
    assert cb.TerminateOnNaN()._implements_train_batch_hooks()
    assert history.epoch == [0, 1]
    assert "Batch 0: Invalid loss, terminating training" in capsys.readouterr().out
    assert math.isnan(history.history["loss"][-1])


def test_terminate_on_nan_can_raise_and_checks_infinity():
    callback = cb.TerminateOnNaN(raise_error=True)
    callback.set_model(FakeModel())
    callback.on_train_batch_end(0, {"loss": 0.1})
    with pytest.raises(RuntimeError, match="NaN or Inf loss encountered at batch 4"):
        callback.on_train_batch_end(4, {"loss": float("inf")})


# ---------------------------------------------------------------------------
# EarlyStopping
# ---------------------------------------------------------------------------


def _epochs(values, key="val_loss"):
    return [{"loss": 1.0, key: v} for v in values]


def test_early_stopping_waits_patience_epochs_after_the_best():
    stop = cb.EarlyStopping(monitor="val_loss", patience=2)
    history = simulate_fit(
        FakeModel(), [stop], epochs=10, epoch_logs=_epochs([1.0, 0.8, 0.9, 0.85, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    )
    # best at epoch 1; epochs 2 and 3 do not improve -> stop after epoch 3.
    assert history.epoch == [0, 1, 2, 3]
    assert stop.stopped_epoch == 3 and stop.best == 0.8


def test_early_stopping_min_delta_and_max_mode_from_accuracy_name():
    stop = cb.EarlyStopping(monitor="val_accuracy", patience=1, min_delta=0.05)
    history = simulate_fit(
        FakeModel(), [stop], epochs=6, epoch_logs=_epochs([0.5, 0.6, 0.62, 0.64, 0.9, 0.95], "val_accuracy")
    )
    # 0.6 improves on 0.5 by more than 0.05; 0.62 does not -> with patience 1, stop after epoch 2.
    assert history.epoch == [0, 1, 2]
    assert stop.best == 0.6


def test_early_stopping_restores_best_weights():
    stop = cb.EarlyStopping(monitor="val_loss", patience=1, restore_best_weights=True)
    model = FakeModel()

    def move_weights(model, epoch):
        model.kernel.assign([float(epoch), float(epoch) * 10])

    history = simulate_fit(
        model, [stop], epochs=5, epoch_logs=_epochs([0.9, 0.5, 0.7, 0.8, 0.1]), on_epoch=move_weights
    )
    assert history.epoch == [0, 1, 2]
    np.testing.assert_allclose(model.kernel.numpy(), [1.0, 10.0])
    assert stop.best_epoch == 1


def test_early_stopping_baseline_and_start_from_epoch():
    values = _epochs([0.9, 0.8, 0.85, 0.4, 0.3, 0.2])
    with_baseline = simulate_fit(FakeModel(), [cb.EarlyStopping(patience=2, baseline=0.5)], epochs=6, epoch_logs=values)
    without = simulate_fit(FakeModel(), [cb.EarlyStopping(patience=2)], epochs=6, epoch_logs=values)
    # Improvements that do not beat the baseline still count as waiting.
    assert with_baseline.epoch == [0, 1, 2]
    assert without.epoch == [0, 1, 2, 3, 4, 5]

    warm = cb.EarlyStopping(monitor="val_loss", patience=0, start_from_epoch=3)
    history = simulate_fit(FakeModel(), [warm], epochs=8, epoch_logs=_epochs([0.9, 1.0, 1.1, 1.2, 1.3, 0.1, 0.1, 0.1]))
    assert history.epoch == [0, 1, 2, 3, 4]


def test_early_stopping_needs_a_direction_for_unknown_names():
    stop = cb.EarlyStopping(monitor="val_weirdness")
    stop.set_model(FakeModel())
    with pytest.raises(ValueError, match="Pass mode='min' or mode='max'"):
        stop.on_epoch_end(0, {"val_weirdness": 1.0})
    explicit = cb.EarlyStopping(monitor="val_weirdness", mode="max", patience=0)
    history = simulate_fit(FakeModel(), [explicit], epochs=4, epoch_logs=_epochs([1.0, 2.0, 1.5, 3.0], "val_weirdness"))
    assert history.epoch == [0, 1, 2]


def test_early_stopping_uses_the_direction_of_the_models_metric():
    class Metric:
        name = "quality"
        direction = "up"

    model = FakeModel()
    model.metrics = [Metric()]
    stop = cb.EarlyStopping(monitor="val_quality", patience=0)
    history = simulate_fit(model, [stop], epochs=4, epoch_logs=_epochs([1.0, 2.0, 1.0, 3.0], "val_quality"))
    assert history.epoch == [0, 1, 2]


def test_early_stopping_warns_when_the_monitor_is_missing():
    stop = cb.EarlyStopping(monitor="val_loss")
    with pytest.warns(UserWarning, match="'val_loss', which is not in the logs. Available: loss"):
        history = simulate_fit(FakeModel(), [stop], epochs=2, epoch_logs=[{"loss": 1.0}, {"loss": 2.0}])
    assert history.epoch == [0, 1]


# ---------------------------------------------------------------------------
# Learning rate callbacks
# ---------------------------------------------------------------------------


def test_learning_rate_scheduler_sets_the_rate_each_epoch_and_logs_it():
    model = FakeModel(learning_rate=0.1)
    seen = []
    scheduler = cb.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch > 0 else lr)
    probe = cb.LambdaCallback(
        on_epoch_begin=lambda epoch, logs: seen.append(float(model.optimizer.learning_rate.numpy()))
    )
    history = simulate_fit(model, [scheduler, probe], epochs=3)
    np.testing.assert_allclose(seen, [0.1, 0.05, 0.025], rtol=1e-6)
    np.testing.assert_allclose(history.history["learning_rate"], [0.1, 0.05, 0.025], rtol=1e-6)


def test_learning_rate_scheduler_accepts_epoch_only_schedules_and_checks_the_result():
    model = FakeModel()
    simulate_fit(model, [cb.LearningRateScheduler(lambda epoch: 0.01 * (epoch + 1))], epochs=2)
    np.testing.assert_allclose(model.optimizer.learning_rate.numpy(), 0.02, rtol=1e-6)
    bad = cb.LearningRateScheduler(lambda epoch, lr: "fast")
    bad.set_model(FakeModel())
    with pytest.raises(ValueError, match="must return a float; got 'fast' at epoch 0"):
        bad.on_epoch_begin(0)


def test_reduce_lr_on_plateau_waits_patience_and_respects_min_lr():
    model = FakeModel(learning_rate=1.0)
    reduce = cb.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2, min_lr=0.2)
    history = simulate_fit(model, [reduce], epochs=9, epoch_logs=_epochs([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]))
    # Reductions after epochs 2, 4, 6 (1.0 -> 0.5 -> 0.25 -> 0.2), then nothing below min_lr.
    np.testing.assert_allclose(
        history.history["learning_rate"], [1.0, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2], rtol=1e-6
    )
    np.testing.assert_allclose(model.optimizer.learning_rate.numpy(), 0.2, rtol=1e-6)


def test_reduce_lr_on_plateau_cooldown_and_improvement_reset_the_wait():
    model = FakeModel(learning_rate=1.0)
    reduce = cb.ReduceLROnPlateau(monitor="val_loss", factor=0.1, patience=1, cooldown=2)
    history = simulate_fit(model, [reduce], epochs=7, epoch_logs=_epochs([1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.4]))
    # Logged rates are those in use during each epoch. Reduce at the end of epoch 1; the
    # cooldown counts down at epochs 2 and 3, so epoch 3 is the next to wait and reduce;
    # epoch 4 is cooled down again and epochs 5 and 6 improve: no further reduction.
    np.testing.assert_allclose(history.history["learning_rate"], [1.0, 1.0, 0.1, 0.1, 0.01, 0.01, 0.01], rtol=1e-5)
    np.testing.assert_allclose(model.optimizer.learning_rate.numpy(), 0.01, rtol=1e-5)


def test_reduce_lr_on_plateau_rejects_factor_at_least_one():
    with pytest.raises(ValueError, match="factor < 1.0"):
        cb.ReduceLROnPlateau(factor=1.0)


def test_learning_rate_access_handles_variables_schedules_and_plain_floats():
    from types import SimpleNamespace

    from tfkit.callbacks.learning_rate_access import read_learning_rate, set_learning_rate

    optimizer = FakeOptimizer(0.5)
    assert read_learning_rate(optimizer) == 0.5
    set_learning_rate(optimizer, 0.25)
    assert float(optimizer.learning_rate.numpy()) == 0.25

    scheduled = SimpleNamespace(
        learning_rate=lambda step: 0.1 * (int(step) + 1), iterations=tf.Variable(2, dtype=tf.int64)
    )
    assert read_learning_rate(scheduled) == pytest.approx(0.3)
    with pytest.raises(ValueError, match="is a schedule"):
        set_learning_rate(scheduled, 0.1)

    plain = SimpleNamespace(learning_rate=0.1)
    set_learning_rate(plain, 0.2)
    assert plain.learning_rate == 0.2
    with pytest.raises(ValueError, match="Call model.compile"):
        read_learning_rate(None)


# ---------------------------------------------------------------------------
# ModelCheckpoint
# ---------------------------------------------------------------------------


def test_model_checkpoint_formats_paths_with_epoch_and_logs(tmp_path):
    model = FakeModel()
    path = str(tmp_path / "ckpt" / "model-{epoch:02d}-{val_loss:.2f}.h5")
    simulate_fit(model, [cb.ModelCheckpoint(path)], epochs=2, epoch_logs=_epochs([0.5, 0.25]))
    expected = [str(tmp_path / "ckpt" / "model-01-0.50.h5"), str(tmp_path / "ckpt" / "model-02-0.25.h5")]
    assert model.saved == [("model", p) for p in expected]
    assert all(os.path.exists(p) for p in expected)


def test_model_checkpoint_best_only_saves_weights_on_improvement(tmp_path):
    model = FakeModel()
    path = str(tmp_path / "best-{epoch}.weights.h5")
    checkpoint = cb.ModelCheckpoint(path, monitor="val_loss", save_best_only=True, save_weights_only=True)
    simulate_fit(model, [checkpoint], epochs=5, epoch_logs=_epochs([0.5, 0.6, 0.4, 0.4, 0.3]))
    assert [name for _, name in model.saved] == [str(tmp_path / f"best-{e}.weights.h5") for e in (1, 3, 5)]
    assert {kind for kind, _ in model.saved} == {"weights"}
    assert checkpoint.best == 0.3


def test_model_checkpoint_initial_value_threshold_and_max_mode(tmp_path):
    model = FakeModel()
    checkpoint = cb.ModelCheckpoint(
        str(tmp_path / "m-{epoch}.h5"), monitor="val_accuracy", save_best_only=True, initial_value_threshold=0.7
    )
    simulate_fit(model, [checkpoint], epochs=4, epoch_logs=_epochs([0.6, 0.8, 0.75, 0.9], "val_accuracy"))
    assert [os.path.basename(p) for _, p in model.saved] == ["m-2.h5", "m-4.h5"]


def test_model_checkpoint_every_n_batches(tmp_path):
    model = FakeModel()
    checkpoint = cb.ModelCheckpoint(str(tmp_path / "e{epoch}-b{batch}.h5"), save_freq=3)
    assert checkpoint._implements_train_batch_hooks()
    simulate_fit(model, [checkpoint], epochs=2, steps=4)
    # 8 batches in total, a save every third: epoch 1 batch 3, epoch 2 batch 2.
    assert [os.path.basename(p) for _, p in model.saved] == ["e1-b3.h5", "e2-b2.h5"]


def test_model_checkpoint_errors_name_the_problem(tmp_path):
    with pytest.raises(ValueError, match="save_freq must be 'epoch' or a positive integer"):
        cb.ModelCheckpoint("x.h5", save_freq="batch")
    missing = cb.ModelCheckpoint(str(tmp_path / "{val_acc:.2f}.h5"))
    missing.set_model(FakeModel())
    with pytest.raises(KeyError, match="no value for 'val_acc'"):
        missing.on_epoch_end(0, {"loss": 1.0, "val_loss": 1.0})
    (tmp_path / "taken").mkdir()
    directory = cb.ModelCheckpoint(str(tmp_path / "taken"))
    directory.set_model(FakeModel())
    with pytest.raises(IsADirectoryError, match="existing directory"):
        directory.on_epoch_end(0, {"val_loss": 1.0})


# ---------------------------------------------------------------------------
# CSVLogger
# ---------------------------------------------------------------------------


def test_csv_logger_writes_a_header_and_one_row_per_epoch(tmp_path):
    path = tmp_path / "log.csv"
    logs = [
        {"loss": 0.5, "accuracy": 0.75, "val_loss": 0.625, "val_accuracy": 0.5},
        {"loss": 0.25, "accuracy": 0.875, "val_loss": 0.5, "val_accuracy": 0.625},
    ]
    simulate_fit(FakeModel(), [cb.CSVLogger(path)], epochs=2, epoch_logs=logs)
    assert path.read_text().splitlines() == [
        "epoch,accuracy,loss,val_accuracy,val_loss",
        "0,0.75,0.5,0.5,0.625",
        "1,0.875,0.25,0.625,0.5",
    ]


def test_csv_logger_append_keeps_one_header_and_separator(tmp_path):
    path = tmp_path / "log.tsv"
    simulate_fit(FakeModel(), [cb.CSVLogger(path, separator="\t", append=True)], epochs=1, epoch_logs=[{"loss": 1.0}])
    simulate_fit(FakeModel(), [cb.CSVLogger(path, separator="\t", append=True)], epochs=1, epoch_logs=[{"loss": 0.5}])
    rows = list(csv.reader(path.open(), delimiter="\t"))
    # Without validation logs the header reserves val_ columns, filled with NA.
    assert rows == [["epoch", "loss", "val_loss"], ["0", "1.0", "NA"], ["0", "0.5", "NA"]]
    simulate_fit(FakeModel(), [cb.CSVLogger(path)], epochs=1, epoch_logs=[{"loss": 0.25}])
    assert path.read_text().splitlines() == ["epoch,loss,val_loss", "0,0.25,NA"]


# ---------------------------------------------------------------------------
# INTEGRATION: through tfkit.Model.fit (skipped until the trainer exists)
# ---------------------------------------------------------------------------
