"""Turning user data into what the compiled loops consume.

    data = adapt(x_train, y_train, batch_size=64, shuffle=True)
    data.steps_per_epoch          # 938 for 60,000 samples
    data.tensors                  # (x, y, sample_weight) kept as tensors: indexed in-graph

In-memory inputs (numpy arrays, tensors, and lists/tuples/dicts of them)
become ``ArrayData``: the whole arrays live as tensors and the trainer slices
batches inside its compiled loop, so no Python runs per batch. Everything
else (``tf.data.Dataset``, Python generators, ``PyDataset``-shaped objects, taken
by protocol: ``is_py_dataset``) becomes ``DatasetData``; batches made by Python
code are checked against the first one (``python_batches.py``).
"""

from __future__ import annotations

import math
import types
from typing import Any, Callable, Iterator, Mapping

import numpy as np
import tensorflow as tf
from tensorflow.python.data.ops import dataset_ops

from tfkit.engine import autograph
from tfkit.training.array_to_tensor import to_tensor
from tfkit.training.data_checks import DataCheck
from tfkit.training.finite_inputs import FiniteCheck, find_non_finite, labelled_leaves
from tfkit.training.python_batches import BatchGuard, generator_dataset, py_dataset_dataset
from tfkit.utils.data_tuples import pack_x_y_sample_weight, unpack_x_y_sample_weight  # noqa: F401  (re-exported)
from tfkit.utils.dataset_creator import DatasetCreator
from tfkit.utils.py_dataset import is_py_dataset


class ArrayData:
    """In-memory data as tensors, batched and shuffled by index inside the graph."""

    def __init__(self, tensors: tuple, batch_size: int, shuffle: Any) -> None:
        self.tensors = tensors
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.num_samples = _num_samples(tensors)
        self.steps_per_epoch = max(1, math.ceil(self.num_samples / self.batch_size)) if self.num_samples else 0
        self.on_mesh: tuple | None = None  # (distribution, tensors whole on its mesh): mesh_loop.whole_on_mesh

    def layout(self) -> tuple[Any, tuple]:
        """``(template, unique)``: each distinct tensor once, and where it goes in ``tensors``.

        ``fit(x, x)`` holds one tensor in two places; the compiled loop then
        cuts each batch from it once instead of twice.
        """
        unique: list[tf.Tensor] = []
        position: dict[int, int] = {}

        def place(tensor: tf.Tensor) -> int:
            if id(tensor) not in position:
                position[id(tensor)] = len(unique)
                unique.append(tensor)
            return position[id(tensor)]

        return tf.nest.map_structure(place, self.tensors), tuple(unique)

    def as_dataset(self) -> tf.data.Dataset:
        dataset = tf.data.Dataset.from_tensor_slices(self.tensors)
        return dataset.batch(self.batch_size)

    def element_spec(self) -> Any:
        return tf.nest.map_structure(lambda t: tf.TensorSpec((None, *t.shape[1:]), t.dtype), self.tensors)


class DatasetData:
    """A batched ``tf.data.Dataset`` (datasets and generators end up here).

    ``guard`` is the ``BatchGuard`` of batches made by Python code: it keeps the error of a batch
    that did not match the first, which ``tf.data`` reports only as an ``InvalidArgumentError``.
    ``finite`` checks the first batch the loops take for NaN and infinity (``check_first``,
    ``first_batch_again``); ``source`` names the data in its messages.
    """

    def __init__(
        self,
        dataset: tf.data.Dataset,
        steps_per_epoch: int | None = None,
        on_epoch_end: Callable[[], None] | None = None,
        on_epoch_begin: Callable[[], None] | None = None,
        guard: BatchGuard | None = None,
        finite: FiniteCheck | None = None,
        source: str = "the dataset",
    ) -> None:
        self.dataset = dataset
        cardinality = int(dataset.cardinality())
        self.steps_per_epoch = steps_per_epoch or (cardinality if cardinality >= 0 else None)
        self.batch_size = None
        self._on_epoch_end = on_epoch_end
        self._on_epoch_begin = on_epoch_begin
        self.guard = guard
        self._finite = (
            finite if all(isinstance(s, tf.TensorSpec) for s in tf.nest.flatten(dataset.element_spec)) else None
        )  # ragged and sparse batches are not checked
        self.source = source

    def check_first(self, batch: Any) -> None:
        """Check ``batch`` for NaN and infinity if it is the first one taken (the check is then spent)."""
        finite, self._finite = self._finite, None
        if finite is not None:
            finite.batch(batch, self.source)

    def first_batch_again(self, iterator: Any) -> Any:
        """While the first batch is unchecked: take it from ``iterator``, check it, and return an iterator that
        yields it once (of the dataset's element spec, so the compiled loop that takes ``iterator`` takes it
        too, untraced); then ``iterator`` goes on with the second batch. ``None`` when there is nothing to check.

        The batch is made once, by the iterator the loops read: a generator behind the dataset is not read twice,
        and the rest of the epoch pays nothing.
        """
        if self._finite is None:
            return None
        optional = iterator.get_next_as_optional()
        if not optional.has_value():
            self._finite = None
            return None
        batch = optional.get_value()
        self.check_first(batch)
        return iter(_one_batch(batch, self.dataset.element_spec))

    def batch_failure(self) -> ValueError | None:
        """The error of a Python-made batch that did not match the first batch, once one came."""
        return self.guard.failure if self.guard is not None else None

    def begin_epoch(self) -> None:
        """Tell the source an epoch begins (a ``PyDataset``'s ``on_epoch_begin``, as Keras 3 calls it)."""
        if self._on_epoch_begin is not None:
            self._on_epoch_begin()

    def end_epoch(self) -> None:
        """Tell the source an epoch is over (a ``PyDataset``'s ``on_epoch_end``)."""
        if self._on_epoch_end is not None:
            self._on_epoch_end()

    def as_dataset(self) -> tf.data.Dataset:
        return self.dataset

    def element_spec(self) -> Any:
        return self.dataset.element_spec


