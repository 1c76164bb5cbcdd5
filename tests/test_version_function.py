"""``tfkit.version()``: Keras 3's ``keras.version()`` (keras-io's packaging recipe prints it first thing)."""

import pytest

import tfkit


def test_version_function_returns_the_version_string():
    assert tfkit.version() == tfkit.__version__
    assert isinstance(tfkit.version(), str)
    assert tfkit.version().count(".") == 2


def test_keras_has_the_same_function():
    keras = pytest.importorskip("keras")
    assert callable(keras.version) and keras.version() == keras.__version__
