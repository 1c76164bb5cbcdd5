"""Which stored array goes into which tfkit variable, in Keras 3's and tf-keras's weight layouts.

    pairs = keras3_pairs(model, snapshot.tables, source)     # layers/<name>/vars/<i>
    pairs = legacy_pairs(model, table, source, order)        # <layer>/<layer>/<weight>:0, by name, else
                                                             # by layer order as Keras 3 (order: the file's
                                                             # layer_names / weight_names, read on demand)
    weights_io.assign(pairs)                                 # all or nothing

Keras 3 stores each layer's own variables as ``layers/<key>/vars/0, 1, ...``
(trainable ones first, then the others, each in creation order), where a
model's layers are keyed by class in layer order (``dense``, ``dense_1``,
whatever their names), a sub-layer's under its attribute name
(``layers/mha/query/vars/0``, ``layers/grouped_query_attention/_query_dense/vars/0``),
a list of sub-layers under its attribute name and their keys
(``layers/block/extra/dense_1/vars/0``, ``layers/rnn/cell/cells/lstm_cell``)
and a nested model's layers under its key (``layers/sequential/layers/conv2d/vars/0``).
A subclassed model (neither Functional nor Sequential) keeps its own variables
in ``vars/`` and its layers under their attribute names at the top
(``hidden/vars/0``), those it holds otherwise under ``layers/<key>``; a layer
reached twice is stored once.
A lookup layer in ``output_mode="tf_idf"`` (and a TextVectorization) stores its
idf weights by name, ``layers/<key>/vars/idf_weights`` (TextVectorization a
second copy under ``<key>/_lookup_layer``); they go to the layer's (or its
``lookup``'s) ``idf_weights``. tf-keras stores ``<layer name>/<layer name>/<weight name>:0``. Every
variable of the model must get exactly one array of its shape; anything
else is one ``ValueError`` listing every problem, and nothing is assigned.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base import variable_roles
from tfkit.engine.layer import Layer
from tfkit.engine.naming import to_snake_case
from tfkit.saving import weights_io
from tfkit.saving.h5_snapshot import SnapshotDataset
from tfkit.saving.model_kinds import is_graph_model, is_model

_INDEX = re.compile(r"\d+")
_IDF = "idf_weights"  # Keras 3's IndexLookup.save_own_variables: the one variable it stores by name
_NOT_LAYERS = ("optimizer",)  # top-level groups of a Keras 3 weights file that hold no layer
# tf-keras's names for a variable that Keras 3 and tfkit name differently: DepthwiseConv2D's kernel
# (Keras's ImageNet files for MobileNet, MobileNetV2 and EfficientNet store ``depthwise_kernel:0``)
_TF_KERAS_NAMES = {"kernel": "depthwise_kernel"}


def _own_variables(layer: Any) -> list[tf.Variable]:
    """A layer's own variables in Keras's order: trainable first, each group in creation order. Like Keras,
    a variable of another layer held in an attribute counts too (``SpectralNormalization.kernel``)."""
    own = layer._own_weights()
    ids = {id(v) for v in own}
    own += [
        v
        for name, v in vars(layer).items()
        if isinstance(v, tf.Variable) and id(v) not in ids and not name.startswith("_tfkit_")
    ]
    return [v for v in own if v.trainable] + [v for v in own if not v.trainable]


def _keras_order(name: str) -> str:
    return f"~{name}" if name.startswith("_") else name  # Keras visits private attributes last


def _holds_layers(value: Any) -> bool:
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return any(
        isinstance(item, Layer) or isinstance(item, (list, tuple, dict)) and _holds_layers(item) for item in items
    )


def _children(layer: Any) -> list[tuple[str, Any]]:
    """Sub-layers and containers (lists, tuples, dicts) of sub-layers by attribute name, in Keras's walking order:
    names sorted, private ones (``GroupQueryAttention``'s ``_query_dense``) last. A model that is neither
    Functional nor Sequential also has its ``layers``, where Keras finds the sub-layers it did not reach by name."""
    found = {
        name: value
        for name, value in vars(layer).items()
        if not name.startswith(("__", "_tfkit_"))
        and (isinstance(value, Layer) or not name.startswith("_self_") and _holds_layers(value))
    }
    if is_model(layer) and not is_graph_model(layer):
        found["layers"] = list(layer.layers)
    return sorted(found.items(), key=lambda item: _keras_order(item[0]))


def _top_layers(model: Any) -> list[Any]:
    return list(getattr(model, "layers", []) or [])


def _lora_layout(layer: Any) -> tuple[list[tf.Variable], list[tf.Variable]]:
    """(variables the file stores, variables to zero). Keras saves a LoRA layer's kernel with the low-rank product
    merged in (``vars/0`` the kernel, ``vars/1`` the bias) and no factors; loading zeroes the factors."""
    quantized = getattr(layer, "quantization_mode", None)
    if not getattr(layer, "lora_enabled", False):
        return _quantized_order(layer) if quantized else _own_variables(layer), []
    target = layer._lora_target
    factors = [getattr(layer, f"lora_{target}_a"), getattr(layer, f"lora_{target}_b")]
    ordered = _quantized_order(layer) if quantized else layer._own_weights()
    return [v for v in ordered if all(v is not f for f in factors)], factors


def _quantized_order(layer: Any) -> list[tf.Variable]:
    """A quantized layer's variables as Keras stores them: the quantized weight, the others (bias), then its
    scale (and, for int4 groups, zero point and g_idx)."""
    target = layer._quantized_target

    def present(names: Any) -> list[tf.Variable]:
        return [getattr(layer, name) for name in names if getattr(layer, name, None) is not None]

    quantized = present((target, f"{target}_scale", f"{target}_zero", "g_idx"))
    trailing = present(getattr(layer, "_quantized_trailing", ()))  # a second quantized weight (an untied head)
    rest = [v for v in _own_variables(layer) if all(v is not q for q in quantized + trailing)]
    return [quantized[0], *rest, *quantized[1:], *trailing]


def _zeros_like(variable: tf.Variable) -> Any:
    zeros = np.zeros(tuple(variable.shape), variable.dtype.as_numpy_dtype)
    return SnapshotDataset(zeros.shape, zeros.dtype, variable.dtype.name, zeros)


def idf_variable(layer: Any) -> tf.Variable | None:
    """The ``idf_weights`` variable of a tf_idf lookup layer, or of a TextVectorization's lookup; else None."""
    for holder in (layer, getattr(layer, "lookup", None)):
        variable = getattr(holder, _IDF, None) if holder is not None else None
        if isinstance(variable, tf.Variable):
            return variable
    return None


def keras3_paths(model: Any, skip: Sequence[Any] = ()) -> list[tuple[str, Any]]:
    """``(path, layer)`` for ``model`` and every layer in it, by the path Keras 3's saving walk gives it (the
    ``<path>`` of ``<path>/vars/<i>``; the model itself is ``""``).

    A Functional or Sequential model's layers are ``layers/<key>``, keyed by class in layer order (``dense``,
    ``dense_1``); any other layer's sub-layers are under their attribute names (``mha/query``), a list of them
    under ``<attribute>/<key>``. As in Keras, a layer reached twice is stored once, under its first path.
    The layers in ``skip`` are left out (and what is reached only through them), as Keras's
    ``objects_to_skip`` leaves them out: they still count for the keys of the layers beside them."""
    found: list[tuple[str, Any]] = []
    seen: set[int] = {id(layer) for layer in skip}

    def join(prefix: str, name: str) -> str:
        return f"{prefix}/{name}" if prefix else name

    def visit(layer: Any, path: str) -> None:
        if id(layer) in seen:
            return
        seen.add(id(layer))
        found.append((path, layer))
        if is_graph_model(layer):
            visit_container(_top_layers(layer), join(path, "layers"))
            return
        for name, child in _children(layer):
            if isinstance(child, Layer):
                visit(child, join(path, name))
            else:
                visit_container(child, join(path, name))

    def visit_container(container: Any, path: str) -> None:
        counts: dict[str, int] = {}
        for item in container.values() if isinstance(container, dict) else container:
            if isinstance(item, Layer):
                base = to_snake_case(type(item).__name__)
            elif isinstance(item, (list, tuple, dict)):
                base = "container"
            else:
                continue
            count = counts.get(base, 0)
            counts[base] = count + 1
            key = join(path, base if count == 0 else f"{base}_{count}")
            visit(item, key) if isinstance(item, Layer) else visit_container(item, key)

    visit(model, "")
    return found


def keras3_layer_paths(model: Any) -> list[tuple[str, Any]]:
    """``(path, layer)`` for the layers :func:`keras3_paths` puts under ``layers/``, the path without it
    (``dense_1``, ``mha/query``): the ``<path>`` of ``layers/<path>/vars/<i>`` and of ``assets/layers/<path>/``."""
    return [(path[len("layers/") :], layer) for path, layer in keras3_paths(model) if path.startswith("layers/")]


def _keras3_table(tables: dict[str, dict[str, Any]], source: str) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """The file's variables by object path (``layers/dense`` -> ``{"0": ..., "1": ...}``; the root model's are
    under ``""``) and its idf weights by path. The optimizer's group is read elsewhere."""
    by_path: dict[str, dict[str, Any]] = {}
    named: dict[str, Any] = {}  # object path -> its stored idf_weights
    for group, entries in tables.items():
        if group in _NOT_LAYERS:
            continue
        for path, dataset in entries.items():
            full = f"{group}/{path}"
            head, _, index = ("/" + full).rpartition("/vars/")
            head = head[1:]
            if index == _IDF and head:
                named[head] = dataset
            elif "/" in index or not _INDEX.fullmatch(index):
                raise ValueError(
                    f"{source}: {full} is not a layer variable (<path>/vars/<index> or <path>/vars/{_IDF})"
                )
            else:
                by_path.setdefault(head, {})[index] = dataset
    return by_path, named


def stored_variables(layer: Any) -> list[tf.Variable]:
    """The variables a Keras 3 weights file stores under ``layer``'s own path: its ``vars`` (a LoRA layer's
    merged kernel, not its factors), then its idf weights if it has them."""
    own, _ = _lora_layout(layer)
    idf = idf_variable(layer)
    return own + ([idf] if idf is not None else [])


def keras3_variables(model: Any, skip: Sequence[Any] = ()) -> list[tf.Variable]:
    """Every variable a Keras 3 weights file of ``model`` stores (its layers' own variables and idf weights):
    what the shards of a sharded file must cover between them."""
    found: list[tf.Variable] = []
    seen: set[int] = set()
    for _, layer in keras3_paths(model, skip):
        for variable in stored_variables(layer):
            if id(variable) not in seen:
                seen.add(id(variable))
                found.append(variable)
    return found


def keras3_pairs(
    model: Any,
    tables: dict[str, dict[str, Any]],
    source: str,
    skip_mismatch: bool = False,
    skip: Sequence[Any] = (),
    partial: bool = False,
) -> list[tuple[Any, Any, str]]:
    """``(variable, dataset, where)`` for every variable of ``model`` from a Keras 3 weights file.

    ``tables`` maps the file's top-level groups (``layers``, ``vars``; a subclassed model's attribute names)
    to their datasets by path. A mismatch is one ``ValueError`` listing every problem; with ``skip_mismatch``,
    a warning listing them, and the pairs of the layers that fit whole (as Keras skips a layer that does not).
    The layers in ``skip`` (a task's backbone) are neither paired nor expected in the file (``keras3_paths``).
    ``partial``: ``tables`` is one shard of a sharded file, so layers it does not mention are not missing (the
    caller checks that the shards cover ``keras3_variables``)."""
    by_path, named = _keras3_table(tables, source)
    pairs: list[tuple[Any, Any, str]] = []
    problems: list[str] = []
    mismatched: set[str] = set()  # layer paths with a problem: skip_mismatch leaves the whole layer as it is
    used: set[str] = set()
    paths = keras3_paths(model, skip)
    idf_ids = {id(v) for v in (idf_variable(layer) for _, layer in paths) if v is not None}
    idf_seen: set[int] = set()  # idf variables paired or reported (a TextVectorization's is its lookup's too)
    for prefix, layer in paths:
        vars_path = f"{prefix}/vars" if prefix else "vars"
        idf = idf_variable(layer)
        if prefix in named:
            used.add(prefix)
            idf_seen.add(id(idf))
            where = f"{vars_path}/{_IDF}"
            problem = (
                weights_io.problem(idf, named[prefix])
                if idf is not None
                else f"layer '{layer.name}' ({type(layer).__name__}) has no idf_weights (is it in "
                f"output_mode='tf_idf' with a vocabulary?)"
            )
            if problem:
                problems.append(f"{where}: {problem}")
                mismatched.add(prefix)
            else:
                pairs.append((idf, named[prefix], where))
        elif idf is not None and id(idf) not in idf_seen and not partial:
            idf_seen.add(id(idf))
            problems.append(f"{vars_path}/{_IDF}: missing (layer '{layer.name}' has idf_weights)")
        stored = by_path.get(prefix, {})
        if partial and not stored:
            continue  # in another shard
        own, zeroed = _lora_layout(layer)
        own = [v for v in own if id(v) not in idf_ids]  # stored by name, paired above
        pairs += [
            (factor, _zeros_like(factor), f"{prefix}: LoRA factor zeroed, as Keras loads it") for factor in zeroed
        ]
        if not own and not stored:
            continue
        used.add(prefix)
        if len(stored) != len(own):
            problems.append(
                f"{prefix or '/'}: the file has {len(stored)} variables, layer "
                f"'{layer.name}' ({type(layer).__name__}) has {len(own)}"
            )
            mismatched.add(prefix)
            continue
        for index, variable in enumerate(own):
            dataset = stored.get(str(index))
            where = f"{vars_path}/{index}"
            problem = "missing" if dataset is None else weights_io.problem(variable, dataset)
            if problem:
                problems.append(f"{where} -> {layer.name}/{variable_roles.short_name(variable)}: {problem}")
                mismatched.add(prefix)
            else:
                pairs.append((variable, dataset, where))
    for prefix in named:  # Keras's second copy, under a TextVectorization's _lookup_layer: the weights paired above
        parent = prefix.rpartition("/")[0]
        if prefix not in used and prefix.endswith("/_lookup_layer") and parent in used and parent in named:
            used.add(prefix)
    unused = sorted(prefix or "vars" for prefix in {**by_path, **named} if prefix not in used)
    if unused:
        problems.append(f"stored for layers this model does not have: {', '.join(unused[:20])}")
    _raise(problems, source, model, skip_mismatch)
    vars_paths = tuple(f"{prefix}/vars/" if prefix else "vars/" for prefix in mismatched)
    return [pair for pair in pairs if not pair[2].startswith(vars_paths)]


def legacy_pairs(
    model: Any,
    table: dict[str, Any],
    source: str,
    order: Callable[[], tuple[list[str], dict[str, list[str]]]] | None = None,
) -> list[tuple[Any, Any, str]]:
    """``(variable, dataset, where)`` from a tf-keras file's ``<layer>/<layer>/<weight>:0`` table.

    Layers pair by name. When that leaves layers unmatched (Keras's ImageNet files for MobileNetV3 name them
    ``Conv``, ``Conv/BatchNorm``, where the model has ``conv``, ``conv_bn``) and ``order`` is given (it returns
    the file's ``layer_names`` and each layer's ``weight_names``), they pair by order as Keras 3's legacy loader
    does (``legacy_order_pairs``); if that does not fit either, the error lists both.
    """
    stored: dict[str, dict[str, Any]] = {}
    for path, dataset in table.items():
        layer_name, _, rest = path.partition("/")
        stored.setdefault(layer_name, {})[rest] = dataset
    pairs: list[tuple[Any, Any, str]] = []
    problems: list[str] = []
    seen: set[str] = set()
    unmatched = False
    for layer in _top_layers(model):
        variables = [v for v in layer.weights]
        entries = stored.get(layer.name, {})
        if not variables and not entries:
            continue
        unmatched |= layer.name not in stored
        seen.add(layer.name)
        by_name: dict[str, list[tuple[str, Any]]] = {}
        for rest, dataset in entries.items():
            by_name.setdefault(rest.rsplit("/", 1)[-1].split(":")[0], []).append((rest, dataset))
        if len(entries) != len(variables):
            problems.append(
                f"{layer.name}: the file has {len(entries)} weights, layer '{layer.name}' "
                f"({type(layer).__name__}) has {len(variables)}"
            )
            continue
        for variable in variables:
            name = variable_roles.short_name(variable, variable.name.split("/")[-1].split(":")[0])
            candidates = by_name.get(name) or by_name.get(_TF_KERAS_NAMES.get(name, ""), [])
            if len(candidates) != 1:
                problems.append(f"{layer.name}/{name}: {len(candidates)} stored weights are named {name!r}")
                continue
            rest, dataset = candidates[0]
            problem = weights_io.problem(variable, dataset)
            where = f"{layer.name}/{rest}"
            if problem:
                problems.append(f"{where}: {problem}")
            else:
                pairs.append((variable, dataset, where))
    unused = sorted(name for name in stored if name not in seen)
    if unused:
        problems.append(f"stored for layers this model does not have: {', '.join(unused[:20])}")
    if problems and (unmatched or unused) and order is not None:
        try:
            layer_names, weight_names = order()
        except ValueError as error:
            problems.insert(0, f"pairing by layer order, as Keras does, was not possible: {error}")
        else:
            by_order, mismatch = legacy_order_pairs(model, table, layer_names, weight_names)
            if mismatch is None:
                return by_order
            problems.insert(
                0,
                f"by layer order (Keras's rule for tf-keras files; by name, below, they do not pair "
                f"either): {mismatch}",
            )
    _raise(problems, source, model)
    return pairs


def _legacy_weights(layer: Any) -> list[tf.Variable]:
    """A layer's weights in the order tf-keras files store them (Keras 3's ``_legacy_weights``): trainable, then
    non-trainable."""
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def legacy_order_pairs(
    model: Any, table: dict[str, Any], layer_names: list[str], weight_names: dict[str, list[str]]
) -> tuple[list[tuple[Any, Any, str]], str | None]:
    """``(pairs, None)``, or ``([], the first mismatch)``, pairing as Keras 3's ``load_weights_from_hdf5_group``
    (by_name=False): the file's layers that list weights, in ``layer_names`` order, with the model's layers that
    have weights, in order; each layer's ``weight_names``, in order, with its trainable then non-trainable
    weights. The layer counts, each layer's weight count and every shape (and dtype) must agree."""
    stored = [(name, weight_names.get(name) or []) for name in layer_names]
    stored = [(name, names) for name, names in stored if names]
    layers = [(layer, _legacy_weights(layer)) for layer in _top_layers(model)]
    layers = [(layer, variables) for layer, variables in layers if variables]
    if len(stored) != len(layers):
        return [], (f"the file has {len(stored)} layers with weights, model '{model.name}' has {len(layers)}")
    if any(key.startswith("top_level_model_weights/") for key in table):
        return [], "the file stores top_level_model_weights, which tfkit does not load"
    pairs: list[tuple[Any, Any, str]] = []
    for k, ((name, names), (layer, variables)) in enumerate(zip(stored, layers)):
        here = f"layer #{k} ('{name}' in the file, '{layer.name}' ({type(layer).__name__}) in the model)"
        if len(names) != len(variables):
            return [], f"{here}: the file has {len(names)} weights, the layer {len(variables)}"
        for weight_name, variable in zip(names, variables):
            where = f"{name}/{weight_name}"
            dataset = table.get(where)
            if dataset is None:
                return [], f"{here}: {where} is listed in weight_names but not stored"
            problem = weights_io.problem(variable, dataset)
            if problem:
                return [], f"{here}: {where} -> {layer.name}/{variable_roles.short_name(variable)}: {problem}"
            pairs.append((variable, dataset, where))
    return pairs, None


def _raise(problems: list[str], source: str, model: Any, skip_mismatch: bool = False) -> None:
    if problems:
        shown = "\n  ".join(problems[:25]) + (f"\n  ... and {len(problems) - 25} more" if len(problems) > 25 else "")
        if skip_mismatch:
            warnings.warn(
                f"{source}: these Keras weights do not fit model '{model.name}' and were skipped "
                f"(skip_mismatch=True):\n  {shown}",
                stacklevel=4,
            )
            return
        raise ValueError(
            f"{source}: the Keras weights do not fit model '{model.name}'; nothing was loaded:\n  {shown}"
            f"\nPass skip_mismatch=True to load only the weights that fit."
        )
