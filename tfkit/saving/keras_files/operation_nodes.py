"""Operation nodes of functional graphs, between Keras 3's form and tfkit's ``TFOpLambda`` layers.

    entry = tfkit_entry_from_keras(keras_entry, source, where)   # Keras's ``Sum`` node -> tfkit.ops.sum
    entry = keras_entry_from_tfkit(tfkit_entry, where)           # and back, for Keras to load

Keras 3 stores ``keras.ops.sum(x, axis=1)`` on symbolic tensors as a node of
class ``Sum`` (module ``keras.src.ops.numpy``) whose ``config`` holds the
constructor's arguments (``{"axis": 1, "keepdims": False}``) and whose inbound
node holds the arguments of ``call`` (``x``). tfkit records the same call as a
``TFOpLambda`` layer naming ``tfkit.ops.sum`` with every argument in its
``arguments`` (tensors as ``{"__input__": i}`` placeholders). Which argument
goes where comes from ``keras_ops_table`` (generated from Keras itself by
``tools/keras_ops_table.py``); Python operators (``x + y``, ``x[:, 0]``) map
to the classes Keras's tensors use for them (``Add``, ``GetItem``).

Both directions work on data only: tensor references stay tfkit's
``{"__tensor__": [layer, node, index]}`` (the caller turns them into Keras's
``__keras_tensor__`` objects, or back, for the whole config at once), and
constants are re-tagged between Keras's ``__slice__`` / ``__numpy__`` / ...
objects and tfkit's ``op_arguments`` tags. Keras's ``__lambda__`` and
``__typespec__`` values are refused, as is anything the table does not name.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from tfkit.layers import op_names
from tfkit.saving.keras_files.keras_ops_table import KERAS_VERSION, OPERATIONS

# Python operators on tfkit's symbolic tensors -> the Keras 3 operation its KerasTensor records for them.
OPERATOR_CLASSES = {
    "add": "Add",
    "sub": "Subtract",
    "mul": "Multiply",
    "truediv": "TrueDivide",
    "floordiv": "FloorDivide",
    "mod": "Mod",
    "pow": "Power",
    "matmul": "Matmul",
    "neg": "Negative",
    "abs": "Absolute",
    "getitem": "GetItem",
    "lt": "Less",
    "le": "LessEqual",
    "gt": "Greater",
    "ge": "GreaterEqual",
    "and_": "LogicalAnd",
    "or_": "LogicalOr",
    "xor": "LogicalXor",
    "invert": "LogicalNot",
}
_REFUSED_TAGS = {"__lambda__": "a Python lambda (code)", "__typespec__": "a TensorFlow TypeSpec"}


def importable_operations() -> list[str]:
    """The Keras operation classes tfkit rebuilds in a functional graph (those ``tfkit.ops`` has), sorted."""
    return sorted(name for name in OPERATIONS if _tfkit_function(name) is not None)


def _tfkit_function(class_name: str) -> Callable | None:
    try:
        return op_names.resolve(f"tfkit.ops.{OPERATIONS[class_name][1]}")
    except ValueError:
        return None


# ------------------------------------------------------------------ Keras -> tfkit


def tfkit_entry_from_keras(entry: dict, source: str, where: str) -> dict:
    """A Keras 3 operation entry of a functional config as a ``TFOpLambda`` layer entry calling ``tfkit.ops``."""
    class_name = entry.get("class_name")
    config = entry.get("config") if isinstance(entry.get("config"), dict) else {}
    name = config.get("name") or entry.get("name")
    known = OPERATIONS.get(class_name)
    function = _tfkit_function(class_name) if known else None
    if function is None:
        why = "tfkit.ops has no such function" if known else f"it is not an operation of Keras {KERAS_VERSION}"
        raise ValueError(
            f"{source}: {where} is the Keras operation {str(class_name)[:80]!r} ({str(entry.get('module'))[:80]}), "
            f"which tfkit cannot rebuild ({why}). tfkit rebuilds the {len(importable_operations())} operations "
            f"listed by tfkit.saving.keras_files.operation_nodes.importable_operations(); rebuild this part of "
            f"the model in code and load the weights with load_weights."
        )
    module, path, constructor, call = known
    unknown = sorted(set(config) - {"name", *constructor})
    if unknown:
        raise ValueError(
            f"{source}: {where} ({class_name}) has config entries {unknown}; Keras's {class_name} "
            f"takes {list(constructor)}"
        )
    nodes = entry.get("inbound_nodes") or []
    if not isinstance(nodes, list) or len(nodes) != 1 or not isinstance(nodes[0], dict):
        raise ValueError(
            f"{source}: {where} ({class_name}) must have exactly one inbound node "
            f"{{'args': [...], 'kwargs': {{...}}}}; got {str(nodes)[:200]}"
        )
    values = {key: value for key, value in config.items() if key != "name"}
    values.update(_bind_call(call, nodes[0], source, where, class_name))
    inputs: list[Any] = []
    tagged = {key: _from_keras_value(value, inputs, source, f"{where}.{key}") for key, value in values.items()}
    if class_name == "GetItem" and isinstance(tagged.get("key"), list):
        tagged["key"] = {"__tuple__": tagged["key"]}  # a tuple index, written by Keras as a JSON list
    if not inputs:
        raise ValueError(f"{source}: {where} ({class_name}) is applied to no tensor of the graph")
    args, kwargs = _by_signature(function, tagged)
    return {
        "module": "tfkit.layers",
        "class_name": "TFOpLambda",
        "registered_name": None,
        "name": name,
        "config": {
            "name": name,
            "trainable": True,
            "dtype": "float32",
            "function": f"tfkit.ops.{path}",
            "arguments": {"args": args, "kwargs": kwargs},
        },
        "inbound_nodes": [{"args": [inputs[0] if len(inputs) == 1 else inputs], "kwargs": {}}],
    }


def _bind_call(call: tuple[str, ...], node: dict, source: str, where: str, class_name: str) -> dict[str, Any]:
    """The node's ``args`` and ``kwargs`` by the names of the operation's ``call`` arguments."""
    args, kwargs = node.get("args", []), node.get("kwargs", {})
    if not isinstance(args, list) or not isinstance(kwargs, dict):
        raise ValueError(
            f"{source}: {where} ({class_name}) has an inbound node whose args/kwargs are not a "
            f"list/dict: {str(node)[:200]}"
        )
    bound: dict[str, Any] = {}
    for index, parameter in enumerate(call):
        if parameter.startswith("*"):
            bound[parameter] = list(args[index:])
            break
        if index < len(args):
            bound[parameter] = args[index]
    else:
        if len(args) > len(call):
            raise ValueError(
                f"{source}: {where} ({class_name}) is called with {len(args)} positional arguments; "
                f"Keras's {class_name}.call takes {list(call)}"
            )
    for key, value in kwargs.items():
        if key not in call:
            raise ValueError(
                f"{source}: {where} ({class_name}) is called with argument {key!r}; Keras's "
                f"{class_name}.call takes {list(call)}"
            )
        bound[key] = value
    return bound


def _by_signature(function: Callable, values: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """``(args, kwargs)`` for ``function``: parameters up to a ``*varargs`` positionally, the rest by name."""
    parameters = list(inspect.signature(function).parameters.values())
    variadic = next((i for i, p in enumerate(parameters) if p.kind is p.VAR_POSITIONAL), None)
    if variadic is None:
        return [], {key.lstrip("*"): value for key, value in values.items()}
    args: list[Any] = []
    for parameter in parameters[:variadic]:
        if parameter.name in values:
            args.append(values.pop(parameter.name))
    args.extend(values.pop(f"*{parameters[variadic].name}", []))
    return args, values


def _from_keras_value(value: Any, inputs: list[Any], source: str, where: str) -> Any:
    """A Keras-serialized argument in ``op_arguments``' tags; tensor references become ``__input__`` slots."""
    if isinstance(value, list):
        return [_from_keras_value(item, inputs, source, where) for item in value]
    if not isinstance(value, dict):
        return value
    if "__tensor__" in value:  # a graph tensor (the caller rewrote __keras_tensor__)
        if value not in inputs:
            inputs.append(value)
        return {"__input__": inputs.index(value)}
    tag = value.get("class_name")
    inner = value.get("config")
    if tag in _REFUSED_TAGS:
        raise ValueError(f"{source}: {where} holds {_REFUSED_TAGS[tag]}; tfkit never loads code from a file")
    if tag == "__slice__" and isinstance(inner, dict):
        return {
            "__slice__": [_from_keras_value(inner.get(k), inputs, source, where) for k in ("start", "stop", "step")]
        }
    if tag == "__ellipsis__":
        return {"__ellipsis__": True}
    if tag in ("__numpy__", "__tensor__") and isinstance(inner, dict):
        return {"__array__": inner.get("value"), "dtype": inner.get("dtype")}
    if tag == "__bytes__" and isinstance(inner, dict):
        return inner.get("value")
    if isinstance(tag, str) and tag.startswith("__") and "config" in value:
        raise ValueError(f"{source}: {where} holds a Keras value of class {tag[:40]!r}, which tfkit does not read")
    return {"__dict__": {str(k): _from_keras_value(v, inputs, source, where) for k, v in value.items()}}


