"""``ImageClassifier``: a vision backbone with a pooling and dense classification head, KerasHub's own.

    classifier = ImageClassifier.from_preset("./vit_tiny")            # ViTImageClassifier, head loaded
    classifier.fit(images, labels, batch_size=8)                     # raw images: converted in tf.data
    classifier = ImageClassifier.from_preset("./vit-hf")             # ViTForImageClassification's head too

The head's dense layer is `output_dense` (named `"predictions"`); its weights
are the task's own (`task.weights.h5` in a preset, `classifier.*` in a Hugging
Face checkpoint). `compile` has classification's defaults.
"""

from __future__ import annotations

from typing import Any

from tfkit import activations, layers, losses, optimizers
from tfkit.hub.models.task import Task
from tfkit.hub.presets import config_budget, transformers_checkpoints
from tfkit.hub.presets.preset_loader import get_preset_loader
from tfkit.hub.presets.refusals import refuses_bad_presets
from tfkit.hub.presets.safetensors_files import SafetensorsCheckpoint
from tfkit.metrics import SparseCategoricalAccuracy
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class ImageClassifier(Task):
    """Base class for all image classification tasks.

    An `ImageClassifier` pools its backbone's feature map (`pooling`), applies
    dropout and a dense layer of `num_classes` units. With an
    `ImageClassifierPreprocessor`, `fit`, `evaluate` and `predict` take raw
    images; `y` holds integer labels in `[0, num_classes)`. Called on the base
    class, `from_preset` returns the preset family's classifier
    (`ViTImageClassifier`), with the head's weights when the preset stores
    them and `num_classes` is not passed.

    Args:
        backbone: A `Backbone` (or a functional model) whose output is a
            feature map `(batch, height, width, channels)`.
        num_classes: The number of classes to predict.
        preprocessor: An `ImageClassifierPreprocessor`, or `None` (the
            default) to take preprocessed images.
        pooling: `"avg"` (the default) or `"max"`: the global pooling of the
            feature map.
        activation: The activation of the dense layer: `None` (the default)
            for logits, a name such as `"softmax"`, or a callable.
        dropout: The dropout rate before the dense layer. Defaults to `0.0`.
        head_dtype: The dtype policy of the head's layers. Defaults to `None`:
            the backbone's.
        **kwargs: `Task` keyword arguments, such as `name` or `compile`.

    Raises:
        ValueError: If `pooling` is not `"avg"` or `"max"`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> inputs = tfkit.Input((8, 8, 3))
        >>> backbone = tfkit.Model(inputs, tfkit.layers.Conv2D(4, 3, strides=2)(inputs))
        >>> classifier = keras_hub.models.ImageClassifier(backbone=backbone, num_classes=5)
        >>> classifier.predict(np.zeros((2, 8, 8, 3)), verbose=0).shape
        (2, 5)
    """

    def __init__(
        self,
        backbone: Any,
        num_classes: int,
        preprocessor: Any = None,
        pooling: str = "avg",
        activation: Any = None,
        dropout: float = 0.0,
        head_dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        head_dtype = head_dtype or backbone.dtype_policy
        data_format = getattr(backbone, "data_format", None)
        self.backbone = backbone
        self.preprocessor = preprocessor
        if pooling == "avg":
            self.pooler = layers.GlobalAveragePooling2D(data_format, dtype=head_dtype, name="pooler")
        elif pooling == "max":
            self.pooler = layers.GlobalMaxPooling2D(data_format, dtype=head_dtype, name="pooler")
        else:
            raise ValueError(f"ImageClassifier: expected `pooling` to be 'avg' or 'max', got {pooling!r}")
        self.output_dropout = layers.Dropout(dropout, dtype=head_dtype, name="output_dropout")
        self.output_dense = layers.Dense(num_classes, activation=activation, dtype=head_dtype, name="predictions")

        inputs = backbone.input
        x = self.output_dropout(self.pooler(backbone(inputs)))
        # Set before Task's constructor compiles, so that the default loss sees a softmax head (KerasHub sets it
        # after, so its default loss takes a softmax head's probabilities for logits)
        self.activation = activation
        super().__init__(inputs=inputs, outputs=self.output_dense(x), **kwargs)
        self.num_classes = num_classes
        self.pooling = pooling
        self.dropout = dropout

    def get_config(self) -> dict[str, Any]:
        """`Task`'s keys (backbone, preprocessor, name) and the head's arguments."""
        config = super().get_config()
        config.update(
            num_classes=self.num_classes, pooling=self.pooling, activation=self.activation, dropout=self.dropout
        )
        return config

    def compile(self, optimizer: Any = "auto", loss: Any = "auto", *, metrics: Any = "auto", **kwargs: Any) -> None:
        """Configures training, with image classification's defaults.

        Args:
            optimizer: `"auto"` (Adam, learning rate 5e-5), or anything
                `tfkit.Model.compile` takes. Defaults to `"auto"`.
            loss: `"auto"` (sparse categorical crossentropy, on logits unless
                the head's activation is softmax), or anything `compile`
                takes. Defaults to `"auto"`. KerasHub's default compile runs
                before the head's activation is known, so there a softmax
                head is trained as if it gave logits; tfkit's sees it.
            metrics: `"auto"` (sparse categorical accuracy), or a list of
                metrics. Defaults to `"auto"`.
            **kwargs: Other arguments of `tfkit.Model.compile`.
        """
        if isinstance(optimizer, str) and optimizer == "auto":
            optimizer = optimizers.Adam(5e-5)
        if isinstance(loss, str) and loss == "auto":
            from_logits = activations.get(getattr(self, "activation", None)) is not activations.softmax
            loss = losses.SparseCategoricalCrossentropy(from_logits)
        if isinstance(metrics, str) and metrics == "auto":
            metrics = [SparseCategoricalAccuracy()]
        super().compile(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)

    @classmethod
    @refuses_bad_presets
    def from_preset(cls, preset: str, load_weights: bool = True, **kwargs: Any) -> "ImageClassifier":
        """Instantiates the preset family's image classifier, with its head's weights where the preset has them.

        A KerasHub preset's head comes from its `task.json` and
        `task.weights.h5`. A Hugging Face `...ForImageClassification`
        checkpoint gives `num_classes` (from `id2label`) and the head
        (`classifier.weight`, `classifier.bias`). Passing `num_classes` builds
        a fresh head instead.

        Args:
            preset: A preset folder or an `hf://` / `kaggle://` handle.
            load_weights: Whether to load the preset's weights. Defaults to
                `True`.
            **kwargs: Constructor arguments of the classifier, such as
                `num_classes`, `pooling` or `preprocessor`; `dtype` goes to the
                backbone.

        Returns:
            The image classifier.

        Raises:
            ValueError: If the preset's family has no image classifier, or a
                Hugging Face checkpoint has no classification head and
                `num_classes` is not given.
        """
        source = get_preset_loader(preset)
        if not source.is_transformers_checkpoint:
            return super().from_preset(source, load_weights, **kwargs)
        directory, hf_config = source.directory, source.config
        architectures = hf_config.get("architectures") or [""]
        architecture = architectures[0] if isinstance(architectures, list) and architectures else ""
        architecture = architecture if isinstance(architecture, str) else ""
        load_head = "num_classes" not in kwargs and "ForImageClassification" in architecture
        if load_head:
            labels = hf_config.get("id2label") or {}
            kwargs["num_classes"] = len(labels) if isinstance(labels, dict) else 0
            sizes = transformers_checkpoints.checkpoint_sizes(directory)  # the head: no wider than the weights
            config_budget.check_arguments(
                {"num_classes": kwargs["num_classes"]}, sizes, f"preset {directory}: config.json (its id2label)"
            )
        elif "num_classes" not in kwargs:
            raise ValueError(
                f"{directory} is a {architecture or hf_config.get('model_type')} checkpoint without a classification "
                f"head; pass num_classes to build a fresh one"
            )
        task = super().from_preset(source, load_weights, **kwargs)
        if load_weights and load_head:
            plan = transformers_checkpoints.WeightPlan()
            source.converter.plan_head_weights(task, hf_config, plan)
            with SafetensorsCheckpoint(directory) as checkpoint:
                plan.apply(checkpoint)
        return task
