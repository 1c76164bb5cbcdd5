"""Keras's functional merge helpers: a new merge layer applied to a list of tensors.

x = tfkit.layers.concatenate([title_features, body_features])
y = tfkit.layers.add([x, residual])
z = tfkit.layers.dot([a, b], axes=1, normalize=True)
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.layers.merging import Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply, Subtract

__all__ = ["add", "subtract", "multiply", "average", "maximum", "minimum", "concatenate", "dot"]


def add(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Functional interface to the `Add` layer.

    Builds a new `Add` layer and calls it on `inputs`; equivalent to
    `tfkit.layers.Add(**kwargs)(inputs)`.

    Args:
        inputs: A list of input tensors with the same batch size and
            broadcast-compatible shapes.
        **kwargs: Keyword arguments for the `Add` layer, such as `name`.

    Returns:
        A tensor, the sum of the inputs.

    Raises:
        ValueError: If the inputs' shapes are incompatible (see `Add`).

    Example:
        >>> x1 = np.array([[1.0, 2.0]], dtype="float32")
        >>> x2 = np.array([[10.0, 20.0]], dtype="float32")
        >>> tfkit.layers.add([x1, x2]).numpy()
        array([[11., 22.]], dtype=float32)
    """
    return Add(**kwargs)(inputs)


