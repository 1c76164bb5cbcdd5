"""Batches made by Python code (generators, ``PyDataset``) as a ``tf.data.Dataset``, each checked against the first.

    dataset, guard = generator_dataset(batches(), "the generator passed as x")
    dataset, guard, count = py_dataset_dataset(MyBatches(), "the PyDataset passed as x")
    guard.failure         # the ValueError of the batch that did not fit, once one did not

The first batch fixes the dataset's element spec (its dtypes; its shapes but
the batch dimension). ``tf.data``'s ``from_generator`` would cast every later
batch to that spec with ``np.asarray(value, dtype)``: float labels ``1.7``
after integer ones silently became ``1``. Here each later batch is checked on
the host where it is converted, before it reaches the compiled step: a dtype
that differs from the first batch's is converted only when no value changes
(integer-valued floats into an integer spec pass, as they do in Keras 3), and
otherwise the batch is a ``ValueError`` naming the batch, the element
(``x`` / ``y`` / ``sample_weight``), what the first batch had and what came.
A batch of the first batch's dtypes costs one dtype comparison per element.

The error is raised inside ``tf.data``'s generator, which turns it into an
``InvalidArgumentError``; ``guard.failure`` keeps the original, which the
trainer raises in its place (``data.raise_batch_failure``).
"""

from __future__ import annotations

import itertools
import random
import warnings
from typing import Any, Iterator

import numpy as np
import tensorflow as tf

from tfkit.training.batch_workers import WorkerSettings, read_in_order

_PARTS = ("x", "y", "sample_weight")


def _as_tuple(batch: Any) -> tuple:
    if isinstance(batch, tuple):
        return batch
    if isinstance(batch, list) and len(batch) in (2, 3):
        return tuple(batch)
    return (batch,)


def _spec(value: Any) -> tf.TensorSpec:
    tensor = tf.convert_to_tensor(value)
    if tensor.dtype == tf.float64:
        tensor = tf.cast(tensor, tf.float32)
    return tf.TensorSpec((None, *tensor.shape[1:]), tensor.dtype)


def _labels(batch: tuple) -> list[str]:
    """``x``, ``y``, ``x['image']``, ``x[0]`` ...: each leaf's name, in ``tf.nest.flatten`` order."""
    out: list[str] = []

    def walk(value: Any, label: str) -> None:
        if isinstance(value, dict):
            for key in sorted(value):  # tf.nest flattens dicts by sorted key
                walk(value[key], f"{label}[{key!r}]")
        elif isinstance(value, (list, tuple)) and tf.nest.is_nested(value):
            for index, item in enumerate(value):
                walk(item, f"{label}[{index}]")
        else:
            out.append(label)

    for index, part in enumerate(batch):
        walk(part, _PARTS[index] if index < len(_PARTS) else f"element {index}")
    return out


def _outline(batch: Any) -> str:
    """The structure of a batch with its arrays as ``array``: ``(array, {'a': array})``."""
    return repr(tf.nest.map_structure(lambda _: _Leaf(), batch))


class _Leaf:
    def __repr__(self) -> str:
        return "array"


def _rebuild(structure: Any, leaves: Iterator[Any]) -> Any:
    """``structure`` (the signature) with its leaves, in ``tf.nest.flatten`` order, taken from ``leaves``
    (``tf.nest.pack_sequence_as`` costs tens of microseconds a batch)."""
    if isinstance(structure, dict):
        return type(structure)((key, _rebuild(structure[key], leaves)) for key in sorted(structure))
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):  # a namedtuple
        return type(structure)(*(_rebuild(item, leaves) for item in structure))
    if isinstance(structure, (list, tuple)):
        return type(structure)(_rebuild(item, leaves) for item in structure)
    return next(leaves)


def _shape(shape: tuple) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


