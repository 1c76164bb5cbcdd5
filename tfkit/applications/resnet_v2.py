"""ResNet50V2, ResNet101V2 and ResNet152V2 (``keras.applications.resnet_v2``).

    model = ResNet50V2(weights=None, include_top=False, input_shape=(64, 64, 3))
    x = preprocess_input(images)          # tf mode: pixels scaled to [-1, 1]
    decode_predictions(probabilities, class_index_path="imagenet_class_index.json")
"""

from __future__ import annotations

from typing import Any, Callable

from tfkit.applications.imagenet_utils import decode_predictions, family_preprocess  # noqa: F401
from tfkit.applications.resnet import ResNet, stack_residual_blocks_v2
from tfkit.models import Functional

preprocess_input = family_preprocess("tf", "Preprocess RGB images in [0, 255] for ResNetV2: scaled to [-1, 1] "
                                           "(Keras's 'tf' mode).")


def _v2(depths: tuple[int, int, int, int]) -> Callable[[Any], Any]:
    def stack_fn(x: Any) -> Any:
        x = stack_residual_blocks_v2(x, 64, depths[0], name="conv2")
        x = stack_residual_blocks_v2(x, 128, depths[1], name="conv3")
        x = stack_residual_blocks_v2(x, 256, depths[2], name="conv4")
        return stack_residual_blocks_v2(x, 512, depths[3], stride1=1, name="conv5")
    return stack_fn


def ResNet50V2(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
               pooling: str | None = None, classes: int = 1000, classifier_activation: Any = "softmax",
               name: str = "resnet50v2") -> Functional:
    """ResNet50V2 (Keras's ``keras.applications.ResNet50V2``; ``preprocess_input``: tf mode)."""
    return ResNet(_v2((3, 4, 6, 3)), True, True, include_top, weights, input_tensor, input_shape, pooling, classes,
                  classifier_activation, name, "resnet50v2")


def ResNet101V2(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
                pooling: str | None = None, classes: int = 1000, classifier_activation: Any = "softmax",
                name: str = "resnet101v2") -> Functional:
    """ResNet101V2 (Keras's ``keras.applications.ResNet101V2``)."""
    return ResNet(_v2((3, 4, 23, 3)), True, True, include_top, weights, input_tensor, input_shape, pooling, classes,
                  classifier_activation, name, "resnet101v2")


def ResNet152V2(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
                pooling: str | None = None, classes: int = 1000, classifier_activation: Any = "softmax",
                name: str = "resnet152v2") -> Functional:
    """ResNet152V2 (Keras's ``keras.applications.ResNet152V2``)."""
    return ResNet(_v2((3, 8, 36, 3)), True, True, include_top, weights, input_tensor, input_shape, pooling, classes,
                  classifier_activation, name, "resnet152v2")
