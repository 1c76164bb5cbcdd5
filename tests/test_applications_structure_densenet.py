"""DenseNet169 and DenseNet201 build in tfkit as in Keras (params, layer names, weight shapes in order).

    compare_structure("DenseNet201", include_top=True, input_shape=(32, 32, 3), classes=5)
Slow: about 600 and 700 layers, built twice.
"""

from __future__ import annotations

import pytest

from tests.applications_compare import EVERY_VARIANT, compare_structure

pytestmark = EVERY_VARIANT


@pytest.mark.slow
@pytest.mark.parametrize(
    "function, kwargs",
    [
        ("DenseNet169", dict(include_top=False, input_shape=(32, 32, 3), pooling="max")),
        ("DenseNet201", dict(include_top=True, input_shape=(32, 32, 3), classes=5)),
    ],
)
def test_densenet_matches_keras(function, kwargs):
    compare_structure(function, **kwargs)
