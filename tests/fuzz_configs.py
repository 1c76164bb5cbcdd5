"""Config mutations for the loader fuzz campaign: the numbers in a model file that multiply the work of loading.

    subprocess.run([sys.executable, "-c", CONFIG_SEEDS, folder])      # text.h5, rnn.h5, image.h5, nested.h5
    kind = mutate_model_file(folder / "rnn.h5", case, "huge_unroll", random.Random(3))   # -> the class applied

The seeds are small valid tfkit model files whose layers carry every argument
that ``tfkit/saving/config_cost.py`` bounds (vocabularies, lookup tables,
n-grams, one-hot widths, repeat counts, resampling factors, paddings, unrolled
RNNs, a nested model, a recorded ``tf.unstack``). A mutation rewrites the
file's ``model_config`` (and ``build_config``) as JSON data, keeping the
weights: a repeated vocabulary, a huge unroll length, one multiplying argument
set to a boundary or huge value, a nested model called thousands of times, or
an input axis that the recorded ``tf.unstack`` splits into millions of tensors.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import h5py

CONFIG_SEEDS = r"""
import os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf, tfkit
from tfkit import layers as L
out = sys.argv[1]
words = ["the", "cat", "sat", "on", "mat"]
text, tokens, ids = tfkit.Input((1,), dtype="string"), tfkit.Input((3,), dtype="string"), tfkit.Input((3,), dtype="int64")
branches = [
    L.GlobalAveragePooling1D()(L.Embedding(40, 3)(L.TextVectorization(vocabulary=words, output_sequence_length=4,
                                                                       ngrams=2)(text))),
    L.StringLookup(vocabulary=words, num_oov_indices=2, output_mode="multi_hot")(tokens),
    L.Flatten()(L.IntegerLookup(vocabulary=[3, 7, 9], output_mode="one_hot")(ids)),
    L.Hashing(num_bins=8, output_mode="multi_hot")(ids),
    L.CategoryEncoding(num_tokens=10, output_mode="count")(ids),
]
tfkit.Model([text, tokens, ids], L.Dense(2)(L.Concatenate()(branches))).save(os.path.join(out, "text.h5"))
tfkit.Sequential([tfkit.Input((5, 2)), L.LSTM(3, unroll=True, return_sequences=True),
                  L.Bidirectional(L.GRU(2, unroll=True))]).save(os.path.join(out, "rnn.h5"))
tfkit.Sequential([tfkit.Input((4, 4, 1)), L.UpSampling2D(2), L.ZeroPadding2D(1), L.Conv2DTranspose(2, 2, strides=2),
                  L.Resizing(6, 6), L.Flatten(), L.Dense(3), L.RepeatVector(2), L.Reshape((6,)),
                  L.Dense(1)]).save(os.path.join(out, "image.h5"))
inner = tfkit.Sequential([tfkit.Input((6,)), L.Dense(6), L.Dense(6)], name="block")
x = tfkit.Input((6,))
y = tf.stack(tf.unstack(x, axis=1), axis=1)
halves = tf.split(inner(inner(y)), 2, axis=1)
tfkit.Model(x, L.Dense(1)(L.Concatenate()(halves))).save(os.path.join(out, "nested.h5"))
"""

CONFIG_SEED_FILES = {"text": "text.h5", "rnn": "rnn.h5", "image": "image.h5", "nested": "nested.h5"}
CLASSES = {  # mutation class -> the seeds it applies to
    "repeated_vocabulary": ("text",),
    "huge_unroll": ("rnn",),
    "multiplier": ("text", "image", "rnn", "nested"),
    "nested_calls": ("nested",),
    "wide_axis": ("nested",),
}
# Arguments that multiply work (config_cost's rules and a few that the variable budget covers), by class name.
MULTIPLIERS = {
    "TextVectorization": ("output_sequence_length", "ngrams", "max_tokens"),
    "StringLookup": ("num_oov_indices", "max_tokens"),
    "IntegerLookup": ("num_oov_indices", "max_tokens"),
    "Hashing": ("num_bins",),
    "CategoryEncoding": ("num_tokens",),
    "Embedding": ("input_dim", "output_dim"),
    "RepeatVector": ("n",),
    "UpSampling2D": ("size",),
    "ZeroPadding2D": ("padding",),
    "Conv2DTranspose": ("strides",),
    "Resizing": ("height", "width"),
    "Reshape": ("target_shape",),
    "Dense": ("units",),
    "LSTM": ("units",),
    "GRU": ("units",),
    "TFOpLambda": ("num_or_size_splits",),
}
BIG = [0, -1, 3, 64, 2**10, 2**16, 2**20, 2**24, 2**30 + 1, 2**31, 2**32, 10**12, 2**62, 2**63 - 1, 2**64]


def _entries(value: Any) -> list[dict]:
    """Every ``{"class_name", "config"}`` dict in a config, outermost first."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("class_name"), str) and isinstance(item.get("config"), dict):
                found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _scale(value: Any, number: int) -> Any:
    """``value`` (an int or a nested list of ints) with its ints replaced by ``number``."""
    if isinstance(value, list):
        return [_scale(item, number) for item in value]
    return number if isinstance(value, int) and not isinstance(value, bool) else value