def _one_batch(batch: Any, spec: Any) -> tf.data.Dataset:
    """A dataset of ``batch`` alone, of element spec ``spec`` (the batch's shapes relaxed to it), set up plainly.

    tf.data's graph rewrites and autotuning are off: for one element they cost more than the element.
    TensorFlow's private ``_RestructuredDataset`` relaxes the spec with no op (4 ms for the dataset and
    its iterator on 2 cores); a TensorFlow without it gets a map, traced (about 20 ms).
    """
    options = tf.data.Options()
    options.experimental_optimization.apply_default_optimizations = False
    options.autotune.enabled = False
    dataset = tf.data.Dataset.from_tensors(batch).with_options(options)
    try:
        return dataset_ops._RestructuredDataset(dataset, spec)
    except Exception:  # noqa: BLE001 - the public path always works

        def relax(element: Any) -> Any:
            return tf.nest.map_structure(
                lambda t, s: tf.raw_ops.PlaceholderWithDefault(input=t, shape=s.shape), element, spec
            )

        return tf.data.Dataset.from_tensors((batch,)).map(autograph.written_in_tensorflow(relax)).with_options(options)


def adapt(
    x: Any,
    y: Any = None,
    sample_weight: Any = None,
    batch_size: int | None = None,
    shuffle: Any = False,
    class_weight: Mapping[int, float] | None = None,
    steps_per_epoch: int | None = None,
    argument: str = "x",
    check: DataCheck | None = None,
    finite: FiniteCheck | None = None,
) -> ArrayData | DatasetData:
    """Wrap ``x`` (and ``y``, ``sample_weight``) for the trainer.

    Raises ``ValueError`` for unsupported types, mismatched lengths, or
    ``y``/``sample_weight`` given alongside a dataset or generator. ``argument``
    names ``x`` in messages ("validation_data" when it is the validation data;
    its arrays are then ``validation_data[0]`` ...). ``check`` (the method's
    ``DataCheck``) also refuses empty data and strings where the model takes
    numbers. ``finite`` (the method's ``FiniteCheck``) looks for NaN and infinity
    in the arrays now, and in the first batch of a dataset when a loop takes it.
    """
    if is_py_dataset(x):  # by protocol: tfkit's, Keras 3's and tf-keras's PyDataset / Sequence, or duck-typed
        if y is not None or sample_weight is not None:
            raise ValueError(
                "When x is a PyDataset, its batches hold (x, y) or (x, y, sample_weight): "
                "do not pass y or sample_weight separately."
            )
        source = f"the PyDataset {type(x).__name__} passed as {argument}"
        dataset, guard, _ = py_dataset_dataset(x, source, steps_per_epoch, shuffle=bool(shuffle))
        if class_weight:
            dataset = dataset.map(lambda *d: _apply_class_weight(_unpack_tuple(d), class_weight))
        return DatasetData(
            dataset,
            steps_per_epoch,
            on_epoch_end=getattr(x, "on_epoch_end", None),
            on_epoch_begin=getattr(x, "on_epoch_begin", None),
            guard=guard,
            finite=finite,
            source=source,
        )
    if _is_dataset_creator(x):
        return DatasetData(
            _created_dataset(x, y, sample_weight, class_weight, steps_per_epoch),
            steps_per_epoch,
            finite=finite,
            source=f"the dataset of the DatasetCreator passed as {argument}",
        )
    if isinstance(x, tf.data.Dataset) or _is_generator(x):
        if y is not None or sample_weight is not None:
            kind = "a tf.data.Dataset" if isinstance(x, tf.data.Dataset) else "a generator"
            raise ValueError(
                f"When x is {kind}, it must yield (x, y) or (x, y, sample_weight) itself: "
                f"do not pass y or sample_weight separately."
            )
        guard = None
        if isinstance(x, tf.data.Dataset):
            if check is not None:
                check.dataset(x)
            dataset, source = x, f"the tf.data.Dataset passed as {argument}"
        else:
            source = f"the generator passed as {argument}"
            dataset, guard = generator_dataset(x, source)
        if class_weight:
            dataset = dataset.map(lambda *d: _apply_class_weight(_unpack_tuple(d), class_weight))
        return DatasetData(dataset, steps_per_epoch, guard=guard, finite=finite, source=source)
    if x is None:
        raise ValueError("fit/evaluate/predict need data: x is None")
    if check is not None:
        check.arrays("x", x)
        if y is not None:
            check.arrays("y", y)
    memo: dict[int, Any] = {}
    found: list | None = [] if finite is not None else None
    names = ("x", "y", "sample_weight") if argument == "x" else tuple(f"{argument}[{i}]" for i in range(3))
    parts = [_to_tensors(v, name, memo, found) for v, name in zip((x, y, sample_weight), names)]
    if parts[1] is None and parts[2] is not None:
        raise ValueError("sample_weight was given without targets y")
    _check_lengths(tuple(p for p in parts if p is not None))
    if finite is not None:
        finite.report(found)
    if class_weight:
        if parts[1] is None:
            raise ValueError("class_weight needs targets y")
        parts = list(_apply_class_weight(tuple(parts), class_weight))
    packed = pack_x_y_sample_weight(*parts)
    return ArrayData(packed, batch_size or default_batch_size(_num_samples(packed), steps_per_epoch), shuffle)


