"""Rebuilding a model from a file's config, with every cost bounded by what the file holds.

    with budget(tables, "m.h5"):                     # no variable larger than the file stores
        model = rebuild_model(config, custom_objects, "m.h5")

Shared by tfkit's own files (``h5``) and Keras's (``keras_files``): the
config is counted (objects plus layer calls) before anything is built, and
errors a hostile config can provoke become one ``ValueError`` naming the file.
"""

from __future__ import annotations

from typing import Any, Mapping

import tensorflow as tf

from tfkit.saving import weights_io
from tfkit.saving.guard import variable_budget
from tfkit.saving.model_config import model_from_config
from tfkit.saving.model_kinds import is_model

MAX_CONFIG_OBJECTS = 10_000  # objects plus layer calls; rebuilding costs a few ms each
SLACK_ELEMENTS = 2**20
SLACK_VARIABLES = 1_000
REBUILD_ERRORS = (
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
    NotImplementedError,
    RecursionError,
    OverflowError,
    ArithmeticError,
    RuntimeError,
    tf.errors.OpError,
)


def count_objects(config: Any) -> int:
    """Objects to create plus layer calls to make: what rebuilding the model costs."""
    count, stack = 0, [config]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            count += "class_name" in value
            nodes = value.get("inbound_nodes")
            if isinstance(nodes, list):
                count += len(nodes)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return count


def budget(tables: dict[str, dict[str, Any]], source: str) -> Any:
    """The variable budget while rebuilding from a file: nothing larger than the file stores."""
    largest, total, count = weights_io.file_budget(tables)
    return variable_budget(max(largest, 1024), total + SLACK_ELEMENTS, count + SLACK_VARIABLES, source)


def rebuild_model(config: Any, custom_objects: Mapping[str, Any] | None, source: str) -> Any:
    """The model a file's config describes, built from registered names only, within the object limit."""
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"{source}: model_config must be {{'class_name': ..., 'config': ...}}")
    count = count_objects(config)
    if count > MAX_CONFIG_OBJECTS:
        raise ValueError(f"{source}: model_config describes {count} objects; the limit is {MAX_CONFIG_OBJECTS}")
    try:
        model = model_from_config(config, custom_objects)
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from error
    except REBUILD_ERRORS as error:
        raise ValueError(
            f"{source}: could not rebuild the model from model_config: {type(error).__name__}: {error}"
        ) from error
    if not is_model(model):
        raise ValueError(f"{source}: model_config describes a {type(model).__name__}, not a model")
    return model
