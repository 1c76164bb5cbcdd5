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
from tfkit.training import compile_config as compile_config_module
from tfkit.training.compile_utils import display_name
from tfkit.training.compiled_state import CompiledState
from tfkit.training.tf_keras_shims import TfKerasShims
from tfkit.training.xla_choice import XlaDecision
from tfkit.utils.data_tuples import unpack_x_y_sample_weight


class StepMethods(TfKerasShims):
    """``compile``, the compiled losses and metrics, and ``train_step`` / ``test_step`` / ``predict_step``."""

    _compiled: CompiledState | None = None   # what compile() made (None until then)

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
        """Configure training; ``steps_per_execution`` and ``jit_compile`` default to 'auto'.

        ``auto_scale_loss`` (Keras 3's): wrap the optimizer in a ``LossScaleOptimizer``
        when the model's dtype policy is ``mixed_float16``.
        """
        self._compiled = CompiledState(
            optimizer, loss, metrics, loss_weights, weighted_metrics, run_eagerly, steps_per_execution,
            jit_compile, auto_scale_loss, output_names=self.output_names_for_compile(),
            policy_name=getattr(getattr(self, "dtype_policy", None), "name", None),
        )

    def _state(self) -> CompiledState:
        """The compiled state; a clear error when ``compile`` was not called."""
        if self._compiled is None:
            raise RuntimeError(f"Model '{self.name}' must be compiled first: call model.compile(optimizer, loss)")
        return self._compiled

    def output_names_for_compile(self) -> list[str]:
        names = getattr(self, "output_names", None)
        return list(names) if names else ["output"]

    @property
    def compiled(self) -> bool:
        return self._compiled is not None

    @property
    def optimizer(self) -> Any:
        return self._compiled.optimizer if self._compiled is not None else None

    @property
    def loss(self) -> Any:
        return self._compiled.config["loss"] if self._compiled is not None else None

    @property
    def jit_compile(self) -> bool:
        return bool(self._compiled and self._compiled.jit_compile)

    @property
    def jit_compile_decision(self) -> XlaDecision | None:
        """What ``jit_compile="auto"`` chose in ``fit`` and what it measured (None until it decided)."""
        return self._compiled.xla_decision if self._compiled is not None else None

    @property
    def train_function(self) -> Callable | None:
        loops = self._compiled.built_loops() if self._compiled is not None else None
        fns = [fn for key, fn in loops._cache.items() if "train" in key] if loops is not None else []
        return fns[0] if fns else None

    def get_compile_config(self) -> dict[str, Any] | None:
        """The ``compile`` arguments as plain data (None when not compiled)."""
        return compile_config_module.compile_config(self._compiled, self.name)

    def compile_from_config(self, config: dict[str, Any]) -> None:
        """``compile`` with the arguments from :meth:`get_compile_config`."""
        self.compile(**compile_config_module.compile_arguments(config))

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
        names = []
        for metric in self.metrics:
            if hasattr(metric, "metrics"):
                names.extend(display_name(m) for m in metric.metrics)
            else:
                names.append(metric.name)
        return names

    def reset_metrics(self) -> None:
        for metric in self.metrics:
            metric.reset_state()
        if self._compiled is not None:
            for tracker in self._compiled.compile_loss.trackers:
                tracker.reset_state()

    def get_metrics_result(self) -> dict[str, Any]:
        """Current results of every metric, flattened to one dict."""
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
        """Compiled loss + ``add_loss`` losses + regularization, scaled for the replicas."""
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
        """One optimization step on a batch; override to customize ``fit``."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self._compute_loss(x, y, y_pred, sample_weight, training=True)
            scaled = self.optimizer.scale_loss(loss)   # loss scaling (mixed_float16, loss_scale_factor); else loss
        weights = self.trainable_weights   # read after the call: a model may build itself in this first step
        self._track_loss(loss, x)
        grads = tape.gradient(scaled, weights)
        self.optimizer.apply(grads, weights)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data: Any) -> dict[str, Any]:
        """Loss and metrics on a batch without updating weights."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self._compute_loss(x, y, y_pred, sample_weight, training=False)
        self._track_loss(loss, x)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)


@functools.lru_cache(maxsize=None)
def _accepts_training(function: Any) -> bool:
    parameters = inspect.signature(function).parameters
    return "training" in parameters or any(p.kind == p.VAR_KEYWORD for p in parameters.values())
