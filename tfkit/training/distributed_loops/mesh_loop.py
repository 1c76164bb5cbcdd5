"""Steps under a ``tfkit.distribution`` (DataParallel, ModelParallel): each batch split over the mesh.

    placed = whole_on_mesh(dist, data)        # in-memory data on every device, or None: batches from Python
    loops = mesh_loops(model, state, dist)    # the one-device StepLoops, running on the mesh
    logs = run_epoch(dist, model, state, "train", data, hooks, steps_limit, order, planner)
    outputs = run_prediction(dist, model, state, data, cbs, steps)

The model's variables are DTensor variables already (created under the
distribution). DTensor expands a step over the devices: gradients of a split
batch are summed across it, sharded matrix products communicate as their
layouts need.

In-memory data (``fit(x, y)``) trains as on one device: the epoch runs in
compiled chunks of many steps (``steps_per_execution``), each batch cut from
the data inside the graph. For that the data is copied whole to every device
of the mesh once per ``fit`` (cutting a batch and splitting it over the batch
axis is then a local slice on each device, with no communication). On 8
logical CPU devices this ran the keras-io distribution guide's MLP 6-7x
faster an epoch than a step per batch fed from Python. The copy costs memory
on every device, so data larger than ``MAX_WHOLE_BYTES`` in all, meshes that
span several processes and datasets read their batches in Python instead;
the built-in steps still run several batches a call, stacked and placed on the
mesh together (``stacked_batches.py``). ``run_eagerly`` and a model's own
step run a step per batch, each laid out on the mesh from Python.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

import tensorflow as tf
from tensorflow.experimental import dtensor

from tfkit.distribution import values as distribution_values
from tfkit.training import data as data_module
from tfkit.training.chunk_planner import to_floats
from tfkit.training.compiled_loops import StepLoops, compiled
from tfkit.training.distributed_loops import stacked_batches
from tfkit.training.prediction_buffer import PredictionBuffer


def distribution_of(model: Any) -> Any:
    """The distribution ``model``'s steps run under, or None (one device).

    A built model's variables decide (they live on a mesh or they do not): a
    model built before ``set_distribution`` keeps running on one device. An
    unbuilt model builds in its first step, under the current distribution.
    """
    return distribution_values.distribution_of(model.weights)


# In-memory data is copied whole to every device of a mesh while all the copies together stay under this
# (on 8 devices: 256 MiB of data; MNIST's 60,000 training images as float32 take 188 MB, 1.5 GB copied 8 times).
MAX_WHOLE_BYTES = 2 * 1024**3


def _local_mesh(dist: Any) -> bool:
    """Whether every device of ``dist``'s mesh belongs to this process."""
    mesh = dist.device_mesh.backend_mesh
    return len(mesh.local_devices()) == mesh.size


def whole_on_mesh(dist: Any, data: Any) -> tuple | None:
    """``data``'s distinct tensors, each whole on every device of the mesh; None where they should not be.

    Placed once per ``data`` (a ``fit`` or ``evaluate`` call): later epochs reuse the copies.
    """
    if not isinstance(data, data_module.ArrayData) or not _local_mesh(dist):
        return None
    if data.on_mesh is not None and data.on_mesh[0] is dist:
        return data.on_mesh[1]
    _, unique = data.layout()
    devices = dist.device_mesh.backend_mesh.size
    if sum(int(t.shape.num_elements()) * t.dtype.size for t in unique) * devices > MAX_WHOLE_BYTES:
        return None
    placed = tuple(replicate(dist, t) for t in unique)
    data.on_mesh = (dist, placed)
    return placed


def replicate(dist: Any, tensor: Any) -> Any:
    """``tensor`` whole on every device of ``dist``'s mesh (a replicated DTensor)."""
    tensor = tf.convert_to_tensor(tensor)
    return dtensor.copy_to_mesh(tensor, dtensor.Layout.replicated(dist.device_mesh.backend_mesh, tensor.shape.rank))


