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
(``layers/mha/query/vars/0``, ``layers/grouped_query_attention/_query_dense/vars/0``)
and a nested model's layers under its key (``layers/sequential/layers/conv2d/vars/0``).
A lookup layer in ``output_mode="tf_idf"`` (and a TextVectorization) stores its
idf weights by name, ``layers/<key>/vars/idf_weights`` (TextVectorization a
second copy under ``<key>/_lookup_layer``); they go to the layer's (or its
``lookup``'s) ``idf_weights``. tf-keras stores ``<layer name>/<layer name>/<weight name>:0``. Every
variable of the model must get exactly one array of its shape; anything
else is one ``ValueError`` listing every problem, and nothing is assigned.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np
import tensorflow as tf

from tfkit.base import variable_roles
from tfkit.engine.layer import Layer
from tfkit.engine.naming import to_snake_case
from tfkit.saving import weights_io
from tfkit.saving.h5_snapshot import SnapshotDataset

_INDEX = re.compile(r"\d+")
_IDF = "idf_weights"   # Keras 3's IndexLookup.save_own_variables: the one variable it stores by name
# tf-keras's names for a variable that Keras 3 and tfkit name differently: DepthwiseConv2D's kernel
# (Keras's ImageNet files for MobileNet, MobileNetV2 and EfficientNet store ``depthwise_kernel:0``)
_TF_KERAS_NAMES = {"kernel": "depthwise_kernel"}


def _own_variables(layer: Any) -> list[tf.Variable]:
    """A layer's own variables in Keras's order: trainable first, each group in creation order. Like Keras,
    a variable of another layer held in an attribute counts too (``SpectralNormalization.kernel``)."""
    own = layer._own_weights()
    ids = {id(v) for v in own}
    own += [v for name, v in vars(layer).items()
            if isinstance(v, tf.Variable) and id(v) not in ids and not name.startswith(("_self_", "_tfkit_"))]
    return [v for v in own if v.trainable] + [v for v in own if not v.trainable]


def _children(layer: Any) -> dict[str, Any]:
    """Sub-layers by attribute name, in Keras's walking order: public names first, then private ones
    (``GroupQueryAttention``'s ``_query_dense``: Keras stores them under that name too)."""
    found = {name: value for name, value in vars(layer).items()
             if isinstance(value, Layer) and not name.startswith(("__", "_self_", "_tfkit_"))}
    return dict(sorted(found.items(), key=lambda item: f"~{item[0]}" if item[0].startswith("_") else item[0]))


def _top_layers(model: Any) -> list[Any]:
    return list(getattr(model, "layers", []) or [])


def _lora_layout(layer: Any) -> tuple[list[tf.Variable], list[tf.Variable]]:
    """(variables the file stores, variables to zero). Keras saves a LoRA layer's kernel with the low-rank product
    merged in (``vars/0`` the kernel, ``vars/1`` the bias) and no factors; loading zeroes the factors."""
    if not getattr(layer, "lora_enabled", False):
        return _quantized_order(layer) if getattr(layer, "quantization_mode", None) else _own_variables(layer), []
    target = layer._lora_target
    factors = [getattr(layer, f"lora_{target}_a"), getattr(layer, f"lora_{target}_b")]
    return [v for v in layer._own_weights() if all(v is not f for f in factors)], factors


def _quantized_order(layer: Any) -> list[tf.Variable]:
    """A quantized layer's variables as Keras stores them: the quantized weight, the others (bias), then its
    scale (and, for int4 groups, zero point and g_idx)."""
    target = layer._quantized_target
    quantized = [getattr(layer, name) for name in (target, f"{target}_scale", f"{target}_zero", "g_idx")
                 if getattr(layer, name, None) is not None]
    rest = [v for v in _own_variables(layer) if all(v is not q for q in quantized)]
    return [quantized[0], *rest, *quantized[1:]]


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


def keras3_layer_paths(model: Any) -> list[tuple[str, Any]]:
    """``(path, layer)`` for every layer of ``model`` and its sub-layers, by Keras 3's names (``dense_1``,
    ``mha/query``): the ``<path>`` of ``layers/<path>/vars/<i>`` and of ``assets/layers/<path>/``."""
    found: list[tuple[str, Any]] = []

    def visit(layer: Any, prefix: str) -> None:
        found.append((prefix, layer))
        for name, child in _children(layer).items():
            visit(child, f"{prefix}/{name}")
        if layer is not model and getattr(layer, "layers", None):   # a nested model: layers/<key>/layers/<key>
            visit_layers(layer, f"{prefix}/layers/")

    def visit_layers(container: Any, prefix: str) -> None:
        counts: dict[str, int] = {}
        for layer in _top_layers(container):
            base = to_snake_case(type(layer).__name__)
            count = counts.get(base, 0)
            counts[base] = count + 1
            visit(layer, prefix + (base if count == 0 else f"{base}_{count}"))

    visit_layers(model, "")
    return found


