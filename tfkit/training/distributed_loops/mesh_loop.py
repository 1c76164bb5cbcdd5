"""Steps under a ``tfkit.distribution`` (DataParallel, ModelParallel): each batch split over the mesh.

    logs = run_epoch(model, state, "train", data, hooks, steps_limit)
    outputs = run_prediction(model, state, data, cbs, steps)

The model's variables are DTensor variables already (created under the
distribution); here each batch is laid out on the mesh (split on the batch
axis) and handed to the model's own step, compiled once per mode. DTensor
expands the step over the devices: gradients of a split batch are summed
across it, sharded matrix products communicate as their layouts need.
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit.distribution import values as distribution_values
from tfkit.training import data as data_module
from tfkit.training.chunk_planner import to_floats
from tfkit.training.compiled_loops import compiled
from tfkit.training.prediction_buffer import PredictionBuffer


def distribution_of(model: Any) -> Any:
    """The distribution ``model``'s steps run under, or None (one device).

    A built model's variables decide (they live on a mesh or they do not): a
    model built before ``set_distribution`` keeps running on one device. An
    unbuilt model builds in its first step, under the current distribution.
    """
    return distribution_values.distribution_of(model.weights)


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


def run_epoch(
    dist: Any, model: Any, state: Any, mode: str, data: Any, hooks: Any, steps_limit: int | None, order: Any = None
) -> dict:
    """One epoch of ``mode`` ("train"/"test"), a step per batch; returns the last step's logs.

    ``order``: the rows of in-memory data in this epoch's shuffled order (``None``: as they are).
    """
    step = _step(dist, model, state, mode)
    logs: dict = {}
    for index, batch in enumerate(dist.distribute_dataset(_batches(data, order))):
        if steps_limit is not None and index >= steps_limit:
            break
        hooks.begin(index)
        logs = to_floats(step(distribution_values.distribute_batch(batch, dist)))
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
        result = step(distribution_values.distribute_batch((x_only,), dist))
        chunk = outputs.add(tf.nest.map_structure(distribution_values.gather, result))
        cbs.on_predict_batch_end(index, {"outputs": chunk})
    if isinstance(data, data_module.DatasetData):
        data.end_epoch()
    return outputs.result()
