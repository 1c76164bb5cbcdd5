"""Matching a model's variables with a file's datasets by path, all or nothing.

    groups = variable_groups(model)              # {"weights": {...}, "state": {...}}
    pairs = match(groups, tables, source, skip_mismatch=False)   # raises one error listing every problem
    assign(pairs)                                # reads every array first, then assigns

Weights are matched by attribute path (``encoder/dense_proj/kernel``), never
by creation order. Every shape and dtype is compared before any data is read,
and every array is read before any variable changes, so a failed load leaves
the model as it was. This module also stores and applies the *build config*:
the input shapes that recreate every weight without calling the model.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any

import h5py
import numpy as np
import tensorflow as tf

from tfkit.base.argument_validation import is_shape
from tfkit.engine import tracking
from tfkit.saving import h5_format

GROUPS = ("weights", "state")
_LIST_LIMIT = 25


def variable_groups(model: Any, structural: bool = True) -> dict[str, dict[str, tf.Variable]]:
    """The model's weights and its other variables (seed generators, metric state), by path.

    ``structural`` keys the layers of functional and Sequential models by
    structure (what files of format_version 2 hold); otherwise by name (1).
    """
    with tracking.structural_keys() if structural else contextlib.nullcontext():
        weights = model.weight_paths()
        weight_ids = {id(v) for v in weights.values()}
        state = {path: v for path, v in tracking.variable_paths(model).items() if id(v) not in weight_ids}
    return {"weights": weights, "state": state}


def _describe(dataset: h5py.Dataset) -> str:
    stored = "" if h5_format.stored_as_claimed(dataset) else f" stored as {dataset.dtype}"
    return f"{tuple(dataset.shape)} {h5_format.dataset_dtype_name(dataset)}{stored}"


def _listing(title: str, items: list[str]) -> str:
    shown = items[:_LIST_LIMIT]
    more = f", ... and {len(items) - _LIST_LIMIT} more" if len(items) > _LIST_LIMIT else ""
    return f"\n  {title} ({len(items)}): " + ", ".join(shown) + more


def problem(variable: tf.Variable, dataset: h5py.Dataset) -> str | None:
    """Why ``dataset`` cannot be loaded into ``variable`` (shape or dtype), or None.

    Floats load into floats of another precision, cast as Keras casts them
    (``h5_format.loads_into``); any other dtype must match.
    """
    want_shape = tuple(variable.shape.as_list())
    got_dtype = h5_format.dataset_dtype_name(dataset)
    if (
        tuple(dataset.shape) != want_shape
        or not h5_format.loads_into(got_dtype, variable.dtype)
        or not h5_format.stored_as_claimed(dataset)
    ):
        return f"file {_describe(dataset)}, model {want_shape} {variable.dtype.name}"
    return None


def match(
    groups: dict[str, dict[str, tf.Variable]],
    tables: dict[str, dict[str, h5py.Dataset]],
    source: str,
    model_name: str,
    skip_mismatch: bool = False,
) -> list[tuple[tf.Variable, h5py.Dataset, str]]:
    """Pairs ``(variable, dataset, "weights/path")``; one ``ValueError`` lists every problem."""
    pairs, missing, unexpected, mismatched = [], [], [], []
    moved: set[str] = set()  # "weights/<path>" entries that older files wrote for what is state now
    for group, variables in groups.items():
        table = tables.get(group, {})
        for path, variable in variables.items():
            where = f"{group}/{path}"
            dataset = table.get(path)
            if dataset is None and group == "state" and path in tables.get("weights", {}):
                dataset, where = tables["weights"][path], f"weights/{path}"  # a metric's variables, before 0.2
                moved.add(path)
            if dataset is None:
                missing.append(where)
                continue
            reason = problem(variable, dataset)
            if reason is not None:
                mismatched.append(f"{where}: {reason}")
            else:
                pairs.append((variable, dataset, where))
    for group, table in tables.items():
        variables = groups.get(group, {})
        unexpected += [
            f"{group}/{path}" for path in table if path not in variables and not (group == "weights" and path in moved)
        ]
    if missing or unexpected or mismatched:
        message = f"The variables in {source} do not match model '{model_name}':"
        if missing:
            message += _listing("missing in the file", missing)
        if unexpected:
            message += _listing("unexpected in the file (not in the model)", unexpected)
        if mismatched:
            message += _listing("shape/dtype mismatches", mismatched)
        if missing and unexpected and _renamed_layers(missing, unexpected):
            message += (
                "\nThe paths differ only in their first part, the layer's key. Functional and Sequential "
                "models key automatically named layers by structure (dense, dense_1, ... per class, in "
                "layer order) and layers named by you by their name: check that both models name their "
                "layers alike and list them in the same order (files of format_version 1 are keyed by "
                "layer name only)."
            )
        if not skip_mismatch:
            raise ValueError(
                message + "\nNothing was loaded. Pass skip_mismatch=True to load only the matching variables."
            )
        warnings.warn(message + f"\nLoading the {len(pairs)} matching variables only.", stacklevel=3)
    return pairs


def _renamed_layers(missing: list[str], unexpected: list[str]) -> bool:
    """Whether the two path lists agree once each path's layer name (its second part) is dropped."""

    def tails(paths: list[str]) -> list[str]:
        return sorted(p.split("/", 1)[0] + "/" + "/".join(p.split("/")[2:]) for p in paths)

    return tails(missing) == tails(unexpected)


