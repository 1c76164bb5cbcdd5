"""fit, evaluate and predict look for NaN and infinity in their data (issue 37, part 3).

Arrays are checked whole (a sum per array, an exact pass only when it is not finite);
datasets, generators and PyDatasets on their first batch, as the loop takes it.
fit and evaluate raise a ValueError, predict warns; check_finite=False turns it off.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.training.finite_inputs import _sum_is_finite, find_non_finite

RNG = np.random.default_rng(0)


def _model(features: int = 3, activation: str | None = None) -> tfkit.Model:
    model = tfkit.Sequential([tfkit.Input((features,)), layers.Dense(4, activation=activation), layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


def _data(samples: int = 40, features: int = 3) -> tuple[np.ndarray, np.ndarray]:
    return (RNG.random((samples, features), dtype=np.float32), RNG.random((samples, 1), dtype=np.float32))


def _expected(label: str, array: np.ndarray) -> str:
    """The finding's text, computed with numpy from where the test put the values."""
    bad = ~np.isfinite(array)
    nan, inf = int(np.isnan(array).sum()), int(np.isinf(array).sum())
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return (
        f"{label} holds {nan:,} NaN and {inf:,} Inf among its {array.size:,} values, the first at "
        f"{label}[{', '.join(map(str, first))}] = {array[first].item()!r}"
    )


# ------------------------------------------------------------------ arrays


def test_nan_in_x_makes_fit_raise_naming_x_the_counts_and_the_first_index():
    x, y = RNG.random((50, 6, 4), dtype=np.float32), RNG.random((50, 1), dtype=np.float32)
    x[17, 2, 3] = x[17, 4, 0] = x[30, 0, 1] = np.nan
    x[22, 5, 2] = np.inf
    model = tfkit.Sequential([tfkit.Input((6, 4)), layers.Flatten(), layers.Dense(1)])
    model.compile("sgd", "mse")
    with pytest.raises(ValueError) as caught:
        model.fit(x, y, verbose=0)
    message = str(caught.value)
    assert message.startswith("fit: " + _expected("x", x) + ". ")
    assert "x holds 3 NaN and 1 Inf among its 1,200 values, the first at x[17, 2, 3] = nan" in message
    assert "pass check_finite=False to fit" in message
    assert model.optimizer.iterations.numpy() == 0  # nothing was trained


def test_inf_in_y_and_in_sample_weight_are_named():
    x, y = _data()
    y[7, 0] = -np.inf
    with pytest.raises(ValueError, match=re.escape("fit: " + _expected("y", y))):
        _model().fit(x, y, verbose=0)
    y[7, 0] = 0.5
    weights = np.ones(40, "float32")
    weights[[3, 9]] = [np.inf, np.nan]
    with pytest.raises(
        ValueError,
        match=re.escape("sample_weight holds 1 NaN and 1 Inf among its 40 values, the first at sample_weight[3] = inf"),
    ):
        _model().fit(x, y, sample_weight=weights, verbose=0)


def test_dict_and_list_inputs_are_named_by_key_and_position_and_integers_are_skipped():
    inputs = {"image": tfkit.Input((3,), name="image"), "count": tfkit.Input((1,), name="count", dtype="int32")}
    joined = layers.Concatenate()([inputs["image"], layers.Lambda(lambda t: tf.cast(t, "float32"))(inputs["count"])])
    model = tfkit.Model(inputs, layers.Dense(1)(joined))
    model.compile("sgd", "mse")
    image, y = _data()
    image[11, 1] = np.nan
    counts = np.arange(40, dtype="int32").reshape(40, 1)
    with pytest.raises(ValueError, match=re.escape("fit: " + _expected("x['image']", image))):
        model.fit({"image": image, "count": counts}, y, verbose=0)
    pair = tfkit.Model([inputs["image"], inputs["count"]], model.outputs)
    pair.compile("sgd", "mse")
    with pytest.raises(ValueError, match=re.escape(_expected("x[0]", image))):
        pair.fit([image, counts], y, verbose=0)
    image[11, 1] = 0.5
    model.fit({"image": image, "count": counts}, y, verbose=0)  # integer arrays are never checked


