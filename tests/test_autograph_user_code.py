"""A user's ``call`` is converted by AutoGraph only when conversion can change what it does."""

import numpy as np
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.engine import autograph


class StraightLine(layers.Layer):
    def call(self, x):
        return tf.nn.relu(x) * 2.0 + 1.0


class PythonIf(layers.Layer):
    def call(self, x):
        if tf.reduce_sum(x) > 0:       # a tensor condition: only AutoGraph makes this a tf.cond
            return x * 2.0
        return -x


class HelperMethod(layers.Layer):
    def _clip(self, x):
        while tf.reduce_max(x) > 1.0:   # a tensor loop inside the user's helper
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