def mesh_loops(model: Any, state: Any, dist: Any) -> StepLoops:
    """The compiled multi-step loops of ``model`` on ``dist``'s mesh (the one-device loops, laid out on it)."""
    key = ("loops", id(dist))
    loops = state.mesh_steps.get(key)
    if loops is None or loops.mesh is not dist:
        loops = state.mesh_steps[key] = StepLoops(model, False, mesh=dist)
    return loops


def _step(dist: Any, model: Any, state: Any, mode: str) -> Callable:
    key = (mode, state.run_eagerly)
    if key not in state.mesh_steps:
        own = {"train": model.train_step, "test": model.test_step, "predict": model.predict_step}[mode]

        def step(batch: Any) -> Any:
            with distribution_values.tracing_step_on(dist):  # layers' "/output" layouts apply in this trace
                return own(batch)

        state.mesh_steps[key] = step if state.run_eagerly else compiled(step, reduce_retracing=True)
    return state.mesh_steps[key]


def _batches(data: Any, order: Any) -> Any:
    dataset = data.as_dataset()
    if order is not None:  # in-memory data, shuffled: the epoch's row order
        dataset = tf.data.Dataset.from_tensor_slices(
            tf.nest.map_structure(lambda t: tf.gather(t, order), data.tensors)
        ).batch(data.batch_size)
    return dataset


def iterate(dist: Any, dataset: Any) -> Any:
    """An iterator over ``dataset``'s batches as this process reads them under ``dist``."""
    return iter(dist.distribute_dataset(dataset))


def run_epoch(
    dist: Any,
    model: Any,
    state: Any,
    mode: str,
    data: Any,
    hooks: Any,
    steps_limit: int | None,
    order: Any = None,
    planner: Any = None,
    iterator: Any = None,
) -> dict:
    """One epoch of ``mode`` ("train"/"test") over batches read from Python; returns the last step's logs.

    ``order``: the rows of in-memory data in this epoch's shuffled order (``None``: as they are).
    ``planner``: a ``ChunkPlanner``; with it, the model's built-in steps run in compiled chunks of batches
    (``stacked_batches.run_chunks``), else (no planner, ``run_eagerly``, a model's own step) a step per batch.
    ``iterator``: the fit's iterator (``iterate``), which goes on from epoch to epoch (``steps_per_epoch``
    of a dataset); ``None``: the epoch reads the data from its start.
    """
    own_iterator = iterator is None
    batches = iterate(dist, _batches(data, order)) if own_iterator else iterator

    def one_step(batch: Any) -> Any:
        return _step(dist, model, state, mode)(distribution_values.distribute_batch(batch, dist, own_rows=True))

    if planner is not None and not state.run_eagerly and not model._defines_own_step(mode):
        loops = mesh_loops(model, state, dist)
        return stacked_batches.run_chunks(
            loops, mode, batches, hooks, steps_limit, planner, one_step, data.steps_per_epoch, own_iterator
        )
    logs: dict = {}
    for index, batch in enumerate(itertools.islice(batches, steps_limit)):  # reads no batch past the limit
        hooks.begin(index)
        logs = to_floats(one_step(batch))
        hooks.end(index, logs)
        if mode == "train" and model.stop_training:
            break
    return logs


def run_prediction(dist: Any, model: Any, state: Any, data: Any, cbs: Any, steps: int | None) -> Any:
    """``predict``'s pass: each batch's outputs gathered from the mesh, in order."""
    step = _step(dist, model, state, "predict")
    outputs = PredictionBuffer(None)
    for index, batch in enumerate(dist.distribute_dataset(data.as_dataset())):
        if steps is not None and index >= steps:
            break
        cbs.on_predict_batch_begin(index)
        x_only, _, _ = data_module.unpack_x_y_sample_weight(batch)
        result = step(distribution_values.distribute_batch((x_only,), dist, own_rows=True))
        chunk = outputs.add(tf.nest.map_structure(distribution_values.gather, result))
        cbs.on_predict_batch_end(index, {"outputs": chunk})
    if isinstance(data, data_module.DatasetData):
        data.end_epoch()
    return outputs.result()
