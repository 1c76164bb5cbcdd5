"""``clone_model`` with Keras 3's arguments: new layers (fresh weights) on the same graph.

    twin = tfkit.models.clone_model(model)                       # same architecture, new weights
    seeded = tfkit.models.clone_model(model, clone_function=lambda layer: type(layer).from_config(
        {**layer.get_config(), "seed": 1337} if "seed" in layer.get_config() else layer.get_config()))

Without ``clone_function`` / ``call_function`` / ``input_tensors`` a model is cloned through
its config (so unregistered custom layers clone without ``custom_objects``). With them a
Functional model's graph is run again node by node on new inputs, each layer replaced by
``clone_function(layer)`` (once per layer: a shared layer stays shared) and called through
``call_function(layer, *args, **kwargs)``; a Sequential model gets its layers replaced.
``recursive=True`` clones nested Sequential and Functional models the same way instead of
handing them to ``clone_function``. A compiled model's clone is compiled alike, as in Keras.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.symbolic import SymbolicTensor
from tfkit.engine import tracking
from tfkit.engine.functional_graph import Input, InputLayer
from tfkit.engine.layer import Layer
from tfkit.models.functional import Functional
from tfkit.models.model import Model
from tfkit.models.sequential import Sequential
from tfkit.saving.model_config import model_from_config, serialize_model

CloneFunction = Callable[[Layer], Layer]


def clone_model(
    model: Model,
    input_tensors: Any = None,
    clone_function: CloneFunction | None = None,
    call_function: Callable[..., Any] | None = None,
    recursive: bool = False,
    custom_objects: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> Model:
    """Clones a model: the same architecture with new layers and freshly initialized weights.

    Without `clone_function`, `call_function` and `input_tensors`, the model
    is cloned through its config (unregistered custom layers of the model
    clone without `custom_objects`). With them, a `Functional` model's graph
    is run again node by node on new inputs, each layer replaced by
    `clone_function(layer)` (once per layer: a shared layer stays shared) and
    called through `call_function`; a `Sequential` model gets its layers
    replaced. A subclassed model can only be cloned through its config. The
    clone of a compiled model is compiled alike (a new optimizer), as in
    Keras. Weights are never copied: call `clone.set_weights(...)` for that.

    Args:
        model: The `tfkit.Model` to clone.
        input_tensors: Optional symbolic tensor(s) (from `tfkit.Input`) to
            build the clone on, instead of new inputs like the model's.
            `Sequential` and `Functional` models only. Defaults to `None`.
        clone_function: Optional callable `fn(layer) -> layer` making each
            layer of the clone, such as
            `lambda layer: type(layer).from_config(layer.get_config())` (the
            default) or a function returning the same layer to share it.
            Defaults to `None`.
        call_function: Optional callable `fn(layer, *args, **kwargs)` that
            calls each cloned layer in the new graph (to insert layers or
            change arguments). `Functional` models only. Defaults to `None`.
        recursive: Whether nested `Sequential` and `Functional` models are
            cloned the same way, instead of being handed to
            `clone_function`. Defaults to `False`.
        custom_objects: Optional dict of custom classes for cloning through
            the config. Defaults to `None`.
        **kwargs: No other keyword is accepted (a `ValueError` is raised).

    Returns:
        The new model.

    Raises:
        ValueError: For an unknown keyword, a `clone_function` that is not
            callable, or an argument the model's kind does not support.

    Example:
        >>> inputs = tfkit.Input((3,))
        >>> model = tfkit.Model(inputs, tfkit.layers.Dense(2, name="head")(inputs))
        >>> clone = tfkit.models.clone_model(model)
        >>> clone.get_layer("head") is model.get_layer("head")
        False
        >>> clone.output_shape
        (None, 2)
        >>> relu = tfkit.models.clone_model(
        ...     model, clone_function=lambda layer: tfkit.layers.Dense.from_config(
        ...         {**layer.get_config(), "activation": "relu"}) if layer.name == "head" else layer)
        >>> relu.get_layer("head").activation.__name__
        'relu'
    """
    cache: dict[int, Layer] = kwargs.pop("cache", None) or {}
    if kwargs:
        raise ValueError(f"clone_model: unexpected keyword argument(s) {tuple(kwargs)}")
    if isinstance(model, Sequential):
        if call_function is not None:
            raise ValueError(
                f"clone_model: call_function is not supported for Sequential models (their layers are listed, "
                f"not called, when the model is made); use it with Functional models. Received model "
                f"'{model.name}' of type Sequential with call_function={call_function!r}"
            )
        if clone_function is None and input_tensors is None and not recursive:
            return _compiled_like(model, clone_through_config(model, custom_objects))
        return _compiled_like(
            model, _clone_sequential(model, _cloner(clone_function, None, recursive, cache), input_tensors)
        )
    if isinstance(model, Functional) and type(model) in (Functional, Model):
        if clone_function is None and input_tensors is None and call_function is None and not recursive:
            return _compiled_like(model, clone_through_config(model, custom_objects))
        cloner = _cloner(clone_function, call_function, recursive, cache)
        return _compiled_like(model, _clone_functional(model, cloner, call_function, input_tensors))
    if clone_function is not None or input_tensors is not None:
        raise ValueError(
            f"clone_model: clone_function and input_tensors are only supported for Sequential and Functional "
            f"models; model '{model.name}' is a {type(model).__name__}. Clone a subclassed model with "
            f"type(model).from_config(model.get_config())."
        )
    if call_function is not None:
        raise ValueError(
            f"clone_model: call_function is only supported for Functional models; model "
            f"'{model.name}' is a {type(model).__name__}."
        )
    return clone_through_config(model, custom_objects)


def _cloner(
    clone_function: CloneFunction | None,
    call_function: Callable[..., Any] | None,
    recursive: bool,
    cache: dict[int, Layer],
) -> CloneFunction:
    """``clone_function`` made safe for shared layers (one clone each) and, with ``recursive``, nested models."""
    if clone_function is None:

        def clone_function(layer: Layer) -> Layer:
            return type(layer).from_config(layer.get_config())
    elif not callable(clone_function):
        raise ValueError(f"clone_model: clone_function must be a callable, got {clone_function!r}")

    def clone(layer: Layer) -> Layer:
        if id(layer) not in cache:
            if recursive and isinstance(layer, Sequential):
                cache[id(layer)] = clone_model(layer, clone_function=clone_function, recursive=True, cache=cache)
            elif recursive and isinstance(layer, Functional):
                cache[id(layer)] = clone_model(
                    layer, clone_function=clone_function, call_function=call_function, recursive=True, cache=cache
                )
            else:
                cache[id(layer)] = clone_function(layer)
        return cache[id(layer)]

    return clone


def _clone_sequential(model: Sequential, clone: CloneFunction, input_tensors: Any) -> Sequential:
    layers: list[Any] = [clone(layer) for layer in model.layers]
    first = model.inputs[0] if model.inputs else None
    if input_tensors is not None:
        if isinstance(input_tensors, (list, tuple)):
            if len(input_tensors) != 1:
                raise ValueError(
                    f"clone_model: input_tensors must hold a single tensor for Sequential model "
                    f"'{model.name}', got {len(input_tensors)}"
                )
            input_tensors = input_tensors[0]
        if not isinstance(input_tensors, SymbolicTensor):
            raise ValueError(f"clone_model: input_tensors must be a tfkit.Input tensor, got {input_tensors!r}")
        layers = [input_tensors] + layers
    elif first is not None:
        layers = [Input(batch_shape=first.shape, dtype=first.dtype, name=first.node.layer.name)] + layers
    return Sequential(layers, name=model.name, trainable=model.trainable)


def _clone_functional(
    model: Functional, clone: CloneFunction, call_function: Callable[..., Any] | None, input_tensors: Any
) -> Functional:
    graph = model.functional_graph
    if input_tensors is None:
        new_inputs = [Input(batch_shape=t.shape, dtype=t.dtype, name=t.node.layer.name) for t in graph.flat_inputs]
    else:
        new_inputs = tf.nest.flatten(input_tensors)
        if len(new_inputs) != len(graph.flat_inputs) or not all(isinstance(t, SymbolicTensor) for t in new_inputs):
            raise ValueError(
                f"clone_model: input_tensors must be {len(graph.flat_inputs)} tfkit.Input tensor(s) in the structure "
                f"of model '{model.name}''s inputs {model.input_names}, got {input_tensors!r}"
            )
    mapped = {id(old): new for old, new in zip(graph.flat_inputs, new_inputs)}
    for node in graph.nodes:
        if isinstance(node.layer, InputLayer):
            continue
        args, kwargs = tf.nest.map_structure(
            lambda value: mapped.get(id(value), value) if isinstance(value, SymbolicTensor) else value,
            (node.args, node.kwargs),
        )
        layer = clone(node.layer)
        out = call_function(layer, *args, **kwargs) if call_function is not None else layer(*args, **kwargs)
        new_flat = tf.nest.flatten(out)
        if len(new_flat) != len(node.flat_outputs):
            raise ValueError(
                f"clone_model: layer '{node.layer.name}''s clone returned {len(new_flat)} output(s) "
                f"where the original returned {len(node.flat_outputs)}"
            )
        mapped.update({id(old): new for old, new in zip(node.flat_outputs, new_flat)})
    inputs = tf.nest.pack_sequence_as(graph.inputs, new_inputs)
    outputs = tf.nest.map_structure(lambda t: mapped[id(t)], graph.outputs)
    return Functional(inputs, outputs, name=model.name)


def _compiled_like(model: Model, clone: Model) -> Model:
    """Keras compiles the clone of a compiled model from its compile config."""
    config = model.get_compile_config() if getattr(model, "compiled", False) else None
    if config:
        clone.compile_from_config(config)
    return clone


def clone_through_config(model: Model, custom_objects: Mapping[str, Any] | None = None) -> Model:
    """A new model with the same architecture and freshly initialized weights.

    The model's own layer classes resolve their names, so unregistered
    custom layers clone without ``custom_objects``.
    """
    own: dict[str, Any] = {}
    for layer in tracking.flatten_layers(model):
        cls = registry.public_class(type(layer))
        for key in (cls.__name__, registry.registered_name(cls)):
            if key and not registry.is_builtin("layers", cls) and key not in registry.builtin_names("layers"):
                own.setdefault(key, cls)
    clone = model_from_config(serialize_model(model), {**own, **(custom_objects or {})})
    shapes = model._build_shapes
    if not clone.built and shapes is not None:
        clone.build(shapes)
    return clone
