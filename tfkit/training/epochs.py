"""One epoch of training or evaluation, and one pass of prediction, as compiled chunks of steps.

    result = run_epoch(model, model._compiled, "train", data, callbacks, steps_limit=None, iterator=None, verbose=1)
    result.logs, result.steps          # the last chunk's logs, the number of steps that ran
    outputs = run_prediction(model, model._compiled, data, callbacks, steps=None, verbose=1)

Each chunk is one call of a compiled loop from ``compiled_loops.py`` (its length from
``chunk_planner.py``). In-memory data is batched by index inside the graph;
datasets go through an iterator; ``run_eagerly`` runs the model's step in Python.
Under ``ParameterServerStrategy`` the chunks run on the workers (``distributed_loops/``).
"""

from __future__ import annotations

import time
import warnings
from typing import Any, Callable, NamedTuple

import tensorflow as tf

from tfkit.training import data as data_module
from tfkit.training import distributed_loops
from tfkit.training.chunk_planner import ChunkPlanner, to_floats
from tfkit.training.distributed_loops import mesh_loop
from tfkit.training.iterator_release import release
from tfkit.training.prediction_buffer import PredictionBuffer
from tfkit.training.trace_ahead import TraceAhead


class EpochResult(NamedTuple):
    logs: dict
    steps: int


def run_epoch(
    model: Any, state: Any, mode: str, data: Any, cbs: Any, steps_limit: int | None, iterator: Any, verbose: int
) -> EpochResult:
    """Run ``mode`` ("train" or "test") over one epoch of ``data``, calling the batch hooks of ``cbs``."""
    setting = state.steps_per_execution
    if setting == "auto" and distributed_loops.spans_workers(state.strategy):
        setting = distributed_loops.SYNCHRONIZED_CHUNK  # all workers must make the same compiled calls
    key = (mode, data.batch_size)
    planner = ChunkPlanner(
        setting, cbs.needs_batch_hooks(mode), quiet=verbose == 0, seconds_per_step=state.seconds_per_step.get(key)
    )
    batch_end = cbs.on_train_batch_end if mode == "train" else cbs.on_test_batch_end
    hooks = _Hooks(cbs.on_train_batch_begin if mode == "train" else cbs.on_test_batch_begin, batch_end)
    if isinstance(data, data_module.DatasetData):
        data.begin_epoch()  # a PyDataset's on_epoch_begin, as Keras 3 calls it
    try:
        logs = _run_planned(model, state, mode, data, hooks, steps_limit, iterator, planner)
    finally:
        if planner.seconds_per_step is not None:
            state.seconds_per_step[key] = planner.seconds_per_step
    if isinstance(data, data_module.DatasetData):
        data.end_epoch()  # a PyDataset's on_epoch_end: once per epoch, as Keras calls it
    return EpochResult(logs, hooks.steps)


class _Hooks:
    """The batch hooks every runner calls; counts the steps that ran."""

    def __init__(self, begin: Callable, end: Callable) -> None:
        self.begin, self._end, self.steps = begin, end, 0

    def end(self, step: int, logs: Any) -> Any:
        self.steps = step + 1
        return self._end(step, logs)


def _run_planned(model, state, mode, data, hooks, steps_limit, iterator, planner) -> dict:
    if isinstance(data, distributed_loops.PerWorkerData):
        return state.coordinated_loops(model).run_epoch(
            mode, data, steps_limit, iterator, state.steps_per_execution, hooks.begin, hooks.end, planner.per_batch
        )
    dist = mesh_loop.distribution_of(model)
    if dist is not None and not state.run_eagerly:
        placed = mesh_loop.whole_on_mesh(dist, data)
        if placed is not None:
            return _run_arrays(model, state, mode, data, planner, hooks, steps_limit, mesh=(dist, placed))
    if dist is not None:
        shuffled = isinstance(data, data_module.ArrayData) and mode == "train" and data.shuffle
        order = epoch_order(state, data) if shuffled else None
        return mesh_loop.run_epoch(dist, model, state, mode, data, hooks, steps_limit, order, planner, iterator)
    if state.run_eagerly:
        return _run_eager(model, state, mode, data, hooks, steps_limit)
    if isinstance(data, data_module.ArrayData) and state.strategy is None:
        return _run_arrays(model, state, mode, data, planner, hooks, steps_limit)
    return _run_iterator(model, state, mode, data, planner, hooks, steps_limit, iterator)


