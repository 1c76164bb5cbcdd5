"""Signatures as the API reference shows them: real types or none, every tfkit type named by its documented path.

``docs/conf.py`` runs each signature autodoc writes through :func:`clean_signature`:

- ``Any`` says nothing a reader can use, so it goes: ``activation: Any = 'tanh'`` reads
  ``activation='tanh'``; a type that only holds ``Any`` keeps its outer type
  (``dict[str, Any] | None`` reads ``dict | None``, ``Callable[..., Any]`` reads ``Callable``);
- a name the module defines as a type alias (``IntOrTuple = int | Sequence[int]``) is written out,
  since an alias has no page to link to;
- a tfkit class is named by the path the reference documents it under (``Layer`` in
  ``tfkit.engine.layer`` is ``tfkit.layers.Layer``), so the signature links to its page.

Annotations are read as the source wrote them (most tfkit modules use ``from __future__ import
annotations``) and resolved in the defining module's globals, never evaluated as code.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import sys
import typing
from typing import Callable

_ANY = object()  # marks a node that stands for ``Any``


def real_path(obj: object) -> str:
    """``module.qualname`` of a class or function: the path Sphinx writes for an evaluated annotation."""
    return f"{obj.__module__}.{obj.__qualname__}"


def _alias_text(value: object) -> str | None:
    """The written-out form of a type alias (``int | Sequence[int] | None``), or None if ``value`` is none.

    An alias is a subscripted type or a union bound to a name; a bare ``typing.Callable`` is no alias.
    """
    if isinstance(value, type) or not typing.get_args(value):
        return None
    from sphinx.util.typing import stringify_annotation

    return stringify_annotation(value, "smart")


def _by_path(dotted: str) -> object:
    """The object at a dotted path whose module is already imported (nothing is imported here)."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is not None:
            value: object = module
            for part in parts[cut:]:
                value = getattr(value, part, None)
            return value
    return None


class _Rewriter:
    """Turns one annotation's syntax tree into the one the reference shows (see the module docstring)."""

    def __init__(self, namespace: dict, documented: Callable[[object], str | None]):
        self.namespace = namespace
        self.documented = documented
        self.depth = 0

    def resolve(self, node: ast.expr) -> object:
        """The object a ``Name``/``Attribute`` chain stands for in the module's globals (or None)."""
        if isinstance(node, ast.Name):
            if node.id in self.namespace:
                return self.namespace[node.id]
            return getattr(builtins, node.id, None)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if base is None:  # a full path Sphinx wrote: ``tfkit.engine.layer.Layer``
                return _by_path(ast.unparse(node))
            return getattr(base, node.attr, None)
        return None

    def name(self, node: ast.expr) -> ast.expr | object:
        if isinstance(node, ast.Name) and node.id == "Any" or isinstance(node, ast.Attribute) and node.attr == "Any":
            return _ANY
        value = self.resolve(node)
        if value is typing.Any:
            return _ANY
        if isinstance(value, type) and (value.__module__ or "").startswith("tfkit"):
            if value.__name__.startswith("_"):  # a private class has no page: its docstring says what it is
                return _ANY
            path = self.documented(value) or real_path(value)
            return ast.UnaryOp(ast.Invert(), ast.parse(path, mode="eval").body)
        alias = _alias_text(value)
        if alias is not None and isinstance(node, ast.Name) and self.depth < 4:
            self.depth += 1
            try:
                return self.visit(ast.parse(alias, mode="eval").body)
            finally:
                self.depth -= 1
        return node

    def visit(self, node: ast.expr) -> ast.expr | object:
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.name(node)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted forward reference
            try:
                return self.visit(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                return node
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):  # Sphinx's ``~path``
            inner = self.visit(node.operand)
            if inner is _ANY:
                return _ANY
            if isinstance(inner, ast.UnaryOp):
                return inner
            return ast.UnaryOp(ast.Invert(), inner)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # ``X | Y``: Any absorbs the union
            left, right = self.visit(node.left), self.visit(node.right)
            if left is _ANY or right is _ANY:
                return _ANY
            return ast.BinOp(left, ast.BitOr(), right)
        if isinstance(node, ast.Subscript):
            base = self.visit(node.value)
            if base is _ANY:
                return _ANY
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            visited = [self.visit(item) for item in items]
            base_name = ast.unparse(base).lstrip("~").rsplit(".", 1)[-1]
            if any(_holds_any(v) for v in visited):
                if base_name in ("Optional", "Union"):
                    return _ANY
                return base
            new_slice = ast.Tuple(visited, ast.Load()) if isinstance(node.slice, ast.Tuple) else visited[0]
            return ast.Subscript(base, new_slice, ast.Load())
        if isinstance(node, (ast.List, ast.Tuple)):  # Callable[[A, B], C]'s argument list
            visited = [self.visit(item) for item in node.elts]
            if any(_holds_any(v) for v in visited):
                return _AnyInside()
            return type(node)(visited, ast.Load())
        return node


