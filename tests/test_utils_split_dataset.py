"""tfkit.utils.split_dataset (issue 19): Keras's sizes, order, shuffling and errors; arrays, tuples, lists, dicts
and tf.data datasets (batched ones are batched again)."""

import random

import numpy as np
import pytest
import tensorflow as tf

import tfkit

X = np.arange(40, dtype="float32").reshape(20, 2)
Y = np.arange(20, dtype="int64")


def _rows(dataset):
    return [tf.nest.map_structure(lambda t: t.numpy().tolist(), element) for element in dataset]


def test_sizes_and_order_by_hand():
    left, right = tfkit.utils.split_dataset(X, left_size=0.8)
    assert _rows(left) == X[:16].tolist() and _rows(right) == X[16:].tolist()
    left, right = tfkit.utils.split_dataset((X, Y), left_size=5, right_size=3)  # the 12 in between: in neither
    assert _rows(left) == [(x, y) for x, y in zip(X[:5].tolist(), Y[:5].tolist())]
    assert _rows(right) == [(x, y) for x, y in zip(X[17:].tolist(), Y[17:].tolist())]
    left, right = tfkit.utils.split_dataset([X, Y], right_size=0.25)
    assert len(_rows(left)) == 15 and len(_rows(right)) == 5 and isinstance(left.element_spec, tuple)


def test_shuffle_uses_keras_permutation_for_the_seed():
    left, right = tfkit.utils.split_dataset(Y, left_size=12, shuffle=True, seed=42)
    order = list(range(20))
    random.Random(42).shuffle(order)  # what Keras draws: random.seed(42); random.shuffle(samples)
    assert _rows(left) == Y[order[:12]].tolist() and _rows(right) == Y[order[12:]].tolist()
    again, _ = tfkit.utils.split_dataset(Y, left_size=12, shuffle=True, seed=42)
    assert _rows(again) == _rows(left)
    state = random.getstate()
    tfkit.utils.split_dataset(Y, left_size=12, shuffle=True, seed=1)
    assert random.getstate() == state  # Python's global generator is left alone


def test_dicts_and_datasets():
    left, right = tfkit.utils.split_dataset({"a": X, "b": Y}, left_size=3)
    assert _rows(left) == [{"a": x, "b": y} for x, y in zip(X[:3].tolist(), Y[:3].tolist())]
    assert len(_rows(right)) == 17
    dataset = tf.data.Dataset.from_tensor_slices({"a": X, "b": Y})
    left, right = tfkit.utils.split_dataset(dataset, right_size=0.1)
    assert _rows(right) == [{"a": x, "b": y} for x, y in zip(X[18:].tolist(), Y[18:].tolist())]
    batched = tf.data.Dataset.from_tensor_slices((X, Y)).batch(3)
    left, right = tfkit.utils.split_dataset(batched, left_size=0.5)
    assert [len(y) for _, y in _rows(left)] == [3, 3, 3, 1] and [len(y) for _, y in _rows(right)] == [3, 3, 3, 1]
    assert np.concatenate([y for _, y in _rows(left)]).tolist() == Y[:10].tolist()


CASES = [
    (X, {"left_size": 0.8}),
    ((X, Y), {"left_size": 5, "right_size": 7, "shuffle": True, "seed": 3}),
    ([X, Y], {"right_size": 0.25, "shuffle": True, "seed": 11}),
    ("batched", {"left_size": 0.5}),
    ("dict_dataset", {"left_size": 3, "shuffle": True, "seed": 1}),
]


@pytest.mark.parametrize("data, kwargs", CASES, ids=["array", "tuple", "list", "batched", "dict_dataset"])
def test_matches_keras(data, kwargs):
    keras = pytest.importorskip("keras")
    if isinstance(data, str):
        data = {
            "batched": tf.data.Dataset.from_tensor_slices((X, Y)).batch(3),
            "dict_dataset": tf.data.Dataset.from_tensor_slices({"a": X, "b": Y}),
        }[data]
    for ours, theirs in zip(tfkit.utils.split_dataset(data, **kwargs), keras.utils.split_dataset(data, **kwargs)):
        assert ours.element_spec == theirs.element_spec
        assert _rows(ours) == _rows(theirs)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({}, ValueError, "At least one of the `left_size` or `right_size` must be specified"),
        ({"left_size": 0, "right_size": 0}, ValueError, "Both `left_size` and `right_size` are zero"),
        ({"left_size": 20}, ValueError, "`left_size` should be either a positive integer smaller than 20"),
        (
            {"right_size": 1.0},
            ValueError,
            r"`right_size` should be either a positive integer smaller than 20, or a float",
        ),
        (
            {"left_size": 0.6, "right_size": 0.6},
            ValueError,
            "The sum of `left_size` and `right_size` is greater than 1",
        ),
        ({"left_size": 15, "right_size": 10}, ValueError, "left_size \\+ right_size = 25 and total_length = 20"),
        ({"left_size": 0.01}, ValueError, "Resulting left side dataset split will be empty"),
        ({"left_size": "a"}, TypeError, r"Invalid `left_size` Type. Expected: int or float or None"),
        ({"right_size": True}, TypeError, r"Invalid `right_size` Type"),
    ],
)
def test_size_errors_are_keras_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        tfkit.utils.split_dataset(X, **kwargs)


@pytest.mark.parametrize(
    "dataset, error, message",
    [
        ("text", TypeError, "The `dataset` argument must be either a `tf.data.Dataset` object, or a list/tuple"),
        ([], ValueError, "Received an empty list dataset"),
        ((X, Y[:5]), ValueError, "Received a tuple of NumPy arrays with different lengths. Mismatch found at index 1"),
        ([X, [1, 2]], ValueError, "Expected a list of `numpy.ndarray` objects, Received: list"),
        ({"a": X, "b": Y[:3]}, ValueError, "Mismatch found at key 'b'"),
        (tf.data.Dataset.from_tensor_slices(Y).repeat(), ValueError, "Received an infinite `dataset`"),
        (tf.data.Dataset.from_tensor_slices(Y).take(0), ValueError, "Received an empty dataset"),
        (
            tf.data.Dataset.from_generator(
                lambda: iter([np.zeros(2), np.zeros(3)]), output_signature=tf.TensorSpec(None)
            ),
            ValueError,
            r"All `dataset` samples must have same shape, Expected shape: \(2,\) Received shape: \(3,\)",
        ),
    ],
)
def test_dataset_errors_say_what_came(dataset, error, message):
    with pytest.raises(error, match=message):
        tfkit.utils.split_dataset(dataset, left_size=1)
