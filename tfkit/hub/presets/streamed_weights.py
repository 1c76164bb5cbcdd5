"""Loading a preset's weights into a backbone made for them, one part at a time, within little more memory
than the weights themselves.

    with placeholder_values() as made:          # variables start as zeros, not random draws
        backbone = ...                          # built from the preset's config
    assign_file_by_layer(backbone, path, source, layer_groups(backbone))   # each layer's arrays read, checked, assigned
    made.restore_unassigned()                   # any variable the file did not fill gets its initializer's value

A backbone built by ``from_preset`` is new: nothing of the caller's is at stake,
so its weights need not be read all before any is assigned (what
``load_weights`` does on a user's model, to leave it unchanged on failure). A
file that does not fit raises, and the half-loaded backbone is discarded with
the error. Its variables are first made with zeros (a cheap fill, no random
draws and their temporaries); the configs keep their initializers, and any
variable left unfilled by the file gets its initializer's own value after.
The file is read in one guarded child read per top-level layer
(``layers/transformer_decoder``), largest first, so only that layer's arrays
are mapped at a time: peak memory is about the weights plus one block's, not
twice the file (``layer_groups`` says why largest first).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np
import tensorflow as tf

from tfkit.saving import h5_format, weights_io
from tfkit.saving.h5_snapshot import read_snapshot
from tfkit.saving.keras_files.weights_layout import keras3_pairs, keras3_paths, keras3_variables, stored_variables

_ALIGNMENT = 64  # bytes: Eigen's widest vector loads
_ADOPTABLE = frozenset(
    tf.as_dtype(name) for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")
)


def _aligned_array(shape: tf.TensorShape, dtype: tf.DType, zeros: bool) -> np.ndarray:
    """A new NumPy array of ``shape`` and ``dtype`` starting on a 64-byte boundary; ``zeros``: from calloc, so
    its pages cost nothing until written."""
    size = int(np.prod(shape.as_list(), dtype=np.int64)) * dtype.size
    raw = (np.zeros if zeros else np.empty)(size + _ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % _ALIGNMENT
    return raw[start : start + size].view(dtype.as_numpy_dtype).reshape(shape.as_list())


def _handed_over(array: np.ndarray) -> tf.Tensor:
    """A tensor on ``array``'s memory (DLPack, no copy): the caller keeps no other reference to ``array``, so a
    variable assigned this tensor takes its buffer over instead of copying it."""
    return tf.experimental.dlpack.from_dlpack(array.__dlpack__())


def adopt_value(variable: tf.Variable, value: np.ndarray) -> None:
    """Assigns ``value`` (its shape checked by the caller) to ``variable`` through one new buffer, which the
    variable keeps: no tensor-sized temporary beside it. Other dtypes (bfloat16) are assigned as usual."""
    if variable.dtype not in _ADOPTABLE:
        variable.assign(np.asarray(value).astype(variable.dtype.as_numpy_dtype, copy=False))
        return
    buffer = _aligned_array(variable.shape, variable.dtype, zeros=False)
    np.copyto(buffer, value, casting="unsafe")
    variable.assign(_handed_over(buffer))


class PlaceholderValues:
    """The variables made with zeros instead of their initializer, to be filled from a file."""

    def __init__(self) -> None:
        self.pending: list[tuple[tf.Variable, Any]] = []

    def restore_unassigned(self, assigned: set[int]) -> None:
        """Gives every variable not in ``assigned`` (ids) its initializer's value, as a plain build would."""
        for variable, initial_value in self.pending:
            if id(variable) not in assigned:
                variable.assign(initial_value())
        self.pending = []


@contextlib.contextmanager
def placeholder_values() -> Iterator[PlaceholderValues]:
    """Variables created inside start as zeros (those with a declared shape and a deferred initializer, as
    ``add_weight`` makes them); the yielded record restores the initializer of those a file leaves out."""
    made = PlaceholderValues()

    def creator(next_creator: Any, **kwargs: Any) -> Any:
        initial_value, shape = kwargs.get("initial_value"), kwargs.get("shape")
        dtype = kwargs.get("dtype")
        if (
            not callable(initial_value)
            or shape is None
            or dtype is None
            or not tf.TensorShape(shape).is_fully_defined()
        ):
            return next_creator(**kwargs)
        shape, dtype = tf.TensorShape(shape), tf.as_dtype(dtype)
        if dtype in _ADOPTABLE:  # calloc's zeros: no page is touched until the file's values replace them

            def placeholder() -> tf.Tensor:
                return _handed_over(_aligned_array(shape, dtype, zeros=True))
        else:

            def placeholder() -> tf.Tensor:
                return tf.zeros(shape, dtype)

        variable = next_creator(**{**kwargs, "initial_value": placeholder})
        made.pending.append((variable, initial_value))
        return variable

    with tf.variable_creator_scope(creator):
        yield made


def layer_groups(model: Any) -> list[str]:
    """The file groups of ``model``'s top-level layers (``layers/<key>``), and ``vars`` for its own variables,
    largest first (by the bytes of the variables stored under each; ties by name).

    A group's arrays are held twice while it is assigned (as read, and as the variables' new buffers), so
    reading the largest one while no other is assigned yet keeps the peak at the larger of twice that group
    and the weights plus the next group: an untied vocabulary (two 94 MiB tables in one layer of a 380 MiB
    model) read last would add its whole size on top of all the other weights."""
    sizes: dict[str, int] = {}
    for prefix, layer in keras3_paths(model):
        group = "/".join(prefix.split("/")[:2]) if prefix else "vars"
        stored = sum(v.shape.num_elements() * v.dtype.size for v in stored_variables(layer))
        sizes[group] = sizes.get(group, 0) + stored
    return sorted(sizes, key=lambda group: (-sizes[group], group))


def assign_pairs(pairs: list[tuple[Any, Any, str]]) -> None:
    """Assigns each ``(variable, dataset, where)`` in turn: for a model no caller holds yet."""
    for variable, dataset, where in pairs:
        if variable.dtype in _ADOPTABLE and h5_format.dataset_dtype_name(dataset) == variable.dtype.name:
            adopt_value(variable, h5_format.read_dataset(dataset, where))
        else:
            weights_io.assign([(variable, dataset, where)])


def assign_file_by_layer(model: Any, path: str, source: str, groups: list[str]) -> set[int]:
    """Reads Keras weights file ``path`` one top-level layer group at a time (``groups``, of ``model``'s), assigning
    each to ``model`` (new: a failure leaves it half-loaded, for the caller to discard). ``ValueError`` when a
    layer's arrays do not fit. Returns the ids of the variables assigned."""
    assigned: set[int] = set()
    for group in groups:
        tables = read_snapshot(path, (group,)).tables
        pairs = keras3_pairs(model, tables, path, partial=True)
        assign_pairs(pairs)
        assigned.update(id(variable) for variable, _, _ in pairs)
        del tables, pairs
    return assigned


def check_complete(model: Any, assigned: set[int], holder: str) -> None:
    """``ValueError`` naming the variables of ``model`` not in ``assigned`` (ids), if any: ``holder`` ("<the
    file> holds", "its shards (...) hold") left them out."""
    missing = [v.name for v in keras3_variables(model) if id(v) not in assigned]
    if missing:
        raise ValueError(f"{holder} no values for {len(missing)} variables: {missing[:10]}")
