"""DTensors from ordinary values and back: distributed variables, batches and outputs.

    with variable_scope():                    # tf.Variable(...) -> ShardedVariable, laid out by the distribution
        kernel = tf.Variable(init, name="kernel")
    batch = distribute_batch(batch)           # numpy/tensors -> DTensors split on the batch axis
    to_numpy(kernel)                          # the whole value, gathered from its shards

A ``ShardedVariable`` is DTensor's ``DVariable`` that eager code can treat as
an ordinary variable: ``numpy()`` gathers the shards, ``assign`` of a NumPy
value splits it. Saving, loading, ``get_weights`` and metric resets therefore
need no special case.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any, Iterator

import numpy as np
import tensorflow as tf
from tensorflow.experimental import dtensor

from tfkit.distribution import distributions, process_part
from tfkit.distribution.mesh import TensorLayout

# TensorFlow 2.21's DTensor pass that combines all-reduces reorders a variable's read after its write when
# the write depends on a gradient (an optimizer reading the slot it just updated got the old value: the
# weights of a ModelParallel run parted from the single-device run). tfkit turns that pass off.
os.environ.setdefault("DTENSOR_ENABLE_COMBINE_ALL_REDUCES_OPTIMIZATION", "0")

_VALUE_KEY = "VARIABLE_VALUE"  # the checkpoint key of a variable's value (TensorFlow's trackable.VARIABLE_VALUE_KEY)
_reference: list[Any] = [None]  # the variable whose layout the next variable copies (optimizer slots)
_enclosing: list[Any] = [list]  # () -> names of the layers being called, outermost first (the engine sets it)


def set_enclosing_names(names: Any) -> None:
    """Register ``names() -> ["model", "mha"]``: the layers whose call or build creates a variable."""
    _enclosing[0] = names


def variable_path(scope: str, name: str) -> str:
    """Keras's variable path: enclosing layers, then the name scope (the owning layer), then the name.

    ``["mha"]`` + ``"query"`` + ``"kernel"`` -> ``"mha/query/kernel"``; the owning layer is named
    once when it is also the innermost layer called (``["d1"]`` + ``"d1"`` -> ``"d1/kernel"``).
    """
    parts = list(_enclosing[0]())
    scoped = [p for p in scope.split("/") if p]
    if parts and scoped and parts[-1] == scoped[0]:
        parts.pop()
    return "/".join(parts + scoped + [name])


class VariablePath:
    """What a distribution is asked about a variable being created: its ``path`` and ``shape``."""

    def __init__(self, path: str, shape: Any) -> None:
        self.path, self.shape = path, tuple(shape)


def backend_layout(layout: Any) -> dtensor.Layout:
    return layout.backend_layout if isinstance(layout, TensorLayout) else layout


def distribute_tensor(tensor: Any, layout: Any) -> Any:
    """Returns `tensor` laid out over a mesh as `layout` says (a DTensor).

    Eagerly, a NumPy array or tensor is copied to the mesh and split; inside
    a compiled function, the tensor is constrained to the layout (the next
    ops see it split so).

    Args:
        tensor: A NumPy array, tensor or DTensor.
        layout: A `TensorLayout` (with its mesh) or a DTensor `Layout`.

    Returns:
        The DTensor.

    Raises:
        ValueError: If the layout does not fit the tensor's shape.

    Example:
        >>> mesh = tfkit.distribution.DeviceMesh((1,), ["batch"], devices=["cpu:0"])
        >>> layout = tfkit.distribution.TensorLayout(("batch", None), mesh)
        >>> t = tfkit.distribution.distribute_tensor(np.ones((2, 3), "float32"), layout)
        >>> t.shape
        TensorShape([2, 3])
    """
    if isinstance(layout, TensorLayout):
        layout.check_shape(
            tensor.shape if isinstance(tensor, tf.Tensor) else np.shape(tensor), "distribute_tensor: the tensor"
        )
    target = backend_layout(layout)
    if not tf.executing_eagerly():
        return dtensor.relayout(tensor, target)
    if not (isinstance(tensor, tf.Tensor) and dtensor.is_dtensor(tensor)):
        tensor = tf.convert_to_tensor(tensor)
        tensor = dtensor.copy_to_mesh(tensor, dtensor.Layout.replicated(target.mesh, tensor.shape.rank))
    return dtensor.relayout(tensor, target)


def gather(tensor: Any) -> np.ndarray:
    """The whole value of a (possibly sharded) DTensor as a NumPy array."""
    if not dtensor.is_dtensor(tensor):
        return np.asarray(tensor)
    layout = dtensor.fetch_layout(tensor)
    if not layout.is_fully_replicated():
        tensor = dtensor.relayout(tensor, dtensor.Layout.replicated(layout.mesh, tensor.shape.rank))
    return dtensor.unpack(tensor)[0].numpy()


def host_value(variable: Any, beside: Any) -> Any:
    """``variable`` to mix with ``beside`` in an eager op: its whole value on the host when it lives on a mesh
    and ``beside`` does not (host-side code: a lookup layer's idf weights times its term counts); else itself.
    """
    if tf.executing_eagerly() and is_sharded(variable) and not dtensor.is_dtensor(beside):
        return tf.constant(gather(variable.read_value()))
    return variable


class ShardedVariable(dtensor.DVariable):
    """A DTensor variable that eager code reads and writes as an ordinary one (gathered, split)."""

    def numpy(self) -> np.ndarray:
        return gather(self.read_value())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        value = self.numpy()
        return value.astype(dtype) if dtype is not None else value

    def _laid_out(self, value: Any) -> Any:
        if tf.executing_eagerly() and not (isinstance(value, tf.Tensor) and dtensor.is_dtensor(value)):
            value = tf.convert_to_tensor(value, dtype=self.dtype)
            return distribute_tensor(value, self.layout)
        return value

    # tf.train.Checkpoint (BackupAndRestore, tf.train.CheckpointManager) writes the gathered value, as for an
    # ordinary variable, and a restore splits it again: a checkpoint written on a mesh loads on one device
    # and the other way round. (DVariable's own saveable writes DTensor's sharded checkpoint format.)
    def _serialize_to_tensors(self) -> dict[str, Any]:
        return {_VALUE_KEY: tf.constant(self.numpy())}

    def _restore_from_tensors(self, restored_tensors: dict[str, Any]) -> Any:
        return self.assign(restored_tensors[_VALUE_KEY], read_value=False)

    def assign(self, value: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        return super().assign(self._laid_out(value), use_locking, name, read_value)

    def assign_add(self, delta: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        return super().assign_add(self._laid_out(delta), use_locking, name, read_value)

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        return super().assign_sub(self._laid_out(delta), use_locking, name, read_value)


def is_sharded(variable: Any) -> bool:
    """Whether ``variable`` lives on a mesh (made under a distribution)."""
    return isinstance(variable, dtensor.DVariable)


def shard_shapes(variable: Any) -> list[tuple[int, ...]]:
    """The shape of the part of ``variable`` each device of its mesh holds, in device order."""
    return [tuple(t.shape) for t in dtensor.unpack(variable.read_value())]


def _creator(next_creator: Any, **kwargs: Any) -> Any:
    dist = distributions.distribution()
    if dist is None:
        return next_creator(**kwargs)
    initial_value = kwargs.pop("initial_value")
    path = variable_path(tf.get_current_name_scope(), kwargs.get("name") or "Variable")
    with tf.init_scope():
        value = initial_value() if callable(initial_value) else initial_value
        value = tf.convert_to_tensor(value, dtype=kwargs.get("dtype"))
        reference = _reference[0]
        if reference is not None and is_sharded(reference) and tuple(reference.shape) == tuple(value.shape):
            layout: Any = reference.layout
        else:
            layout = dist.get_variable_layout(VariablePath(path, value.shape))
            layout.check_shape(value.shape, f"Variable '{path}'")
        for unused in (
            "experimental_enable_variable_lifting",
            "caching_device",
            "variable_def",
            "import_scope",
            "validate_shape",
            "distribute_strategy",
        ):
            kwargs.pop(unused, None)
        variable = ShardedVariable(distribute_tensor(value, layout), **kwargs)
        variable.distribution = dist  # the batches of steps that use it are split as this distribution says
        return variable


def variable_scope() -> Any:
    """Inside it, every ``tf.Variable`` is created as the current distribution says (a no-op without one)."""
    if distributions.distribution() is None:
        return contextlib.nullcontext()
    return tf.variable_creator_scope(_creator)


@contextlib.contextmanager
def layout_like(reference: Any) -> Iterator[None]:
    """Variables created inside take ``reference``'s layout (an optimizer's slots follow their variable)."""
    previous, _reference[0] = _reference[0], reference
    try:
        with variable_scope():
            yield
    finally:
        _reference[0] = previous


def distribution_of(variables: Any) -> Any:
    """The distribution the first sharded variable of ``variables`` was made under, else the current one."""
    for variable in variables:
        if is_sharded(variable):
            return getattr(variable, "distribution", None) or distributions.distribution()
        return None  # an ordinary variable: the model lives on one device
    return distributions.distribution()


def distribute_batch(batch: Any, dist: Any = None, own_rows: bool = False) -> Any:
    """Each tensor of ``batch`` split on the batch axis of ``dist`` (default: the current distribution).

    ``own_rows``: ``batch`` came from ``dist.distribute_dataset``, so with several processes it may hold only
    this process's rows of the global batch, which are then packed onto this process's devices.
    """
    dist = dist or distributions.distribution()
    if dist is None:
        return batch
    part = process_part.process_part(dist) if own_rows else None
    if part is not None:

        def assemble(t: Any) -> Any:
            rank = np.ndim(t) if not isinstance(t, tf.Tensor) else t.shape.rank
            return process_part.assemble(t, backend_layout(dist.get_data_layout([None] * rank)), part)

        return tf.nest.map_structure(lambda t: None if t is None else assemble(t), batch)
    return tf.nest.map_structure(lambda t: None if t is None else _split_on_batch(dist, t), batch)


def distribute_batches(batches: Any, dist: Any, own_rows: bool = False) -> Any:
    """Batches stacked on a new first axis (one entry a step), each split on ``dist``'s batch axis.

    The tensors of ``batches`` are ``[steps, batch, ...]``; the result's layout leaves the steps axis whole
    and splits the batch axis as ``distribute_batch`` splits a batch, so taking step ``i`` inside a compiled
    loop is a local slice on every device. Each device receives only its rows. ``own_rows`` as in
    ``distribute_batch``.
    """
    mesh = dist.device_mesh.backend_mesh
    part = process_part.process_part(dist) if own_rows else None
    if part is None:  # this process holds whole batches: each of its devices takes its shard's rows
        shards = mesh.dim_size(dist.batch_dim_name)  # a distribution's batch axis is an axis of its mesh
        part = process_part.ProcessPart(0, shards, shards)

    def place(t: Any) -> Any:
        t = tf.convert_to_tensor(t)
        if t.shape.rank == 1:  # a scalar a step: whole on every device
            return dtensor.copy_to_mesh(t, dtensor.Layout.replicated(mesh, 1))
        batch_layout = backend_layout(dist.get_data_layout([None] * (t.shape.rank - 1)))
        layout = dtensor.Layout([dtensor.UNSHARDED, *batch_layout.sharding_specs], mesh)
        return process_part.assemble(t, layout, part, axis=1)

    return tf.nest.map_structure(place, batches)


def _split_on_batch(dist: Any, value: Any) -> Any:
    """``value`` on ``dist``'s mesh, its first axis split on the batch axis (a scalar replicated)."""
    tensor = tf.convert_to_tensor(value)
    layout = TensorLayout((), dist.device_mesh) if tensor.shape.rank == 0 else dist.get_data_layout(tensor.shape)
    return distribute_tensor(tensor, layout)


