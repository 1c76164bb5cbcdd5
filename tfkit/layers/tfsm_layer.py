"""``TFSMLayer``: a SavedModel folder used as a layer (a ``model.export`` of tfkit or Keras, or any ``tf.saved_model``).

    reloaded = tfkit.layers.TFSMLayer("export/models/vae/1")                       # endpoint "serve"
    outputs = reloaded(inputs)                         # what the endpoint returns ("serve": the model's outputs)
    plain = tfkit.layers.TFSMLayer("saved/", call_endpoint="serving_default")      # a signature works too

Keras 3's layer and arguments. The endpoint is an attribute of the loaded
object (``serve``) or one of its signatures; it gets ``inputs`` as one
argument (a list is spread over an endpoint that takes several, a dict
is passed by name to a signature). ``call_training_endpoint`` is used for
``training=True`` calls. The variables the endpoints read are this
layer's weights (trainable ones train), saved and loaded with the model.

Safety (a decision, as Keras's): the config holds the folder's path, and
rebuilding the layer from a config opens that folder, wherever it points,
and runs its graph on every call. A SavedModel holds TensorFlow ops, not
Python, but ops can read and write files, and the path comes from the file
being loaded. So ``TFSMLayer.from_config`` (and so ``tfkit.load_model`` of
a model holding one) is refused in safe mode, the default: pass
``safe_mode=False`` to ``tfkit.load_model`` (or call
``tfkit.config.enable_unsafe_deserialization()``) when you trust both the
file and the folder it names. Relative paths are read from the current
directory, not the model file's. Constructing the layer yourself is never
refused: you chose the path.
"""

from __future__ import annotations

import os
import re
from typing import Any

import tensorflow as tf

from tfkit.base import registry, safe_mode
from tfkit.engine.layer import Layer

__all__ = ["TFSMLayer"]


def _endpoint_variables(functions: list[Any]) -> tuple[list[tf.Variable], list[tf.Variable]]:
    """``(trainable, other)`` variables the endpoints read, each once, in the functions' order."""
    trainable: list[tf.Variable] = []
    other: list[tf.Variable] = []
    seen: set[int] = set()
    for function in functions:
        concrete = getattr(function, "concrete_functions", None) or [function]
        for graph_function in concrete:
            for variable in graph_function.trainable_variables:
                if id(variable) not in seen:
                    seen.add(id(variable))
                    trainable.append(variable)
            for variable in graph_function.variables:
                if id(variable) not in seen:
                    seen.add(id(variable))
                    other.append(variable)
    return trainable, other


def _keys(variables: list[tf.Variable]) -> list[str]:
    """Attribute-path keys from the variables' names (``dense/kernel:0`` -> ``dense_kernel``), unique."""
    keys: list[str] = []
    for variable in variables:
        key = re.sub(r"\W", "_", variable.name.split(":")[0]) or "variable"
        while key in keys:
            key += "_"
        keys.append(key)
    return keys


