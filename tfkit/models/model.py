"""``Model``: a ``Layer`` you can ``compile``, ``fit``, ``evaluate``, ``predict`` and save.

    vae = VariationalAutoEncoder(784, 64, 32)          # a Model subclass, as in the guide
    vae.compile(tfkit.optimizers.Adam(1e-3), loss=tfkit.losses.MeanSquaredError())
    vae.fit(x_train, x_train, epochs=2, batch_size=64)

A model *is* its trainer, as in Keras 3: ``compile``, the step methods
(``train_step``, ``test_step``, ``predict_step``: the documented override points)
and ``fit`` / ``evaluate`` / ``predict`` come from ``tfkit.training.Trainer``.
This file adds what makes a model a container of layers: building, symbolic
calls, the functional constructor, summary, configs and saving.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.symbolic import is_symbolic
from tfkit.engine import autograph, call_context, tracking
from tfkit.engine.layer import Layer
from tfkit.engine.serialization import layer_entry
from tfkit.engine.summary import print_summary
from tfkit.models.file_functions import files
from tfkit.models.input_signature import specs_from_build_shapes
from tfkit.models.pickling import model_from_bytes, model_to_bytes
from tfkit.models.quantize import quantize_layers
from tfkit.training.trainer import Trainer


class Model(Trainer, Layer):
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
        self._compiled = None   # a CompiledState once compile() (or predict) ran
        self._symbolic_cache: dict[str, Any] = {}

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
        cache = self._symbolic_cache
        if key in cache:
            return cache[key]
        specs = tf.nest.map_structure(lambda s: tf.TensorSpec((None, *s.shape[1:]), s.dtype), input_spec)
        known = self._graph_output_specs(specs)
        if known is not None:            # a functional graph already knows its outputs: no trace needed
            cache[key] = known
            return known
        concrete = tf.function(autograph.written_in_tensorflow(lambda x: self(x, training=False))) \
            .get_concrete_function(specs)
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
        self._symbolic_cache.clear()

    def default_input_signature(self) -> Any:
        """Named ``tf.TensorSpec``s of the inputs the model was built on (batch dimension None), for exports."""
        shapes = self._build_shapes
        if shapes is None or not self.built:
            raise ValueError(
                f"Model '{self.name}' has not been called yet, so its inputs are unknown. Call it on a batch "
                f"of data first, or pass input_signature=[tf.TensorSpec((None, ...), tf.float32)]."
            )
        return specs_from_build_shapes(shapes, self.variable_dtype)   # inputs arrive float32; layers cast them

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
        function = tf.function(autograph.written_in_tensorflow(
            lambda *x: self(x[0] if len(x) == 1 else list(x), training=False)), input_signature=specs)
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

    def __reduce__(self) -> tuple:
        """``pickle`` a model as its ``.h5`` bytes (Keras 3 pickles its ``.keras`` bytes)."""
        return model_from_bytes, (model_to_bytes(self),)

    def quantize(self, mode: str | None = None, config: Any = None, filters: Any = None, **kwargs: Any) -> None:
        """Quantize the weights of every matching ``Dense`` / ``Embedding`` (built first), as Keras's ``quantize``.

            model.quantize("int8")          # or config=tfkit.quantizers.Int8QuantizationConfig(...)
        """
        type_check = kwargs.pop("type_check", True)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}")
        if quantize_layers(self, mode, config, filters, type_check) and self._compiled is not None:
            self._compiled.weights_replaced()

    def export(self, filepath: Any, format: str = "tf_saved_model", verbose: bool = True,
               input_signature: Any = None, **kwargs: Any) -> str:
        """Write a SavedModel folder (TensorFlow Serving), or an ``"onnx"`` or ``"tflite"`` file.

        ONNX and TFLite files are checked against ``predict`` before they are
        kept; see ``tfkit.saving.export_model`` for each format's options.
        """
        return files().export_model(self, filepath, format=format, verbose=verbose,
                                   input_signature=input_signature, **kwargs)



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



def _free_batch(shapes: Any) -> Any:
    """``shapes`` (a shape tuple, or lists/dicts of them) with each leading dimension set to None."""
    if isinstance(shapes, tuple) and all(d is None or isinstance(d, int) for d in shapes):
        return (None, *shapes[1:]) if shapes else shapes
    if isinstance(shapes, dict):
        return {key: _free_batch(value) for key, value in shapes.items()}
    if isinstance(shapes, (list, tuple)):
        return type(shapes)(_free_batch(value) for value in shapes)
    return shapes
