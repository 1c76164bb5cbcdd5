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
from tfkit.base.argument_validation import is_shape
from tfkit.base.symbolic import is_symbolic
from tfkit.engine import autograph, call_context, shape_inference, tracking
from tfkit.engine.config_serialization import layer_entry
from tfkit.engine.input_signature import specs_from_build_shapes
from tfkit.engine.layer import Layer
from tfkit.engine.summary import print_summary
from tfkit.models.pickling import model_from_bytes, model_to_bytes
from tfkit.models.quantize import quantize_layers
from tfkit.saving import export_api, saving_api
from tfkit.training.trainer import Trainer


class Model(Trainer, Layer):
    """A model grouping layers into an object with training, inference and saving features.

    There are two ways to make a `Model`:

    - The functional API: start from `tfkit.Input`, chain layer calls to
      describe the forward pass, and create the model from its inputs and
      outputs: `tfkit.Model(inputs, outputs)`. This returns a
      `tfkit.Functional` model, which knows its graph of layers (for
      `summary`, `get_config` and saving without custom code).
    - Subclassing: define the layers in `__init__` and the forward pass in
      `call`. The model builds its weights on its first call (or in
      `build`). A subclass may also call `super().__init__(inputs=...,
      outputs=...)` to become a functional model that keeps its own methods
      (such as a custom `train_step`).

    A model is a `tfkit.Layer` (with `weights`, `get_config`, `__call__`)
    and its own trainer, as in Keras 3: `compile`, `fit`, `evaluate`,
    `predict`, their one-batch forms, and the overridable `train_step`,
    `test_step` and `predict_step`. `save` writes one file atomically (a
    Keras 3 `.keras` archive, or tfkit's `.h5`), and `export` writes a
    SavedModel, ONNX or TFLite file for serving.

    Args:
        *args: For a functional model, `inputs` and `outputs` (a tensor from
            `tfkit.Input`, or a list or dict of them, and the tensors the
            layers computed from them). A subclass's own arguments are its
            `__init__`'s.
        **kwargs: `inputs` and `outputs` given by name, and the base layer
            keyword arguments: `name` (a string; defaults to one made from
            the class name), `trainable` (whether the weights are trained;
            defaults to `True`) and `dtype` (a dtype policy or its name).

    Example:
        >>> inputs = tfkit.Input((3,))
        >>> outputs = tfkit.layers.Dense(2)(inputs)
        >>> model = tfkit.Model(inputs, outputs)
        >>> type(model).__name__
        'Functional'
        >>> model(np.ones((4, 3))).shape
        TensorShape([4, 2])

        A subclassed model:

        >>> class TwoLayers(tfkit.Model):
        ...     def __init__(self, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.hidden = tfkit.layers.Dense(4, activation="relu")
        ...         self.out = tfkit.layers.Dense(1)
        ...     def call(self, inputs):
        ...         return self.out(self.hidden(inputs))
        >>> model = TwoLayers()
        >>> model.compile(optimizer="adam", loss="mse")
        >>> history = model.fit(np.ones((8, 3)), np.zeros((8, 1)), epochs=1, verbose=0)
        >>> len(model.weights)
        4
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
        self._compiled = None  # a CompiledState once compile() (or predict) ran
        self._symbolic_cache: dict[str, Any] = {}

    # --------------------------------------------------------------- layers

    @property
    def layers(self) -> list[Layer]:
        """The model's direct sub-layers, in the order they were set as attributes (or added)."""
        return [layer for _, layer in tracking.children(self)]

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """Retrieves a layer by its name or by its index in `model.layers`.

        When both are given, `index` wins.

        Args:
            name: String, the name of the layer. Defaults to `None`.
            index: Integer, the index of the layer in `model.layers`
                (negative indices count from the end). Defaults to `None`.

        Returns:
            The layer.

        Raises:
            ValueError: If no layer has that name, or `index` is out of range.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2, name="hidden")])
            >>> model.get_layer("hidden").units
            2
            >>> model.get_layer(index=0).name
            'hidden'
        """
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
        """Builds the model's weights for inputs of `input_shape`.

        Traces a call of the model on symbolic inputs of that shape (nothing
        runs), so every sub-layer creates its weights. Calling the model on
        data builds it too.

        Args:
            input_shape: A shape tuple (the batch dimension may be `None`),
                or a list or dict of them for a model with several inputs.

        Example:
            >>> class Net(tfkit.Model):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.dense = tfkit.layers.Dense(2)
            ...     def call(self, x):
            ...         return self.dense(x)
            >>> net = Net()
            >>> net.build((None, 3))
            >>> [tuple(w.shape) for w in net.weights]
            [(3, 2), (2,)]
        """
        frame = call_context.current()
        if frame is not None and frame.layer is self:
            return  # called from our own first __call__: sub-layers build themselves
        spec = (
            tf.nest.map_structure(lambda s: tf.TensorSpec(s, self.compute_dtype), input_shape, check_types=False)
            if not is_shape(input_shape)
            else tf.TensorSpec(tuple(input_shape), self.compute_dtype)
        )
        self.symbolic_call(spec)

    def symbolic_call(self, input_spec: Any) -> Any:
        """Traces `self(x, training=False)` for `input_spec` without running it; returns the output specs.

        Args:
            input_spec: A `tf.TensorSpec`, or a structure of them, for the
                inputs (the batch dimension is made `None`).

        Returns:
            The outputs' `tf.TensorSpec` objects, in the structure of the outputs.
        """
        key = repr(input_spec)
        cache = self._symbolic_cache
        if key in cache:
            return cache[key]
        specs = tf.nest.map_structure(lambda s: tf.TensorSpec((None, *s.shape[1:]), s.dtype), input_spec)
        known = self._graph_output_specs(specs)
        if known is not None:  # a functional graph already knows its outputs: no trace needed
            cache[key] = known
            return known
        with shape_inference.symbolic_trace():  # traced for its output specs only, never run
            concrete = tf.function(
                autograph.written_in_tensorflow(lambda x: self(x, training=False))
            ).get_concrete_function(specs)
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

    def _restore_state(self, snapshot: dict[str, Any]) -> None:
        """A layer's restore (a load that failed undoes its build), and the output specs traced since are forgotten."""
        super()._restore_state(snapshot)
        self._reset_symbolic_cache()

    def default_input_signature(self) -> Any:
        """Named `tf.TensorSpec` objects for the inputs the model was built on (batch dimension `None`), for exports.

        Raises:
            ValueError: If the model has not been built or called yet.
        """
        shapes = self._build_shapes
        if shapes is None or not self.built:
            raise ValueError(
                f"Model '{self.name}' has not been called yet, so its inputs are unknown. Call it on a batch "
                f"of data first, or pass input_signature=[tf.TensorSpec((None, ...), tf.float32)]."
            )
        return specs_from_build_shapes(shapes, self.variable_dtype)  # inputs arrive float32; layers cast them

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
        function = tf.function(
            autograph.written_in_tensorflow(lambda *x: self(x[0] if len(x) == 1 else list(x), training=False)),
            input_signature=specs,
        )
        return function.get_concrete_function()

    # -------------------------------------------------------------- summary

    def summary(
        self,
        line_length: int | None = None,
        positions: Any = None,
        print_fn: Callable[[str], Any] | None = None,
        expand_nested: bool = False,
        show_trainable: bool = False,
        layer_range: Any = None,
    ) -> None:
        """Prints a string summary of the network.

        A table of the layers (name, class, output shape, parameter count,
        and for functional models the layers each one is connected to),
        then the total, trainable and non-trainable parameter counts and
        their size, and the optimizer's once it is built. Long cells wrap
        onto the next lines instead of being cut.

        Args:
            line_length: Total width of the printed lines. Defaults to
                `None`: the terminal's width, between 80 and 120.
            positions: Relative or absolute positions of the column ends.
                Defaults to `None` (sized to the content).
            print_fn: Function called with each line of the summary (for
                example to write it to a log). Defaults to `None` (`print`).
            expand_nested: Whether to list the layers of nested models too.
                Defaults to `False`.
            show_trainable: Whether to add a column telling whether each
                layer is trainable. Defaults to `False`.
            layer_range: A list or tuple of two layer names (or name
                patterns), the first and last layers to show. Defaults to
                `None` (all layers).

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2, name="dense")], name="tiny")
            >>> model.summary(line_length=60)
            Model: "tiny"
            ──────────────────────────────────────
            Layer (type)  │ Output Shape │ Param #
            ══════════════════════════════════════
            dense (Dense) │ (None, 2)    │ 8
            ──────────────────────────────────────
             Total params: 8 (32 B)
             Trainable params: 8 (32 B)
             Non-trainable params: 0 (0 B)
        """
        print_summary(
            self,
            line_length=line_length,
            expand_nested=expand_nested,
            print_fn=print_fn,
            show_trainable=show_trainable,
            positions=positions,
            layer_range=layer_range,
        )

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> "Model":
        """Creates a model from its config (the output of `get_config`).

        A functional config (with `layers`, `input_layers` and
        `output_layers`) gives a functional model (of `cls` when it is a
        subclass); any other config is passed to `cls(**config)`.

        Args:
            config: A dict, the model's config.
            custom_objects: Optional dict mapping names to custom classes or
                functions the config refers to. Defaults to `None`.

        Returns:
            A new model (unbuilt weights are created from the config, not
            copied).

        Example:
            >>> inputs = tfkit.Input((3,))
            >>> model = tfkit.Model(inputs, tfkit.layers.Dense(2)(inputs))
            >>> clone = tfkit.Model.from_config(model.get_config())
            >>> clone(np.ones((1, 3))).shape
            TensorShape([1, 2])
        """
        if "layers" in config and "input_layers" in config and "output_layers" in config:
            Functional = Model._functional_class
            if cls is Model or issubclass(cls, Functional):
                return Functional.from_config.__func__(
                    Functional if cls is Model else cls, config, custom_objects=custom_objects
                )
            return Functional.from_config.__func__(cls, config, custom_objects=custom_objects)
        return super().from_config(config)

    def to_json(self, **kwargs: Any) -> str:
        """Returns a JSON string describing the model's architecture (no weights).

        `tfkit.models.model_from_json` reads it back.

        Args:
            **kwargs: Keyword arguments passed to `json.dumps` (such as
                `indent`).

        Returns:
            A JSON string.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
            >>> clone = tfkit.models.model_from_json(model.to_json())
            >>> type(clone).__name__, len(clone.layers)
            ('Sequential', 1)
        """
        return json.dumps(layer_entry(self), **kwargs)

    # --------------------------------------------------------------- saving

    def save(self, filepath: Any, overwrite: bool = True, include_optimizer: bool = True) -> None:
        """Saves the model (architecture, weights, compile arguments and optimizer state) to one file.

        A `.keras` path gets Keras 3's archive, which Keras's `load_model`
        opens too (what Keras's format cannot express is refused before
        anything is written); `.h5` or `.hdf5` gets tfkit's own HDF5 format.
        The save is atomic: the file is written beside the target and renamed
        over it, so an interrupted save leaves the previous file intact. A
        model `tfkit.load_model` reads back continues `fit` where this one
        stopped (optimizer state and data shuffling seed included). See
        `tfkit.saving.save_model`.

        Args:
            filepath: A path (string or `os.PathLike`), such as
                `"model.keras"` or `"model.h5"`.
            overwrite: Whether to replace an existing file. If `False` and
                the file exists, an error is raised. Defaults to `True`.
            include_optimizer: Whether to save the optimizer's state.
                Defaults to `True`.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
            >>> model.save("model.keras")
            >>> restored = tfkit.load_model("model.keras")
            >>> np.allclose(restored.predict(np.ones((1, 3)), verbose=0), model.predict(np.ones((1, 3)), verbose=0))
            True
        """
        saving_api.save_model(self, filepath, overwrite=overwrite, include_optimizer=include_optimizer)

    def save_weights(self, filepath: Any, overwrite: bool = True) -> None:
        """Saves all the weights of the model to a file, atomically.

        A path ending in `.weights.h5` gets Keras 3's weights file (Keras's
        `load_weights` reads it too), another `.h5` path tfkit's HDF5 weights
        file; any other path is used as a `tf.train.Checkpoint` prefix. See
        `tfkit.saving.save_weights`.

        Args:
            filepath: A path (string or `os.PathLike`).
            overwrite: Whether to replace an existing file. Defaults to
                `True`.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
            >>> model.save_weights("model.weights.h5")
            >>> other = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
            >>> other.load_weights("model.weights.h5")
            >>> np.array_equal(other.weights[0].numpy(), model.weights[0].numpy())
            True
        """
        saving_api.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath: Any, skip_mismatch: bool = False) -> None:
        """Loads the weights from a file written by `save_weights` (or `save`).

        Reads Keras 3's `.weights.h5` and `.keras` files (tfkit's or
        Keras's), a tfkit `.h5` weights or model file, or a TensorFlow
        checkpoint prefix. Weights are
        matched by their attribute path (such as `dense/kernel`), not by
        creation order. Loading is all or nothing: every stored weight's
        shape and dtype is checked before any is assigned. An unbuilt model is built from the shapes in
        the file. See `tfkit.saving.load_weights`.

        Args:
            filepath: A path (string or `os.PathLike`).
            skip_mismatch: Whether to skip the weights whose shape or count
                does not match the model's (with a warning) instead of
                raising. Defaults to `False`.

        Raises:
            ValueError: If the file does not match the model (and
                `skip_mismatch` is `False`) or cannot be read.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
            >>> model.save_weights("model.weights.h5")
            >>> model.load_weights("model.weights.h5")
        """
        saving_api.load_weights(self, filepath, skip_mismatch=skip_mismatch)

    def __reduce__(self) -> tuple:
        """``pickle`` a model as its ``.h5`` bytes (Keras 3 pickles its ``.keras`` bytes)."""
        return model_from_bytes, (model_to_bytes(self),)

    def quantize(self, mode: str | None = None, config: Any = None, filters: Any = None, **kwargs: Any) -> None:
        """Quantizes the weights of the model's quantizable layers, as Keras's `quantize`.

        Every matching leaf layer with a `quantize` method (in tfkit:
        `Dense`, `EinsumDense` and `Embedding`) replaces its weights by
        quantized ones; layers that cannot quantize in the mode warn and
        stay as they are. A compiled model retraces its loops and gets a
        fresh optimizer state. tfkit supports the `"int8"` and `"int4"`
        modes; float8, GPTQ and AWQ are refused before any layer changes.

        Args:
            mode: The quantization mode, `"int8"` or `"int4"`. Defaults to
                `None` (taken from `config`).
            config: A `tfkit.quantizers.QuantizationConfig` instance, instead
                of or in addition to `mode`. Defaults to `None`.
            filters: Which layers to quantize: a regex string or a list of
                them matched against layer names, or a callable taking a
                layer and returning a bool. Defaults to `None` (all).
            **kwargs: Only `type_check` (bool, default `True`): whether a
                layer checks it is of the type it expects.

        Raises:
            ValueError: For unknown keyword arguments or invalid `filters`.
            NotImplementedError: For a mode tfkit does not build.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(2)])
            >>> model.quantize("int8")
            >>> model.layers[0].dtype_policy.name
            'int8_from_float32'
        """
        type_check = kwargs.pop("type_check", True)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}")
        if quantize_layers(self, mode, config, filters, type_check) and self._compiled is not None:
            self._compiled.weights_replaced()

    def export(
        self,
        filepath: Any,
        format: str = "tf_saved_model",
        verbose: bool = True,
        input_signature: Any = None,
        **kwargs: Any,
    ) -> str:
        """Exports the model for inference: a SavedModel folder, or an ONNX or TFLite file.

        The export is checked against `predict` on a seeded batch before it
        is published (pass `verify=False` to skip the check), and written
        atomically. See `tfkit.saving.export_model` for each format's
        options.

        Args:
            filepath: The folder (SavedModel) or file path to write.
            format: `"tf_saved_model"` (for TensorFlow Serving), `"onnx"`,
                or `"tflite"` (alias `"litert"`). Defaults to
                `"tf_saved_model"`.
            verbose: Whether to print a line saying what was written and
                whether it agrees with `predict`. Defaults to `True`.
            input_signature: Optional `tf.TensorSpec` (or a list of them)
                for the inputs. Defaults to `None`: the shapes the model
                was built on, with a free batch dimension.
            **kwargs: Format options: `verify` (default `True`) and
                `overwrite` for every format; `jit_compile`, `signatures`
                and `version` for `"tf_saved_model"`; `opset_version` for
                `"onnx"`; `select_tf_ops` and `optimizations` for
                `"tflite"`.

        Returns:
            The path written.

        Raises:
            ValueError: For an unknown format, or a model whose inputs are
                not known (not built, and no `input_signature`).

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
            >>> path = model.export("exported", verbose=False)
            >>> reloaded = tf.saved_model.load(path)
            >>> reloaded.serve(tf.ones((1, 3))).shape
            TensorShape([1, 2])
        """
        return export_api.export_model(
            self, filepath, format=format, verbose=verbose, input_signature=input_signature, **kwargs
        )


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
        variant = type(
            cls.__name__, (cls, functional), {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        )
        registry.register_variant(variant, of=cls)  # saved, and found on loading, as the user's class
        _FUNCTIONAL_VARIANTS[cls] = variant
    return variant


def _free_batch(shapes: Any) -> Any:
    """``shapes`` (a shape tuple, or lists/dicts of them) with each leading dimension set to None."""
    if isinstance(shapes, tuple) and all(d is None or isinstance(d, int) for d in shapes):
        return (None, *shapes[1:]) if shapes else shapes
    if isinstance(shapes, dict):
        return {key: _free_batch(value) for key, value in shapes.items()}
    if isinstance(shapes, (list, tuple)):
        return type(shapes)(_free_batch(value) for value in shapes)
    return shapes
