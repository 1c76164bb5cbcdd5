"""Merging layers, called on a list of tensors: ``Add``, ``Subtract``, ``Multiply``, ``Average``,
``Maximum``, ``Minimum``, ``Concatenate``, ``Dot``.

    a, b = tf.ones((2, 3)), tf.fill((2, 3), 2.0)
    tfkit.layers.Add()([a, b])                  # all 3.0
    tfkit.layers.Concatenate()([a, b]).shape    # (2, 6)

Masks follow Keras 3: element-wise merges give the logical OR of the input
masks when every input has one (else no mask); ``Concatenate`` concatenates
the masks (an unmasked input counts as all true); ``Dot`` gives no mask.
"""

from __future__ import annotations

import string
from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config

__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot"]


def _shape_list(layer: Layer, input_shape: Any, exactly: int | None = None) -> list[tuple | None]:
    """The list of input shapes, or a ``ValueError`` naming the layer."""
    who = f"{type(layer).__name__} layer '{layer.name}'"
    if (
        not isinstance(input_shape, (list, tuple))
        or not input_shape
        or not all(s is None or isinstance(s, (list, tuple)) for s in input_shape)
    ):
        raise ValueError(f"{who} should be called on a list of tensors, got input shape {input_shape!r}")
    if exactly is not None and len(input_shape) != exactly:
        raise ValueError(f"{who} should be called on exactly {exactly} inputs, got {len(input_shape)}")
    return [None if s is None else tuple(s) for s in input_shape]


def _check_list(layer: Layer, inputs: Any) -> list:
    if not isinstance(inputs, (list, tuple)):
        raise ValueError(
            f"{type(layer).__name__} layer '{layer.name}' should be called on a list of tensors, "
            f"got {type(inputs).__name__}"
        )
    return list(inputs)


def _broadcast_dims(who: str, shape1: tuple | None, shape2: tuple | None) -> tuple | None:
    """Non-batch output shape of an element-wise op on shapes aligned at the right."""
    if shape1 is None or shape2 is None:
        return None
    if len(shape1) < len(shape2):
        shape1, shape2 = shape2, shape1
    if not shape2:
        return shape1
    out = list(shape1[: len(shape1) - len(shape2)])
    for i, j in zip(shape1[len(shape1) - len(shape2) :], shape2):
        if i is None or j is None:
            out.append(None)
        elif i == 1 or j == 1:
            out.append(j if i == 1 else i)
        elif i != j:
            raise ValueError(f"{who}: inputs have incompatible shapes {shape1} and {shape2}")
        else:
            out.append(i)
    return tuple(out)


class _ElementwiseMerge(Layer):
    """Base of the element-wise merges: broadcasting, rank alignment and the OR mask."""

    _exact_inputs: int | None = None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        self.compute_output_shape(input_shape)  # shape validation only

    def _merge(self, inputs: list[tf.Tensor]) -> tf.Tensor:
        raise NotImplementedError

    def call(self, inputs: Sequence[tf.Tensor]) -> tf.Tensor:
        inputs = _check_list(self, inputs)
        _shape_list(self, [tuple(x.shape.as_list()) for x in inputs], self._exact_inputs)
        ranks = [x.shape.rank for x in inputs]
        if len(set(ranks)) > 1:  # align ranks as Keras does: new axes right after the batch axis
            top = max(ranks)
            aligned = []
            for x, rank in zip(inputs, ranks):
                for _ in range(top - rank):
                    x = tf.expand_dims(x, 1)
                aligned.append(x)
            inputs = aligned
        return self._merge(inputs)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shapes = _shape_list(self, input_shape, self._exact_inputs)
        who = f"{type(self).__name__} layer '{self.name}'"
        batch_sizes = {s[0] for s in shapes if s} - {None}
        if len(batch_sizes) > 1:
            raise ValueError(f"{who} cannot merge tensors with different batch sizes: {shapes}")
        out = None if shapes[0] is None else shapes[0][1:]
        for shape in shapes[1:]:
            out = _broadcast_dims(who, out, None if shape is None else shape[1:])
        if out is None:
            return None
        return (batch_sizes.pop() if batch_sizes else None, *out)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None:
            return None
        if not isinstance(mask, (list, tuple)) or len(mask) != len(inputs):
            raise ValueError(f"{type(self).__name__} layer '{self.name}' expected one mask per input, got {mask!r}")
        if any(m is None for m in mask):
            return None
        merged = mask[0]
        for m in mask[1:]:
            merged = tf.logical_or(merged, m)
        return merged

    def get_config(self) -> dict[str, Any]:
        return base_config(self)


