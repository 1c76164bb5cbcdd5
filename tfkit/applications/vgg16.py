"""VGG16 (``keras.applications.vgg16``).

    model = VGG16(weights=None, include_top=False, input_shape=(64, 64, 3), pooling="max")
    model = VGG16(weights="/path/to/vgg16_weights_tf_dim_ordering_tf_kernels.h5")
    x = preprocess_input(images)          # caffe mode
"""

from __future__ import annotations

from typing import Any

from tfkit.applications.imagenet_utils import decode_predictions  # noqa: F401
from tfkit.applications.vgg import VGG, preprocess_input  # noqa: F401
from tfkit.models import Functional


def VGG16(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
          pooling: str | None = None, classes: int = 1000, classifier_activation: Any = "softmax",
          name: str = "vgg16") -> Functional:
    """VGG16 (Keras's ``keras.applications.VGG16``; ``preprocess_input``: caffe mode)."""
    return VGG((2, 2, 3, 3, 3), "vgg16", include_top, weights, input_tensor, input_shape, pooling, classes,
               classifier_activation, name)
