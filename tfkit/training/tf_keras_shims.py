"""tf.keras's ``compiled_loss`` / ``compiled_metrics``, which Keras 3 keeps (deprecated) for old train steps.

    loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)   # in a tf.keras-era train_step
    self.compiled_metrics.update_state(y, y_pred)
    return {m.name: m.result() for m in self.metrics}

Both warn and call today's API (``compute_loss``; the compiled metrics). Keras 3's shim feeds
``y_pred`` to the loss tracker too, so such a step reports the predictions' mean as its "loss";
tfkit does what tf.keras did instead: ``compiled_loss`` records the loss it returns in the loss
tracker and ``compiled_metrics`` updates the compiled metrics only.
"""

from __future__ import annotations

import warnings
from typing import Any


class _CompiledMetrics:
    def __init__(self, model: Any) -> None:
        self._model = model

    def update_state(self, y: Any, y_pred: Any, sample_weight: Any = None) -> None:
        warnings.warn(
            "`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\nfor metric in "
            "self.metrics:\n    metric.update_state(y, y_pred)\n```\n",
            stacklevel=2,
        )
        metrics = self._model._state().compile_metrics
        if metrics is not None:
            metrics.update_state(y, y_pred, sample_weight)


class TfKerasShims:
    """Mixed into the trainer: the deprecated tf.keras step helpers."""

    def compiled_loss(self, y: Any, y_pred: Any, sample_weight: Any = None, regularization_losses: Any = None) -> Any:
        """Deprecated (tf.keras): the loss of a batch, recorded in the loss tracker; use `compute_loss`.

        It warns, computes `compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)`
        (which already includes the model's added losses, so `regularization_losses`
        is ignored) and records it in the `"loss"` metric, as tf.keras did.

        Args:
            y: The targets.
            y_pred: The predictions.
            sample_weight: Optional per-sample weights. Defaults to `None`.
            regularization_losses: Ignored (the model's losses are always
                included). Defaults to `None`.

        Returns:
            A scalar tensor, the loss.
        """
        warnings.warn(
            "`model.compiled_loss()` is deprecated. Instead, use "
            "`model.compute_loss(x, y, y_pred, sample_weight, training)`.",
            stacklevel=2,
        )
        loss = self.compute_loss(x=None, y=y, y_pred=y_pred, sample_weight=sample_weight)
        self._track_loss(loss, y if y is not None else y_pred)
        return loss

    @property
    def compiled_metrics(self) -> _CompiledMetrics:
        """Deprecated (tf.keras): an object whose `update_state(y, y_pred, sample_weight)` updates the compiled metrics.

        It warns; use `compute_metrics`, or update `self.metrics` directly.
        """
        return _CompiledMetrics(self)
