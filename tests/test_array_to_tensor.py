"""tfkit.training.array_to_tensor: one TensorFlow-made copy of a numpy array, never a view of it."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from tfkit.training import array_to_tensor, data

ROWS = 1200  # x 256 float32 columns = 1.2 MB: past the direct-path threshold


def aligned(array: np.ndarray) -> np.ndarray:
    """A copy of ``array`` whose buffer starts on a 64-byte boundary (TensorFlow would share it)."""
    raw = np.empty(array.nbytes + 64, np.uint8)
    start = (-raw.ctypes.data) % 64
    out = raw[start : start + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool", "float16"])
@pytest.mark.parametrize("layout", ["as allocated", "64-byte aligned", "strided view"])
def test_the_tensor_equals_the_array_and_ignores_later_changes(dtype, layout):
    rng = np.random.default_rng(0)
    array = (rng.uniform(size=(ROWS, 1024)) * 100).astype(dtype)
    if layout == "64-byte aligned":
        array = aligned(array)
    elif layout == "strided view":
        array = array[:, ::2]
    expected = array.copy()
    tensor = array_to_tensor.to_tensor(array)
    array[...] = 0 if dtype != "bool" else ~array
    assert tensor.dtype == tf.as_dtype(dtype) and tensor.shape == expected.shape
    np.testing.assert_array_equal(tensor.numpy(), expected)


def test_small_odd_and_graph_inputs_take_the_public_path(monkeypatch):
    calls = []
    monkeypatch.setattr(array_to_tensor, "_eager_tensor", lambda array: calls.append(array) or 1 / 0)
    words = np.array([b"a", b"b"] * 600_000)
    assert array_to_tensor.to_tensor(words).dtype == tf.string
    assert array_to_tensor.to_tensor(np.ones(3, "float32")).numpy().tolist() == [1, 1, 1]
    tf.function(lambda: array_to_tensor.to_tensor(np.ones((ROWS, 1024), "float32")))()
    assert calls == []
    big = np.ones((ROWS, 1024), "float32")
    np.testing.assert_array_equal(array_to_tensor.to_tensor(big).numpy(), big)  # the constructor failed: fallback
    assert len(calls) == 1


def test_fit_data_is_a_copy_of_the_callers_arrays():
    x = np.random.default_rng(1).uniform(size=(ROWS, 256)).astype("float32")
    y = np.arange(ROWS, dtype="int64")
    adapted = data.adapt(x, y, batch_size=32)
    kept_x, kept_y = x.copy(), y.copy()
    x[...], y[...] = -1, -1
    np.testing.assert_array_equal(adapted.tensors[0].numpy(), kept_x)
    np.testing.assert_array_equal(adapted.tensors[1].numpy(), kept_y)
