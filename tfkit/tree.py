"""``tfkit.tree``: Keras 3's nested-structure utilities (``keras.tree``), in plain Python.

    tfkit.tree.flatten({"b": [1, 2], "a": 3})               # [3, 1, 2]  (dict keys sorted)
    tfkit.tree.map_structure(lambda v: v * 2, {"a": (1, 2)})  # {"a": (2, 4)}
    tfkit.tree.flatten_with_path([{"foo": 42}])              # [((0, "foo"), 42)]

Keras's rules, which differ from ``tf.nest`` in two places: an ``OrderedDict``
keeps its own order (``tf.nest`` sorts its keys too), and mismatched structures
raise ``ValueError`` (``tf.nest`` raises ``TypeError`` for a list against a
tuple). Nodes are lists, tuples, namedtuples, dicts (keys sorted; ``OrderedDict``
in insertion order; ``defaultdict`` kept), deques and their subclasses (so
TensorFlow's tracked lists and dicts in a ``tf.Module`` are nodes); everything
else, ``None`` included, is a leaf. A namedtuple's path entries are indices.
"""

from __future__ import annotations

import collections
import warnings
from typing import Any, Callable, Iterable, Iterator

from tfkit.base.argument_validation import is_shape

__all__ = [
    "MAP_TO_NONE",
    "assert_same_paths",
    "assert_same_structure",
    "flatten",
    "flatten_with_path",
    "is_nested",
    "lists_to_tuples",
    "map_shape_structure",
    "map_structure",
    "map_structure_up_to",
    "pack_sequence_as",
    "traverse",
]


class MAP_TO_NONE:  # Keras spells it in capitals
    """A marker: return it from `traverse`'s `func` to replace a sub-tree by `None`.

    (Returning `None` itself means "no change" to `traverse`.)

    Example:
        >>> tfkit.tree.traverse(lambda x: tfkit.tree.MAP_TO_NONE if x == 2 else None, [1, 2, 3])
        [1, None, 3]
    """


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_nested(structure: Any) -> bool:
    """Checks whether a value is a nested structure: a list, tuple, namedtuple, dict or deque.

    Everything else, `None` and tensors included, is a leaf.

    Args:
        structure: Any value.

    Returns:
        A bool.

    Example:
        >>> tfkit.tree.is_nested([1, 2]), tfkit.tree.is_nested({"a": 1}), tfkit.tree.is_nested(np.ones(3))
        (True, True, False)
    """
    return isinstance(structure, (list, tuple, dict, collections.deque))


def _keys(node: Any) -> list[Any]:
    """The child keys of a node in flattening order: indices, or dict keys (sorted unless an OrderedDict)."""
    if isinstance(node, dict):
        if isinstance(node, collections.OrderedDict):
            return list(node.keys())
        try:
            return sorted(node.keys())
        except TypeError:
            return list(node.keys())  # keys that do not sort: their own order
    return list(range(len(node)))