@registry.builtin("layers")
class TFSMLayer(Layer):
    """Reload a TensorFlow SavedModel as a tfkit layer.

    The folder can be a `model.export()` of tfkit or Keras, or any
    `tf.saved_model`. The layer calls one endpoint of the loaded object: an
    attribute (such as `serve`) or one of its signatures (such as
    `serving_default`). The endpoint gets `inputs` as one argument; a list is
    spread over an endpoint that takes several, and a dict is passed by name
    to a signature. The variables the endpoints read are this layer's
    weights (trainable ones train), saved and loaded with the model.

    Safety: the config holds the folder's path, and rebuilding the layer from
    a config opens that folder and runs its graph on every call. So
    `TFSMLayer.from_config` (and so `tfkit.load_model` of a model holding
    one) is refused in safe mode, the default: pass `safe_mode=False` to
    `tfkit.load_model` (or call
    `tfkit.config.enable_unsafe_deserialization()`) when you trust both the
    file and the folder it names. Relative paths are read from the current
    directory, not the model file's. Constructing the layer yourself is
    never refused.

    Args:
        filepath: Path of the SavedModel folder (a string or path-like).
        call_endpoint: Name of the endpoint used for calls: an attribute of
            the loaded object or a signature name. Defaults to `"serve"`.
        call_training_endpoint: Optional endpoint used for `training=True`
            calls. Defaults to `None` (the `call_endpoint` is used).
        trainable: Whether the weights the endpoints read are trainable.
            Defaults to `True`.
        name: Optional name of the layer.
        dtype: Optional dtype (policy) of the layer.

    Call arguments:
        inputs: What the endpoint takes: a tensor, a list of tensors, or (for
            a signature) a dict of tensors by name.
        training: Whether to use `call_training_endpoint` (when given).
            Defaults to `False`.
        **kwargs: Further keyword arguments passed to the endpoint.

    Input shape:
        Whatever the endpoint accepts.

    Output shape:
        Whatever the endpoint returns.

    Raises:
        ValueError: If `filepath` is not a SavedModel folder, or an endpoint
            is neither an attribute nor a signature of it; from
            `from_config`, in safe mode.

    Example:
        >>> inputs = tfkit.Input((3,))
        >>> model = tfkit.Model(inputs, tfkit.layers.Dense(2, kernel_initializer="ones")(inputs))
        >>> path = model.export("exported")
        Exported model ...
        >>> reloaded = tfkit.layers.TFSMLayer("exported")
        >>> reloaded(tf.ones((1, 3))).numpy()
        array([[3., 3.]], dtype=float32)
        >>> len(reloaded.weights)
        2
    """

    def __init__(
        self,
        filepath: Any,
        call_endpoint: str = "serve",
        call_training_endpoint: str | None = None,
        trainable: bool = True,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(trainable=trainable, name=name, dtype=dtype)
        self.filepath = os.fspath(filepath)
        who = f"TFSMLayer layer '{self.name}'"
        if not os.path.isdir(self.filepath) or not any(
            os.path.exists(os.path.join(self.filepath, f)) for f in ("saved_model.pb", "saved_model.pbtxt")
        ):
            raise ValueError(f"{who}: {self.filepath!r} is not a SavedModel folder (no saved_model.pb in it)")
        self._reloaded = tf.saved_model.load(self.filepath)
        self.call_endpoint, self.call_training_endpoint = call_endpoint, call_training_endpoint
        self._call_fn, self._call_by_name = self._endpoint(call_endpoint, "call_endpoint")
        self._training_fn, self._training_by_name = (
            self._endpoint(call_training_endpoint, "call_training_endpoint")
            if call_training_endpoint
            else (None, False)
        )
        trainable_variables, other = _endpoint_variables([f for f in (self._call_fn, self._training_fn) if f])
        variables = trainable_variables + other
        # Tracked by attribute path: "tfsm_layer/endpoint_variables/dense_kernel"
        self.endpoint_variables = dict(zip(_keys(variables), variables))
        self.built = True

    def _endpoint(self, name: str, argument: str) -> tuple[Any, bool]:
        """``(function, takes its inputs by name)``: an attribute of the loaded object, else a signature."""
        if hasattr(self._reloaded, name):
            return getattr(self._reloaded, name), False
        if name in self._reloaded.signatures:
            return self._reloaded.signatures[name], True
        available = sorted(
            {*self._reloaded.signatures, *(n for n in ("serve", "__call__") if hasattr(self._reloaded, n))}
        )
        raise ValueError(
            f"TFSMLayer layer '{self.name}': {argument}={name!r} is neither an attribute nor a "
            f"signature of the SavedModel {self.filepath!r}; its endpoints are {available}"
        )

    @staticmethod
    def _positional_count(function: Any) -> int | None:
        concrete = getattr(function, "concrete_functions", None) or [function]
        signature = getattr(concrete[0], "structured_input_signature", None)
        return len(signature[0]) if signature else None

    def call(self, inputs: Any, training: Any = False, **kwargs: Any) -> Any:
        function, by_name = self._call_fn, self._call_by_name
        if training and self._training_fn is not None:
            function, by_name = self._training_fn, self._training_by_name
        if by_name and isinstance(inputs, dict):
            return function(**inputs, **kwargs)
        if isinstance(inputs, (list, tuple)) and len(inputs) > 1 and self._positional_count(function) == len(inputs):
            return function(*inputs, **kwargs)
        return function(inputs, **kwargs)

    def get_config(self) -> dict[str, Any]:
        # Not portable: the path as given, read from the current directory.
        return {
            **Layer.get_config(self),
            "filepath": self.filepath,
            "call_endpoint": self.call_endpoint,
            "call_training_endpoint": self.call_training_endpoint,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "TFSMLayer":
        if safe_mode.in_safe_mode():
            raise ValueError(
                f"Refused to rebuild TFSMLayer '{config.get('name')}' from a config: it would load the SavedModel "
                f"folder {config.get('filepath')!r} named in the config and run its TensorFlow graph. This is "
                f"refused in safe mode. If you trust the file and that folder, load with "
                f"tfkit.load_model(path, safe_mode=False) or call tfkit.config.enable_unsafe_deserialization()"
            )
        return super().from_config(config)