@registry.builtin("layers")
class Add(_ElementwiseMerge):
    """Layer that adds a list of inputs element-wise.

    It takes a list of tensors, all of the same shape (or broadcastable), and
    returns their sum.

    Inputs of different ranks are aligned by inserting axes right after the
    batch axis, then broadcast against each other. The output mask is the
    logical OR of the input masks when every input has one (else no mask).

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A list of two or more tensors with the same batch size and
            broadcast-compatible shapes.

    Input shape:
        A list of two or more shapes `(batch_size, ...)`, broadcast-compatible.

    Output shape:
        The broadcast shape of the inputs.

    Raises:
        ValueError: If the layer is not called on a list, or the input
            shapes (or batch sizes) are incompatible.

    Example:
        >>> x1 = np.array([[1.0, 2.0]], dtype="float32")
        >>> x2 = np.array([[10.0, 20.0]], dtype="float32")
        >>> tfkit.layers.Add()([x1, x2]).numpy()
        array([[11., 22.]], dtype=float32)
    """

    def _merge(self, inputs: list[tf.Tensor]) -> tf.Tensor:
        output = inputs[0]
        for x in inputs[1:]:
            output = output + x
        return output


@registry.builtin("layers")
class Subtract(_ElementwiseMerge):
    """Layer that subtracts two inputs element-wise.

    It takes a list of exactly two tensors and returns `inputs[0] - inputs[1]`.

    Inputs of different ranks are aligned by inserting axes right after the
    batch axis, then broadcast against each other. The output mask is the
    logical OR of the input masks when every input has one (else no mask).

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A list of two tensors with the same batch size and
            broadcast-compatible shapes.

    Input shape:
        A list of two shapes `(batch_size, ...)`, broadcast-compatible.

    Output shape:
        The broadcast shape of the inputs.

    Raises:
        ValueError: If the layer is not called on a list of exactly two tensors, or the input
            shapes (or batch sizes) are incompatible.

    Example:
        >>> x1 = np.array([[5.0, 7.0]], dtype="float32")
        >>> x2 = np.array([[1.0, 2.0]], dtype="float32")
        >>> tfkit.layers.Subtract()([x1, x2]).numpy()
        array([[4., 5.]], dtype=float32)
    """

    _exact_inputs = 2

    def _merge(self, inputs: list[tf.Tensor]) -> tf.Tensor:
        return inputs[0] - inputs[1]


@registry.builtin("layers")
class Multiply(_ElementwiseMerge):
    """Layer that multiplies a list of inputs element-wise.

    It takes a list of tensors, all of the same shape (or broadcastable), and
    returns their product.

    Inputs of different ranks are aligned by inserting axes right after the
    batch axis, then broadcast against each other. The output mask is the
    logical OR of the input masks when every input has one (else no mask).

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A list of two or more tensors with the same batch size and
            broadcast-compatible shapes.

    Input shape:
        A list of two or more shapes `(batch_size, ...)`, broadcast-compatible.

    Output shape:
        The broadcast shape of the inputs.

    Raises:
        ValueError: If the layer is not called on a list, or the input
            shapes (or batch sizes) are incompatible.

    Example:
        >>> x1 = np.array([[1.0, 2.0]], dtype="float32")
        >>> x2 = np.array([[3.0, 4.0]], dtype="float32")
        >>> tfkit.layers.Multiply()([x1, x2]).numpy()
        array([[3., 8.]], dtype=float32)
    """

    def _merge(self, inputs: list[tf.Tensor]) -> tf.Tensor:
        output = inputs[0]
        for x in inputs[1:]:
            output = output * x
        return output