def assign(pairs: list[tuple[tf.Variable, h5py.Dataset, str]]) -> None:
    """Read every dataset, then assign them all (nothing changes if a read fails)."""
    values = [
        (variable, h5_format.read_dataset(dataset, where), h5_format.dataset_dtype_name(dataset))
        for variable, dataset, where in pairs
    ]
    for variable, array, stored_dtype in values:
        variable.assign(h5_format.loaded_value(array, stored_dtype, variable.dtype))


def file_budget(tables: dict[str, dict[str, h5py.Dataset]]) -> tuple[int, int, int]:
    """(largest array, total elements, number of arrays) that the file actually stores."""
    sizes = [int(np.prod(d.shape, dtype=object)) for table in tables.values() for d in table.values()]
    return max(sizes, default=0), sum(sizes), len(sizes)


# ------------------------------------------------------------- build config


def _encode_shapes(value: Any) -> Any:
    if isinstance(value, tf.TensorShape):
        return None if value.rank is None else [None if d is None else int(d) for d in value.as_list()]
    if is_shape(value):
        return [None if d is None else int(d) for d in value]
    if isinstance(value, (list, tuple)):
        return [_encode_shapes(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _encode_shapes(v) for k, v in value.items()}
    raise ValueError(f"Cannot save the model's input shape structure: unexpected {type(value).__name__}")


def build_config(model: Any) -> dict[str, Any] | None:
    """``{"input_shape": ...}`` from the model's first call, or None if it was never built."""
    shapes = model._build_shapes
    if shapes is None or not model.built:
        return None
    return {"input_shape": _encode_shapes(shapes)}


def decode_shapes(value: Any, where: str = "build_config.input_shape") -> Any:
    """JSON input shapes to a structure of ``tf.TensorShape`` (validated)."""
    if isinstance(value, list) and is_shape(value):
        for d in value:
            if d is not None and not 0 <= d < 2**31:
                raise ValueError(f"{where} has an invalid dimension {d} in shape {value}")
        return tf.TensorShape(value)
    if isinstance(value, list):
        return [decode_shapes(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: decode_shapes(v, f"{where}.{k}") for k, v in value.items()}
    raise ValueError(f"{where} must be a shape (a list of ints and nulls) or a list/dict of shapes, got {value!r}")


def check_build_config(config: Any) -> Any:
    """The input shapes of a build config as ``tf.TensorShape``s; ``ValueError`` if malformed."""
    if not isinstance(config, dict) or set(config) != {"input_shape"}:
        raise ValueError(f"build_config must be {{'input_shape': ...}}, got {str(config)[:200]}")
    return decode_shapes(config["input_shape"])


def build_from_config(model: Any, config: Any) -> None:
    """Create every weight of an unbuilt model by tracing a call on the stored input shapes."""
    shapes = check_build_config(config)
    if getattr(model, "inputs", None):
        return  # its graph (Inputs, with their dtypes) already made every weight
    specs = tf.nest.map_structure(
        lambda s: tf.TensorSpec([None, *s.as_list()[1:]] if s.rank else s, model.variable_dtype), shapes
    )
    model.symbolic_call(specs)
