"""The deep ResNets and the DenseNets build in tfkit as in Keras (params, layer names, weight shapes in order).

    compare_structure("ResNet152", include_top=False, input_shape=(32, 32, 3))
Slow: hundreds of layers each, built twice.
"""

from __future__ import annotations

import pytest

from tests.applications_compare import EVERY_VARIANT, compare_structure

pytestmark = EVERY_VARIANT


@pytest.mark.slow
@pytest.mark.parametrize("function", ["ResNet101", "ResNet152", "ResNet101V2", "ResNet152V2", "DenseNet121"])
def test_deep_application_matches_keras(function):
    compare_structure(function, include_top=False, input_shape=(32, 32, 3))