def _repeated_vocabulary(config: dict, build: Any, rng: random.Random) -> None:
    entry = rng.choice([e for e in _entries(config) if isinstance(e["config"].get("vocabulary"), list)])
    size = rng.choice([10, 1_000, 50_000, 200_000])
    distinct = rng.choice([1, 7, size // 2 or 1])
    entry["config"]["vocabulary"] = [f"w{i % distinct}" for i in range(size)]


def _huge_unroll(config: dict, build: Any, rng: random.Random) -> None:
    steps = rng.choice([40, 300, 500, 2_500, 30_000, 10**6, 2**31])  # the seed unrolls 3 RNNs: 300 -> 900 steps
    for entry in _entries(config):
        if entry["class_name"] == "InputLayer":
            entry["config"]["batch_shape"][1] = steps
    if isinstance(build, dict) and isinstance(build.get("input_shape"), list):
        build["input_shape"][1] = steps


def _multiplier(config: dict, build: Any, rng: random.Random) -> None:
    candidates = []
    for entry in _entries(config):
        for argument in MULTIPLIERS.get(entry["class_name"], ()):
            if argument in entry["config"]:
                candidates.append((entry["config"], argument))
            elif entry["class_name"] == "TFOpLambda":  # a recorded split: its count is a positional argument
                args = entry["config"].get("arguments", {}).get("args", [])
                if len(args) > 1 and isinstance(args[1], int):
                    candidates.append((args, 1))
    target, argument = rng.choice(candidates)
    number = rng.choice(BIG)
    target[argument] = _scale(target[argument], number) if target[argument] is not None else number
    if isinstance(target, dict) and "pad_to_max_tokens" in target and rng.random() < 0.5:
        target["pad_to_max_tokens"] = True


def _nested_calls(config: dict, build: Any, rng: random.Random) -> None:
    """The nested model's calls chained ``n`` times: each call re-traces all of its layers."""
    layers = config["config"]["layers"]
    inner = next(e for e in layers if e["class_name"] == "Sequential")
    first = inner["inbound_nodes"][0]
    calls = rng.choice([3, 300, 6_000, 30_000])  # the seed's block traces 2 layers: 6,000 calls pass 10,000
    nodes = [first] + [{"args": [{"__tensor__": [inner["name"], i, 0]}], "kwargs": {}} for i in range(calls - 1)]
    end, new_end = (
        json.dumps([inner["name"], len(inner["inbound_nodes"]) - 1, 0]),
        json.dumps([inner["name"], calls - 1, 0]),
    )
    inner["inbound_nodes"] = nodes
    for entry in layers:  # whatever consumed the chain's old end consumes its new end
        if entry is not inner:
            entry["inbound_nodes"] = json.loads(json.dumps(entry.get("inbound_nodes", [])).replace(end, new_end))


def _wide_axis(config: dict, build: Any, rng: random.Random) -> None:
    width = rng.choice([600, 20_000, 300_000, 3_000_000, 2**31])
    for entry in _entries(config):
        if entry["class_name"] == "InputLayer":
            entry["config"]["batch_shape"][-1] = width


MUTATIONS = {
    "repeated_vocabulary": _repeated_vocabulary,
    "huge_unroll": _huge_unroll,
    "multiplier": _multiplier,
    "nested_calls": _nested_calls,
    "wide_axis": _wide_axis,
}


def mutate_model_file(source: Path, target: Path, kind: str, rng: random.Random) -> str:
    """Copy the model file ``source`` to ``target`` with one config mutation of class ``kind`` applied."""
    shutil.copyfile(source, target)
    with h5py.File(target, "a") as f:
        config = json.loads(f.attrs["model_config"])
        build = json.loads(f.attrs["build_config"]) if "build_config" in f.attrs else None
        MUTATIONS[kind](config, build, rng)
        f.attrs["model_config"] = json.dumps(config)
        if build is not None:
            f.attrs["build_config"] = json.dumps(build)
    return kind
