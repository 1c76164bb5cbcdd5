"""``Callback``: the hooks ``fit``, ``evaluate`` and ``predict`` call.

    class PrintLoss(tfkit.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None): print(epoch, logs["loss"])
    model.fit(x, y, callbacks=[PrintLoss()])

The trainer runs several steps per compiled call, so it calls the per-batch
hooks for every batch only when some callback asks for them. A callback asks
by overriding a batch hook (``on_train_batch_end`` ...); a callback that needs
batch hooks only in some configurations overrides
``_implements_train_batch_hooks`` (and its test/predict siblings) instead.

Callbacks written for Keras (``keras.callbacks.Callback`` subclasses, or any
object with ``set_model``, ``set_params`` and ``on_*`` methods) follow the same
protocol: ``follows_callback_protocol`` accepts them and
``implements_batch_hooks`` reads their overrides, knowing Keras's mark for its
base class's do-nothing hooks as well as tfkit's.
"""

from __future__ import annotations

from typing import Any, Callable

from tfkit.base import registry

_DEFAULT_MARK = "_tfkit_default_hook"
# Keras 3 (keras.src.utils.python_utils.default) and tf-keras mark their base Callback's hooks with this attribute.
_KERAS_DEFAULT_MARK = "_is_default"

# The hooks that, when a callback overrides one of them, make the trainer call it for every batch of a mode.
BATCH_HOOKS = {
    "train": ("on_batch_begin", "on_batch_end", "on_train_batch_begin", "on_train_batch_end"),
    "test": ("on_test_batch_begin", "on_test_batch_end"),
    "predict": ("on_predict_batch_begin", "on_predict_batch_end"),
}
# What Keras's CallbackList calls on every callback it holds, hooks aside.
PROTOCOL_METHODS = ("set_model", "set_params")