# ------------------------------------------------------------------ tfkit -> Keras


def _class_by_function() -> dict[int, str]:
    found: dict[int, str] = {}
    for class_name in sorted(OPERATIONS, key=lambda name: (len(OPERATIONS[name][1]), name)):
        function = _tfkit_function(class_name)
        if function is not None:
            found.setdefault(id(function), class_name)
    return found


_BY_FUNCTION: dict[int, str] | None = None


def keras_class_for(function_name: str) -> str | None:
    """The Keras operation class for a ``TFOpLambda``'s stored function name, or ``None`` if Keras has none."""
    global _BY_FUNCTION
    if function_name.startswith("__operators__."):
        return OPERATOR_CLASSES.get(function_name.split(".", 1)[1])
    if not function_name.startswith(("tfkit.ops.", "tfkit.activations.")):
        return None
    if _BY_FUNCTION is None:
        _BY_FUNCTION = _class_by_function()
    try:
        function = op_names.resolve(function_name)
    except ValueError:
        return None
    found = _BY_FUNCTION.get(id(function))
    if found is None and function_name.startswith("tfkit.activations."):  # relu -> tfkit.ops.relu's class
        leaf = function_name.rpartition(".")[2]
        found = next((c for c, entry in sorted(OPERATIONS.items()) if entry[1] == leaf and _tfkit_function(c)), None)
    return found


