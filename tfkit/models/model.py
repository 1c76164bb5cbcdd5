"""``Model``: a ``Layer`` you can ``compile``, ``fit``, ``evaluate``, ``predict`` and save.

    vae = VariationalAutoEncoder(784, 64, 32)          # a Model subclass, as in the guide
    vae.compile(tfkit.optimizers.Adam(1e-3), loss=tfkit.losses.MeanSquaredError())
    vae.fit(x_train, x_train, epochs=2, batch_size=64)

This class is the user-facing front: the loops live in ``trainer.py`` and
``steps.py``. The step methods (``train_step``, ``test_step``,
``predict_step``) are the documented override points.
"""

from __future__ import annotations

import functools
import inspect
import json
from typing import Any, Callable

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.symbolic import is_symbolic
from tfkit.engine import call_context, tracking
from tfkit.engine.layer import Layer
from tfkit.engine.serialization import layer_entry
from tfkit.engine.summary import print_summary
from tfkit.metrics import Metric
from tfkit.models.file_functions import files
from tfkit.models.input_signature import specs_from_build_shapes
from tfkit.training import compile_config as compile_config_module
from tfkit.training.compile_utils import display_name
from tfkit.training.debug_caps import capped
from tfkit.training.fit_arguments import check_loop_arguments, explain_step_error
from tfkit.training.trainer import Trainer
from tfkit.utils.data_tuples import unpack_x_y_sample_weight


