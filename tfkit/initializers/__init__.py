"""Initializers: objects that make a weight's starting value from its shape.

    init = tfkit.initializers.get("glorot_uniform")
    kernel = init((784, 64), dtype="float32")      # a tf.Tensor
    tfkit.initializers.serialize(init)             # {"class_name": "GlorotUniform", "config": {"seed": None}}

Randomness uses stateless TensorFlow ops only. ``seed=None`` draws fresh
values on every call (a new seed is taken from Python's ``random`` module
each time, so ``random.seed(...)`` makes a whole program repeatable); an
int ``seed`` gives the *same* values on every call and for every instance
with that seed (like Keras). Calls are meant to run eagerly -- ``add_weight``
calls initializers under ``tf.init_scope()`` -- because a seed drawn while a
``tf.function`` is being traced becomes a constant of that graph.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.initializers.base import (  # noqa: F401  (compute_fans and Initializer are public)
    Initializer,
    _as_dtype,
    _as_shape,
    _plain,
    _RandomInitializer,
    _stateless_seed,
    compute_fans,
)
from tfkit.initializers.stft import STFT, STFTInitializer, stft  # noqa: F401

_KIND = "initializers"
# Standard deviation of a unit normal truncated to [-2, 2].
_TRUNCATED_STDDEV = 0.87962566103423978


# ------------------------------------------------------------------ constant


@registry.builtin(_KIND, "zeros", "zero")
class Zeros(Initializer):
    """All zeros (any dtype, integers and bool included)."""

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        return tf.zeros(_as_shape(shape, "Zeros"), dtype=_as_dtype(dtype, "Zeros"))


@registry.builtin(_KIND, "ones", "one")
class Ones(Initializer):
    """All ones (any dtype, integers and bool included)."""

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        return tf.ones(_as_shape(shape, "Ones"), dtype=_as_dtype(dtype, "Ones"))


@registry.builtin(_KIND, "constant")
class Constant(Initializer):
    """Every entry ``value`` (a scalar, or an array broadcast to the shape)."""

    def __init__(self, value: Any = 0.0) -> None:
        self.value = value

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        shape = _as_shape(shape, "Constant")
        value = tf.cast(tf.convert_to_tensor(self.value), _as_dtype(dtype, "Constant"))
        try:
            return tf.broadcast_to(value, shape)
        except (tf.errors.InvalidArgumentError, ValueError) as error:
            raise ValueError(
                f"Constant value of shape {tuple(value.shape)} cannot fill a weight of shape {shape}"
            ) from error

    def get_config(self) -> dict[str, Any]:
        return {"value": _plain(self.value)}


@registry.builtin(_KIND, "identity")
class Identity(Initializer):
    """``gain * eye(rows, cols)`` for a 2-D weight."""

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        shape = _as_shape(shape, "Identity")
        if len(shape) != 2:
            raise ValueError(f"Identity initializer needs a 2-D shape (rows, cols), got {shape}")
        dtype = _as_dtype(dtype, "Identity")
        return tf.cast(self.gain, dtype) * tf.eye(shape[0], shape[1], dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        return {"gain": _plain(self.gain)}


# -------------------------------------------------------------------- random


@registry.builtin(_KIND, "random_normal", "normal")
class RandomNormal(_RandomInitializer):
    """Normal values with ``mean`` and ``stddev``."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        super().__init__(seed)
        self.mean = mean
        self.stddev = stddev

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        return tf.random.stateless_normal(
            _as_shape(shape, "RandomNormal"),
            seed=_stateless_seed(self.seed),
            mean=self.mean,
            stddev=self.stddev,
            dtype=_as_dtype(dtype, "RandomNormal", floating=True),
        )

    def get_config(self) -> dict[str, Any]:
        return {"mean": _plain(self.mean), "stddev": _plain(self.stddev), "seed": self.seed}


@registry.builtin(_KIND, "random_uniform", "uniform")
class RandomUniform(_RandomInitializer):
    """Uniform values in ``[minval, maxval)``."""

    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None) -> None:
        super().__init__(seed)
        self.minval = minval
        self.maxval = maxval

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        return tf.random.stateless_uniform(
            _as_shape(shape, "RandomUniform"),
            seed=_stateless_seed(self.seed),
            minval=self.minval,
            maxval=self.maxval,
            dtype=_as_dtype(dtype, "RandomUniform", floating=True),
        )

    def get_config(self) -> dict[str, Any]:
        return {"minval": _plain(self.minval), "maxval": _plain(self.maxval), "seed": self.seed}