def timed(model: Any, state: Any, call: Callable, data: Any = None) -> tuple[Any, float]:
    """``call()`` and its duration; after a failure XLA could not compile, once more without XLA."""
    start = time.perf_counter()
    try:
        result = call()
    except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError, tf.errors.InternalError) as error:
        failed_batch = isinstance(data, data_module.DatasetData) and data.batch_failure() is not None
        if failed_batch or not state.fall_back_from_xla(error, model.name):  # a bad batch is not XLA's doing
            raise
        result = call()
    return result, time.perf_counter() - start


def make_iterator(state: Any, data: Any, model: Any = None) -> Any:
    """An iterator over ``data``'s batches, as ``model``'s steps read them (a strategy's or a mesh's)."""
    dataset = data.as_dataset()
    if state.strategy is not None:
        return iter(state.strategy.experimental_distribute_dataset(dataset))
    dist = None if model is None else mesh_loop.distribution_of(model)
    if dist is not None:
        return mesh_loop.iterate(dist, dataset)
    return iter(dataset)


def epoch_order(state: Any, data: Any) -> tf.Tensor:
    """The row order of one epoch of in-memory data: shuffled from the state's data seed, which then moves on."""
    n = data.num_samples
    if not data.shuffle:
        return tf.range(n)
    seed = state.data_seed.read_value()
    state.data_seed.assign_add(tf.constant([0, 1], tf.int64))
    return tf.random.experimental.stateless_shuffle(tf.range(n), seed=seed)


def _record(chooser: Any, planner: ChunkPlanner, state: Any, steps: int, seconds: float) -> None:
    """A chunk's duration: to the XLA chooser while it decides (its chunks are not typical), else the planner."""
    if chooser is not None and chooser.deciding:
        chooser.record(state, steps, seconds)
    else:
        planner.record(steps, seconds)


def _chooser(state: Any, mode: str) -> Any:
    chooser = state.xla_chooser
    return chooser if mode == "train" and chooser is not None and chooser.deciding else None


def _run_arrays(model, state, mode, data, planner, hooks, steps_limit, mesh=None) -> dict:
    """In-memory data in compiled chunks; ``mesh``: ``(distribution, data tensors whole on its mesh)`` or None."""
    chooser = _chooser(state, mode) if mesh is None else None  # on a mesh the loops stay in the plain form
    total = min(steps_limit or data.steps_per_epoch, data.steps_per_epoch)
    order = epoch_order(state, data) if mode == "train" else tf.range(data.num_samples)
    batch_spec = data.element_spec()
    template, unique = data.layout()
    if mesh is None:
        loops = lambda: state.loops(model)  # noqa: E731  (called again after an XLA fallback: new loops)
    else:
        dist, unique = mesh
        order = mesh_loop.replicate(dist, order)
        loops = lambda: mesh_loop.mesh_loops(model, state, dist)  # noqa: E731
    full_batches, last = divmod(data.num_samples, data.batch_size)
    logs: dict = {}
    step = 0
    ahead: TraceAhead | None = None
    while step < total:
        # Full batches run in chunks; a short last batch runs alone with its own static size.
        batch_size = data.batch_size if step < full_batches else last
        if ahead is not None and batch_size == last:
            ahead.wait()
        elif (
            ahead is None
            and 0 < step < full_batches
            and total > full_batches
            and not planner.per_batch
            and (chooser is None or not chooser.deciding)
        ):  # a trace beside the chooser's timing would skew it
            ahead = _trace_last_batch_ahead(loops(), mode, last, batch_spec, template, unique, order)
        count = planner.next(min(total, full_batches) - step) if step < full_batches else 1
        if chooser is not None and batch_size == data.batch_size:
            count = chooser.count(count, min(total, full_batches) - step, free=planner.free)
        if loops().array_loop(mode, batch_size, batch_spec, template).max_count:
            count = 1
        if planner.per_batch:
            hooks.begin(step)
        first_row = step * data.batch_size
        raw, seconds = timed(
            model,
            state,
            lambda: loops().array_loop(mode, batch_size, batch_spec, template)(
                unique, order, tf.constant(first_row, tf.int32), tf.constant(count, tf.int32)
            ),
        )
        logs = to_floats(raw)
        if batch_size == data.batch_size:
            _record(chooser, planner, state, count, seconds)
        step += count
        hooks.end(step - 1, logs)
        if mode == "train" and model.stop_training:
            break
    return logs


