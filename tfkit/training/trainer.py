"""The fit / evaluate / predict loops behind ``Model``.

    trainer = Trainer(model, optimizer=Adam(1e-3), loss="mse")
    history = trainer.fit(x, x, epochs=2, batch_size=64)

Each epoch is cut into chunks of several steps; each chunk is one call of a
compiled ``tf.function`` (see ``steps.py``), its length chosen by
``chunk_planner.py``.
Under ``tf.distribute.ParameterServerStrategy`` the chunks are scheduled on
the workers by a ``ClusterCoordinator`` instead (``distribute/``).
"""

from __future__ import annotations

import contextlib
import time
import warnings
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import callbacks as callbacks_module
from tfkit import optimizers as optimizers_module
from tfkit.callbacks.terminate_on_nan import nan_stop_report
from tfkit.engine.layer import Layer
from tfkit.metrics import Mean
from tfkit.training import data as data_module
from tfkit.training import distribute as distribute_module
from tfkit.training.chunk_planner import ChunkPlanner, to_floats
from tfkit.training.compile_utils import CompileLoss, CompileMetrics
from tfkit.training.prediction_buffer import PredictionBuffer
from tfkit.training.steps import StepLoops
from tfkit.training.trace_ahead import TraceAhead
from tfkit.utils.py_dataset import PyDataset

_ASSERTION = "assertion failed:"   # what TensorFlow's Assert op (tf.debugging.assert_*, tf.Assert) says


def _gpu_available() -> bool:
    return bool(tf.config.list_logical_devices("GPU"))


