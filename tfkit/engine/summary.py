"""``model.summary()``: the familiar table of layers, shapes and parameter counts.

model.summary()
model.summary(expand_nested=True, print_fn=lines.append)
model.summary(show_trainable=True, layer_range=["conv2d", "dense"])
"""

from __future__ import annotations

import re
import shutil
from typing import Any, Callable

import numpy as np

from tfkit.engine import tracking


def _format_shape(shape: Any) -> str:
    if shape is None:
        return "?"
    if isinstance(shape, list) or (isinstance(shape, tuple) and shape and isinstance(shape[0], (tuple, list))):
        return ", ".join(_format_shape(s) for s in shape)
    if isinstance(shape, dict):
        return ", ".join(f"{k}: {_format_shape(v)}" for k, v in shape.items())
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _count(weights: list[Any]) -> int:
    return int(sum(np.prod(w.shape) for w in weights))


def _bytes(weights: list[Any]) -> int:
    return int(sum(np.prod(w.shape) * w.dtype.size for w in weights))


def _human(n_bytes: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n_bytes < 1024 or unit == "GB":
            return f"{n_bytes:.2f} {unit}" if unit != "B" else f"{n_bytes} B"
        n_bytes /= 1024
    return f"{n_bytes:.2f} GB"


def rows_for(model: Any, expand_nested: bool) -> list[tuple[str, str, str, str, str, str]]:
    """(name, type, output shape, params, connected to, trainable) for each layer to show.

    A layer that has not been built yet shows "?" and "0 (unbuilt)", as in Keras.
    """
    rows = []

    def visit(layer: Any, depth: int, key: str | None) -> None:
        label = layer.name if key is None or key == layer.name else f"{key} ({layer.name})"
        built = layer.built
        rows.append(
            (
                " " * (2 * depth) + label,
                type(layer).__name__,
                _format_shape(layer._output_shapes),
                f"{layer.count_params():,}" if built else "0 (unbuilt)",
                ", ".join(layer._inbound_names),
                ("Y" if layer.trainable else "N") if built and layer.weights else "-",
            )
        )
        if expand_nested:
            for child_key, child in tracking.children(layer):
                visit(child, depth + 1, child_key)

    layers = (
        model.summary_layers() if hasattr(model, "summary_layers") else [(k, c) for k, c in tracking.children(model)]
    )
    for key, layer in layers:
        visit(layer, 0, key)
    return rows


def _in_range(rows: list[tuple], layer_range: Any) -> list[tuple]:
    """The rows from the first layer whose name matches ``layer_range[0]`` to the last matching ``[1]``."""
    if layer_range is None:
        return rows
    if (
        not isinstance(layer_range, (list, tuple))
        or len(layer_range) != 2
        or not all(isinstance(n, str) for n in layer_range)
    ):
        raise ValueError(f"layer_range must be a list or tuple of two layer names, got {layer_range!r}")
    names = [r[0].strip().split(" ")[0] for r in rows]
    starts = [i for i, n in enumerate(names) if re.fullmatch(layer_range[0], n)]
    ends = [i for i, n in enumerate(names) if re.fullmatch(layer_range[1], n)]
    if not starts or not ends or ends[-1] < starts[0]:
        raise ValueError(f"layer_range {list(layer_range)} matches no range of layers; layers: {names}")
    return rows[starts[0] : ends[-1] + 1]


def _widths(headers: tuple, cells: list[tuple], width: int, positions: Any) -> list[int]:
    if positions is not None:
        if len(positions) != len(headers):
            raise ValueError(f"positions needs {len(headers)} column ends, got {list(positions)}")
        ends = [int(p * width) if p <= 1 else int(p) for p in positions]
        return [max(1, e - b - (3 if i else 0)) for i, (b, e) in enumerate(zip([0, *ends[:-1]], ends))]
    natural = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(headers)]
    excess = sum(natural) + 3 * (len(headers) - 1) - width
    wide = [i for i, h in enumerate(headers) if h in ("Layer (type)", "Connected to")]
    while excess > 0:  # the widest of the name and connection columns gives up room first
        i = max(wide, key=lambda k: natural[k])
        if natural[i] <= len(headers[i]):
            break
        natural[i] -= 1
        excess -= 1
    return natural


def print_summary(
    model: Any,
    line_length: int | None = None,
    expand_nested: bool = False,
    print_fn: Callable[[str], Any] | None = None,
    show_trainable: bool = False,
    positions: Any = None,
    layer_range: Any = None,
) -> None:
    """Print the layer table and parameter counts (Keras 3's arguments).

    Cells longer than their column wrap onto the next lines instead of being cut.
    """
    print_fn = print_fn or print
    rows = _in_range(rows_for(model, expand_nested), layer_range)
    show_connections = any(r[4] for r in rows)
    headers = (
        ("Layer (type)", "Output Shape", "Param #")
        + (("Connected to",) if show_connections else ())
        + (("Trainable",) if show_trainable else ())
    )
    cells = [
        (f"{r[0]} ({r[1]})", r[2], r[3]) + ((r[4],) if show_connections else ()) + ((r[5],) if show_trainable else ())
        for r in rows
    ]
    width = line_length or min(max(shutil.get_terminal_size((100, 20)).columns, 80), 120)
    natural = _widths(headers, cells, width, positions)
    line = "─" * (sum(natural) + 3 * (len(headers) - 1))

    def fmt(values: tuple) -> list[str]:
        pieces = [
            [str(v)[k : k + natural[i]] for k in range(0, max(len(str(v)), 1), natural[i])]
            for i, v in enumerate(values)
        ]
        height = max(len(p) for p in pieces)
        return [
            " │ ".join((p[j] if j < len(p) else "").ljust(natural[i]) for i, p in enumerate(pieces)).rstrip()
            for j in range(height)
        ]

    print_fn(f'Model: "{model.name}"')
    print_fn(line)
    for text in fmt(headers):
        print_fn(text)
    print_fn(line.replace("─", "═"))
    for c in cells:
        for text in fmt(c):
            print_fn(text)
    print_fn(line)
    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    everything = trainable + non_trainable
    print_fn(f" Total params: {_count(everything):,} ({_human(_bytes(everything))})")
    print_fn(f" Trainable params: {_count(trainable):,} ({_human(_bytes(trainable))})")
    print_fn(f" Non-trainable params: {_count(non_trainable):,} ({_human(_bytes(non_trainable))})")
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and getattr(optimizer, "built", False):
        opt_vars = list(getattr(optimizer, "variables", []))
        print_fn(f" Optimizer params: {_count(opt_vars):,} ({_human(_bytes(opt_vars))})")