def subtract(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Functional interface to the `Subtract` layer.

    Builds a new `Subtract` layer and calls it on `inputs`; equivalent to
    `tfkit.layers.Subtract(**kwargs)(inputs)`.

    Args:
        inputs: A list of exactly two tensors (`inputs[0] - inputs[1]` is returned).
        **kwargs: Keyword arguments for the `Subtract` layer, such as `name`.

    Returns:
        A tensor, `inputs[0] - inputs[1]`.

    Raises:
        ValueError: If the inputs' shapes are incompatible (see `Subtract`).

    Example:
        >>> x1 = np.array([[5.0, 7.0]], dtype="float32")
        >>> x2 = np.array([[1.0, 2.0]], dtype="float32")
        >>> tfkit.layers.subtract([x1, x2]).numpy()
        array([[4., 5.]], dtype=float32)
    """
    return Subtract(**kwargs)(inputs)


def multiply(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Functional interface to the `Multiply` layer.

    Builds a new `Multiply` layer and calls it on `inputs`; equivalent to
    `tfkit.layers.Multiply(**kwargs)(inputs)`.

    Args:
        inputs: A list of input tensors with the same batch size and
            broadcast-compatible shapes.
        **kwargs: Keyword arguments for the `Multiply` layer, such as `name`.

    Returns:
        A tensor, the element-wise product of the inputs.

    Raises:
        ValueError: If the inputs' shapes are incompatible (see `Multiply`).

    Example:
        >>> x1 = np.array([[1.0, 2.0]], dtype="float32")
        >>> x2 = np.array([[3.0, 4.0]], dtype="float32")
        >>> tfkit.layers.multiply([x1, x2]).numpy()
        array([[3., 8.]], dtype=float32)
    """
    return Multiply(**kwargs)(inputs)


def average(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Functional interface to the `Average` layer.

    Builds a new `Average` layer and calls it on `inputs`; equivalent to
    `tfkit.layers.Average(**kwargs)(inputs)`.

    Args:
        inputs: A list of input tensors with the same batch size and
            broadcast-compatible shapes.
        **kwargs: Keyword arguments for the `Average` layer, such as `name`.

    Returns:
        A tensor, the element-wise mean of the inputs.

    Raises:
        ValueError: If the inputs' shapes are incompatible (see `Average`).

    Example:
        >>> x1 = np.array([[1.0, 2.0]], dtype="float32")
        >>> x2 = np.array([[3.0, 5.0]], dtype="float32")
        >>> tfkit.layers.average([x1, x2]).numpy()
        array([[2. , 3.5]], dtype=float32)
    """
    return Average(**kwargs)(inputs)


def maximum(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Functional interface to the `Maximum` layer.

    Builds a new `Maximum` layer and calls it on `inputs`; equivalent to
    `tfkit.layers.Maximum(**kwargs)(inputs)`.

    Args:
        inputs: A list of input tensors with the same batch size and
            broadcast-compatible shapes.
        **kwargs: Keyword arguments for the `Maximum` layer, such as `name`.

    Returns:
        A tensor, the element-wise maximum of the inputs.

    Raises:
        ValueError: If the inputs' shapes are incompatible (see `Maximum`).

    Example:
        >>> x1 = np.array([[1.0, 5.0]], dtype="float32")
        >>> x2 = np.array([[3.0, 2.0]], dtype="float32")
        >>> tfkit.layers.maximum([x1, x2]).numpy()
        array([[3., 5.]], dtype=float32)
    """
    return Maximum(**kwargs)(inputs)


def minimum(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Functional interface to the `Minimum` layer.

    Builds a new `Minimum` layer and calls it on `inputs`; equivalent to
    `tfkit.layers.Minimum(**kwargs)(inputs)`.

    Args:
        inputs: A list of input tensors with the same batch size and
            broadcast-compatible shapes.
        **kwargs: Keyword arguments for the `Minimum` layer, such as `name`.

    Returns:
        A tensor, the element-wise minimum of the inputs.

    Raises:
        ValueError: If the inputs' shapes are incompatible (see `Minimum`).

    Example:
        >>> x1 = np.array([[1.0, 5.0]], dtype="float32")
        >>> x2 = np.array([[3.0, 2.0]], dtype="float32")
        >>> tfkit.layers.minimum([x1, x2]).numpy()
        array([[1., 2.]], dtype=float32)
    """
    return Minimum(**kwargs)(inputs)


def concatenate(inputs: Sequence[Any], axis: int = -1, **kwargs: Any) -> Any:
    """Functional interface to the `Concatenate` layer.

    Builds a new `Concatenate` layer and calls it on `inputs`; equivalent to
    `tfkit.layers.Concatenate(axis=axis, **kwargs)(inputs)`.

    Args:
        inputs: A list of tensors of the same rank, with matching shapes
            except along `axis`.
        axis: Integer, the concatenation axis. Defaults to `-1`.
        **kwargs: Keyword arguments for the `Concatenate` layer, such as
            `name`.

    Returns:
        A tensor, the concatenation of the inputs along `axis`.

    Raises:
        ValueError: If the inputs' ranks or shapes are incompatible, or
            `axis` is out of range.

    Example:
        >>> x1 = np.zeros((2, 2), dtype="float32")
        >>> x2 = np.ones((2, 3), dtype="float32")
        >>> tfkit.layers.concatenate([x1, x2]).shape
        TensorShape([2, 5])
        >>> tfkit.layers.concatenate([x1, x1], axis=0).shape
        TensorShape([4, 2])
    """
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs: Sequence[Any], axes: int | Sequence[int], normalize: bool = False, **kwargs: Any) -> Any:
    """Functional interface to the `Dot` layer.

    Builds a new `Dot` layer and calls it on `inputs`; equivalent to
    `tfkit.layers.Dot(axes=axes, normalize=normalize, **kwargs)(inputs)`.

    Args:
        inputs: A list of exactly two tensors with the same batch size.
        axes: Integer or tuple of two integers, the axis (or the axis of each
            input) along which to take the dot product; not the batch axis.
        normalize: Whether to L2-normalize both inputs along the dot product
            axes first, giving cosine similarities. Defaults to `False`.
        **kwargs: Keyword arguments for the `Dot` layer, such as `name`.

    Returns:
        A tensor, the per-sample dot product of the inputs.

    Raises:
        ValueError: If `axes` is invalid or the sizes along the dot axes differ.

    Example:
        >>> x1 = np.array([[3.0, 4.0]], dtype="float32")
        >>> x2 = np.array([[4.0, 3.0]], dtype="float32")
        >>> tfkit.layers.dot([x1, x2], axes=1).numpy()
        array([[24.]], dtype=float32)
        >>> np.round(tfkit.layers.dot([x1, x2], axes=1, normalize=True).numpy(), 4)
        array([[0.96]], dtype=float32)
    """
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