class Model(Layer):
    """A layer with training, evaluation, prediction and saving.

        model = MyModel()
        model.compile(optimizer="adam", loss="mse")
        history = model.fit(x, y, epochs=3)
    """

    # The class ``Model(inputs, outputs)`` makes: ``models.functional`` sets it when it is imported.
    _functional_class: type | None = None

    def __new__(cls, *args: Any, **kwargs: Any) -> "Model":
        if _functional_arguments(args, kwargs):
            Functional = Model._functional_class
            if cls is Model:
                return Functional.__new__(Functional, *args, **kwargs)  # Python then runs Functional.__init__
            if not issubclass(cls, Functional):
                # ``CustomModel(inputs, outputs)``: a functional model that keeps the
                # subclass's overrides (train_step, test_step, ...) and its class name.
                functional_cls = _functional_variant(cls, Functional)
                return Functional.__new__(functional_cls, *args, **kwargs)
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        Functional = Model._functional_class
        if not isinstance(self, Functional) and _functional_arguments(args, kwargs):
            # a subclass whose __init__ builds a graph and calls super().__init__(inputs=..., outputs=...)
            self.__class__ = _functional_variant(type(self), Functional)
            Functional.__init__(self, *args, **kwargs)
            return
        super().__init__(*args, **kwargs)
        self._compiled: Trainer | None = None   # what compile() made (None until then)
        self._tfkit_stop_training = False
        self._tfkit_history = None
        self._tfkit_symbolic_cache: dict[str, Any] = {}
        # The epoch the next fit starts at when a callback resumed training (Keras 3's attribute):
        # BackupAndRestore sets it in on_train_begin; fit reads it once and clears it.
        self._initial_epoch: int | None = None

    # --------------------------------------------------------------- layers

    @property
    def layers(self) -> list[Layer]:
        """Direct sub-layers, in attribute order."""
        return [layer for _, layer in tracking.children(self)]

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise ValueError(f"Model '{self.name}' has {len(layers)} layers; index {index} is out of range")
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No layer named {name!r} in model '{self.name}'; layers: {[l.name for l in layers]}")

    def _build_from_call(self, first: Any, args: tuple, kwargs: dict) -> None:
        super()._build_from_call(first, args, kwargs)
        if not tf.executing_eagerly():
            # Built inside a compiled step (fit's first chunk): that step's batch size is not the model's.
            self._set_build_shapes(_free_batch(self._build_shapes))

    def build(self, input_shape: Any) -> None:
        """Create the weights by tracing a call on inputs of ``input_shape`` (batch may be None)."""
        frame = call_context.current()
        if frame is not None and frame.layer is self:
            return  # called from our own first __call__: sub-layers build themselves
        spec = tf.nest.map_structure(
            lambda s: tf.TensorSpec(s, self.compute_dtype), input_shape,
            check_types=False,
        ) if not _is_shape(input_shape) else tf.TensorSpec(tuple(input_shape), self.compute_dtype)
        self.symbolic_call(spec)

    def symbolic_call(self, input_spec: Any) -> Any:
        """Trace ``self(x, training=False)`` for ``input_spec`` without running it; returns output specs."""
        key = repr(input_spec)
        cache = self._tfkit_symbolic_cache
        if key in cache:
            return cache[key]
        specs = tf.nest.map_structure(lambda s: tf.TensorSpec((None, *s.shape[1:]), s.dtype), input_spec)
        known = self._graph_output_specs(specs)
        if known is not None:            # a functional graph already knows its outputs: no trace needed
            cache[key] = known
            return known
        concrete = tf.function(lambda x: self(x, training=False)).get_concrete_function(specs)
        outputs = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), concrete.structured_outputs)
        self._clear_losses()
        if not self.built:
            self.built = True
        if self._build_shapes is None:
            self._set_build_shapes(tf.nest.map_structure(lambda s: tuple(s.shape.as_list()), specs))
        cache[key] = outputs
        return outputs

    def _graph_output_specs(self, specs: Any) -> Any:
        """Output specs read off a recorded graph for ``specs``, without a trace; None here (no graph)."""
        return None

    def _reset_symbolic_cache(self) -> None:
        """Forget traced output specs (the layers changed)."""
        self._tfkit_symbolic_cache.clear()

    def default_input_signature(self) -> Any:
        """Named ``tf.TensorSpec``s of the inputs the model was built on (batch dimension None), for exports."""
        shapes = self._build_shapes
        if shapes is None or not self.built:
            raise ValueError(
                f"Model '{self.name}' has not been called yet, so its inputs are unknown. Call it on a batch "
                f"of data first, or pass input_signature=[tf.TensorSpec((None, ...), tf.float32)]."
            )
        return specs_from_build_shapes(shapes, self.variable_dtype)   # inputs arrive float32; layers cast them

    def output_names_for_compile(self) -> list[str]:
        names = getattr(self, "output_names", None)
        return list(names) if names else ["output"]

    # -------------------------------------------------------------- compile

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
        self._compiled = Trainer(
            self, optimizer, loss, metrics, loss_weights, weighted_metrics,
            run_eagerly, steps_per_execution, jit_compile, auto_scale_loss,
        )

    @property
    def compiled(self) -> bool:
        return self._compiled is not None

    def _trainer(self) -> Any:
        if self._compiled is None:
            raise RuntimeError(f"Model '{self.name}' must be compiled first: call model.compile(optimizer, loss)")
        return self._compiled

    @property
    def optimizer(self) -> Any:
        return self._compiled.optimizer if self._compiled is not None else None

    @property
    def distribute_strategy(self) -> tf.distribute.Strategy:
        """The ``tf.distribute`` strategy the model was compiled (or its variables created) under."""
        trainer = self._compiled
        if trainer is not None and trainer.strategy is not None:
            return trainer.strategy
        for weight in self.weights:
            strategy = getattr(weight, "distribute_strategy", None) if isinstance(
                weight, tf.distribute.DistributedValues) else None
            if strategy is not None:
                return strategy
        return tf.distribute.get_strategy()

    @property
    def loss(self) -> Any:
        return self._compiled.config["loss"] if self._compiled is not None else None

    @property
    def stop_training(self) -> bool:
        return self._tfkit_stop_training

    @stop_training.setter
    def stop_training(self, value: bool) -> None:
        self._tfkit_stop_training = bool(value)

    @property
    def history(self) -> Any:
        return self._tfkit_history

    @history.setter
    def history(self, value: Any) -> None:
        self._tfkit_history = value

    @property
    def jit_compile(self) -> bool:
        return bool(self._compiled and self._compiled.jit_compile)

    @property
    def train_function(self) -> Callable | None:
        trainer = self._compiled
        if trainer is None or trainer._loops is None:
            return None
        fns = [fn for key, fn in trainer._loops._cache.items() if "train" in key]
        return fns[0] if fns else None

    # -------------------------------------------------------------- metrics

    @property
    def metrics(self) -> list[Any]:
        """The loss tracker, the compiled metrics, then metrics held as attributes of the model and its layers.

        As in Keras 3, a metric a layer keeps (``self.accuracy = BinaryAccuracy()``,
        updated in its ``call``) is reported by ``fit`` and ``evaluate`` and reset
        with the others.
        """
        out = list(self._compiled.metrics()) if self._compiled is not None else []
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
        if self._compiled is not None:
            self._compiled.reset_metrics()
            return
        for metric in self.metrics:
            metric.reset_state()

    def get_metrics_result(self) -> dict[str, Any]:
        """Current results of every metric, flattened to one dict."""
        logs: dict[str, Any] = {}
        for metric in self.metrics:
            result = metric.result()
            if isinstance(result, dict):
                logs.update(result)
            else:
                logs[metric.name] = result
        trainer = self._compiled
        if trainer is not None:
            for tracker in trainer.compile_loss.trackers:
                logs[tracker.name] = tracker.result()
        return logs

    # ---------------------------------------------------------------- steps

    def compute_loss(
        self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None, training: bool = True
    ) -> tf.Tensor:
        """Compiled loss + ``add_loss`` losses + regularization, scaled for the replicas."""
        del x, training
        trainer = self._trainer()
        total = trainer.compile_loss(y, y_pred, sample_weight)  # loss objects already scale per replica
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
        trainer = self._trainer()
        if trainer.compile_metrics is not None:
            trainer.compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def _track_loss(self, loss: tf.Tensor, x: Any) -> None:
        replicas = tf.distribute.get_strategy().num_replicas_in_sync
        unscaled = loss * replicas if replicas > 1 else loss
        batch = tf.shape(tf.nest.flatten(x)[0])[0]
        self._trainer().loss_tracker.update_state(unscaled, sample_weight=tf.cast(batch, unscaled.dtype))

    def _defines_own_step(self, mode: str) -> bool:
        """Whether this model's class overrides ``<mode>_step`` (``"train"``, ``"test"``, ``"predict"``)."""
        name = f"{mode}_step"
        return getattr(type(self), name) is not getattr(Model, name)

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

    # ---------------------------------------------------------------- loops

    def fit(self, x: Any = None, y: Any = None, batch_size: int | None = None, epochs: int = 1, **kwargs: Any) -> Any:
        """Train for ``epochs`` epochs; returns the ``History`` callback."""
        check_loop_arguments("fit", self, x, y, batch_size=batch_size, epochs=epochs, **kwargs)
        epochs, kwargs = capped("fit", epochs, kwargs)   # tfkit.config.set_max_epochs / max_steps_per_epoch
        try:
            return self._trainer().fit(x, y, batch_size=batch_size, epochs=epochs, **kwargs)
        except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as error:
            raise explain_step_error("fit", error, self) from error

    def evaluate(self, x: Any = None, y: Any = None, batch_size: int | None = None, **kwargs: Any) -> Any:
        """Loss (and metrics) on the data: a scalar, a list, or a dict with ``return_dict=True``."""
        check_loop_arguments("evaluate", self, x, y, batch_size=batch_size, **kwargs)
        _, kwargs = capped("evaluate", None, kwargs)
        try:
            return self._trainer().evaluate(x, y, batch_size=batch_size, **kwargs)
        except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as error:
            raise explain_step_error("evaluate", error, self) from error

    def predict(self, x: Any, batch_size: int | None = None, **kwargs: Any) -> Any:
        """Outputs as numpy arrays, computed in batches."""
        check_loop_arguments("predict", self, x, batch_size=batch_size, **kwargs)
        _, kwargs = capped("predict", None, kwargs)
        if self._compiled is None:
            self._compiled = Trainer(self, optimizer=None)
            self._compiled.implicit = True
        try:
            return self._compiled.predict(x, batch_size=batch_size, **kwargs)
        except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as error:
            raise explain_step_error("predict", error, self) from error

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, class_weight: Any = None,
                       return_dict: bool = False) -> Any:
        logs = self._trainer().run_on_batch("train", x, y, sample_weight, class_weight)
        return _format_logs(logs, return_dict)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False) -> Any:
        self._trainer().reset_metrics()
        logs = self._trainer().run_on_batch("test", x, y, sample_weight)
        return _format_logs(logs, return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        return tf.nest.map_structure(lambda t: t.numpy(), self(x, training=False))

    # --------------------------------------------------- tf.saved_model.save

    def _trackable_children(self, save_type: str = "checkpoint", **kwargs: Any) -> dict[str, Any]:
        """For ``tf.saved_model.save(model, path)``: no training loops, and a ``serving_default`` signature.

        The compiled fit/evaluate loops capture metric variables and cannot be
        saved; they are left out. The default signature is ``model(x,
        training=False)`` on the model's input specs, when those are known.
        """
        children = super()._trackable_children(save_type, **kwargs)
        if save_type != "savedmodel":
            return children
        for name in ("train_function", "test_function", "predict_function"):
            children.pop(name, None)
        if "_default_save_signature" not in children:
            signature = self._default_save_signature()
            if signature is not None:
                children["_default_save_signature"] = signature
        return children

    def _default_save_signature(self) -> Any:
        try:
            specs = self.default_input_signature()
        except ValueError:
            return None
        specs = list(specs) if isinstance(specs, (list, tuple)) else [specs]
        function = tf.function(lambda *x: self(x[0] if len(x) == 1 else list(x), training=False),
                               input_signature=specs)
        return function.get_concrete_function()

    # -------------------------------------------------------------- summary

    def summary(self, line_length: int | None = None, positions: Any = None,
                print_fn: Callable[[str], Any] | None = None, expand_nested: bool = False,
                show_trainable: bool = False, layer_range: Any = None) -> None:
        """Print the layer table and parameter counts (Keras 3's arguments, in its order)."""
        print_summary(self, line_length=line_length, expand_nested=expand_nested, print_fn=print_fn,
                      show_trainable=show_trainable, positions=positions, layer_range=layer_range)

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> "Model":
        """Rebuild a model; functional configs (layers + input/output layers) give a functional model."""
        if "layers" in config and "input_layers" in config and "output_layers" in config:
            Functional = Model._functional_class
            if cls is Model or issubclass(cls, Functional):
                return Functional.from_config.__func__(Functional if cls is Model else cls, config,
                                                       custom_objects=custom_objects)
            return Functional.from_config.__func__(cls, config, custom_objects=custom_objects)
        return super().from_config(config)

    def to_json(self, **kwargs: Any) -> str:
        """The architecture as JSON (no weights); ``tfkit.models.model_from_json`` reads it back."""
        return json.dumps(layer_entry(self), **kwargs)

    # --------------------------------------------------------------- saving

    def save(self, filepath: Any, overwrite: bool = True, include_optimizer: bool = True) -> None:
        """Save config, weights, compile config and optimizer state to an .h5 file (atomically)."""
        files().save_model(self, filepath, overwrite=overwrite, include_optimizer=include_optimizer)

    def save_weights(self, filepath: Any, overwrite: bool = True) -> None:
        """Weights by path to ``*.h5``; any other path is a ``tf.train.Checkpoint`` prefix."""
        files().save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath: Any, skip_mismatch: bool = False) -> None:
        """Load weights by path (all or nothing unless ``skip_mismatch``); builds an unbuilt model from the file."""
        files().load_weights(self, filepath, skip_mismatch=skip_mismatch)

    def export(self, filepath: Any, format: str = "tf_saved_model", verbose: bool = True,
               input_signature: Any = None, **kwargs: Any) -> str:
        """Write a SavedModel folder (TensorFlow Serving), or an ``"onnx"`` or ``"tflite"`` file.

        ONNX and TFLite files are checked against ``predict`` before they are
        kept; see ``tfkit.saving.export_model`` for each format's options.
        """
        return files().export_model(self, filepath, format=format, verbose=verbose,
                                   input_signature=input_signature, **kwargs)

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
        trainer = self._compiled
        return trainer.checkpoint_state() if trainer is not None else {}


