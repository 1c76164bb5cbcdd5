"""Keras's ready-made image models (``keras.applications``), built from tfkit layers.

    model = tfkit.applications.ResNet50(weights=None, include_top=False, input_shape=(96, 96, 3), pooling="avg")
    model = tfkit.applications.MobileNetV2(weights="/path/to/mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_224.h5")
    x = tfkit.applications.resnet50.preprocess_input(images)

Same arguments, defaults, layer names and weight order as Keras 3, so
Keras's weight files load by path. ``weights="imagenet"`` (the default, as
in Keras) is refused with the file to fetch: tfkit never downloads.
"""

from tfkit.applications import (  # noqa: F401
    convnext,
    densenet,
    efficientnet,
    efficientnet_v2,
    imagenet_utils,
    inception_resnet_v2,
    inception_v3,
    mobilenet,
    mobilenet_v2,
    mobilenet_v3,
    nasnet,
    resnet,
    resnet50,
    resnet_v2,
    vgg16,
    vgg19,
    xception,
)
from tfkit.applications.convnext import ConvNeXtBase, ConvNeXtLarge, ConvNeXtSmall, ConvNeXtTiny, ConvNeXtXLarge  # noqa: F401
from tfkit.applications.densenet import DenseNet121, DenseNet169, DenseNet201  # noqa: F401
from tfkit.applications.efficientnet import (  # noqa: F401
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
from tfkit.applications.efficientnet_v2 import (  # noqa: F401
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2L,
    EfficientNetV2M,
    EfficientNetV2S,
)
from tfkit.applications.inception_resnet_v2 import InceptionResNetV2  # noqa: F401
from tfkit.applications.inception_v3 import InceptionV3  # noqa: F401
from tfkit.applications.mobilenet import MobileNet  # noqa: F401
from tfkit.applications.mobilenet_v2 import MobileNetV2  # noqa: F401
from tfkit.applications.mobilenet_v3 import MobileNetV3Large, MobileNetV3Small  # noqa: F401
from tfkit.applications.nasnet import NASNetLarge, NASNetMobile  # noqa: F401
from tfkit.applications.resnet import ResNet50, ResNet101, ResNet152  # noqa: F401
from tfkit.applications.resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2  # noqa: F401
from tfkit.applications.vgg16 import VGG16  # noqa: F401
from tfkit.applications.vgg19 import VGG19  # noqa: F401
from tfkit.applications.xception import Xception  # noqa: F401