def test_several_arrays_with_nan_are_all_listed_and_x_given_twice_is_checked_once():
    x, y = _data()
    x[2, 0], y[5, 0] = np.nan, np.nan
    with pytest.raises(ValueError, match=re.escape(f"{_expected('x', x)}; {_expected('y', y)}. ")):
        _model().fit(x, y, verbose=0)
    autoencoder = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(3)])
    autoencoder.compile("sgd", "mse")
    with pytest.raises(ValueError) as caught:
        autoencoder.fit(x, x, verbose=0)
    assert str(caught.value).count(" holds ") == 1  # fit(x, x): one array, one finding


def test_evaluate_raises_and_validation_data_is_checked_too():
    x, y = _data()
    bad = x.copy()
    bad[39, 2] = np.nan
    model = _model()
    with pytest.raises(
        ValueError, match=re.escape("evaluate: " + _expected("x", bad)) + ".*check_finite=False to evaluate"
    ):
        model.evaluate(bad, y, verbose=0)
    with pytest.raises(ValueError, match=re.escape("fit: " + _expected("validation_data[0]", bad))):
        model.fit(x, y, validation_data=(bad, y), verbose=0)


def test_predict_warns_with_the_same_details_and_still_returns_predictions():
    x, _ = _data()
    x[4, 1], x[6, 2] = np.nan, np.inf
    model = _model()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        predictions = model.predict(x, verbose=0)
    assert predictions.shape == (40, 1)
    assert np.isnan(predictions[4, 0]) and np.isfinite(np.delete(predictions, [4, 6], axis=0)).all()
    [warning] = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert str(warning.message).startswith("predict: " + _expected("x", x) + ". ")
    assert "pass check_finite=False to predict" in str(warning.message)
    assert warning.filename == __file__  # points at the caller's line, not into tfkit
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(x, verbose=0, check_finite=False)  # no warning


def test_check_finite_false_trains_on_the_nan_as_before():
    x, y = _data()
    x[0, 0] = np.nan
    history = _model().fit(x, y, verbose=0, check_finite=False)
    assert np.isnan(history.history["loss"][0])
    relu = _model(activation="relu")  # the issue: relu(NaN) is 0 on a CPU, the
    relu_history = relu.fit(x, y, epochs=2, verbose=0, check_finite=False)  # loss stays a number
    assert len(relu_history.history["loss"]) == 2
    assert np.isfinite(_model().evaluate(x[1:], y[1:], verbose=0))
    assert np.isnan(_model().evaluate(x, y, verbose=0, check_finite=False))


def test_large_finite_values_whose_sum_overflows_pass():
    x = np.full((64, 3), 1e38, "float32")
    assert not _sum_is_finite(x)  # the fast path trips ...
    assert find_non_finite("x", x) is None  # ... and the exact pass clears it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _model().predict(x, verbose=0)


@pytest.mark.parametrize(
    "array, expected",
    [
        (
            np.array([1.0, np.nan, np.inf, -np.inf], "float16"),
            "x holds 1 NaN and 2 Inf among its 4 values, the first at x[1] = nan",
        ),
        (
            np.array([[1 + 1j, complex(0, np.inf)]], "complex64"),
            "x holds 0 NaN and 1 Inf among its 2 values, the first at x[0, 1] = infj",
        ),
        (
            tf.constant([[0.0, 1.0], [np.nan, 2.0]]),
            "x holds 1 NaN and 0 Inf among its 4 values, the first at x[1, 0] = nan",
        ),
        (
            tf.constant([[np.inf]], tf.bfloat16),
            "x holds 0 NaN and 1 Inf among its 1 values, the first at x[0, 0] = inf",
        ),
    ],
    ids=["float16", "complex", "tensor", "bfloat16_tensor"],
)
def test_other_floating_dtypes_and_tensors_are_checked(array, expected):
    assert str(find_non_finite("x", array)) == expected


