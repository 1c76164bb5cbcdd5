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
from tfkit.training import distribute as distribute_module
from tfkit.training import epochs as epochs_module
from tfkit.training.chunk_planner import to_floats
from tfkit.training.compiled_state import CompiledState
from tfkit.training.data_checks import DataCheck, input_dtypes
from tfkit.training.debug_caps import capped
from tfkit.training.fit_arguments import check_loop_arguments, explain_step_error
from tfkit.training.step_methods import StepMethods
from tfkit.utils.py_dataset import PyDataset


class Trainer(StepMethods):
    """The loops of a model: ``fit``, ``evaluate``, ``predict`` and their one-batch forms."""

    _stop_training = False
    _history: Any = None
    # The epoch the next fit starts at when a callback resumed training (Keras 3's attribute):
    # BackupAndRestore sets it in on_train_begin; fit reads it once and clears it.
    _initial_epoch: int | None = None

    @property
    def stop_training(self) -> bool:
        return self._stop_training

    @stop_training.setter
    def stop_training(self, value: bool) -> None:
        self._stop_training = bool(value)

    @property
    def history(self) -> Any:
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
            strategy = getattr(weight, "distribute_strategy", None) if isinstance(
                weight, tf.distribute.DistributedValues) else None
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
    ) -> Any:
        """Train for ``epochs`` epochs; returns the ``History`` callback."""
        check_loop_arguments("fit", batch_size=batch_size, epochs=epochs, validation_split=validation_split,
                             initial_epoch=initial_epoch, steps_per_epoch=steps_per_epoch,
                             validation_steps=validation_steps, validation_batch_size=validation_batch_size,
                             validation_freq=validation_freq)
        epochs, caps = capped("fit", epochs, {"steps_per_epoch": steps_per_epoch, "validation_steps": validation_steps,
                                              "validation_data": validation_data, "validation_split": validation_split})
        steps_per_epoch, validation_steps = caps["steps_per_epoch"], caps["validation_steps"]
        state = self._state()
        check = DataCheck("fit", input_dtypes(self))
        with _reported("fit", self) as sources:
            coordinated = state.parameter_server()
            if coordinated:
                data, val_data = distribute_module.fit_data_on_workers(
                    state.strategy, x, y, sample_weight, batch_size, shuffle, class_weight, steps_per_epoch,
                    validation_split, validation_data, validation_batch_size, validation_steps, check=check)
            else:
                data, val_data = _fit_data(x, y, sample_weight, batch_size, shuffle, class_weight, steps_per_epoch,
                                           validation_split, validation_data, validation_batch_size,
                                           validation_steps, check)
            sources += [data, val_data]
            self._build_for(state, data)
            verbose = distribute_module.verbosity(verbose) if coordinated else 1 if verbose == "auto" \
                else int(verbose)
            cbs = callbacks_module.CallbackList(
                callbacks, add_history=True, add_progbar=verbose != 0, model=self,
                verbose=verbose, epochs=epochs, steps=steps_per_epoch or data.steps_per_epoch,
            )
            self.stop_training = False
            cbs.on_train_begin()
            if self._initial_epoch is not None:     # a callback (BackupAndRestore) resumed training
                initial_epoch, self._initial_epoch = int(self._initial_epoch), None
            iterator = None
            if isinstance(data, data_module.DatasetData) and steps_per_epoch:
                iterator = epochs_module.make_iterator(state, data)
            elif coordinated:
                iterator = data.iterator()  # one per fit: each worker's data goes on from epoch to epoch
            steps_per_run = steps_per_epoch or data.steps_per_epoch
            chooser = state.choose_xla(steps_per_run * (epochs - initial_epoch) if steps_per_run else None, self)
            logs: dict[str, float] = {}
            for epoch in range(initial_epoch, epochs):
                self.reset_metrics()
                cbs.on_epoch_begin(epoch)
                logs, steps = epochs_module.run_epoch(self, state, "train", data, cbs, steps_per_epoch, iterator,
                                                      verbose)
                if epoch == initial_epoch and not steps:
                    raise ValueError("fit: x produced no batches (an empty tf.data.Dataset, generator or "
                                     "PyDataset?); nothing was trained")
                if chooser is not None and chooser.decision is not None:
                    if verbose == 2:
                        console.write(f"{chooser.decision}\n")
                    chooser = None
                if val_data is not None and (epoch + 1) % validation_freq == 0:
                    val_logs = self._evaluate_data(state, val_data, cbs, validation_steps)
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
            return                      # predict needs no metric or optimizer state: nothing to trace
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
            if state.optimizer is not None and not getattr(state.optimizer, "built", True) \
                    and self.trainable_weights:
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
    ) -> Any:
        """Loss (and metrics) on the data: a scalar, a list, or a dict with ``return_dict=True``."""
        check_loop_arguments("evaluate", batch_size=batch_size, steps=steps)
        steps = capped("evaluate", None, {"steps": steps})[1]["steps"]
        state = self._state()
        check = DataCheck("evaluate", input_dtypes(self))
        with _reported("evaluate", self) as sources:
            if state.parameter_server():
                data = distribute_module.per_worker_data("evaluate", state.strategy, x, y, sample_weight, batch_size,
                                                         False, None, steps, "steps", check=check)
                verbose = distribute_module.verbosity(verbose)
            else:
                data = data_module.adapt(x, y, sample_weight, batch_size, False, None, steps, check=check)
                verbose = 1 if verbose == "auto" else int(verbose)
            sources.append(data)
            cbs = callbacks_module.CallbackList(
                callbacks, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=1,
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
    ) -> Any:
        """Outputs as numpy arrays, computed in batches."""
        check_loop_arguments("predict", batch_size=batch_size, steps=steps)
        steps = capped("predict", None, {"steps": steps})[1]["steps"]
        if self._compiled is None:    # predict needs no compile: its loops live in an implicit state
            self._compiled = CompiledState(optimizer=None, output_names=self.output_names_for_compile(),
                                           implicit=True)
        state = self._compiled
        with _reported("predict", self) as sources:
            data = data_module.adapt(x, None, None, batch_size, False, None, steps,
                                     check=DataCheck("predict", input_dtypes(self)))
            sources.append(data)
            self._build_for(state, data, for_predict=True)
            verbose = 1 if verbose == "auto" else int(verbose)
            cbs = callbacks_module.CallbackList(
                callbacks, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=1,
                steps=steps or data.steps_per_epoch,
            )
            cbs.on_predict_begin()
            outputs = epochs_module.run_prediction(self, state, data, cbs, steps, verbose)
            cbs.on_predict_end()
        return outputs

    # -------------------------------------------------------- single batches

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, class_weight: Any = None,
                       return_dict: bool = False) -> Any:
        return _format_logs(self._run_on_batch("train", x, y, sample_weight, class_weight), return_dict)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False) -> Any:
        self._state()
        self.reset_metrics()
        return _format_logs(self._run_on_batch("test", x, y, sample_weight), return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        return tf.nest.map_structure(lambda t: t.numpy(), self(x, training=False))

    def _run_on_batch(self, mode: str, x: Any, y: Any, sample_weight: Any, class_weight: Any = None) -> dict:
        state = self._state()
        if state.parameter_server():
            raise ValueError(f"{mode}_on_batch is not supported under ParameterServerStrategy: steps run on the "
                             f"workers. Use fit(..., steps_per_epoch=1) or evaluate(..., steps=1) instead.")
        data = data_module.adapt(x, y, sample_weight, None, False, class_weight)
        data.batch_size = max(1, data.num_samples)
        data.steps_per_epoch = 1
        self._build_for(state, data)
        if state.run_eagerly:
            step_fn = self.train_step if mode == "train" else self.test_step
            return to_floats(step_fn(data.tensors))
        template, unique = data.layout()
        fn = state.loops(self).array_loop(mode, data.batch_size, data.element_spec(), template)
        raw, _ = epochs_module.timed(self, state, lambda: fn(unique, tf.range(data.num_samples), tf.constant(0),
                                                              tf.constant(1)))
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


def _fit_data(x, y, sample_weight, batch_size, shuffle, class_weight, steps_per_epoch, validation_split,
              validation_data, validation_batch_size, validation_steps, check) -> tuple[Any, Any]:
    data = data_module.adapt(x, y, sample_weight, batch_size, shuffle, class_weight, steps_per_epoch, check=check)
    val_data = None
    if validation_split and validation_data is None:
        if not isinstance(data, data_module.ArrayData):
            raise ValueError("validation_split is only supported for in-memory data (arrays or tensors)")
        data, val_data = data_module.split_validation(data, validation_split, batch_size, steps_per_epoch,
                                                      validation_steps)
    elif validation_data is not None:
        val_data = _adapt_validation(validation_data, validation_batch_size or batch_size, validation_steps)
    return data, val_data


def _adapt_validation(validation_data: Any, batch_size: int | None, steps: int | None) -> Any:
    if isinstance(validation_data, (tf.data.Dataset, PyDataset)) or data_module._is_dataset_creator(validation_data) \
            or data_module._is_generator(validation_data):   # as Keras: a PyDataset or generator of batches too
        return data_module.adapt(validation_data, steps_per_epoch=steps, argument="validation_data")
    if not isinstance(validation_data, (tuple, list)) or len(validation_data) not in (2, 3):
        raise ValueError(
            "validation_data must be a tuple (x_val, y_val) or (x_val, y_val, val_sample_weight), "
            f"a tf.data.Dataset, a PyDataset or a generator; got {type(validation_data).__name__}"
        )
    return data_module.adapt(*validation_data, batch_size=batch_size, shuffle=False, steps_per_epoch=steps)


def _format_logs(logs: dict, return_dict: bool) -> Any:
    if return_dict:
        return logs
    values = list(logs.values())
    return values[0] if len(values) == 1 else values
