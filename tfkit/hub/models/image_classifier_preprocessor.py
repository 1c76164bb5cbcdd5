"""``ImageClassifierPreprocessor``: raw images (and labels) to an image classifier's inputs, KerasHub's own.

preprocessor = ImageClassifierPreprocessor.from_preset("./vit_tiny")    # ViTImageClassifierPreprocessor
x, y = preprocessor(images, [1, 0])                                      # images converted, labels unchanged
dataset = dataset.map(preprocessor)                                      # (x, y) batches in tf.data
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.preprocessor import Preprocessor
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight


@register_keras_serializable(package="keras_hub")
class ImageClassifierPreprocessor(Preprocessor):
    """Base class for image classification preprocessing layers.

    It runs its `ImageConverter` (resize, scale, offset) on the images and
    passes the labels and sample weights through unchanged: `x` alone comes
    back as `x`, with labels as `(x, y)`, with weights as
    `(x, y, sample_weight)`. Pair it with an `ImageClassifier`. Called on the
    base class, `from_preset` returns the preset family's own
    (`ViTImageClassifierPreprocessor`).

    Args:
        image_converter: The `ImageConverter` applied to the images, or `None`
            (the default) to pass them through.
        **kwargs: `Preprocessor` keyword arguments, such as `name`.

    Call arguments:
        x: An image, a batch of images, or a list of images.
        y: Labels, passed through. Defaults to `None`.
        sample_weight: Sample weights, passed through. Defaults to `None`.

    Returns:
        `x`, `(x, y)` or `(x, y, sample_weight)`, as Keras packs them.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> converter = keras_hub.layers.ImageConverter(image_size=(4, 4), scale=1 / 255)
        >>> preprocessor = keras_hub.models.ImageClassifierPreprocessor(image_converter=converter)
        >>> x, y = preprocessor(np.zeros((2, 8, 8, 3), "uint8"), np.array([1, 0]))
        >>> x.shape, y.numpy()
        (TensorShape([2, 4, 4, 3]), array([1, 0]))
    """

    def __init__(self, image_converter: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.image_converter = image_converter

    def call(self, x: Any, y: Any = None, sample_weight: Any = None) -> Any:
        if self.image_converter is not None:
            x = self.image_converter(x)
        return pack_x_y_sample_weight(x, y, sample_weight)