def keras3_pairs(model: Any, tables: dict[str, dict[str, Any]], source: str) -> list[tuple[Any, Any, str]]:
    """``(variable, dataset, where)`` for every variable of ``model`` from a Keras 3 weights file."""
    table = tables.get("layers", {})
    by_prefix: dict[str, dict[str, Any]] = {}
    named: dict[str, Any] = {}     # layer path -> its stored idf_weights
    for path, dataset in table.items():
        head, _, index = path.rpartition("/vars/")
        if head and index == _IDF:
            named[head] = dataset
            continue
        if not head or not _INDEX.fullmatch(index):
            raise ValueError(f"{source}: layers/{path} is not a layer variable (layers/<name>/vars/<index> or "
                             f"layers/<name>/vars/{_IDF})")
        by_prefix.setdefault(head, {})[index] = dataset
    pairs: list[tuple[Any, Any, str]] = []
    problems: list[str] = []
    used: set[str] = set()
    paths = keras3_layer_paths(model)
    idf_ids = {id(v) for v in (idf_variable(layer) for _, layer in paths) if v is not None}
    idf_seen: set[int] = set()     # idf variables paired or reported (a TextVectorization's is its lookup's too)
    for prefix, layer in paths:
        idf = idf_variable(layer)
        if prefix in named:
            used.add(prefix)
            idf_seen.add(id(idf))
            where = f"layers/{prefix}/vars/{_IDF}"
            problem = (weights_io.problem(idf, named[prefix]) if idf is not None else
                       f"layer '{layer.name}' ({type(layer).__name__}) has no idf_weights (is it in "
                       f"output_mode='tf_idf' with a vocabulary?)")
            if problem:
                problems.append(f"{where}: {problem}")
            else:
                pairs.append((idf, named[prefix], where))
        elif idf is not None and id(idf) not in idf_seen:
            idf_seen.add(id(idf))
            problems.append(f"layers/{prefix}/vars/{_IDF}: missing (layer '{layer.name}' has idf_weights)")
        stored = by_prefix.get(prefix, {})
        own, zeroed = _lora_layout(layer)
        own = [v for v in own if id(v) not in idf_ids]   # stored by name, paired above
        pairs += [(factor, _zeros_like(factor), f"layers/{prefix}: LoRA factor zeroed, as Keras loads it")
                  for factor in zeroed]
        if not own and not stored:
            continue
        used.add(prefix)
        if len(stored) != len(own):
            problems.append(f"layers/{prefix}: the file has {len(stored)} variables, layer "
                            f"'{layer.name}' ({type(layer).__name__}) has {len(own)}")
            continue
        for index, variable in enumerate(own):
            dataset = stored.get(str(index))
            where = f"layers/{prefix}/vars/{index}"
            if dataset is None:
                problems.append(f"{where}: missing")
                continue
            problem = weights_io.problem(variable, dataset)
            if problem:
                problems.append(f"{where} -> {layer.name}/{variable_roles.short_name(variable)}: {problem}")
            else:
                pairs.append((variable, dataset, where))
    for prefix in named:   # Keras's second copy, under a TextVectorization's _lookup_layer: the weights paired above
        parent = prefix.rpartition("/")[0]
        if prefix not in used and prefix.endswith("/_lookup_layer") and parent in used and parent in named:
            used.add(prefix)
    unused = sorted(f"layers/{prefix}" for prefix in {**by_prefix, **named} if prefix not in used)
    if unused:
        problems.append(f"stored for layers this model does not have: {', '.join(unused[:20])}")
    _raise(problems, source, model)
    return pairs


def legacy_pairs(model: Any, table: dict[str, Any], source: str,
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
            problems.append(f"{layer.name}: the file has {len(entries)} weights, layer '{layer.name}' "
                            f"({type(layer).__name__}) has {len(variables)}")
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
            problems.insert(0, f"by layer order (Keras's rule for tf-keras files; by name, below, they do not pair "
                                f"either): {mismatch}")
    _raise(problems, source, model)
    return pairs


def _legacy_weights(layer: Any) -> list[tf.Variable]:
    """A layer's weights in the order tf-keras files store them (Keras 3's ``_legacy_weights``): trainable, then
    non-trainable."""
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def legacy_order_pairs(model: Any, table: dict[str, Any], layer_names: list[str],
                       weight_names: dict[str, list[str]]) -> tuple[list[tuple[Any, Any, str]], str | None]:
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


def _raise(problems: list[str], source: str, model: Any) -> None:
    if problems:
        shown = "\n  ".join(problems[:25]) + (f"\n  ... and {len(problems) - 25} more" if len(problems) > 25 else "")
        raise ValueError(f"{source}: the Keras weights do not fit model '{model.name}'; nothing was loaded:\n  {shown}")