class BatchGuard:
    """The first batch's spec, and the check every later batch passes before ``tf.data`` converts it.

    Args:
        first: the first batch (a tuple ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``).
        source: what made the batches, for messages ("the generator passed as x").
    """

    def __init__(self, first: tuple, source: str) -> None:
        self.source = source
        self.signature = tf.nest.map_structure(_spec, first)
        self.failure: ValueError | None = None
        specs = tf.nest.flatten(self.signature)
        self._labels = _labels(first)
        self._flat = not any(tf.nest.is_nested(part) for part in first)  # (x, y): no tf.nest per batch
        self._checks = [
            (
                np.dtype(s.dtype.as_numpy_dtype) if s.dtype != tf.string else None,
                s.shape.rank,
                tuple((axis, d) for axis, d in enumerate(s.shape.as_list()) if d is not None),
                label,
                tuple(np.shape(leaf)),
            )
            for s, label, leaf in zip(specs, self._labels, tf.nest.flatten(first))
        ]

    def check(self, index: int, batch: Any) -> Any:
        """Batch ``index`` as arrays of the first batch's dtypes; a ``ValueError`` if it cannot be (also kept)."""
        batch = _as_tuple(batch)
        if self._flat and len(batch) == len(self._checks) and all(type(leaf) is np.ndarray for leaf in batch):
            leaves = batch
        else:
            try:
                tf.nest.assert_same_structure(self.signature, batch, check_types=False)
            except (ValueError, TypeError):
                self._fail(
                    index,
                    f"it is {_outline(batch)}, but the first batch was {_outline(self.signature)} "
                    f"({', '.join(self._labels)}): yield the same structure every time",
                )
            leaves = tf.nest.flatten(batch)
        out = []
        for leaf, (dtype, rank, fixed, label, first_shape) in zip(leaves, self._checks):
            if dtype is None:  # strings: tf.data converts them; nothing can be lost
                out.append(leaf)
                continue
            array = np.asarray(leaf)
            if array.dtype != dtype:
                array = self._convert(index, label, array, dtype)
            if array.ndim != rank or any(array.shape[axis] != size for axis, size in fixed):
                self._fail(
                    index,
                    f"{label} has shape {_shape(array.shape)}, but the first batch's {label} had shape "
                    f"{_shape(first_shape)}: every batch must have the first batch's shape in all but "
                    f"the first (batch) dimension",
                )
            out.append(array)
        # from_generator flattens what it is given against the signature: the arrays in its structure
        return tuple(out) if self._flat else _rebuild(self.signature, iter(out))

    def _convert(self, index: int, label: str, array: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """``array`` as ``dtype``: floats to a narrower float and safe casts as they are; other casts only when
        every value survives the round trip."""
        if array.dtype.kind not in "biufc":
            self._fail(
                index,
                f"{label} holds {array.dtype} values, but the first batch's {label} was "
                f"{dtype.name}: yield numbers of one dtype in every batch",
            )
        if np.can_cast(array.dtype, dtype, "safe") or array.dtype.kind == dtype.kind == "f":
            return array.astype(dtype)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            converted = array.astype(dtype)
            back = converted.astype(array.dtype)
        changed = ~((back == array) | (np.isnan(array) & np.isnan(back) if array.dtype.kind in "fc" else False))
        if not changed.any():
            return converted
        position = tuple(int(i) for i in np.argwhere(changed)[0])
        value, becomes = array[position].item(), converted[position].item()
        if array.dtype.kind == "f" and not np.isfinite(value):
            why = " (NaN or infinity)"
        elif array.dtype.kind == "f" and not float(value).is_integer():
            why = " (not whole numbers)"
        else:
            why = f" (outside {dtype.name}'s range)" if dtype.kind in "iu" else ""
        where = f"{label}[{', '.join(map(str, position))}]"
        advice = (
            f"if {label} holds class ids, yield integers (round them yourself); if it holds real values, "
            f"make the first batch's {label} floating point too (astype('float32'))"
            if dtype.kind in "iub"
            else f"yield {label} as {dtype.name} in every batch"
        )
        self._fail(
            index,
            f"{label} holds {array.dtype} values{why} such as {where} = {value!r}, but the first "
            f"batch's {label} was {dtype.name}, which cannot hold them (casting would make it "
            f"{becomes!r}): {advice}",
        )
        return converted  # not reached

    def _fail(self, index: int, what: str) -> None:
        self.failure = ValueError(
            f"batch {index} (counting from 0) of {self.source} does not match its first batch: {what}."
        )
        raise self.failure


def generator_dataset(generator: Iterator[Any], source: str) -> tuple[tf.data.Dataset, BatchGuard]:
    """A dataset of the generator's batches (the first one taken now, to fix the spec) and its guard."""
    try:
        first = next(generator)
    except StopIteration as error:
        raise ValueError(f"{source[0].upper()}{source[1:]} yielded nothing") from error
    first = _as_tuple(first)
    guard = BatchGuard(first, source)

    def replay() -> Iterator[Any]:
        yield guard.check(0, first)
        for index, item in enumerate(generator, start=1):
            yield guard.check(index, item)

    return tf.data.Dataset.from_generator(replay, output_signature=guard.signature), guard


def batch_count(source: Any, label: str) -> int | None:
    """The batches in one epoch of a ``PyDataset``-shaped ``source``: its ``num_batches`` (Keras 3), else ``len``.

    ``None`` means endless (a Keras 3 ``PyDataset`` whose ``num_batches`` is ``None``); a count
    that is not a positive integer is a ``ValueError`` naming ``label``.
    """
    count = getattr(source, "num_batches", _NO_COUNT)
    how = "num_batches"
    if count is _NO_COUNT:
        count, how = len(source), "__len__()"
    if count is None:
        return None
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count <= 0:
        raise ValueError(f"{label}: {type(source).__name__}.{how} must be a positive int, got {count!r}")
    return int(count)


_NO_COUNT = object()


def py_dataset_dataset(
    source: Any, label: str, steps: int | None = None, shuffle: bool = False
) -> tuple[tf.data.Dataset, BatchGuard, int | None]:
    """``(dataset, guard, batches per epoch)``: each pass reads ``source[0..count-1]`` (endless when the count
    is ``None``, then ``steps`` must say how many batches a pass takes).

    With ``shuffle`` (``fit``'s default), each pass of a finite ``source`` reads its batches in a new order
    drawn with Python's ``random`` (seeded by ``tfkit.utils.set_random_seed``), as Keras 3 and tf-keras
    shuffle a ``PyDataset``'s batches; an endless one is read in order, as in Keras.

    ``source`` is any object ``is_py_dataset`` accepts; its ``workers``, ``use_multiprocessing`` and
    ``max_queue_size`` say who reads the batches (``batch_workers.py``), always in the pass's order.
    ``source.on_epoch_begin()`` / ``on_epoch_end()`` are not called from the pass: the trainer
    calls them when an epoch begins and ends (``DatasetData.begin_epoch`` / ``end_epoch``), so each
    runs exactly once per epoch even when the epoch stops before the pass is over.
    """
    count = batch_count(source, label)
    if count is None and steps is None:
        raise ValueError(
            f"{label[0].upper()}{label[1:]} has num_batches None (endless): pass steps_per_epoch to fit "
            f"(steps to evaluate or predict, validation_steps for validation data) to say how many batches "
            f"an epoch takes"
        )
    settings = WorkerSettings.of(source, label)
    guard = BatchGuard(_as_tuple(source[0]), label)

    def one_pass() -> Iterator[Any]:
        indices = range(count) if count is not None else itertools.count()
        if shuffle and count is not None:
            indices = random.sample(indices, count)
        for index, batch in read_in_order(source, indices, settings, count):
            yield guard.check(index, batch)

    dataset = tf.data.Dataset.from_generator(one_pass, output_signature=guard.signature)
    if count is None:
        return dataset, guard, None
    return dataset.apply(tf.data.experimental.assert_cardinality(count)), guard, count
