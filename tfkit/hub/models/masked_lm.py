"""``MaskedLM``: the base of masked language modeling tasks, KerasHub's ``keras_hub.models.MaskedLM``.

masked_lm = MaskedLM.from_preset("./bert_tiny")          # BertMaskedLM, its head from task.weights.h5
masked_lm.fit(["some text", "more text"], batch_size=2)  # tokens masked at random in tf.data, then predicted
"""

from __future__ import annotations

from typing import Any

from tfkit import losses, metrics, optimizers
from tfkit.hub.models.task import Task
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MaskedLM(Task):
    """Base class for masked language modeling tasks.

    A `MaskedLM` takes token ids in which some tokens were masked, and
    `mask_positions`, and predicts the original token at each of those
    positions: `(batch, masks_per_sequence, vocabulary_size)` logits. Its
    preprocessor masks raw text at random (`MaskedLMPreprocessor`), so `fit`
    takes plain strings. Called on the `MaskedLM` base class, `from_preset`
    returns the family's own (`BertMaskedLM`). `compile` has masked language
    modeling's defaults.

    Args:
        *args: The functional model's arguments, passed by a family's class.
        compile: Whether to `compile()` with the task's defaults at once, as
            KerasHub's tasks do. Defaults to `True`.
        **kwargs: `Task` keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.MaskedLM, keras_hub.models.Task)
        True
    """

    def compile(
        self, optimizer: Any = "auto", loss: Any = "auto", *, weighted_metrics: Any = "auto", **kwargs: Any
    ) -> None:
        """Configures the task for training, with masked language modeling's defaults.

        Args:
            optimizer: `"auto"` (Adam, learning rate 5e-5), or anything
                `tfkit.Model.compile` takes. Defaults to `"auto"`.
            loss: `"auto"` (sparse categorical crossentropy on logits), or
                anything `compile` takes. Defaults to `"auto"`.
            weighted_metrics: `"auto"` (sparse categorical accuracy, weighted
                by the preprocessor's mask weights), or a list of metrics.
                Defaults to `"auto"`.
            **kwargs: Other arguments of `tfkit.Model.compile`.
        """
        if isinstance(optimizer, str) and optimizer == "auto":
            optimizer = optimizers.Adam(5e-5)
        if isinstance(loss, str) and loss == "auto":
            loss = losses.SparseCategoricalCrossentropy(from_logits=True)
        if isinstance(weighted_metrics, str) and weighted_metrics == "auto":
            weighted_metrics = [metrics.SparseCategoricalAccuracy()]
        super().compile(optimizer=optimizer, loss=loss, weighted_metrics=weighted_metrics, **kwargs)