def keras_entry_from_tfkit(entry: dict, where: str) -> dict:
    """A tfkit ``TFOpLambda`` layer entry as Keras 3's operation entry (tensor references left as tfkit's)."""
    config = entry.get("config") or {}
    function_name = config.get("function")
    name = config.get("name") or entry.get("name")
    class_name = keras_class_for(function_name) if isinstance(function_name, str) else None
    if class_name is None:
        raise ValueError(
            f"Layer '{where}' applies {function_name!r} to symbolic tensors; Keras's .keras format names only "
            f"Keras operations, and this one has none. Use the tfkit.ops function of the same meaning (tfkit.ops."
            f"relu for tf.nn.relu, ...) when building the model, or save it as .h5 (tfkit's own format)."
        )
    module, _, constructor, call = OPERATIONS[class_name]
    nodes = entry.get("inbound_nodes") or []
    if len(nodes) != 1:
        raise ValueError(
            f"Layer '{where}' ({function_name}) is called {len(nodes)} times; Keras stores an "
            f"operation with exactly one call"
        )
    tensors = _node_tensors(nodes[0])
    arguments = config.get("arguments") or {"args": [{"__input__": 0}], "kwargs": {}}
    bound = _bind_recorded(function_name, class_name, call, arguments, where)
    unknown = sorted(set(bound) - {*constructor, *(p.lstrip("*") for p in call)})
    if unknown:
        raise ValueError(
            f"Layer '{where}' ({function_name}) has arguments {unknown} that Keras's {class_name} "
            f"does not take (constructor {list(constructor)}, call {list(call)})"
        )
    keras_config = {"name": name}
    defaults = _defaults(function_name)
    for key in constructor:
        if key in bound:
            keras_config[key] = _to_keras_value(bound[key], tensors, where, constant=True)
        elif isinstance(defaults.get(key), (bool, int, float, str)):  # tfkit's default, not a Keras one
            keras_config[key] = defaults[key]
    args: list[Any] = []
    for parameter in call:
        key = parameter.lstrip("*")
        if key not in bound:
            break
        value = _to_keras_value(bound[key], tensors, where)
        if parameter.startswith("*"):
            args.extend(value)
        else:
            args.append(value)
    return {
        "module": module,
        "class_name": class_name,
        "config": keras_config,
        "registered_name": class_name,
        "name": name,
        "inbound_nodes": [{"args": args, "kwargs": {}}],
    }


