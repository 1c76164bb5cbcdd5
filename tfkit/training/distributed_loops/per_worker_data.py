"""Input for ``ParameterServerStrategy``: every worker builds and reads its own copy of the data.

    data = per_worker_data("fit", strategy, x_train, y_train, batch_size=64, steps=100)
    iterator = data.iterator()   # for coordinator.schedule(fn, args=(iterator,))
    data.element_spec()          # one batch's structure, to build the model before training

What a worker can read: a ``tfkit.utils.experimental.DatasetCreator`` (its
function runs on each worker), a ``tf.data.Dataset`` (its graph is copied to
each worker), or in-memory numpy arrays / tensors (copied into each worker's
pipeline, shuffled there). Python generators and ``PyDataset``s live in this
process and cannot be shipped. Each worker reads its data from the start and
repeated, so an epoch has no natural end: ``steps_per_epoch`` (``steps``,
``validation_steps``) says how many steps, spread over the workers, make one.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import tensorflow as tf

from tfkit.training import data as data_module
from tfkit.training.distributed_loops.strategy_kind import coordinator_for
from tfkit.training.fit_request import FitRequest
from tfkit.utils.dataset_creator import DatasetCreator
from tfkit.utils.py_dataset import is_py_dataset

_ACCEPTED = (
    "a tfkit.utils.experimental.DatasetCreator(dataset_fn) whose dataset_fn(input_context) returns a "
    "tf.data.Dataset, a tf.data.Dataset, or numpy arrays / tensors"
)


class PerWorkerData:
    """A per-worker dataset for one ``fit`` / ``evaluate`` call, created on the workers on first use."""

    def __init__(
        self,
        strategy: Any,
        dataset_fn: Callable[[tf.distribute.InputContext], tf.data.Dataset] | None,
        dataset: tf.data.Dataset | None,
        steps_per_epoch: int,
        input_options: Any = None,
    ) -> None:
        self.strategy = strategy
        self.steps_per_epoch = int(steps_per_epoch)
        self.batch_size = None
        self._dataset_fn = dataset_fn
        self._dataset = dataset
        self._input_options = input_options
        self._per_worker: Any = None
        self._spec: Any = None

    def element_spec(self) -> Any:
        """The structure of one batch (built on this process; no data is read)."""
        if self._spec is None:
            dataset = self._dataset if self._dataset is not None else self._dataset_fn(tf.distribute.InputContext())
            self._spec = dataset.element_spec
        return self._spec

    def iterator(self) -> Any:
        """A fresh iterator over every worker's dataset (each worker starts from its data's beginning)."""
        if self._per_worker is None:
            coordinator = coordinator_for(self.strategy)
            if self._dataset is not None:
                self._per_worker = coordinator.create_per_worker_dataset(
                    self.strategy.experimental_distribute_dataset(self._dataset, options=self._input_options)
                )
            else:
                dataset_fn, options = self._dataset_fn, self._input_options
                self._per_worker = coordinator.create_per_worker_dataset(
                    lambda: self.strategy.distribute_datasets_from_function(dataset_fn, options=options)
                )
        return iter(self._per_worker)


def per_worker_data(
    method: str,
    strategy: Any,
    x: Any,
    y: Any = None,
    sample_weight: Any = None,
    batch_size: int | None = None,
    shuffle: Any = True,
    class_weight: Any = None,
    steps: int | None = None,
    steps_name: str = "steps_per_epoch",
    check: Any = None,
) -> PerWorkerData:
    """Check that ``x`` can be read on the workers and wrap it; ``ValueError`` naming the argument otherwise."""
    _check_readable_on_workers(method, x)
    if isinstance(x, DatasetCreator):
        _check_no_targets(method, x, y, sample_weight, "DatasetCreator")
        _require_steps(method, steps, steps_name, "a DatasetCreator's dataset may repeat forever")
        return PerWorkerData(strategy, _repeated_fn(x, class_weight), None, steps, x.input_options)
    if isinstance(x, tf.data.Dataset):
        _check_no_targets(method, x, y, sample_weight, "a tf.data.Dataset")
        _require_steps(method, steps, steps_name, "each worker reads its own copy of the dataset, repeated")
        dataset = data_module.adapt(x, class_weight=class_weight, steps_per_epoch=steps, check=check).as_dataset()
        return PerWorkerData(strategy, None, _repeated(dataset), steps)
    arrays = data_module.adapt(x, y, sample_weight, batch_size, shuffle, class_weight, check=check)
    return array_data_on_workers(method, strategy, arrays, steps, steps_name)


def array_data_on_workers(
    method: str, strategy: Any, arrays: Any, steps: int | None, steps_name: str = "steps_per_epoch"
) -> PerWorkerData:
    """In-memory ``ArrayData`` as a per-worker pipeline: copied to each worker, shuffled there, repeated."""
    if steps is None:
        one_pass = max(1, math.ceil(arrays.num_samples / arrays.batch_size))
        raise ValueError(
            f"{method}: under ParameterServerStrategy, numpy arrays and tensors need {steps_name}: each worker "
            f"reads its own repeated copy of the arrays, so the data has no natural end. Pass "
            f"{steps_name}={one_pass} for about one pass over the {arrays.num_samples} samples in batches of "
            f"{arrays.batch_size}."
        )
    tensors = tf.nest.map_structure(lambda t: t.numpy(), arrays.tensors)  # constants in each worker's graph
    batch_size, shuffle, count = arrays.batch_size, bool(arrays.shuffle), arrays.num_samples

    def dataset_fn(context: tf.distribute.InputContext) -> tf.data.Dataset:
        del context  # every worker reads all samples, in its own order
        dataset = tf.data.Dataset.from_tensor_slices(tensors)
        if shuffle:
            dataset = dataset.shuffle(count, reshuffle_each_iteration=True)
        return dataset.repeat().batch(batch_size)

    return PerWorkerData(strategy, dataset_fn, None, steps)


def _repeated(dataset: tf.data.Dataset) -> tf.data.Dataset:
    cardinality = tf.get_static_value(dataset.cardinality())  # symbolic inside a worker's dataset function
    infinite = cardinality is not None and int(cardinality) == int(tf.data.INFINITE_CARDINALITY)
    return dataset if infinite else dataset.repeat()


def _repeated_fn(creator: DatasetCreator, class_weight: Any) -> Callable[[tf.distribute.InputContext], Any]:
    def dataset_fn(context: tf.distribute.InputContext) -> tf.data.Dataset:
        dataset = creator(context)
        if class_weight:
            dataset = data_module.adapt(dataset, class_weight=class_weight).as_dataset()
        return _repeated(dataset)

    return dataset_fn


def _check_readable_on_workers(method: str, x: Any) -> None:
    if is_py_dataset(x) or data_module._is_generator(x):
        kind = "a PyDataset" if is_py_dataset(x) else "a Python generator"
        raise ValueError(
            f"{method}: under ParameterServerStrategy, x cannot be {kind}: the workers build their own input "
            f"pipelines and cannot run Python code that lives in this process. Pass {_ACCEPTED}."
        )
    if callable(x) and not isinstance(x, (DatasetCreator, tf.data.Dataset)):
        raise ValueError(
            f"{method}: under ParameterServerStrategy, x is a bare callable ({type(x).__name__}); wrap it as "
            f"tfkit.utils.experimental.DatasetCreator(dataset_fn) so each worker calls it with its "
            f"tf.distribute.InputContext."
        )
    if x is None or isinstance(x, (str, bytes, set)):
        raise ValueError(f"{method}: under ParameterServerStrategy, x must be {_ACCEPTED}; got {type(x).__name__}.")


def _check_no_targets(method: str, x: Any, y: Any, sample_weight: Any, kind: str) -> None:
    if y is not None or sample_weight is not None:
        raise ValueError(
            f"{method}: when x is {kind}, its batches hold (x, y) or (x, y, sample_weight): "
            f"do not pass y or sample_weight separately."
        )


def _require_steps(method: str, steps: int | None, steps_name: str, why: str) -> None:
    if steps is None:
        raise ValueError(
            f"{method}: under ParameterServerStrategy, {steps_name} is required: {why}, so the data has no "
            f"natural end. Pass {steps_name}=N (the number of batches, over all workers, to run)."
        )


def fit_data_on_workers(
    strategy: Any, request: FitRequest, check: Any = None
) -> tuple[PerWorkerData, PerWorkerData | None]:
    """``fit``'s training and validation data as per-worker datasets (validation needs ``validation_steps``)."""
    batch_size, validation_steps = request.batch_size, request.validation_steps
    if request.validation_split and request.validation_data is None:
        _check_readable_on_workers("fit", request.x)
        arrays = data_module.adapt(
            request.x,
            request.y,
            request.sample_weight,
            batch_size=batch_size,
            shuffle=request.shuffle,
            class_weight=request.class_weight,
            check=check,
        )
        if not isinstance(arrays, data_module.ArrayData):
            raise ValueError(
                "fit: validation_split is only supported for in-memory data (arrays or tensors); "
                "pass validation_data and validation_steps instead"
            )
        train, val = data_module.split_validation(arrays, request.validation_split, batch_size)
        return (
            array_data_on_workers("fit", strategy, train, request.steps_per_epoch),
            array_data_on_workers("fit", strategy, val, validation_steps, "validation_steps"),
        )
    data = per_worker_data(
        "fit",
        strategy,
        request.x,
        request.y,
        request.sample_weight,
        batch_size=batch_size,
        shuffle=request.shuffle,
        class_weight=request.class_weight,
        steps=request.steps_per_epoch,
        check=check,
    )
    validation_data = request.validation_data
    if validation_data is None:
        return data, None
    if isinstance(validation_data, (tuple, list)) and len(validation_data) in (2, 3):
        val_x, val_y, val_sw = (tuple(validation_data) + (None,))[:3]
    else:
        val_x, val_y, val_sw = validation_data, None, None
    val = per_worker_data(
        "fit",
        strategy,
        val_x,
        val_y,
        val_sw,
        batch_size=request.validation_batch_size or batch_size,
        shuffle=False,
        steps=validation_steps,
        steps_name="validation_steps",
    )
    return data, val
