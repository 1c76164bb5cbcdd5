"""The application modules added after the first five families offer Keras's names, and their preprocess_input
gives Keras's numbers.

    tfkit.applications.convnext.ConvNeXtTiny, tfkit.applications.nasnet.preprocess_input, ...
    tfkit.applications.xception.preprocess_input(x)      # == keras.applications.xception.preprocess_input(x)
"""

from __future__ import annotations

import numpy as np
import pytest

import tfkit

# dir(keras.applications.<module>) in Keras 3.15, public names
KERAS_NAMES = {
    "mobilenet_v3": [],
    "efficientnet_v2": [
        "EfficientNetV2B0",
        "EfficientNetV2B1",
        "EfficientNetV2B2",
        "EfficientNetV2B3",
        "EfficientNetV2L",
        "EfficientNetV2M",
        "EfficientNetV2S",
    ],
    "convnext": ["ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtSmall", "ConvNeXtTiny", "ConvNeXtXLarge"],
    "xception": ["Xception"],
    "inception_v3": ["InceptionV3"],
    "inception_resnet_v2": ["InceptionResNetV2"],
    "nasnet": ["NASNetLarge", "NASNetMobile"],
}
TOP_LEVEL = ["MobileNetV3Small", "MobileNetV3Large", *(n for names in KERAS_NAMES.values() for n in names)]


@pytest.mark.parametrize("module", sorted(KERAS_NAMES))
def test_module_offers_keras_s_names(module):
    namespace = getattr(tfkit.applications, module)
    for name in [*KERAS_NAMES[module], "preprocess_input", "decode_predictions"]:
        assert callable(getattr(namespace, name)), f"tfkit.applications.{module}.{name}"
    for name in KERAS_NAMES[module]:
        assert getattr(namespace, name) is getattr(tfkit.applications, name)


def test_every_function_is_in_tfkit_applications():
    assert [name for name in TOP_LEVEL if not callable(getattr(tfkit.applications, name, None))] == []


@pytest.mark.parametrize("module", sorted(KERAS_NAMES))
def test_preprocess_input_is_keras_s(module):
    keras = pytest.importorskip("keras")
    x = np.random.default_rng(0).uniform(0, 255, (2, 5, 5, 3)).astype("float32")
    expected = getattr(keras.applications, module).preprocess_input(x.copy())
    np.testing.assert_array_equal(getattr(tfkit.applications, module).preprocess_input(x.copy()), expected)
