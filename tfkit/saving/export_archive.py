"""``ExportArchive``: a SavedModel with the endpoints you choose, as Keras 3's ``keras.export.ExportArchive``.

    archive = ExportArchive()
    archive.track(model)
    archive.add_endpoint("serve", model.call, input_signature=[tfkit.InputSpec(shape=(None, 3), dtype="float32")])
    archive.write_out("path/to/location")       # tf.saved_model.load(...).serve(x); no tfkit needed

Every endpoint is a ``tf.function`` of the given signature (``tf.TensorSpec``, ``tfkit.InputSpec``,
symbolic tensors or example tensors, in any nesting); the first one is also ``serving_default``
for TensorFlow Serving. The SavedModel holds only the variables the endpoints read (and the
lookup tables of tracked layers), never tfkit's classes. ``write_out`` writes beside the target
and renames into place, so a failed write leaves the previous archive.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import numpy as np
import tensorflow as tf

from tfkit.base.symbolic import SymbolicTensor
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.files import atomic
from tfkit.saving.export import _check_replaceable, _resources


def tensor_spec(value: Any) -> tf.TensorSpec:
    """A ``tf.TensorSpec`` for a spec, an ``InputSpec``, a symbolic tensor or an example array."""
    if isinstance(value, tf.TensorSpec):
        return value
    if isinstance(value, InputSpec):
        if value.shape is None:
            raise ValueError(f"An InputSpec in input_signature needs a shape, got {value!r}")
        return tf.TensorSpec(value.shape, value.dtype or "float32", name=value.name)
    if isinstance(value, SymbolicTensor):
        return tf.TensorSpec(value.shape, value.dtype, name=value.name)
    if tf.is_tensor(value) or isinstance(value, np.ndarray):
        return tf.TensorSpec(value.shape, value.dtype)
    raise ValueError(
        f"Expected a tf.TensorSpec, tfkit.InputSpec, symbolic tensor or tensor in input_signature, "
        f"got {value!r} of type {type(value).__name__}"
    )


class _Archive(tf.__internal__.tracking.AutoTrackable):
    """The SavedModel's root: endpoints, variables and resources, nothing of tfkit (a plain trackable,
    not a tf.Module, so ``variables`` can be the tracked list Keras's archive reloads with)."""


