"""Batches read from Python, trained on a mesh in compiled chunks: several steps per call.

    logs = run_chunks(loops, "train", batches, hooks, steps_limit, planner, one_step, expected_steps)

A dataset on a ``tfkit.distribution`` mesh cannot be read inside a step traced for
the mesh (DTensor lays out only its own ``DTensorDataset`` iterators, which read
the input pipeline once per device), so its batches are read here, in Python.
Consecutive batches of the same shapes are stacked on a new first axis, up to
the planner's chunk length, and placed on the mesh at once, each device given
only its rows (``distribution_values.distribute_batches``); one call of a
compiled loop then runs a step on each (``StepLoops.stacked_loop``). A batch of
other shapes (the short last batch) starts a chunk of its own.

On 8 logical CPU devices (2 cores), the keras-io distribution guide's MLP under
``DataParallel``, from a dataset of 256-row batches, ran an epoch in 0.43 s, where a
step per batch took 0.63 s (medians of 10 epochs each, the two alternating in one
process; from in-memory arrays, 0.34-0.44 s). The first epoch, which traces and lays
the loop out, took 2.2-2.6 s against 1.5-2.6 s (fresh processes).
"""

from __future__ import annotations

import collections
import time
from typing import Any, Callable, Iterator

import tensorflow as tf

from tfkit.distribution import values as distribution_values
from tfkit.training.chunk_planner import to_floats
from tfkit.training.iterator_release import release

# A chunk of batches stacked for one call takes at most this much memory (unless one batch alone is larger)
# and holds at most this many batches (enough to share a call's cost among many steps).
MAX_CHUNK_BYTES = 64 * 1024**2
MAX_CHUNK_STEPS = 64
# Batch shapes that get a compiled chunk loop each, per mode; batches of further shapes (variable-length
# sequences) run a step each, through a step traced with relaxed shapes.
MAX_SHAPES = 4


def _spec(batch: Any) -> Any:
    """The shapes and dtypes of ``batch``'s tensors (None where a batch cannot be stacked)."""
    leaves = tf.nest.flatten(batch)
    if not all(isinstance(t, tf.Tensor) and t.shape.rank and t.shape.is_fully_defined() for t in leaves):
        return None
    return tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), batch)


def _global_spec(stacked: Any) -> Any:
    """One batch's spec, from batches stacked and placed on the mesh (the global shapes)."""
    return tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape[1:], t.dtype), stacked)


def _bytes(batch: Any) -> int:
    return sum(int(t.shape.num_elements()) * t.dtype.size for t in tf.nest.flatten(batch))


class _Reader:
    """Chunks of same-shaped batches from ``batches``; a batch of other shapes waits for the next chunk."""

    def __init__(self, batches: Any) -> None:
        self._iterator: Iterator = iter(batches)
        self._waiting: collections.deque = collections.deque()

    def put_back(self, batches: list) -> None:
        """``batches`` are read again, first, by the next chunk."""
        self._waiting.extendleft(reversed(batches))

    def close(self) -> None:
        """Drop the iterator on a helper thread: deleting it waits for its pipeline's threads."""
        iterator, self._iterator = self._iterator, iter(())
        release(iterator)

    def _next(self) -> Any:
        if self._waiting:
            return self._waiting.popleft()
        return next(self._iterator, None)

    def chunk(self, most: int) -> tuple[list, Any]:
        """Up to ``most`` batches of one spec, and that spec; ``([], None)`` once the data ends, and
        ``([batch], None)`` for a batch that cannot be stacked (a scalar or a tensor of unknown shape in it)."""
        first = self._next()
        if first is None:
            return [], None
        spec = _spec(first)
        if spec is None:  # not stackable: a step of its own
            return [first], None
        chunk = [first]
        while len(chunk) < most:
            batch = self._next()
            if batch is None:
                break
            if _spec(batch) != spec:
                self.put_back([batch])
                break
            chunk.append(batch)
        return chunk, spec


def chunk_length(batch_bytes: int, expected_steps: int | None) -> int:
    """The length every chunk is padded to (with copies of its last batch, which no step reads): a power of two.

    DTensor lays a compiled function out anew for each new input shape (about half a second for the guide's
    MLP on 8 devices), so every chunk of a batch shape has this one length: at most ``MAX_CHUNK_STEPS``,
    within ``MAX_CHUNK_BYTES``, and no longer than the epoch's ``expected_steps`` need.
    """
    most = min(MAX_CHUNK_STEPS, max(1, MAX_CHUNK_BYTES // max(1, batch_bytes)))
    if expected_steps is not None:
        most = min(most, max(1, 1 << (int(expected_steps) - 1).bit_length()))
    return 1 << (most.bit_length() - 1)


def run_chunks(
    loops: Any,
    mode: str,
    batches: Any,
    hooks: Any,
    steps_limit: int | None,
    planner: Any,
    one_step: Callable[[Any], Any],
    expected_steps: int | None = None,
    release_batches: bool = True,
) -> dict:
    """One epoch of ``mode`` over ``batches`` in compiled chunks on ``loops``' mesh; the last chunk's logs.

    ``loops``: the model's ``StepLoops`` on the mesh. ``batches``: what the distribution's
    ``distribute_dataset`` gives (with several processes, this process's rows of each batch).
    ``one_step(batch)``: runs one batch alone and returns its logs; used for a batch that cannot be stacked,
    and for batches of new shapes once ``MAX_SHAPES`` batch shapes have loops (variable-length batches).
    ``expected_steps``: the epoch's number of batches, when known (it bounds the chunks' length).
    ``release_batches``: whether ``batches`` is this epoch's own, dropped at its end (not the fit's iterator,
    which goes on from epoch to epoch: no batch is read past ``steps_limit``, so none is lost between epochs).
    """
    dist = loops.mesh
    reader = _Reader(batches)
    logs: dict = {}
    step = 0
    length = None
    known = loops.stacked_batch_specs.setdefault(mode, [])  # the batch shapes read so far with a loop each
    while steps_limit is None or step < steps_limit:
        count = planner.next(None if steps_limit is None else steps_limit - step)
        chunk, spec = reader.chunk(count if length is None else min(count, length))
        if not chunk:
            break
        alone = spec is None or (spec not in known and len(known) >= MAX_SHAPES)
        if alone:
            reader.put_back(chunk[1:])
            chunk = chunk[:1]
        elif length is None:  # one step a call (batch hooks, steps_per_execution=1): no padding
            one_a_call = planner.per_batch or planner.fixed == 1
            length = 1 if one_a_call else chunk_length(_bytes(chunk[0]), steps_limit or expected_steps)
            reader.put_back(chunk[length:])  # only the first chunk can be longer: read before the length was known
            chunk = chunk[:length]
        if planner.per_batch:
            hooks.begin(step)
        start = time.perf_counter()
        if alone:
            logs = to_floats(one_step(chunk[0]))
        else:
            if spec not in known:
                known.append(spec)
            padded = chunk + chunk[-1:] * (length - len(chunk))  # one shape for every chunk: one layout
            stacked = tf.nest.map_structure(lambda *parts: tf.stack(parts), *padded)
            placed = distribution_values.distribute_batches(stacked, dist, own_rows=True)
            loop = loops.stacked_loop(mode, _global_spec(placed))  # several processes: each read its own rows
            logs = to_floats(loop(placed, tf.constant(len(chunk), tf.int32)))
        planner.record(len(chunk), time.perf_counter() - start)
        step += len(chunk)
        hooks.end(step - 1, logs)
        if mode == "train" and loops.model.stop_training:
            break
    if release_batches:
        reader.close()
    return logs