def default_batch_size(num_samples: int, steps: int | None) -> int:
    """Keras's batch size for arrays given no ``batch_size``: ``ceil(num_samples / steps)`` when ``steps`` is set, else 32.

    So ``predict(x, steps=3)`` (or a ``config.set_max_steps_per_epoch(3)`` cap)
    still covers every sample, in three batches.
    """
    if steps and num_samples:
        return max(1, math.ceil(num_samples / int(steps)))
    return 32


def split_validation(
    data: ArrayData,
    validation_split: float,
    batch_size: int | None = None,
    steps: int | None = None,
    validation_steps: int | None = None,
) -> tuple[ArrayData, ArrayData]:
    """Keras's ``validation_split``: the *last* fraction of the samples, before shuffling.

    Every array is split, whatever the structure: ``(x, y[, sample_weight])``, or ``x`` alone
    (an autoencoder's or VAE's ``fit(x, validation_split=0.2)``: a tensor, a dict or a list of them).

    When the caller gave no ``batch_size``, each part gets ``default_batch_size``
    of its own length and steps (``steps`` for training, ``validation_steps``),
    as Keras builds its adapters after splitting.
    """
    if not 0.0 < validation_split < 1.0:
        raise ValueError(f"validation_split must be in (0, 1), got {validation_split}")
    split_at = int(data.num_samples * (1.0 - validation_split))
    if split_at == 0 or split_at == data.num_samples:
        raise ValueError(
            f"validation_split={validation_split} leaves an empty training or validation set "
            f"for {data.num_samples} samples"
        )
    head = tf.nest.map_structure(lambda t: t[:split_at], data.tensors)
    tail = tf.nest.map_structure(lambda t: t[split_at:], data.tensors)
    if batch_size is None:
        return (
            ArrayData(head, default_batch_size(split_at, steps), data.shuffle),
            ArrayData(tail, default_batch_size(data.num_samples - split_at, validation_steps), False),
        )
    return ArrayData(head, data.batch_size, data.shuffle), ArrayData(tail, data.batch_size, False)


def raise_batch_failure(method: str, *sources: Any) -> None:
    """Raise the ``ValueError`` of a generator's or ``PyDataset``'s batch that did not match its first batch.

    Call it where an ``OpError`` from a loop over ``sources`` is caught: ``tf.data`` turned the
    guard's error into an ``InvalidArgumentError``; this raises the original. Returns when none failed.
    """
    for source in sources:
        failure = source.batch_failure() if isinstance(source, DatasetData) else None
        if failure is not None:
            raise ValueError(f"{method}: {failure}") from None


def _unpack_tuple(data: tuple) -> tuple:
    if len(data) == 1 and isinstance(data[0], tuple):
        return data[0]
    return data


def _is_dataset_creator(x: Any) -> bool:
    return isinstance(x, DatasetCreator)


