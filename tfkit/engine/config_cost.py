"""Bounds on the numbers in a config that multiply the cost of rebuilding or running a model.

    check_costs(config, "model_config")     # called by config_safety.check_config on every config read from a file
    # ValueError: model_config.config.layers[1] (RepeatVector 'repeat_vector'): n=1000000000000; the limit is ...

A few bytes of config can ask for a lot of work: a nested model called 3,000
times re-traces every one of its layers 3,000 times, ``ngrams=10**6`` builds
a million n-gram ops, ``num_oov_indices=10**8`` allocates a 10**8-entry
table while the layer is constructed, and ``RepeatVector(10**12)`` loads
fine but asks terabytes of the first ``predict``. Each such argument is
checked here, before anything is built, against a limit far above any real
model; a refusal names the layer's path in the config and the argument.
(Weights are bounded separately by ``guard.variable_budget``; costs that are
only known once shapes flow, such as unrolled timesteps, by ``load_budget``
and ``graph_budget``.)
"""

from __future__ import annotations

import math
from typing import Any, Callable

__all__ = ["check_costs", "MAX_TRACED_CALLS", "MAX_SAMPLE_ELEMENTS"]

# Layer calls traced while the model is rebuilt, a nested model's layers counted once per call of the model:
# the object limit of a model file (h5.MAX_CONFIG_OBJECTS, objects plus calls) applied to what the calls multiply.
MAX_TRACED_CALLS = 10_000
# Elements of one sample that an argument may ask for (one axis of an output, or all of an input), and that one
# traced tensor may hold (graph_budget): 2**32 float32 values are 16 GiB per sample, more than any model that runs
# (an 8k-token static attention map of 32 heads is 2**31) and far less than what a few digits in a file can ask.
MAX_SAMPLE_ELEMENTS = 2**32
MAX_SCALE = 2**16  # the factor one layer enlarges each sample by (UpSampling size, transposed-conv strides)
MAX_NGRAMS = 64  # TextVectorization builds one n-gram op per n
MAX_OOV_INDICES = 2**20  # lookup layers build a table with this many OOV entries when they are constructed

_LOOKUPS = ("StringLookup", "IntegerLookup")
_UPSAMPLING = ("UpSampling1D", "UpSampling2D", "UpSampling3D")
_TRANSPOSED = ("Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose", "Convolution2DTranspose")
_PADDING = ("ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D")
_CROPS = ("Resizing", "CenterCrop", "RandomCrop")
_WRAPPED = ("layer", "forward_layer", "backward_layer", "cell", "cells")  # TimeDistributed, Bidirectional, RNN