@registry.builtin("layers")
class Average(_ElementwiseMerge):
    """Layer that averages a list of inputs element-wise.

    It takes a list of tensors, all of the same shape (or broadcastable), and
    returns their mean.

    Inputs of different ranks are aligned by inserting axes right after the
    batch axis, then broadcast against each other. The output mask is the
    logical OR of the input masks when every input has one (else no mask).

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A list of two or more tensors with the same batch size and
            broadcast-compatible shapes.

    Input shape:
        A list of two or more shapes `(batch_size, ...)`, broadcast-compatible.

    Output shape:
        The broadcast shape of the inputs.

    Raises:
        ValueError: If the layer is not called on a list, or the input
            shapes (or batch sizes) are incompatible.

    Example:
        >>> x1 = np.array([[1.0, 2.0]], dtype="float32")
        >>> x2 = np.array([[3.0, 5.0]], dtype="float32")
        >>> tfkit.layers.Average()([x1, x2]).numpy()
        array([[2. , 3.5]], dtype=float32)
    """

    def _merge(self, inputs: list[tf.Tensor]) -> tf.Tensor:
        output = inputs[0]
        for x in inputs[1:]:
            output = output + x
        return output / tf.cast(len(inputs), output.dtype)


@registry.builtin("layers")
class Maximum(_ElementwiseMerge):
    """Layer that computes the element-wise maximum of a list of inputs.

    It takes a list of tensors, all of the same shape (or broadcastable), and
    returns their maximum.

    Inputs of different ranks are aligned by inserting axes right after the
    batch axis, then broadcast against each other. The output mask is the
    logical OR of the input masks when every input has one (else no mask).

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A list of two or more tensors with the same batch size and
            broadcast-compatible shapes.

    Input shape:
        A list of two or more shapes `(batch_size, ...)`, broadcast-compatible.

    Output shape:
        The broadcast shape of the inputs.

    Raises:
        ValueError: If the layer is not called on a list, or the input
            shapes (or batch sizes) are incompatible.

    Example:
        >>> x1 = np.array([[1.0, 5.0]], dtype="float32")
        >>> x2 = np.array([[3.0, 2.0]], dtype="float32")
        >>> tfkit.layers.Maximum()([x1, x2]).numpy()
        array([[3., 5.]], dtype=float32)
    """

    def _merge(self, inputs: list[tf.Tensor]) -> tf.Tensor:
        output = inputs[0]
        for x in inputs[1:]:
            output = tf.maximum(output, x)
        return output


@registry.builtin("layers")
class Minimum(_ElementwiseMerge):
    """Layer that computes the element-wise minimum of a list of inputs.

    It takes a list of tensors, all of the same shape (or broadcastable), and
    returns their minimum.

    Inputs of different ranks are aligned by inserting axes right after the
    batch axis, then broadcast against each other. The output mask is the
    logical OR of the input masks when every input has one (else no mask).

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A list of two or more tensors with the same batch size and
            broadcast-compatible shapes.

    Input shape:
        A list of two or more shapes `(batch_size, ...)`, broadcast-compatible.

    Output shape:
        The broadcast shape of the inputs.

    Raises:
        ValueError: If the layer is not called on a list, or the input
            shapes (or batch sizes) are incompatible.

    Example:
        >>> x1 = np.array([[1.0, 5.0]], dtype="float32")
        >>> x2 = np.array([[3.0, 2.0]], dtype="float32")
        >>> tfkit.layers.Minimum()([x1, x2]).numpy()
        array([[1., 2.]], dtype=float32)
    """

    def _merge(self, inputs: list[tf.Tensor]) -> tf.Tensor:
        output = inputs[0]
        for x in inputs[1:]:
            output = tf.minimum(output, x)
        return output


# -------------------------------------------------------------- Concatenate


