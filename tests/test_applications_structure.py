"""Every quick application builds in tfkit as in Keras: parameter count, layer names and classes, weight shapes in order.

    compare_structure("ResNet50", include_top=False, input_shape=(32, 32, 3))
Deeper variants are in test_applications_structure_deep.py and ..._efficientnet.py.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest

import tfkit
from tests.applications_compare import compare_structure


@pytest.mark.parametrize(
    "function, kwargs",
    [
        ("ResNet50", dict(include_top=False, input_shape=(32, 32, 3))),
        ("ResNet50", dict(include_top=True, input_shape=(32, 32, 3), classes=7, classifier_activation=None)),
        ("ResNet50V2", dict(include_top=False, input_shape=(32, 32, 3), pooling="max")),
        ("VGG16", dict(include_top=True, input_shape=(32, 32, 3), classes=10)),
        ("VGG19", dict(include_top=False, input_shape=(32, 32, 3), pooling="avg")),
        ("MobileNet", dict(include_top=True, input_shape=(32, 32, 3), alpha=0.25, classes=10)),
        ("MobileNet", dict(include_top=False, alpha=0.5, depth_multiplier=2)),
        ("MobileNetV2", dict(include_top=True, input_shape=(32, 32, 3), alpha=0.35, classes=10)),
        ("MobileNetV2", dict(include_top=False, input_shape=(96, 96, 3), alpha=1.4, pooling="avg")),
        ("EfficientNetB0", dict(include_top=True, input_shape=(32, 32, 3), classes=10)),
    ],
)
def test_application_matches_keras(function, kwargs):
    compare_structure(function, **kwargs)


def test_input_tensor_builds_on_the_callers_input():
    inputs = tfkit.Input((32, 32, 3))
    features = tfkit.layers.Rescaling(1 / 255)(inputs)
    model = tfkit.applications.VGG16(weights=None, include_top=False, input_tensor=features)
    assert model.inputs[0] is inputs
    assert isinstance(model.layers[1], tfkit.layers.Rescaling) and tuple(model.output.shape) == (None, 1, 1, 512)


def test_functional_layers_follow_keras_order_so_keras_weight_lists_fit():
    """A branch created before the longer path: Keras lists the longer path first (deepest first); so must tfkit,
    or ``set_weights(keras_model.get_weights())`` and Keras 3 weight files pair the wrong layers."""

    def build(lib):
        x = lib.Input((4,), name="x")
        short = lib.layers.Dense(3, name="short")(x)
        long = lib.layers.Dense(5, name="long_1")(x)
        long = lib.layers.Dense(3, name="long_2")(long)
        return lib.Model(x, lib.layers.Add(name="add")([short, long]))

    keras_model, tfkit_model = build(keras), build(tfkit)
    assert [layer.name for layer in tfkit_model.layers] == [layer.name for layer in keras_model.layers]
    tfkit_model.set_weights(keras_model.get_weights())
    data = np.random.default_rng(0).normal(size=(2, 4)).astype("float32")
    np.testing.assert_allclose(tfkit_model.predict(data, verbose=0), keras_model.predict(data, verbose=0), atol=1e-5)


@pytest.mark.parametrize("function", ["ResNet50", "VGG16", "MobileNetV2", "EfficientNetB0", "DenseNet121"])
def test_imagenet_weights_are_refused_with_the_file_to_fetch(function):
    with pytest.raises(
        ValueError,
        match=r"(?s)does not download.*https://storage\.googleapis\.com/.*\.h5.*"
        r"weights='/path/to/.*weights=None",
    ):
        getattr(tfkit.applications, function)(include_top=False)


def test_imagenet_error_names_the_no_top_file():
    with pytest.raises(ValueError, match="resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5"):
        tfkit.applications.ResNet50(include_top=False)


def test_a_missing_weights_file_is_named(tmp_path):
    missing = str(tmp_path / "nothing.h5")
    with pytest.raises(ValueError, match=f"no file at weights='{missing}'"):
        tfkit.applications.VGG16(weights=missing, include_top=False)


def test_include_top_needs_a_static_input_shape():
    with pytest.raises(ValueError, match="static `input_shape`"):
        tfkit.applications.VGG16(weights=None, include_top=True, input_shape=(None, None, 3))


def test_submodules_are_keras_s():
    from tfkit.applications import (
        densenet,
        efficientnet,
        mobilenet,
        mobilenet_v2,
        resnet,
        resnet50,
        resnet_v2,
        vgg16,
        vgg19,
    )

    for module, function in [
        (resnet50, "ResNet50"),
        (resnet, "ResNet152"),
        (resnet_v2, "ResNet101V2"),
        (vgg16, "VGG16"),
        (vgg19, "VGG19"),
        (mobilenet, "MobileNet"),
        (mobilenet_v2, "MobileNetV2"),
        (densenet, "DenseNet201"),
        (efficientnet, "EfficientNetB7"),
    ]:
        assert callable(getattr(module, function))
        assert callable(module.preprocess_input) and callable(module.decode_predictions)
