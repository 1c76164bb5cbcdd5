"""``CompiledState``: what ``Model.compile`` made, held by the model as ``model._compiled``.

    state = CompiledState(optimizer="adam", loss="mse", output_names=["output"])
    state.optimizer, state.compile_loss, state.loss_tracker   # what the train step uses
    loops = state.loops(model)                                 # the compiled loop functions, cached

Plain data plus the cache of compiled loop functions. The flow of ``fit`` lives
in ``trainer.py``; this object never calls back into the model's loops.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import optimizers as optimizers_module
from tfkit.engine import tracking
from tfkit.layers.conv_lstm_cell import ConvLSTMCell
from tfkit.layers.recurrent import RNN
from tfkit.metrics import Mean
from tfkit.training import distributed_loops
from tfkit.training.chunk_planner import ChunkPlanner, to_floats
from tfkit.training.compiled_loops import StepLoops
from tfkit.training.loss_and_metric_containers import CompileLoss, CompileMetrics
from tfkit.training.xla_choice import XlaChooser, XlaDecision, expected_saving, starting_form

_ASSERTION = "assertion failed:"  # what TensorFlow's Assert op (tf.debugging.assert_*, tf.Assert) says


def _loops_over_time(model: Any) -> bool:
    """Whether ``model`` has a recurrent layer of matrix products, whose loop over time XLA compiles into one kernel.

    Convolutional ones (ConvLSTM) do not count: XLA's CPU convolutions are the slow part there.
    """
    return any(
        isinstance(module, RNN) and not isinstance(getattr(module, "cell", None), ConvLSTMCell)
        for module in getattr(model, "submodules", ())
    )


def _assigned_activations(model: Any) -> tuple:
    """Every layer's ``activation`` / ``recurrent_activation`` attribute (None where it has none), in order.

    The compiled loops hold the functions they were traced with; a user who assigns another one
    (``model.layers[-1].activation = None``) gets it in the next ``fit``/``evaluate``/``predict``.
    """
    return tuple(
        vars(layer).get(name)
        for layer in tracking.flatten_layers(model)
        for name in ("activation", "recurrent_activation")
    )


def _same_objects(a: Any, b: Any) -> bool:
    """Whether two tuples hold the very same objects (functions compared by identity, not by ``==``)."""
    return a is not None and b is not None and len(a) == len(b) and all(x is y for x, y in zip(a, b))


def resolve_optimizer(value: Any) -> Any:
    """``model.optimizer = value``: an optimizer, ``None``, or what ``compile`` takes (a name, a config)."""
    if value is None or isinstance(value, optimizers_module.Optimizer):
        return value
    try:
        return optimizers_module.get(value)
    except (ValueError, TypeError) as error:
        raise ValueError(
            f"model.optimizer must be a tfkit.optimizers.Optimizer, an optimizer name or config, or None; "
            f"got {value!r} ({type(value).__name__}): {error}"
        ) from None


def gpu_available() -> bool:
    return bool(tf.config.list_logical_devices("GPU"))


class CompiledState:
    """Optimizer, losses, metrics, loop settings and compiled loops of one compiled model."""

    def __init__(
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
        output_names: list[str] | None = None,
        policy_name: str | None = None,
        implicit: bool = False,
    ) -> None:
        self.implicit = implicit  # made by predict() on an uncompiled model: saved as uncompiled
        self.strategy = tf.distribute.get_strategy() if tf.distribute.has_strategy() else None
        with self.scope():
            self.optimizer = optimizers_module.get(optimizer) if optimizer is not None else None
            if (
                auto_scale_loss
                and self.optimizer is not None
                and policy_name == "mixed_float16"
                and not isinstance(self.optimizer, optimizers_module.LossScaleOptimizer)
            ):
                # float16 gradients underflow without loss scaling: Keras 3 wraps the optimizer here too
                self.optimizer = optimizers_module.LossScaleOptimizer(self.optimizer)
            names = output_names or ["output"]
            self.compile_loss = CompileLoss(loss, loss_weights, names)
            self.compile_metrics = (
                CompileMetrics(metrics, weighted_metrics, names, with_loss=self.compile_loss.with_loss)
                if metrics is not None or weighted_metrics is not None
                else None
            )
            self.loss_tracker = Mean(name="loss")
            # The shuffling seed: part of the state BackupAndRestore and model files keep.
            self.data_seed = tf.Variable(
                np.random.randint(0, 2**31 - 1, size=(2,), dtype=np.int64),
                trainable=False,
                name="data_seed",
                aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA,
            )
        self.run_eagerly = bool(run_eagerly)
        self.steps_per_execution = steps_per_execution
        ChunkPlanner(steps_per_execution, False, False)  # validates the setting
        self.jit_auto = jit_compile == "auto"
        self.jit_compile = (gpu_available() and not run_eagerly) if self.jit_auto else bool(jit_compile)
        self.config = {
            "optimizer": optimizer if isinstance(optimizer, (str, type(None))) else None,
            "loss": loss,
            "metrics": metrics,
            "loss_weights": loss_weights,
            "weighted_metrics": weighted_metrics,
            "run_eagerly": run_eagerly,
            "steps_per_execution": steps_per_execution,
            "jit_compile": jit_compile,
        }
        self.seconds_per_step: dict[tuple, float] = {}  # ChunkPlanner's measure, by (mode, batch size)
        self.xla_chooser: XlaChooser | None = None  # jit_compile="auto" deciding by measurement (fit)
        self._loops: dict[bool, StepLoops] = {}  # by jit_compile: switching back and forth recompiles nothing
        self._loops_key: Any = None
        self._activations_key: Any = None  # the layers' activation functions the loops were traced with
        self._loops_checked = False  # trainable weights compared once per fit/evaluate/predict call
        self._coordinated: Any = None  # CoordinatedLoops under ParameterServerStrategy, built on first use
        self._chief: StepLoops | None = None  # predict under ParameterServerStrategy runs on the chief
        self.mesh_steps: dict[tuple, Any] = {}  # compiled steps under a tfkit.distribution, by (mode, eagerly)

    def scope(self) -> Any:
        return self.strategy.scope() if self.strategy is not None else contextlib.nullcontext()

    def metrics(self) -> list[Any]:
        """The loss tracker and the compiled metrics container (when metrics were given)."""
        return [self.loss_tracker] + ([self.compile_metrics] if self.compile_metrics is not None else [])

    def checkpoint_state(self) -> dict[str, Any]:
        """Extra state for exact resume: the seed of data shuffling."""
        return {"data_seed": self.data_seed}

    def parameter_server(self) -> bool:
        """Whether steps run on remote workers through a ``ClusterCoordinator`` (``distributed_loops/``)."""
        if not distributed_loops.is_parameter_server(self.strategy):
            return False
        if self.run_eagerly:
            raise ValueError(
                "run_eagerly=True is not supported under ParameterServerStrategy: the steps run as "
                "compiled functions on the workers. Compile with run_eagerly=False."
            )
        return True

    # ------------------------------------------------------- compiled loops

    def weights_replaced(self) -> None:
        """The model's weights were replaced (``quantize``): trace the loops anew, and give a built
        optimizer a fresh copy of itself (its slots belonged to the weights that are gone)."""
        if self.optimizer is not None and getattr(self.optimizer, "built", False):
            with self.scope():
                self.optimizer = type(self.optimizer).from_config(self.optimizer.get_config())
        self._loops.clear()
        self._loops_key = None
        self._activations_key = None
        self._loops_checked = False

    def replace_optimizer(self, optimizer: Any) -> None:
        """``model.optimizer = optimizer`` after ``compile``: the compiled loops are traced anew with it.

        Like Keras 3's assignment it wraps nothing (no ``LossScaleOptimizer`` under ``mixed_float16``).
        """
        with self.scope():
            self.optimizer = resolve_optimizer(optimizer)
        self._loops.clear()
        self._chief = None
        self._coordinated = None
        self.mesh_steps.clear()
        self._loops_key = None
        self._activations_key = None
        self._loops_checked = False

    def recheck_loops(self) -> None:
        """Compare the trainable weights with the loops' once more (at the start of fit/evaluate/predict)."""
        self._loops_checked = False

    def loops(self, model: Any) -> StepLoops:
        """The model's compiled loops for the current ``jit_compile``; rebuilt when its trainable weights
        changed before the optimizer was built (an error after), or when a layer's activation was reassigned."""
        loops = self._loops.get(self.jit_compile)
        if loops is not None and self._loops_checked:
            return loops  # walking the layer tree costs ~1 ms: not once per compiled call
        key = tuple(id(v) for v in model.trainable_weights)
        activations_key = _assigned_activations(model)
        if self._loops and not self._loops_key:
            self._loops_key = key  # the model built itself inside the first compiled step: same loops
        if self._loops and self._activations_key is None:
            self._activations_key = activations_key  # its layers too (a subclass may make them in build)
        if self._loops and not _same_objects(activations_key, self._activations_key):
            self._loops.clear()  # `layer.activation = None` (Grad-CAM) after a compiled call: trace anew
            loops = None
        if key != self._loops_key:
            if (
                self._loops
                and self._loops_key
                and self.optimizer is not None
                and getattr(self.optimizer, "built", False)
            ):
                raise ValueError(
                    f"The trainable weights of model '{model.name}' changed since it was compiled "
                    f"(a layer's `trainable` was set). Call compile() again so the optimizer tracks the new set."
                )
            self._loops.clear()
            loops = None
        if loops is None:
            loops = self._loops[self.jit_compile] = StepLoops(model, self.jit_compile, self.strategy)
            self._loops_key = key
            self._activations_key = activations_key if model.built else None
        self._loops_checked = True
        return loops

    def built_loops(self) -> StepLoops | None:
        """The loops made so far for the current ``jit_compile`` (None before the first compiled call)."""
        return self._loops.get(self.jit_compile)

    def choose_xla(self, expected_steps: int | None, model: Any) -> XlaChooser | None:
        """The chooser timing both forms of ``jit_compile="auto"`` in this run; None when there is nothing to choose.

        Only single-device compiled runs choose: under a strategy the form stays the default.
        """
        if not self.jit_auto or self.run_eagerly or self.strategy is not None:
            return None
        if self.xla_chooser is None:
            gpu = gpu_available()
            self.jit_compile = starting_form(gpu, _loops_over_time(model), expected_steps)
            self.xla_chooser = XlaChooser(self.jit_compile, expected_steps, expected_saving(gpu))
        return self.xla_chooser if self.xla_chooser.deciding else None

    @property
    def xla_decision(self) -> XlaDecision | None:
        return self.xla_chooser.decision if self.xla_chooser is not None else None

    def chief_loops(self, model: Any) -> StepLoops:
        """Loops without a strategy, for ``predict`` on the chief under ParameterServerStrategy."""
        if self._chief is None or self._chief.jit_compile != self.jit_compile:
            self._chief = StepLoops(model, self.jit_compile, None)
        return self._chief

    def coordinated_loops(self, model: Any) -> Any:
        if self._coordinated is None or self._coordinated.jit_compile != self.jit_compile:
            self._coordinated = distributed_loops.CoordinatedLoops(model, self.strategy, self.jit_compile, to_floats)
        return self._coordinated

    def fall_back_from_xla(self, error: Exception, model_name: str) -> bool:
        """Turn XLA off after ``error`` when ``jit_compile="auto"`` chose it; False when the error is not XLA's."""
        if not (self.jit_compile and self.jit_auto) or _ASSERTION in str(error):
            return False  # a failed tf.debugging.assert_* / tf.Assert is the user's, not XLA's
        lines = [l.strip() for l in str(error).splitlines() if l.strip()]
        telling = [l for l in lines if any(k in l for k in ("XLA", "xla", "unsupported", "Unsupported", "compil"))]
        reason = (telling or lines or [type(error).__name__])[0][:300]
        warnings.warn(
            f"XLA could not compile model '{model_name}' ({reason}); falling back to jit_compile=False.",
            RuntimeWarning,
            stacklevel=4,
        )
        self.jit_compile = False
        self._loops.pop(True, None)
        return True
