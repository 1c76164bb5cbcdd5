"""``StepMethods``: ``compile`` and what one step uses, as methods of the model itself.

    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    logs = model.train_step((x, y))          # one step: forward, compute_loss, gradients, compute_metrics
    model.get_metrics_result()               # {"loss": ..., "mae": ...}

``Model`` inherits these through ``Trainer`` (as Keras 3's ``Model`` inherits
its trainer). What ``compile`` made lives in ``self._compiled``, a
``CompiledState``; the step methods are the documented override points.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import tensorflow as tf

from tfkit.engine import tracking
from tfkit.metrics import Metric
from tfkit.training import compile_serialization
from tfkit.training.compiled_state import CompiledState, resolve_optimizer
from tfkit.training.loss_and_metric_containers import display_name
from tfkit.training.tf_keras_shims import TfKerasShims
from tfkit.training.xla_choice import XlaDecision
from tfkit.utils.data_tuples import unpack_x_y_sample_weight


class StepMethods(TfKerasShims):
    """``compile``, the compiled losses and metrics, and ``train_step`` / ``test_step`` / ``predict_step``."""

    _compiled: CompiledState | None = None  # what compile() made (None until then)

    def compile(
        self,
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
        """Configures the model for training.

        Sets the optimizer, the losses and the metrics that `fit`, `evaluate`
        and `train_on_batch` use; call it again to change them (the compiled
        loops are rebuilt). tfkit's defaults for `steps_per_execution` and
        `jit_compile` are `"auto"`: the loops decide by measurement, as
        described below.

        Args:
            optimizer: A `tfkit.optimizers.Optimizer` instance, or its name
                (`"adam"`, `"sgd"`, ...). `None` compiles without one (for
                `evaluate` only). Defaults to `"rmsprop"`.
            loss: The loss to minimize: a name (`"mse"`,
                `"sparse_categorical_crossentropy"`), a `tfkit.losses.Loss`
                instance, or a function `fn(y_true, y_pred)` returning
                per-sample losses. For a model with several outputs, a list
                (one per output) or a dict keyed by output name; their sum
                (weighted by `loss_weights`) is minimized. A `None` entry
                leaves an output without a loss, and then `y` may hold one
                target per output that has one, in output order (as in
                Keras: `loss=[loss_fn, None]` fitted with one `y`). `None` when the
                model adds its own losses (`add_loss`) or overrides
                `compute_loss`. Defaults to `None`.
            metrics: Metrics to evaluate during training and testing: a list
                of names (`"accuracy"`, `"mae"`), `tfkit.metrics.Metric`
                instances or functions; for several outputs, a list of lists
                or a dict keyed by output name. `"accuracy"` picks the binary,
                categorical or sparse variant from the loss and shapes.
                Defaults to `None`.
            loss_weights: Optional list or dict of floats weighting the
                losses of several outputs. Defaults to `None` (all 1).
            weighted_metrics: Metrics, as `metrics`, that are weighted by
                `sample_weight` or `class_weight`. Defaults to `None`.
            run_eagerly: If `True`, run the steps as plain Python (eager)
                instead of compiled `tf.function` graphs: slow, but easy to debug.
                Defaults to `False`.
            steps_per_execution: A positive integer, or `"auto"`: how many
                steps each compiled call runs. With `"auto"` tfkit sizes each
                call from measured step time so that it lasts about a tenth
                of a second (one second when nothing is printed), which
                removes the per-call overhead yet keeps the progress bar
                moving. A callback with batch-level hooks gets calls of one
                step. Defaults to `"auto"`.
            jit_compile: `True`, `False` or `"auto"`: whether to compile the
                steps with XLA. With `"auto"`, `fit` starts with XLA on a GPU
                (on a CPU, only for a model with a recurrent layer such as
                `LSTM` or `GRU`), times the other form during the first
                epoch when the trial is cheap against the rest of the run,
                and keeps the faster one (`model.jit_compile_decision` tells
                what it chose; `verbose=2` prints it). If XLA cannot compile
                the model, `"auto"` falls back to `False` with a warning.
                Under a distribution strategy `"auto"` is XLA on a GPU only,
                without timing. Defaults to `"auto"`.
            auto_scale_loss: If `True` and the model's dtype policy is
                `"mixed_float16"`, wrap the optimizer in a
                `tfkit.optimizers.LossScaleOptimizer` so float16 gradients do
                not underflow. Defaults to `True`.

        Raises:
            ValueError: If `steps_per_execution` is not a positive integer
                or `"auto"`, or a loss or metric name is unknown.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
            >>> model.compile(optimizer="adam", loss="mse", metrics=["mae"])
            >>> model.compiled
            True
            >>> model.get_compile_config()["steps_per_execution"]
            'auto'
        """
        self._tfkit_optimizer_before_compile = None  # compile's optimizer replaces one assigned before
        self._compiled = CompiledState(
            optimizer,
            loss,
            metrics,
            loss_weights,
            weighted_metrics,
            run_eagerly,
            steps_per_execution,
            jit_compile,
            auto_scale_loss,
            output_names=self.output_names_for_compile(),
            policy_name=getattr(getattr(self, "dtype_policy", None), "name", None),
        )

    def _state(self) -> CompiledState:
        """The compiled state; a clear error when ``compile`` was not called."""
        if self._compiled is None:
            raise RuntimeError(f"Model '{self.name}' must be compiled first: call model.compile(optimizer, loss)")
        return self._compiled

    def output_names_for_compile(self) -> list[str]:
        """The output names that `compile` keys dict losses and metrics by (`["output"]` when unnamed)."""
        names = getattr(self, "output_names", None)
        return list(names) if names else ["output"]

    @property
    def compiled(self) -> bool:
        """Whether `compile` was called."""
        return self._compiled is not None

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "optimizer":  # the property below, never a checkpoint dependency (as compile's optimizer is not)
            object.__setattr__(self, name, value)
            return
        super().__setattr__(name, value)

    @property
    def optimizer(self) -> Any:
        """The model's optimizer: the one `compile` set, or one assigned since.

        As in Keras 3, it can be assigned: `model.optimizer = tfkit.optimizers.Adam(1e-4)`
        (a `compile` override that sets its own optimizer after `super().compile(...)` does
        this). The compiled steps then use the new optimizer, and model files save its state
        and its config (Keras 3 saves the state, but the config of the optimizer `compile` was
        given, so its loaded model starts that one afresh). Assigned before `compile`, it is
        replaced by the one `compile` sets, as in Keras. `None` removes it: `evaluate` and
        `predict` still work, `fit` says the model has no optimizer. A name or config, as
        `compile` takes, is resolved with `tfkit.optimizers.get` (Keras would keep the string).
        `None` before `compile` unless one was assigned (Keras's model then has no attribute).
        """
        if self._compiled is not None:
            return self._compiled.optimizer
        return getattr(self, "_tfkit_optimizer_before_compile", None)

    @optimizer.setter
    def optimizer(self, value: Any) -> None:
        if self._compiled is not None:
            self._compiled.replace_optimizer(value)
        else:  # a _tfkit_ attribute: untracked (its variables are no weights); compile replaces it
            self._tfkit_optimizer_before_compile = resolve_optimizer(value)

    @property
    def loss(self) -> Any:
        """The `loss` argument given to `compile` (`None` before `compile`)."""
        return self._compiled.config["loss"] if self._compiled is not None else None

    @property
    def run_eagerly(self) -> bool:
        """Whether `fit`, `evaluate` and `predict` run the steps eagerly, for debugging (`False` before `compile`).

        `compile(run_eagerly=...)` sets it; as in Keras, it can also be assigned
        after `compile` (`model.run_eagerly = True`), and `compile` sets it again.
        """
        return bool(self._compiled is not None and self._compiled.run_eagerly)

    @run_eagerly.setter
    def run_eagerly(self, value: bool) -> None:
        if self._compiled is None:
            raise ValueError(f"Model '{self.name}' is not compiled: pass run_eagerly to compile(...)")
        self._compiled.run_eagerly = bool(value)
        self._compiled.config["run_eagerly"] = bool(value)

    @property
    def jit_compile(self) -> bool:
        """Whether the compiled steps currently use XLA (`False` before `compile`)."""
        return bool(self._compiled and self._compiled.jit_compile)

    @property
    def jit_compile_decision(self) -> XlaDecision | None:
        """What ``jit_compile="auto"`` chose in ``fit`` and what it measured (None until it decided)."""
        return self._compiled.xla_decision if self._compiled is not None else None

    @property
    def train_function(self) -> Callable | None:
        """The compiled training loop function, or `None` before the first compiled `fit` step."""
        loops = self._compiled.built_loops() if self._compiled is not None else None
        fns = [fn for key, fn in loops._cache.items() if "train" in key] if loops is not None else []
        return fns[0] if fns else None

    def get_compile_config(self) -> dict[str, Any] | None:
        """Returns the arguments given to `compile`, as plain serializable data.

        Saved model files store it so that `load_model` can compile the
        model again (`compile_from_config`).

        Returns:
            A dict of the `compile` arguments (the optimizer as its config),
            or `None` when the model is not compiled.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
            >>> model.compile(optimizer="sgd", loss="mse")
            >>> config = model.get_compile_config()
            >>> config["loss"], config["optimizer"]["class_name"]
            ('mse', 'SGD')
        """
        return compile_serialization.compile_config(self._compiled, self.name)

    def compile_from_config(self, config: dict[str, Any]) -> None:
        """Compiles the model with the arguments `get_compile_config` returned.

        Args:
            config: A dict from `get_compile_config`.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
            >>> model.compile(optimizer="sgd", loss="mse")
            >>> other = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
            >>> other.compile_from_config(model.get_compile_config())
            >>> other.loss
            'mse'
        """
        self.compile(**compile_serialization.compile_arguments(config))

    def _checkpoint_state(self) -> dict[str, Any]:
        """Variables beyond the weights that an exact resume needs (the data-shuffling seed), by name.

        ``BackupAndRestore`` checkpoints them and model files store them under ``/training``.
        """
        return self._compiled.checkpoint_state() if self._compiled is not None else {}

    # -------------------------------------------------------------- metrics

    @property
    def metrics(self) -> list[Any]:
        """The loss tracker, the compiled metrics, then metrics held as attributes of the model and its layers.

        As in Keras 3, a metric a layer keeps (``self.accuracy = BinaryAccuracy()``,
        updated in its ``call``) is reported by ``fit`` and ``evaluate`` and reset
        with the others.
        """
        out = self._compiled.metrics() if self._compiled is not None else []
        for layer in tracking.flatten_layers(self):
            if isinstance(layer, Metric):
                continue
            for _, value in tracking.attribute_items(layer):
                if isinstance(value, Metric) and all(value is not m for m in out):
                    out.append(value)
        return out

    @property
    def metrics_names(self) -> list[str]:
        """The names of the values `evaluate` and `train_on_batch` return, in their order (`"loss"` first)."""
        names = []
        for metric in self.metrics:
            if hasattr(metric, "metrics"):
                names.extend(display_name(m) for m in metric.metrics)
            else:
                names.append(metric.name)
        return names

    def reset_metrics(self) -> None:
        """Resets the state of every metric of the model, the loss trackers included."""
        for metric in self.metrics:
            metric.reset_state()
        if self._compiled is not None:
            for tracker in self._compiled.compile_loss.trackers:
                tracker.reset_state()

    def get_metrics_result(self) -> dict[str, Any]:
        """Returns the model's metric values, flattened into one dict.

        A custom `train_step` or `test_step` returns this after updating
        the metrics.

        Returns:
            A dict mapping each metric name (`"loss"` first) to its current
            result (a scalar tensor).

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1, kernel_initializer="ones")])
            >>> model.compile(loss="mse", metrics=["mae"])
            >>> _ = model.test_on_batch(np.ones((2, 3)), np.zeros((2, 1)))
            >>> {name: float(value) for name, value in model.get_metrics_result().items()}
            {'loss': 9.0, 'mae': 3.0}
        """
        logs: dict[str, Any] = {}
        for metric in self.metrics:
            result = metric.result()
            if isinstance(result, dict):
                logs.update(result)
            else:
                logs[metric.name] = result
        if self._compiled is not None:
            for tracker in self._compiled.compile_loss.trackers:
                logs[tracker.name] = tracker.result()
        return logs

    # ---------------------------------------------------------------- steps

    def compute_loss(
        self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None, training: bool = True
    ) -> tf.Tensor:
        """Computes the total loss of a batch: the compiled loss plus the model's added losses.

        `train_step` and `test_step` call it; override it to compute a custom
        loss while keeping the default steps. The result is the `compile`
        loss of `y` and `y_pred` plus every loss in `self.losses` (from
        `add_loss` and weight regularizers), scaled for the number of
        replicas under a distribution strategy.

        Args:
            x: The input data of the batch (unused by the default
                implementation). Defaults to `None`.
            y: The target data. Defaults to `None`.
            y_pred: The model's predictions for `x`. Defaults to `None`.
            sample_weight: Optional per-sample weights. Defaults to `None`.
            training: Whether the loss is computed for training (`True`) or
                evaluation. An override may take this argument or leave it
                out. Defaults to `True`.

        Returns:
            A scalar tensor, the total loss.

        Raises:
            RuntimeError: If the model was not compiled.
            ValueError: If there is nothing to minimize: no compiled loss
                and no added losses.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
            >>> model.compile(loss="mse")
            >>> float(model.compute_loss(y=tf.zeros((2, 1)), y_pred=tf.fill((2, 1), 2.0)))
            4.0
        """
        del x, training
        total = self._state().compile_loss(y, y_pred, sample_weight)  # loss objects already scale per replica
        extra = self.losses
        if extra:
            extra_sum = tf.add_n([tf.cast(l, tf.float32) for l in extra])
            replicas = tf.distribute.get_strategy().num_replicas_in_sync
            if replicas > 1:  # summed across replicas by the gradient all-reduce
                extra_sum = extra_sum / replicas
            total = extra_sum if total is None else total + tf.cast(extra_sum, total.dtype)
        if total is None:
            raise ValueError(
                f"Model '{self.name}' has nothing to minimize: compile() got no loss and the model "
                f"added no losses (add_loss) in its forward pass."
            )
        return total

    def _compute_loss(self, x: Any, y: Any, y_pred: Any, sample_weight: Any, training: bool) -> tf.Tensor:
        """``compute_loss``, given ``training=`` only when an override's signature takes it (as Keras checks)."""
        if _accepts_training(type(self).compute_loss):
            return self.compute_loss(x, y, y_pred, sample_weight, training=training)
        return self.compute_loss(x, y, y_pred, sample_weight)

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> dict[str, Any]:
        """Updates the compiled metrics with a batch and returns every metric's value.

        `train_step` and `test_step` call it after the loss; override it to
        update metrics differently.

        Args:
            x: The input data of the batch (unused by the default
                implementation).
            y: The target data.
            y_pred: The model's predictions for `x`.
            sample_weight: Optional per-sample weights for the weighted
                metrics. Defaults to `None`.

        Returns:
            A dict mapping metric names to their current values, as
            `get_metrics_result` returns it.

        Raises:
            RuntimeError: If the model was not compiled.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
            >>> model.compile(loss="mse", metrics=["mae"])
            >>> logs = model.compute_metrics(None, tf.zeros((2, 1)), tf.fill((2, 1), 2.0))
            >>> float(logs["mae"])
            2.0
        """
        del x
        state = self._state()
        if state.compile_metrics is not None:
            state.compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def _track_loss(self, loss: tf.Tensor, x: Any) -> None:
        replicas = tf.distribute.get_strategy().num_replicas_in_sync
        unscaled = loss * replicas if replicas > 1 else loss
        batch = tf.shape(tf.nest.flatten(x)[0])[0]
        self._state().loss_tracker.update_state(unscaled, sample_weight=tf.cast(batch, unscaled.dtype))

    def _defines_own_step(self, mode: str) -> bool:
        """Whether this model's class overrides ``<mode>_step`` (``"train"``, ``"test"``, ``"predict"``)."""
        name = f"{mode}_step"
        return getattr(type(self), name) is not getattr(StepMethods, name)

    def train_step(self, data: Any) -> dict[str, Any]:
        """Runs one training step on a batch: forward pass, loss, gradients, update, metrics.

        `fit` and `train_on_batch` call it inside their compiled loops.
        Override it to customize what `fit` does while keeping its callbacks,
        progress bar and distribution support: unpack `data`, compute the
        loss under a `tf.GradientTape`, apply the gradients with
        `self.optimizer.apply(grads, self.trainable_weights)` and return
        `self.compute_metrics(...)` (or any dict of scalars).

        Args:
            data: One batch, as the data passed to `fit` yields it: `x`,
                `(x, y)` or `(x, y, sample_weight)`.

        Returns:
            A dict mapping metric names to their current values (the
            values `fit` logs).

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1, kernel_initializer="ones")])
            >>> model.compile(optimizer="sgd", loss="mse")
            >>> logs = model.train_step((tf.ones((2, 3)), tf.zeros((2, 1))))
            >>> float(logs["loss"])
            9.0
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        if self.optimizer is None:
            raise ValueError(
                f"Model '{self.name}' has no optimizer to train with (compiled with optimizer=None, or "
                f"model.optimizer was set to None): compile it with one, or assign model.optimizer."
            )
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self._compute_loss(x, y, y_pred, sample_weight, training=True)
            scaled = self.optimizer.scale_loss(loss)  # loss scaling (mixed_float16, loss_scale_factor); else loss
        weights = self.trainable_weights  # read after the call: a model may build itself in this first step
        self._track_loss(loss, x)
        grads = tape.gradient(scaled, weights)
        self.optimizer.apply(grads, weights)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data: Any) -> dict[str, Any]:
        """Runs one evaluation step on a batch: forward pass, loss and metrics, no update.

        `evaluate`, `test_on_batch` and `fit`'s validation call it. Override
        it to customize evaluation.

        Args:
            data: One batch: `x`, `(x, y)` or `(x, y, sample_weight)`.

        Returns:
            A dict mapping metric names to their current values.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1, kernel_initializer="ones")])
            >>> model.compile(loss="mse")
            >>> logs = model.test_step((tf.ones((2, 3)), tf.zeros((2, 1))))
            >>> float(logs["loss"])
            9.0
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self._compute_loss(x, y, y_pred, sample_weight, training=False)
        self._track_loss(loss, x)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        """Runs one prediction step on a batch: the model called with `training=False`.

        `predict` calls it inside its compiled loop. Override it to
        customize prediction (for example to post-process the outputs).

        Args:
            data: One batch: `x`, `(x,)`, `(x, y)` or `(x, y, sample_weight)`;
                only `x` is used.

        Returns:
            The model's outputs for the batch.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
            >>> model.predict_step(tf.ones((4, 3))).shape
            TensorShape([4, 2])
        """
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)


@functools.lru_cache(maxsize=None)
def _accepts_training(function: Any) -> bool:
    parameters = inspect.signature(function).parameters
    return "training" in parameters or any(p.kind == p.VAR_KEYWORD for p in parameters.values())
