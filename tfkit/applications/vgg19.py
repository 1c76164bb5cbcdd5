"""VGG19 (``keras.applications.vgg19``).

    model = VGG19(weights=None, include_top=False, input_shape=(64, 64, 3))
    model = VGG19(weights="/path/to/vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5", include_top=False)
    x = preprocess_input(images)          # caffe mode
"""

from __future__ import annotations

from typing import Any

from tfkit.applications.imagenet_utils import decode_predictions  # noqa: F401
from tfkit.applications.vgg import VGG, preprocess_input  # noqa: F401
from tfkit.models import Functional


def VGG19(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
          pooling: str | None = None, classes: int = 1000, classifier_activation: Any = "softmax",
          name: str = "vgg19") -> Functional:
    """VGG19 (Keras's ``keras.applications.VGG19``; ``preprocess_input``: caffe mode)."""
    return VGG((2, 2, 4, 4, 4), "vgg19", include_top, weights, input_tensor, input_shape, pooling, classes,
               classifier_activation, name)
