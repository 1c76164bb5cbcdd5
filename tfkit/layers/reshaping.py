"""Reshaping layers: ``Flatten``, ``Reshape``, ``Permute``, ``RepeatVector``, ``UpSampling2D``,
``ZeroPadding2D``, ``Cropping2D``.

    x = tf.ones((2, 4, 4, 3))
    tfkit.layers.UpSampling2D(size=2)(x).shape      # (2, 8, 8, 3)
    tfkit.layers.Flatten()(x).shape                 # (2, 48)

Image layers take ``data_format="channels_last"`` (``(batch, rows, cols,
channels)``) or ``"channels_first"`` (``(batch, channels, rows, cols)``); ``None``
(the default) means ``tfkit.config.image_data_format()``.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.argument_validation import positive_int
from tfkit.base.data_format import standardize_data_format
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config, check_input_spec

__all__ = ["Flatten", "Reshape", "Permute", "RepeatVector", "UpSampling2D", "ZeroPadding2D", "Cropping2D"]

_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "area", "lanczos3", "lanczos5")


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
    """Flattens the input. Does not affect the batch size.

    `(batch, d1, d2, ...)` becomes `(batch, d1 * d2 * ...)`. If the inputs
    have no feature axes (shape `(batch,)`), the output has shape
    `(batch, 1)`.

    Args:
        data_format: `"channels_last"` or `"channels_first"`, the ordering of
            the axes of the inputs. `"channels_first"` inputs
            `(batch, channels, ...)` are first transposed to channels-last, so
            that the flattened order matches a channels-last model (useful
            when switching a model from one format to the other). Defaults to
            `None`, which means `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 1 or more.

    Input shape:
        `(batch_size, ...)`.

    Output shape:
        `(batch_size, prod(...))`, with an unknown size if any non-batch axis
        is unknown.

    Raises:
        ValueError: If `data_format` is not one of the two formats.

    Example:
        >>> tfkit.layers.Flatten()(np.ones((2, 3, 4))).shape
        TensorShape([2, 12])
        >>> tfkit.layers.Flatten()(np.array([[1, 2], [3, 4]])).numpy()
        array([[1, 2],
               [3, 4]])
    """

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format, f"Flatten layer '{self.name}'")
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
    """Layer that reshapes inputs into the given shape.

    Only the non-batch axes are reshaped: `Reshape((3, 4))` turns
    `(batch, 12)` into `(batch, 3, 4)`. One entry of `target_shape` may be
    `-1`: it is inferred from the input size.

    Args:
        target_shape: Tuple (or list) of ints, the target shape, not
            including the batch axis. Entries are positive, with at most one
            `-1`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor whose number of values per sample matches
            `target_shape`.

    Input shape:
        `(batch_size, ...)`, with as many values per sample as `target_shape`.

    Output shape:
        `(batch_size, *target_shape)`.

    Raises:
        ValueError: If `target_shape` is not a tuple of positive ints with at
            most one `-1`, or the input size does not fit it.

    Example:
        >>> x = np.arange(12).reshape((1, 12))
        >>> tfkit.layers.Reshape((3, 4))(x).shape
        TensorShape([1, 3, 4])
        >>> tfkit.layers.Reshape((-1, 2))(x).shape
        TensorShape([1, 6, 2])
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
    """Permutes the dimensions of the input according to a given pattern.

    Useful e.g. to connect RNNs and convnets. The batch axis is not moved:
    `Permute((2, 1))` swaps axes 1 and 2.

    Args:
        dims: Tuple (or list) of ints, the permutation pattern, without the
            batch axis. Indexing starts at 1: `(1, 3, 2)` permutes the second
            and third axes of the input.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank `len(dims) + 1`.

    Input shape:
        Arbitrary, with rank `len(dims) + 1`.

    Output shape:
        Same rank as the input, with the axes reordered by `dims`.

    Raises:
        ValueError: If `dims` is not a permutation of `1..n`, or (on call) the
            input's rank is not `len(dims) + 1`.

    Example:
        >>> tfkit.layers.Permute((2, 1))(np.zeros((2, 10, 64))).shape
        TensorShape([2, 64, 10])
    """

    def __init__(self, dims: Sequence[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if (
            not isinstance(dims, (tuple, list))
            or not all(_is_int(d) for d in dims)
            or sorted(dims) != list(range(1, len(dims) + 1))
        ):
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
    """Repeats the input `n` times.

    A `(batch, features)` input becomes `(batch, n, features)`, with the
    input vector repeated along the new axis 1.

    Args:
        n: Positive integer, the repetition factor.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 2D tensor.

    Input shape:
        2D tensor with shape `(batch_size, features)`.

    Output shape:
        3D tensor with shape `(batch_size, n, features)`.

    Raises:
        ValueError: If `n` is not a positive integer, or (on call) the input
            is not 2D.

    Example:
        >>> tfkit.layers.RepeatVector(3)(np.array([[1.0, 2.0]], dtype="float32")).numpy()
        array([[[1., 2.],
                [1., 2.],
                [1., 2.]]], dtype=float32)
    """

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.n = positive_int(n, "n", f"RepeatVector layer '{self.name}'")
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
    """Upsampling layer for 2D inputs.

    With `interpolation="nearest"` (the default), the rows and columns of the
    data are repeated `size[0]` and `size[1]` times respectively. Other
    interpolations resize the images to the upsampled size with
    `tf.image.resize` (no antialiasing).

    Args:
        size: Int, or tuple of 2 ints, the upsampling factors for rows and
            columns (at least 1). Defaults to `(2, 2)`.
        data_format: `"channels_last"` (inputs `(batch, rows, cols,
            channels)`) or `"channels_first"` (inputs `(batch, channels, rows,
            cols)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        interpolation: A string, one of `"nearest"`, `"bilinear"`,
            `"bicubic"`, `"area"`, `"lanczos3"`, `"lanczos5"`. Defaults to
            `"nearest"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 4D tensor.

    Input shape:
        4D tensor with shape `(batch_size, rows, cols, channels)` if
        `data_format="channels_last"`, or `(batch_size, channels, rows, cols)`
        if `data_format="channels_first"`.

    Output shape:
        4D tensor with shape `(batch_size, upsampled_rows, upsampled_cols,
        channels)` if `data_format="channels_last"`, or `(batch_size,
        channels, upsampled_rows, upsampled_cols)` if
        `data_format="channels_first"`.

    Raises:
        ValueError: If `size` is not an int or a pair of positive ints,
            `data_format` or `interpolation` is not a known value, or (on
            call) the input is not 4D.

    Example:
        >>> x = np.arange(4, dtype="float32").reshape((1, 2, 2, 1))
        >>> y = tfkit.layers.UpSampling2D(size=(1, 2))(x)
        >>> y[0, :, :, 0].numpy()
        array([[0., 0., 1., 1.],
               [2., 2., 3., 3.]], dtype=float32)
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
        self.data_format = standardize_data_format(data_format, who)
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
    """Zero-padding layer for 2D input (e.g. picture).

    This layer can add rows and columns of zeros at the top, bottom, left and
    right side of an image tensor.

    Args:
        padding: Int, or tuple of 2 ints, or tuple of 2 tuples of 2 ints
            (all non-negative).

            - If int: the same symmetric padding is applied to height and
              width.
            - If tuple of 2 ints: interpreted as two different symmetric
              padding values for height and width:
              `(symmetric_height_pad, symmetric_width_pad)`.
            - If tuple of 2 tuples of 2 ints: interpreted as
              `((top_pad, bottom_pad), (left_pad, right_pad))`.

            Defaults to `(1, 1)`.
        data_format: `"channels_last"` (inputs `(batch, rows, cols,
            channels)`) or `"channels_first"` (inputs `(batch, channels, rows,
            cols)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 4D tensor.

    Input shape:
        4D tensor with shape `(batch_size, rows, cols, channels)` if
        `data_format="channels_last"`, or `(batch_size, channels, rows, cols)`
        if `data_format="channels_first"`.

    Output shape:
        4D tensor with shape `(batch_size, padded_rows, padded_cols,
        channels)` if `data_format="channels_last"`, or `(batch_size,
        channels, padded_rows, padded_cols)` if
        `data_format="channels_first"`.

    Raises:
        ValueError: If `padding` has another form or a negative entry,
            `data_format` is not one of the two formats, or (on call) the
            input is not 4D.

    Example:
        >>> x = np.ones((1, 1, 2, 1), dtype="float32")
        >>> y = tfkit.layers.ZeroPadding2D(padding=1)(x)
        >>> y.shape
        TensorShape([1, 3, 4, 1])
        >>> y[0, :, :, 0].numpy()
        array([[0., 0., 0., 0.],
               [0., 1., 1., 0.],
               [0., 0., 0., 0.]], dtype=float32)
    """

    def __init__(self, padding: Any = (1, 1), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"ZeroPadding2D layer '{self.name}'"
        self.padding = _two_sided(padding, "padding", who)
        self.data_format = standardize_data_format(data_format, who)
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
    """Cropping layer for 2D input (e.g. picture).

    It crops along the spatial dimensions, i.e. height and width.

    Args:
        cropping: Int, or tuple of 2 ints, or tuple of 2 tuples of 2 ints
            (all non-negative).

            - If int: the same symmetric cropping is applied to height and
              width.
            - If tuple of 2 ints: interpreted as two different symmetric
              cropping values for height and width:
              `(symmetric_height_crop, symmetric_width_crop)`.
            - If tuple of 2 tuples of 2 ints: interpreted as
              `((top_crop, bottom_crop), (left_crop, right_crop))`.

            Defaults to `((0, 0), (0, 0))`.
        data_format: `"channels_last"` (inputs `(batch, rows, cols,
            channels)`) or `"channels_first"` (inputs `(batch, channels, rows,
            cols)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 4D tensor.

    Input shape:
        4D tensor with shape `(batch_size, rows, cols, channels)` if
        `data_format="channels_last"`, or `(batch_size, channels, rows, cols)`
        if `data_format="channels_first"`.

    Output shape:
        4D tensor with shape `(batch_size, cropped_rows, cropped_cols,
        channels)` if `data_format="channels_last"`, or `(batch_size,
        channels, cropped_rows, cropped_cols)` if
        `data_format="channels_first"`.

    Raises:
        ValueError: If `cropping` has another form or a negative entry,
            `data_format` is not one of the two formats, the input is not 4D,
            or the cropping would leave no row or column.

    Example:
        >>> x = np.ones((2, 28, 28, 3))
        >>> tfkit.layers.Cropping2D(cropping=((2, 2), (4, 4)))(x).shape
        TensorShape([2, 24, 20, 3])
    """

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"Cropping2D layer '{self.name}'"
        self.cropping = _two_sided(cropping, "cropping", who)
        self.data_format = standardize_data_format(data_format, who)
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
