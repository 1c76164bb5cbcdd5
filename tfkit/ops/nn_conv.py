"""Convolutions of ``keras.ops.nn``: plain, depthwise, separable and transposed, 1-3 spatial axes.

    y = tfkit.ops.conv(images, kernel, strides=2, padding="same")            # kernel (*spatial, in, out)
    y = tfkit.ops.separable_conv(images, depthwise, pointwise, padding="same")
    y = tfkit.ops.conv_transpose(y, kernel, strides=2, padding="same")       # kernel (*spatial, out, in)

``data_format`` defaults to ``tfkit.backend.image_data_format()``. Channels-first
inputs are transposed around TensorFlow's CPU kernels, and strides combined with
dilation (which TensorFlow refuses) run as a strided convolution with a kernel
spread out by the dilation rate.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import settings as backend
from tfkit.base.data_format import from_channels_last, to_channels_last
from tfkit.ops._convert import export, float_of, tensor


def data_format_of(data_format: str | None, op: str) -> str:
    """``"channels_last"`` or ``"channels_first"``; ``None`` means the configured image data format."""
    data_format = backend.image_data_format() if data_format is None else str(data_format).lower()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{op}: data_format must be 'channels_last' or 'channels_first', got {data_format!r}")
    return data_format


def padding_of(padding: str, op: str) -> str:
    padding = str(padding).lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"{op}: padding must be 'valid' or 'same', got {padding!r}")
    return padding


def tuple_of(value: Any, rank: int, name: str, op: str) -> tuple[int, ...]:
    """``value`` (an int or ``rank`` ints, each >= 1) as a tuple of ``rank`` ints."""
    values = (value,) * rank if isinstance(value, int) else tuple(value)
    if len(values) != rank or not all(isinstance(v, int) and v >= 1 for v in values):
        raise ValueError(f"{op}: {name} must be a positive int or {rank} positive ints, got {value!r}")
    return values


def spatial_rank(inputs: tf.Tensor, allowed: Sequence[int], op: str) -> int:
    rank = len(inputs.shape) - 2
    if rank not in allowed:
        expected = " or ".join(str(r + 2) for r in allowed)
        raise ValueError(
            f"{op}: inputs must have rank {expected} (batch, spatial..., channels), got shape {tuple(inputs.shape)}"
        )
    return rank


def _check_channels(inputs: tf.Tensor, kernel: tf.Tensor, kernel_axis: int, op: str, name: str = "kernel") -> None:
    channels, expected = inputs.shape[-1], kernel.shape[kernel_axis]
    if channels is not None and expected is not None and channels != expected:
        raise ValueError(
            f"{op}: inputs have {channels} channels but {name} of shape {tuple(kernel.shape)} expects {expected}"
        )


def dilate_kernel(kernel: tf.Tensor, rates: Sequence[int]) -> tf.Tensor:
    """``kernel`` with ``rate - 1`` zeros between its taps along each spatial axis: a dilated kernel as a plain one."""
    for axis, rate in enumerate(rates):
        if rate == 1:
            continue
        size = kernel.shape[axis]
        moved = tf.experimental.numpy.moveaxis(kernel, axis, 0)
        spread = tf.pad(moved[:, None], [[0, 0], [0, rate - 1]] + [[0, 0]] * (len(kernel.shape) - 1))
        spread = tf.reshape(spread, [size * rate, *moved.shape[1:]])[: (size - 1) * rate + 1]
        kernel = tf.experimental.numpy.moveaxis(spread, 0, axis)
    return kernel


def _prepare(
    inputs: Any,
    kernels: Sequence[Any],
    strides: Any,
    padding: str,
    data_format: str | None,
    dilation_rate: Any,
    allowed: Sequence[int],
    op: str,
) -> tuple:
    inputs = float_of(tensor(inputs))
    kernels = [tf.cast(tensor(k), inputs.dtype) for k in kernels]
    rank = spatial_rank(inputs, allowed, op)
    data_format = data_format_of(data_format, op)
    padding = padding_of(padding, op)
    strides = tuple_of(strides, rank, "strides", op)
    dilation = tuple_of(dilation_rate, rank, "dilation_rate", op)
    inputs = to_channels_last(inputs, data_format)
    return inputs, kernels, rank, data_format, padding, strides, dilation


def _finish(outputs: tf.Tensor, data_format: str) -> tf.Tensor:
    return from_channels_last(outputs, data_format)


def conv(
    inputs: Any,
    kernel: Any,
    strides: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> tf.Tensor:
    """General N-D convolution.

    This ops supports 1D, 2D and 3D convolution. When `inputs` has a multiple
    of the kernel's input channels, it is a grouped convolution: the channels
    are split into `num_channels // num_input_channels` groups, each convolved
    with its share of the kernel's output channels.

    Strides combined with a dilation rate above 1 (which TensorFlow refuses)
    run as a strided convolution with the kernel spread out by the dilation
    rate.

    Args:
        inputs: Tensor of rank N+2. `inputs` has shape
            `(batch_size,) + inputs_spatial_shape + (num_channels,)` if
            `data_format="channels_last"`, or
            `(batch_size, num_channels) + inputs_spatial_shape` if
            `data_format="channels_first"`. Integer inputs are read as float32.
        kernel: Tensor of rank N+2. `kernel` has shape
            `(kernel_spatial_shape, num_input_channels, num_output_channels)`.
            `num_input_channels` should match the number of channels in
            `inputs` (or divide it, for a grouped convolution).
        strides: int or int tuple/list of `len(inputs_spatial_shape)`,
            specifying the strides of the convolution along each spatial
            dimension. If `strides` is int, then every spatial dimension shares
            the same `strides`. Defaults to `1`.
        padding: string, either `"valid"` or `"same"`. `"valid"` means no
            padding is applied, and `"same"` results in padding evenly to the
            left/right or up/down of the input such that output has the
            same height/width dimension as the input when `strides=1`.
            Defaults to `"valid"`.
        data_format: A string, either `"channels_last"` or `"channels_first"`.
            `data_format` determines the ordering of the dimensions in the
            inputs. If `data_format="channels_last"`, `inputs` is of shape
            `(batch_size, ..., channels)` while if
            `data_format="channels_first"`, `inputs` is of shape
            `(batch_size, channels, ...)`. `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: int or int tuple/list of `len(inputs_spatial_shape)`,
            specifying the dilation rate to use for dilated convolution. If
            `dilation_rate` is int, then every spatial dimension shares
            the same `dilation_rate`. Defaults to `1`.

    Returns:
        A tensor of rank N+2, the result of the conv operation.

    Raises:
        ValueError: If `inputs` has an unsupported rank, if `padding` or
            `data_format` is not one of the values above, if `strides` or
            `dilation_rate` is not a positive int or one positive int per
            spatial axis, or if the kernel does not fit the channels of
            `inputs`.

    Example:
        >>> x = np.ones((1, 5, 5, 2), "float32")
        >>> kernel = np.ones((3, 3, 2, 4), "float32")
        >>> tfkit.ops.conv(x, kernel).shape
        TensorShape([1, 3, 3, 4])
        >>> tfkit.ops.conv(x, kernel, strides=2, padding="same").shape
        TensorShape([1, 3, 3, 4])
        >>> signal = np.arange(5.0, dtype="float32").reshape(1, 5, 1)
        >>> tfkit.ops.conv(signal, np.ones((3, 1, 1), "float32"))[0, :, 0].numpy()
        array([3., 6., 9.], dtype=float32)
    """
    inputs, (kernel,), rank, data_format, padding, strides, dilation = _prepare(
        inputs, [kernel], strides, padding, data_format, dilation_rate, (1, 2, 3), "conv"
    )
    if len(kernel.shape) != rank + 2:
        raise ValueError(
            f"conv: kernel must have rank {rank + 2} (*spatial, in, out) for inputs of rank {rank + 2}, "
            f"got shape {tuple(kernel.shape)}"
        )
    in_channels, kernel_in = inputs.shape[-1], kernel.shape[-2]
    groups_ok = in_channels is None or kernel_in is None or in_channels % kernel_in == 0
    if not groups_ok:
        raise ValueError(
            f"conv: inputs have {in_channels} channels, not a multiple of the kernel's input channels "
            f"{kernel_in} (kernel shape {tuple(kernel.shape)})"
        )
    if max(strides) > 1 and max(dilation) > 1:
        kernel, dilation = dilate_kernel(kernel, dilation), (1,) * rank
    groups = 1 if in_channels is None or kernel_in is None else in_channels // kernel_in
    if groups > 1 and kernel.shape[-1] is not None and kernel.shape[-1] % groups:
        raise ValueError(
            f"conv: a grouped convolution ({groups} groups) needs output channels divisible by "
            f"{groups}, got kernel shape {tuple(kernel.shape)}"
        )
    pieces = (
        zip(tf.split(inputs, groups, axis=-1), tf.split(kernel, groups, axis=-1)) if groups > 1 else [(inputs, kernel)]
    )
    outputs = [tf.nn.convolution(x, k, strides=strides, padding=padding.upper(), dilations=dilation) for x, k in pieces]
    return _finish(outputs[0] if len(outputs) == 1 else tf.concat(outputs, axis=-1), data_format)


def _depthwise_2d(
    inputs: tf.Tensor,
    kernel: tf.Tensor,
    strides: tuple,
    padding: str,
    dilation: tuple,
    pointwise: tf.Tensor | None = None,
) -> tf.Tensor:
    if max(strides) > 1 and max(dilation) > 1:
        kernel, dilation = dilate_kernel(kernel, dilation), (1, 1)
    if pointwise is None:
        return tf.nn.depthwise_conv2d(inputs, kernel, [1, *strides, 1], padding.upper(), dilations=dilation)
    return tf.nn.separable_conv2d(inputs, kernel, pointwise, [1, *strides, 1], padding.upper(), dilations=dilation)


def depthwise_conv(
    inputs: Any,
    kernel: Any,
    strides: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> tf.Tensor:
    """General N-D depthwise convolution.

    This ops supports 1D and 2D depthwise convolution. Each input channel is
    convolved with its own `num_channels_multiplier` filters, giving
    `num_input_channels * num_channels_multiplier` output channels.

    Strides combined with a dilation rate above 1 (which TensorFlow refuses)
    run as a strided convolution with the kernel spread out by the dilation
    rate.

    Args:
        inputs: Tensor of rank N+2. `inputs` has shape
            `(batch_size,) + inputs_spatial_shape + (num_channels,)` if
            `data_format="channels_last"`, or
            `(batch_size, num_channels) + inputs_spatial_shape` if
            `data_format="channels_first"`. Integer inputs are read as float32.
        kernel: Tensor of rank N+2. `kernel` has shape
            `(kernel_spatial_shape, num_input_channels, num_channels_multiplier)`.
            `num_input_channels` should match the number of channels in
            `inputs`.
        strides: int or int tuple/list of `len(inputs_spatial_shape)`,
            specifying the strides of the convolution along each spatial
            dimension. If `strides` is int, then every spatial dimension shares
            the same `strides`. Defaults to `1`.
        padding: string, either `"valid"` or `"same"`. `"valid"` means no
            padding is applied, and `"same"` results in padding evenly to the
            left/right or up/down of the input such that output has the
            same height/width dimension as the input when `strides=1`.
            Defaults to `"valid"`.
        data_format: A string, either `"channels_last"` or `"channels_first"`.
            `data_format` determines the ordering of the dimensions in the
            inputs. If `data_format="channels_last"`, `inputs` is of shape
            `(batch_size, ..., channels)` while if
            `data_format="channels_first"`, `inputs` is of shape
            `(batch_size, channels, ...)`. `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: int or int tuple/list of `len(inputs_spatial_shape)`,
            specifying the dilation rate to use for dilated convolution. If
            `dilation_rate` is int, then every spatial dimension shares
            the same `dilation_rate`. Defaults to `1`.

    Returns:
        A tensor of rank N+2, the result of the depthwise conv operation.

    Raises:
        ValueError: If `inputs` has an unsupported rank, if `padding` or
            `data_format` is not one of the values above, if `strides` or
            `dilation_rate` is not a positive int or one positive int per
            spatial axis, or if the kernel does not fit the channels of
            `inputs`.

    Example:
        >>> x = np.ones((1, 5, 5, 2), "float32")
        >>> kernel = np.ones((3, 3, 2, 3), "float32")
        >>> tfkit.ops.depthwise_conv(x, kernel).shape
        TensorShape([1, 3, 3, 6])
    """
    inputs, (kernel,), rank, data_format, padding, strides, dilation = _prepare(
        inputs, [kernel], strides, padding, data_format, dilation_rate, (1, 2), "depthwise_conv"
    )
    _check_channels(inputs, kernel, -2, "depthwise_conv")
    if rank == 1:
        out = _depthwise_2d(inputs[:, None], kernel[None], (1, *strides), padding, (1, *dilation))
        return _finish(out[:, 0], data_format)
    return _finish(_depthwise_2d(inputs, kernel, strides, padding, dilation), data_format)


def separable_conv(
    inputs: Any,
    depthwise_kernel: Any,
    pointwise_kernel: Any,
    strides: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> tf.Tensor:
    """General N-D separable convolution.

    This ops supports 1D and 2D separable convolution. `separable_conv` is
    a depthwise conv followed by a pointwise conv.

    Strides combined with a dilation rate above 1 (which TensorFlow refuses)
    run as a strided convolution with the kernel spread out by the dilation
    rate.

    Args:
        inputs: Tensor of rank N+2. `inputs` has shape
            `(batch_size,) + inputs_spatial_shape + (num_channels,)` if
            `data_format="channels_last"`, or
            `(batch_size, num_channels) + inputs_spatial_shape` if
            `data_format="channels_first"`. Integer inputs are read as float32.
        depthwise_kernel: Tensor of rank N+2. `depthwise_kernel` has shape
            `[kernel_spatial_shape, num_input_channels, num_channels_multiplier]`,
            `num_input_channels` should match the number of channels in
            `inputs`.
        pointwise_kernel: Tensor of rank N+2. `pointwise_kernel` has shape
            `(*ones_like(kernel_spatial_shape),
            num_input_channels * num_channels_multiplier, num_output_channels)`.
        strides: int or int tuple/list of `len(inputs_spatial_shape)`,
            specifying the strides of the convolution along each spatial
            dimension. If `strides` is int, then every spatial dimension shares
            the same `strides`. Defaults to `1`.
        padding: string, either `"valid"` or `"same"`. `"valid"` means no
            padding is applied, and `"same"` results in padding evenly to the
            left/right or up/down of the input such that output has the
            same height/width dimension as the input when `strides=1`.
            Defaults to `"valid"`.
        data_format: A string, either `"channels_last"` or `"channels_first"`.
            `data_format` determines the ordering of the dimensions in the
            inputs. If `data_format="channels_last"`, `inputs` is of shape
            `(batch_size, ..., channels)` while if
            `data_format="channels_first"`, `inputs` is of shape
            `(batch_size, channels, ...)`. `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: int or int tuple/list of `len(inputs_spatial_shape)`,
            specifying the dilation rate to use for dilated convolution. If
            `dilation_rate` is int, then every spatial dimension shares
            the same `dilation_rate`. Defaults to `1`.

    Returns:
        A tensor of rank N+2, the result of the separable conv operation.

    Raises:
        ValueError: If `inputs` has an unsupported rank, if `padding` or
            `data_format` is not one of the values above, if `strides` or
            `dilation_rate` is not a positive int or one positive int per
            spatial axis, or if the kernel does not fit the channels of
            `inputs`.

    Example:
        >>> x = np.ones((1, 5, 5, 2), "float32")
        >>> depthwise = np.ones((3, 3, 2, 1), "float32")
        >>> pointwise = np.ones((1, 1, 2, 4), "float32")
        >>> tfkit.ops.separable_conv(x, depthwise, pointwise, padding="same").shape
        TensorShape([1, 5, 5, 4])
    """
    inputs, (depthwise, pointwise), rank, data_format, padding, strides, dilation = _prepare(
        inputs,
        [depthwise_kernel, pointwise_kernel],
        strides,
        padding,
        data_format,
        dilation_rate,
        (1, 2),
        "separable_conv",
    )
    _check_channels(inputs, depthwise, -2, "separable_conv", "depthwise_kernel")
    if rank == 1:
        out = _depthwise_2d(inputs[:, None], depthwise[None], (1, *strides), padding, (1, *dilation), pointwise[None])
        return _finish(out[:, 0], data_format)
    return _finish(_depthwise_2d(inputs, depthwise, strides, padding, dilation, pointwise), data_format)


def transpose_output_size(
    size: Any, kernel: int, stride: int, padding: str, output_padding: int | None, dilation: int
) -> Any:
    """The length of one spatial axis after a transposed convolution (Keras's rule)."""
    kernel = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = max(kernel, stride) - kernel if output_padding is None else output_padding
        return (size - 1) * stride + kernel + extra
    if output_padding is None:
        return size * stride
    return (size - 1) * stride + kernel % 2 + output_padding


def conv_transpose(
    inputs: Any,
    kernel: Any,
    strides: Any = 1,
    padding: str = "valid",
    output_padding: Any = None,
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> tf.Tensor:
    """General N-D convolution transpose.

    Also known as de-convolution. This ops supports 1D, 2D and 3D convolution.
    It is the gradient of `conv` with respect to its input; the output size
    along each spatial axis follows Keras's rule (for `"same"` padding without
    `output_padding`, `input_size * stride`).

    Args:
        inputs: Tensor of rank N+2. `inputs` has shape
            `(batch_size,) + inputs_spatial_shape + (num_channels,)` if
            `data_format="channels_last"`, or
            `(batch_size, num_channels) + inputs_spatial_shape` if
            `data_format="channels_first"`. Integer inputs are read as float32.
        kernel: Tensor of rank N+2. `kernel` has shape
            `(kernel_spatial_shape, num_output_channels, num_input_channels)`,
            `num_input_channels` should match the number of channels in
            `inputs`.
        strides: int or int tuple/list of `len(inputs_spatial_shape)`,
            specifying the strides of the convolution along each spatial
            dimension. If `strides` is int, then every spatial dimension shares
            the same `strides`. Defaults to `1`.
        padding: string, either `"valid"` or `"same"`. `"valid"` means no
            padding is applied, and `"same"` results in padding evenly to the
            left/right or up/down of the input such that output has the
            same height/width dimension as the input when `strides=1`.
            Defaults to `"valid"`.
        output_padding: int or int tuple/list of `len(inputs_spatial_shape)`,
            specifying the amount of padding along the height and width of
            the output tensor. Can be a single integer to specify the same
            value for all spatial dimensions. The amount of output padding
            along a given dimension must be lower than the stride along that
            same dimension. If set to `None` (default), the output shape is
            inferred.
        data_format: A string, either `"channels_last"` or `"channels_first"`.
            `data_format` determines the ordering of the dimensions in the
            inputs. If `data_format="channels_last"`, `inputs` is of shape
            `(batch_size, ..., channels)` while if
            `data_format="channels_first"`, `inputs` is of shape
            `(batch_size, channels, ...)`. `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: int or int tuple/list of `len(inputs_spatial_shape)`,
            specifying the dilation rate to use for dilated convolution. If
            `dilation_rate` is int, then every spatial dimension shares
            the same `dilation_rate`. Defaults to `1`.

    Returns:
        A tensor of rank N+2, the result of the conv operation.

    Raises:
        ValueError: If `inputs` has an unsupported rank, if `padding` or
            `data_format` is not one of the values above, if `strides` or
            `dilation_rate` is not a positive int or one positive int per
            spatial axis, or if the kernel does not fit the channels of
            `inputs`.
        ValueError: If `output_padding` does not hold one int per spatial axis.

    Example:
        >>> x = np.ones((1, 4, 4, 3), "float32")
        >>> kernel = np.ones((3, 3, 2, 3), "float32")
        >>> tfkit.ops.conv_transpose(x, kernel, strides=2, padding="same").shape
        TensorShape([1, 8, 8, 2])
        >>> tfkit.ops.conv_transpose(x, kernel, strides=2).shape
        TensorShape([1, 9, 9, 2])
    """
    inputs, (kernel,), rank, data_format, padding, strides, dilation = _prepare(
        inputs, [kernel], strides, padding, data_format, dilation_rate, (1, 2, 3), "conv_transpose"
    )
    _check_channels(inputs, kernel, -1, "conv_transpose")
    if output_padding is not None:
        output_padding = (output_padding,) * rank if isinstance(output_padding, int) else tuple(output_padding)
        if len(output_padding) != rank:
            raise ValueError(f"conv_transpose: output_padding must be an int or {rank} ints, got {output_padding!r}")
    dynamic = tf.shape(inputs)
    sizes = [inputs.shape[i + 1] if inputs.shape[i + 1] is not None else dynamic[i + 1] for i in range(rank)]
    spatial = [
        transpose_output_size(
            sizes[i],
            kernel.shape[i],
            strides[i],
            padding,
            None if output_padding is None else output_padding[i],
            dilation[i],
        )
        for i in range(rank)
    ]
    output_shape = tf.stack([dynamic[0], *[tf.cast(s, tf.int32) for s in spatial], tf.shape(kernel)[-2]])
    kernel = dilate_kernel(kernel, dilation)
    outputs = tf.nn.conv_transpose(inputs, kernel, output_shape, strides, padding=padding.upper())
    return _finish(outputs, data_format)


__all__ = ["conv", "depthwise_conv", "separable_conv", "conv_transpose"]
export(globals(), __all__)