def _trace_last_batch_ahead(loops, mode, last, batch_spec, template, unique, order) -> TraceAhead | None:
    """Trace (and instantiate) the short last batch's loop on a helper thread, once the full batches run."""
    if loops.has_array_loop(mode, last, template):
        return None

    def prepare() -> None:
        loop = loops.array_loop(mode, last, batch_spec, template)
        start, none = tf.constant(0, tf.int32), tf.constant(0, tf.int32)
        if loop.max_count:  # a custom step whose loop always runs one step: trace it only
            loop.get_concrete_function(unique, order, start, none)
        else:  # zero steps: TensorFlow optimizes the graph, nothing is trained
            loop(unique, order, start, none)

    return TraceAhead(prepare)


def _run_iterator(model, state, mode, data, planner, hooks, steps_limit, iterator) -> dict:
    chooser = _chooser(state, mode)
    total = steps_limit or data.steps_per_epoch
    batch_spec = data.element_spec()
    ahead = None
    own_iterator = iterator is None
    if own_iterator:
        ahead = _trace_iterator_loop_ahead(state, model, mode, batch_spec)
        iterator = make_iterator(state, data)  # meanwhile: the pipeline's optimization and set-up
        if ahead is not None:
            ahead.wait()
    # The first batch of a fit's or evaluate's data, taken here to check it for NaN and infinity, runs as
    # the first step of the first chunk (finite_inputs.py); later epochs and chunks read the iterator alone.
    again = (
        data.first_batch_again(iterator)
        if isinstance(data, data_module.DatasetData) and state.strategy is None
        else None
    )
    logs: dict = {}
    step = 0
    while total is None or step < total:
        count = planner.next(None if total is None else total - step)
        if chooser is not None:
            count = chooser.count(count, None if total is None else total - step, free=planner.free)
        if planner.per_batch:
            hooks.begin(step)
        first, again = again, None
        (done, raw), seconds = timed(
            model,
            state,
            lambda: _iterator_chunk(state.loops(model).iterator_loop(mode, batch_spec), iterator, count, first),
            data,
        )
        done = int(done)
        if ahead is not None:  # the first chunk's trace ran ahead: the XLA chooser weighs traces
            seconds, ahead = seconds + ahead.seconds, None
        if done:
            logs = to_floats(raw)
            _record(chooser, planner, state, done, seconds)
            step += done
            hooks.end(step - 1, logs)
        if done < count:
            if step == 0:
                warnings.warn("The data ran out before the first step of the epoch", RuntimeWarning, stacklevel=5)
            break
        if mode == "train" and model.stop_training:
            break
    if own_iterator and state.strategy is None:
        release(iterator)  # its deletion waits for the pipeline's threads: not between epochs
        del iterator
    return logs


def _iterator_chunk(loop: Any, iterator: Any, count: int, first: Any) -> tuple[Any, Any]:
    """``loop`` over ``count`` batches of ``iterator``; with ``first`` (the checked first batch, again), that batch
    and ``count - 1`` of ``iterator``. Two calls of the same compiled loop, once per epoch that checks."""
    if first is not None:
        done, logs = loop(first, tf.constant(1, tf.int32))
        if int(done):
            if count == 1:
                return done, logs
            more, later = loop(iterator, tf.constant(count - 1, tf.int32))
            return done + more, later if int(more) else logs
    return loop(iterator, tf.constant(count, tf.int32))


def _trace_iterator_loop_ahead(state, model, mode, batch_spec) -> TraceAhead | None:
    """Trace the iterator loop on a helper thread while the caller creates the iterator (not yet traced only)."""
    if state.strategy is not None or state.run_eagerly:
        return None
    loop = state.loops(model).iterator_loop(mode, batch_spec)
    if loop.experimental_get_tracing_count():
        return None
    iterator_spec = tf.data.IteratorSpec(batch_spec)
    return TraceAhead(lambda: loop.get_concrete_function(iterator_spec, tf.TensorSpec([], tf.int32)))


