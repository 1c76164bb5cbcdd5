"""1-D and 3-D versions of the spatial reshaping layers: up-sampling, zero padding, cropping.

y = tfkit.layers.UpSampling1D(2)(x)                 # (batch, steps, ch) -> (batch, 2 * steps, ch)
y = tfkit.layers.ZeroPadding3D(1)(volumes)          # one plane of zeros on every side
y = tfkit.layers.Cropping1D((1, 2))(x)              # drop 1 step at the start, 2 at the end
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.data_format import standardize_data_format
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers.core import check_input_spec
from tfkit.layers.reshaping import _is_int

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
        self.data_format = standardize_data_format(data_format, who)
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
    """Upsampling layer for 1D inputs.

    Repeats each temporal step `size` times along the time axis.

    Args:
        size: Positive integer, the upsampling factor. Defaults to `2`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D tensor.

    Input shape:
        3D tensor with shape `(batch_size, steps, features)`.

    Output shape:
        3D tensor with shape `(batch_size, upsampled_steps, features)`.

    Raises:
        ValueError: If `size` is not a positive integer, or (on call) the
            input is not 3D.

    Example:
        >>> x = np.array([[[1.0], [2.0]]], dtype="float32")
        >>> tfkit.layers.UpSampling1D(size=2)(x)[0, :, 0].numpy()
        array([1., 1., 2., 2.], dtype=float32)
    """

    rank = 1

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(size, data_format="channels_last", **kwargs)  # no data_format in Keras: always steps-first

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "size": self.size[0]}


@registry.builtin("layers")
class UpSampling3D(_UpSampling):
    """Upsampling layer for 3D inputs.

    Repeats the 1st, 2nd and 3rd spatial dimensions of the data by `size[0]`,
    `size[1]` and `size[2]` respectively.

    Args:
        size: Int, or tuple of 3 ints, the upsampling factors for `dim1`,
            `dim2` and `dim3` (at least 1). Defaults to `(2, 2, 2)`.
        data_format: `"channels_last"` (inputs `(batch, dim1, dim2, dim3,
            channels)`) or `"channels_first"` (inputs `(batch, channels, dim1,
            dim2, dim3)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 5D tensor.

    Input shape:
        5D tensor with shape `(batch_size, dim1, dim2, dim3, channels)` if
        `data_format="channels_last"`, or `(batch_size, channels, dim1, dim2,
        dim3)` if `data_format="channels_first"`.

    Output shape:
        5D tensor with each spatial dimension multiplied by its factor, e.g.
        `(batch_size, upsampled_dim1, upsampled_dim2, upsampled_dim3,
        channels)` for `"channels_last"`.

    Raises:
        ValueError: If `size` is not an int or 3 positive ints, `data_format`
            is not one of the two formats, or (on call) the input is not 5D.

    Example:
        >>> tfkit.layers.UpSampling3D(size=2)(np.ones((2, 1, 2, 1, 3))).shape
        TensorShape([2, 2, 4, 2, 3])
    """

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
        self.data_format = standardize_data_format(data_format, who)
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
    """Zero-padding layer for 1D input (e.g. temporal sequence).

    Adds zeros at the start and end of the time axis (axis 1, or axis 2 with
    `data_format="channels_first"`).

    Args:
        padding: Int, or tuple of 2 ints (non-negative).

            - If int: how many zeros to add at the start and at the end of the
              padding dimension.
            - If tuple of 2 ints: how many zeros to add at the start and at
              the end of the padding dimension (`(left_pad, right_pad)`).

            Defaults to `1`.
        data_format: `"channels_last"` (inputs `(batch, steps, features)`) or
            `"channels_first"` (inputs `(batch, features, steps)`). Defaults to
            `None`, which means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D tensor.

    Input shape:
        3D tensor with shape `(batch_size, axis_to_pad, features)` for
        `"channels_last"`, or `(batch_size, features, axis_to_pad)` for
        `"channels_first"`.

    Output shape:
        3D tensor with `axis_to_pad` grown by `left_pad + right_pad`.

    Raises:
        ValueError: If `padding` is not an int or 2 non-negative ints,
            `data_format` is not one of the two formats, or (on call) the
            input is not 3D.

    Example:
        >>> x = np.ones((1, 2, 1), dtype="float32")
        >>> tfkit.layers.ZeroPadding1D(padding=(1, 2))(x)[0, :, 0].numpy()
        array([0., 1., 1., 0., 0.], dtype=float32)
    """

    rank, what = 1, "padding"

    def __init__(self, padding: Any = 1, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(padding, data_format=data_format, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "padding": self._config_amounts(), "data_format": self.data_format}


@registry.builtin("layers")
class ZeroPadding3D(_Borders):
    """Zero-padding layer for 3D data (spatial or spatio-temporal).

    Adds planes of zeros on both sides of each of the three spatial
    dimensions.

    Args:
        padding: Int, or tuple of 3 ints, or tuple of 3 tuples of 2 ints (all
            non-negative).

            - If int: the same symmetric padding is applied to the three
              spatial dimensions.
            - If tuple of 3 ints: interpreted as three different symmetric
              padding values: `(symmetric_dim1_pad, symmetric_dim2_pad,
              symmetric_dim3_pad)`.
            - If tuple of 3 tuples of 2 ints: interpreted as
              `((left_dim1_pad, right_dim1_pad), (left_dim2_pad,
              right_dim2_pad), (left_dim3_pad, right_dim3_pad))`.

            Defaults to `((1, 1), (1, 1), (1, 1))`.
        data_format: `"channels_last"` (inputs `(batch, dim1, dim2, dim3,
            channels)`) or `"channels_first"` (inputs `(batch, channels, dim1,
            dim2, dim3)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 5D tensor.

    Input shape:
        5D tensor with shape `(batch_size, dim1, dim2, dim3, channels)` if
        `data_format="channels_last"`, or `(batch_size, channels, dim1, dim2,
        dim3)` if `data_format="channels_first"`.

    Output shape:
        5D tensor with each spatial dimension grown by its two paddings.

    Raises:
        ValueError: If `padding` has another form or a negative entry,
            `data_format` is not one of the two formats, or (on call) the
            input is not 5D.

    Example:
        >>> tfkit.layers.ZeroPadding3D(padding=(1, 0, 2))(np.ones((1, 2, 2, 2, 3))).shape
        TensorShape([1, 4, 2, 6, 3])
    """

    rank, what = 3, "padding"

    def __init__(self, padding: Any = ((1, 1), (1, 1), (1, 1)), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(padding, data_format=data_format, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "padding": self._config_amounts(), "data_format": self.data_format}


@registry.builtin("layers")
class Cropping1D(_Borders):
    """Cropping layer for 1D input (e.g. temporal sequence).

    It crops along the time dimension (axis 1).

    Args:
        cropping: Int, or tuple of 2 ints (non-negative): how many units should
            be trimmed off at the beginning and end of the cropping dimension
            (axis 1). If a single int is provided, the same value is used for
            both. Defaults to `(1, 1)`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D tensor.

    Input shape:
        3D tensor with shape `(batch_size, axis_to_crop, features)`.

    Output shape:
        3D tensor with shape `(batch_size, cropped_axis, features)`.

    Raises:
        ValueError: If `cropping` is not an int or 2 non-negative ints, the
            input is not 3D, or the cropping would leave no step.

    Example:
        >>> x = np.arange(5, dtype="float32").reshape((1, 5, 1))
        >>> tfkit.layers.Cropping1D(cropping=(1, 2))(x)[0, :, 0].numpy()
        array([1., 2.], dtype=float32)
    """

    rank, what = 1, "cropping"

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(cropping, data_format="channels_last", **kwargs)  # no data_format in Keras: always steps-first

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "cropping": self._config_amounts()}


@registry.builtin("layers")
class Cropping3D(_Borders):
    """Cropping layer for 3D data (e.g. spatial or spatio-temporal).

    It crops along the three spatial dimensions.

    Args:
        cropping: Int, or tuple of 3 ints, or tuple of 3 tuples of 2 ints (all
            non-negative).

            - If int: the same symmetric cropping is applied to the three
              spatial dimensions.
            - If tuple of 3 ints: interpreted as three different symmetric
              cropping values: `(symmetric_dim1_crop, symmetric_dim2_crop,
              symmetric_dim3_crop)`.
            - If tuple of 3 tuples of 2 ints: interpreted as
              `((left_dim1_crop, right_dim1_crop), (left_dim2_crop,
              right_dim2_crop), (left_dim3_crop, right_dim3_crop))`.

            Defaults to `((1, 1), (1, 1), (1, 1))`.
        data_format: `"channels_last"` (inputs `(batch, dim1, dim2, dim3,
            channels)`) or `"channels_first"` (inputs `(batch, channels, dim1,
            dim2, dim3)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 5D tensor.

    Input shape:
        5D tensor with shape `(batch_size, dim1, dim2, dim3, channels)` if
        `data_format="channels_last"`, or `(batch_size, channels, dim1, dim2,
        dim3)` if `data_format="channels_first"`.

    Output shape:
        5D tensor with each spatial dimension shrunk by its two croppings.

    Raises:
        ValueError: If `cropping` has another form or a negative entry,
            `data_format` is not one of the two formats, the input is not 5D,
            or the cropping would leave nothing along a spatial dimension.

    Example:
        >>> x = np.ones((2, 28, 28, 10, 3))
        >>> tfkit.layers.Cropping3D(cropping=(2, 4, 2))(x).shape
        TensorShape([2, 24, 20, 6, 3])
    """

    rank, what = 3, "cropping"

    def __init__(self, cropping: Any = ((1, 1), (1, 1), (1, 1)), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(cropping, data_format=data_format, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "cropping": self._config_amounts(), "data_format": self.data_format}
