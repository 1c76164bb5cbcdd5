"""Keras 3's path rule: a layer's path is fixed when it is first called or built; a weight's is that, then its name.

    with layer_paths.Scope(block, "block", {}): ...      # what Layer.__call__ and build open
    layer_paths.current()                                 # "block" inside it, "" outside any layer
    layer_paths.claim("dense", layer)                     # "block/dense": a sub-layer's path, fixed once

Inside a layer's call or build, the layers it calls or builds for the first
time take its path as their parent (``decoder_block_0/attention/query``), and
keep that path however they are reached later, so weights added afterwards
(LoRA's factors) land beside the others. Two different layers first opened
under the same layer with the same name get ``name``, ``name_1``, ... (Keras 3
would give both the same path); layers first opened outside any layer keep
their bare name, as in Keras. ``set_path`` writes ``variable.path``.
"""

from __future__ import annotations

import re
import threading
import weakref
from typing import Any

_local = threading.local()
_SCOPE_PART = re.compile(r"[^A-Za-z0-9_.\-/]")


class Scope:
    """An open path scope: ``owner`` (a layer, or ``None`` for a plain name scope) at ``path``.

    ``taken`` maps the paths of the layers first opened inside it to those
    layers (weakly), so that two of them never share a path; ``None`` keeps no
    record (plain name scopes, as in Keras). Entering a scope whose owner is
    already the innermost one does nothing (a layer's call that builds it, a
    subclass's ``build`` calling ``super().build``).
    """

    __slots__ = ("owner", "path", "taken", "_pushed")

    def __init__(self, owner: Any, path: str, taken: dict[str, Any] | None) -> None:
        self.owner, self.path, self.taken, self._pushed = owner, path, taken, False

    def __enter__(self) -> Scope:
        stack = _stack()
        if self.owner is None or not stack or stack[-1].owner is not self.owner:
            stack.append(self)
            self._pushed = True
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._pushed:
            _stack().pop()
            self._pushed = False


def _stack() -> list[Scope]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def current() -> str:
    """The path of the innermost open scope: ``""`` outside any layer's call or build."""
    stack = _stack()
    return stack[-1].path if stack else ""


def under_current(name: str) -> str:
    """``name`` below the current path (``"block/kernel"``), or ``name`` alone outside any scope."""
    parent = current()
    return f"{parent}/{name}" if parent else name


def claim(name: str, layer: Any) -> str:
    """The path ``layer`` (named ``name``) takes when first opened here: unique among its siblings.

    Args:
        name: The layer's name.
        layer: The layer.

    Returns:
        ``parent/name``, or ``parent/name_1``, ... when a different live layer
        opened first here already holds ``parent/name``.
    """
    stack = _stack()
    if not stack:
        return name
    scope = stack[-1]
    path = f"{scope.path}/{name}"
    taken = scope.taken
    if taken is None:
        return path
    candidate, count = path, 0
    while True:
        holder = taken.get(candidate)
        if holder is None or holder() is None or holder() is layer:
            taken[candidate] = weakref.ref(layer)
            return candidate
        count += 1
        candidate = f"{path}_{count}"


def unique_in(path: str, existing: set[str]) -> str:
    """``path``, or ``path_1``, ``path_2``, ... the first not in ``existing`` (a layer's own weight paths)."""
    candidate, count = path, 0
    while candidate in existing:
        count += 1
        candidate = f"{path}_{count}"
    return candidate


def tf_scope(path: str) -> str:
    """The absolute TensorFlow name scope (``"block/dense/"``) that gives a variable the name ``path/...:0``."""
    return _SCOPE_PART.sub("_", path) + "/" if path else ""


def set_path(variable: Any, path: str) -> Any:
    """Gives ``variable`` Keras 3's ``path`` attribute (a plain instance attribute: TensorFlow sees nothing)."""
    object.__setattr__(variable, "path", path)
    return variable
