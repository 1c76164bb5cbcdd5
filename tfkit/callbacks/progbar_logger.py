"""``ProgbarLogger``: the ``Epoch 1/2`` header and progress line ``fit`` prints.

    model.fit(x, y, epochs=2, verbose=1)   # added for you when verbose != 0
    # Epoch 1/2
    # 938/938 ━━━━━━━━━━━━━━━━━━━━ 2s 1ms/step - loss: 0.0942 - val_loss: 0.0815

The trainer feeds the bar at the end of each compiled chunk of steps with
the chunk's last batch index, so the bar costs nothing per step. Inside
``fit`` the validation pass is silent; its ``val_`` metrics show up on the
epoch's final line.
"""

from __future__ import annotations

from typing import Any, TextIO

from tfkit.base import console, registry
from tfkit.callbacks.callback import Callback
from tfkit.callbacks.progbar import Progbar


@registry.builtin("callbacks")
class ProgbarLogger(Callback):
    """Callback that prints metrics to stdout.

    It prints the `Epoch 1/2` header and the progress line `fit` shows, and the
    progress of `evaluate` and `predict`. `fit`, `evaluate` and `predict` add one for
    you when `verbose` is not 0; its verbosity comes from their `verbose` parameter
    (`"auto"` means 1; 2 prints one line per epoch). The trainer feeds the bar at the
    end of each compiled chunk of steps with the chunk's last batch index, so the bar
    costs nothing per step. Inside `fit` the validation pass is silent; its `val_`
    metrics show up on the epoch's final line.

    Args:
        stream: Keyword-only. Where to write: a text stream, or `None` for `sys.stdout`
            (looked up at each write). Defaults to `None`.

    Example:
        >>> logger = tfkit.callbacks.ProgbarLogger()
        >>> logger.set_params({"epochs": 2, "steps": 10, "verbose": 2})
        >>> logger.epochs, logger.target, logger.verbose
        (2, 10, 2)
    """

    def __init__(self, *, stream: TextIO | None = None) -> None:
        super().__init__()
        self.verbose: int = 1
        self.epochs: int = 1
        self.target: int | None = None
        self.seen = 0
        self.progbar: Progbar | None = None
        self._stream = stream
        self._called_in_fit = False

    def set_params(self, params: dict[str, Any]) -> None:
        super().set_params(params)
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else int(verbose)
        self.epochs = int(params.get("epochs") or 1)
        self.target = params.get("steps")

    # -- fit --

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._called_in_fit = True

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self._called_in_fit = False

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._start_bar()
        if self.verbose and self.epochs > 1:
            self._print(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._update(batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._finish(logs)

    # -- evaluate (silent when called from fit) --

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        if not self._called_in_fit:
            self._start_bar()

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if not self._called_in_fit:
            self._update(batch, logs)

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        if not self._called_in_fit:
            self._finish(logs)

    # -- predict (no metrics to show) --

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._start_bar()

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._update(batch, None)

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        self._finish(None)

    # -- helpers --

    def _start_bar(self) -> None:
        self.seen = 0
        self.progbar = None
        if self.verbose:
            self._bar()  # the clock starts now

    def _bar(self) -> Progbar:
        if self.progbar is None:
            # Logs already hold running averages: show every value as given.
            self.progbar = Progbar(
                target=self.target, verbose=self.verbose, stateless_metrics=set(), stream=self._stream
            )
        return self.progbar

    def _update(self, batch: int, logs: dict[str, Any] | None) -> None:
        self.seen = batch + 1
        if self.verbose == 1:
            self._bar().update(self.seen, list((logs or {}).items()), finalize=False)

    def _finish(self, logs: dict[str, Any] | None) -> None:
        if not self.verbose:
            return
        bar = self._bar()
        if bar.target is None:
            bar.target = self.seen
        bar.update(bar.target, list((logs or {}).items()), finalize=True)

    def _print(self, text: str) -> None:
        console.write(text + "\n", self._stream)
