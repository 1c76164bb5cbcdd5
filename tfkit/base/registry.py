"""Names to classes: the only way a config can reach Python objects.

    @tfkit.saving.register_keras_serializable(package="my_pkg")
    class Linear(tfkit.Layer): ...
    registry.lookup("layers", "my_pkg>Linear")  # -> Linear

Built-in objects live in fixed per-kind tables filled when tfkit's own modules
are imported; custom objects are registered explicitly (decorator, a
``custom_objects=`` dict, or ``custom_object_scope``). Lookup is a dictionary
access and nothing else: a name from a file never imports a module, never
evaluates code and never walks attributes, so a hostile config can at most
name an object the program already registered.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import threading
from typing import Any, Callable, Iterator, Mapping

KINDS = (
    "layers",
    "initializers",
    "activations",
    "regularizers",
    "constraints",
    "losses",
    "metrics",
    "optimizers",
    "schedules",
    "callbacks",
    "quantizers",
    "functions",
)

_BUILTINS: dict[str, dict[str, Any]] = {kind: {} for kind in KINDS}
# Keras's global custom-objects dict: users may put classes in it by plain name, and
# ``register_serializable`` puts them in it by "package>name" (so, as in Keras, clearing
# it unregisters them). ``_CUSTOM`` is the same dict under its older name.
_GLOBAL_CUSTOM: dict[str, Any] = {}
_CUSTOM = _GLOBAL_CUSTOM
_NAME_OF: dict[int, str] = {}
_BASES: dict[str, type] = {}  # kind -> the base class its family registered
_VARIANT_OF: dict[type, type] = {}  # a class tfkit derived from a user's class -> that class
_scope = threading.local()

_SINGULAR = {
    "layers": "layer",
    "initializers": "initializer",
    "activations": "activation",
    "regularizers": "regularizer",
    "constraints": "constraint",
    "losses": "loss",
    "metrics": "metric",
    "optimizers": "optimizer",
    "schedules": "schedule",
    "callbacks": "callback",
    "quantizers": "quantizer",
    "functions": "function",
}

_REGISTERED_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(>[A-Za-z_][A-Za-z0-9_]*)?$")


def builtin(kind: str, *aliases: str) -> Callable[[Any], Any]:
    """Decorator that puts a tfkit object in the fixed table of ``kind``.

    The object is found under its ``__name__`` and every alias
    (``@builtin("activations", "swish")`` on ``silu``).
    """
    table = _BUILTINS[kind]

    def decorate(obj: Any) -> Any:
        for name in (obj.__name__, *aliases):
            table[name] = obj
        return obj

    return decorate


def base(kind: str) -> Callable[[type], type]:
    """Class decorator: the base class of ``kind``, registered by the family that defines it.

        @registry.base("losses")
        class Loss: ...               # kind_of(MeanSquaredError()) == "losses"

    Serialization learns the kinds from here, so it imports no family.
    """
    if kind not in _BUILTINS:
        raise ValueError(f"Unknown kind {kind!r}; expected one of {', '.join(KINDS)}")

    def decorate(cls: type) -> type:
        _BASES[kind] = cls
        return cls

    return decorate


def kind_of(obj: Any) -> str | None:
    """The kind of an object or class (``"layers"``, ``"losses"``, ...) by its registered base class, if any."""
    cls = obj if isinstance(obj, type) else type(obj)
    for kind in KINDS:
        base_class = _BASES.get(kind)
        if base_class is not None and issubclass(cls, base_class):
            return kind
    return None


def base_class(kind: str) -> type | None:
    """The base class registered for ``kind`` (None for kinds of plain functions)."""
    return _BASES.get(kind)


def register_variant(variant: type, of: type) -> None:
    """``variant`` is a class tfkit derived from the user's ``of``: it is saved and found as ``of``."""
    _VARIANT_OF[variant] = of