def distribute_call_inputs(variables: Any, inputs: Any) -> Any:
    """Eager inputs of an outermost layer call, split on the batch axis when the layer lives on a mesh.

    ``variables``: a callable giving the layer's variables (read only under a distribution). Tensors that
    are DTensors already, strings, and every input of a layer whose variables are ordinary ones, are left
    as they are.
    """
    dist = distributions.distribution()
    if dist is None:
        return inputs
    own = variables()
    if own and not is_sharded(own[0]):
        return inputs  # built on one device before the distribution was set

    def place(t: Any) -> Any:
        ordinary = isinstance(t, np.ndarray) or (isinstance(t, tf.Tensor) and not dtensor.is_dtensor(t))
        if not ordinary or tf.as_dtype(t.dtype) == tf.string:
            return t  # strings stay on the host, where lookup tables are (DTensor cannot lay out a table lookup)
        return _split_on_batch(dist, t)

    return tf.nest.map_structure(place, inputs)


class _TracingOn(threading.local):
    """The distribution whose mesh step this thread is tracing (None: none). Per thread: the compiled loops
    trace a short last batch's loop on a helper thread while the main thread runs eager code."""

    dist: Any = None


_tracing_on = _TracingOn()


@contextlib.contextmanager
def tracing_step_on(dist: Any) -> Iterator[None]:
    """Inside it, layer calls are traced for a step on ``dist``'s mesh (their "/output" layouts apply)."""
    previous, _tracing_on.dist = _tracing_on.dist, dist
    try:
        yield
    finally:
        _tracing_on.dist = previous


