"""A model's inputs as named ``tf.TensorSpec``s: what exports serve and symbolic calls trace.

    specs = named_specs(tf.TensorSpec((None, 784)), "digits")   # TensorSpec(shape=(None, 784), name="digits")
    clean_name("my input!", "inputs")                           # "my_input_"
    graph_output_specs(specs, model_inputs, model_outputs)     # output specs read off a recorded graph

Each model class says where its inputs come from (``default_input_signature``):
a functional model from its ``Input``s, a subclassed model from the shapes it
was built with; the names become the serving signature's input names.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import tensorflow as tf


def clean_name(name: Any, fallback: str) -> str:
    """``name`` as a valid TensorFlow op and signature name (``fallback`` when nothing is left)."""
    name = re.sub(r"[^A-Za-z0-9_.\-/]", "_", str(name))
    if not name or not re.match(r"[A-Za-z0-9.]", name[0]):
        name = f"{fallback}_{name}" if name else fallback
    return name


def unique_names(names: list[str]) -> list[str]:
    """``names`` with repeats numbered: ``["x", "x"]`` -> ``["x", "x_1"]``."""
    out, seen = [], set()
    for name in names:
        candidate, i = name, 1
        while candidate in seen:
            candidate, i = f"{name}_{i}", i + 1
        seen.add(candidate)
        out.append(candidate)
    return out


def named_specs(structure: Any, names: Any) -> Any:
    """Specs of ``structure`` (batch dimension None) named by ``names``, cleaned and unique."""
    flat = tf.nest.flatten(structure)
    flat_names = unique_names([clean_name(n, "inputs") for n in tf.nest.flatten(names)])
    specs = [
        tf.TensorSpec((None, *tuple(s.shape)[1:]) if len(tuple(s.shape)) else (), s.dtype, name=n)
        for s, n in zip(flat, flat_names)
    ]
    return tf.nest.pack_sequence_as(structure, specs)


def specs_from_build_shapes(shapes: Any, dtype: Any) -> Any:
    """Named specs for a model built on ``shapes`` (a shape, or lists/dicts of them)."""
    is_leaf = lambda s: (
        isinstance(s, tf.TensorShape)
        or isinstance(s, (tuple, list))
        and all(  # noqa: E731
            d is None or isinstance(d, int) for d in s
        )
    )
    leaves = _map_shapes(lambda s: tf.TensorSpec(tuple(s), dtype), shapes, is_leaf)
    flat = tf.nest.flatten(leaves)
    if len(flat) == 1:
        names: Any = "inputs"
    elif isinstance(leaves, dict):
        names = {key: key for key in leaves}
    else:
        names = tf.nest.pack_sequence_as(leaves, [f"inputs_{i}" for i in range(len(flat))])
    return named_specs(leaves, names)


def _map_shapes(fn: Callable[[Any], Any], value: Any, is_leaf: Callable[[Any], bool]) -> Any:
    if is_leaf(value):
        return fn(value)
    if isinstance(value, dict):
        return {k: _map_shapes(fn, v, is_leaf) for k, v in value.items()}
    return type(value)(_map_shapes(fn, v, is_leaf) for v in value)


def graph_output_specs(specs: Any, symbols_in: list[Any], symbols_out: Any) -> Any:
    """The output specs of a recorded graph for input ``specs`` (batch None); None if they do not match."""
    flat = tf.nest.flatten(specs)
    if len(flat) != len(symbols_in) or not all(
        tf.TensorShape(symbol.shape)[1:].is_compatible_with(spec.shape[1:]) and spec.shape[1:].is_fully_defined()
        for symbol, spec in zip(symbols_in, flat)
    ):
        return None
    return tf.nest.map_structure(
        lambda t: tf.TensorSpec(tf.TensorShape([None]).concatenate(tf.TensorShape(t.shape)[1:]), t.dtype), symbols_out
    )