@pytest.mark.parametrize(
    "array",
    [
        np.arange(6).reshape(2, 3),
        np.array([True, False]),
        np.array(["nan", "inf"]),
        tf.constant([1, 2], tf.int64),
        np.ones((3, 2), "float32"),
    ],
)
def test_integers_booleans_strings_and_finite_floats_are_not_findings(array):
    assert find_non_finite("x", array) is None


def test_the_exact_pass_counts_across_chunks(monkeypatch):
    from tfkit.training import finite_inputs

    monkeypatch.setattr(finite_inputs, "_CHUNK_VALUES", 7)  # rows of 3: two rows a chunk
    x = np.zeros((9, 3), "float32")
    x[[4, 4, 8], [0, 2, 1]] = [np.inf, np.nan, np.nan]
    assert (
        str(find_non_finite("x", x))
        == _expected("x", x)
        == ("x holds 2 NaN and 1 Inf among its 27 values, the first at x[4, 0] = inf")
    )


# ---------------------------------------------------------------- datasets


def _dataset(x, y, batch_size=8):
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(batch_size)


def test_nan_in_the_first_batch_of_a_dataset_is_caught_in_batch_coordinates():
    x, y = _data()
    x[5, 2] = np.nan
    with pytest.raises(ValueError) as caught:
        _model().fit(_dataset(x, y), verbose=0)
    message = str(caught.value)
    assert message.startswith(
        "fit: in the first batch of the tf.data.Dataset passed as x, "
        + _expected("x", x[:8])
        + " (counting from the batch's first sample). "
    )
    assert "Only the first batch of a dataset, generator or PyDataset is checked" in message
    with pytest.raises(ValueError, match=r"^evaluate: in the first batch of the tf.data.Dataset passed as x, x holds"):
        _model().evaluate(_dataset(x, y), verbose=0)
    with pytest.raises(
        ValueError,
        match=r"^fit: in the first batch of the tf.data.Dataset passed as "
        r"validation_data, x holds 1 NaN",
    ):
        _model().fit(_dataset(x[8:], y[8:]), validation_data=_dataset(x, y), verbose=0)


def test_dict_batches_and_sample_weights_of_a_dataset_are_named():
    inputs = {"a": tfkit.Input((3,), name="a")}
    model = tfkit.Model(inputs, layers.Dense(1)(inputs["a"]))
    model.compile("sgd", "mse")
    x, y = _data()
    weights = np.ones(40, "float32")
    weights[3] = np.nan
    with pytest.raises(
        ValueError,
        match=re.escape("sample_weight holds 1 NaN and 0 Inf among its 8 values, the first at sample_weight[3] = nan"),
    ):
        model.fit(tf.data.Dataset.from_tensor_slices(({"a": x}, y, weights)).batch(8), verbose=0)
    x[1, 1] = np.inf
    with pytest.raises(
        ValueError, match=re.escape("x['a'] holds 0 NaN and 1 Inf among its 24 values, the first at x['a'][1, 1] = inf")
    ):
        model.fit(tf.data.Dataset.from_tensor_slices(({"a": x}, y)).batch(8), verbose=0)


def test_nan_only_in_a_later_batch_is_not_found():
    """Only the first batch is checked: a NaN in a later one trains as before (TerminateOnNaN can stop it)."""
    x, y = _data()
    x[33, 0] = np.nan  # batch 4 of 5
    history = _model().fit(_dataset(x, y), verbose=0)
    assert np.isnan(history.history["loss"][0])


