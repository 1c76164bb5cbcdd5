"""``TextClassifier``: the base of text classification tasks, KerasHub's ``keras_hub.models.TextClassifier``.

classifier = TextClassifier.from_preset("./bert_tiny", num_classes=2)   # BertTextClassifier, a new head
classifier.fit(["a great movie", "a dull one"], [1, 0], batch_size=2)    # raw strings, preprocessed in tf.data
"""

from __future__ import annotations

from typing import Any

from tfkit import activations, losses, optimizers
from tfkit import metrics as metric_classes  # `metrics` is compile's argument
from tfkit.hub.models.task import Task
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class TextClassifier(Task):
    """Base class for all classification tasks.

    A `TextClassifier` maps text to one score per class, `(batch,
    num_classes)`: logits unless the family's `activation` is
    `"softmax"`. Its head (a dense layer on the backbone's pooled output) is
    the task's own weights, saved to a preset's `task.weights.h5`. Called on
    the `TextClassifier` base class, `from_preset` returns the family's own
    (`BertTextClassifier`); passing `num_classes` there gives a fresh head
    instead of the preset's. `compile` has classification's defaults.

    Args:
        *args: The functional model's arguments, passed by a family's class.
        compile: Whether to `compile()` with the task's defaults at once, as
            KerasHub's tasks do. Defaults to `True`.
        **kwargs: `Task` keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.TextClassifier, keras_hub.models.Task)
        True
    """

    def compile(self, optimizer: Any = "auto", loss: Any = "auto", *, metrics: Any = "auto", **kwargs: Any) -> None:
        """Configures the task for training, with classification's defaults.

        Args:
            optimizer: `"auto"` (Adam, learning rate 5e-5), or anything
                `tfkit.Model.compile` takes. Defaults to `"auto"`.
            loss: `"auto"`: sparse categorical crossentropy, on logits unless
                the task's `activation` is softmax; or anything `compile`
                takes. Defaults to `"auto"`.
            metrics: `"auto"` (sparse categorical accuracy), or a list of
                metrics. Defaults to `"auto"`.
            **kwargs: Other arguments of `tfkit.Model.compile`.
        """
        if isinstance(optimizer, str) and optimizer == "auto":
            optimizer = optimizers.Adam(5e-5)
        if isinstance(loss, str) and loss == "auto":
            activation = activations.get(getattr(self, "activation", None))
            loss = losses.SparseCategoricalCrossentropy(from_logits=activation is not activations.softmax)
        if isinstance(metrics, str) and metrics == "auto":
            metrics = [metric_classes.SparseCategoricalAccuracy()]
        super().compile(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)
