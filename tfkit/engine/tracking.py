"""Finding a layer's sub-layers and variables by walking its attributes.

    for key, child in tracking.children(layer): ...   # ("dense_proj", Dense)
    tracking.variable_paths(model)  # {"encoder/dense_proj/kernel": <tf.Variable>, ...}

Attributes are walked in assignment order (Python keeps ``__dict__`` ordered),
descending into lists, tuples and dicts, so ``self.blocks = [Dense(2)]`` gives
the path ``blocks/0/kernel``. Paths depend only on the code's attribute
names, never on creation order or on automatic layer names, which is what
makes weight files portable between processes.
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import Any, Callable, Iterator

import tensorflow as tf

from tfkit.base import registry, variable_roles
from tfkit.engine.naming import to_snake_case

# Attributes owned by tf.Module / AutoTrackable / tfkit itself: never children. TensorFlow's own ``_self_*``
# attributes hold flags and containers of dependencies, never a module or variable itself, so a layer or variable
# held under such a name is the code's (KerasHub's ``_self_attention_layer``) and counts.
_SKIP_PREFIXES = ("_tfkit_",)
_TRACKABLE_PREFIX = "_self_"
_SKIP_NAMES = frozenset({"_name", "_name_scope", "_scope_name", "_st"})


_mode = threading.local()


@contextlib.contextmanager
def structural_keys() -> Iterator[None]:
    """Inside this block, functional and Sequential models key automatically named layers by structure.

    Weight files use these keys (:func:`structural_layer_keys`), so two
    separately built copies of one model, whose automatic names differ
    (``dense_3`` vs ``dense_7``), match.
    """
    previous = getattr(_mode, "structural", False)
    _mode.structural = True
    try:
        yield
    finally:
        _mode.structural = previous


def structural_mode() -> bool:
    return getattr(_mode, "structural", False)


def structural_layer_keys(layers: list[Any]) -> list[str]:
    """Each layer's key in a weight file: its own name, unless that is an automatic one.

    Automatic names (``dense``, ``dense_3``: the class in snake case, maybe
    numbered) depend on what the process built before, so those layers are
    numbered per class in the model's layer order instead (``dense``,
    ``dense_1``, ...). Names a person chose (``encoder_head``) are kept, and
    automatic keys skip them, so every key is unique.
    """
    return keys_by_structure([type(layer).__name__ for layer in layers], [layer.name for layer in layers])


def keys_by_structure(class_names: list[str], names: list[str]) -> list[str]:
    """:func:`structural_layer_keys` from the layers' class names and names (as a saved config lists them)."""
    bases = [to_snake_case(class_name) for class_name in class_names]
    automatic = [re.fullmatch(rf"{re.escape(base)}(_\d+)?", name) is not None for base, name in zip(bases, names)]
    # Chosen names are kept; automatic keys skip any of them (a Conv2D the user named "dense").
    taken = {name for name, auto in zip(names, automatic) if not auto}
    counts: dict[str, int] = {}
    keys = []
    for name, base, auto in zip(names, bases, automatic):
        if not auto:
            keys.append(name)
            continue
        count = counts.get(base, 0)
        key = base if count == 0 else f"{base}_{count}"
        while key in taken:
            count += 1
            key = f"{base}_{count}"
        counts[base] = count + 1
        taken.add(key)
        keys.append(key)
    return keys


def _is_layer(obj: Any) -> bool:
    layer_class = registry.base_class("layers")  # engine.layer registers Layer; this module is below it
    return layer_class is not None and isinstance(obj, layer_class)


def _is_optimizer(obj: Any) -> bool:
    optimizer_class = registry.base_class("optimizers")  # an optimizer held as an attribute (a GAN's d_optimizer)
    return optimizer_class is not None and isinstance(obj, optimizer_class)


