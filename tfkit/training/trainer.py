"""``Trainer``: ``fit``, ``evaluate`` and ``predict`` as methods of the model itself.

    model.compile(optimizer="adam", loss="mse")                # StepMethods.compile
    history = model.fit(x, y, epochs=2, batch_size=64)         # Trainer.fit, read top to bottom below
    model.evaluate(x, y), model.predict(x)

``Model`` inherits ``Trainer`` (as Keras 3's ``Model`` does): the model owns its
loops and what ``compile`` made (``self._compiled``), so nothing calls back and
forth. Each method checks its arguments, converts the data once (``data.adapt``,
which checks it), builds what the first compiled call needs, then runs epochs of
compiled chunks (``epochs.py``), turning TensorFlow's errors into the user's terms.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator

import tensorflow as tf

from tfkit import callbacks as callbacks_module
from tfkit.base import console
from tfkit.callbacks.terminate_on_nan import nan_stop_report
from tfkit.engine.layer import Layer
from tfkit.training import data as data_module
from tfkit.training import distributed_loops
from tfkit.training import epochs as epochs_module
from tfkit.training.chunk_planner import to_floats
from tfkit.training.compile_and_steps import StepMethods
from tfkit.training.compiled_state import CompiledState
from tfkit.training.data_checks import DataCheck, input_dtypes
from tfkit.training.debug_caps import capped
from tfkit.training.finite_inputs import FiniteCheck
from tfkit.training.fit_arguments import check_loop_arguments, explain_step_error
from tfkit.training.fit_request import FitRequest
from tfkit.utils.py_dataset import is_py_dataset


class Trainer(StepMethods):
    """The loops of a model: ``fit``, ``evaluate``, ``predict`` and their one-batch forms."""

    _stop_training = False
    _history: Any = None
    # The epoch the next fit starts at when a callback resumed training (Keras 3's attribute):
    # BackupAndRestore sets it in on_train_begin; fit reads it once and clears it.
    _initial_epoch: int | None = None

    @property
    def stop_training(self) -> bool:
        """Whether `fit` stops after the current epoch; a callback sets it to `True` to end training."""
        return self._stop_training

    @stop_training.setter
    def stop_training(self, value: bool) -> None:
        self._stop_training = bool(value)

    @property
    def history(self) -> Any:
        """The `History` callback of the last `fit` (what `fit` returned), or `None` before any."""
        return self._history

    @history.setter
    def history(self, value: Any) -> None:
        self._history = value

    @property
    def distribute_strategy(self) -> tf.distribute.Strategy:
        """The ``tf.distribute`` strategy the model was compiled (or its variables created) under."""
        if self._compiled is not None and self._compiled.strategy is not None:
            return self._compiled.strategy
        for weight in self.weights:
            strategy = (
                getattr(weight, "distribute_strategy", None)
                if isinstance(weight, tf.distribute.DistributedValues)
                else None
            )
            if strategy is not None:
                return strategy
        return tf.distribute.get_strategy()

    # ------------------------------------------------------------------ fit

    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: Any = "auto",
        callbacks: Any = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: bool = True,
        class_weight: Any = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        validation_batch_size: int | None = None,
        validation_freq: int = 1,
        *,
        check_finite: bool = True,
    ) -> Any:
        """Trains the model for a fixed number of epochs (dataset iterations).

        `fit` runs compiled steps of `train_step` over the data, in chunks of
        several steps per compiled call (see `steps_per_execution` in
        `compile`), calling the callbacks and printing progress. The model
        must be compiled first. In-memory data (arrays, tensors) is batched and
        shuffled inside the graph, from a seed the model stores, so a run
        resumed from a saved model or a `BackupAndRestore` checkpoint shuffles
        as the uninterrupted one would. `tfkit.config.set_max_epochs` and
        `tfkit.config.set_max_steps_per_epoch` cap `epochs` and the steps, with
        a warning (for quick test runs).

        Args:
            x: Input data. It can be: a NumPy array or tensor (or a list of
                them, for a model with several inputs); a dict mapping input
                names to arrays or tensors; a `tf.data.Dataset` yielding
                `(inputs, targets)` or `(inputs, targets, sample_weights)`
                batches; a `tfkit.utils.PyDataset`, a Python generator or
                iterator yielding such batches; or a
                `tfkit.utils.experimental.DatasetCreator` (then
                `steps_per_epoch` is required).
            y: Target data, like `x` (arrays, tensors, or a list or dict of
                them for several outputs). Must have as many samples as `x`.
                Leave it `None` when `x` is a dataset, generator or
                `PyDataset` (which yield their targets). Defaults to `None`.
            batch_size: Integer or `None`, the number of samples per gradient
                update, for in-memory data only (datasets, generators and
                `PyDataset` objects are already batched). Defaults to `None`: 32, or
                `ceil(num_samples / steps_per_epoch)` when `steps_per_epoch`
                is set.
            epochs: Integer, the index of the epoch to stop at: the model
                trains for `epochs - initial_epoch` epochs. Defaults to `1`.
            verbose: `"auto"`, 0, 1 or 2: 0 is silent, 1 shows a progress bar,
                2 prints one line per epoch. `"auto"` is 1 (2 under a
                `ParameterServerStrategy`, where 1 is refused). Defaults to
                `"auto"`.
            callbacks: List of `tfkit.callbacks.Callback` instances to call
                during training. A `History` callback (returned) and, unless
                `verbose=0`, a `ProgbarLogger` are added. Defaults to `None`.
            validation_split: Float between 0 and 1: the fraction of the
                training data held out for validation, taken from the *last*
                samples of `x` and `y` before any shuffling, and evaluated
                at the end of each epoch. Only for in-memory data; ignored
                when `validation_data` is given. Defaults to `0.0`.
            validation_data: Data to evaluate the loss and metrics on at the
                end of each epoch (never trained on): a tuple `(x_val, y_val)`
                or `(x_val, y_val, val_sample_weights)` of arrays or tensors,
                a `tf.data.Dataset`, a `PyDataset` or a generator. Its results
                are logged with a `val_` prefix. Defaults to `None`.
            shuffle: Whether to shuffle in-memory training data before each
                epoch; for a `PyDataset`, whether to read its batches in a new
                order each epoch (as Keras does). Ignored for datasets and
                generators. Defaults to `True`.
            class_weight: Optional dict mapping class indices (integers) to a
                weight (float) that scales the loss of that class's samples,
                to pay more attention to under-represented classes. Only for
                single-output models with targets. Defaults to `None`.
            sample_weight: Optional array of per-sample weights for the loss,
                of shape `(samples,)` (or `(samples, timesteps)` for temporal
                data). Not supported when `x` is a dataset, generator or
                `PyDataset` (they yield their weights as a third element).
                Defaults to `None`.
            initial_epoch: Integer, the epoch at which to start training (to
                resume a previous run). A `BackupAndRestore` callback
                overrides it when it restores a run. Defaults to `0`.
            steps_per_epoch: Integer or `None`, the number of batches that
                make up one epoch. `None` means one pass over the data (for a
                dataset, until it is exhausted). With an infinitely repeating
                dataset it must be set. Defaults to `None`.
            validation_steps: Integer or `None`, how many batches of the
                validation data to evaluate at the end of each epoch. `None`
                runs until the validation data is exhausted. Defaults to
                `None`.
            validation_batch_size: Integer or `None`, the batch size of
                in-memory validation data. Defaults to `None` (`batch_size`).
            validation_freq: Positive integer, run validation every
                `validation_freq` epochs (after epoch `validation_freq`,
                `2 * validation_freq`, ...). Defaults to `1`.
            check_finite: Keyword-only, a tfkit extension (Keras has no such
                argument). Whether to look for NaN and infinity in the
                floating-point data before training: all of `x`, `y`,
                `sample_weight` and `validation_data` when they are arrays or
                tensors; the first batch of a dataset, generator or
                `PyDataset`. Such values raise a `ValueError` naming the
                array, their count and the first one's index. The check
                costs one sum per array (about 12 ms for MNIST's 60,000
                images). Defaults to `True`.

        Returns:
            The `History` callback: its `history` attribute is a dict
            mapping each metric name (`"loss"`, `"val_loss"`, ...) to its
            list of per-epoch values.

        Raises:
            RuntimeError: If the model was not compiled.
            ValueError: For invalid arguments (a non-positive `batch_size`,
                `epochs` or step count, a `validation_split` outside (0, 1) or
                on a dataset, `y` given with a dataset), data that does not
                match the model, data that yields no batches, or NaN or
                infinity in the data (unless `check_finite=False`).

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
            >>> model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
            >>> x, y = np.ones((8, 3)), np.zeros((8, 1))
            >>> history = model.fit(x, y, batch_size=4, epochs=2, verbose=0)
            >>> sorted(history.history)
            ['loss', 'mae']
            >>> len(history.history["loss"])
            2
            >>> x[1, 2] = np.nan
            >>> model.fit(x, y, verbose=0)
            Traceback (most recent call last):
            ...
            ValueError: fit: x holds 1 NaN and 0 Inf among its 24 values, the first at x[1, 2] = nan. ...
            >>> history = model.fit(x, y, verbose=0, check_finite=False)  # trains on the NaN
            >>> history.history["loss"]
            [nan]
        """
        request = FitRequest.checked(
            x=x,
            y=y,
            batch_size=batch_size,
            epochs=epochs,
            verbose=verbose,
            callbacks=callbacks,
            validation_split=validation_split,
            validation_data=validation_data,
            shuffle=shuffle,
            class_weight=class_weight,
            sample_weight=sample_weight,
            initial_epoch=initial_epoch,
            steps_per_epoch=steps_per_epoch,
            validation_steps=validation_steps,
            validation_batch_size=validation_batch_size,
            validation_freq=validation_freq,
            check_finite=check_finite,
        )
        return self._fit(request)

    def _fit(self, request: FitRequest) -> Any:
        """``fit``'s flow: the data once, then each epoch's compiled chunks, validation and callbacks."""
        epochs, steps_per_epoch = request.epochs, request.steps_per_epoch
        state = self._state()
        check = DataCheck("fit", input_dtypes(self))
        finite = FiniteCheck("fit") if request.check_finite else None
        with _reported("fit", self) as sources:
            coordinated = state.parameter_server()
            if coordinated:
                data, val_data = distributed_loops.fit_data_on_workers(state.strategy, request, check=check)
            else:
                data, val_data = _fit_data(request, check, finite)
            sources += [data, val_data]
            self._build_for(state, data)
            verbose = request.verbose
            verbose = distributed_loops.verbosity(verbose) if coordinated else 1 if verbose == "auto" else int(verbose)
            cbs = callbacks_module.CallbackList(
                request.callbacks,
                add_history=True,
                add_progbar=verbose != 0,
                model=self,
                verbose=verbose,
                epochs=epochs,
                steps=steps_per_epoch or data.steps_per_epoch,
            )
            self.stop_training = False
            cbs.on_train_begin()
            initial_epoch = request.initial_epoch
            if self._initial_epoch is not None:  # a callback (BackupAndRestore) resumed training
                initial_epoch, self._initial_epoch = int(self._initial_epoch), None
            iterator = None
            if isinstance(data, data_module.DatasetData) and steps_per_epoch:
                iterator = epochs_module.make_iterator(state, data, self)
            elif coordinated:
                iterator = data.iterator()  # one per fit: each worker's data goes on from epoch to epoch
            steps_per_run = steps_per_epoch or data.steps_per_epoch
            chooser = state.choose_xla(steps_per_run * (epochs - initial_epoch) if steps_per_run else None, self)
            logs: dict[str, float] = {}
            for epoch in range(initial_epoch, epochs):
                self.reset_metrics()
                cbs.on_epoch_begin(epoch)
                logs, steps = epochs_module.run_epoch(
                    self, state, "train", data, cbs, steps_per_epoch, iterator, verbose
                )
                if epoch == initial_epoch and not steps:
                    raise ValueError(
                        "fit: x produced no batches (an empty tf.data.Dataset, generator or "
                        "PyDataset?); nothing was trained"
                    )
                if chooser is not None and chooser.decision is not None:
                    if verbose == 2:
                        console.write(f"{chooser.decision}\n")
                    chooser = None
                if val_data is not None and (epoch + 1) % request.validation_freq == 0:
                    val_logs = self._evaluate_data(state, val_data, cbs, request.validation_steps)
                    logs.update({f"val_{k}": v for k, v in val_logs.items()})
                cbs.on_epoch_end(epoch, logs)
                if self.stop_training:
                    break
            if state.optimizer is not None and hasattr(state.optimizer, "finalize_variable_values"):
                state.optimizer.finalize_variable_values(self.trainable_weights)
            cbs.on_train_end(logs)
        report = nan_stop_report(cbs.callbacks, self)
        if report is not None:
            warnings.warn(report, RuntimeWarning, stacklevel=2)
        return self.history

    def _build_for(self, state: CompiledState, data: Any, for_predict: bool = False) -> None:
        """Create every variable the first compiled call needs (model, metrics, optimizer)."""
        state.recheck_loops()
        if for_predict and self.built and self.weights:
            return  # predict needs no metric or optimizer state: nothing to trace
        metrics_need_outputs = state.compile_metrics is not None and not state.compile_metrics.built
        if state.strategy is None and not metrics_need_outputs:
            # Nothing needs the outputs' specs: the model builds itself in the first compiled step (its
            # variables under tf.init_scope) and the optimizer at its first apply. A separate symbolic
            # trace of the forward pass would cost as much as a third of the first epoch.
            return
        if type(self).call is Layer.call:
            # keras-io's VAE pattern: no call(), a train_step that calls sublayers. Their weights
            # appear in the first compiled step, and the optimizer builds itself at its first apply.
            return
        x_spec, y_spec, _ = data_module.unpack_x_y_sample_weight(data.element_spec())
        with state.scope():
            y_pred = self.symbolic_call(x_spec)
            if metrics_need_outputs:
                state.compile_metrics.build(y_spec, y_pred, state.compile_loss)
            if state.optimizer is not None and not getattr(state.optimizer, "built", True) and self.trainable_weights:
                state.optimizer.build(self.trainable_weights)

    # ------------------------------------------------------------- evaluate

    def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        verbose: Any = "auto",
        sample_weight: Any = None,
        steps: int | None = None,
        callbacks: Any = None,
        return_dict: bool = False,
        *,
        check_finite: bool = True,
    ) -> Any:
        """Returns the loss value and metrics values of the model in test mode.

        Runs `test_step` over the data in batches (compiled, several steps
        per call as in `fit`), without updating weights. The model must be
        compiled. Metrics are reset before the run.

        Args:
            x: Input data: arrays or tensors (or lists or dicts of them), a
                `tf.data.Dataset`, a `PyDataset` or a generator, as in `fit`.
            y: Target data, like `x`. Leave it `None` when `x` is a dataset,
                generator or `PyDataset`. Defaults to `None`.
            batch_size: Integer or `None`, the number of samples per batch,
                for in-memory data only. Defaults to `None`: 32, or
                `ceil(num_samples / steps)` when `steps` is set.
            verbose: `"auto"`, 0 or 1 (2 under a `ParameterServerStrategy`):
                0 is silent, 1 shows a progress bar. `"auto"` is 1. Defaults
                to `"auto"`.
            sample_weight: Optional array of per-sample weights for the loss
                and weighted metrics, for in-memory data only. Defaults to
                `None`.
            steps: Integer or `None`, the number of batches to evaluate.
                `None` runs until the data is exhausted. Defaults to `None`.
            callbacks: List of `tfkit.callbacks.Callback` instances called
                during evaluation. Defaults to `None`.
            return_dict: If `True`, return a dict of `{name: value}` instead
                of a list. Defaults to `False`.
            check_finite: Keyword-only, a tfkit extension. Whether to look for
                NaN and infinity in the floating-point data first (arrays
                whole, datasets on their first batch), as `fit` does: such
                values raise a `ValueError`. Defaults to `True`.

        Returns:
            A scalar (the loss, when there is no metric), a list of scalars
            (the loss first, then the metrics, in `model.metrics_names`
            order), or a dict with `return_dict=True`.

        Raises:
            RuntimeError: If the model was not compiled.
            ValueError: For invalid arguments, data that does not match the
                model, or NaN or infinity in the data (unless
                `check_finite=False`).

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1, kernel_initializer="ones")])
            >>> model.compile(loss="mse", metrics=["mae"])
            >>> model.evaluate(np.ones((4, 3)), np.zeros((4, 1)), verbose=0)
            [9.0, 3.0]
            >>> model.evaluate(np.ones((4, 3)), np.zeros((4, 1)), verbose=0, return_dict=True)
            {'loss': 9.0, 'mae': 3.0}
        """
        check_loop_arguments("evaluate", batch_size=batch_size, steps=steps)
        steps = capped("evaluate", None, {"steps": steps})[1]["steps"]
        state = self._state()
        check = DataCheck("evaluate", input_dtypes(self))
        with _reported("evaluate", self) as sources:
            if state.parameter_server():
                data = distributed_loops.per_worker_data(
                    "evaluate",
                    state.strategy,
                    x,
                    y,
                    sample_weight,
                    batch_size,
                    False,
                    None,
                    steps,
                    "steps",
                    check=check,
                )
                verbose = distributed_loops.verbosity(verbose)
            else:
                data = data_module.adapt(
                    x,
                    y,
                    sample_weight,
                    batch_size,
                    False,
                    None,
                    steps,
                    check=check,
                    finite=FiniteCheck("evaluate") if check_finite else None,
                )
                verbose = 1 if verbose == "auto" else int(verbose)
            sources.append(data)
            cbs = callbacks_module.CallbackList(
                callbacks,
                add_progbar=verbose != 0,
                model=self,
                verbose=verbose,
                epochs=1,
                steps=steps or data.steps_per_epoch,
            )
            logs = self._evaluate_data(state, data, cbs, steps)
        return _format_logs(logs, return_dict)

    def _evaluate_data(self, state: CompiledState, data: Any, cbs: Any, steps: int | None) -> dict:
        self._build_for(state, data)
        self.reset_metrics()
        cbs.on_test_begin()
        logs = epochs_module.run_epoch(self, state, "test", data, cbs, steps, None, verbose=1).logs
        cbs.on_test_end(logs)
        return logs

    # -------------------------------------------------------------- predict

    def predict(
        self,
        x: Any,
        batch_size: int | None = None,
        verbose: Any = "auto",
        steps: int | None = None,
        callbacks: Any = None,
        *,
        check_finite: bool = True,
    ) -> Any:
        """Generates output predictions for the input samples.

        Runs `predict_step` (the model called with `training=False`) over the
        data in batches, compiled, and concatenates the batches' outputs.
        The model need not be compiled. For a few samples that fit in one
        batch, calling the model directly (`model(x)`) is faster; use
        `predict` for large data or datasets.

        Args:
            x: Input data: arrays or tensors (or lists or dicts of them), a
                `tf.data.Dataset`, a `PyDataset` or a generator, as in `fit`
                (targets they yield are ignored).
            batch_size: Integer or `None`, the number of samples per batch,
                for in-memory data only. Defaults to `None`: 32, or
                `ceil(num_samples / steps)` when `steps` is set.
            verbose: `"auto"`, 0 or 1: 0 is silent, 1 shows a progress bar.
                `"auto"` is 1. Defaults to `"auto"`.
            steps: Integer or `None`, the number of batches to predict.
                `None` runs until the data is exhausted. Defaults to `None`.
            callbacks: List of `tfkit.callbacks.Callback` instances called
                during prediction. Defaults to `None`.
            check_finite: Keyword-only, a tfkit extension. Whether to look for
                NaN and infinity in the floating-point inputs first (arrays
                whole, datasets on their first batch): such values make a
                `RuntimeWarning` naming the array, their count and the first
                one's index, and prediction goes on. Defaults to `True`.

        Returns:
            NumPy array(s) of predictions, in the structure of the model's
            outputs.

        Raises:
            ValueError: For invalid arguments or data that does not match
                the model.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2, kernel_initializer="ones")])
            >>> model.predict(np.ones((5, 3)), batch_size=2, verbose=0)
            array([[3., 3.],
                   [3., 3.],
                   [3., 3.],
                   [3., 3.],
                   [3., 3.]], dtype=float32)
        """
        check_loop_arguments("predict", batch_size=batch_size, steps=steps)
        steps = capped("predict", None, {"steps": steps})[1]["steps"]
        if self._compiled is None:  # predict needs no compile: its loops live in an implicit state
            self._compiled = CompiledState(optimizer=None, output_names=self.output_names_for_compile(), implicit=True)
        state = self._compiled
        with _reported("predict", self) as sources:
            data = data_module.adapt(
                x,
                None,
                None,
                batch_size,
                False,
                None,
                steps,
                check=DataCheck("predict", input_dtypes(self)),
                finite=FiniteCheck("predict") if check_finite else None,
            )
            sources.append(data)
            self._build_for(state, data, for_predict=True)
            verbose = 1 if verbose == "auto" else int(verbose)
            cbs = callbacks_module.CallbackList(
                callbacks,
                add_progbar=verbose != 0,
                model=self,
                verbose=verbose,
                epochs=1,
                steps=steps or data.steps_per_epoch,
            )
            cbs.on_predict_begin()
            outputs = epochs_module.run_prediction(self, state, data, cbs, steps, verbose)
            cbs.on_predict_end()
        return outputs

    # -------------------------------------------------------- single batches

    def train_on_batch(
        self, x: Any, y: Any = None, sample_weight: Any = None, class_weight: Any = None, return_dict: bool = False
    ) -> Any:
        """Runs a single gradient update on a single batch of data.

        The whole of `x` is one batch. Metrics are reset first, as Keras 3
        resets them, so the result covers this batch only (the loss of this
        batch before the update, not a running mean of earlier calls).

        Args:
            x: Input data: an array or tensor, or a list or dict of them.
            y: Target data, like `x`. Defaults to `None`.
            sample_weight: Optional array of per-sample weights, of the same
                length as `x`. Defaults to `None`.
            class_weight: Optional dict mapping class indices to a weight
                for the loss of that class's samples. Defaults to `None`.
            return_dict: If `True`, return a dict of `{name: value}` instead
                of a list. Defaults to `False`.

        Returns:
            The loss (a scalar) or a list of the loss and metrics, or a
            dict with `return_dict=True`, computed before the update.

        Raises:
            RuntimeError: If the model was not compiled.
            ValueError: Under a `ParameterServerStrategy`, or for data that
                does not match the model.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1, kernel_initializer="ones")])
            >>> model.compile(optimizer="sgd", loss="mse")
            >>> model.train_on_batch(np.ones((4, 3)), np.zeros((4, 1)))
            9.0
        """
        self._state()
        self.reset_metrics()
        return _format_logs(self._run_on_batch("train", x, y, sample_weight, class_weight), return_dict)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False) -> Any:
        """Test the model on a single batch of samples.

        Metrics are reset first, so the result covers this batch only.

        Args:
            x: Input data: an array or tensor, or a list or dict of them.
            y: Target data, like `x`. Defaults to `None`.
            sample_weight: Optional array of per-sample weights, of the same
                length as `x`. Defaults to `None`.
            return_dict: If `True`, return a dict of `{name: value}` instead
                of a list. Defaults to `False`.

        Returns:
            The loss (a scalar) or a list of the loss and metrics, or a
            dict with `return_dict=True`.

        Raises:
            RuntimeError: If the model was not compiled.
            ValueError: Under a `ParameterServerStrategy`, or for data that
                does not match the model.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1, kernel_initializer="ones")])
            >>> model.compile(loss="mse", metrics=["mae"])
            >>> model.test_on_batch(np.ones((4, 3)), np.zeros((4, 1)), return_dict=True)
            {'loss': 9.0, 'mae': 3.0}
        """
        self._state()
        self.reset_metrics()
        return _format_logs(self._run_on_batch("test", x, y, sample_weight), return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        """Returns predictions for a single batch of samples.

        Calls the model eagerly on `x` with `training=False`; the model
        need not be compiled.

        Args:
            x: Input data: an array or tensor, or a list or dict of them.

        Returns:
            NumPy array(s) of predictions, in the structure of the model's
            outputs.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2, kernel_initializer="ones")])
            >>> model.predict_on_batch(np.ones((2, 3)))
            array([[3., 3.],
                   [3., 3.]], dtype=float32)
        """
        return tf.nest.map_structure(lambda t: t.numpy(), self(x, training=False))

    def _run_on_batch(self, mode: str, x: Any, y: Any, sample_weight: Any, class_weight: Any = None) -> dict:
        state = self._state()
        if state.parameter_server():
            raise ValueError(
                f"{mode}_on_batch is not supported under ParameterServerStrategy: steps run on the "
                f"workers. Use fit(..., steps_per_epoch=1) or evaluate(..., steps=1) instead."
            )
        data = data_module.adapt(x, y, sample_weight, None, False, class_weight)
        data.batch_size = max(1, data.num_samples)
        data.steps_per_epoch = 1
        self._build_for(state, data)
        if state.run_eagerly:
            step_fn = self.train_step if mode == "train" else self.test_step
            return to_floats(step_fn(data.tensors))
        template, unique = data.layout()
        fn = state.loops(self).array_loop(mode, data.batch_size, data.element_spec(), template)
        raw, _ = epochs_module.timed(
            self, state, lambda: fn(unique, tf.range(data.num_samples), tf.constant(0), tf.constant(1))
        )
        return to_floats(raw)


@contextlib.contextmanager
def _reported(method: str, model: Any) -> Iterator[list]:
    """TensorFlow's errors from ``method``'s steps in the user's terms; yields a list to add the data sources to.

    A Python-made batch that did not match the first raises its own ``ValueError`` (``tf.data`` reports
    it as an ``InvalidArgumentError``); other failed steps are explained by ``explain_step_error``.
    """
    sources: list = []
    try:
        try:
            yield sources
        except tf.errors.OpError:
            data_module.raise_batch_failure(method, *sources)
            raise
    except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as error:
        raise explain_step_error(method, error, model) from error


def _fit_data(request: FitRequest, check: DataCheck, finite: FiniteCheck | None) -> tuple[Any, Any]:
    """``fit``'s training data and its validation data (or ``None``), adapted and checked once."""
    data = data_module.adapt(
        request.x,
        request.y,
        request.sample_weight,
        batch_size=request.batch_size,
        shuffle=request.shuffle,
        class_weight=request.class_weight,
        steps_per_epoch=request.steps_per_epoch,
        check=check,
        finite=finite,
    )
    if request.validation_split and request.validation_data is None:
        if not isinstance(data, data_module.ArrayData):
            raise ValueError(
                f"fit: validation_split is only supported for in-memory data (NumPy arrays or tensors), "
                f"got x of type {type(request.x).__name__}: pass validation_data instead"
            )
        return data_module.split_validation(
            data, request.validation_split, request.batch_size, request.steps_per_epoch, request.validation_steps
        )
    if request.validation_data is None:
        return data, None
    val_batch_size = request.validation_batch_size or request.batch_size
    return data, _adapt_validation(request.validation_data, val_batch_size, request.validation_steps, finite)


def _adapt_validation(
    validation_data: Any, batch_size: int | None, steps: int | None, finite: FiniteCheck | None
) -> Any:
    if (
        isinstance(validation_data, tf.data.Dataset)
        or is_py_dataset(validation_data)
        or data_module._is_dataset_creator(validation_data)
        or data_module._is_generator(validation_data)
    ):  # as Keras: a PyDataset or generator of batches too
        return data_module.adapt(validation_data, steps_per_epoch=steps, argument="validation_data", finite=finite)
    if not isinstance(validation_data, (tuple, list)) or len(validation_data) not in (2, 3):
        raise ValueError(
            "validation_data must be a tuple (x_val, y_val) or (x_val, y_val, val_sample_weight), "
            f"a tf.data.Dataset, a PyDataset or a generator; got {type(validation_data).__name__}"
        )
    return data_module.adapt(
        *validation_data,
        batch_size=batch_size,
        shuffle=False,
        steps_per_epoch=steps,
        argument="validation_data",
        finite=finite,
    )


def _format_logs(logs: dict, return_dict: bool) -> Any:
    if return_dict:
        return logs
    values = list(logs.values())
    return values[0] if len(values) == 1 else values
