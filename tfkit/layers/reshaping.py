"""Reshaping layers: ``Flatten``, ``Reshape``, ``Permute``, ``RepeatVector``, ``UpSampling2D``,
``ZeroPadding2D``, ``Cropping2D``.

    x = tf.ones((2, 4, 4, 3))
    tfkit.layers.UpSampling2D(size=2)(x).shape      # (2, 8, 8, 3)
    tfkit.layers.Flatten()(x).shape                 # (2, 48)

Image layers take ``data_format="channels_last"`` (``(batch, rows, cols,
channels)``, the default) or ``"channels_first"`` (``(batch, channels, rows, cols)``).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config, check_input_spec

__all__ = ["Flatten", "Reshape", "Permute", "RepeatVector", "UpSampling2D", "ZeroPadding2D", "Cropping2D"]

_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "area", "lanczos3", "lanczos5")


def _data_format(value: Any, who: str) -> str:
    value = "channels_last" if value is None else value
    if value not in ("channels_last", "channels_first"):
        raise ValueError(f"{who} expected data_format 'channels_last' or 'channels_first', got {value!r}")
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_pair(value: Any, what: str, who: str, minimum: int) -> tuple[int, int]:
    """``n`` -> ``(n, n)``; a pair of ints stays a pair; each must be >= ``minimum``."""
    pair = (value, value) if _is_int(value) else value
    if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not all(_is_int(v) for v in pair):
        raise ValueError(f"{who} expected {what} to be an int or a pair of ints, got {value!r}")
    if any(v < minimum for v in pair):
        raise ValueError(f"{who} expected every entry of {what} to be >= {minimum}, got {value!r}")
    return int(pair[0]), int(pair[1])


def _two_sided(value: Any, what: str, who: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """ZeroPadding2D/Cropping2D amounts: ``n``, ``(rows, cols)`` or ``((top, bottom), (left, right))``."""
    if _is_int(value):
        value = (value, value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
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
            return sides[0], sides[1]
    raise ValueError(
        f"{who} expected {what} to be an int, a pair (rows, cols) or ((top, bottom), (left, right)), got {value!r}"
    )


def _spatial_axes(data_format: str) -> tuple[int, int]:
    return (1, 2) if data_format == "channels_last" else (2, 3)


def _plain_pairs(pairs: Sequence[Sequence[int]]) -> list[list[int]]:
    return [list(p) for p in pairs]


# ------------------------------------------------------------------ Flatten


@registry.builtin("layers")
class Flatten(Layer):
    """``(batch, d1, d2, ...)`` -> ``(batch, d1 * d2 * ...)``; a rank-1 input gives ``(batch, 1)``."""

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format, f"Flatten layer '{self.name}'")
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        rank = inputs.shape.rank
        if self.data_format == "channels_first" and rank is not None and rank > 2:
            inputs = tf.transpose(inputs, [0, *range(2, rank), 1])
        flat = self.compute_output_shape(tuple(inputs.shape.as_list()))[1]
        if flat is None:
            return tf.reshape(inputs, tf.stack([tf.shape(inputs)[0], -1]))
        return tf.reshape(inputs, (-1, flat))

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        rest = tuple(input_shape)[1:]
        size = math.prod(rest) if all(d is not None for d in rest) else None
        return (input_shape[0], size)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["data_format"] = self.data_format
        return config


# ------------------------------------------------------------------ Reshape


@registry.builtin("layers")
class Reshape(Layer):
    """Reshape everything but the batch axis: ``Reshape((3, 4))`` on ``(batch, 12)``.

    One entry of ``target_shape`` may be ``-1``: it is inferred from the input size.
    """

    def __init__(self, target_shape: Sequence[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"Reshape layer '{self.name}'"
        if not isinstance(target_shape, (tuple, list)) or not all(_is_int(d) for d in target_shape):
            raise ValueError(f"{who} expected target_shape to be a tuple of ints, got {target_shape!r}")
        if sum(d == -1 for d in target_shape) > 1 or any(d < -1 or d == 0 for d in target_shape):
            raise ValueError(
                f"{who} expected target_shape of positive ints with at most one -1, got {tuple(target_shape)}"
            )
        self.target_shape = tuple(int(d) for d in target_shape)

    def _resolved_target(self, input_shape: tuple) -> tuple:
        """``target_shape`` with a ``-1`` replaced when the input size is known."""
        rest = tuple(input_shape)[1:]
        known = math.prod(d for d in self.target_shape if d != -1)
        if any(d is None for d in rest):
            return tuple(None if d == -1 else d for d in self.target_shape)
        size = math.prod(rest)
        if -1 in self.target_shape:
            if size % known:
                raise ValueError(
                    f"Reshape layer '{self.name}' cannot reshape input shape {tuple(input_shape)} "
                    f"({size} values per sample) to {self.target_shape}: {size} is not a multiple of {known}"
                )
            return tuple(size // known if d == -1 else d for d in self.target_shape)
        if size != known:
            raise ValueError(
                f"Reshape layer '{self.name}' cannot reshape input shape {tuple(input_shape)} "
                f"({size} values per sample) to target_shape {self.target_shape} ({known} values)"
            )
        return self.target_shape

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        target = self._resolved_target(tuple(inputs.shape.as_list()))
        new_shape = tf.concat([tf.shape(inputs)[:1], tf.constant(self.target_shape, tf.int32)], axis=0)
        outputs = tf.reshape(inputs, new_shape)
        outputs.set_shape((inputs.shape[0], *target))
        return outputs

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        return (input_shape[0], *self._resolved_target(input_shape))

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["target_shape"] = list(self.target_shape)
        return config


# ------------------------------------------------------------------ Permute


@registry.builtin("layers")
class Permute(Layer):
    """Reorder the non-batch axes: ``Permute((2, 1))`` swaps axes 1 and 2 (1-based, batch excluded)."""

    def __init__(self, dims: Sequence[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(dims, (tuple, list)) or not all(_is_int(d) for d in dims) or \
                sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError(
                f"Permute layer '{self.name}' expected dims to be a permutation of 1..n (the batch "
                f"axis 0 is not included), got {dims!r}"
            )
        self.dims = tuple(int(d) for d in dims)
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def build(self, input_shape: tuple) -> None:
        check_input_spec(self, input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return tf.transpose(inputs, (0, *self.dims))

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        return (input_shape[0], *(input_shape[d] for d in self.dims))

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["dims"] = list(self.dims)
        return config


# ------------------------------------------------------------- RepeatVector


@registry.builtin("layers")
class RepeatVector(Layer):
    """``(batch, features)`` -> ``(batch, n, features)``, the input repeated ``n`` times."""

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not _is_int(n) or n <= 0:
            raise ValueError(f"RepeatVector layer '{self.name}' expected n to be a positive integer, got {n!r}")
        self.n = int(n)
        self.input_spec = InputSpec(ndim=2)

    def build(self, input_shape: tuple) -> None:
        check_input_spec(self, input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return tf.repeat(tf.expand_dims(inputs, 1), self.n, axis=1)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["n"] = self.n
        return config


# ------------------------------------------------------------- UpSampling2D


@registry.builtin("layers")
class UpSampling2D(Layer):
    """Repeat rows and columns ``size`` times (``"nearest"``) or resize with interpolation.

    ``interpolation`` is one of ``"nearest"``, ``"bilinear"``, ``"bicubic"``,
    ``"area"``, ``"lanczos3"``, ``"lanczos5"`` (``tf.image.resize``, no antialiasing).
    """

    def __init__(
        self,
        size: int | tuple[int, int] = (2, 2),
        data_format: str | None = None,
        interpolation: str = "nearest",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        who = f"UpSampling2D layer '{self.name}'"
        self.size = _int_pair(size, "size", who, minimum=1)
        self.data_format = _data_format(data_format, who)
        if interpolation not in _INTERPOLATIONS:
            raise ValueError(f"{who} expected interpolation to be one of {_INTERPOLATIONS}, got {interpolation!r}")
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    def build(self, input_shape: tuple) -> None:
        check_input_spec(self, input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        rows_axis, cols_axis = _spatial_axes(self.data_format)
        if self.interpolation == "nearest":
            outputs = tf.repeat(inputs, self.size[0], axis=rows_axis)
            return tf.repeat(outputs, self.size[1], axis=cols_axis)
        images = inputs if self.data_format == "channels_last" else tf.transpose(inputs, (0, 2, 3, 1))
        shape = tf.shape(images)
        new_size = tf.stack([shape[1] * self.size[0], shape[2] * self.size[1]])
        resized = tf.image.resize(images, new_size, method=self.interpolation, antialias=False)
        resized = tf.cast(resized, inputs.dtype)
        if self.data_format == "channels_first":
            resized = tf.transpose(resized, (0, 3, 1, 2))
        resized.set_shape(self.compute_output_shape(tuple(inputs.shape.as_list())))
        return resized

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        shape = list(input_shape)
        for axis, factor in zip(_spatial_axes(self.data_format), self.size):
            shape[axis] = None if shape[axis] is None else shape[axis] * factor
        return tuple(shape)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(size=list(self.size), data_format=self.data_format, interpolation=self.interpolation)
        return config


# ------------------------------------------------------------ ZeroPadding2D


@registry.builtin("layers")
class ZeroPadding2D(Layer):
    """Add rows and columns of zeros: ``padding=1``, ``(rows, cols)`` or ``((top, bottom), (left, right))``."""

    def __init__(self, padding: Any = (1, 1), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"ZeroPadding2D layer '{self.name}'"
        self.padding = _two_sided(padding, "padding", who)
        self.data_format = _data_format(data_format, who)
        self.input_spec = InputSpec(ndim=4)

    def build(self, input_shape: tuple) -> None:
        check_input_spec(self, input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        pads = [[0, 0]] * 4
        for axis, side in zip(_spatial_axes(self.data_format), self.padding):
            pads[axis] = list(side)
        return tf.pad(inputs, pads)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        shape = list(input_shape)
        for axis, (before, after) in zip(_spatial_axes(self.data_format), self.padding):
            shape[axis] = None if shape[axis] is None else shape[axis] + before + after
        return tuple(shape)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(padding=_plain_pairs(self.padding), data_format=self.data_format)
        return config


# ---------------------------------------------------------------- Cropping2D


@registry.builtin("layers")
class Cropping2D(Layer):
    """Remove rows and columns at the borders: ``cropping=((top, bottom), (left, right))``."""

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"Cropping2D layer '{self.name}'"
        self.cropping = _two_sided(cropping, "cropping", who)
        self.data_format = _data_format(data_format, who)
        self.input_spec = InputSpec(ndim=4)

    def build(self, input_shape: tuple) -> None:
        check_input_spec(self, input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        self.compute_output_shape(tuple(inputs.shape.as_list()))  # raises for crops larger than the input
        slices = [slice(None)] * 4
        for axis, (before, after) in zip(_spatial_axes(self.data_format), self.cropping):
            slices[axis] = slice(before, -after if after else None)
        return inputs[tuple(slices)]

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        shape = list(input_shape)
        for axis, (before, after) in zip(_spatial_axes(self.data_format), self.cropping):
            if shape[axis] is None:
                continue
            if before + after >= shape[axis]:
                raise ValueError(
                    f"Cropping2D layer '{self.name}': cropping {_plain_pairs(self.cropping)} removes "
                    f"{before + after} of the {shape[axis]} entries on axis {axis} of input shape "
                    f"{tuple(input_shape)}; at least one must remain"
                )
            shape[axis] = shape[axis] - before - after
        return tuple(shape)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(cropping=_plain_pairs(self.cropping), data_format=self.data_format)
        return config