class _AnyInside:
    """A list of types with ``Any`` among them: the enclosing subscript drops its arguments."""


def _holds_any(value: object) -> bool:
    return value is _ANY or isinstance(value, _AnyInside)


def clean_annotation(
    annotation: str, namespace: dict, documented: Callable[[object], str | None] = lambda obj: None
) -> str | None:
    """``annotation`` as the reference shows it, or None where nothing is left but ``Any``.

    Args:
        annotation: the annotation's source text (``"dict[str, Any] | None"``, ``"~tfkit.layers.Layer"``).
        namespace: the globals of the module that wrote it, to resolve its names in.
        documented: the documented path of a tfkit class (None for one the reference does not document,
            which keeps its own ``module.qualname``).

    Returns:
        The annotation's text, or None.
    """
    try:
        tree = ast.parse(annotation.strip(), mode="eval").body
    except SyntaxError:
        return annotation
    result = _Rewriter(namespace, documented).visit(tree)
    if _holds_any(result):
        return None
    return ast.unparse(result)


def referenced_classes(annotation: str, namespace: dict) -> list[type]:
    """The classes an annotation names, type aliases written out (``CloneFunction`` names ``Layer``)."""
    try:
        tree = ast.parse(annotation.strip(), mode="eval")
    except SyntaxError:
        return []
    rewriter = _Rewriter(namespace, lambda obj: None)
    found: list[type] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += referenced_classes(node.value, namespace)
        if not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        value = rewriter.resolve(node)
        if isinstance(value, type) and value not in found:
            found.append(value)
        elif _alias_text(value) is not None:
            found += [cls for cls in referenced_classes(_alias_text(value), namespace) if cls not in found]
    return found


def module_globals(obj: object) -> dict:
    """The namespace ``obj``'s annotations were written in: its function's globals, or its module's."""
    target = inspect.unwrap(obj) if callable(obj) else obj
    if isinstance(target, property):
        target = target.fget
    if isinstance(target, (classmethod, staticmethod)):
        target = target.__func__
    globals_ = getattr(target, "__globals__", None)
    if globals_ is not None:
        return globals_
    module = sys.modules.get(getattr(target, "__module__", None) or "")
    return vars(module) if module else {}


def clean_signature(
    signature: str | None,
    return_annotation: str | None,
    namespace: dict,
    documented: Callable[[object], str | None] = lambda obj: None,
) -> tuple[str | None, str | None]:
    """An autodoc signature (``"(units: int, activation: Any = None)"``) and return annotation, cleaned.

    Args:
        signature: the parenthesised parameter list autodoc wrote, or None.
        return_annotation: the return annotation's text, or None.
        namespace: the globals of the module that wrote them.
        documented: the documented path of a tfkit class, as for :func:`clean_annotation`.

    Returns:
        The ``(signature, return_annotation)`` pair to show.
    """
    from sphinx.util.inspect import signature_from_str, stringify_signature

    if return_annotation:
        return_annotation = clean_annotation(return_annotation, namespace, documented) or ""
    if not signature:
        return signature, return_annotation
    try:
        parsed = signature_from_str(signature)
    except SyntaxError:
        return signature, return_annotation
    parameters = []
    for parameter in parsed.parameters.values():
        annotation = parameter.annotation
        if annotation is not inspect.Parameter.empty:
            annotation = clean_annotation(str(annotation), namespace, documented)
            annotation = inspect.Parameter.empty if annotation is None else annotation
        parameters.append(parameter.replace(annotation=annotation))
    returns = parsed.return_annotation
    if returns is not inspect.Signature.empty:
        returns = clean_annotation(str(returns), namespace, documented) or inspect.Signature.empty
    text = stringify_signature(
        parsed.replace(parameters=parameters, return_annotation=returns), show_return_annotation=False
    )
    return text, return_annotation
