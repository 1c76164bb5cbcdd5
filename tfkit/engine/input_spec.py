"""The inputs a built layer accepts, checked on every call.

    layer.input_spec = InputSpec(min_ndim=2, axes={-1: 784})
    layer(tf.ones((2, 10)))  # ValueError naming the layer, axis -1, 784 and 10
    inputs_by_name({"image": x, "id": i}, ["image"], "Model 'classifier'")   # [x]: Keras's dict of named inputs

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
        allow_last_axis_squeeze: Whether inputs one rank above the spec
            with a last axis of size 1, or one rank below a spec whose last
            axis is 1, are accepted (the rank is then not checked, and a
            trailing axis of size 1 is left out of the shape comparison), as
            in Keras. Defaults to `False`.
        name: Optional name of the input: the key of its value when the
            inputs come as a dict (as a functional model's `input_spec`
            names its inputs). Defaults to `None`.
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

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "InputSpec":
        """Creates an `InputSpec` from the dict `get_config` returns.

        Args:
            config: The spec's fields, as `get_config` returns them.

        Returns:
            A new `InputSpec`.

        Example:
            >>> spec = tfkit.InputSpec(shape=(None, 3))
            >>> tfkit.InputSpec.from_config(spec.get_config())
            InputSpec(shape=(None, 3), ndim=2)
        """
        return cls(**config)

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
        if self.ndim is not None and rank != self.ndim and not self.allow_last_axis_squeeze:
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
            expected_dims = list(self.shape)
            got_dims = list(dims)
            if self.allow_last_axis_squeeze:  # (N, 28, 28) and (N, 28, 28, 1) both fit (None, 28, 28, 1)
                expected_dims = expected_dims[:-1] if expected_dims and expected_dims[-1] == 1 else expected_dims
                got_dims = got_dims[:-1] if got_dims and got_dims[-1] == 1 else got_dims
            for axis, (expected, got) in enumerate(zip(expected_dims, got_dims)):
                if expected is not None and got is not None and expected != got:
                    raise ValueError(f"{where} expected input shape {self.shape}, got {tuple(dims)} (axis {axis})")


def inputs_by_name(inputs: Mapping[str, Any], names: Sequence[str], who: str) -> list[Any]:
    """The values of a dict of inputs for `names`, in that order: Keras 3's rule for a model called with a dict.

    A functional or `Sequential` model whose inputs are one tensor or a list
    of them takes a dict keyed by its `Input` layers' names (the `name` of
    each entry of its `input_spec`). As in Keras, keys the model does not
    use are left out.

    Args:
        inputs: The dict the model was called with.
        names: The names of the model's inputs, in the order of its inputs.
        who: The model, for the error: `"Model 'classifier'"`.

    Returns:
        The list of `inputs[name]` for each name.

    Raises:
        ValueError: If a name is missing from `inputs`; the message names
            the model, the missing names and the keys that came instead.

    Example:
        >>> from tfkit.engine.input_spec import inputs_by_name
        >>> inputs_by_name({"image": 1, "label": 2}, ["image"], "Model 'm'")
        [1]
        >>> inputs_by_name({"imgae": 1}, ["image"], "Model 'm'")
        Traceback (most recent call last):
        ...
        ValueError: Model 'm' takes a dict keyed by its Input names ['image']; missing ['image'], unexpected key(s) ['imgae']
    """
    missing = [name for name in names if name not in inputs]
    if missing:
        unexpected = sorted(repr(key) if not isinstance(key, str) else key for key in inputs if key not in names)
        raise ValueError(
            f"{who} takes a dict keyed by its Input names {list(names)}; missing {missing}"
            + (f", unexpected key(s) {unexpected}" if unexpected else "")
        )
    return [inputs[name] for name in names]
