"""``SwapEMAWeights``: evaluate (and predict) with the optimizer's moving averages of the weights.

    model.compile(optimizer=tfkit.optimizers.SGD(use_ema=True), loss="mse")
    model.fit(x, y, validation_data=(x_val, y_val), callbacks=[tfkit.callbacks.SwapEMAWeights()])
    # val_loss is measured with the EMA weights; training goes on with the raw ones

Keras 3's callback: before evaluation the weights and their moving averages
trade places, after it they trade back. With ``swap_on_epoch=True`` they also
trade places at each epoch's end (so callbacks placed after this one, such as
``ModelCheckpoint``, see the EMA weights) and back at the next epoch's start.
Unlike Keras 3.15, ``predict`` swaps back when it ends.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.callbacks.callback import Callback
from tfkit.optimizers import LossScaleOptimizer, MultiOptimizer, Optimizer


def _swap(pairs: list[tuple[Any, tf.Variable]]) -> None:
    for variable, average in pairs:
        weights, averaged = tf.identity(variable.read_value()), tf.identity(average.read_value())
        variable.assign(averaged)
        average.assign(weights)


@registry.builtin("callbacks")
class SwapEMAWeights(Callback):
    """Swaps model weights and EMA weights before and after evaluation.

    This callback replaces the model's weight values with the values of the
    optimizer's exponential moving averages (EMA) of the weights (the optimizer needs
    `use_ema=True`). After evaluation, the weights are swapped back to their original
    values, so training goes on with the raw weights: the validation metrics
    (`val_loss`...) are measured with the EMA weights. `predict` swaps too, and (unlike
    Keras 3.15) swaps back when it ends. With a `LossScaleOptimizer`, its inner
    optimizer is used; with a `MultiOptimizer`, the inner optimizers with `use_ema=True`.
    Before the first training step there is nothing to swap.

    Args:
        swap_on_epoch: Whether to also swap the weights at each epoch's end (so
            callbacks placed after this one, such as `ModelCheckpoint`, see the EMA
            weights) and back at the next epoch's start. Defaults to `False`.

    Raises:
        ValueError: When swapping, if the model has no optimizer, or no optimizer with
            `use_ema=True`.

    Example:
        >>> model = tfkit.Sequential([tfkit.layers.Dense(1)])
        >>> model.compile(optimizer=tfkit.optimizers.SGD(use_ema=True), loss="mse")
        >>> swap = tfkit.callbacks.SwapEMAWeights(swap_on_epoch=True)
        >>> swap.swap_on_epoch
        True
    """

    def __init__(self, swap_on_epoch: bool = False) -> None:
        super().__init__()
        self.swap_on_epoch = bool(swap_on_epoch)
        self._ema_weights_in_model = False

    def _ema_optimizers(self) -> list[Optimizer]:
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None:
            raise ValueError(
                "SwapEMAWeights needs a compiled model with an optimizer that sets use_ema=True; "
                "model.optimizer is None"
            )
        if isinstance(optimizer, LossScaleOptimizer):
            optimizer = optimizer.inner_optimizer
        if isinstance(optimizer, MultiOptimizer):
            chosen = [inner for inner in optimizer.optimizers if inner.use_ema]
            if not chosen:
                raise ValueError(
                    "SwapEMAWeights must be used when at least one inner optimizer has use_ema=True "
                    "set. Received a MultiOptimizer with all inner optimizers having use_ema=False."
                )
            return chosen
        if not getattr(optimizer, "use_ema", False):
            raise ValueError(
                "SwapEMAWeights must be used when `use_ema=True` is set on the optimizer. "
                f"Received: {type(optimizer).__name__}(use_ema={getattr(optimizer, 'use_ema', None)})"
            )
        return [optimizer]

    def _pairs(self) -> list[tuple[Any, tf.Variable]]:
        # Before the first step there is no average yet (the first step copies the weights): nothing to swap.
        return [
            pair
            for optimizer in self._ema_optimizers()
            if int(optimizer.iterations) > 0
            for pair in optimizer.ema_pairs()
        ]

    def _swap_in(self) -> None:
        if not self._ema_weights_in_model:
            _swap(self._pairs())
            self._ema_weights_in_model = True

    def _swap_out(self) -> None:
        if self._ema_weights_in_model:
            _swap(self._pairs())
            self._ema_weights_in_model = False

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.swap_on_epoch:
            self._swap_out()

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if not self.swap_on_epoch:
            return
        self._swap_in()
        last = epoch == self.params.get("epochs", 0) - 1 or getattr(self.model, "stop_training", False)
        if last:
            # fit ends by copying the averages into the weights: make the averages the EMA weights again
            for variable, average in self._pairs():
                average.assign(variable.read_value())

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._swap_in()

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        self._swap_out()

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._swap_in()

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        self._swap_out()
