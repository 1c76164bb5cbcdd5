"""``LambdaCallback``: a callback made of plain functions.

log_loss = tfkit.callbacks.LambdaCallback(
    on_epoch_end=lambda epoch, logs: print(epoch, logs["loss"]))
model.fit(x, y, callbacks=[log_loss])
"""

from __future__ import annotations

from typing import Any, Callable

from tfkit.base import registry
from tfkit.callbacks.callback import Callback

HOOK_NAMES = (
    "on_epoch_begin",
    "on_epoch_end",
    "on_train_begin",
    "on_train_end",
    "on_train_batch_begin",
    "on_train_batch_end",
    "on_batch_begin",
    "on_batch_end",
    "on_test_begin",
    "on_test_end",
    "on_test_batch_begin",
    "on_test_batch_end",
    "on_predict_begin",
    "on_predict_end",
    "on_predict_batch_begin",
    "on_predict_batch_end",
)


@registry.builtin("callbacks")
class LambdaCallback(Callback):
    """Callback for creating simple, custom callbacks on-the-fly.

    This callback is constructed with anonymous functions that will be called at the
    appropriate time: each given function replaces the hook of the same name. The
    callbacks expect positional arguments, as:

    - `on_epoch_begin` and `on_epoch_end` expect two positional arguments: `epoch`,
      `logs`;
    - `on_train_begin` and `on_train_end` (and the other begin/end hooks) expect one
      positional argument: `logs`;
    - `on_train_batch_begin` and `on_train_batch_end` (and the other batch hooks)
      expect two positional arguments: `batch`, `logs`.

    Giving a batch hook makes the trainer call it for every batch.

    Args:
        on_epoch_begin: Called at the beginning of every epoch. Defaults to `None`.
        on_epoch_end: Called at the end of every epoch. Defaults to `None`.
        on_train_begin: Called at the beginning of model training. Defaults to `None`.
        on_train_end: Called at the end of model training. Defaults to `None`.
        on_train_batch_begin: Called at the beginning of every train batch.
            Defaults to `None`.
        on_train_batch_end: Called at the end of every train batch. Defaults to `None`.
        **kwargs: Any function for the other `Callback` hooks, by hook name:
            `on_batch_begin`, `on_batch_end`, `on_test_begin`, `on_test_end`,
            `on_test_batch_begin`, `on_test_batch_end`, `on_predict_begin`,
            `on_predict_end`, `on_predict_batch_begin`, `on_predict_batch_end`.

    Raises:
        ValueError: If a keyword argument is not a hook name, or a given hook is not
            callable.

    Example:
        >>> print_loss = tfkit.callbacks.LambdaCallback(
        ...     on_epoch_end=lambda epoch, logs: print(f"epoch {epoch}: loss {logs['loss']:.2f}"))
        >>> print_loss.on_epoch_end(0, {"loss": 0.25})
        epoch 0: loss 0.25
    """

    def __init__(
        self,
        on_epoch_begin: Callable[..., Any] | None = None,
        on_epoch_end: Callable[..., Any] | None = None,
        on_train_begin: Callable[..., Any] | None = None,
        on_train_end: Callable[..., Any] | None = None,
        on_train_batch_begin: Callable[..., Any] | None = None,
        on_train_batch_end: Callable[..., Any] | None = None,
        **kwargs: Callable[..., Any] | None,
    ) -> None:
        super().__init__()
        unknown = sorted(set(kwargs) - set(HOOK_NAMES))
        if unknown:
            raise ValueError(
                f"LambdaCallback got unknown hook names {unknown}; expected some of {', '.join(HOOK_NAMES)}"
            )
        hooks = dict(
            on_epoch_begin=on_epoch_begin,
            on_epoch_end=on_epoch_end,
            on_train_begin=on_train_begin,
            on_train_end=on_train_end,
            on_train_batch_begin=on_train_batch_begin,
            on_train_batch_end=on_train_batch_end,
            **kwargs,
        )
        for name, function in hooks.items():
            if function is None:
                continue
            if not callable(function):
                raise ValueError(f"LambdaCallback: {name} must be callable, got {type(function).__name__}")
            setattr(self, name, function)
