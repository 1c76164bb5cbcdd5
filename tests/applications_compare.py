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
    keras.backend.clear_session()  # fresh auto-name counters on both sides: unnamed layers match too
    tfkit.backend.clear_session()
    keras_model = getattr(keras.applications, function)(weights=None, **kwargs)
    tfkit_model = getattr(tfkit.applications, function)(weights=None, **kwargs)
    return keras_model, tfkit_model


def layers_of(tfkit_model: Any) -> list[Any]:
    """The model's layers as Keras lists them: an operator on symbolic tensors (``x + 3.0``) is a ``TFOpLambda``
    layer in tfkit (as in tf-keras) and an operation, not a layer, in Keras 3."""
    return [layer for layer in tfkit_model.layers if not isinstance(layer, tfkit.layers.TFOpLambda)]


def compare_structure(function: str, **kwargs: Any) -> tuple[Any, Any]:
    """Build ``function`` in both libraries and compare what Keras's weight files depend on; the pair."""
    keras_model, tfkit_model = build_pair(function, **kwargs)
    assert tfkit_model.name == keras_model.name
    assert tfkit_model.count_params() == keras_model.count_params()
    assert [layer.name for layer in layers_of(tfkit_model)] == [layer.name for layer in keras_model.layers]
    assert [type(layer).__name__ for layer in layers_of(tfkit_model)] == [
        type(layer).__name__ for layer in keras_model.layers
    ]
    assert [tuple(w.shape) for w in tfkit_model.weights] == [tuple(w.shape) for w in keras_model.weights]
    assert tuple(tfkit_model.output.shape) == tuple(keras_model.output.shape)
    return keras_model, tfkit_model


def compare_structure_and_predictions(function: str, path: str, atol: float = 1e-4, **kwargs: Any) -> None:
    """``compare_structure``, then Keras's random weights through a Keras 3 weights file at ``path`` into tfkit's
    model: the same predictions on random pixels (one pair of models built for both checks)."""
    keras_model, tfkit_model = compare_structure(function, **kwargs)
    randomise(keras_model)
    keras_model.save_weights(path)
    tfkit_model.load_weights(path)
    x = random_images(tuple(kwargs.get("input_shape", (32, 32, 3))))
    np.testing.assert_allclose(tfkit_model(x), keras_model(x), atol=atol)


def random_images(shape: tuple[int, ...], seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0, 255, (2,) + tuple(shape)).astype("float32")


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