def _run_eager(model, state, mode, data, hooks, steps_limit) -> dict:
    step_fn = model.train_step if mode == "train" else model.test_step
    dataset = data.as_dataset()
    if isinstance(data, data_module.ArrayData) and mode == "train" and data.shuffle:
        order = epoch_order(state, data)
        dataset = tf.data.Dataset.from_tensor_slices(
            tf.nest.map_structure(lambda t: tf.gather(t, order), data.tensors)
        ).batch(data.batch_size)
    logs: dict = {}
    for step, batch in enumerate(dataset):
        if steps_limit is not None and step >= steps_limit:
            break
        if step == 0 and isinstance(data, data_module.DatasetData):
            data.check_first(batch)
        hooks.begin(step)
        logs = to_floats(step_fn(batch))
        hooks.end(step, logs)
        if mode == "train" and model.stop_training:
            break
    return logs


def run_prediction(model: Any, state: Any, data: Any, cbs: Any, steps: int | None, verbose: int) -> Any:
    """``predict``'s pass over ``data``: the outputs as numpy arrays, in order."""
    # Under ParameterServerStrategy predict runs here, on the chief, reading the variables from the
    # parameter servers (as tf-keras does): no coordinator, no per-worker data, outputs in order.
    strategy = None if distributed_loops.is_parameter_server(state.strategy) else state.strategy
    dist = mesh_loop.distribution_of(model)
    if dist is not None:
        return mesh_loop.run_prediction(dist, model, state, data, cbs, steps)

    def loops() -> Any:
        return state.loops(model) if strategy is state.strategy else state.chief_loops(model)

    key = ("predict", getattr(data, "batch_size", None))
    planner = ChunkPlanner(
        state.steps_per_execution,
        cbs.needs_batch_hooks("predict"),
        quiet=verbose == 0,
        seconds_per_step=state.seconds_per_step.get(key),
    )  # no ramp-up the second time
    if isinstance(data, data_module.ArrayData) and strategy is None and not state.run_eagerly:
        total = min(steps or data.steps_per_epoch, data.steps_per_epoch)
        x_tensors, _, _ = data_module.unpack_x_y_sample_weight(data.tensors)
        rows_total = min(data.num_samples, total * data.batch_size)
        outputs = PredictionBuffer(rows_total)
        step = 0
        while step < total:
            count = planner.next(total - step)
            if planner.per_batch:
                cbs.on_predict_batch_begin(step)
            out, seconds = timed(
                model,
                state,
                lambda: loops().array_predict_loop(data.batch_size, x_tensors)(
                    x_tensors, tf.constant(step, tf.int32), tf.constant(count, tf.int32)
                ),
            )
            planner.record(count, seconds)
            rows = min(count * data.batch_size, rows_total - step * data.batch_size)
            chunk = outputs.add(out, rows)
            step += count
            cbs.on_predict_batch_end(step - 1, {"outputs": chunk})
    else:
        outputs = PredictionBuffer(None)
        if isinstance(data, data_module.DatasetData):
            data.begin_epoch()
        dataset = data.as_dataset()
        if strategy is not None:  # sharded by data across workers: every worker gets the whole batches back
            dataset = distributed_loops.distribute_for_predict(strategy, dataset)
        if state.run_eagerly:
            fn = (
                model.predict_step
                if strategy is None
                else distributed_loops.eager_predict(strategy, model.predict_step)
            )
        else:
            fn = loops().predict_batch_fn()
        for step, batch in enumerate(dataset):
            if steps is not None and step >= steps:
                break
            if step == 0 and strategy is None and isinstance(data, data_module.DatasetData):
                data.check_first(batch)  # NaN or infinity: a warning
            cbs.on_predict_batch_begin(step)
            x_only, _, _ = data_module.unpack_x_y_sample_weight(batch)
            chunk = outputs.add(fn((x_only,)))
            cbs.on_predict_batch_end(step, {"outputs": chunk})
        if isinstance(data, data_module.DatasetData):
            data.end_epoch()
    if planner.seconds_per_step is not None:
        state.seconds_per_step[key] = planner.seconds_per_step
    return outputs.result()
