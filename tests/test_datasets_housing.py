"""boston_housing and california_housing: Keras's splits of a local file, read without pickles."""

import numpy as np
import pytest

from tfkit.datasets import boston_housing, california_housing


def _write(directory, name, x, y):
    np.savez(directory / name, x=x, y=y)
    return str(directory / name)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TFKIT_DATA_DIR", str(tmp_path))
    return tmp_path


def test_boston_split_is_keras_s_shuffle_and_cut(data_dir):
    # Keras's loader cannot be pointed at a test file (it re-checks the download hash), so its steps are
    # written out here: RandomState(seed).shuffle of the row indices, then the first int(n * 0.8) rows
    x = np.arange(50 * 13, dtype="float64").reshape(50, 13)
    y = np.arange(50, dtype="float64")
    _write(data_dir, "boston_housing.npz", x, y)
    (x_train, y_train), (x_test, y_test) = boston_housing.load_data(test_split=0.2, seed=7)
    order = np.arange(50)
    np.random.RandomState(7).shuffle(order)
    np.testing.assert_array_equal(y_train, order[:40])
    np.testing.assert_array_equal(y_test, order[40:])
    np.testing.assert_array_equal(x_test, x[order[40:]])
    assert x_train.dtype == np.float64 and x_train.shape == (40, 13)


def test_california_small_takes_the_first_600_rows(data_dir):
    rows = 700
    x = np.random.default_rng(0).random((rows, 8)).astype("float32")
    y = np.arange(rows, dtype="float32")
    _write(data_dir, "california_housing.npz", x, y)
    (x_train, y_train), (x_test, y_test) = california_housing.load_data(version="small")
    assert len(y_train) + len(y_test) == 600 and set(y_train) | set(y_test) == set(range(600))
    (_, y_train), (_, y_test) = california_housing.load_data()
    assert len(y_train) == int(rows * 0.8) and len(y_test) == rows - int(rows * 0.8)
    with pytest.raises(ValueError, match="version must be 'large' or 'small', got 'medium'"):
        california_housing.load_data(version="medium")


@pytest.mark.parametrize(
    "arrays,message",
    [
        (
            {"x": np.zeros((5, 12)), "y": np.zeros(5)},
            r"expected x float32 or float64 \(None, 13\), got float64 \(5, 12\)",
        ),
        ({"x": np.zeros((5, 13)), "y": np.zeros(4)}, "x has 5 rows and y 4"),
        ({"x": np.array([[None] * 13] * 2, dtype=object), "y": np.zeros(2)}, "Python objects"),
        ({"x": np.full((2, 13), np.nan), "y": np.zeros(2)}, "NaN or infinite"),
        ({"x": np.zeros((2, 13))}, r"missing \['y'\]"),
    ],
)
def test_malformed_files_are_refused_naming_the_file(data_dir, arrays, message):
    np.savez(data_dir / "boston_housing.npz", **arrays)
    with pytest.raises(ValueError, match=message) as error:
        boston_housing.load_data()
    assert "boston_housing.npz" in str(error.value)


def test_a_pickle_in_the_file_is_never_loaded(data_dir, tmp_path):
    marker = tmp_path / "ran"
    payload = np.array([f"open({str(marker)!r}, 'w')"], dtype=object)
    np.savez(data_dir / "boston_housing.npz", x=payload, y=np.zeros(1))
    with pytest.raises(ValueError, match="Python objects"):
        boston_housing.load_data()
    assert not marker.exists()
    with pytest.raises(ValueError, match=r"test_split must be in \[0, 1\), got 1"):
        boston_housing.load_data(test_split=1)
