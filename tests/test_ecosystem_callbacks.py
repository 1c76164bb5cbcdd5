"""Callbacks written for Keras run in tfkit's fit, evaluate and predict, as they run in Keras's.

Each test writes a callback the way a library does, as a ``keras.callbacks.Callback``
subclass (or a plain object with the callback methods), hands it to a tfkit model and,
where numbers are involved, to the same Keras 3 model side by side: the hooks called,
``params``, the logs and what the callback can do to the model must match.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfkit
from tfkit.callbacks.callback import follows_callback_protocol, implements_batch_hooks

keras = pytest.importorskip("keras")

MODES = ("train", "test", "predict")


class Recorder(keras.callbacks.Callback):
    """Records every hook with its arguments, as a logging library's callback would."""

    def __init__(self):
        super().__init__()
        self.events = []

    def _note(self, hook, *args, logs=None):
        self.events.append((hook, *args, dict(logs) if logs is not None else None))

    def on_train_begin(self, logs=None):
        self.params_seen = dict(self.params)
        self.model_seen = self.model
        self._note("train_begin", logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._note("epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch, logs=None):
        self._note("epoch_end", epoch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self._note("train_batch_end", batch, logs=logs)

    def on_test_begin(self, logs=None):
        self._note("test_begin", logs=logs)

    def on_test_batch_end(self, batch, logs=None):
        self._note("test_batch_end", batch, logs=logs)

    def on_test_end(self, logs=None):
        self._note("test_end", logs=logs)

    def on_predict_batch_end(self, batch, logs=None):
        self.events.append(("predict_batch_end", batch, np.asarray(logs["outputs"]).shape))

    def on_train_end(self, logs=None):
        self._note("train_end", logs=logs)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    x = rng.random((12, 3)).astype("float32")
    return x, (x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.25).astype("float32")


def _twins(seed=0):
    """The same two-layer regressor in Keras 3 and in tfkit, with equal weights."""
    keras.utils.set_random_seed(seed)
    kmodel = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(1)])
    tmodel = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(4, activation="tanh"), tfkit.layers.Dense(1)])
    tmodel.set_weights(kmodel.get_weights())
    kmodel.compile(keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    tmodel.compile(tfkit.optimizers.SGD(0.1), "mse", metrics=["mae"])
    return kmodel, tmodel


def _same_events(tfkit_events, keras_events):
    assert [e[:2] for e in tfkit_events] == [e[:2] for e in keras_events]
    for mine, theirs in zip(tfkit_events, keras_events):
        if isinstance(theirs[-1], dict):
            assert sorted(mine[-1]) == sorted(theirs[-1]), mine[0]
            assert all(type(value) is float for value in mine[-1].values())
            np.testing.assert_allclose(
                [mine[-1][k] for k in sorted(theirs[-1])],
                [theirs[-1][k] for k in sorted(theirs[-1])],
                rtol=1e-5,
                atol=1e-6,
            )
        else:
            assert mine[-1] == theirs[-1], mine[0]


def test_a_keras_callback_sees_the_hooks_params_and_logs_keras_gives_it(data):
    x, y = data
    kmodel, tmodel = _twins()
    runs = {}
    for name, model in (("keras", kmodel), ("tfkit", tmodel)):
        recorder = Recorder()
        history = model.fit(
            x, y, batch_size=4, epochs=2, shuffle=False, verbose=0, validation_data=(x, y), callbacks=[recorder]
        )
        model.evaluate(x, y, batch_size=4, verbose=0, callbacks=[recorder])
        model.predict(x, batch_size=5, verbose=0, callbacks=[recorder])
        runs[name] = (recorder, history)
    (mine, my_history), (theirs, their_history) = runs["tfkit"], runs["keras"]
    assert mine.model_seen is tmodel
    assert mine.params_seen == theirs.params_seen == {"verbose": 0, "epochs": 2, "steps": 3}
    _same_events(mine.events, theirs.events)
    assert [e[1] for e in mine.events if e[0] == "train_batch_end"] == [0, 1, 2, 0, 1, 2]  # every batch
    assert [e[2] for e in mine.events if e[0] == "predict_batch_end"] == [(5, 1), (5, 1), (2, 1)]
    np.testing.assert_allclose(my_history.history["val_loss"], their_history.history["val_loss"], rtol=1e-5)


class EpochsOnly(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        pass


class TrainBatches(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        pass


class OlderBatchName(keras.callbacks.Callback):
    def on_batch_begin(self, batch, logs=None):
        pass


class EveryTestBatch(keras.callbacks.Callback):
    def on_test_batch_begin(self, batch, logs=None):
        pass


class PredictBatches(keras.callbacks.Callback):
    def on_predict_batch_end(self, batch, logs=None):
        pass


@pytest.mark.parametrize(
    "callback_class, wanted",
    [
        (keras.callbacks.Callback, set()),
        (EpochsOnly, set()),
        (TrainBatches, {"train"}),
        (OlderBatchName, {"train"}),
        (EveryTestBatch, {"test"}),
        (PredictBatches, {"predict"}),
    ],
)
def test_a_keras_callback_asks_for_batch_hooks_only_by_overriding_one(callback_class, wanted):
    callback = callback_class()
    assert {mode for mode in MODES if implements_batch_hooks(callback, mode)} == wanted
    callbacks = tfkit.callbacks.CallbackList([callback])
    assert {mode for mode in MODES if callbacks.needs_batch_hooks(mode)} == wanted


def test_tf_keras_callbacks_answer_for_themselves():
    tf_keras = pytest.importorskip("tf_keras")

    class Legacy(tf_keras.callbacks.Callback):
        def on_test_batch_end(self, batch, logs=None):
            pass

    assert {mode for mode in MODES if implements_batch_hooks(Legacy(), mode)} == {"test"}
    assert not any(implements_batch_hooks(tf_keras.callbacks.Callback(), mode) for mode in MODES)


class CountsBatches(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.train, self.test, self.predict = [], [], []

    def on_train_batch_begin(self, batch, logs=None):
        self.train.append(batch)

    def on_test_batch_end(self, batch, logs=None):
        self.test.append(batch)

    def on_predict_batch_begin(self, batch, logs=None):
        self.predict.append(batch)


def test_batch_hooks_of_a_keras_callback_see_every_batch_of_a_multi_step_loop(data):
    x, y = data
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
    model.compile("sgd", "mse", steps_per_execution=3)  # several steps per compiled call
    counter, quiet = CountsBatches(), EpochsOnly()
    model.fit(x, y, batch_size=2, epochs=2, verbose=0, callbacks=[counter, quiet])
    model.evaluate(x, y, batch_size=4, verbose=0, callbacks=[counter])
    model.predict(x, batch_size=6, verbose=0, callbacks=[counter])
    assert counter.train == list(range(6)) * 2 and counter.test == [0, 1, 2] and counter.predict == [0, 1]


class Steering(keras.callbacks.Callback):
    """Reads the history so far, halves the learning rate each epoch and stops after the second."""

    def __init__(self):
        super().__init__()
        self.rates, self.losses_seen = [], []

    def on_epoch_begin(self, epoch, logs=None):
        self.rates.append(float(self.model.optimizer.learning_rate))
        self.model.optimizer.learning_rate = self.rates[-1] / 2

    def on_epoch_end(self, epoch, logs=None):
        self.losses_seen.append(list(self.model.history.history.get("loss", [])))
        if epoch == 1:
            self.model.stop_training = True


def test_a_keras_callback_steers_training_as_in_keras(data):
    x, y = data
    kmodel, tmodel = _twins(seed=1)
    results = {}
    for name, model in (("keras", kmodel), ("tfkit", tmodel)):
        steering = Steering()
        history = model.fit(x, y, batch_size=4, epochs=5, shuffle=False, verbose=0, callbacks=[steering])
        results[name] = (steering, history, float(model.optimizer.learning_rate))
    (mine, my_history, my_rate), (theirs, their_history, their_rate) = results["tfkit"], results["keras"]
    assert my_history.epoch == their_history.epoch == [0, 1]
    np.testing.assert_allclose(mine.rates, theirs.rates)
    np.testing.assert_allclose(my_rate, their_rate)
    assert [len(seen) for seen in mine.losses_seen] == [len(seen) for seen in theirs.losses_seen] == [0, 1]
    np.testing.assert_allclose(my_history.history["loss"], their_history.history["loss"], rtol=1e-5)


def test_keras_built_in_callbacks_run_on_a_tfkit_model(data):
    x, y = data
    kmodel, tmodel = _twins(seed=2)
    histories = {}
    for name, model in (("keras", kmodel), ("tfkit", tmodel)):
        schedule = keras.callbacks.LearningRateScheduler(lambda epoch, rate: 0.2 / (epoch + 1))
        stop = keras.callbacks.EarlyStopping(monitor="loss", min_delta=10.0, patience=1)  # no epoch improves that much
        histories[name] = model.fit(x, y, batch_size=4, epochs=6, shuffle=False, verbose=0, callbacks=[schedule, stop])
    mine, theirs = histories["tfkit"].history, histories["keras"].history
    assert sorted(mine) == sorted(theirs) == ["learning_rate", "loss", "mae"]
    assert len(mine["loss"]) == len(theirs["loss"]) == 2  # EarlyStopping ended both after its patience
    np.testing.assert_allclose(mine["learning_rate"], [0.2, 0.1])
    np.testing.assert_allclose(mine["loss"], theirs["loss"], rtol=1e-5)


class Minimal:
    """The least a Keras CallbackList needs: set_model, set_params and the hooks one uses."""

    def __init__(self):
        self.seen = []

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params

    def on_epoch_end(self, epoch, logs=None):
        self.seen.append(("epoch", epoch, sorted(logs)))

    def on_batch_end(self, batch, logs=None):  # only the older name: reached through on_train_batch_end
        self.seen.append(("batch", batch))


def test_an_object_with_the_callback_methods_needs_no_base_class(data):
    x, y = data
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
    model.compile("sgd", "mse")
    minimal = Minimal()
    assert follows_callback_protocol(minimal) and implements_batch_hooks(minimal, "train")
    model.fit(x, y, batch_size=6, epochs=2, verbose=0, callbacks=[minimal])
    model.evaluate(x, y, verbose=0, callbacks=[minimal])  # hooks it lacks are skipped
    model.predict(x, verbose=0, callbacks=[minimal])
    assert minimal.seen == [
        ("batch", 0),
        ("batch", 1),
        ("epoch", 0, ["loss"]),
        ("batch", 0),
        ("batch", 1),
        ("epoch", 1, ["loss"]),
    ]
    assert minimal.model is model and minimal.params["epochs"] == 1  # predict set the params last


def test_something_that_is_not_a_callback_is_refused_with_what_is_expected(data):
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
    model.compile("sgd", "mse")
    with pytest.raises(
        ValueError,
        match=r"callbacks\[1\] is not a callback.*set_model, set_params and on_\* hooks"
        r".*got dict: \{'on_epoch_end'",
    ):
        model.fit(*data, epochs=1, verbose=0, callbacks=[EpochsOnly(), {"on_epoch_end": print}])
    with pytest.raises(ValueError, match="got function"):
        tfkit.callbacks.CallbackList([]).append(lambda: None)
