"""1-D and 3-D versions of the spatial reshaping layers: up-sampling, zero padding, cropping.

    y = tfkit.layers.UpSampling1D(2)(x)                 # (batch, steps, ch) -> (batch, 2 * steps, ch)
    y = tfkit.layers.ZeroPadding3D(1)(volumes)          # one plane of zeros on every side
    y = tfkit.layers.Cropping1D((1, 2))(x)              # drop 1 step at the start, 2 at the end
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers.core import check_input_spec
from tfkit.layers.reshaping import _data_format, _is_int

__all__ = ["UpSampling1D", "UpSampling3D", "ZeroPadding1D", "ZeroPadding3D", "Cropping1D", "Cropping3D"]


def _axes(rank: int, data_format: str) -> tuple[int, ...]:
    """The spatial axes of a batch with ``rank`` spatial dimensions."""
    first = 1 if data_format == "channels_last" else 2
    return tuple(range(first, first + rank))


def _int_tuple(value: Any, rank: int, what: str, who: str, minimum: int) -> tuple[int, ...]:
    values = (value,) * rank if _is_int(value) else value
    if not isinstance(values, (tuple, list)) or len(values) != rank or not all(_is_int(v) for v in values):
        raise ValueError(f"{who} expected {what} to be an int or {rank} ints, got {value!r}")
    if any(v < minimum for v in values):
        raise ValueError(f"{who} expected every entry of {what} to be >= {minimum}, got {value!r}")
    return tuple(int(v) for v in values)


def _sides(value: Any, rank: int, what: str, who: str) -> tuple[tuple[int, int], ...]:
    """``n``, ``rank`` ints (both sides alike) or ``rank`` pairs ``(before, after)``; 1-D takes one pair."""
    if rank == 1:
        pair = _int_tuple(value, 2, what, who, minimum=0)
        return (pair,)
    if _is_int(value):
        value = (value,) * rank
    if isinstance(value, (tuple, list)) and len(value) == rank:
        sides = []
        for entry in value:
            if _is_int(entry):
                sides.append((int(entry), int(entry)))
            elif isinstance(entry, (tuple, list)) and len(entry) == 2 and all(_is_int(v) for v in entry):
                sides.append((int(entry[0]), int(entry[1])))
            else:
                break
        else:
            if any(v < 0 for side in sides for v in side):
                raise ValueError(f"{who} expected non-negative {what}, got {value!r}")
            return tuple(sides)
    raise ValueError(f"{who} expected {what} to be an int, {rank} ints or {rank} pairs (before, after), got {value!r}")


class _UpSampling(Layer):
    rank = 1

    def __init__(self, size: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"{type(self).__name__} layer '{self.name}'"
        self.size = _int_tuple(size, self.rank, "size", who, minimum=1)
        self.data_format = _data_format(data_format, who)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def build(self, input_shape: tuple) -> None:
        check_input_spec(self, input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        for axis, factor in zip(_axes(self.rank, self.data_format), self.size):
            inputs = tf.repeat(inputs, factor, axis=axis)
        return inputs

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        shape = list(input_shape)
        for axis, factor in zip(_axes(self.rank, self.data_format), self.size):
            shape[axis] = None if shape[axis] is None else shape[axis] * factor
        return tuple(shape)


@registry.builtin("layers")
class UpSampling1D(_UpSampling):
    """Repeat each time step ``size`` times."""

    rank = 1

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(size, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "size": self.size[0]}


@registry.builtin("layers")
class UpSampling3D(_UpSampling):
    """Repeat each voxel ``size = (d1, d2, d3)`` times along the three spatial axes."""

    rank = 3

    def __init__(self, size: Any = (2, 2, 2), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(size, data_format=data_format, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "size": list(self.size), "data_format": self.data_format}


class _Borders(Layer):
    """Shared by zero padding (``sign = +1``) and cropping (``sign = -1``)."""

    rank = 1
    what = "padding"

    def __init__(self, amounts: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"{type(self).__name__} layer '{self.name}'"
        setattr(self, self.what, _sides(amounts, self.rank, self.what, who))
        self.data_format = _data_format(data_format, who)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    @property
    def _amounts(self) -> tuple[tuple[int, int], ...]:
        return getattr(self, self.what)

    def build(self, input_shape: tuple) -> None:
        check_input_spec(self, input_shape)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        shape = list(input_shape)
        sign = 1 if self.what == "padding" else -1
        for axis, (before, after) in zip(_axes(self.rank, self.data_format), self._amounts):
            if shape[axis] is None:
                continue
            if sign < 0 and before + after >= shape[axis]:
                raise ValueError(
                    f"{type(self).__name__} layer '{self.name}': cropping {self._config_amounts()} removes "
                    f"{before + after} of the {shape[axis]} entries on axis {axis} of input shape "
                    f"{tuple(input_shape)}; at least one must remain"
                )
            shape[axis] = shape[axis] + sign * (before + after)
        return tuple(shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        axes = _axes(self.rank, self.data_format)
        if self.what == "padding":
            pads = [[0, 0]] * (self.rank + 2)
            for axis, side in zip(axes, self._amounts):
                pads[axis] = list(side)
            return tf.pad(inputs, pads)
        self.compute_output_shape(tuple(inputs.shape.as_list()))  # raises for crops larger than the input
        slices = [slice(None)] * (self.rank + 2)
        for axis, (before, after) in zip(axes, self._amounts):
            slices[axis] = slice(before, -after if after else None)
        return inputs[tuple(slices)]

    def _config_amounts(self) -> Any:
        if self.rank == 1:
            return list(self._amounts[0])
        return [list(side) for side in self._amounts]


@registry.builtin("layers")
class ZeroPadding1D(_Borders):
    """Add zeros at the start and end of the time axis: ``padding=1`` or ``(left, right)``."""

    rank, what = 1, "padding"

    def __init__(self, padding: Any = 1, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(padding, data_format=data_format, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "padding": self._config_amounts(), "data_format": self.data_format}


@registry.builtin("layers")
class ZeroPadding3D(_Borders):
    """Add planes of zeros: ``padding=1``, three ints, or three ``(before, after)`` pairs."""

    rank, what = 3, "padding"

    def __init__(self, padding: Any = ((1, 1), (1, 1), (1, 1)), data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(padding, data_format=data_format, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "padding": self._config_amounts(), "data_format": self.data_format}


@registry.builtin("layers")
class Cropping1D(_Borders):
    """Remove ``(start, end)`` steps of the time axis."""

    rank, what = 1, "cropping"

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(cropping, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "cropping": self._config_amounts()}


@registry.builtin("layers")
class Cropping3D(_Borders):
    """Remove planes at the borders: ``cropping=((d1, d1'), (d2, d2'), (d3, d3'))``."""

    rank, what = 3, "cropping"

    def __init__(self, cropping: Any = ((1, 1), (1, 1), (1, 1)), data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(cropping, data_format=data_format, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "cropping": self._config_amounts(), "data_format": self.data_format}