@registry.builtin(_KIND, "truncated_normal")
class TruncatedNormal(_RandomInitializer):
    """Normal values with ``mean`` and ``stddev``, redrawn beyond two ``stddev``."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        super().__init__(seed)
        self.mean = mean
        self.stddev = stddev

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        return tf.random.stateless_truncated_normal(
            _as_shape(shape, "TruncatedNormal"),
            seed=_stateless_seed(self.seed),
            mean=self.mean,
            stddev=self.stddev,
            dtype=_as_dtype(dtype, "TruncatedNormal", floating=True),
        )

    def get_config(self) -> dict[str, Any]:
        return {"mean": _plain(self.mean), "stddev": _plain(self.stddev), "seed": self.seed}


_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("truncated_normal", "untruncated_normal", "uniform")


@registry.builtin(_KIND, "variance_scaling")
class VarianceScaling(_RandomInitializer):
    """Values whose variance is ``scale / n``, ``n`` being a fan of the shape.

    ``mode`` picks ``n``: ``"fan_in"``, ``"fan_out"`` or ``"fan_avg"`` (their
    mean). ``distribution`` is ``"truncated_normal"`` (two-stddev cut,
    stddev corrected so the variance is still ``scale / n``),
    ``"untruncated_normal"`` or ``"uniform"`` (in ``±sqrt(3 * scale / n)``).
    ``input_axes`` / ``output_axes`` (both or neither) name the axes the fans multiply.
    """

    def __init__(
        self,
        scale: float = 1.0,
        mode: str = "fan_in",
        distribution: str = "truncated_normal",
        seed: int | None = None,
        input_axes: Sequence[int] | None = None,
        output_axes: Sequence[int] | None = None,
    ) -> None:
        super().__init__(seed)
        self.input_axes, self.output_axes = _axes(input_axes, "input_axes"), _axes(output_axes, "output_axes")
        if not scale > 0.0:
            raise ValueError(f"VarianceScaling expected a positive scale, got {scale!r}")
        if mode not in _MODES:
            raise ValueError(f"VarianceScaling expected mode in {_MODES}, got {mode!r}")
        distribution = str(distribution).lower()
        if distribution == "normal":  # tf-keras's old name for the truncated normal
            distribution = "truncated_normal"
        if distribution not in _DISTRIBUTIONS:
            raise ValueError(f"VarianceScaling expected distribution in {_DISTRIBUTIONS}, got {distribution!r}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        who = type(self).__name__
        shape = _as_shape(shape, who)
        dtype = _as_dtype(dtype, who, floating=True)
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, n)
        seed = _stateless_seed(self.seed)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(variance) / _TRUNCATED_STDDEV
            return tf.random.stateless_truncated_normal(shape, seed=seed, stddev=stddev, dtype=dtype)
        if self.distribution == "untruncated_normal":
            return tf.random.stateless_normal(shape, seed=seed, stddev=math.sqrt(variance), dtype=dtype)
        limit = math.sqrt(3.0 * variance)
        return tf.random.stateless_uniform(shape, seed=seed, minval=-limit, maxval=limit, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        return {
            "scale": _plain(self.scale),
            "mode": self.mode,
            "distribution": self.distribution,
            "seed": self.seed,
            "input_axes": self.input_axes,
            "output_axes": self.output_axes,
        }


class _FixedVarianceScaling(VarianceScaling):
    """A VarianceScaling preset: only ``seed`` is configurable."""

    _preset: tuple[float, str, str] = (1.0, "fan_in", "truncated_normal")

    def __init__(self, seed: int | None = None, input_axes: Sequence[int] | None = None,
                 output_axes: Sequence[int] | None = None) -> None:
        scale, mode, distribution = self._preset
        super().__init__(scale=scale, mode=mode, distribution=distribution, seed=seed, input_axes=input_axes,
                         output_axes=output_axes)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "input_axes": self.input_axes, "output_axes": self.output_axes}


@registry.builtin(_KIND, "glorot_uniform")
class GlorotUniform(_FixedVarianceScaling):
    """Uniform in ``±sqrt(6 / (fan_in + fan_out))`` (Xavier uniform)."""

    _preset = (1.0, "fan_avg", "uniform")


@registry.builtin(_KIND, "glorot_normal")
class GlorotNormal(_FixedVarianceScaling):
    """Truncated normal with stddev ``sqrt(2 / (fan_in + fan_out))``."""

    _preset = (1.0, "fan_avg", "truncated_normal")


@registry.builtin(_KIND, "he_uniform")
class HeUniform(_FixedVarianceScaling):
    """Uniform in ``±sqrt(6 / fan_in)``."""

    _preset = (2.0, "fan_in", "uniform")


@registry.builtin(_KIND, "he_normal")
class HeNormal(_FixedVarianceScaling):
    """Truncated normal with stddev ``sqrt(2 / fan_in)``."""

    _preset = (2.0, "fan_in", "truncated_normal")


@registry.builtin(_KIND, "lecun_uniform")
class LecunUniform(_FixedVarianceScaling):
    """Uniform in ``±sqrt(3 / fan_in)``."""

    _preset = (1.0, "fan_in", "uniform")


@registry.builtin(_KIND, "lecun_normal")
class LecunNormal(_FixedVarianceScaling):
    """Truncated normal with stddev ``sqrt(1 / fan_in)``."""

    _preset = (1.0, "fan_in", "truncated_normal")


@registry.builtin(_KIND, "orthogonal")
class Orthogonal(_RandomInitializer):
    """A (semi-)orthogonal matrix times ``gain``, from the QR of a normal draw.

    Shapes with more than two dimensions are flattened to
    ``(prod(shape[:-1]), shape[-1])`` first, as in Keras.
    """

    def __init__(self, gain: float = 1.0, seed: int | None = None) -> None:
        super().__init__(seed)
        self.gain = gain

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        shape = _as_shape(shape, "Orthogonal")
        dtype = _as_dtype(dtype, "Orthogonal", floating=True)
        if len(shape) < 2:
            raise ValueError(f"Orthogonal initializer needs a shape with at least 2 dimensions, got {shape}")
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        work_dtype = tf.float64 if dtype == tf.float64 else tf.float32
        a = tf.random.stateless_normal(
            (max(rows, cols), min(rows, cols)), seed=_stateless_seed(self.seed), dtype=work_dtype
        )
        q, r = tf.linalg.qr(a)
        signs = tf.sign(tf.linalg.diag_part(r))
        q = q * tf.where(signs == 0, tf.ones_like(signs), signs)
        if rows < cols:
            q = tf.transpose(q)
        return tf.cast(self.gain * tf.reshape(q, shape), dtype)

    def get_config(self) -> dict[str, Any]:
        return {"gain": _plain(self.gain), "seed": self.seed}


# ------------------------------------------------------------- lookup / config


def _axes(axes: Sequence[int] | None, what: str) -> list[int] | None:
    if axes is None:
        return None
    if isinstance(axes, int) or not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        raise ValueError(f"VarianceScaling expected {what} to be a list of integers or None, got {axes!r}")
    return list(axes)


def get(identifier: Any) -> Any:
    """An initializer from a name, a config dict, an object or a callable.

    ``None`` gives ``None``; a class gives a default instance; a callable
    ``f(shape, dtype)`` is returned as it is.
    """
    if identifier is None:
        return None
    return registry.resolve_callable(
        _KIND, identifier, "a name such as 'glorot_uniform', a {'class_name', 'config'} dict, an Initializer or a callable(shape, dtype)"
    )


def serialize(initializer: Any) -> Any:
    """``{"class_name": ..., "config": ...}`` for an object, a name for a function."""
    return registry.to_config(_KIND, initializer)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Inverse of :func:`serialize`."""
    return registry.resolve(_KIND, config, custom_objects)


# Keras 3 also exposes each initializer class under its string name.
constant, glorot_normal, glorot_uniform = Constant, GlorotNormal, GlorotUniform
he_normal, he_uniform, identity, IdentityInitializer = HeNormal, HeUniform, Identity, Identity
lecun_normal, lecun_uniform, ones, zeros = LecunNormal, LecunUniform, Ones, Zeros
orthogonal, OrthogonalInitializer = Orthogonal, Orthogonal
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling = VarianceScaling