def _created_dataset(creator: Any, y: Any, sample_weight: Any, class_weight: Any, steps: int | None) -> tf.data.Dataset:
    """A ``DatasetCreator``'s dataset on this process: its function called with a default ``InputContext``."""
    if y is not None or sample_weight is not None:
        raise ValueError(
            "When x is a DatasetCreator, its dataset must yield (x, y) or (x, y, sample_weight) "
            "itself: do not pass y or sample_weight separately."
        )
    if steps is None:
        raise ValueError(
            "When x is a DatasetCreator, pass steps_per_epoch to fit (steps to evaluate or predict): "
            "the dataset it creates may repeat forever, so its length is not known."
        )
    dataset = creator(tf.distribute.InputContext())
    if class_weight:
        dataset = dataset.map(lambda *d: _apply_class_weight(_unpack_tuple(d), class_weight))
    return dataset


def _is_generator(x: Any) -> bool:
    return isinstance(x, (types.GeneratorType, Iterator)) and not isinstance(x, (np.ndarray, tf.Tensor))


def _to_tensors(value: Any, name: str, memo: dict[int, Any], found: list | None = None) -> Any:
    """``value``'s arrays as tensors, in its structure; with ``found`` (a list), their NaN and infinities too."""
    if value is None:
        return None

    def convert(leaf: Any, label: str = name) -> tf.Tensor:
        if id(leaf) in memo:  # fit(x, x): one tensor, not two copies
            return memo[id(leaf)]
        memo[id(leaf)] = tensor = _convert_leaf(leaf, label)
        return tensor

    def _convert_leaf(leaf: Any, label: str) -> tf.Tensor:
        if isinstance(leaf, tf.Tensor):
            tensor = leaf
            array = leaf
        elif isinstance(leaf, (np.ndarray, list, int, float)) or np.isscalar(leaf):
            array = np.asarray(leaf)
            if array.dtype == object:
                raise ValueError(f"{name} holds Python objects (dtype=object); expected numbers")
            tensor = to_tensor(array)
        else:
            raise ValueError(
                f"Unsupported type for {name}: {type(leaf).__name__}. Expected numpy arrays, "
                f"tensors, lists/tuples/dicts of them, a tf.data.Dataset, a generator, or a PyDataset (any "
                f"object whose __getitem__(index) returns a batch and whose __len__ counts the batches)."
            )
        if tensor.dtype == tf.float64:
            tensor = tf.cast(tensor, tf.float32)
        if tensor.shape.rank == 0:
            raise ValueError(f"{name} must have a batch dimension, got a scalar")
        if found is not None and (finding := find_non_finite(label, array)) is not None:
            found.append(finding)
        return tensor

    if isinstance(value, (dict, tuple)):
        leaves, labels = tf.nest.flatten(value), [label for label, _ in labelled_leaves(name, value)]
        labels = labels if len(labels) == len(leaves) else [name] * len(leaves)
        return tf.nest.pack_sequence_as(value, [convert(leaf, label) for leaf, label in zip(leaves, labels)])
    if isinstance(value, list) and value and all(isinstance(v, (np.ndarray, tf.Tensor)) for v in value):
        return tuple(convert(v, f"{name}[{i}]") for i, v in enumerate(value))
    return convert(value)


def _num_samples(tensors: tuple) -> int:
    flat = tf.nest.flatten(tensors)
    return int(flat[0].shape[0]) if flat else 0


def _check_lengths(tensors: tuple) -> None:
    names = ("x", "y", "sample_weight")
    sizes = []
    for name, part in zip(names, tensors):
        for i, leaf in enumerate(tf.nest.flatten(part)):
            label = name if len(tf.nest.flatten(part)) == 1 else f"{name}[{i}]"
            sizes.append((label, int(leaf.shape[0])))
    if len({s for _, s in sizes}) > 1:
        listing = ", ".join(f"{label}: {size}" for label, size in sizes)
        raise ValueError(f"Data cardinality is ambiguous: all inputs must have the same number of samples ({listing})")


def _apply_class_weight(tensors: tuple, class_weight: Mapping[int, float]) -> tuple:
    x, y, sample_weight = (tuple(tensors) + (None, None))[:3]
    if y is None:
        raise ValueError("class_weight needs targets y")
    if isinstance(y, (tuple, dict)):
        raise ValueError("class_weight is only supported for models with a single output")
    n = max(int(k) for k in class_weight) + 1
    table = np.ones(n, dtype=np.float32)
    for k, v in class_weight.items():
        table[int(k)] = float(v)
    y_t = tf.convert_to_tensor(y)
    if y_t.shape.rank is not None and y_t.shape.rank > 1 and y_t.shape[-1] and y_t.shape[-1] > 1:
        classes = tf.argmax(y_t, axis=-1)
    else:
        classes = tf.cast(tf.reshape(tf.round(tf.cast(y_t, tf.float32)), [-1]), tf.int64)
    weights = tf.gather(tf.constant(table), classes)
    if sample_weight is not None:
        weights = weights * tf.cast(tf.reshape(sample_weight, tf.shape(weights)), tf.float32)
    return (x, y, weights)