def _defaults(function_name: str) -> dict[str, Any]:
    if function_name.startswith("__operators__."):
        return {}
    parameters = inspect.signature(op_names.resolve(function_name)).parameters.values()
    return {p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty}


def _node_tensors(node: Any) -> list[Any]:
    """The tensor references a ``TFOpLambda`` node is called on, in ``__input__`` order."""
    args = node.get("args", []) if isinstance(node, dict) else []
    first = args[0] if args else []
    return list(first) if isinstance(first, list) else [first]


def _bind_recorded(
    function_name: str, class_name: str, call: tuple[str, ...], arguments: dict, where: str
) -> dict[str, Any]:
    """The recorded arguments by parameter name: of the tfkit function, or of Keras's ``call`` for operators."""
    args, kwargs = list(arguments.get("args", [])), dict(arguments.get("kwargs", {}))
    if function_name.startswith("__operators__."):
        names = [p.lstrip("*") for p in call]
        if len(args) > len(names) or kwargs:
            raise ValueError(f"Layer '{where}' ({function_name}) has arguments Keras's {class_name} cannot take")
        return dict(zip(names, args))
    function = op_names.resolve(function_name)
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except TypeError as error:
        raise ValueError(
            f"Layer '{where}' ({function_name}): its stored arguments do not fit the function ({error})"
        ) from None
    values: dict[str, Any] = {}
    for parameter_name, value in bound.arguments.items():
        kind = inspect.signature(function).parameters[parameter_name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            values.update(value)
        else:
            values[parameter_name] = list(value) if kind is inspect.Parameter.VAR_POSITIONAL else value
    return values


def _to_keras_value(value: Any, tensors: list[Any], where: str, constant: bool = False) -> Any:
    """tfkit's tagged argument as Keras serializes it; ``__input__`` slots become the node's tensor references."""
    if isinstance(value, list):
        return [_to_keras_value(item, tensors, where, constant) for item in value]
    if not isinstance(value, dict):
        return value
    if "__input__" in value:
        if constant:
            raise ValueError(
                f"Layer '{where}': Keras stores this argument in the operation's config, where a tensor cannot go"
            )
        return tensors[value["__input__"]]
    if "__tuple__" in value:
        return [_to_keras_value(item, tensors, where, constant) for item in value["__tuple__"]]
    if "__dict__" in value:
        return {key: _to_keras_value(item, tensors, where, constant) for key, item in value["__dict__"].items()}
    if "__dtype__" in value:
        return value["__dtype__"]
    if "__slice__" in value and not constant:
        start, stop, step = (_to_keras_value(part, tensors, where) for part in value["__slice__"])
        return {"class_name": "__slice__", "config": {"start": start, "stop": stop, "step": step}}
    if "__ellipsis__" in value and not constant:
        return {"class_name": "__ellipsis__", "config": {}}
    if "__array__" in value and not constant:
        return {"class_name": "__numpy__", "config": {"value": value["__array__"], "dtype": value.get("dtype")}}
    raise ValueError(
        f"Layer '{where}': an argument {str(value)[:80]} cannot be written in Keras's operation config "
        f"(plain numbers, strings and lists only)"
    )