def register_serializable(package: str = "Custom", name: str | None = None) -> Callable[[Any], Any]:
    """Registers a custom class or function with tfkit's serialization, under `"package>name"`.

    A decorator (`tfkit.saving.register_keras_serializable`, Keras's name).
    Saved configs then name the object by its registered name, and
    `load_model` and `deserialize` find it without `custom_objects`. The
    object is added to `get_custom_objects()`. Registration is how custom code
    reaches a loaded model: files never hold code.

    Args:
        package: The package name, without `>`. Defaults to `"Custom"`.
        name: The name to register under. Defaults to `None` (the object's
            `__name__`).

    Returns:
        A decorator that registers the object and returns it unchanged.

    Raises:
        ValueError: If `package` holds `>`, or the name is not made of
            letters, digits and `_`.

    Example:
        >>> @tfkit.saving.register_keras_serializable(package="docs")
        ... class Doubler(tfkit.Layer):
        ...     def call(self, x):
        ...         return 2.0 * x
        >>> tfkit.saving.get_registered_name(Doubler)
        'docs>Doubler'
        >>> tfkit.saving.deserialize(tfkit.saving.serialize(Doubler(name="double")))
        <Doubler name=double, built=False>
    """
    if ">" in package:
        raise ValueError(f"package must not contain '>', got {package!r}")

    def decorate(obj: Any) -> Any:
        registered = f"{package}>{name or obj.__name__}"
        if not _REGISTERED_NAME.match(registered):
            raise ValueError(f"{registered!r} is not a valid registered name: use letters, digits and '_'")
        _CUSTOM[registered] = obj
        _NAME_OF[id(obj)] = registered
        return obj

    return decorate


def registered_name(obj: Any) -> str | None:
    """The ``package>name`` an object was registered under, if any."""
    obj = public_class(obj)
    return _NAME_OF.get(id(obj))


def public_class(obj: Any) -> Any:
    """A user's class for tfkit's functional variant of it (``CustomModel(inputs, outputs)``)."""
    if isinstance(obj, type):
        return _VARIANT_OF.get(obj, obj)
    return obj


@contextlib.contextmanager
def custom_object_scope(
    *mappings: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None
) -> Iterator[None]:
    """Makes custom objects resolvable by name inside a `with` block.

    Inside the block, loading and deserialization (`load_model`,
    `deserialize_keras_object`, `from_config`) find these names as if they
    were passed as `custom_objects`. Scopes nest; the innermost wins. Also
    available as `CustomObjectScope` (Keras's class name).

    Args:
        *mappings: Dicts mapping names to classes or functions.
        custom_objects: A further dict of the same kind, by keyword (Keras's
            name). Defaults to `None`.

    Returns:
        A context manager.

    Example:
        >>> class Scale(tfkit.Layer):
        ...     def call(self, x):
        ...         return 3.0 * x
        >>> with tfkit.saving.custom_object_scope({"Scale": Scale}):
        ...     layer = tfkit.saving.deserialize_keras_object({"class_name": "Scale", "config": {"name": "s"}})
        >>> layer
        <Scale name=s, built=False>
    """
    stack = _scope_stack()
    merged: dict[str, Any] = {}
    for mapping in mappings + (custom_objects,):
        merged.update(mapping or {})
    stack.append(merged)
    try:
        yield
    finally:
        stack.pop()


def _scope_stack() -> list[dict[str, Any]]:
    if not hasattr(_scope, "stack"):
        _scope.stack = []
    return _scope.stack


