"""Functional graphs built and loaded: the same models in tfkit and Keras 3, timed per layer call.

    model, calls = GRAPHS["graph_resnet"](keras)       # or tfkit: the same spelling in both
    metrics = measure(lambda: GRAPHS[case](ns), save, load, path)
    metrics["build_ms_per_call"], metrics["load_ms_per_call"]

A *layer call* is one call of a layer on symbolic tensors (a node of the graph;
a layer shared by 400 calls counts 400). Building is timed after one warm-up
build (imports and first-use costs are not the model's); loading reads a file
each framework wrote itself (tfkit's ``.h5``, Keras's ``.keras``), after one
warm-up load. Each figure is the median of a few runs in the same process.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

CHAIN_WIDTH = 16
RESNET_STAGES = ((3, 16), (4, 32), (6, 64), (3, 128))  # ResNet-50's blocks per stage, narrow filters
RESNET_INPUT = (64, 64, 3)
TRANSFORMER_BLOCKS, TRANSFORMER_LENGTH, TRANSFORMER_VOCAB = 6, 64, 1000
EMBED_DIM, NUM_HEADS, FF_DIM = 64, 4, 128


class Calls:
    """Counts the layer calls a builder makes: ``c(layer, x)`` is ``layer(x)``, counted."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, layer: Any, *args: Any, **kwargs: Any) -> Any:
        self.count += 1
        return layer(*args, **kwargs)


def chain(ns: Any, length: int) -> tuple[Any, int]:
    """One ``Dense`` called ``length`` times in a row (issue 20's model)."""
    c = Calls()
    x = ns.Input((CHAIN_WIDTH,))
    dense, y = ns.layers.Dense(CHAIN_WIDTH), x
    for _ in range(length):
        y = c(dense, y)
    return ns.Model(x, y), c.count


def resnet(ns: Any) -> tuple[Any, int]:
    """A ResNet-50-shaped CNN (bottleneck blocks 3-4-6-3, projection shortcuts): about 175 layer calls."""
    L, c = ns.layers, Calls()

    def conv_bn(x: Any, filters: int, kernel: int, strides: int = 1, relu: bool = True) -> Any:
        x = c(L.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False), x)
        x = c(L.BatchNormalization(), x)
        return c(L.ReLU(), x) if relu else x

    inputs = ns.Input(RESNET_INPUT)
    x = conv_bn(inputs, 16, 7, strides=2)
    x = c(L.MaxPooling2D(3, strides=2, padding="same"), x)
    for stage, (blocks, filters) in enumerate(RESNET_STAGES):
        for block in range(blocks):
            strides = 2 if block == 0 and stage > 0 else 1
            shortcut = x
            if block == 0:
                shortcut = conv_bn(x, 4 * filters, 1, strides=strides, relu=False)
            y = conv_bn(x, filters, 1, strides=strides)
            y = conv_bn(y, filters, 3)
            y = conv_bn(y, 4 * filters, 1, relu=False)
            x = c(L.ReLU(), c(L.Add(), [shortcut, y]))
    x = c(L.GlobalAveragePooling2D(), x)
    return ns.Model(inputs, c(L.Dense(10), x)), c.count


def transformer(ns: Any) -> tuple[Any, int]:
    """A text encoder: token embedding, six post-norm transformer blocks, pooled classifier (59 layer calls)."""
    L, c = ns.layers, Calls()
    tokens = ns.Input((TRANSFORMER_LENGTH,), dtype="int32")
    x = c(L.Embedding(TRANSFORMER_VOCAB, EMBED_DIM), tokens)
    for _ in range(TRANSFORMER_BLOCKS):
        attended = c(L.MultiHeadAttention(num_heads=NUM_HEADS, key_dim=EMBED_DIM // NUM_HEADS), x, x)
        x = c(L.LayerNormalization(epsilon=1e-6), c(L.Add(), [x, c(L.Dropout(0.1), attended)]))
        y = c(L.Dense(FF_DIM, activation="relu"), x)
        y = c(L.Dropout(0.1), c(L.Dense(EMBED_DIM), y))
        x = c(L.LayerNormalization(epsilon=1e-6), c(L.Add(), [x, y]))
    x = c(L.GlobalAveragePooling1D(), x)
    return ns.Model(tokens, c(L.Dense(2), x)), c.count


GRAPHS: dict[str, Callable[[Any], tuple[Any, int]]] = {
    "graph_chain400": lambda ns: chain(ns, 400),
    "graph_chain4000": lambda ns: chain(ns, 4000),
    "graph_resnet": resnet,
    "graph_transformer": transformer,
}


def median_seconds(run: Callable[[], Any], times: int) -> float:
    durations = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        durations.append(time.perf_counter() - start)
    return statistics.median(durations)


def measure(
    case: str, ns: Any, save: Callable[[Any, str], None], load: Callable[[str], Any], path: str, quick: bool = False
) -> tuple[dict[str, float], dict[str, Any]]:
    """Build the case's model (warm-up, then timed), save it, load it (warm-up, then timed)."""
    build = GRAPHS[case]
    model, calls = build(ns)  # warm-up: first-use costs of the framework
    times = 1 if quick or calls > 1000 else 3
    build_s = median_seconds(lambda: build(ns), times)
    save(model, path)
    load(path)
    load_s = median_seconds(lambda: load(path), times)
    metrics = {
        "build_s": build_s,
        "load_s": load_s,
        "layer_calls": float(calls),
        "build_ms_per_call": 1e3 * build_s / calls,
        "load_ms_per_call": 1e3 * load_s / calls,
    }
    return metrics, {"layer_calls": calls}


def measure_load(
    model: Any, save: Callable[[Any, str], None], load: Callable[[str], Any], path: str, quick: bool = False
) -> dict[str, float]:
    """Save ``model`` once, load it once to warm up, then the median of a few loads."""
    save(model, path)
    load(path)
    return {"load_s": median_seconds(lambda: load(path), 2 if quick else 5)}