def _children(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return [node[key] for key in _keys(node)]
    return list(node)


def _rebuild(node: Any, values: list[Any]) -> Any:
    """A node like ``node`` holding ``values`` (in ``_keys(node)`` order)."""
    if isinstance(node, dict):
        by_key = dict(zip(_keys(node), values))
        ordered = [(key, by_key[key]) for key in node]  # the node's own key order, as Keras returns it
        if type(node) is dict:
            return dict(ordered)
        if isinstance(node, collections.defaultdict):
            return type(node)(node.default_factory, ordered)
        try:
            return type(node)(ordered)
        except TypeError:
            return dict(ordered)
    if _is_namedtuple(node):
        return type(node)(*values)
    if isinstance(node, collections.deque):
        return collections.deque(values, maxlen=node.maxlen)
    if type(node) in (list, tuple):
        return type(node)(values)
    try:
        return type(node)(values)
    except TypeError:
        return list(values) if isinstance(node, list) else tuple(values)


def _walk(structure: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    if not is_nested(structure):
        yield path, structure
        return
    for key, child in zip(_keys(structure), _children(structure)):
        yield from _walk(child, path + (key,))


def flatten(structure: Any) -> list[Any]:
    """Flattens a possibly nested structure into a list of its leaves, in order.

    Dicts are flattened in sorted key order (an `OrderedDict` in its own
    order). A single leaf gives `[leaf]`, and `None` gives `[None]`.

    Args:
        structure: A leaf, or a nested structure of lists, tuples,
            namedtuples, dicts and deques.

    Returns:
        A list of the leaves.

    Example:
        >>> tfkit.tree.flatten({"b": [1, 2], "a": 3})
        [3, 1, 2]
        >>> tfkit.tree.flatten(None)
        [None]
    """
    return [leaf for _, leaf in _walk(structure)]


def flatten_with_path(structure: Any) -> list[tuple[tuple, Any]]:
    """Flattens a nested structure into `(path, leaf)` pairs.

    A path is the tuple of indices and dict keys from the root to the leaf
    (a namedtuple's entries are indices).

    Args:
        structure: A leaf, or a nested structure.

    Returns:
        A list of `(path, leaf)` tuples, in `flatten` order.

    Example:
        >>> tfkit.tree.flatten_with_path([{"foo": 42}, 7])
        [((0, 'foo'), 42), ((1,), 7)]
    """
    return list(_walk(structure))


def _same_kind(a: Any, b: Any) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and set(a.keys()) == set(b.keys())
    if _is_namedtuple(a) or _is_namedtuple(b):
        return type(a) is type(b)
    for kind in (collections.deque, list, tuple):
        if isinstance(a, kind) or isinstance(b, kind):
            return isinstance(a, kind) and isinstance(b, kind) and len(a) == len(b)
    return False


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return f"a {type(value).__name__} with keys {sorted(map(repr, value.keys()))}"
    if is_nested(value):
        return f"a {type(value).__name__} of {len(value)} items"
    return f"a leaf ({type(value).__name__})"


def _check_same(a: Any, b: Any, path: tuple, shallow: bool = False) -> None:
    """``ValueError`` naming the first path where ``b`` does not have ``a``'s layout."""
    if not is_nested(a):
        if is_nested(b) and not shallow:
            raise ValueError(
                f"The two structures don't have the same nested structure: at path {path} "
                f"the first holds {_describe(a)}, the second {_describe(b)}"
            )
        return
    if not is_nested(b) or not _same_kind(a, b):
        raise ValueError(
            f"The two structures don't have the same nested structure: at path {path} "
            f"the first holds {_describe(a)}, the second {_describe(b)}"
        )
    b_by_key = dict(zip(_keys(b), _children(b)))
    for key, child in zip(_keys(a), _children(a)):
        _check_same(child, b_by_key[key], path + (key,), shallow)


def assert_same_structure(a: Any, b: Any, check_types: bool | None = None) -> None:
    """Asserts that two structures are nested in the same way.

    Lists, tuples and each namedtuple type are distinct kinds; dicts match
    on their key sets. The leaves are not compared.

    Args:
        a: The first structure.
        b: The second structure.
        check_types: Deprecated and ignored, as in Keras (passing it warns).
            Defaults to `None`.

    Raises:
        ValueError: If the structures differ (the message names the first
            path where they do).

    Example:
        >>> tfkit.tree.assert_same_structure([1, (2, 3)], [4, (5, 6)])
        >>> tfkit.tree.assert_same_structure([1, 2], (1, 2))
        Traceback (most recent call last):
        ...
        ValueError: The two structures don't have the same nested structure: ...
    """
    if check_types is not None:
        hint = "" if check_types else " For a looser check use tfkit.tree.assert_same_paths."
        warnings.warn(
            f"The `check_types` argument is deprecated and has no effect.{hint}", DeprecationWarning, stacklevel=2
        )
    _check_same(a, b, ())


def assert_same_paths(a: Any, b: Any) -> None:
    """Asserts that two structures have the same leaf paths; the container types are not compared.

    Args:
        a: The first structure.
        b: The second structure.

    Raises:
        ValueError: If a path is in one structure only (the message lists
            them).

    Example:
        >>> tfkit.tree.assert_same_paths([1, 2], (3, 4))
        >>> tfkit.tree.assert_same_paths({"a": 1}, {"b": 1})
        Traceback (most recent call last):
        ...
        ValueError: `a` and `b` don't have the same paths. ...
    """
    a_paths = {path for path, _ in _walk(a)}
    b_paths = {path for path, _ in _walk(b)}
    if a_paths != b_paths:
        message = "`a` and `b` don't have the same paths."
        if a_paths - b_paths:
            message += f"\nPaths in `a` missing in `b`:\n{sorted(a_paths - b_paths, key=repr)}"
        if b_paths - a_paths:
            message += f"\nPaths in `b` missing in `a`:\n{sorted(b_paths - a_paths, key=repr)}"
        raise ValueError(message)


def pack_sequence_as(structure: Any, flat_sequence: Iterable[Any]) -> Any:
    """Packs a flat sequence of leaves into the layout of a structure (the inverse of `flatten`).

    Args:
        structure: The nested structure whose layout to use (its leaves are
            ignored).
        flat_sequence: An iterable of as many leaves as `structure` has.

    Returns:
        A structure like `structure` holding the leaves of `flat_sequence`.

    Raises:
        TypeError: If `flat_sequence` is not iterable.
        ValueError: If the numbers of leaves differ.

    Example:
        >>> tfkit.tree.pack_sequence_as({"b": [0, 0], "a": 0}, [1, 2, 3])
        {'b': [2, 3], 'a': 1}
    """
    try:
        flat = list(flat_sequence)
    except TypeError:
        raise TypeError(f"pack_sequence_as: flat_sequence must be iterable, got {type(flat_sequence).__name__}")
    leaves = iter(flat)
    expected = len(flatten(structure))
    if len(flat) != expected:
        raise ValueError(
            f"pack_sequence_as: the structure has {expected} leaves but flat_sequence has {len(flat)} items"
        )

    def pack(node: Any) -> Any:
        if not is_nested(node):
            return next(leaves)
        return _rebuild(node, [pack(child) for child in _children(node)])

    return pack(structure)


def _check_callable(func: Any, who: str) -> None:
    if not callable(func):
        raise TypeError(f"{who}: func must be callable, got {type(func).__name__}")


def map_structure(func: Callable[..., Any], *structures: Any, none_is_leaf: bool = True) -> Any:
    """Maps a function over the leaves of one or more structures of the same layout.

    Args:
        func: A callable taking one leaf from each structure.
        *structures: One or more structures, nested the same way.
        none_is_leaf: Whether `None` is a leaf that `func` is called on. With
            `False`, a `None` in the first structure stays `None` and `func`
            is not called on it. Defaults to `True`.

    Returns:
        A structure of the same layout holding `func`'s results.

    Raises:
        TypeError: If `func` is not callable.
        ValueError: If no structure is given, or they differ in layout.

    Example:
        >>> tfkit.tree.map_structure(lambda v: v * 2, {"a": (1, 2), "b": 3})
        {'a': (2, 4), 'b': 6}
        >>> tfkit.tree.map_structure(lambda x, y: x + y, [1, 2], [10, 20])
        [11, 22]
    """
    _check_callable(func, "map_structure")
    if not structures:
        raise ValueError("map_structure: must provide at least one structure")
    for other in structures[1:]:
        _check_same(structures[0], other, ())

    def apply(*nodes: Any) -> Any:
        if not is_nested(nodes[0]):
            if nodes[0] is None and not none_is_leaf:
                return None
            return func(*nodes)
        keys = _keys(nodes[0])
        others = [dict(zip(_keys(n), _children(n))) for n in nodes[1:]]
        values = [apply(child, *(o[key] for o in others)) for key, child in zip(keys, _children(nodes[0]))]
        return _rebuild(nodes[0], values)

    return apply(*structures)


def map_structure_up_to(shallow_structure: Any, func: Callable[..., Any], *structures: Any) -> Any:
    """Maps a function over structures, only down to the leaves of a shallower structure.

    Like `map_structure`, but `func` receives the sub-trees of `structures`
    found at the leaves of `shallow_structure`.

    Args:
        shallow_structure: A structure that is a prefix of each of
            `structures`' layouts.
        func: A callable taking one sub-tree from each structure.
        *structures: One or more structures.

    Returns:
        A structure with the layout of `shallow_structure`.

    Raises:
        TypeError: If `func` is not callable.
        ValueError: If no structure is given, or one does not extend
            `shallow_structure`.

    Example:
        >>> tfkit.tree.map_structure_up_to([None, None], len, [[1, 2], (3, 4, 5)])
        [2, 3]
    """
    _check_callable(func, "map_structure_up_to")
    if not structures:
        raise ValueError("map_structure_up_to: must provide at least one structure")
    for structure in structures:
        _check_same(shallow_structure, structure, (), shallow=True)

    def apply(shallow: Any, *nodes: Any) -> Any:
        if not is_nested(shallow):
            return func(*nodes)
        children = [dict(zip(_keys(n), _children(n))) for n in nodes]
        return _rebuild(
            shallow,
            [apply(child, *(c[key] for c in children)) for key, child in zip(_keys(shallow), _children(shallow))],
        )

    return apply(shallow_structure, *structures)


def traverse(func: Callable[[Any], Any], structure: Any, top_down: bool = True) -> Any:
    """Traverses a structure depth first, applying a function to every sub-tree and leaf.

    Top down, a non-`None` result replaces the sub-tree and stops the
    descent into it; bottom up, it replaces the (already traversed)
    sub-tree. Returning `None` keeps the sub-tree; return `MAP_TO_NONE` to
    put `None` in its place.

    Args:
        func: A callable taking a sub-tree or leaf.
        structure: The structure to traverse.
        top_down: Whether parents are visited before their children.
            Defaults to `True`.

    Returns:
        The transformed structure.

    Raises:
        TypeError: If `func` is not callable.

    Example:
        >>> tfkit.tree.traverse(lambda x: x * 10 if isinstance(x, int) else None, [1, (2, 3)])
        [10, (20, 30)]
        >>> tfkit.tree.traverse(lambda x: "pair" if isinstance(x, tuple) else None, [1, (2, 3)])
        [1, 'pair']
    """
    _check_callable(func, "traverse")

    def children_traversed(node: Any) -> Any:
        if not is_nested(node):
            return node
        return _rebuild(node, [traverse(func, child, top_down) for child in _children(node)])

    if top_down:
        result = func(structure)
        if result is None:
            return children_traversed(structure)
    else:
        structure = children_traversed(structure)
        result = func(structure)
        if result is None:
            return structure
    return None if result is MAP_TO_NONE else result


def lists_to_tuples(structure: Any) -> Any:
    """Converts every list in a structure, at any depth, into a tuple.

    Args:
        structure: A nested structure.

    Returns:
        The structure with tuples in place of lists.

    Example:
        >>> tfkit.tree.lists_to_tuples([1, {"a": [2, 3]}])
        (1, {'a': (2, 3)})
    """
    return traverse(lambda node: tuple(node) if isinstance(node, list) else None, structure, top_down=False)


def map_shape_structure(func: Callable[[Any], Any], structure: Any) -> Any:
    """Maps a function over a structure of shapes: a list or tuple of ints and `None` counts as one leaf.

    Args:
        func: A callable taking a shape (or another leaf).
        structure: A structure of shapes.

    Returns:
        A structure of the same layout holding `func`'s results.

    Raises:
        TypeError: If `func` is not callable.

    Example:
        >>> tfkit.tree.map_shape_structure(lambda s: (None, *s[1:]), {"x": (32, 4), "y": [(32, 2)]})
        {'x': (None, 4), 'y': [(None, 2)]}
    """
    _check_callable(func, "map_shape_structure")

    def apply(node: Any) -> Any:
        if is_shape(node) or not is_nested(node):
            return func(node)
        return _rebuild(node, [apply(child) for child in _children(node)])

    return apply(structure)
