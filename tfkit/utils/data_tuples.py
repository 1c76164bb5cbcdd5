"""Keras's ``(x, y, sample_weight)`` packing for custom ``train_step`` code.

    x, y, sample_weight = tfkit.utils.unpack_x_y_sample_weight(data)
    tfkit.utils.pack_x_y_sample_weight(x, y)      # (x, y)
    tfkit.utils.pack_x_y_sample_weight(x)         # x (a tuple x becomes (x,))
"""

from __future__ import annotations

from typing import Any


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """``(x, y, sample_weight)`` from ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` (lists too)."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if 1 <= len(data) <= 3:
        return tuple(data) + (None,) * (3 - len(data))
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
                     f"found a tuple of {len(data)} items: {data!r}"[:400])


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """The inverse of :func:`unpack_x_y_sample_weight`: ``x`` alone stays un-nested (a tuple ``x`` is wrapped)."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)
