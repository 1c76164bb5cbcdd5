"""Window functions of ``keras.ops`` on TensorFlow: Bartlett, Blackman, Hamming, Hann and Kaiser.

    import tfkit.ops as ops
    w = ops.hanning(64)                       # float32, symmetric, 1.0 in the middle
    frames = frames * ops.kaiser(64, beta=8.6)

Each takes the window length ``x`` (an int or a scalar int tensor) and returns
a float32 tensor of that length, numpy's symmetric window: ``[]`` for 0 (or
less) and ``[1.0]`` for 1. A window is a constant, not a function of the
model's data: called on a symbolic tensor it raises ``TypeError``, as in Keras.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base.symbolic import is_symbolic
from tfkit.ops.numpy_dtypes import FLOATX


def _positions(x: Any, name: str) -> tf.Tensor:
    """Sample positions of a window of length ``x`` on [-1, 1] (float32); ``[0.0]`` for length 1."""
    if is_symbolic(x):
        raise TypeError(
            f"{name} makes a constant window from a length; it cannot take a symbolic tensor "
            f"(got x={x!r}). Pass the window length as an int"
        )
    if isinstance(x, (float, np.floating)) and not float(x).is_integer():
        raise TypeError(f"{name} needs an integer window length; got x={x!r}")
    length = tf.cast(x, tf.int32)
    if len(length.shape) != 0:
        raise ValueError(f"{name} needs a scalar window length; got x of shape {tuple(length.shape)}")
    n = tf.range(tf.maximum(length, 0), dtype=FLOATX)
    last = tf.cast(length - 1, FLOATX)
    return (2 * n - last) / tf.maximum(last, 1)


def bartlett(x: Any) -> tf.Tensor:
    """Bartlett window function.

    The Bartlett window is a triangular window that rises then falls linearly, from 0 at both ends to 1 in the
    middle. The window is NumPy's symmetric window of `x` samples, as a `float32` tensor: empty for a length of 0
    (or less) and `[1.0]` for a length of 1. A window is a constant, not a function of the model's data.

    Args:
        x: Number of points in the output window: an int (or an integral float) or a scalar integer
            tensor, not a symbolic one.

    Returns:
        A 1-D `float32` tensor of `x` points, the Bartlett window (the maximum value normalized to one where
        `x` is odd).

    Raises:
        TypeError: If `x` is a symbolic tensor or a non-integral float.
        ValueError: If `x` is not a scalar.

    Example:
        >>> tfkit.ops.bartlett(5).numpy()
        array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    return 1 - tf.abs(_positions(x, "bartlett"))


def blackman(x: Any) -> tf.Tensor:
    """Blackman window function.

    The Blackman window is a taper formed by using a weighted cosine: `0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4
    pi n / (M - 1))`. The window is NumPy's symmetric window of `x` samples, as a `float32` tensor: empty for a
    length of 0 (or less) and `[1.0]` for a length of 1. A window is a constant, not a function of the model's data.

    Args:
        x: Number of points in the output window: an int (or an integral float) or a scalar integer
            tensor, not a symbolic one.

    Returns:
        A 1-D `float32` tensor of `x` points, the Blackman window (the maximum value normalized to one where
        `x` is odd).

    Raises:
        TypeError: If `x` is a symbolic tensor or a non-integral float.
        ValueError: If `x` is not a scalar.

    Example:
        >>> np.round(tfkit.ops.blackman(5).numpy(), 4)
        array([-0.  ,  0.34,  1.  ,  0.34, -0.  ], dtype=float32)
    """
    t = math.pi * _positions(x, "blackman")
    return 0.42 + 0.5 * tf.cos(t) + 0.08 * tf.cos(2 * t)


def hamming(x: Any) -> tf.Tensor:
    """Hamming window function.

    The Hamming window is defined as: `w[n] = 0.54 - 0.46 * cos(2 * pi * n / (N - 1))` for `0 <= n <= N - 1`. The
    window is NumPy's symmetric window of `x` samples, as a `float32` tensor: empty for a length of 0 (or less) and
    `[1.0]` for a length of 1. A window is a constant, not a function of the model's data.

    Args:
        x: Number of points in the output window: an int (or an integral float) or a scalar integer
            tensor, not a symbolic one.

    Returns:
        A 1-D `float32` tensor of `x` points, the Hamming window (the maximum value normalized to one where
        `x` is odd).

    Raises:
        TypeError: If `x` is a symbolic tensor or a non-integral float.
        ValueError: If `x` is not a scalar.

    Example:
        >>> np.round(tfkit.ops.hamming(5).numpy(), 4)
        array([0.08, 0.54, 1.  , 0.54, 0.08], dtype=float32)
    """
    return 0.54 + 0.46 * tf.cos(math.pi * _positions(x, "hamming"))


def hanning(x: Any) -> tf.Tensor:
    """Hanning window function.

    The Hanning (Hann) window is defined as: `w[n] = 0.5 - 0.5 * cos(2 * pi * n / (N - 1))` for `0 <= n <= N - 1`.
    The window is NumPy's symmetric window of `x` samples, as a `float32` tensor: empty for a length of 0 (or less)
    and `[1.0]` for a length of 1. A window is a constant, not a function of the model's data.

    Args:
        x: Number of points in the output window: an int (or an integral float) or a scalar integer
            tensor, not a symbolic one.

    Returns:
        A 1-D `float32` tensor of `x` points, the Hann window (the maximum value normalized to one where
        `x` is odd).

    Raises:
        TypeError: If `x` is a symbolic tensor or a non-integral float.
        ValueError: If `x` is not a scalar.

    Example:
        >>> np.round(tfkit.ops.hanning(5).numpy(), 4)
        array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    return 0.5 + 0.5 * tf.cos(math.pi * _positions(x, "hanning"))


def kaiser(x: Any, beta: float) -> tf.Tensor:
    """Kaiser window function.

    The Kaiser window is defined as: `w[n] = I0(beta * sqrt(1 - (2 * n / (N - 1) - 1) ** 2)) / I0(beta)`, where `I0`
    is the modified zeroth-order Bessel function of the first kind. The window is NumPy's symmetric window of `x`
    samples, as a `float32` tensor: empty for a length of 0 (or less) and `[1.0]` for a length of 1. A window is a
    constant, not a function of the model's data.

    Args:
        x: Number of points in the output window: an int (or an integral float) or a scalar integer
            tensor, not a symbolic one.
        beta: Shape parameter for the Kaiser window, a float: 0 gives a rectangular window, and larger
            values a narrower one (`5` is similar to a Hamming window, `8.6` to a Blackman window).

    Returns:
        A 1-D `float32` tensor of `x` points, the Kaiser window (the maximum value normalized to one where
        `x` is odd).

    Raises:
        TypeError: If `x` is a symbolic tensor or a non-integral float.
        ValueError: If `x` is not a scalar.

    Example:
        >>> np.round(tfkit.ops.kaiser(5, beta=14.0).numpy(), 4)
        array([0.    , 0.1649, 1.    , 0.1649, 0.    ], dtype=float32)
    """
    t = _positions(x, "kaiser")
    beta = tf.cast(beta, FLOATX)
    return tf.math.bessel_i0(beta * tf.sqrt(tf.maximum(1 - t * t, 0))) / tf.math.bessel_i0(beta)


__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]
