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
    """Each given function replaces the hook of the same name.

    Epoch hooks take ``(epoch, logs)``, batch hooks ``(batch, logs)`` and
    begin/end hooks ``(logs)``. Giving a batch hook makes the trainer call it
    for every batch.
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
            raise ValueError(f"LambdaCallback got unknown hook names {unknown}; expected some of {', '.join(HOOK_NAMES)}")
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
