"""EfficientNetB6 and B7 build in tfkit as in Keras (params, layer names, weight shapes in order).

    compare_structure("EfficientNetB7", include_top=False, input_shape=(32, 32, 3))
Slow: ~670 and ~810 layers, built twice.
"""

from __future__ import annotations

import pytest

from tests.applications_compare import EVERY_VARIANT, compare_structure

pytestmark = EVERY_VARIANT


@pytest.mark.slow
@pytest.mark.parametrize("function", ["EfficientNetB6", "EfficientNetB7"])
def test_large_efficientnet_matches_keras(function):
    compare_structure(function, include_top=False, input_shape=(32, 32, 3))
