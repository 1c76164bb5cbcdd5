"""Argument checks and shape arithmetic shared by convolution and pooling layers.

    conv_utils.normalize_tuple(3, 2, "kernel_size", "Conv2D layer 'conv2d'")  # (3, 3)
    conv_utils.conv_output_length(7, 3, "valid", stride=2)                    # 3
    conv_utils.deconv_output_length(3, 3, "valid", stride=2)                  # 7

Every layer computes in channels-last layout: ``channels_first`` inputs are
transposed in and out with ``tfkit.base.data_format``'s ``to_channels_last`` /
``from_channels_last``, because TensorFlow's CPU kernels only implement
channels-last convolution and pooling.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base.argument_validation import as_int

_SPATIAL_NAMES = {1: "steps", 2: "height, width", 3: "depth, height, width"}


def layout(rank: int, data_format: str) -> str:
    """``"(batch, height, width, channels)"``: the expected input layout, for error messages."""
    spatial = _SPATIAL_NAMES[rank]
    if data_format == "channels_last":
        return f"(batch, {spatial}, channels)"
    return f"(batch, channels, {spatial})"


def layer_label(layer: Any) -> str:
    """``"Conv2D layer 'conv2d'"``: how error messages name a layer."""
    return f"{type(layer).__name__} layer '{layer.name}'"


def normalize_tuple(value: Any, n: int, what: str, who: str, allow_zero: bool = False) -> tuple[int, ...]:
    """``value`` (an int or ``n`` ints) as a tuple of ``n`` positive ints."""
    lowest = 0 if allow_zero else 1
    kind = "non-negative" if allow_zero else "positive"
    single = as_int(value)
    if single is not None:
        values = (single,) * n
    elif isinstance(value, (list, tuple)) and len(value) == n and all(as_int(v) is not None for v in value):
        values = tuple(as_int(v) for v in value)
    else:
        raise ValueError(f"{who} expected `{what}` to be an int or a tuple of {n} ints, got {value!r}")
    if any(v < lowest for v in values):
        raise ValueError(f"{who} expected every value of `{what}` to be {kind}, got {value!r}")
    return values


def normalize_padding(value: Any, who: str, allow_causal: bool = False) -> str:
    """``"valid"``, ``"same"`` (or ``"causal"`` where allowed), case-insensitive."""
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    padding = value.lower() if isinstance(value, str) else value
    if padding not in allowed:
        raise ValueError(f"{who} expected `padding` to be one of {allowed}, got {value!r}")
    return padding


def check_input_rank(input_shape: Sequence[Any], rank: int, who: str, expected: str) -> tuple:
    """``input_shape`` as a tuple, after checking it has ``rank`` dimensions."""
    shape = tuple(input_shape)
    if len(shape) != rank:
        raise ValueError(f"{who} expected inputs of rank {rank} {expected}, got shape {shape}")
    return shape


def spatial_dims(shape: tuple, data_format: str) -> tuple:
    """The spatial part of a full input shape."""
    return shape[1:-1] if data_format == "channels_last" else shape[2:]


def channel_dim(shape: tuple, data_format: str) -> Any:
    return shape[-1] if data_format == "channels_last" else shape[1]


def assemble_shape(batch: Any, spatial: Sequence[Any], channels: Any, data_format: str) -> tuple:
    """Inverse of :func:`spatial_dims` / :func:`channel_dim`."""
    if data_format == "channels_last":
        return (batch, *spatial, channels)
    return (batch, channels, *spatial)


def conv_output_length(length: Any, kernel_size: int, padding: str, stride: int, dilation: int = 1) -> Any:
    """Length of one spatial axis after a convolution or pooling window (``None`` stays ``None``)."""
    if length is None:
        return None
    effective = (kernel_size - 1) * dilation + 1
    if padding == "valid":
        covered = length - effective + 1
    else:  # "same" and "causal" keep every position
        covered = length
    return (covered + stride - 1) // stride


def deconv_output_length(
    length: Any, kernel_size: int, padding: str, stride: int, dilation: int = 1, output_padding: int | None = None
) -> Any:
    """Length of one spatial axis after a transposed convolution (works on ints and scalar tensors)."""
    if length is None:
        return None
    effective = (kernel_size - 1) * dilation + 1
    if padding == "valid":
        extra = max(effective, stride) - effective if output_padding is None else output_padding
        return (length - 1) * stride + effective + extra
    if output_padding is None:
        return length * stride
    return (length - 1) * stride + effective % 2 + output_padding


def check_positive_output(shape: tuple, input_shape: tuple, who: str) -> tuple:
    """Raise when a window does not fit the input (an output dimension <= 0)."""
    if any(d is not None and d <= 0 for d in shape):
        raise ValueError(
            f"{who}: the window does not fit the input; input shape {tuple(input_shape)} "
            f"would give output shape {tuple(shape)}. Use a larger input, a smaller window or padding='same'."
        )
    return shape


def dilate_kernel(kernel: tf.Tensor, dilation: Sequence[int]) -> tf.Tensor:
    """Insert ``d - 1`` zeros between kernel taps along each spatial axis.

    A transposed convolution with dilation ``d`` equals one with dilation 1
    and this kernel; TensorFlow's CPU kernels lack the dilated form.
    """
    for axis, d in enumerate(dilation):
        if d == 1:
            continue
        size = kernel.shape[axis]
        taps = tf.unstack(kernel, axis=axis)
        zeros = tf.zeros_like(taps[0])
        spaced = []
        for i, tap in enumerate(taps):
            spaced.append(tap)
            if i < size - 1:
                spaced.extend([zeros] * (d - 1))
        kernel = tf.stack(spaced, axis=axis)
    return kernel


def same_padding(length: Any, window: int, stride: int) -> tuple[Any, Any]:
    """TensorFlow's ``"SAME"`` padding ``(before, after)`` for one axis (ints or scalar tensors).

    ``window`` is the effective (dilated) window size; the output keeps
    ``ceil(length / stride)`` positions and any odd padding goes after.
    """
    out = (length + stride - 1) // stride
    needed = (out - 1) * stride + window - length
    total = tf.maximum(needed, 0) if tf.is_tensor(needed) else max(needed, 0)
    return total // 2, total - total // 2


def spatial_sizes(inputs: tf.Tensor) -> list[Any]:
    """Spatial sizes of a channels-last tensor: Python ints where static, scalar tensors otherwise."""
    dynamic = tf.shape(inputs)
    return [d if d is not None else dynamic[i + 1] for i, d in enumerate(inputs.shape.as_list()[1:-1])]