def _ints(value: Any) -> list[int] | None:
    """The ints in a number or a (nested) list of them (None as 0); None when anything else is there."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return [value]
    if isinstance(value, list):
        out: list[int] = []
        for item in value:
            inner = [0] if item is None else _ints(item)  # None: an unknown axis (a shape's batch axis)
            if inner is None:
                return None
            out += inner
        return out
    return None


def _product(values: list[int]) -> int:
    return math.prod(v for v in values if v > 0)


# Each rule, by class name: (arguments, what their numbers set, limit, how the arguments' ints combine, whether the
# rule applies to this config: one-hot widths only exist outside output_mode="int").
_Rule = tuple[tuple[str, ...], str, int, Callable[[list[int]], int], Callable[[dict], bool]]
_ALWAYS: Callable[[dict], bool] = lambda config: True
_ENCODES: Callable[[dict], bool] = lambda config: config.get("output_mode", "int") != "int"
_RULES: dict[str, list[_Rule]] = {
    "RepeatVector": [(("n",), "the timesteps of every sample", MAX_SAMPLE_ELEMENTS, max, _ALWAYS)],
    "CategoryEncoding": [(("num_tokens",), "the width of every encoded sample", MAX_SAMPLE_ELEMENTS, max, _ALWAYS)],
    "Hashing": [(("num_bins",), "the width of every encoded sample", MAX_SAMPLE_ELEMENTS, max, _ENCODES)],
    "TextVectorization": [
        (("output_sequence_length",), "the tokens of every sample", MAX_SAMPLE_ELEMENTS, max, _ALWAYS),
        (("max_tokens",), "the width of every encoded sample", MAX_SAMPLE_ELEMENTS, max, _ENCODES),
        (("ngrams",), "the n-gram ops built per call", MAX_NGRAMS, max, _ALWAYS),
    ],
    "Reshape": [(("target_shape",), "the elements of every sample", MAX_SAMPLE_ELEMENTS, _product, _ALWAYS)],
    **{
        name: [(("noise_shape",), "the random values drawn per training step", MAX_SAMPLE_ELEMENTS, _product, _ALWAYS)]
        for name in ("Dropout", "AlphaDropout")
    },
    "InputLayer": [
        (
            ("batch_shape", "batch_input_shape"),
            "the elements of every sample",
            MAX_SAMPLE_ELEMENTS,
            lambda dims: _product(dims[1:]),
            _ALWAYS,
        )
    ],
    **{
        name: [
            (("num_oov_indices",), "the table entries built with the layer", MAX_OOV_INDICES, max, _ALWAYS),
            (("max_tokens",), "the width of every encoded sample", MAX_SAMPLE_ELEMENTS, max, _ENCODES),
        ]
        for name in _LOOKUPS
    },
    **{
        name: [(("size",), "the factor every sample is enlarged by", MAX_SCALE, _product, _ALWAYS)]
        for name in _UPSAMPLING
    },
    **{
        name: [(("strides",), "the factor every sample is enlarged by", MAX_SCALE, _product, _ALWAYS)]
        for name in _TRANSPOSED
    },
    **{
        name: [(("padding",), "the zeros added along one axis of every sample", MAX_SAMPLE_ELEMENTS, max, _ALWAYS)]
        for name in _PADDING
    },
    **{
        name: [(("height", "width"), "the pixels of every output image", MAX_SAMPLE_ELEMENTS, _product, _ALWAYS)]
        for name in _CROPS
    },
}


def _label(entry: dict, where: str) -> str:
    config = entry.get("config")
    name = config.get("name") if isinstance(config, dict) else None
    name = name if isinstance(name, str) else entry.get("name")
    return f"{where} ({entry['class_name']} {name!r})" if isinstance(name, str) else f"{where} ({entry['class_name']})"


def _check_arguments(entry: dict, where: str) -> None:
    config = entry.get("config")
    if not isinstance(config, dict):
        return
    for arguments, cost, limit, reduce, applies in _RULES.get(entry["class_name"], ()):
        if not applies(config):
            continue
        values: list[int] = []
        for argument in arguments:
            ints = _ints(config.get(argument))
            values += [] if ints is None else ints
        if not values:
            continue
        amount = reduce(values)
        if amount > limit:
            shown = ", ".join(f"{a}={config.get(a)!r}"[:80] for a in arguments if a in config)
            raise ValueError(
                f"{_label(entry, where)}: {shown} sets {cost} to {amount}; a model file may set it to "
                f"at most {limit}. The config multiplies the work of loading or running the model far "
                f"beyond any real model's; tfkit refuses to rebuild it."
            )


def _calls(entry: dict) -> int:
    """How many times a layer entry of a functional config is called: one per inbound node (Keras 3 and tf-keras)."""
    nodes = entry.get("inbound_nodes")
    return max(1, len(nodes)) if isinstance(nodes, list) else 1


def _traced_calls(entry: dict, where: str) -> int:
    """Layer calls traced by one call of ``entry``: 1 for a layer, its layers' calls for a model (recursively)."""
    config = entry.get("config")
    if not isinstance(config, dict):
        return 1
    layers = config.get("layers")
    total = 0 if isinstance(layers, list) else 1
    for index, child in enumerate(layers if isinstance(layers, list) else []):
        if not _is_entry(child) or child["class_name"] == "InputLayer":  # an input traces nothing
            continue
        child_where = f"{where}.config.layers[{index}]"
        calls, each = _calls(child), _traced_calls(child, child_where)
        total += calls * each
        if total > MAX_TRACED_CALLS:
            raise ValueError(
                f"{_label(child, child_where)} is called {calls} times and each call traces {each} layer "
                f"call(s): rebuilding the model would trace more than {MAX_TRACED_CALLS} layer calls, the "
                f"limit for a model file (nested models multiply: every call re-traces all of their layers)."
            )
    for key in _WRAPPED:  # a wrapped layer or cell runs inside every call of its wrapper
        inner = config.get(key)
        for i, item in enumerate(inner if isinstance(inner, list) else [inner]):
            if _is_entry(item):
                total += _traced_calls(item, f"{where}.config.{key}" + (f"[{i}]" if isinstance(inner, list) else ""))
    return total


def _is_entry(value: Any) -> bool:
    return (
        isinstance(value, dict) and isinstance(value.get("class_name"), str) and isinstance(value.get("config"), dict)
    )


def check_costs(config: Any, what: str) -> None:
    """Raise ``ValueError`` naming the layer path and argument where ``config`` multiplies work past its limits."""
    stack: list[tuple[Any, str]] = [(config, what)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, list):
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(value))
        elif isinstance(value, dict):
            if isinstance(value.get("class_name"), str):
                _check_arguments(value, where)
            stack.extend((item, f"{where}.{key}") for key, item in value.items())
    if _is_entry(config):
        _traced_calls(config, what)