def _walk_value(key: str, value: Any, seen_containers: set[int]) -> Iterator[tuple[str, Any]]:
    if isinstance(value, (tf.Variable, tf.Module)):
        yield key, value
    elif isinstance(value, (list, tuple)):
        if id(value) in seen_containers:
            return
        seen_containers.add(id(value))
        for i, item in enumerate(value):
            yield from _walk_value(f"{key}/{i}", item, seen_containers)
    elif isinstance(value, dict):
        if id(value) in seen_containers:
            return
        seen_containers.add(id(value))
        for k, item in value.items():
            yield from _walk_value(f"{key}/{k}", item, seen_containers)


def attribute_items(module: tf.Module) -> Iterator[tuple[str, Any]]:
    """``(path, value)`` for every variable and module held in attributes."""
    override = getattr(module, "_tracked_items", None)
    if override is not None:
        yield from override()
        return
    seen: set[int] = set()
    for name, value in list(vars(module).items()):
        if name in _SKIP_NAMES or name.startswith(_SKIP_PREFIXES):
            continue
        if name.startswith(_TRACKABLE_PREFIX) and not isinstance(value, (tf.Variable, tf.Module)):
            continue
        yield from _walk_value(name, value, seen)


def children(module: tf.Module) -> list[tuple[str, Any]]:
    """Direct sub-layers of ``module`` as ``(key, layer)``, each once."""
    out, seen = [], set()
    for key, value in attribute_items(module):
        if _is_layer(value) and id(value) not in seen:
            seen.add(id(value))
            out.append((key, value))
    return out


def flatten_layers(layer: Any, include_self: bool = True) -> list[Any]:
    """The layer and every layer nested in it, depth first, each once."""
    out, seen = [], set()

    def visit(current: Any) -> None:
        if id(current) in seen:
            return
        seen.add(id(current))
        out.append(current)
        for _, child in children(current):
            visit(child)

    visit(layer)
    return out if include_self else out[1:]


def variable_paths(
    root: tf.Module, include: Callable[[Any, tf.Variable], bool] | None = None
) -> dict[str, tf.Variable]:
    """Every variable under ``root`` by attribute path, first path wins.

    ``include(owner, variable)`` filters (for example, only weights, not
    random-generator state).
    """
    paths: dict[str, tf.Variable] = {}
    seen_vars: set[int] = set()
    seen_modules: set[int] = set()

    def visit(module: tf.Module, prefix: str) -> None:
        if id(module) in seen_modules:
            return
        seen_modules.add(id(module))
        named = {}
        modules = []
        for key, value in attribute_items(module):
            if isinstance(value, tf.Variable):
                named.setdefault(id(value), key)
            else:
                modules.append((key, value))
        own = module._own_weights() if _is_layer(module) else []
        own_ids = {id(v) for v in own}
        own += [v for k, v in attribute_items(module) if isinstance(v, tf.Variable) and id(v) not in own_ids]
        for variable in own:
            if id(variable) in seen_vars:
                continue
            if include is not None and not include(module, variable):
                continue
            seen_vars.add(id(variable))
            key = named.get(id(variable)) or _variable_name(variable)
            path = f"{prefix}{key}"
            while path in paths:
                path += "_"
            paths[path] = variable
        for key, child in modules:
            if not _is_optimizer(child):  # its slots are no variables of the model, as in Keras 3
                visit(child, f"{prefix}{key}/")

    visit(root, "")
    return paths


def _variable_name(variable: tf.Variable) -> str:
    name = variable_roles.short_name(variable)
    return name.split("/")[-1].split(":")[0]


def path_of(root: Any, target: Any) -> str | None:
    """The attribute path from ``root`` to the layer ``target`` ('' for root)."""
    if root is target:
        return ""
    seen: set[int] = set()

    def visit(module: Any, prefix: str) -> str | None:
        if id(module) in seen:
            return None
        seen.add(id(module))
        for key, child in children(module):
            if child is target:
                return f"{prefix}{key}"
            found = visit(child, f"{prefix}{key}/")
            if found is not None:
                return found
        return None

    return visit(root, "")
