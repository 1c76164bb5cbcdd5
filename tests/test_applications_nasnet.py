"""NASNetMobile and NASNetLarge: the NASNet-A builder against Keras's parameter counts, its argument checks and
ImageNet file names; side by side with Keras when installed (little NASNets always, the two models with
TFKIT_ALL_APPLICATIONS=1: 700-1000 layers each).

    model = nasnet.NASNet((32, 32, 3), penultimate_filters=96, num_blocks=1, stem_block_filters=8, weights=None)
    assert model.count_params() == 27_027 + 5 * 96 + ...        # Keras 3.15's figure for the same arguments
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import tfkit
from tfkit.applications import imagenet_utils, nasnet

EVERY_VARIANT = pytest.mark.skipif(
    not os.environ.get("TFKIT_ALL_APPLICATIONS"),
    reason="set TFKIT_ALL_APPLICATIONS=1 to compare every variant with Keras",
)
LITTLE = dict(
    input_shape=(32, 32, 3),
    penultimate_filters=96,
    num_blocks=1,
    stem_block_filters=8,
    weights=None,
    classes=5,
    name="little",
)


@pytest.mark.parametrize("skip_reduction, expected", [(True, 27027), (False, 27411)])
def test_little_nasnet_has_keras_s_parameter_count(skip_reduction, expected):
    """keras.src.applications.nasnet.NASNet(**LITTLE, skip_reduction=...).count_params() in Keras 3.15."""
    model = nasnet.NASNet(skip_reduction=skip_reduction, **LITTLE)
    assert model.count_params() == expected
    assert [layer.name for layer in model.layers if layer.name.startswith(("normal_concat", "reduction_concat"))] == [
        "reduction_concat_stem_1",
        "reduction_concat_stem_2",
        "normal_concat_0",
        "reduction_concat_reduce_1",
        "normal_concat_2",
        "reduction_concat_reduce_2",
        "normal_concat_3",
    ]


@pytest.mark.parametrize(
    "function, include_top, file_name",
    [("NASNetMobile", False, "nasnet/NASNet-mobile-no-top.h5"), ("NASNetLarge", True, "nasnet/NASNet-large.h5")],
)
def test_imagenet_weights_are_refused_with_keras_s_file_name(function, include_top, file_name):
    with pytest.raises(ValueError, match=rf"(?s)does not download.*{file_name}"):
        getattr(tfkit.applications, function)(include_top=include_top)


def test_argument_checks_are_keras_s():
    with pytest.raises(ValueError, match=r"multiple of 24 \* \(`filter_multiplier` \*\* 2\). Current value: 100"):
        nasnet.NASNet(**{**LITTLE, "penultimate_filters": 100})
    with pytest.raises(ValueError, match="only be loaded with NASNetLarge or NASNetMobile"):
        nasnet.NASNet(default_size=300, include_top=False)
    with pytest.raises(ValueError, match=r"must be static \(no None entries\)"):
        tfkit.applications.NASNetMobile(input_shape=(None, None, 3), include_top=False)
    tfkit.config.set_image_data_format("channels_first")
    try:
        with pytest.raises(ValueError, match="channels_first"):
            tfkit.applications.NASNetMobile(weights=None, include_top=False)
    finally:
        tfkit.config.set_image_data_format("channels_last")


def test_preprocess_input_scales_to_minus_one_one():
    x = np.random.default_rng(0).uniform(0, 255, (2, 4, 4, 3)).astype("float32")
    np.testing.assert_array_equal(
        nasnet.preprocess_input(x.copy()), imagenet_utils.preprocess_input(x.copy(), mode="tf")
    )


@pytest.fixture(scope="module")
def keras_side():
    pytest.importorskip("keras")
    from tests import applications_compare

    return applications_compare


def test_little_nasnet_matches_keras_and_takes_its_weights(keras_side, tmp_path, skip_reduction=False):
    from keras.src.applications.nasnet import NASNet as KerasNASNet

    keras_side.keras.backend.clear_session()
    tfkit.backend.clear_session()
    keras_model = KerasNASNet(skip_reduction=skip_reduction, **LITTLE)
    tfkit_model = nasnet.NASNet(skip_reduction=skip_reduction, **LITTLE)
    assert [layer.name for layer in tfkit_model.layers] == [layer.name for layer in keras_model.layers]
    assert [tuple(w.shape) for w in tfkit_model.weights] == [tuple(w.shape) for w in keras_model.weights]
    keras_side.randomise(keras_model)
    path = str(tmp_path / "little.weights.h5")
    keras_model.save_weights(path)
    tfkit_model.load_weights(path)
    x = keras_side.random_images((32, 32, 3))
    np.testing.assert_allclose(tfkit_model(x), keras_model(x), atol=1e-4)


@EVERY_VARIANT
@pytest.mark.slow
@pytest.mark.parametrize("function", ["NASNetMobile", "NASNetLarge"])
def test_every_variant_matches_keras(keras_side, function):
    keras_side.compare_structure(function, include_top=function == "NASNetMobile", input_shape=(32, 32, 3))