def get_custom_objects() -> dict[str, Any]:
    """Retrieves the live global dict of custom objects, as Keras's `get_custom_objects()`.

    Registered objects are in it under their `"package>name"`; adding
    `{"MyLayer": MyLayer}` to it makes the name resolvable everywhere.
    Loading consults it after `custom_objects=` and active scopes.
    `get_custom_objects().clear()` forgets every registration, as in Keras.

    Returns:
        The global dict (changes to it take effect).

    Example:
        >>> class Halve(tfkit.Layer):
        ...     def call(self, x):
        ...         return x / 2.0
        >>> tfkit.saving.get_custom_objects()["Halve"] = Halve
        >>> tfkit.saving.deserialize_keras_object({"class_name": "Halve", "config": {"name": "h"}})
        <Halve name=h, built=False>
        >>> del tfkit.saving.get_custom_objects()["Halve"]
    """
    return _GLOBAL_CUSTOM


def registered_object(
    name: str, custom_objects: Mapping[str, Any] | None = None, module_objects: Mapping[str, Any] | None = None
) -> Any:
    """The object under ``name`` in ``custom_objects``, active scopes, the global dict or ``module_objects``; else None."""
    for mapping in (custom_objects or {}), *reversed(_scope_stack()), get_custom_objects():
        if name in mapping:
            return mapping[name]
    return (module_objects or {}).get(name)


def _plain(name: str) -> str:
    return name.rsplit(">", 1)[-1]