@registry.builtin("layers")
class Concatenate(Layer):
    """Layer that concatenates a list of inputs.

    It takes a list of tensors of the same rank, all of the same shape except
    for the concatenation axis, and returns a single tensor joined along
    `axis`. When any input has a mask, the output mask is the inputs' masks
    concatenated along `axis` (an unmasked input counts as all true).

    Args:
        axis: Integer, the axis along which to concatenate. Defaults to `-1`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A list of tensors of the same rank.

    Input shape:
        A list of shapes that match on every axis but `axis`.

    Output shape:
        The common shape, with the sizes along `axis` summed.

    Raises:
        ValueError: If `axis` is not an int, the layer is not called on a
            list, the ranks differ, `axis` is out of range, or the shapes do
            not match away from `axis`.

    Example:
        >>> x1 = np.arange(4, dtype="float32").reshape((2, 2))
        >>> x2 = np.arange(10, 16, dtype="float32").reshape((2, 3))
        >>> tfkit.layers.Concatenate(axis=1)([x1, x2]).numpy()
        array([[ 0.,  1., 10., 11., 12.],
               [ 2.,  3., 13., 14., 15.]], dtype=float32)
    """

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"Concatenate layer '{self.name}' expected axis to be an int, got {axis!r}")
        self.axis = axis
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        self.compute_output_shape(input_shape)  # shape validation only

    def call(self, inputs: Sequence[tf.Tensor]) -> tf.Tensor:
        inputs = _check_list(self, inputs)
        self.compute_output_shape([tuple(x.shape.as_list()) for x in inputs])
        return tf.concat(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shapes = _shape_list(self, input_shape)
        who = f"Concatenate layer '{self.name}'"
        ranks = {len(s) for s in shapes}
        if len(ranks) != 1:
            raise ValueError(f"{who} requires inputs of the same rank, got shapes {shapes}")
        rank = ranks.pop()
        if not -rank <= self.axis < rank:
            raise ValueError(f"{who}: axis {self.axis} is out of range for inputs of rank {rank}")
        axis = self.axis % rank
        output = list(shapes[0])
        for shape in shapes[1:]:
            for i, (have, got) in enumerate(zip(output, shape)):
                if i == axis:
                    output[i] = None if have is None or got is None else have + got
                elif have is None:
                    output[i] = got
                elif got is not None and got != have:
                    raise ValueError(
                        f"{who} requires inputs with matching shapes except along axis {self.axis}, got shapes {shapes}"
                    )
        return tuple(output)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None:
            return None
        if not isinstance(mask, (list, tuple)) or len(mask) != len(inputs):
            raise ValueError(f"Concatenate layer '{self.name}' expected one mask per input, got {mask!r}")
        present = [m for m in mask if m is not None]
        if not present:
            return None
        mask_rank = max(m.shape.rank for m in present)
        full = []
        for x, m in zip(inputs, mask):
            if m is None:
                m = tf.ones_like(x, dtype=tf.bool)
            else:
                m = tf.cast(m, tf.bool)
                for _ in range(x.shape.rank - m.shape.rank):
                    m = tf.expand_dims(m, -1)
                m = tf.broadcast_to(m, tf.shape(x))
            full.append(m)
        joined = tf.concat(full, axis=self.axis)
        extra = list(range(mask_rank, joined.shape.rank))
        return tf.reduce_any(joined, axis=extra) if extra else joined

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["axis"] = self.axis
        return config


# --------------------------------------------------------------------- Dot


@registry.builtin("layers")
class Dot(Layer):
    """Layer that computes a dot product between samples in two tensors.

    For each sample of the batch, it contracts `inputs[0]` and `inputs[1]`
    along the given axes (Keras's `batch_dot`): shapes `(batch, n)` and
    `(batch, n)` with `axes=1` give `(batch, 1)`; shapes `(batch, t, d)` and
    `(batch, s, d)` with `axes=(2, 2)` give `(batch, t, s)`. The output has no
    mask.

    Args:
        axes: Integer or tuple of two integers, the axis (or the axis of each
            input) along which to take the dot product. Axis 0 (the batch
            axis) is not allowed.
        normalize: Whether to L2-normalize both inputs along the dot product
            axes before taking the dot product. If `True`, the output is the
            cosine similarity of the two samples. Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A list of exactly two tensors with the same batch size.

    Input shape:
        Two shapes `(batch_size, ...)` whose sizes along the dot axes match.

    Output shape:
        `(batch_size,)` followed by the remaining axes of the first input,
        then those of the second; `(batch_size, 1)` when nothing remains.

    Raises:
        ValueError: If `axes` is not an int or a pair of ints, names the batch
            axis or an axis out of range, the sizes along the dot axes differ,
            or the layer is not called on a list of exactly two tensors.

    Example:
        >>> x1 = np.array([[1.0, 2.0], [3.0, 4.0]], dtype="float32")
        >>> x2 = np.array([[5.0, 6.0], [7.0, 8.0]], dtype="float32")
        >>> tfkit.layers.Dot(axes=1)([x1, x2]).numpy()
        array([[17.],
               [53.]], dtype=float32)
        >>> tfkit.layers.Dot(axes=(2, 2))([np.ones((2, 3, 4)), np.ones((2, 5, 4))]).shape
        TensorShape([2, 3, 5])
    """

    def __init__(self, axes: int | Sequence[int], normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"Dot layer '{self.name}'"
        if isinstance(axes, (list, tuple)):
            if len(axes) != 2 or not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
                raise ValueError(f"{who} expected axes to be an int or a pair of ints, got {axes!r}")
            axes = (int(axes[0]), int(axes[1]))
        elif isinstance(axes, bool) or not isinstance(axes, int):
            raise ValueError(f"{who} expected axes to be an int or a pair of ints, got {axes!r}")
        self.axes = axes
        self.normalize = bool(normalize)
        self.supports_masking = True

    def _resolved_axes(self, shape1: Sequence, shape2: Sequence) -> tuple[int, int]:
        who = f"Dot layer '{self.name}'"
        pair = (self.axes, self.axes) if isinstance(self.axes, int) else self.axes
        resolved = []
        for axis, shape in zip(pair, (shape1, shape2)):
            rank = len(shape)
            if not -rank <= axis < rank:
                raise ValueError(f"{who}: axis {axis} is out of range for an input of shape {tuple(shape)}")
            resolved.append(axis % rank)
        if 0 in resolved:
            raise ValueError(f"{who} cannot take the dot product over axis 0 (the batch axis); got axes={self.axes}")
        d1, d2 = shape1[resolved[0]], shape2[resolved[1]]
        if d1 is not None and d2 is not None and d1 != d2:
            raise ValueError(
                f"{who}: incompatible input shapes {tuple(shape1)} and {tuple(shape2)}: axis {resolved[0]} "
                f"has size {d1}, axis {resolved[1]} has size {d2}"
            )
        return resolved[0], resolved[1]

    def build(self, input_shape: Any) -> None:
        self.compute_output_shape(input_shape)  # shape validation only

    def call(self, inputs: Sequence[tf.Tensor]) -> tf.Tensor:
        inputs = _check_list(self, inputs)
        _shape_list(self, [tuple(x.shape.as_list()) for x in inputs], exactly=2)
        x1, x2 = inputs
        a1, a2 = self._resolved_axes(x1.shape.as_list(), x2.shape.as_list())
        if self.normalize:
            x1 = tf.math.l2_normalize(x1, axis=a1)
            x2 = tf.math.l2_normalize(x2, axis=a2)
        r1, r2 = x1.shape.rank, x2.shape.rank
        letters = iter(string.ascii_letters[2:])
        spec1 = ["a"] + [next(letters) for _ in range(r1 - 1)]
        spec2 = ["a"] + [next(letters) for _ in range(r2 - 1)]
        spec1[a1] = spec2[a2] = "b"
        out = ["a"] + [c for c in spec1[1:] if c != "b"] + [c for c in spec2[1:] if c != "b"]
        result = tf.einsum(f"{''.join(spec1)},{''.join(spec2)}->{''.join(out)}", x1, x2)
        return tf.expand_dims(result, -1) if len(out) == 1 else result

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape1, shape2 = _shape_list(self, input_shape, exactly=2)
        a1, a2 = self._resolved_axes(shape1, shape2)
        rest1 = [d for i, d in enumerate(shape1) if i != a1]
        rest2 = [d for i, d in enumerate(shape2) if i not in (0, a2)]
        output = rest1 + rest2
        return tuple(output + [1] if len(output) == 1 else output)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return None

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(axes=list(self.axes) if isinstance(self.axes, tuple) else self.axes, normalize=self.normalize)
        return config
