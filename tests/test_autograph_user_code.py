"""A user's ``call`` is converted by AutoGraph only when conversion can change what it does."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.engine import autograph


class StraightLine(layers.Layer):
    def call(self, x):
        return tf.nn.relu(x) * 2.0 + 1.0


class PythonIf(layers.Layer):
    def call(self, x):
        if tf.reduce_sum(x) > 0:  # a tensor condition: only AutoGraph makes this a tf.cond
            return x * 2.0
        return -x


class HelperMethod(layers.Layer):
    def _clip(self, x):
        while tf.reduce_max(x) > 1.0:  # a tensor loop inside the user's helper
            x = x / 2.0
        return x

    def call(self, x):
        return self._clip(x)


def _halve_until_small(x):
    for _ in tf.range(3):
        x = x / 2.0
    return x


class HelperFunction(layers.Layer):
    def call(self, x):
        return _halve_until_small(x)


class Prints(layers.Layer):
    def call(self, x):
        print("value:", x)
        return x


def test_only_calls_that_conversion_can_change_are_converted():
    assert not autograph.needs_conversion(StraightLine().call)
    for layer in (PythonIf(), HelperMethod(), HelperFunction(), Prints()):
        assert autograph.needs_conversion(layer.call), type(layer).__name__
    assert not autograph.needs_conversion(lambda x: x + 1)
    assert autograph.needs_conversion(lambda x: x if x is not None else 0)


def _compiled(layer, x):
    return tf.function(lambda t: layer(t))(tf.constant(x)).numpy()


def test_python_control_flow_on_tensors_still_works_in_compiled_calls():
    positive, negative = np.array([[1.0, 2.0]], "float32"), np.array([[-1.0, -2.0]], "float32")
    np.testing.assert_allclose(_compiled(PythonIf(), positive), positive * 2)
    np.testing.assert_allclose(_compiled(PythonIf(), negative), -negative)
    np.testing.assert_allclose(_compiled(HelperMethod(), np.array([[3.0, 0.5]], "float32")), [[0.75, 0.125]])
    np.testing.assert_allclose(_compiled(HelperFunction(), np.array([[8.0]], "float32")), [[1.0]])
    np.testing.assert_allclose(_compiled(StraightLine(), np.array([[-1.0, 2.0]], "float32")), [[1.0, 5.0]])


def test_a_model_with_a_python_if_trains_in_fit():
    model = tfkit.Sequential([tfkit.Input((2,)), PythonIf(), layers.Dense(1)])
    model.compile("sgd", "mse")
    history = model.fit(np.ones((16, 2), "float32"), np.ones((16, 1), "float32"), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2 and np.isfinite(history.history["loss"]).all()


@pytest.fixture
def conversions(monkeypatch):
    """The qualified names of the functions AutoGraph converts while the test runs."""
    from tensorflow.python.autograph.impl import api

    converted, real = [], api._convert_actual

    def recording(entity, program_ctx):
        converted.append(getattr(entity, "__qualname__", repr(entity)))
        return real(entity, program_ctx)

    monkeypatch.setattr(api, "_convert_actual", recording)
    return converted


@pytest.mark.parametrize("jit_compile", [False, True])
def test_fit_converts_the_users_call_and_none_of_tfkits_loops(conversions, jit_compile):
    # tfkit's compiled loops are written with tf.while_loop / tf.cond and traced as written: AutoGraph
    # spent 0.2-0.3 s converting each at a fit's first trace. The user's `if` is still converted.
    model = tfkit.Sequential([tfkit.Input((2,)), PythonIf(), layers.Dense(1)])
    model.compile("sgd", "mse", jit_compile=jit_compile)
    x, y = np.ones((16, 2), "float32"), np.ones((16, 1), "float32")
    model.fit(x, y, batch_size=5, epochs=1, verbose=0)  # arrays, a short last batch
    model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(4), epochs=1, verbose=0)  # an iterator
    model.evaluate(x, y, verbose=0)
    np.testing.assert_allclose(model.predict(-x, verbose=0), model.layers[-1](x).numpy(), rtol=1e-6)
    assert any("PythonIf.call" in name for name in conversions)
    assert not [name for name in conversions if "StepLoops" in name or "Trainer" in name or "Model." in name], (
        conversions
    )


def test_export_of_a_model_with_a_python_if(tmp_path):
    # the serving functions trace with AutoGraph on for the user's layers (they used autograph=False: the
    # export failed on `if tensor:` while predict worked)
    model = tfkit.Sequential([tfkit.Input((2,), name="x"), PythonIf()])
    path = str(tmp_path / "export")
    model.export(path, verbose=False)
    loaded = tf.saved_model.load(path)
    for value in (np.ones((1, 2), "float32"), -np.ones((1, 2), "float32")):
        np.testing.assert_allclose(loaded.serve(value).numpy(), model.predict(value, verbose=0))
        served = loaded.signatures["serving_default"](x=tf.constant(value))
        np.testing.assert_allclose(list(served.values())[0].numpy(), model.predict(value, verbose=0))
