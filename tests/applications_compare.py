"""Build an application in tfkit and in Keras with the same arguments and compare what Keras files depend on.

    compare_structure("ResNet50", include_top=False, input_shape=(32, 32, 3))   # params, names, weight shapes
    keras_model, tfkit_model = build_pair("VGG16", include_top=False, input_shape=(32, 32, 3))
"""

from __future__ import annotations

import os
from typing import Any

import keras
import numpy as np
import pytest

import tfkit

# The remaining variants of a family (deeper ResNets, DenseNet169/201, EfficientNetB1-B7) are the same builders
# with other numbers: their structure checks take about five minutes on two cores, so they run on request.
EVERY_VARIANT = pytest.mark.skipif(
    not os.environ.get("TFKIT_ALL_APPLICATIONS"),
    reason="set TFKIT_ALL_APPLICATIONS=1 to compare every application variant with Keras (about 5 minutes)",
)


def build_pair(function: str, **kwargs: Any) -> tuple[Any, Any]:
    keras.backend.clear_session()           # fresh auto-name counters on both sides: unnamed layers match too
    tfkit.backend.clear_session()
    keras_model = getattr(keras.applications, function)(weights=None, **kwargs)
    tfkit_model = getattr(tfkit.applications, function)(weights=None, **kwargs)
    return keras_model, tfkit_model


def compare_structure(function: str, **kwargs: Any) -> None:
    keras_model, tfkit_model = build_pair(function, **kwargs)
    assert tfkit_model.name == keras_model.name
    assert tfkit_model.count_params() == keras_model.count_params()
    assert [layer.name for layer in tfkit_model.layers] == [layer.name for layer in keras_model.layers]
    assert [type(layer).__name__ for layer in tfkit_model.layers] == [type(layer).__name__ for layer in keras_model.layers]
    assert [tuple(w.shape) for w in tfkit_model.weights] == [tuple(w.shape) for w in keras_model.weights]
    assert tuple(tfkit_model.output.shape) == tuple(keras_model.output.shape)


def randomise(keras_model: Any, seed: int = 0) -> None:
    """Random values in every Keras variable (positive ones for variances), so a wrong pairing shows."""
    rng = np.random.default_rng(seed)
    for variable in keras_model.weights:
        shape = tuple(variable.shape)
        if "variance" in variable.path:
            value = rng.uniform(0.5, 1.5, shape)
        elif variable.dtype.startswith("int"):
            value = np.zeros(shape)
        else:
            value = rng.normal(0.0, 0.05, shape)
        variable.assign(value.astype(variable.dtype))
