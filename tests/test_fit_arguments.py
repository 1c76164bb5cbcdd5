"""Bad arguments to fit / evaluate / predict are clear errors that name the argument (no silent runs)."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


@pytest.fixture(scope="module")
def model():
    model = tfkit.Sequential([tfkit.Input((4,), name="features"), layers.Dense(2)])
    model.compile("sgd", "mse")
    return model


X, Y = np.ones((8, 4), "float32"), np.zeros((8, 2), "float32")


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda m: m.fit(X, Y, batch_size=-4, verbose=0),
            r"fit: batch_size must be a positive integer or None, got -4",
        ),
        (lambda m: m.fit(X, Y, batch_size=0, verbose=0), r"batch_size must be a positive integer or None, got 0"),
        (lambda m: m.fit(X, Y, batch_size=2.5, verbose=0), r"batch_size must be a positive integer or None, got 2.5"),
        (lambda m: m.fit(X, Y, batch_size=True, verbose=0), r"batch_size must be a positive integer or None, got True"),
        (lambda m: m.fit(X, Y, steps_per_epoch=0, verbose=0), r"steps_per_epoch must be a positive integer"),
        (lambda m: m.fit(X, Y, epochs=-1, verbose=0), r"fit: epochs must be a non-negative integer, got -1"),
        (
            lambda m: m.fit(X, Y, validation_split=1.0, verbose=0),
            r"validation_split must be a float in \[0, 1\), got 1.0",
        ),
        (lambda m: m.fit(X[:0], Y[:0], verbose=0), r"fit: x has no samples \(shape \(0, 4\)\)"),
        (
            lambda m: m.evaluate(X, Y, steps=-1, verbose=0),
            r"evaluate: steps must be a positive integer or None, got -1",
        ),
        (lambda m: m.predict(X[:0], verbose=0), r"predict: x has no samples"),
        (
            lambda m: m.predict(np.array([["a", "b", "c", "d"]]), verbose=0),
            r"predict: x holds strings \(dtype <U1\), but it feeds a model input of dtype float32",
        ),
        (lambda m: m.fit(np.array([["a", "b", "c", "d"]] * 2), Y[:2], verbose=0), r"fit: x holds strings"),
        (lambda m: m.fit(X, np.array([["a", "b"]] * 8), verbose=0), r"fit: y holds strings"),
        (lambda m: m.predict(np.array([[object()] * 4], dtype=object), verbose=0), r"array of Python objects"),
    ],
)
def test_bad_loop_arguments_are_value_errors(model, call, message):
    weights = [w.numpy() for w in model.weights]
    with pytest.raises(ValueError, match=message):
        call(model)
    for before, after in zip(weights, model.weights):
        np.testing.assert_array_equal(before, after.numpy())  # nothing ran


def test_good_arguments_still_run(model):
    history = model.fit(X, Y, batch_size=4, epochs=1, steps_per_epoch=2, verbose=0)
    assert len(history.history["loss"]) == 1
    assert model.predict(X, batch_size=3, verbose=0).shape == (8, 2)


def _classifier():
    model = tfkit.Sequential([tfkit.Input((4,), name="features"), layers.Dense(3, name="logits")])
    model.compile("sgd", tfkit.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def _regressor():
    model = tfkit.Sequential([tfkit.Input((4,), name="features"), layers.Dense(2, name="head")])
    model.compile("sgd", "mse")
    return model


def _feature_size_changes():
    import tensorflow as tf

    def batches():
        yield np.ones((2, 4), "float32"), np.zeros((2, 2), "float32")
        yield np.ones((2, 5), "float32"), np.zeros((2, 2), "float32")

    return tf.data.Dataset.from_generator(
        batches, output_signature=(tf.TensorSpec((None, None), tf.float32), tf.TensorSpec((None, 2), tf.float32))
    )


def _dataset(x, y):
    import tensorflow as tf

    return tf.data.Dataset.from_tensor_slices((x, y)).batch(2)


def _string_batches():
    yield np.array([["a"] * 4] * 2), np.zeros((2, 2), "float32")


# The rest of the table: data that only shows itself when a step runs (or never runs).
@pytest.mark.parametrize(
    "make, call, message",
    [
        (
            _classifier,
            lambda m: m.fit(X, np.array([0, 1, 2, 7, 0, 1, 2, 0]), batch_size=4, verbose=0),
            r"fit: a step failed: y holds a label outside the range .* Received a label value of 7",
        ),
        (
            _regressor,
            lambda m: m.fit(_feature_size_changes(), epochs=1, verbose=0),
            r"fit: a step failed in layer 'head': a batch does not have the shapes .* In\[0\]: \[2,5\]",
        ),
        (_regressor, lambda m: m.fit(_dataset(X[:0], Y[:0]), verbose=0), r"fit: x produced no batches"),
        (
            _regressor,
            lambda m: m.predict([["a", "b", "c", "d"]], verbose=0),
            r"predict: x holds strings \(dtype <U1\), but it feeds a model input of dtype float32",
        ),
        (
            _regressor,
            lambda m: m.fit(_dataset(np.array([["a"] * 4] * 4), Y[:4]), verbose=0),
            r"fit: x \(a tf.data.Dataset\) yields strings \(shape \(None, 4\)\), but it feeds a model input of "
            r"dtype float32",
        ),
        (
            _regressor,
            lambda m: m.fit(_string_batches(), verbose=0),
            r"fit: a step failed in layer 'head': the data holds strings where the model takes numbers",
        ),
    ],
    ids=[
        "sparse_labels_out_of_range",
        "dataset_feature_size_changes",
        "empty_dataset",
        "list_of_strings",
        "dataset_of_strings",
        "generator_of_strings",
    ],
)
def test_bad_data_names_the_argument_or_layer_and_what_came(make, call, message):
    with pytest.raises(ValueError, match=message) as info:
        call(make())
    assert "Traceback" not in str(info.value) and "Detected at node" not in str(info.value)


# A user's own assertion that fails is reported as theirs, with its message (issue 17.7), not as "the data
# does not fit the model or the loss".
class _NonNegative(layers.Layer):
    def __init__(self, use_tf_assert=False, **kwargs):
        super().__init__(**kwargs)
        self.use_tf_assert = use_tf_assert

    def call(self, x):
        if self.use_tf_assert:
            tf.Assert(tf.reduce_all(x >= 0), ["inputs must be non-negative (tf.Assert)"])
        else:
            tf.debugging.assert_non_negative(x, message="inputs must be non-negative")
        return x


def _guarded(use_tf_assert=False, run_eagerly=False):
    model = tfkit.Sequential([tfkit.Input((4,)), _NonNegative(use_tf_assert, name="guard"), layers.Dense(2)])
    model.compile("sgd", "mse", run_eagerly=run_eagerly)
    return model


def _asserting_dataset():
    def check(x, y):
        tf.debugging.assert_less(x, 0.5, message="features must be below 0.5")
        return x, y

    return tf.data.Dataset.from_tensor_slices((X, Y)).batch(4).map(check)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: _regressor().fit(_asserting_dataset(), verbose=0),
            r"^fit: your assertion failed in the function passed to tf.data's map\(\): \[features must be below 0\.5\] "
            r"\[Condition x < y did not hold element-wise:\]",
        ),
        (
            lambda: _regressor().evaluate(_asserting_dataset(), verbose=0),
            r"^evaluate: your assertion failed in the function passed to tf.data's map\(\): \[features must be below",
        ),
        (
            lambda: _guarded().fit(-X, Y, verbose=0),
            r"^fit: your assertion failed in layer 'guard' \(at .*test_fit_arguments.py:\d+, in call\): "
            r"\[inputs must be non-negative\. *\] \[Condition x >= 0 did not hold element-wise:\]",
        ),
        (
            lambda: _guarded(use_tf_assert=True).predict(-X, verbose=0),
            r"^predict: your assertion failed in layer 'guard' .*: \[inputs must be non-negative \(tf.Assert\)\]",
        ),
        (
            lambda: _guarded(run_eagerly=True).fit(-X, Y, verbose=0),
            r"^fit: your assertion failed: inputs must be non-negative\. Condition x >= 0 did not hold",
        ),
    ],
    ids=["dataset_map", "dataset_map_evaluate", "layer", "layer_tf_assert", "layer_eager"],
)
def test_a_failed_user_assertion_is_reported_as_the_users_error(call, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message) as info:
        call()
    text = str(info.value)
    assert "does not fit" not in text and "Traceback" not in text and "Detected at node" not in text
