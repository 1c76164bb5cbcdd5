"""EfficientNetB1 ... B5 build in tfkit as in Keras (params, layer names, weight shapes in order).

    compare_structure("EfficientNetB5", include_top=False, input_shape=(32, 32, 3))
Slow: up to ~800 layers each, built twice. B0 is in test_applications_structure.py, B6 and B7 in ..._efficientnet_large.py.
"""

from __future__ import annotations

import pytest

from tests.applications_compare import EVERY_VARIANT, compare_structure

pytestmark = EVERY_VARIANT


@pytest.mark.slow
@pytest.mark.parametrize("function", [f"EfficientNetB{i}" for i in range(1, 6)])
def test_efficientnet_matches_keras(function):
    compare_structure(function, include_top=False, input_shape=(32, 32, 3))
