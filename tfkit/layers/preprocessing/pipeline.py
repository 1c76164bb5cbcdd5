"""``Pipeline``: preprocessing layers applied one after another, as Keras 3's ``keras.layers.Pipeline``.

    augment = tfkit.layers.Pipeline([tfkit.layers.AutoContrast(), tfkit.layers.RandomFlip(), tfkit.layers.MixUp()])
    dataset = dataset.map(lambda batch: augment(batch))          # images or {"images", "labels", ...} dicts
    clone = tfkit.layers.Pipeline.from_config(augment.get_config())

Unlike ``Sequential`` it is a plain layer, so it can sit inside ``tf.data``
maps and pass dict inputs (images with labels, masks and boxes) from one
augmentation to the next; ``training`` reaches every layer.
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.base import registry
from tfkit.engine.layer import Layer

__all__ = ["Pipeline"]


@registry.builtin("layers")
class Pipeline(Layer):
    """Applies a series of layers to an input.

    This class is useful to build a preprocessing pipeline, in particular an
    image data augmentation pipeline. Unlike a `Sequential` model, `Pipeline`
    is a layer, not a model: it is meant for preprocessing (e.g. inside a
    `tf.data` pipeline), and it passes each layer the previous one's output
    and the caller's `training` flag. The layers are saved in its config.

    Args:
        layers: A list of tfkit layers, applied in order.
        name: Optional name of the layer. Defaults to `None` (a generated
            name).
        **kwargs: Other base layer keyword arguments, such as `dtype`.

    Call arguments:
        inputs: The inputs of the first layer (e.g. images, or a dict with
            `"images"` and `"labels"`).
        training: Python boolean or boolean tensor, passed to every layer.
            Defaults to `True`, as for the augmentation layers.

    Input shape:
        The first layer's input shape.

    Output shape:
        The last layer's output shape.

    Raises:
        ValueError: If `layers` is not a list (or tuple) of tfkit layers.

    Example:
        >>> pipeline = tfkit.layers.Pipeline([
        ...     tfkit.layers.RandomFlip(seed=1),
        ...     tfkit.layers.RandomBrightness(factor=0.2, seed=2),
        ...     tfkit.layers.Rescaling(1 / 255),
        ... ])
        >>> pipeline(np.full((2, 4, 4, 3), 128, dtype="uint8")).shape
        TensorShape([2, 4, 4, 3])
        >>> len(pipeline.layers)
        3
    """

    def __init__(self, layers: Sequence[Layer], name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        if isinstance(layers, Layer) or not isinstance(layers, (list, tuple)):
            raise ValueError(f"Pipeline layer '{self.name}' expected layers to be a list of layers, got {layers!r}")
        for i, layer in enumerate(layers):
            if not isinstance(layer, Layer):
                raise ValueError(
                    f"Pipeline layer '{self.name}' expected layers[{i}] to be a tfkit layer, "
                    f"got {type(layer).__name__}: {layer!r}"
                )
        self._pipeline_layers = list(layers)

    @property
    def layers(self) -> list[Layer]:
        return list(self._pipeline_layers)

    def call(self, inputs: Any, training: Any = True) -> Any:
        for layer in self._pipeline_layers:
            inputs = layer(inputs, training=training)
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        for layer in self._pipeline_layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": Layer.get_config(self)["dtype"],
            "layers": [registry.to_config("layers", layer) for layer in self._pipeline_layers],
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Pipeline":
        config = dict(config)
        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError(f"A Pipeline config needs 'layers': a list of layer configs, got {layers!r}")
        config["layers"] = [registry.resolve("layers", layer) for layer in layers]
        return cls(**config)
