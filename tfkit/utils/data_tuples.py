"""Keras's ``(x, y, sample_weight)`` packing for custom ``train_step`` code.

x, y, sample_weight = tfkit.utils.unpack_x_y_sample_weight(data)
tfkit.utils.pack_x_y_sample_weight(x, y)      # (x, y)
tfkit.utils.pack_x_y_sample_weight(x)         # x (a tuple x becomes (x,))
"""

from __future__ import annotations

from typing import Any


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """Unpacks a batch into `(x, y, sample_weight)`, for custom `train_step` code.

    Args:
        data: A batch: `x`, `(x,)`, `(x, y)` or `(x, y, sample_weight)`
            (a list too).

    Returns:
        The tuple `(x, y, sample_weight)`, with `None` for missing parts.

    Raises:
        ValueError: If `data` is a tuple of more than three items (or
            empty).

    Example:
        >>> tfkit.utils.unpack_x_y_sample_weight((1, 2))
        (1, 2, None)
        >>> tfkit.utils.unpack_x_y_sample_weight(5)
        (5, None, None)
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if 1 <= len(data) <= 3:
        return tuple(data) + (None,) * (3 - len(data))
    raise ValueError(
        f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
        f"found a tuple of {len(data)} items: {data!r}"[:400]
    )


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """Packs `x`, `y` and `sample_weight` into a batch (the inverse of `unpack_x_y_sample_weight`).

    `x` alone stays un-nested, except a tuple or list `x`, which is wrapped
    as `(x,)` so that it is not read as `(x, y)`.

    Args:
        x: The inputs.
        y: The targets. Defaults to `None`.
        sample_weight: The sample weights. Defaults to `None`.

    Returns:
        `x`, `(x,)`, `(x, y)` or `(x, y, sample_weight)`.

    Example:
        >>> tfkit.utils.pack_x_y_sample_weight(1, 2)
        (1, 2)
        >>> tfkit.utils.pack_x_y_sample_weight((1, 2))
        ((1, 2),)
    """
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)
