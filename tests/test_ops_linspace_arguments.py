"""ops.linspace with Keras 3's retstep and axis; ops.arange's step=None default."""

import numpy as np
import pytest

from tfkit import ops


@pytest.mark.parametrize(
    "start,stop,kwargs",
    [
        (0, 1, {"num": 5}),
        (0, 1, {"num": 5, "endpoint": False}),
        (np.array([0.0, 1.0]), np.array([1.0, 5.0]), {"num": 4, "axis": 1}),
        (np.array([0.0, 1.0]), np.array([1.0, 5.0]), {"num": 3, "axis": 0, "endpoint": False}),
        (2, 7, {"num": 1, "endpoint": False}),
    ],
)
def test_values_and_step_equal_numpy(start, stop, kwargs):
    values, step = ops.linspace(start, stop, retstep=True, **kwargs)
    expected, expected_step = np.linspace(start, stop, retstep=True, **kwargs)
    np.testing.assert_allclose(np.asarray(values), expected, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(step), expected_step, rtol=1e-6)
    assert values.dtype.name == ("float64" if isinstance(start, np.ndarray) else "float32")


def test_an_undefined_step_is_nan_integer_dtypes_floor_and_negative_num_is_refused():
    values, step = ops.linspace(0, 1, num=1, retstep=True)
    assert np.asarray(values).tolist() == [0.0] and np.isnan(float(step))
    assert np.asarray(ops.linspace(-3, 2, num=4, dtype="int32")).tolist() == [-3, -2, 0, 2]  # floor, not truncate
    with pytest.raises(ValueError, match="num must be a non-negative integer, got num=-1"):
        ops.linspace(0, 1, num=-1)


def test_arange_step_defaults_to_none_meaning_one():
    assert np.asarray(ops.arange(4, step=None)).tolist() == [0, 1, 2, 3]
    assert np.asarray(ops.numpy.arange(1, 7, 2)).tolist() == [1, 3, 5]