def readable_outputs(outputs: Any) -> Any:
    """Eager outputs of a model on a mesh, replicated on it, so that ``numpy()`` reads them (others unchanged)."""
    if distributions.distribution() is None:
        return outputs

    def replicate(t: Any) -> Any:
        if isinstance(t, tf.Tensor) and dtensor.is_dtensor(t):
            layout = dtensor.fetch_layout(t)
            if not layout.is_fully_replicated():
                return dtensor.relayout(t, dtensor.Layout.replicated(layout.mesh, t.shape.rank))
        return t

    return tf.nest.map_structure(replicate, outputs)


def on_mesh() -> bool:
    """Whether a step for a mesh is being traced (see ``tracing_step_on``)."""
    return _tracing_on.dist is not None


def replicated(tensor: tf.Tensor) -> tf.Tensor:
    """``tensor`` whole on every device of the mesh being traced for (unchanged off a mesh).

    Random draws pass through it: DTensor draws a split tensor's parts with per-device seeds, so a
    dropout mask would differ from the one-device run's; drawn whole, then split, it is the same.
    """
    dist = _tracing_on.dist
    if dist is None:
        return tensor
    return dtensor.relayout(tensor, dtensor.Layout.replicated(dist.device_mesh.backend_mesh, tensor.shape.rank))


