"""A check the quantization tests share: a tfkit layer's quantized weights are Keras's, by name, dtype and value."""

from __future__ import annotations

from typing import Any

import numpy as np


def assert_same_quantized_weights(ours: Any, theirs: Any) -> None:
    """``ours`` (tfkit) and ``theirs`` (Keras) hold the same policy and the same weights by their last path part."""
    assert ours.dtype_policy.name == theirs.dtype_policy.name
    mine = {w.path.split("/")[-1]: w.numpy() for w in ours.weights}
    keras_weights = {w.path.split("/")[-1]: np.asarray(w.numpy()) for w in theirs.weights}
    assert sorted(mine) == sorted(keras_weights)
    for name, value in keras_weights.items():
        assert mine[name].dtype == value.dtype, name
        np.testing.assert_array_equal(mine[name], value, err_msg=name)
