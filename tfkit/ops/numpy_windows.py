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
        raise TypeError(f"{name} makes a constant window from a length; it cannot take a symbolic tensor "
                        f"(got x={x!r}). Pass the window length as an int")
    if isinstance(x, (float, np.floating)) and not float(x).is_integer():
        raise TypeError(f"{name} needs an integer window length; got x={x!r}")
    length = tf.cast(x, tf.int32)
    if len(length.shape) != 0:
        raise ValueError(f"{name} needs a scalar window length; got x of shape {tuple(length.shape)}")
    n = tf.range(tf.maximum(length, 0), dtype=FLOATX)
    last = tf.cast(length - 1, FLOATX)
    return (2 * n - last) / tf.maximum(last, 1)


def bartlett(x: Any) -> tf.Tensor:
    return 1 - tf.abs(_positions(x, "bartlett"))


def blackman(x: Any) -> tf.Tensor:
    t = math.pi * _positions(x, "blackman")
    return 0.42 + 0.5 * tf.cos(t) + 0.08 * tf.cos(2 * t)


def hamming(x: Any) -> tf.Tensor:
    return 0.54 + 0.46 * tf.cos(math.pi * _positions(x, "hamming"))


def hanning(x: Any) -> tf.Tensor:
    return 0.5 + 0.5 * tf.cos(math.pi * _positions(x, "hanning"))


def kaiser(x: Any, beta: float) -> tf.Tensor:
    t = _positions(x, "kaiser")
    beta = tf.cast(beta, FLOATX)
    return tf.math.bessel_i0(beta * tf.sqrt(tf.maximum(1 - t * t, 0))) / tf.math.bessel_i0(beta)


__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]