def whole_along(tensor: tf.Tensor, axis: int) -> tf.Tensor:
    """``tensor`` with ``axis`` not split over the mesh being traced for, its other axes as they are.

    Before ``tf.split`` of that axis (an LSTM's gates from one product whose kernel's columns are split over
    "model"): DTensor cannot split a split axis. Unchanged off a mesh.
    """
    dist = _tracing_on.dist
    if dist is None:
        return tensor
    rank = tensor.shape.rank
    specs = [dtensor.MATCH] * rank
    specs[axis % rank] = dtensor.UNSHARDED
    return dtensor.relayout(tensor, dtensor.Layout(specs, dist.device_mesh.backend_mesh))


def constrain_output(path: str, outputs: Any) -> Any:
    """A layer's outputs relaid out as the distribution's ``"<path>/output"`` layout says, if it names one.

    Only in a step traced for a mesh, or on eager DTensors: a model on one device is left alone.
    """
    dist = _tracing_on.dist
    if dist is None:
        if distributions.distribution() is None or not tf.executing_eagerly():
            return outputs
        if not any(isinstance(t, tf.Tensor) and dtensor.is_dtensor(t) for t in tf.nest.flatten(outputs)):
            return outputs
        dist = distributions.distribution()
    layout = dist.get_tensor_layout(f"{path}/output")
    if layout is None:
        return outputs
    return tf.nest.map_structure(lambda t: distribute_tensor(t, layout) if isinstance(t, tf.Tensor) else t, outputs)
