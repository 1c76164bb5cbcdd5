"""``CallbackList``: one object the trainer calls, forwarding to every callback.

    callbacks = CallbackList([EarlyStopping()], add_history=True, add_progbar=True,
                             model=model, epochs=10, steps=100, verbose=1)
    callbacks.on_train_begin(); ...; callbacks.on_train_end()

Every hook is forwarded to each callback in order, with the same ``logs``
dict (values turned into Python floats), so a callback that adds a key (the
learning rate) is seen by the ones after it, ``History`` last of all.
Callbacks written for Keras are held as they are and called by their methods,
as Keras's own ``CallbackList`` does: a hook they lack is skipped.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

import numpy as np

from tfkit.callbacks.callback import Callback, follows_callback_protocol, implements_batch_hooks
from tfkit.callbacks.history import History
from tfkit.callbacks.progbar_logger import ProgbarLogger

_MODES = ("train", "test", "predict")
# Keras's base Callback forwards its training batch hooks to these older names; an object without the
# base class that defines only the older name is called through it.
_ALIASES = {"on_train_batch_begin": "on_batch_begin", "on_train_batch_end": "on_batch_end"}


def pythonify_logs(logs: dict[str, Any] | None) -> dict[str, Any]:
    """A new dict whose scalar values (tensors, numpy numbers) are Python floats."""
    result: dict[str, Any] = {}
    for name, value in (logs or {}).items():
        if hasattr(value, "numpy"):
            value = value.numpy()
        if isinstance(value, (np.ndarray, np.generic)) and np.ndim(value) == 0:
            value = value.item()
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            value = float(value)
        result[name] = value
    return result


class CallbackList(Callback):
    """Container abstracting a list of callbacks.

    `fit`, `evaluate` and `predict` wrap the user's callbacks in one `CallbackList` and
    call its hooks; each hook is forwarded to every callback in order, with the same
    `logs` dict (its scalar values turned into Python floats), so a callback that adds
    a key (the learning rate) is seen by the ones after it, `History` last of all. It
    can add the `History` and `ProgbarLogger` callbacks `fit` uses, sets the model and
    the parameters of every callback, and is iterable.

    Callbacks written for Keras work too: like Keras's `CallbackList`, this one takes
    any object with the callback methods (`set_model`, `set_params` and whichever
    `on_*` hooks it defines), such as a `keras.callbacks.Callback` subclass from a
    library; hooks it does not define are skipped, and its batch hooks are called for
    every batch when it overrides one.

    Args:
        callbacks: A list of callbacks: `tfkit.callbacks.Callback` instances or objects
            with Keras's callback methods (nested lists and `CallbackList`s are
            flattened), or `None`. Defaults to `None`.
        add_history: Whether to append a `History` callback unless one is already
            present. Defaults to `False`.
        add_progbar: Whether to append a `ProgbarLogger` callback unless one is present
            or `params["verbose"]` is 0. Defaults to `False`.
        model: The model, given to every callback with `set_model`. Defaults to `None`.
        **params: The call's parameters, given to every callback with `set_params`:
            `epochs`, `steps` and `verbose`.

    Raises:
        ValueError: If an entry of `callbacks` is neither a `Callback` instance nor an
            object with `set_model` and `set_params` methods.

    Example:
        >>> seen = []
        >>> record = tfkit.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(logs))
        >>> callbacks = tfkit.callbacks.CallbackList([record], add_history=True, epochs=1, verbose=0)
        >>> [type(c).__name__ for c in callbacks]
        ['LambdaCallback', 'History']
        >>> callbacks.on_epoch_end(0, {"loss": np.float32(0.5)})
        >>> seen, callbacks.history.history
        ([{'loss': 0.5}], {'loss': [0.5]})
    """

    def __init__(
        self,
        callbacks: Iterable[Any] | None = None,
        add_history: bool = False,
        add_progbar: bool = False,
        model: Any = None,
        **params: Any,
    ) -> None:
        super().__init__()
        self.callbacks: list[Any] = list(_flatten(callbacks))
        for index, callback in enumerate(self.callbacks):
            if not follows_callback_protocol(callback):
                raise ValueError(
                    f"callbacks[{index}] is not a callback: fit, evaluate and predict take tfkit.callbacks.Callback "
                    "instances or objects with Keras's callback methods (set_model, set_params and on_* hooks such "
                    "as on_epoch_end), e.g. keras.callbacks.Callback instances; got "
                    f"{type(callback).__name__}: {callback!r}"
                )
        self._history = next((c for c in self.callbacks if isinstance(c, History)), None)
        self._progbar = next((c for c in self.callbacks if isinstance(c, ProgbarLogger)), None)
        if add_history and self._history is None:
            self._history = History()
            self.callbacks.append(self._history)
        if add_progbar and self._progbar is None and params.get("verbose", "auto") != 0:
            self._progbar = ProgbarLogger()
            self.callbacks.append(self._progbar)
        self.set_model(model)
        if params:
            self.set_params(params)

    # -- container --

    @property
    def history(self) -> History | None:
        """The ``History`` in this list, if any (``fit`` returns it)."""
        return self._history

    @property
    def progbar(self) -> ProgbarLogger | None:
        """The ``ProgbarLogger`` in this list, if any."""
        return self._progbar

    def append(self, callback: Any) -> None:
        if not follows_callback_protocol(callback):
            raise ValueError(
                f"CallbackList.append takes a callback (set_model, set_params and on_* hooks); "
                f"got {type(callback).__name__}: {callback!r}"
            )
        self.callbacks.append(callback)
        if self.model is not None:
            callback.set_model(self.model)
        if self.params:
            callback.set_params(self.params)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.callbacks)

    def __len__(self) -> int:
        return len(self.callbacks)

    def set_model(self, model: Any) -> None:
        if model is None:
            return
        super().set_model(model)
        if self._history is not None:
            model.history = self._history
        for callback in self.callbacks:
            callback.set_model(model)

    def set_params(self, params: dict[str, Any]) -> None:
        super().set_params(params)
        for callback in self.callbacks:
            callback.set_params(params)

    def needs_batch_hooks(self, mode: str) -> bool:
        """Whether any callback but the progress bar wants every batch of ``mode``.

        ``mode`` is "train", "test" or "predict". The progress bar is left out:
        the trainer feeds it once per compiled chunk.
        """
        if mode not in _MODES:
            raise ValueError(f"needs_batch_hooks expects one of {_MODES}; got {mode!r}")
        return any(
            implements_batch_hooks(callback, mode)
            for callback in self.callbacks
            if not isinstance(callback, ProgbarLogger)
        )

    def _implements_train_batch_hooks(self) -> bool:
        return any(implements_batch_hooks(c, "train") for c in self.callbacks)

    def _implements_test_batch_hooks(self) -> bool:
        return any(implements_batch_hooks(c, "test") for c in self.callbacks)

    def _implements_predict_batch_hooks(self) -> bool:
        return any(implements_batch_hooks(c, "predict") for c in self.callbacks)

    # -- dispatch --

    def _call_all(self, hook: str, *args: Any, logs: dict[str, Any] | None) -> None:
        logs = pythonify_logs(logs)
        for callback in self.callbacks:
            method = getattr(callback, hook, None)
            if method is None and hook in _ALIASES:
                method = getattr(callback, _ALIASES[hook], None)
            if method is not None:  # a Keras-style object may define only the hooks it uses
                method(*args, logs)

    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_batch_begin", batch, logs=logs)

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_batch_end", batch, logs=logs)

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_train_batch_begin", batch, logs=logs)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_train_batch_end", batch, logs=logs)

    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_test_batch_begin", batch, logs=logs)

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_test_batch_end", batch, logs=logs)

    def on_predict_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_predict_batch_begin", batch, logs=logs)

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_predict_batch_end", batch, logs=logs)

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_epoch_end", epoch, logs=logs)

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_train_begin", logs=logs)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_train_end", logs=logs)

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_test_begin", logs=logs)

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_test_end", logs=logs)

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_predict_begin", logs=logs)

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        self._call_all("on_predict_end", logs=logs)


def _flatten(callbacks: Any) -> Iterator[Any]:
    if callbacks is None:
        return
    if isinstance(callbacks, CallbackList):
        yield from callbacks.callbacks
    elif isinstance(callbacks, (list, tuple)):
        for item in callbacks:
            yield from _flatten(item)
    else:
        yield callbacks