class ExportArchive:
    """Builds a SavedModel with the endpoints you choose, as Keras 3's `keras.export.ExportArchive`.

    Track the layers or models whose variables the endpoints use (`track`),
    add endpoints (`add_endpoint`), then `write_out` the SavedModel. Each
    endpoint is a `tf.function` of the given signature (`tf.TensorSpec`,
    `tfkit.InputSpec`, symbolic tensors or example tensors, in any nesting);
    the first one is also `serving_default` for TensorFlow Serving. The
    SavedModel holds only the variables the endpoints read (and the lookup
    tables of tracked layers), never tfkit's classes: it needs no tfkit to
    load (`tf.saved_model.load`). `write_out` writes beside the target and
    renames it into place, so a failed write leaves the previous archive.
    For a model's plain inference function, `model.export` is simpler.

    Args:
        format: The archive format; only `"saved_model"` is supported (Keras's
            other formats are not built). Defaults to `"saved_model"`.

    Raises:
        ValueError: For another format.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> archive = tfkit.export.ExportArchive()
        >>> archive.track(model)
        >>> _ = archive.add_endpoint(
        ...     "serve", model.call, input_signature=[tf.TensorSpec((None, 3), tf.float32)])
        >>> archive.write_out("archive", verbose=False)
        >>> reloaded = tf.saved_model.load("archive")
        >>> reloaded.serve(tf.ones((4, 3))).shape
        TensorShape([4, 2])
    """

    def __init__(self, format: str = "saved_model") -> None:  # noqa: A002 - Keras's name
        if format != "saved_model":
            raise ValueError(
                f"Unsupported format: {format!r}. tfkit writes SavedModels (format='saved_model'); "
                "Keras's 'neptune_model' archives are not built"
            )
        self._endpoint_names: list[str] = []
        self._signatures: dict[str, Any] = {}
        self._tracked: list[Any] = []
        self._root = _Archive()
        self._root.variables = []
        self._root.trainable_variables = []
        self._root.non_trainable_variables = []
        self.tensorflow_version = tf.__version__

    @property
    def variables(self) -> list[tf.Variable]:
        """The variables of the tracked layers."""
        return self._root.variables

    @property
    def trainable_variables(self) -> list[tf.Variable]:
        """The trainable variables of the tracked layers."""
        return self._root.trainable_variables

    @property
    def non_trainable_variables(self) -> list[tf.Variable]:
        """The non-trainable variables of the tracked layers."""
        return self._root.non_trainable_variables

    def track(self, resource: Any) -> None:
        """Tracks a layer's (or model's) variables and lookup tables, or a TensorFlow trackable, in the archive.

        Args:
            resource: A built tfkit `Layer` or `Model`, or a TensorFlow
                `Trackable` (such as a `tf.Module` or a lookup table).

        Raises:
            ValueError: If the layer is not built, or the resource is of
                another type.
        """
        if isinstance(resource, Layer):
            if not resource.built:
                raise ValueError("The layer provided has not yet been built. It must be built before export.")
            self._root.variables += list(resource.variables)
            self._root.trainable_variables += list(resource.trainable_variables)
            self._root.non_trainable_variables += list(resource.non_trainable_variables)
        elif not isinstance(resource, tf.__internal__.tracking.Trackable):
            raise ValueError(
                "Invalid resource type. Expected a tfkit `Layer` or `Model` or a TensorFlow `Trackable` "
                f"object. Received object {resource} of type '{type(resource)}'. "
            )
        self._tracked.append(resource)

    def add_endpoint(self, name: str, fn: Callable, input_signature: Any = None, **kwargs: Any) -> Any:
        """Adds an endpoint: `fn`, traced for `input_signature`, saved as `name`.

        Args:
            name: The endpoint's name: the attribute of the reloaded object,
                and a signature name.
            fn: The function to trace (such as `model.call`), or a
                `tf.function` already called at least once (then
                `input_signature` may be omitted).
            input_signature: The inputs' specs: a list with one
                `tf.TensorSpec`, `tfkit.InputSpec` (with a shape), symbolic
                tensor or example tensor per positional argument, in any
                nesting. Defaults to `None`.
            **kwargs: Keras's JAX-only `jax2tf_kwargs` and `is_static` are
                refused; no other keyword is accepted.

        Returns:
            The endpoint's `tf.function`.

        Raises:
            ValueError: If the name is taken, a keyword argument is given,
                or `fn` has no signature (not a called `tf.function` and no
                `input_signature`).
        """
        if name in self._endpoint_names:
            raise ValueError(f"Endpoint name '{name}' is already taken.")
        if "jax2tf_kwargs" in kwargs or "is_static" in kwargs:
            raise ValueError(
                "'jax2tf_kwargs' and 'is_static' are only supported with the jax backend; tfkit runs on TensorFlow."
            )
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments for add_endpoint: {sorted(kwargs)}")
        if input_signature is None:
            if not isinstance(fn, tf.types.experimental.GenericFunction):
                raise ValueError(
                    "If the `fn` argument provided is not a `tf.function`, you must provide an "
                    "`input_signature` argument to specify the shape and dtype of the function "
                    "arguments. Example:\n\narchive.add_endpoint(\n    name='call',\n    fn=model.call,"
                    "\n    input_signature=[tfkit.InputSpec(shape=(None, 224, 224, 3), "
                    "dtype='float32')],\n)"
                )
            if not fn._list_all_concrete_functions():
                raise ValueError(
                    f"The provided tf.function '{fn}' has never been called. To specify the expected "
                    "shape and dtype of the function's arguments, you must either provide a function "
                    "that has been called at least once, or alternatively pass an `input_signature` "
                    "argument in `add_endpoint()`."
                )
            endpoint = fn
        else:
            specs = tf.nest.map_structure(tensor_spec, input_signature)
            specs = list(specs) if isinstance(specs, tuple) else specs
            endpoint = tf.function(fn, input_signature=specs, autograph=False)
            self._signatures[name] = endpoint.get_concrete_function()
        setattr(self._root, name, endpoint)
        self._endpoint_names.append(name)
        return endpoint

    def track_and_add_endpoint(self, name: str, resource: Any, input_signature: Any, **kwargs: Any) -> Any:
        """Tracks `resource`, then adds its `__call__` as the endpoint `name`.

        Args:
            name: The endpoint's name.
            resource: A built tfkit `Layer` or `Model`.
            input_signature: The inputs' specs, as in `add_endpoint`.
            **kwargs: As in `add_endpoint` (none accepted).

        Returns:
            The endpoint's `tf.function`.
        """
        self.track(resource)
        return self.add_endpoint(name, resource.__call__, input_signature, **kwargs)

    def add_variable_collection(self, name: str, variables: Any) -> None:
        """Saves a collection of variables, which the reloaded archive has as the attribute `name`.

        Args:
            name: The attribute name.
            variables: A list, tuple or set of `tf.Variable` objects.

        Raises:
            ValueError: If `variables` is not a list, tuple or set of
                variables.
        """
        if not isinstance(variables, (list, tuple, set)):
            raise ValueError(
                f"Expected `variables` to be a list/tuple/set. Received instead object of type '{type(variables)}'."
            )
        if not all(isinstance(v, tf.Variable) for v in variables):
            raise ValueError(
                "Expected all elements in `variables` to be `tf.Variable` instances. Found instead the "
                f"following types: {list(set(type(v) for v in variables))}"
            )
        setattr(self._root, name, list(variables))

    def _concrete(self, name: str) -> Any:
        if name in self._signatures:
            return self._signatures[name]
        return getattr(self._root, name)._list_all_concrete_functions()[0]

    def write_out(self, filepath: str | os.PathLike, options: Any = None, verbose: bool = True) -> None:
        """Writes the SavedModel to a folder, atomically.

        The first endpoint is also `serving_default`, unless one is named so.

        Args:
            filepath: The folder to write (replaced if it exists).
            options: Optional `tf.saved_model.SaveOptions`. Defaults to
                `None`.
            verbose: Whether to print the endpoints and their signatures.
                Defaults to `True`.

        Raises:
            ValueError: If no endpoint was added.
        """
        if not self._endpoint_names:
            raise ValueError("No endpoints have been set yet. Call add_endpoint().")
        filepath = os.fspath(filepath)
        concrete = {name: self._concrete(name) for name in self._endpoint_names}
        seen: set[int] = set()
        self._root._endpoint_variables = [
            v for fn in concrete.values() for v in fn.variables if id(v) not in seen and not seen.add(id(v))
        ]
        self._root._tracked_resources = [
            r for root in self._tracked if isinstance(root, Layer) for r in _resources(root)
        ]
        signatures = dict(concrete)
        signatures.setdefault("serving_default", concrete[self._endpoint_names[0]])
        _check_replaceable(filepath)
        with atomic.atomic_directory(filepath, overwrite=True) as tmp:
            tf.saved_model.save(self._root, tmp, signatures=signatures, options=options)
        if verbose:
            lines = [
                f"* Endpoint '{name}'\n  " + "\n  ".join(fn.pretty_printed_signature(verbose=True).split("\n")[1:])
                for name, fn in concrete.items()
            ]
            print(f"Saved artifact at '{filepath}'. The following endpoints are available:\n\n" + "\n\n".join(lines))