def default_hook(method: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a base-class hook as "does nothing", so overriding it can be detected."""
    setattr(method, _DEFAULT_MARK, True)
    return method


def is_default_hook(method: Any) -> bool:
    """True when ``method`` is a base-class hook nobody replaced (tfkit's or Keras's base ``Callback``)."""
    return bool(getattr(method, _DEFAULT_MARK, False) or getattr(method, _KERAS_DEFAULT_MARK, False))


def follows_callback_protocol(obj: Any) -> bool:
    """True for a tfkit ``Callback`` and for any object with Keras's callback methods.

    Keras's ``CallbackList`` takes any object by its methods: it calls ``set_model``
    and ``set_params`` on each, then the ``on_*`` hooks. Such an object (a
    ``keras.callbacks.Callback`` subclass from a library, say) is accepted here the same way.

    Args:
        obj: The object a user passed in ``callbacks``.

    Returns:
        Whether ``fit``, ``evaluate`` and ``predict`` can call it as a callback.

    Example:
        >>> from tfkit.callbacks.callback import follows_callback_protocol
        >>> class KerasStyle:                 # no tfkit base class: the methods are what counts
        ...     def set_model(self, model): self.model = model
        ...     def set_params(self, params): self.params = params
        ...     def on_epoch_end(self, epoch, logs=None): pass
        >>> follows_callback_protocol(KerasStyle()), follows_callback_protocol(print)
        (True, False)
    """
    if isinstance(obj, Callback):
        return True
    return all(callable(getattr(obj, name, None)) for name in PROTOCOL_METHODS)


def implements_batch_hooks(callback: Any, mode: str) -> bool:
    """Whether ``callback`` wants its batch hooks of ``mode`` called for every batch.

    A callback that answers itself (tfkit's and tf-keras's ``Callback`` have
    ``_implements_train_batch_hooks`` and its test/predict siblings) is asked;
    any other object wants them when it has a batch hook of ``mode`` that is
    not a base class's do-nothing hook (``keras.callbacks.Callback`` marks
    those, as tfkit's ``Callback`` does), as Keras decides.

    Args:
        callback: A tfkit ``Callback`` or an object with Keras's callback methods.
        mode: `"train"`, `"test"` or `"predict"`.

    Returns:
        `True` when the trainer must call the batch hooks of ``mode`` for every batch.

    Raises:
        ValueError: If ``mode`` is not one of the three.

    Example:
        >>> from tfkit.callbacks.callback import implements_batch_hooks
        >>> class EveryBatch:
        ...     def set_model(self, model): pass
        ...     def set_params(self, params): pass
        ...     def on_train_batch_end(self, batch, logs=None): pass
        >>> implements_batch_hooks(EveryBatch(), "train"), implements_batch_hooks(EveryBatch(), "test")
        (True, False)
    """
    if mode not in BATCH_HOOKS:
        raise ValueError(f"mode must be one of {tuple(BATCH_HOOKS)}; got {mode!r}")
    answer = getattr(callback, f"_implements_{mode}_batch_hooks", None)
    if callable(answer):
        return bool(answer())
    return _overrides_any(callback, BATCH_HOOKS[mode])


def _overrides_any(callback: Any, names: tuple[str, ...]) -> bool:
    for name in names:
        method = getattr(callback, name, None)
        if callable(method) and not is_default_hook(method):
            return True
    return False


@registry.builtin("callbacks")
@registry.base("callbacks")
class Callback:
    """Base class used to build new callbacks.

    Callbacks can be passed to `fit()`, `evaluate()` and `predict()` in order to hook
    into the various stages of the model training, evaluation, and inference
    lifecycle. To create a custom callback, subclass `tfkit.callbacks.Callback` and
    override the method associated with the stage of interest; every hook does
    nothing by default.

    Epoch hooks (`on_epoch_begin`, `on_epoch_end`) take `(epoch, logs)`, batch hooks
    (`on_train_batch_end`, `on_test_batch_begin`, ...) take `(batch, logs)`, and the
    begin/end hooks of a whole call (`on_train_begin`, `on_predict_end`, ...) take
    `(logs)`. At the end of an epoch, `logs` holds the epoch's metrics, validation
    ones prefixed `val_`; at the end of a training batch, the running averages of the
    loss and metrics so far. `on_batch_begin` / `on_batch_end` are the older aliases of
    the training batch hooks.

    The trainer runs several steps per compiled call, so it calls the per-batch hooks
    for every batch only when some callback asks for them: a callback asks by
    overriding a batch hook.

    Attributes:
        model: The model being trained, evaluated or predicted with (set by `set_model`).
        params: A `dict` of the running call's parameters (`"epochs"`, `"steps"`,
            `"verbose"`), set by `set_params`.

    Example:
        >>> class LossLogger(tfkit.callbacks.Callback):
        ...     def on_train_begin(self, logs=None):
        ...         self.losses = []
        ...     def on_epoch_end(self, epoch, logs=None):
        ...         self.losses.append(logs["loss"])
        >>> logger = LossLogger()
        >>> logger.on_train_begin()          # model.fit(..., callbacks=[logger]) calls the hooks
        >>> logger.on_epoch_end(0, {"loss": 0.5})
        >>> logger.losses
        [0.5]
    """

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}
        self._model: Any = None

    @property
    def model(self) -> Any:
        return self._model

    @model.setter
    def model(self, model: Any) -> None:
        self._model = model

    def set_params(self, params: dict[str, Any]) -> None:
        self.params = params

    def set_model(self, model: Any) -> None:
        self._model = model

    # -- batch hooks (``on_batch_*`` are the training aliases, as in Keras) --

    @default_hook
    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Alias of ``on_train_batch_begin``, kept for older callbacks."""

    @default_hook
    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Alias of ``on_train_batch_end``, kept for older callbacks."""

    @default_hook
    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.on_batch_begin(batch, logs=logs)

    @default_hook
    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """``logs`` holds the running averages of the loss and metrics so far."""
        self.on_batch_end(batch, logs=logs)

    @default_hook
    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        pass

    @default_hook
    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        pass

    @default_hook
    def on_predict_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        pass

    @default_hook
    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        pass

    # -- epoch and whole-call hooks --

    @default_hook
    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        pass

    @default_hook
    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """``logs`` holds the epoch's metrics, validation ones prefixed ``val_``."""

    @default_hook
    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        pass

    @default_hook
    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        pass

    @default_hook
    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        pass

    @default_hook
    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        pass

    @default_hook
    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        pass

    @default_hook
    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        pass

    # -- what the trainer asks before choosing how often to call batch hooks --

    def _implements_train_batch_hooks(self) -> bool:
        """True when this callback wants ``on_train_batch_*`` for every batch."""
        return _overrides_any(self, BATCH_HOOKS["train"])

    def _implements_test_batch_hooks(self) -> bool:
        """True when this callback wants ``on_test_batch_*`` for every batch."""
        return _overrides_any(self, BATCH_HOOKS["test"])

    def _implements_predict_batch_hooks(self) -> bool:
        """True when this callback wants ``on_predict_batch_*`` for every batch."""
        return _overrides_any(self, BATCH_HOOKS["predict"])
