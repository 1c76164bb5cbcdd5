"""Batches from generators and PyDatasets are checked against the first batch, never silently cast (issue 17.7)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.training.data import adapt

X = np.random.default_rng(0).random((8, 3)).astype("float32")


def _regressor(**compile_options) -> tfkit.Model:
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1, name="head")])
    model.compile("sgd", "mse", **compile_options)
    return model


def _batches(*ys, x=X, extra=()):
    """A generator of ``(x, y, *extra)`` batches, one per ``y``."""
    for y in ys:
        yield (x, y, *extra)


class Labels(tfkit.utils.PyDataset):
    def __init__(self, *ys):
        super().__init__()
        self.ys = ys

    def __len__(self):
        return len(self.ys)

    def __getitem__(self, index):
        return X, self.ys[index]


INTS, FRACTIONS = np.ones((8, 1), "int64"), np.full((8, 1), 1.7)


def test_float_labels_after_integer_ones_from_a_generator_are_an_error_not_truncated():
    with pytest.raises(
        ValueError,
        match=r"^fit: batch 1 \(counting from 0\) of the generator passed as x does not "
        r"match its first batch: y holds float64 values \(not whole numbers\) such "
        r"as y\[0, 0\] = 1\.7, but the first batch's y was int64, which cannot hold "
        r"them \(casting would make it 1\)",
    ):
        _regressor().fit(_batches(INTS, FRACTIONS, INTS), verbose=0)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_float_labels_after_integer_ones_from_a_py_dataset_name_the_index(run_eagerly):
    with pytest.raises(
        ValueError,
        match=r"^fit: batch 2 \(counting from 0\) of the PyDataset Labels passed as x "
        r"does not match its first batch: y holds float64 values",
    ):
        _regressor(run_eagerly=run_eagerly).fit(Labels(INTS, INTS, FRACTIONS), verbose=0)


def test_float_features_after_integer_ids_are_an_error_naming_x():
    model = tfkit.Sequential(
        [tfkit.Input((3,), dtype="int32"), layers.Embedding(10, 2), layers.Flatten(), layers.Dense(1)]
    )
    model.compile("sgd", "mse")
    ids = np.array([[1, 2, 3]] * 4, "int32")
    y = np.zeros((4, 1), "float32")
    model.fit(_batches(y, y, x=ids), verbose=0)
    batches = iter([(ids, y), (ids.astype("float32"), y), (ids + 0.5, y)])  # whole floats pass, 1.5 does not
    with pytest.raises(
        ValueError,
        match=r"batch 2 .* x holds float64 values \(not whole numbers\) such as "
        r"x\[0, 0\] = 1\.5, but the first batch's x was int32",
    ):
        model.fit(batches, verbose=0)


def test_whole_number_floats_after_integers_arrive_exactly_as_keras_converts_them():
    data = adapt(_batches(INTS, np.array([[2.0]] * 8), np.array([[3]] * 8, "int32")))
    ys = [y.numpy() for _, y in data.as_dataset()]
    assert [y.dtype for y in ys] == [np.int64] * 3
    assert [int(y[0, 0]) for y in ys] == [1, 2, 3]


def test_safe_changes_of_dtype_still_train():
    floats = np.full((8, 1), 0.5, "float32")
    history = _regressor().fit(_batches(floats, np.ones((8, 1), "int64"), floats.astype("float64")), verbose=0)
    assert np.isfinite(history.history["loss"][0])


@pytest.mark.parametrize(
    "first, later, message",
    [
        (INTS, np.full((8, 1), np.nan), r"y holds float64 values \(NaN or infinity\) such as y\[0, 0\] = nan"),
        (
            INTS.astype("int32"),
            np.full((8, 1), 2**40),
            r"y holds int64 values \(outside int32's range\) such as y\[0, 0\] = "
            r"1099511627776, but the first batch's y was int32",
        ),
        (
            INTS,
            np.ones((8, 2), "int64"),
            r"y has shape \(8, 2\), but the first batch's y had shape \(8, 1\): every batch "
            r"must have the first batch's shape in all but the first \(batch\) dimension",
        ),
        (INTS, np.array([["a"]] * 8), r"y holds <U1 values, but the first batch's y was int64"),
    ],
    ids=["nan_into_integers", "out_of_range", "shape", "strings"],
)
def test_values_the_first_batch_cannot_hold_are_errors(first, later, message):
    with pytest.raises(ValueError, match=r"^fit: batch 1 \(counting from 0\) .*" + message):
        _regressor().fit(_batches(first, later), verbose=0)


def test_nested_x_and_sample_weight_are_named():
    model_input = {"a": tfkit.Input((3,), name="a"), "b": tfkit.Input((1,), name="b")}
    joined = layers.Concatenate()([model_input["a"], model_input["b"]])
    model = tfkit.Model(model_input, layers.Dense(1)(joined))
    model.compile("sgd", "mse")
    y, weights = np.zeros((8, 1), "float32"), np.ones((8,), "int64")
    good = ({"a": X, "b": np.ones((8, 1), "int64")}, y, weights)
    with pytest.raises(ValueError, match=r"batch 1 .* sample_weight holds float64 values .* sample_weight\[0\] = 0\.5"):
        model.fit(iter([good, (good[0], y, np.full((8,), 0.5))]), verbose=0)
    with pytest.raises(ValueError, match=r"batch 1 .* x\['b'\] holds float64 values .* x\['b'\]\[0, 0\] = 0\.25"):
        model.fit(iter([good, ({"a": X, "b": np.full((8, 1), 0.25)}, y, weights)]), verbose=0)


def test_nested_batches_arrive_in_their_structure():
    first = ({"a": X, "b": np.ones((8, 1), "int64")}, np.zeros((8, 1)))
    second = ({"b": np.full((8, 1), 2.0), "a": X + 1}, np.ones((8, 1), "int64"))  # keys in another order
    batches = [(x, y) for x, y in adapt(iter([first, second])).as_dataset()]
    assert [x["b"].dtype for x, _ in batches] == [tf.int64] * 2 and batches[1][1].dtype == tf.float32
    np.testing.assert_array_equal(batches[1][0]["a"], X + 1)
    np.testing.assert_array_equal(batches[1][0]["b"], np.full((8, 1), 2))


def test_a_batch_of_another_structure_is_an_error():
    y = np.zeros((8, 1), "float32")
    with pytest.raises(
        ValueError,
        match=r"batch 1 .* it is \(array, array, array\), but the first batch was "
        r"\(array, array\) \(x, y\): yield the same structure every time",
    ):
        _regressor().fit(iter([(X, y), (X, y, np.ones(8))]), verbose=0)


def test_validation_evaluate_and_predict_name_their_method_and_argument():
    model = _regressor()
    y = np.zeros((8, 1), "float32")
    with pytest.raises(ValueError, match=r"^fit: batch 1 .* of the generator passed as validation_data"):
        model.fit(X, y, validation_data=_batches(INTS, FRACTIONS), verbose=0)
    with pytest.raises(ValueError, match=r"^evaluate: batch 1 .* of the generator passed as x .* y holds float64"):
        model.evaluate(_batches(INTS, FRACTIONS), verbose=0)
    ids = np.ones((8, 3), "int64")
    with pytest.raises(ValueError, match=r"^predict: batch 1 .* x holds float64 values .* x\[0, 0\] = 0\.5"):
        model.predict(iter([(ids,), (np.full((8, 3), 0.5),)]), verbose=0)
