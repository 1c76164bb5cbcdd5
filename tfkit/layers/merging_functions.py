"""Keras's functional merge helpers: a new merge layer applied to a list of tensors.

    x = tfkit.layers.concatenate([title_features, body_features])
    y = tfkit.layers.add([x, residual])
    z = tfkit.layers.dot([a, b], axes=1, normalize=True)
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.layers.merging import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
)

__all__ = ["add", "subtract", "multiply", "average", "maximum", "minimum", "concatenate", "dot"]


def add(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Add(**kwargs)(inputs)``: the element-wise sum."""
    return Add(**kwargs)(inputs)


def subtract(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Subtract(**kwargs)(inputs)``: ``inputs[0] - inputs[1]``."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Multiply(**kwargs)(inputs)``: the element-wise product."""
    return Multiply(**kwargs)(inputs)


def average(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Average(**kwargs)(inputs)``: the element-wise mean."""
    return Average(**kwargs)(inputs)


def maximum(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Maximum(**kwargs)(inputs)``: the element-wise maximum."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Minimum(**kwargs)(inputs)``: the element-wise minimum."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs: Sequence[Any], axis: int = -1, **kwargs: Any) -> Any:
    """``Concatenate(axis=axis, **kwargs)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs: Sequence[Any], axes: int | Sequence[int], normalize: bool = False, **kwargs: Any) -> Any:
    """``Dot(axes=axes, normalize=normalize, **kwargs)(inputs)``."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
