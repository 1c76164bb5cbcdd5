"""The inputs a built layer accepts, checked on every call.

    layer.input_spec = InputSpec(min_ndim=2, axes={-1: 784})
    layer(tf.ones((2, 10)))  # ValueError naming the layer, axis -1, 784 and 10

Checks happen while tracing (shapes are static), so compiled steps pay
nothing for them.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import tensorflow as tf


class InputSpec:
    """Specifies the rank, dtype and shape of every input to a layer.

    A layer sets `self.input_spec` (one `InputSpec`, or a list with one per
    input) to have its inputs checked on every call once it is built: a
    mismatch raises a `ValueError` naming the layer and the axis. Checks run
    while tracing (shapes are static), so compiled steps pay nothing for them.
    `None` entries in `shape` and `axes` match any size.

    Args:
        dtype: Expected dtype of the input (stored as its name). Defaults to
            `None`.
        shape: Expected shape tuple, batch dimension included; sets `ndim`.
            Defaults to `None`.
        ndim: Expected rank (an integer). Defaults to `None`.
        max_ndim: Maximum rank. Defaults to `None`.
        min_ndim: Minimum rank. Defaults to `None`.
        axes: Dict mapping axes (negative counts from the end) to their
            expected sizes. Defaults to `None`.
        allow_last_axis_squeeze: Keras's flag allowing a last axis of size 1
            to be squeezed; stored, not used by tfkit's check. Defaults to
            `False`.
        name: Optional name of the input (Keras's field), stored. Defaults to
            `None`.
        optional: Whether the input may be `None` (nothing is checked then).
            Defaults to `False`.

    Example:
        >>> spec = tfkit.InputSpec(ndim=2, axes={-1: 4})
        >>> spec
        InputSpec(ndim=2, axes={-1: 4})
        >>> layer = tfkit.layers.Dense(2)
        >>> layer.build((None, 4))
        >>> layer(np.ones((1, 3)))
        Traceback (most recent call last):
        ...
        ValueError: Layer 'dense' (Dense) expected axis -1 of the input to have size 4, got shape (1, 3)
    """

    def __init__(
        self,
        dtype: Any = None,
        shape: Sequence[int | None] | None = None,
        ndim: int | None = None,
        max_ndim: int | None = None,
        min_ndim: int | None = None,
        axes: Mapping[int, int | None] | None = None,
        allow_last_axis_squeeze: bool = False,
        name: str | None = None,
        optional: bool = False,
    ) -> None:
        self.dtype = tf.as_dtype(dtype).name if dtype is not None else None
        self.shape = tuple(shape) if shape is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name
        self.optional = bool(optional)  # the input may be None (nothing is checked then)

    def __repr__(self) -> str:
        fields = ("dtype", "shape", "ndim", "max_ndim", "min_ndim", "axes")
        parts = [f"{f}={getattr(self, f)!r}" for f in fields if getattr(self, f)]
        return f"InputSpec({', '.join(parts)})"

    def get_config(self) -> dict[str, Any]:
        """The spec's fields as a dict (`dtype`, `shape`, `ndim`, `max_ndim`, `min_ndim`, `axes`, `optional`)."""
        return {
            "dtype": self.dtype,
            "shape": self.shape,
            "ndim": self.ndim,
            "max_ndim": self.max_ndim,
            "min_ndim": self.min_ndim,
            "axes": self.axes,
            "optional": self.optional,
        }

    def check(self, tensor: Any, where: str) -> None:
        """Raise ``ValueError`` naming ``where`` if ``tensor`` does not fit (None is never checked)."""
        shape = getattr(tensor, "shape", None)
        if shape is None:
            return
        shape = tf.TensorShape(shape)
        if shape.rank is None:
            return
        rank = shape.rank
        dims = shape.as_list()
        if self.ndim is not None and rank != self.ndim:
            raise ValueError(f"{where} expected input of rank {self.ndim}, got rank {rank} (shape {tuple(dims)})")
        if self.min_ndim is not None and rank < self.min_ndim:
            raise ValueError(
                f"{where} expected input of rank >= {self.min_ndim}, got rank {rank} (shape {tuple(dims)})"
            )
        if self.max_ndim is not None and rank > self.max_ndim:
            raise ValueError(
                f"{where} expected input of rank <= {self.max_ndim}, got rank {rank} (shape {tuple(dims)})"
            )
        for axis, expected in self.axes.items():
            if expected is None or not -rank <= axis < rank:
                continue
            got = dims[axis]
            if got is not None and got != expected:
                raise ValueError(
                    f"{where} expected axis {axis} of the input to have size {expected}, got shape {tuple(dims)}"
                )
        if self.shape is not None:
            for axis, (expected, got) in enumerate(zip(self.shape, dims)):
                if expected is not None and got is not None and expected != got:
                    raise ValueError(f"{where} expected input shape {self.shape}, got {tuple(dims)} (axis {axis})")
