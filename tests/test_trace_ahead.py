"""The short last batch's loop is traced on a helper thread while the full batches train."""

import threading

import numpy as np
import pytest

import tfkit
from tfkit import layers
from tfkit.training import epochs, trace_ahead


def test_trace_ahead_runs_its_work_on_another_thread_and_swallows_errors():
    seen = []
    ahead = trace_ahead.TraceAhead(lambda: seen.append(threading.current_thread().name))
    ahead.wait()
    assert seen == ["tfkit-trace-ahead"]
    trace_ahead.TraceAhead(lambda: 1 / 0).wait()  # the main thread will meet the error itself


@pytest.fixture
def started(monkeypatch):
    calls = []

    class Spy(trace_ahead.TraceAhead):
        def __init__(self, work):
            calls.append(work)
            super().__init__(work)

    monkeypatch.setattr(epochs, "TraceAhead", Spy)
    return calls


def _sgd_reference(x, y, w, b, lr, batch, epochs):
    """Plain numpy SGD on mean squared error, batches in order (no shuffling)."""
    for _ in range(epochs):
        for start in range(0, len(x), batch):
            xb, yb = x[start : start + batch], y[start : start + batch]
            error = xb @ w + b - yb
            w = w - lr * 2 * xb.T @ error / error.size
            b = b - lr * 2 * error.mean(axis=0)
    return w, b


def test_a_short_last_batch_traced_ahead_trains_as_numpy_says(started):
    rng = np.random.default_rng(0)
    x = rng.random((70, 3)).astype("float32")  # 8 full batches of 8 and a last batch of 6
    y = (x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype("float32")
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    model.compile(tfkit.optimizers.SGD(0.1), "mse", steps_per_execution=2)
    w0, b0 = (v.numpy() for v in model.weights)
    model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    w, b = _sgd_reference(x.astype("float64"), y.astype("float64"), w0, b0, 0.1, 8, 3)
    np.testing.assert_allclose(model.weights[0].numpy(), w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(model.weights[1].numpy(), b, rtol=1e-4, atol=1e-5)
    assert len(started) == 1  # in the first epoch only
    loops = model._compiled.built_loops()._cache
    last = [fn for key, fn in loops.items() if key[:3] == ("array", "train", 6)]
    assert len(last) == 1 and last[0].experimental_get_tracing_count() == 1


def test_no_trace_ahead_while_a_callback_runs_code_between_batches(started):
    class Batches(tfkit.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            pass

    x = np.ones((20, 2), "float32")
    model = tfkit.Sequential([tfkit.Input((2,)), layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(x, x[:, :1], batch_size=8, epochs=1, verbose=0, callbacks=[Batches()])
    assert started == []


def _line_data(n=40):
    rng = np.random.default_rng(1)
    x = rng.random((n, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype("float32")
    return x, y


def test_a_dataset_epochs_loop_is_traced_ahead_once_and_trains_as_numpy_says(started):
    import tensorflow as tf

    x, y = _line_data()
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    model.compile(tfkit.optimizers.SGD(0.1), "mse", steps_per_execution=2, jit_compile=False)
    w0, b0 = (v.numpy() for v in model.weights)
    history = model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(8), epochs=3, verbose=0)
    w, b = _sgd_reference(x.astype("float64"), y.astype("float64"), w0, b0, 0.1, 8, 3)
    np.testing.assert_allclose(model.weights[0].numpy(), w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(model.weights[1].numpy(), b, rtol=1e-4, atol=1e-5)
    assert len(started) == 1 and len(history.history["loss"]) == 3  # the first epoch only
    loop = model._compiled.built_loops()._cache[("iterator", "train")]
    assert loop.experimental_get_tracing_count() == 1  # the real call used that trace


def test_an_error_in_the_step_still_reaches_the_caller_from_a_dataset(started):
    import tensorflow as tf

    class Broken(tfkit.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)

        def call(self, inputs):
            return self.dense(inputs)

        def train_step(self, data):
            raise ValueError("broken on purpose")

    model = Broken()
    model.compile("sgd", "mse")
    x, y = _line_data(8)
    with pytest.raises(ValueError, match="broken on purpose"):
        model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(4), verbose=0)


def test_the_xla_chooser_is_told_the_time_of_a_trace_made_ahead(monkeypatch):
    import tensorflow as tf

    class SlowTrace(trace_ahead.TraceAhead):
        def wait(self):
            super().wait()
            self.seconds += 5.0  # as if the trace had taken five seconds more

    monkeypatch.setattr(epochs, "TraceAhead", SlowTrace)
    x, y = _line_data()
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    model.compile("sgd", "mse", jit_compile="auto")
    model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(4), epochs=2, verbose=0)
    assert model.jit_compile_decision.compile_seconds[False] >= 5.0


def test_work_ahead_runs_under_the_callers_device_scope():
    import tensorflow as tf
    from tensorflow.python.eager import context

    seen = []
    with tf.device("/device:CPU:0"):
        expected = context.context().device_name
        trace_ahead.TraceAhead(lambda: seen.append(context.context().device_name)).wait()
    assert seen == [expected] and "CPU:0" in expected