def test_the_checked_first_batch_is_trained_on_once_in_order_and_nothing_is_traced_again():
    """The batch taken to check it runs as the first step: training matches the unchecked run exactly."""
    x, y = _data()
    tfkit.utils.set_random_seed(1)
    checked = _model()
    tfkit.utils.set_random_seed(1)
    unchecked = _model()
    checked.fit(_dataset(x, y), epochs=2, verbose=0)
    unchecked.fit(_dataset(x, y), epochs=2, verbose=0, check_finite=False)
    for a, b in zip(checked.get_weights(), unchecked.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert int(checked.optimizer.iterations) == 10
    spec = _dataset(x, y).element_spec
    assert checked._compiled.loops(checked).iterator_loop("train", spec).experimental_get_tracing_count() == 1
    uneven = np.linspace(0.0, 3.0, 40, dtype="float32").reshape(40, 1)  # a dropped or doubled batch shows
    assert checked.evaluate(_dataset(x, uneven), verbose=0) == pytest.approx(
        checked.evaluate(x, uneven, verbose=0), rel=1e-5
    )


def test_a_repeating_dataset_with_steps_per_epoch_and_a_fixed_chunk_size():
    x, y = _data()
    model = _model()
    model.compile("sgd", "mse", steps_per_execution=3)
    history = model.fit(_dataset(x, y).repeat(), epochs=2, steps_per_epoch=4, verbose=0)
    assert len(history.history["loss"]) == 2 and int(model.optimizer.iterations) == 8
    x[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"first batch of the tf.data.Dataset passed as x, x holds 1 NaN"):
        model.fit(_dataset(x, y).repeat(), epochs=2, steps_per_epoch=4, verbose=0)


class _Batches(tfkit.utils.PyDataset):
    def __init__(self, x, y):
        super().__init__()
        self.x, self.y = x, y

    def __len__(self):
        return 5

    def __getitem__(self, index):
        return self.x[index * 8 : (index + 1) * 8], self.y[index * 8 : (index + 1) * 8]


def test_generators_and_py_datasets_are_checked_on_their_first_batch():
    x, y = _data()
    y[2, 0] = np.nan
    expected = re.escape(_expected("y", y[:8]))
    with pytest.raises(ValueError, match=r"^fit: in the first batch of the generator passed as x, " + expected):
        _model().fit(((x[i : i + 8], y[i : i + 8]) for i in range(0, 40, 8)), verbose=0)
    with pytest.raises(
        ValueError, match=r"^fit: in the first batch of the PyDataset _Batches passed as x, " + expected
    ):
        _model().fit(_Batches(x, y), shuffle=False, verbose=0)  # the NaN is in batch 0


def test_predict_on_a_dataset_warns_about_x_only_and_run_eagerly_checks_too():
    x, y = _data()
    y[0, 0] = np.nan  # predict ignores targets
    model = _model()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(_dataset(x, y), verbose=0)
    x[3, 1] = np.nan
    with pytest.warns(
        RuntimeWarning,
        match=r"^predict: in the first batch of the tf.data.Dataset passed as x, " + re.escape(_expected("x", x[:8])),
    ):
        assert model.predict(_dataset(x, y), verbose=0).shape == (40, 1)
    model.compile("sgd", "mse", run_eagerly=True)
    with pytest.raises(
        ValueError,
        match=r"^fit: in the first batch of the tf.data.Dataset passed as x, x holds 1 NaN "
        r"and 0 Inf",
    ):
        model.fit(_dataset(x, y), verbose=0)


def test_without_tensorflows_private_restructuring_the_first_batch_comes_back_through_a_map(monkeypatch):
    from tfkit.training import data as data_module

    def refused(*args, **kwargs):
        raise TypeError("not in this TensorFlow")

    monkeypatch.setattr(data_module.dataset_ops, "_RestructuredDataset", refused)
    x, y = _data()
    model = _model()
    history = model.fit(_dataset(x, y), epochs=2, verbose=0)
    assert int(model.optimizer.iterations) == 10 and np.isfinite(history.history["loss"]).all()
    spec = _dataset(x, y).element_spec
    assert model._compiled.loops(model).iterator_loop("train", spec).experimental_get_tracing_count() == 1
