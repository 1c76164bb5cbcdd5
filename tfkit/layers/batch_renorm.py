"""Batch renormalization (Ioffe, 2017) for ``BatchNormalization(renorm=True)``, with Keras 3.15's numbers.

    layer = tfkit.layers.BatchNormalization(renorm=True, renorm_clipping={"rmax": 3.0, "dmax": 5.0})

While training, the batch-normalized values are corrected towards the moving statistics:
``x_hat * r + d`` with ``r = batch_stddev / renorm_stddev`` and
``d = (batch_mean - renorm_mean) / renorm_stddev`` (both clipped, both without gradient), folded
into the scale and offset. ``renorm_mean`` / ``renorm_stddev`` move with ``renorm_momentum``;
the inference statistics move with ``momentum``, the variance kept as ``moving_stddev`` (its
square, less epsilon, is ``moving_variance``). The weights are Keras's: ``moving_stddev``,
``renorm_mean`` and ``renorm_stddev`` after ``moving_variance``.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit import initializers

CLIPPING_KEYS = ("rmax", "rmin", "dmax")


def checked_clipping(renorm: bool, clipping: Any, who: str) -> dict[str, float] | None:
    """Keras's checks of ``renorm_clipping`` (only with ``renorm``): known keys, ``rmax >= rmin``, ``dmax >= 0``."""
    if not renorm:
        return clipping
    clipping = dict(clipping or {})
    unknown = sorted(set(clipping) - set(CLIPPING_KEYS))
    if unknown:
        raise ValueError(f"{who}: renorm_clipping accepts the keys {list(CLIPPING_KEYS)}, got {unknown}")
    rmax, rmin, dmax = (clipping.get(key) for key in CLIPPING_KEYS)
    if rmax is not None and rmin is not None and rmax < rmin:
        raise ValueError(f"{who}: renorm_clipping needs rmax >= rmin, got rmax={rmax}, rmin={rmin}")
    if dmax is not None and dmax < 0:
        raise ValueError(f"{who}: renorm_clipping needs a non-negative dmax, got dmax={dmax}")
    return clipping


def add_weights(layer: Any, shape: Sequence[int]) -> None:
    """``moving_stddev``, ``renorm_mean`` and ``renorm_stddev``, initialized as Keras does."""

    def stddev_initializer(shape: Any, dtype: Any = None) -> tf.Tensor:
        return tf.sqrt(initializers.get(layer.moving_variance_initializer)(shape, dtype=dtype))

    for name, initializer in (
        ("moving_stddev", stddev_initializer),
        ("renorm_mean", layer.moving_mean_initializer),
        ("renorm_stddev", stddev_initializer),
    ):
        setattr(
            layer,
            name,
            layer.add_weight(shape=shape, initializer=initializer, trainable=False, name=name, autocast=False),
        )


def normalize_training(
    layer: Any, inputs: tf.Tensor, mean: tf.Tensor, variance: tf.Tensor, param_shape: Sequence[int]
) -> tf.Tensor:
    """The renormalized batch; updates the renorm and the inference statistics."""
    epsilon = tf.cast(layer.epsilon, mean.dtype)
    stddev = tf.sqrt(variance + epsilon)
    renorm_mean = tf.cast(layer.renorm_mean, mean.dtype)
    renorm_stddev = tf.maximum(tf.cast(layer.renorm_stddev, mean.dtype), tf.sqrt(epsilon))
    r, d = stddev / renorm_stddev, (mean - renorm_mean) / renorm_stddev
    clipping = layer.renorm_clipping or {}
    if clipping.get("rmin") is not None:
        r = tf.maximum(r, clipping["rmin"])
    if clipping.get("rmax") is not None:
        r = tf.minimum(r, clipping["rmax"])
    if clipping.get("dmax") is not None:
        d = tf.clip_by_value(d, -clipping["dmax"], clipping["dmax"])
    r, d = tf.stop_gradient(r), tf.stop_gradient(d)
    gamma = tf.cast(layer.gamma, inputs.dtype) if layer.gamma is not None else None
    scale, offset = (r * gamma, d * gamma) if gamma is not None else (r, d)
    if layer.beta is not None:
        offset = offset + tf.cast(layer.beta, inputs.dtype)
    _update_statistics(layer, mean, stddev)
    normalized = (inputs - tf.reshape(mean, param_shape)) * tf.reshape(tf.math.rsqrt(variance + epsilon), param_shape)
    return normalized * tf.reshape(scale, param_shape) + tf.reshape(offset, param_shape)


def _update_statistics(layer: Any, mean: tf.Tensor, stddev: tf.Tensor) -> None:
    def moved(variable: tf.Variable, value: tf.Tensor, momentum: float) -> tf.Tensor:
        return variable * momentum + tf.cast(value, variable.dtype) * (1.0 - momentum)

    layer.renorm_mean.assign(moved(layer.renorm_mean, mean, layer.renorm_momentum))
    layer.renorm_stddev.assign(moved(layer.renorm_stddev, stddev, layer.renorm_momentum))
    layer.moving_mean.assign(moved(layer.moving_mean, mean, layer.momentum))
    new_stddev = moved(layer.moving_stddev, stddev, layer.momentum)
    layer.moving_stddev.assign(new_stddev)
    layer.moving_variance.assign(tf.nn.relu(new_stddev * new_stddev - layer.epsilon))