def lookup(
    kind: str,
    name: Any,
    custom_objects: Mapping[str, Any] | None = None,
    registered_name: Any = None,
    module: Any = None,
) -> Any:
    """Resolve ``name`` to an object of ``kind``, or raise ``ValueError``.

    Order: ``custom_objects``, active ``custom_object_scope``s and the global
    custom objects (each by registered name, class name, or the plain part of
    a ``package>Name``), objects registered with ``register_serializable``,
    then the built-in table of ``kind``. ``module`` is data only, never
    imported: a class saved from outside tfkit is not looked up among
    tfkit's built-ins, so a user's ``Dense`` never loads as tfkit's.
    """
    if not isinstance(name, str):
        raise ValueError(f"Expected a {kind} name (a string), got {type(name).__name__}: {name!r}")
    keys = [key for key in (registered_name, name) if isinstance(key, str) and key]
    keys += [_plain(key) for key in keys if _plain(key) not in keys]
    for mapping in (custom_objects or {}), *reversed(_scope_stack()), _GLOBAL_CUSTOM:
        for key in keys:
            if key in mapping:
                return mapping[key]
    for key in keys[:2]:
        if key in _CUSTOM:
            return _CUSTOM[key]
    table = _BUILTINS.get(kind)
    if table is None:
        raise ValueError(f"Unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    # A class saved from outside tfkit and Keras, or under a package>Name registration, is never a
    # built-in. Keras writes its own built-ins with module "keras.<family>" and no registered name.
    foreign = (
        isinstance(module, str)
        and module
        and not _builtin_module(module)
        or isinstance(registered_name, str)
        and ">" in registered_name
    )
    if not foreign:
        if name in table:
            return table[name]
        if ">" not in name and _plain(name) in table:
            return table[_plain(name)]
    raise UnknownObjectError(
        _unknown_message(kind, name, registered_name, module, table),
        kind,
        _plain(registered_name) if isinstance(registered_name, str) and registered_name else _plain(name),
    )


class UnknownObjectError(ValueError):
    """A name no registration, scope, `custom_objects` entry or built-in resolves (a `ValueError`).

    Its message names the one way to provide it: `custom_objects={key: obj}`,
    or `@tfkit.saving.register_keras_serializable(...)` under the name the
    file holds. Callers that can supply objects (the ``tfkit`` command's
    ``--import``) read which one from `key`.

    Args:
        message: The error message.
        kind: The registry kind looked in (`"layers"`, `"activations"`,
            ...). Defaults to `None` (a copy re-raised with a longer message).
        key: The `custom_objects` key that would resolve the name (the
            plain part of a `"package>Name"`). Defaults to `None`.

    Example:
        >>> try:
        ...     tfkit.saving.deserialize_keras_object({"class_name": "Missing", "config": {}, "module": "my_layers"})
        ... except tfkit.base.registry.UnknownObjectError as error:
        ...     print(error.kind, error.key)
        layers Missing
    """

    def __init__(self, message: str, kind: str | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.key = key


def _builtin_module(module: str) -> bool:
    return module.split(".", 1)[0] in ("tfkit", "keras")


def _unknown_message(kind: str, name: str, registered_name: Any, module: Any, table: dict[str, Any]) -> str:
    """What is unknown and the one route to provide it: ``custom_objects``, or registration under the file's name."""
    singular = _SINGULAR.get(kind, kind)
    key = _plain(registered_name) if isinstance(registered_name, str) and registered_name else _plain(name)
    identifier = key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else "..."
    where = f" (saved from module {module[:80]!r})" if isinstance(module, str) and module else ""
    hint = ""
    if "." in name or "/" in name:
        hint = " Names in configs are registered names, never module paths."
    shown = registered_name if isinstance(registered_name, str) and registered_name else name
    foreign = isinstance(module, str) and module and not _builtin_module(module) or ">" in shown
    if ">" in shown:  # the file names a registration: registering the same package and name resolves it
        package = shown.rsplit(">", 1)[0]
        named = f", name={key!r}" if key != _plain(name) else ""
        register = (
            f", or register it under the name the file holds: "
            f"@tfkit.saving.register_keras_serializable(package={package!r}{named})."
        )
    else:  # a plain name: registering renames it ("Custom>key"), so only later saves hold that name
        register = (
            f". Registering it with @tfkit.saving.register_keras_serializable() names it 'Custom>{key}' "
            f"in what is saved from then on."
        )
    return (
        f"Unknown {singular} {shown!r}{where}: pass custom_objects={{{key!r}: {identifier}}} to load_model "
        f"(or deserialize){register}{hint}"
        + ("" if foreign else _builtin_hint(kind, singular, key, table))  # a user's class never loads as a built-in
    )


_LIST_ALL_UP_TO = 40  # a kind with at most this many built-ins lists them all when no name is close


def _builtin_hint(kind: str, singular: str, key: str, table: dict[str, Any]) -> str:
    """A few built-in names close to ``key`` (any case), all of a small table, or where to find them."""
    by_lower = {name.lower(): name for name in sorted(table)}
    close = [by_lower[name] for name in difflib.get_close_matches(key.lower(), list(by_lower), n=3, cutoff=0.6)]
    if close:
        return f" Close built-in names: {', '.join(close)}."
    if len(table) <= _LIST_ALL_UP_TO:
        return f" Known built-ins: {', '.join(sorted(table))}."
    return (
        f" No built-in {singular} has a similar name (tfkit.base.registry.builtin_names({kind!r}) lists "
        f"all {len(table)})."
    )


def name_for(kind: str, obj: Any) -> str:
    """The name a class or function is saved under: its registered name, else its own name.

    Saving never requires registration (Keras 3 writes the class name as
    data too); loading then needs the class in ``custom_objects`` or a scope.
    """
    registered = registered_name(obj)
    if registered is not None:
        return registered
    obj = public_class(obj)
    name = getattr(obj, "__name__", None)
    if name is not None and _BUILTINS[kind].get(name) is obj:
        return name
    if isinstance(name, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return name
    raise ValueError(
        f"{obj!r} has no name to be saved under (a lambda?). Define it with 'def' or 'class' and, to load it "
        f"without custom_objects, decorate it with @tfkit.saving.register_keras_serializable()."
    )


def builtin_object(kind: str, name: str) -> Any:
    """tfkit's own object of ``kind`` registered under ``name`` (never a user's); ``KeyError`` if there is none."""
    return _BUILTINS[kind][name]


def is_builtin(kind: str, obj: Any) -> bool:
    """Whether ``obj`` is one of tfkit's own objects of ``kind``."""
    name = getattr(obj, "__name__", None)
    return name is not None and _BUILTINS[kind].get(name) is obj


def serialized_class(kind: str, cls: Any) -> dict[str, Any]:
    """``{"module", "class_name", "registered_name"}`` for a class, as Keras writes them (all plain data)."""
    cls = public_class(cls)
    registered = registered_name(cls)
    if registered is not None:
        # Keras 3 writes the class's own name here and the registration in registered_name.
        return {
            "module": getattr(cls, "__module__", None),
            "class_name": getattr(cls, "__name__", _plain(registered)),
            "registered_name": registered,
        }
    name = name_for(kind, cls)
    if is_builtin(kind, cls):
        return {"module": f"tfkit.{kind}", "class_name": name, "registered_name": None}
    return {"module": getattr(cls, "__module__", None), "class_name": name, "registered_name": name}


def builtin_names(kind: str) -> list[str]:
    """Sorted names in the built-in table of ``kind``."""
    return sorted(_BUILTINS[kind])


def resolve(kind: str, identifier: Any, custom_objects: Mapping[str, Any] | None = None) -> Any:
    """Turn a string, a ``{"class_name", "config"}`` dict or an object into an object.

    Strings naming a class give a default instance (``"glorot_uniform"`` ->
    ``GlorotUniform()``); strings naming a function give the function;
    dicts are rebuilt with the class's ``from_config``; a named function
    (``{"class_name": "function", "config": "my_pkg>fn"}``, as Keras 3 writes
    one) is looked up by the name in its config; anything else is returned
    unchanged. ``None`` stays ``None``.
    """
    if identifier is None or not isinstance(identifier, (str, dict)):
        return identifier
    if isinstance(identifier, str):
        obj = lookup(kind, identifier, custom_objects)
        return obj() if isinstance(obj, type) else obj
    # "shared_object_id": Keras's marker of an object shared by several configs (data; each copy is rebuilt)
    if (
        set(identifier) - {"class_name", "config", "kind", "module", "registered_name", "shared_object_id"}
        or "class_name" not in identifier
    ):
        raise ValueError(
            f"A serialized {_SINGULAR.get(kind, kind)} is a dict with keys 'class_name' and 'config'; got keys {sorted(identifier)}"
        )
    if identifier["class_name"] == "function" and isinstance(identifier.get("config"), str):
        # Keras 3 names the function in "config" (its "registered_name" holds "function" for a plain def)
        return lookup(kind, identifier["config"], custom_objects, None, identifier.get("module"))
    obj = lookup(
        kind, identifier["class_name"], custom_objects, identifier.get("registered_name"), identifier.get("module")
    )
    config = identifier.get("config") or {}
    if not isinstance(config, dict):
        raise ValueError(f"The config of {identifier['class_name']!r} must be a dict, got {type(config).__name__}")
    if not isinstance(obj, type):
        if config:
            raise ValueError(f"{identifier['class_name']!r} is a function and takes no config")
        return obj
    if hasattr(obj, "from_config"):
        return obj.from_config(config)
    return obj(**config)


def to_config(kind: str, obj: Any) -> Any:
    """Inverse of :func:`resolve`: a name for functions, a dict for objects."""
    if obj is None:
        return None
    if isinstance(obj, type) or callable(obj) and not hasattr(obj, "get_config"):
        return name_for(kind, obj)
    entry = serialized_class(kind, type(obj))
    return (
        {**entry, "config": obj.get_config()}
        if entry["registered_name"] is not None
        else {"class_name": entry["class_name"], "config": obj.get_config()}
    )


def resolve_callable(kind: str, identifier: Any, expected: str) -> Any:
    """:func:`resolve`, then check the result is callable (a class gives a default instance).

    ``expected`` completes the error message: "expected <expected>".
    """
    obj = resolve(kind, identifier)
    if isinstance(obj, type):
        obj = obj()
    if callable(obj):
        return obj
    raise ValueError(f"Could not interpret {_SINGULAR.get(kind, kind)} {identifier!r}: expected {expected}")
