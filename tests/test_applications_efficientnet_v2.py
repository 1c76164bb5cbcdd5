"""EfficientNetV2B0 ... B3, S, M, L: Keras's parameter counts, preprocessing, ImageNet file names, weights by path.

    model = tfkit.applications.EfficientNetV2B0(weights=None, input_shape=(32, 32, 3))
    assert model.count_params() == 7_200_312                      # Keras 3.15's figure
With Keras installed, B0 is built side by side with Keras's (every variant with TFKIT_ALL_APPLICATIONS=1).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import tfkit
from tfkit.applications import efficientnet_v2

# keras.applications.<function>(weights=None, include_top=...).count_params() in Keras 3.15
KERAS_PARAMS = [("EfficientNetV2B0", True, 7200312), ("EfficientNetV2B1", False, 6931124)]
EVERY_VARIANT = pytest.mark.skipif(
    not os.environ.get("TFKIT_ALL_APPLICATIONS"),
    reason="set TFKIT_ALL_APPLICATIONS=1 to compare every variant with Keras",
)


def _images(seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0, 255, (2, 32, 32, 3)).astype("float32")


@pytest.mark.parametrize("function, include_top, expected", KERAS_PARAMS)
def test_parameter_counts_are_keras_s(function, include_top, expected):
    model = getattr(tfkit.applications, function)(weights=None, include_top=include_top, input_shape=(32, 32, 3))
    assert model.count_params() == expected


def test_imagenet_weights_are_refused_with_keras_s_file_name():
    with pytest.raises(ValueError, match=r"(?s)does not download.*efficientnet_v2/efficientnetv2-s_notop\.h5"):
        tfkit.applications.EfficientNetV2S(include_top=False)
    with pytest.raises(ValueError, match=r"efficientnet_v2/efficientnetv2-b3\.h5"):
        tfkit.applications.EfficientNetV2B3()


def test_b_variants_normalise_and_the_others_rescale_to_minus_one_one():
    x = _images()
    assert efficientnet_v2.preprocess_input(x) is x
    b0 = tfkit.applications.EfficientNetV2B0(weights=None, include_top=False, input_shape=(32, 32, 3))
    assert [type(layer).__name__ for layer in b0.layers[1:3]] == ["Rescaling", "Normalization"]
    np.testing.assert_allclose(b0.layers[2].get_config()["variance"], [0.229**2, 0.224**2, 0.225**2], rtol=1e-6)
    plain = tfkit.applications.EfficientNetV2B0(
        weights=None, include_top=False, input_shape=(32, 32, 3), include_preprocessing=False
    )
    assert not any(isinstance(layer, (tfkit.layers.Rescaling, tfkit.layers.Normalization)) for layer in plain.layers)
    one_block = [
        dict(
            kernel_size=3,
            num_repeat=1,
            input_filters=8,
            output_filters=8,
            expand_ratio=1,
            se_ratio=0,
            strides=1,
            conv_type=1,
        )
    ]
    s_like = efficientnet_v2.EfficientNetV2(
        1.0,
        1.0,
        384,
        blocks_args=one_block,
        name="s_like",
        weights=None,
        include_top=False,
        input_shape=(32, 32, 3),
        weights_name="-s",
    )
    assert type(s_like.layers[2]).__name__ == "Conv2D"
    assert s_like.layers[1].get_config()["scale"] == pytest.approx(1 / 128)
    assert s_like.layers[1].get_config()["offset"] == pytest.approx(-1.0)


def test_a_renamed_model_keeps_its_variant_s_blocks(tmp_path):
    """Keras looks the default blocks up by the model's name (a KeyError for any other name); tfkit by variant."""
    model = tfkit.applications.EfficientNetV2B0(
        weights=None, include_top=False, input_shape=(32, 32, 3), name="my_backbone"
    )
    assert model.name == "my_backbone" and model.count_params() == 5919312
    path = str(tmp_path / "backbone.weights.h5")
    model.save_weights(path)
    tfkit.backend.clear_session()
    again = tfkit.applications.EfficientNetV2B0(
        weights=path, include_top=False, input_shape=(32, 32, 3), name="my_backbone"
    )
    x = _images()
    np.testing.assert_allclose(again(x), model(x), atol=1e-6)


@pytest.fixture(scope="module")
def keras_side():
    pytest.importorskip("keras")
    from tests import applications_compare

    return applications_compare


def test_matches_keras_and_takes_its_weights(keras_side, tmp_path):
    keras_side.compare_structure_and_predictions(
        "EfficientNetV2B0", str(tmp_path / "keras.weights.h5"), input_shape=(32, 32, 3), classes=6
    )


@EVERY_VARIANT
@pytest.mark.slow
@pytest.mark.parametrize(
    "function",
    [
        "EfficientNetV2B1",
        "EfficientNetV2B2",
        "EfficientNetV2B3",
        "EfficientNetV2S",
        "EfficientNetV2M",
        "EfficientNetV2L",
    ],
)
def test_every_variant_matches_keras(keras_side, function):
    keras_side.compare_structure(function, include_top=False, input_shape=(32, 32, 3))