@functools.lru_cache(maxsize=None)
def _accepts_training(function: Any) -> bool:
    parameters = inspect.signature(function).parameters
    return "training" in parameters or any(p.kind == p.VAR_KEYWORD for p in parameters.values())


def _functional_arguments(args: tuple, kwargs: dict) -> bool:
    """Whether a constructor call looks like ``Model(inputs, outputs)``."""
    if "inputs" in kwargs and "outputs" in kwargs:
        return True
    if len(args) >= 2 and is_symbolic(args[0]) and is_symbolic(args[1]):
        return True
    return len(args) == 1 and is_symbolic(args[0]) and "outputs" in kwargs


_FUNCTIONAL_VARIANTS: dict[type, type] = {}


def _functional_variant(cls: type, functional: type) -> type:
    """``cls`` with ``Functional`` behind it in the MRO: same name, same overrides."""
    variant = _FUNCTIONAL_VARIANTS.get(cls)
    if variant is None:
        variant = type(cls.__name__, (cls, functional), {"__module__": cls.__module__,
                                                         "__qualname__": cls.__qualname__})
        registry.register_variant(variant, of=cls)     # saved, and found on loading, as the user's class
        _FUNCTIONAL_VARIANTS[cls] = variant
    return variant


def _is_shape(value: Any) -> bool:
    return isinstance(value, (tuple, list, tf.TensorShape)) and all(d is None or isinstance(d, int) for d in value)


def _format_logs(logs: dict, return_dict: bool) -> Any:
    if return_dict:
        return logs
    values = list(logs.values())
    return values[0] if len(values) == 1 else values


def _free_batch(shapes: Any) -> Any:
    """``shapes`` (a shape tuple, or lists/dicts of them) with each leading dimension set to None."""
    if isinstance(shapes, tuple) and all(d is None or isinstance(d, int) for d in shapes):
        return (None, *shapes[1:]) if shapes else shapes
    if isinstance(shapes, dict):
        return {key: _free_batch(value) for key, value in shapes.items()}
    if isinstance(shapes, (list, tuple)):
        return type(shapes)(_free_batch(value) for value in shapes)
    return shapes
