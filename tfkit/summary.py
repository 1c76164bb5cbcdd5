"""``model.summary()``: the familiar table of layers, shapes and parameter counts.

    model.summary()
    model.summary(expand_nested=True, print_fn=lines.append)
"""

from __future__ import annotations

import shutil
from typing import Any, Callable

import numpy as np

from tfkit import tracking


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


def rows_for(model: Any, expand_nested: bool) -> list[tuple[str, str, str, str, str]]:
    """(name, type, output shape, params, connected to) for each layer to show."""
    rows = []

    def visit(layer: Any, depth: int, key: str | None) -> None:
        label = layer.name if key is None or key == layer.name else f"{key} ({layer.name})"
        rows.append((
            " " * (2 * depth) + label,
            type(layer).__name__,
            _format_shape(getattr(layer._st, "output_shapes", None)),
            f"{layer.count_params():,}",
            ", ".join(getattr(layer, "_tfkit_inbound_names", []) or []),
        ))
        if expand_nested:
            for child_key, child in tracking.children(layer):
                visit(child, depth + 1, child_key)

    layers = model.summary_layers() if hasattr(model, "summary_layers") else [
        (k, c) for k, c in tracking.children(model)
    ]
    for key, layer in layers:
        visit(layer, 0, key)
    return rows


def print_summary(model: Any, line_length: int | None = None, expand_nested: bool = False,
                  print_fn: Callable[[str], Any] | None = None) -> None:
    """Print the summary of a built model (or say how to build it)."""
    print_fn = print_fn or print
    if not model.built:
        raise ValueError(
            f"Model '{model.name}' has not been built yet: call it on data, call model.build(input_shape), "
            f"or fit it once before summary()."
        )
    rows = rows_for(model, expand_nested)
    show_connections = any(r[4] for r in rows)
    headers = ("Layer (type)", "Output Shape", "Param #") + (("Connected to",) if show_connections else ())
    cells = [(f"{r[0]} ({r[1]})", r[2], r[3]) + ((r[4],) if show_connections else ()) for r in rows]
    width = line_length or min(max(shutil.get_terminal_size((100, 20)).columns, 80), 120)
    natural = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(headers)]
    total = sum(natural) + 3 * (len(headers) - 1)
    if total > width:
        natural[0] = max(20, natural[0] - (total - width))
    line = "─" * (sum(natural) + 3 * (len(headers) - 1))

    def fmt(values: tuple) -> str:
        return " │ ".join(str(v)[: natural[i]].ljust(natural[i]) for i, v in enumerate(values)).rstrip()

    print_fn(f'Model: "{model.name}"')
    print_fn(line)
    print_fn(fmt(headers))
    print_fn(line.replace("─", "═"))
    for c in cells:
        print_fn(fmt(c))
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
