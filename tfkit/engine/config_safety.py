"""Checks that a config read from a file is plain data naming registered objects.

    config = loads_json(text, "model_config")     # json.loads with size and depth limits
    check_config(config, "model_config")          # refuses code, module paths, safe_mode keys, huge strings,
                                                  # TensorFlow functions outside the allowlist (TFOpLambda),
                                                  # and numbers that multiply the work of loading (config_cost)

tfkit has no code deserializer at all: nothing here (or anywhere in tfkit)
turns bytes from a file into a function, a module import, a pickle or an
``eval``. These checks exist to give a precise error for the shapes that
code-carrying configs take in other libraries (Keras's ``__lambda__``
objects and ``function_type`` entries, ``module`` keys), and to refuse a file
that tries to set ``safe_mode`` itself: only the caller of ``load_model``
decides that.
"""

from __future__ import annotations

import json
from typing import Any

from tfkit.base.tf_operations_table import ALLOWED as ALLOWED_TF_OPERATIONS
from tfkit.engine.config_cost import check_costs

MAX_JSON_CHARS = 16 * 2**20
MAX_JSON_VALUES = 2_000_000  # a 10,000-layer model config holds well under a million
MAX_DEPTH = 256
# A name ends up in every TensorFlow op and variable name of its layer: a 900 KB layer name cost 230 MB
# to rebuild, a 15 MB one crashed the process. Names and keys are identifiers; other text is bounded too.
MAX_NAME_CHARS = 1024
MAX_STRING_CHARS = 64 * 1024

_NO_CODE = (
    "tfkit never loads code from a file, not even with safe_mode=False: it has no code "
    "deserializer. Register the function with @tfkit.saving.register_keras_serializable(package=...) "
    "(or pass it in custom_objects=) and save the model again, so the file names it."
)


def _where(path: list[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<root>"


def loads_json(text: Any, what: str) -> Any:
    """``json.loads`` of a file's text attribute, with a size limit and clear errors."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"{what} is not UTF-8 text ({error})") from None
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a JSON string, got {type(text).__name__}")
    if len(text) > MAX_JSON_CHARS:
        raise ValueError(f"{what} is {len(text)} characters long; the limit is {MAX_JSON_CHARS}")
    # Every JSON value but the first follows a ',' or opens with '[' or '{': an upper bound on
    # the number of values, known before json.loads allocates any of them.
    values = text.count(",") + text.count("[") + text.count("{") + 1
    if values > MAX_JSON_VALUES:
        raise ValueError(f"{what} holds up to {values} JSON values; the limit is {MAX_JSON_VALUES}")
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"{what} is nested too deeply to be a config") from None
    except ValueError as error:
        raise ValueError(f"{what} is not valid JSON ({error})") from None
    _check_depth(value, what)
    return value


def _check_depth(value: Any, what: str) -> None:
    stack = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"{what} is nested more than {MAX_DEPTH} levels deep; not a tfkit config")
        if isinstance(current, dict):
            stack.extend((v, depth + 1) for v in current.values())
        elif isinstance(current, list):
            stack.extend((v, depth + 1) for v in current)


def check_config(config: Any, what: str) -> None:
    """Raise ``ValueError`` where ``config`` carries code, module paths or a ``safe_mode`` switch.

    Then ``config_cost.check_costs``: arguments that multiply the work of rebuilding or running the
    model (nested models called many times, ``ngrams``, ``num_oov_indices``, ``RepeatVector(n)``, ...).
    """
    stack: list[tuple[Any, list[Any]]] = [(config, [what])]
    while stack:
        value, path = stack.pop()
        if isinstance(value, list):
            stack.extend((item, path + [i]) for i, item in enumerate(value))
            continue
        if isinstance(value, str):
            limit = MAX_NAME_CHARS if path[-1] == "name" else MAX_STRING_CHARS
            if len(value) > limit:
                raise ValueError(
                    f"{_where(path)} is a string of {len(value)} characters; the limit is {limit} "
                    f"({'a name' if limit == MAX_NAME_CHARS else 'text in a config'})"
                )
            continue
        if not isinstance(value, dict):
            continue
        _check_object(value, path)
        stack.extend((item, path + [key]) for key, item in value.items())
    check_costs(config, what)


def _names_a_function(value: dict) -> bool:
    """Keras 3's ``{"class_name": "function", "config": "my_pkg>fn"}``: a function by name (data, found in the registry)."""
    return value.get("class_name") == "function" and isinstance(value.get("config"), str)


def _check_object(value: dict, path: list[Any]) -> None:
    where = _where(path)
    for key in value:
        if not isinstance(key, str):
            raise ValueError(f"{where}: config keys must be strings, got {key!r}")
        if len(key) > MAX_NAME_CHARS:
            raise ValueError(f"{where} has a key of {len(key)} characters; the limit is {MAX_NAME_CHARS}")
    if "safe_mode" in value:
        raise ValueError(
            f"{where} has a 'safe_mode' entry. A file cannot change safe_mode: it is a parameter "
            f"of tfkit.load_model only, and tfkit's configs never contain it."
        )
    class_name = value.get("class_name")
    if isinstance(class_name, str) and class_name.startswith("__"):
        raise ValueError(f"{where} is a {class_name!r} object, which holds Python code. {_NO_CODE}")
    if "function_type" in value or "bytecode" in value or "marshal" in value:
        raise ValueError(f"{where} describes a function saved as code (Keras-style). {_NO_CODE}")
    function = value.get("function")
    if isinstance(function, list) or isinstance(function, dict) and not _names_a_function(function):
        raise ValueError(
            f"{where}.function is not a registered function name but {type(value['function']).__name__} data "
            f"(a function saved as code). {_NO_CODE}"
        )
    if class_name in _OPERATION_LAYERS and isinstance(value.get("config"), dict):
        _check_operation(value, where)
    if "class_name" in value:
        # "module" and "registered_name" are data, as in Keras's format: never imported or evaluated.
        for key in ("module", "registered_name"):
            if key in value and value[key] is not None and not isinstance(value[key], str):
                raise ValueError(f"{where}.{key} must be a string, got {type(value[key]).__name__}")
        if not isinstance(class_name, str):
            raise ValueError(f"{where}.class_name must be a string, got {type(class_name).__name__}")


_OPERATION_LAYERS = ("TFOpLambda", "SlicingOpLambda")


def _check_operation(entry: dict, where: str) -> None:
    """A ``TFOpLambda`` naming a TensorFlow function outside the allowlist is refused before anything is built."""
    function, name = entry["config"].get("function"), entry["config"].get("name")
    if isinstance(function, str) and function.startswith("tf.") and function not in ALLOWED_TF_OPERATIONS:
        raise ValueError(
            f"{where} ({entry['class_name']} {str(name)[:100]!r}): operation {function[:200]!r} is not allowed in a "
            f"model config: a file may name only the {len(ALLOWED_TF_OPERATIONS)} pure tensor functions of "
            f"tfkit's TensorFlow allowlist (docs/TF_OPERATIONS.md). Functions that change TensorFlow's state, "
            f"touch files, print, run Python or create variables, and every tf.compat.v1 name but the few "
            f"that allowed functions call, are refused, before anything of the model is built"
        )
