"""A tfkit model's weights in Keras 3's layout: the ``model.weights.h5`` of a ``.keras`` archive, and ``.weights.h5``.

    with h5_writer.create(tmp) as f:
        write_keras_weights(f, model, include_optimizer=True)

Keras 3's layout (``weights_layout`` reads it; this writes it, through the
same ``keras3_paths``): ``<path>/vars/<i>`` for the model itself (``vars/<i>``)
and every layer in it (``layers/<key>/vars/<i>``, a sub-layer under its
attribute, ``layers/<key>/<attribute>/vars/<i>``): its own variables, trainable
first, each group in creation order; a LoRA layer's kernel with the low-rank
product merged in and its factors left out, as Keras saves it. A lookup layer
in ``tf_idf`` mode stores ``layers/<key>/vars/idf_weights`` (a TextVectorization
also under ``<key>/_lookup_layer``). The optimizer's variables go to
``optimizer/vars/<i>`` in Keras's order (``optimizer_layout``). Each ``vars``
group carries the ``name`` attribute Keras gives it. Datasets also carry
tfkit's ``dtype`` and ``crc32`` attributes (Keras reads neither; tfkit checks
the checksum when it reads). A ``.weights.h5`` also keeps, in a root attribute
Keras ignores, the input shapes tfkit builds an unbuilt model from.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

import h5py
import numpy as np

from tfkit.saving import h5_format, weights_io
from tfkit.saving.keras_files import optimizer_layout
from tfkit.saving.keras_files.weights_layout import _lora_layout, idf_variable, keras3_paths

_IDF = "idf_weights"
BUILD_ATTR = "tfkit_build_config"  # root attribute of a .weights.h5: the input shapes (Keras ignores it)


def _vars_group(f: h5py.File, path: str, name: Any) -> h5py.Group:
    group = f.require_group(path).create_group("vars") if path else f.create_group("vars")
    if isinstance(name, str):
        group.attrs["name"] = name
    return group


def _write(group: h5py.Group, key: str, array: np.ndarray, dtype_name: str) -> None:
    if dtype_name == "bfloat16":  # as Keras writes it: 2-byte opaque elements, which Keras reads as bfloat16
        array = np.ascontiguousarray(array).view("V2")
    h5_format.write_array(group, key, array, dtype_name)


def _stored_variables(layer: Any, idf_ids: set[int]) -> list[tuple[np.ndarray, str]]:
    """``(array, dtype)`` of ``vars/0, 1, ...`` of one layer, as Keras 3 saves them."""
    stored, _ = _lora_layout(layer)
    target = getattr(layer, layer._lora_target, None) if getattr(layer, "lora_enabled", False) else None
    merged = layer.merged_quantized_values() if target is not None and layer.quantization_mode else {}
    out = []
    for variable in stored:
        if id(variable) in idf_ids:
            continue
        replaced = [value for name, value in merged.items() if getattr(layer, name, None) is variable]
        if replaced:  # a quantized weight with LoRA's update merged in and quantized again, as Keras saves it
            out.append((np.asarray(replaced[0]).astype(h5_format.storage_dtype(variable.dtype)), variable.dtype.name))
        elif target is not None and variable is target:
            whole = np.asarray(layer.merged_kernel()).astype(h5_format.storage_dtype(variable.dtype))
            out.append((whole, variable.dtype.name))
        else:
            out.append((h5_format.to_storage(variable), variable.dtype.name))
    return out


def write_keras_weights(
    f: h5py.File, model: Any, include_optimizer: bool = True, skip: Sequence[Any] = (), as_compiled: bool = True
) -> None:
    """Write ``model``'s variables (and, when compiled, its optimizer's) into ``f`` in Keras 3's layout; the
    layers in ``skip`` are left out, as Keras's ``save_weights(objects_to_skip=...)`` leaves them out.
    ``as_compiled``: an archive's optimizer (built when not yet, see ``optimizer_layout.stored_groups``)."""
    paths = keras3_paths(model, skip)
    idf_ids = {id(v) for v in (idf_variable(layer) for _, layer in paths) if v is not None}
    idf_written: set[int] = set()
    for path, layer in paths:
        group = _vars_group(f, path, getattr(layer, "name", None))
        for index, (array, dtype) in enumerate(_stored_variables(layer, idf_ids)):
            _write(group, str(index), array, dtype)
        idf = idf_variable(layer)
        if idf is not None and id(idf) not in idf_written:
            idf_written.add(id(idf))
            _write(group, _IDF, h5_format.to_storage(idf), idf.dtype.name)
            if type(layer).__name__ == "TextVectorization":  # Keras saves its lookup's copy too
                _write(
                    _vars_group(f, f"{path}/_lookup_layer", getattr(layer, "name", None)),
                    _IDF,
                    h5_format.to_storage(idf),
                    idf.dtype.name,
                )
    optimizer = getattr(model, "optimizer", None)
    if include_optimizer and optimizer is not None:
        for path, name, arrays in optimizer_layout.stored_groups(optimizer, model.trainable_weights, as_compiled):
            group = _vars_group(f, path, name)
            for index, (array, dtype) in enumerate(arrays):
                _write(group, str(index), array, dtype)


def write_weights_file(f: h5py.File, model: Any) -> None:
    """A Keras 3 ``.weights.h5``: the layout above, plus the input shapes tfkit builds an unbuilt model from."""
    write_keras_weights(f, model, as_compiled=False)
    build = weights_io.build_config(model)
    if build is not None:
        f.attrs[BUILD_ATTR] = json.dumps(build)