class Trainer:
    """Compiled state of one model: optimizer, losses, metrics and loop functions."""

    def __init__(
        self,
        model: Any,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        metrics: Any = None,
        loss_weights: Any = None,
        weighted_metrics: Any = None,
        run_eagerly: bool = False,
        steps_per_execution: Any = "auto",
        jit_compile: Any = "auto",
        auto_scale_loss: bool = True,
    ) -> None:
        self.model = model
        self.implicit = False    # made by predict() on an uncompiled model: saved as uncompiled
        self.strategy = tf.distribute.get_strategy() if tf.distribute.has_strategy() else None
        with self._scope():
            self.optimizer = optimizers_module.get(optimizer) if optimizer is not None else None
            policy = getattr(model, "dtype_policy", None)
            if (auto_scale_loss and self.optimizer is not None and getattr(policy, "name", None) == "mixed_float16"
                    and not isinstance(self.optimizer, optimizers_module.LossScaleOptimizer)):
                # float16 gradients underflow without loss scaling: Keras 3 wraps the optimizer here too
                self.optimizer = optimizers_module.LossScaleOptimizer(self.optimizer)
            output_names = model.output_names_for_compile()
            self.compile_loss = CompileLoss(loss, loss_weights, output_names)
            self.compile_metrics = CompileMetrics(metrics, weighted_metrics, output_names) \
                if metrics is not None or weighted_metrics is not None else None
            self.loss_tracker = Mean(name="loss")
        self.run_eagerly = bool(run_eagerly)
        self.steps_per_execution = steps_per_execution
        ChunkPlanner(steps_per_execution, False, False)  # validates the setting
        if jit_compile == "auto":
            self.jit_compile = _gpu_available() and not run_eagerly
            self.jit_auto = True
        else:
            self.jit_compile = bool(jit_compile)
            self.jit_auto = False
        self.config = {
            "optimizer": optimizer if isinstance(optimizer, (str, type(None))) else None,
            "loss": loss, "metrics": metrics, "loss_weights": loss_weights,
            "weighted_metrics": weighted_metrics, "run_eagerly": run_eagerly,
            "steps_per_execution": steps_per_execution, "jit_compile": jit_compile,
        }
        self._loops: StepLoops | None = None
        self._loops_key: Any = None
        self._coordinated: Any = None  # CoordinatedLoops under ParameterServerStrategy, built on first use
        self._local_loops: StepLoops | None = None  # predict under ParameterServerStrategy runs here, on the chief
        self._loops_checked = False  # trainable weights compared once per fit/evaluate/predict call
        self._seconds_per_step: dict[tuple, float] = {}
        with self._scope():  # the shuffling seed: part of the state BackupAndRestore and h5 files keep
            self._data_seed = tf.Variable(
                np.random.randint(0, 2**31 - 1, size=(2,), dtype=np.int64), trainable=False, name="data_seed",
                aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA,
            )

    def _scope(self) -> Any:
        return self.strategy.scope() if self.strategy is not None else contextlib.nullcontext()

    def _parameter_server(self) -> bool:
        """Whether steps run on remote workers through a ``ClusterCoordinator`` (``distribute/``)."""
        if not distribute_module.is_parameter_server(self.strategy):
            return False
        if self.run_eagerly:
            raise ValueError("run_eagerly=True is not supported under ParameterServerStrategy: the steps run as "
                             "compiled functions on the workers. Compile with run_eagerly=False.")
        return True

    def coordinated_loops(self) -> Any:
        if self._coordinated is None or self._coordinated.jit_compile != self.jit_compile:
            self._coordinated = distribute_module.CoordinatedLoops(self.model, self.strategy, self.jit_compile,
                                                                   to_floats)
        return self._coordinated

    # ------------------------------------------------------------- building

    def metrics(self) -> list[Any]:
        out: list[Any] = [self.loss_tracker]
        if self.compile_metrics is not None:
            out.append(self.compile_metrics)
        return out

    def ensure_built(self, data: Any, for_predict: bool = False) -> None:
        """Create every variable before the first compiled call (model, metrics, optimizer)."""
        self._loops_checked = False
        if for_predict and self.model.built and self.model.weights:
            return                      # predict needs no metric or optimizer state: nothing to trace
        spec = data.element_spec()
        x_spec, y_spec, _ = data_module.unpack_x_y_sample_weight(spec)
        metrics_need_outputs = self.compile_metrics is not None and not self.compile_metrics.built
        if self.strategy is None and not metrics_need_outputs:
            # Nothing needs the outputs' specs: the model builds itself in the first compiled step (its
            # variables under tf.init_scope) and the optimizer at its first apply. A separate symbolic
            # trace of the forward pass would cost as much as a third of the first epoch.
            return
        with self._scope():
            if not _defines_call(self.model):
                # keras-io's VAE pattern: no call(), a train_step that calls sublayers. Their weights
                # appear in the first compiled step, and the optimizer builds itself at its first apply.
                return
            y_pred = self.model.symbolic_call(x_spec)
            if self.compile_metrics is not None and not self.compile_metrics.built:
                self.compile_metrics.build(y_spec, y_pred, self.compile_loss)
            if self.optimizer is not None and not getattr(self.optimizer, "built", True) \
                    and self.model.trainable_weights:
                self.optimizer.build(self.model.trainable_weights)

    def loops(self) -> StepLoops:
        if self._loops is not None and self._loops_checked:
            return self._loops  # walking the layer tree costs ~1 ms: not once per compiled call
        key = tuple(id(v) for v in self.model.trainable_weights)
        if self._loops is not None and not self._loops_key:
            self._loops_key = key   # the model built itself inside the first compiled step: same loops
        if self._loops is None or key != self._loops_key:
            if self._loops is not None and self._loops_key and self.optimizer is not None \
                    and getattr(self.optimizer, "built", False):
                raise ValueError(
                    f"The trainable weights of model '{self.model.name}' changed since it was compiled "
                    f"(a layer's `trainable` was set). Call compile() again so the optimizer tracks the new set."
                )
            self._loops = StepLoops(self.model, self.jit_compile, self.strategy)
            self._loops_key = key
        self._loops_checked = True
        return self._loops

    def _chief_loops(self) -> StepLoops:
        """Loops without a strategy, for ``predict`` on the chief under ParameterServerStrategy."""
        if self._local_loops is None or self._local_loops.jit_compile != self.jit_compile:
            self._local_loops = StepLoops(self.model, self.jit_compile, None)
        return self._local_loops

    def _fallback_from_xla(self, error: Exception) -> bool:
        if not (self.jit_compile and self.jit_auto) or _ASSERTION in str(error):
            return False       # a failed tf.debugging.assert_* / tf.Assert is the user's, not XLA's
        lines = [l.strip() for l in str(error).splitlines() if l.strip()]
        telling = [l for l in lines if any(k in l for k in ("XLA", "xla", "unsupported", "Unsupported", "compil"))]
        reason = (telling or lines or [type(error).__name__])[0][:300]
        warnings.warn(
            f"XLA could not compile model '{self.model.name}' ({reason}); falling back to jit_compile=False.",
            RuntimeWarning,
            stacklevel=3,
        )
        self.jit_compile = False
        self._loops = None
        return True

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
        coordinated = self._parameter_server()
        if coordinated:
            data, val_data = distribute_module.fit_data_on_workers(
                self.strategy, x, y, sample_weight, batch_size, shuffle, class_weight, steps_per_epoch,
                validation_split, validation_data, validation_batch_size, validation_steps)
        else:
            data, val_data = self._fit_data(
                x, y, sample_weight, batch_size, shuffle, class_weight, steps_per_epoch,
                validation_split, validation_data, validation_batch_size, validation_steps)
        try:
            return self._fit_epochs(data, val_data, coordinated, epochs, verbose, callbacks, initial_epoch,
                                    steps_per_epoch, validation_steps, validation_freq)
        except tf.errors.OpError:
            data_module.raise_batch_failure("fit", data, val_data)
            raise

    def _fit_epochs(self, data: Any, val_data: Any, coordinated: bool, epochs: int, verbose: Any, callbacks: Any,
                    initial_epoch: int, steps_per_epoch: int | None, validation_steps: int | None,
                    validation_freq: int) -> Any:
        model = self.model
        self.ensure_built(data)
        verbose = distribute_module.verbosity(verbose) if coordinated else 1 if verbose == "auto" else int(verbose)
        steps = steps_per_epoch or data.steps_per_epoch
        cbs = callbacks_module.CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=model,
            verbose=verbose, epochs=epochs, steps=steps,
        )
        model.stop_training = False
        cbs.on_train_begin()
        if model._initial_epoch is not None:     # a callback (BackupAndRestore) resumed training
            initial_epoch, model._initial_epoch = int(model._initial_epoch), None
        iterator = None
        if isinstance(data, data_module.DatasetData) and steps_per_epoch:
            iterator = self._make_iterator(data)
        elif coordinated:
            iterator = data.iterator()  # one per fit: each worker's data goes on from epoch to epoch
        logs: dict[str, float] = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cbs.on_epoch_begin(epoch)
            logs = self._run_epoch("train", data, cbs, steps_per_epoch, iterator, verbose)
            if epoch == initial_epoch and not self._epoch_steps:
                raise ValueError("fit: x produced no batches (an empty tf.data.Dataset, generator or PyDataset?); "
                                 "nothing was trained")
            if val_data is not None and (epoch + 1) % validation_freq == 0:
                val_logs = self._evaluate_data(val_data, cbs, validation_steps, in_fit=True)
                logs.update({f"val_{k}": v for k, v in val_logs.items()})
            cbs.on_epoch_end(epoch, logs)
            if model.stop_training:
                break
        if self.optimizer is not None and hasattr(self.optimizer, "finalize_variable_values"):
            self.optimizer.finalize_variable_values(model.trainable_weights)
        cbs.on_train_end(logs)
        report = nan_stop_report(cbs.callbacks, model)
        if report is not None:
            warnings.warn(report, RuntimeWarning, stacklevel=3)
        return model.history

    def _fit_data(self, x, y, sample_weight, batch_size, shuffle, class_weight, steps_per_epoch,
                  validation_split, validation_data, validation_batch_size, validation_steps) -> tuple[Any, Any]:
        data = data_module.adapt(x, y, sample_weight, batch_size, shuffle, class_weight, steps_per_epoch)
        val_data = None
        if validation_split and validation_data is None:
            if not isinstance(data, data_module.ArrayData):
                raise ValueError("validation_split is only supported for in-memory data (arrays or tensors)")
            data, val_data = data_module.split_validation(data, validation_split)
        elif validation_data is not None:
            val_data = self._adapt_validation(validation_data, validation_batch_size or batch_size, validation_steps)
        return data, val_data

    def _adapt_validation(self, validation_data: Any, batch_size: int | None, steps: int | None) -> Any:
        if isinstance(validation_data, (tf.data.Dataset, PyDataset)) or data_module._is_dataset_creator(validation_data) \
                or data_module._is_generator(validation_data):   # as Keras: a PyDataset or generator of batches too
            return data_module.adapt(validation_data, steps_per_epoch=steps, argument="validation_data")
        if not isinstance(validation_data, (tuple, list)) or len(validation_data) not in (2, 3):
            raise ValueError(
                "validation_data must be a tuple (x_val, y_val) or (x_val, y_val, val_sample_weight), "
                f"a tf.data.Dataset, a PyDataset or a generator; got {type(validation_data).__name__}"
            )
        return data_module.adapt(*validation_data, batch_size=batch_size, shuffle=False)

    def _make_iterator(self, data: Any) -> Any:
        dataset = data.as_dataset()
        if self.strategy is not None:
            return iter(self.strategy.experimental_distribute_dataset(dataset))
        return iter(dataset)

    def _epoch_order(self, data: Any) -> tf.Tensor:
        n = data.num_samples
        if not data.shuffle:
            return tf.range(n)
        seed = self._data_seed.read_value()
        self._data_seed.assign_add(tf.constant([0, 1], tf.int64))
        return tf.random.experimental.stateless_shuffle(tf.range(n), seed=seed)

    def _run_epoch(self, mode: str, data: Any, cbs: Any, steps_limit: int | None, iterator: Any, verbose: int) -> dict:
        setting = self.steps_per_execution
        if setting == "auto" and distribute_module.spans_workers(self.strategy):
            setting = distribute_module.SYNCHRONIZED_CHUNK   # all workers must make the same compiled calls
        planner = ChunkPlanner(setting, cbs.needs_batch_hooks(mode), quiet=verbose == 0,
                               seconds_per_step=self._seconds_per_step.get((mode, data.batch_size)))
        try:
            logs = self._run_planned_epoch(mode, data, cbs, steps_limit, iterator, planner)
        finally:
            if planner.seconds_per_step is not None:
                self._seconds_per_step[(mode, data.batch_size)] = planner.seconds_per_step
        if isinstance(data, data_module.DatasetData):
            data.end_epoch()   # a PyDataset's on_epoch_end: once per epoch, as Keras calls it
        return logs

    def _run_planned_epoch(self, mode: str, data: Any, cbs: Any, steps_limit: int | None, iterator: Any,
                           planner: ChunkPlanner) -> dict:
        begin_hook = cbs.on_train_batch_begin if mode == "train" else cbs.on_test_batch_begin
        batch_end = cbs.on_train_batch_end if mode == "train" else cbs.on_test_batch_end
        self._epoch_steps = 0

        def end_hook(step: int, logs: Any) -> Any:    # every runner calls it after each step or chunk
            self._epoch_steps = step + 1
            return batch_end(step, logs)

        if isinstance(data, distribute_module.PerWorkerData):
            return self.coordinated_loops().run_epoch(mode, data, steps_limit, iterator, self.steps_per_execution,
                                                      begin_hook, end_hook, planner.per_batch)
        if self.run_eagerly:
            return self._run_eager_epoch(mode, data, begin_hook, end_hook, steps_limit)
        if isinstance(data, data_module.ArrayData) and self.strategy is None:
            return self._run_array_epoch(mode, data, planner, begin_hook, end_hook, steps_limit)
        return self._run_iterator_epoch(mode, data, planner, begin_hook, end_hook, steps_limit, iterator)

    def _timed(self, call: Any, data: Any = None) -> tuple[Any, float]:
        start = time.perf_counter()
        try:
            result = call()
        except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError, tf.errors.InternalError) as error:
            failed_batch = isinstance(data, data_module.DatasetData) and data.batch_failure() is not None
            if failed_batch or not self._fallback_from_xla(error):   # a batch that did not fit is not XLA's doing
                raise
            result = call()
        return result, time.perf_counter() - start

    def _run_array_epoch(self, mode, data, planner, begin_hook, end_hook, steps_limit) -> dict:
        total = min(steps_limit or data.steps_per_epoch, data.steps_per_epoch)
        order = self._epoch_order(data) if mode == "train" else tf.range(data.num_samples)
        batch_spec = data.element_spec()
        template, unique = data.layout()
        full_batches, last = divmod(data.num_samples, data.batch_size)
        logs: dict = {}
        step = 0
        ahead: TraceAhead | None = None
        while step < total:
            # Full batches run in chunks; a short last batch runs alone with its own static size.
            batch_size = data.batch_size if step < full_batches else last
            if ahead is not None and batch_size == last:
                ahead.wait()
            elif ahead is None and 0 < step < full_batches and total > full_batches and not planner.per_batch:
                ahead = self._trace_last_batch_ahead(mode, last, batch_spec, template, unique, order)
            count = planner.next(min(total, full_batches) - step) if step < full_batches else 1
            if self.loops().array_loop(mode, batch_size, batch_spec, template).max_count:
                count = 1
            if planner.per_batch:
                begin_hook(step)
            first_row = step * data.batch_size
            raw, seconds = self._timed(  # loops() again: an XLA fallback inside _timed rebuilds them
                lambda: self.loops().array_loop(mode, batch_size, batch_spec, template)(
                    unique, order, tf.constant(first_row, tf.int32), tf.constant(count, tf.int32)
                )
            )
            logs = to_floats(raw)
            if batch_size == data.batch_size:
                planner.record(count, seconds)
            step += count
            end_hook(step - 1, logs)
            if mode == "train" and self.model.stop_training:
                break
        return logs

    def _trace_last_batch_ahead(self, mode, last, batch_spec, template, unique, order) -> TraceAhead | None:
        """Trace (and instantiate) the short last batch's loop on a helper thread, once the full batches run."""
        loops = self.loops()
        if loops.has_array_loop(mode, last, template):
            return None

        def prepare() -> None:
            loop = loops.array_loop(mode, last, batch_spec, template)
            start, none = tf.constant(0, tf.int32), tf.constant(0, tf.int32)
            if loop.max_count:          # a custom step whose loop always runs one step: trace it only
                loop.get_concrete_function(unique, order, start, none)
            else:                       # zero steps: TensorFlow optimizes the graph, nothing is trained
                loop(unique, order, start, none)

        return TraceAhead(prepare)

    def _run_iterator_epoch(self, mode, data, planner, begin_hook, end_hook, steps_limit, iterator) -> dict:
        iterator = iterator or self._make_iterator(data)
        total = steps_limit or data.steps_per_epoch
        batch_spec = data.element_spec()
        logs: dict = {}
        step = 0
        while total is None or step < total:
            count = planner.next(None if total is None else total - step)
            if planner.per_batch:
                begin_hook(step)
            (done, raw), seconds = self._timed(
                lambda: self.loops().iterator_loop(mode, batch_spec)(iterator, tf.constant(count, tf.int32)), data
            )
            done = int(done)
            if done:
                logs = to_floats(raw)
                planner.record(done, seconds)
                step += done
                end_hook(step - 1, logs)
            if done < count:
                if step == 0:
                    warnings.warn("The data ran out before the first step of the epoch", RuntimeWarning, stacklevel=4)
                break
            if mode == "train" and self.model.stop_training:
                break
        return logs

    def _run_eager_epoch(self, mode, data, begin_hook, end_hook, steps_limit) -> dict:
        step_fn = self.model.train_step if mode == "train" else self.model.test_step
        dataset = data.as_dataset()
        if isinstance(data, data_module.ArrayData) and mode == "train" and data.shuffle:
            order = self._epoch_order(data)
            dataset = tf.data.Dataset.from_tensor_slices(
                tf.nest.map_structure(lambda t: tf.gather(t, order), data.tensors)
            ).batch(data.batch_size)
        logs: dict = {}
        for step, batch in enumerate(dataset):
            if steps_limit is not None and step >= steps_limit:
                break
            begin_hook(step)
            logs = to_floats(step_fn(batch))
            end_hook(step, logs)
            if mode == "train" and self.model.stop_training:
                break
        return logs

    # ------------------------------------------------------------- evaluate

    def reset_metrics(self) -> None:
        for metric in self.model.metrics:
            metric.reset_state()
        for tracker in self.compile_loss.trackers:
            tracker.reset_state()

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
        if self._parameter_server():
            data = distribute_module.per_worker_data("evaluate", self.strategy, x, y, sample_weight, batch_size,
                                                     False, None, steps, "steps")
            verbose = distribute_module.verbosity(verbose)
        else:
            data = data_module.adapt(x, y, sample_weight, batch_size, False, None, steps)
            verbose = 1 if verbose == "auto" else int(verbose)
        self.ensure_built(data)
        cbs = callbacks_module.CallbackList(
            callbacks, add_progbar=verbose != 0, model=self.model, verbose=verbose, epochs=1,
            steps=steps or data.steps_per_epoch,
        )
        try:
            logs = self._evaluate_data(data, cbs, steps, in_fit=False)
        except tf.errors.OpError:
            data_module.raise_batch_failure("evaluate", data)
            raise
        if return_dict:
            return logs
        values = [logs[k] for k in logs]
        return values[0] if len(values) == 1 else values

    def _evaluate_data(self, data: Any, cbs: Any, steps: int | None, in_fit: bool) -> dict:
        self.ensure_built(data)
        self.reset_metrics()
        cbs.on_test_begin()
        logs = self._run_epoch("test", data, cbs, steps, None, verbose=1)
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
        data = data_module.adapt(x, None, None, batch_size, False, None, steps)
        try:
            return self._predict_data(data, verbose, steps, callbacks)
        except tf.errors.OpError:
            data_module.raise_batch_failure("predict", data)
            raise

    def _predict_data(self, data: Any, verbose: Any, steps: int | None, callbacks: Any) -> Any:
        self.ensure_built(data, for_predict=True)
        verbose = 1 if verbose == "auto" else int(verbose)
        # Under ParameterServerStrategy predict runs here, on the chief, reading the variables from the
        # parameter servers (as tf-keras does): no coordinator, no per-worker data, outputs in order.
        strategy = None if distribute_module.is_parameter_server(self.strategy) else self.strategy
        loops = self.loops if strategy is self.strategy else self._chief_loops
        cbs = callbacks_module.CallbackList(
            callbacks, add_progbar=verbose != 0, model=self.model, verbose=verbose, epochs=1,
            steps=steps or data.steps_per_epoch,
        )
        cbs.on_predict_begin()
        key = ("predict", getattr(data, "batch_size", None))
        planner = ChunkPlanner(self.steps_per_execution, cbs.needs_batch_hooks("predict"), quiet=verbose == 0,
                               seconds_per_step=self._seconds_per_step.get(key))   # no ramp-up the second time
        if isinstance(data, data_module.ArrayData) and strategy is None and not self.run_eagerly:
            total = min(steps or data.steps_per_epoch, data.steps_per_epoch)
            x_tensors, _, _ = data_module.unpack_x_y_sample_weight(data.tensors)
            rows_total = min(data.num_samples, total * data.batch_size)
            outputs = PredictionBuffer(rows_total)
            step = 0
            while step < total:
                count = planner.next(total - step)
                if planner.per_batch:
                    cbs.on_predict_batch_begin(step)
                out, seconds = self._timed(
                    lambda: loops().array_predict_loop(data.batch_size, x_tensors)(
                        x_tensors, tf.constant(step, tf.int32), tf.constant(count, tf.int32)
                    )
                )
                planner.record(count, seconds)
                rows = min(count * data.batch_size, rows_total - step * data.batch_size)
                chunk = outputs.add(out, rows)
                step += count
                cbs.on_predict_batch_end(step - 1, {"outputs": chunk})
        else:
            outputs = PredictionBuffer(None)
            dataset = data.as_dataset()
            if strategy is not None:
                dataset = strategy.experimental_distribute_dataset(dataset)
            fn = self.model.predict_step if self.run_eagerly else loops().predict_batch_fn()
            for step, batch in enumerate(dataset):
                if steps is not None and step >= steps:
                    break
                cbs.on_predict_batch_begin(step)
                x_only, _, _ = data_module.unpack_x_y_sample_weight(batch)
                chunk = outputs.add(fn((x_only,)))
                cbs.on_predict_batch_end(step, {"outputs": chunk})
            if isinstance(data, data_module.DatasetData):
                data.end_epoch()
        cbs.on_predict_end()
        if planner.seconds_per_step is not None:
            self._seconds_per_step[key] = planner.seconds_per_step
        return outputs.result()

    # -------------------------------------------------------- single batches

    def run_on_batch(self, mode: str, x: Any, y: Any = None, sample_weight: Any = None, class_weight: Any = None) -> dict:
        if self._parameter_server():
            raise ValueError(f"{mode}_on_batch is not supported under ParameterServerStrategy: steps run on the "
                             f"workers. Use fit(..., steps_per_epoch=1) or evaluate(..., steps=1) instead.")
        data = data_module.adapt(x, y, sample_weight, None, False, class_weight)
        data.batch_size = max(1, data.num_samples)
        data.steps_per_epoch = 1
        self.ensure_built(data)
        if self.run_eagerly:
            step_fn = self.model.train_step if mode == "train" else self.model.test_step
            return to_floats(step_fn(data.tensors))
        template, unique = data.layout()
        fn = self.loops().array_loop(mode, data.batch_size, data.element_spec(), template)
        raw, _ = self._timed(lambda: fn(unique, tf.range(data.num_samples), tf.constant(0), tf.constant(1)))
        return to_floats(raw)

    def checkpoint_state(self) -> dict[str, Any]:
        """Extra state for exact resume: the seed of data shuffling."""
        return {"data_seed": self._data_seed}


def _defines_call(model: Any) -> bool:
    """Whether the model computes something in ``call`` (a model may train through ``train_step`` only)."""
    return type(model).call is not Layer.call
