"""The initializers that draw random values: normal, uniform, truncated, variance scaling and its presets, orthogonal.

    tfkit.initializers.GlorotUniform(seed=1)((784, 64))   # the same values on every call (an int seed)
    tfkit.initializers.RandomNormal()((3,))               # fresh values on every call (seed=None)

Randomness uses stateless TensorFlow ops only; see ``tfkit.initializers`` for
what a seed means.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.initializers.base import _as_dtype, _as_shape, _plain, _RandomInitializer, _stateless_seed, compute_fans

_KIND = "initializers"
# Standard deviation of a unit normal truncated to [-2, 2].
_TRUNCATED_STDDEV = 0.87962566103423978


@registry.builtin(_KIND, "random_normal", "normal")
class RandomNormal(_RandomInitializer):
    """Random normal initializer.

    Draws samples from a normal distribution with the given `mean` and `stddev`,
    using stateless TensorFlow random ops. Also available as
    `tfkit.initializers.random_normal` and under the names `"random_normal"` and
    `"normal"`.

    Args:
        mean: A Python scalar, the mean of the random values to generate.
            Defaults to `0.0`.
        stddev: A Python scalar, the standard deviation of the random values to
            generate. Defaults to `0.05`.
        seed: An `int` or `None`. An `int` seed makes the initializer deterministic: every call,
            and every instance with that seed, gives the same values (as in Keras). With `None`,
            every call draws fresh values (a new seed is taken from Python's `random` module
            each time, so `random.seed(...)` makes a whole program repeatable). Defaults to `None`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `seed` is not an `int` or `None`; when called, if the shape is not
            fully known or the dtype is not floating.

    Example:
        >>> initializer = tfkit.initializers.RandomNormal(mean=0.0, stddev=1.0, seed=1)
        >>> values = initializer(shape=(2, 2))
        >>> values.shape, values.dtype
        (TensorShape([2, 2]), tf.float32)
        >>> bool(np.all(values.numpy() == initializer(shape=(2, 2)).numpy()))
        True
    """

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
    """Random uniform initializer.

    Draws samples from a uniform distribution in `[minval, maxval)`, using stateless
    TensorFlow random ops. Also available as `tfkit.initializers.random_uniform` and
    under the names `"random_uniform"` and `"uniform"`.

    Args:
        minval: A Python scalar, the lower bound of the range of random values to
            generate (inclusive). Defaults to `-0.05`.
        maxval: A Python scalar, the upper bound of the range of random values to
            generate (exclusive). Defaults to `0.05`.
        seed: An `int` or `None`. An `int` seed makes the initializer deterministic: every call,
            and every instance with that seed, gives the same values (as in Keras). With `None`,
            every call draws fresh values (a new seed is taken from Python's `random` module
            each time, so `random.seed(...)` makes a whole program repeatable). Defaults to `None`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `seed` is not an `int` or `None`; when called, if the shape is not
            fully known or the dtype is not floating.

    Example:
        >>> initializer = tfkit.initializers.RandomUniform(minval=0.0, maxval=1.0)
        >>> values = initializer(shape=(2, 2)).numpy()
        >>> values.shape, bool(np.all((values >= 0.0) & (values < 1.0)))
        ((2, 2), True)
    """

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
    """Initializer that generates a truncated normal distribution.

    The values generated are similar to values from a `RandomNormal` initializer,
    except that values more than two standard deviations from the mean are
    discarded and re-drawn. Also available as `tfkit.initializers.truncated_normal`
    and under the name `"truncated_normal"`.

    Args:
        mean: A Python scalar, the mean of the random values to generate.
            Defaults to `0.0`.
        stddev: A Python scalar, the standard deviation of the random values to
            generate (before truncation). Defaults to `0.05`.
        seed: An `int` or `None`. An `int` seed makes the initializer deterministic: every call,
            and every instance with that seed, gives the same values (as in Keras). With `None`,
            every call draws fresh values (a new seed is taken from Python's `random` module
            each time, so `random.seed(...)` makes a whole program repeatable). Defaults to `None`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `seed` is not an `int` or `None`; when called, if the shape is not
            fully known or the dtype is not floating.

    Example:
        >>> initializer = tfkit.initializers.TruncatedNormal(mean=0.0, stddev=1.0, seed=1)
        >>> values = initializer(shape=(100,)).numpy()
        >>> values.shape, bool(np.all(np.abs(values) <= 2.0))
        ((100,), True)
    """

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
    """Initializer that adapts its scale to the shape of its input tensors.

    With `distribution="truncated_normal"` or `"untruncated_normal"`, samples are
    drawn from a (truncated or plain) normal distribution centered on zero, with
    `stddev = sqrt(scale / n)`, where `n` is:

    - the number of input units in the weight tensor, if `mode="fan_in"`;
    - the number of output units, if `mode="fan_out"`;
    - the average of the numbers of input and output units, if `mode="fan_avg"`.

    The truncated normal is cut at two standard deviations and its stddev corrected
    so that the variance is still `scale / n`. With `distribution="uniform"`, samples
    are drawn from a uniform distribution within `[-limit, limit]`, where
    `limit = sqrt(3 * scale / n)`. The fans come from `compute_fans`. Also available
    as `tfkit.initializers.variance_scaling` and under the name `"variance_scaling"`.

    Args:
        scale: A positive `float`, the scaling factor. Defaults to `1.0`.
        mode: One of `"fan_in"`, `"fan_out"`, `"fan_avg"`. Defaults to `"fan_in"`.
        distribution: Random distribution to use. One of `"truncated_normal"`,
            `"untruncated_normal"` and `"uniform"` (case-insensitive; tf-keras's old name
            `"normal"` means `"truncated_normal"`). Defaults to `"truncated_normal"`.
        seed: An `int` or `None`. An `int` seed makes the initializer deterministic: every call,
            and every instance with that seed, gives the same values (as in Keras). With `None`,
            every call draws fresh values (a new seed is taken from Python's `random` module
            each time, so `random.seed(...)` makes a whole program repeatable). Defaults to `None`.
        input_axes: Optional list of integers, the axes of the weight's shape whose sizes multiply
            into `fan_in` (for an `EinsumDense` kernel `(in, heads, dim)`: `[0]`). Give it
            together with `output_axes`; with neither, the fans follow the default
            rule of `compute_fans`. Defaults to `None`.
        output_axes: Optional list of integers, the axes whose sizes multiply into `fan_out`
            (`[1, 2]` for the kernel above). Defaults to `None`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `scale` is not positive, `mode` or `distribution` is not one of
            the values above, `seed` is not an `int` or `None`, or `input_axes` or
            `output_axes` is not a list of integers; when called, if the shape is not fully
            known or the dtype is not floating.

    Example:
        >>> initializer = tfkit.initializers.VarianceScaling(
        ...     scale=0.1, mode="fan_in", distribution="uniform")
        >>> values = initializer(shape=(10, 4)).numpy()
        >>> values.shape, bool(np.all(np.abs(values) <= np.sqrt(3 * 0.1 / 10)))
        ((10, 4), True)
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

    def __init__(
        self, seed: int | None = None, input_axes: Sequence[int] | None = None, output_axes: Sequence[int] | None = None
    ) -> None:
        scale, mode, distribution = self._preset
        super().__init__(
            scale=scale, mode=mode, distribution=distribution, seed=seed, input_axes=input_axes, output_axes=output_axes
        )

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "input_axes": self.input_axes, "output_axes": self.output_axes}


@registry.builtin(_KIND, "glorot_uniform")
class GlorotUniform(_FixedVarianceScaling):
    """The Glorot uniform initializer, also called Xavier uniform initializer.

    Draws samples from a uniform distribution within `[-limit, limit]`, where
    `limit = sqrt(6 / (fan_in + fan_out))`. Also available as
    `tfkit.initializers.glorot_uniform` and under the name `"glorot_uniform"`; it is
    the default kernel initializer of `Dense` and the convolution layers.

    It is `VarianceScaling(scale=1.0, mode="fan_avg", distribution="uniform")`, where `fan_in` and `fan_out`
    are the numbers of input and output units of the weight (see `compute_fans`).

    Args:
        seed: An `int` or `None`. An `int` seed makes the initializer deterministic: every call,
            and every instance with that seed, gives the same values (as in Keras). With `None`,
            every call draws fresh values (a new seed is taken from Python's `random` module
            each time, so `random.seed(...)` makes a whole program repeatable). Defaults to `None`.
        input_axes: Optional list of integers, the axes of the weight's shape whose sizes multiply
            into `fan_in` (for an `EinsumDense` kernel `(in, heads, dim)`: `[0]`). Give it
            together with `output_axes`; with neither, the fans follow the default
            rule of `compute_fans`. Defaults to `None`.
        output_axes: Optional list of integers, the axes whose sizes multiply into `fan_out`
            (`[1, 2]` for the kernel above). Defaults to `None`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `seed` is not an `int` or `None`, if `input_axes` or `output_axes`
            is not a list of integers, or, when called, if the shape is not fully known or
            the dtype is not floating.

    References:
        Glorot and Bengio, 2010, "Understanding the difficulty of training deep feedforward
        neural networks".

    Example:
        >>> initializer = tfkit.initializers.GlorotUniform(seed=1)
        >>> values = initializer(shape=(2, 3))
        >>> values.shape, values.dtype
        (TensorShape([2, 3]), tf.float32)
        >>> bool(np.all(values.numpy() == initializer(shape=(2, 3)).numpy()))
        True
    """

    _preset = (1.0, "fan_avg", "uniform")


@registry.builtin(_KIND, "glorot_normal")
class GlorotNormal(_FixedVarianceScaling):
    """The Glorot normal initializer, also called Xavier normal initializer.

    Draws samples from a truncated normal distribution centered on 0 with
    `stddev = sqrt(2 / (fan_in + fan_out))`. Also available as
    `tfkit.initializers.glorot_normal` and under the name `"glorot_normal"`.

    It is `VarianceScaling(scale=1.0, mode="fan_avg", distribution="truncated_normal")`, where `fan_in` and `fan_out`
    are the numbers of input and output units of the weight (see `compute_fans`).

    Args:
        seed: An `int` or `None`. An `int` seed makes the initializer deterministic: every call,
            and every instance with that seed, gives the same values (as in Keras). With `None`,
            every call draws fresh values (a new seed is taken from Python's `random` module
            each time, so `random.seed(...)` makes a whole program repeatable). Defaults to `None`.
        input_axes: Optional list of integers, the axes of the weight's shape whose sizes multiply
            into `fan_in` (for an `EinsumDense` kernel `(in, heads, dim)`: `[0]`). Give it
            together with `output_axes`; with neither, the fans follow the default
            rule of `compute_fans`. Defaults to `None`.
        output_axes: Optional list of integers, the axes whose sizes multiply into `fan_out`
            (`[1, 2]` for the kernel above). Defaults to `None`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `seed` is not an `int` or `None`, if `input_axes` or `output_axes`
            is not a list of integers, or, when called, if the shape is not fully known or
            the dtype is not floating.

    References:
        Glorot and Bengio, 2010, "Understanding the difficulty of training deep feedforward
        neural networks".

    Example:
        >>> initializer = tfkit.initializers.GlorotNormal(seed=1)
        >>> values = initializer(shape=(2, 3))
        >>> values.shape, values.dtype
        (TensorShape([2, 3]), tf.float32)
        >>> bool(np.all(values.numpy() == initializer(shape=(2, 3)).numpy()))
        True
    """

    _preset = (1.0, "fan_avg", "truncated_normal")


@registry.builtin(_KIND, "he_uniform")
class HeUniform(_FixedVarianceScaling):
    """He uniform variance scaling initializer.

    Draws samples from a uniform distribution within `[-limit, limit]`, where
    `limit = sqrt(6 / fan_in)`. Also available as `tfkit.initializers.he_uniform` and
    under the name `"he_uniform"`; suited to layers followed by `relu`.

    It is `VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform")`, where `fan_in` and `fan_out`
    are the numbers of input and output units of the weight (see `compute_fans`).

    Args:
        seed: An `int` or `None`. An `int` seed makes the initializer deterministic: every call,
            and every instance with that seed, gives the same values (as in Keras). With `None`,
            every call draws fresh values (a new seed is taken from Python's `random` module
            each time, so `random.seed(...)` makes a whole program repeatable). Defaults to `None`.
        input_axes: Optional list of integers, the axes of the weight's shape whose sizes multiply
            into `fan_in` (for an `EinsumDense` kernel `(in, heads, dim)`: `[0]`). Give it
            together with `output_axes`; with neither, the fans follow the default
            rule of `compute_fans`. Defaults to `None`.
        output_axes: Optional list of integers, the axes whose sizes multiply into `fan_out`
            (`[1, 2]` for the kernel above). Defaults to `None`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `seed` is not an `int` or `None`, if `input_axes` or `output_axes`
            is not a list of integers, or, when called, if the shape is not fully known or
            the dtype is not floating.

    References:
        He et al., 2015, "Delving Deep into Rectifiers: Surpassing Human-Level Performance on
        ImageNet Classification".

    Example:
        >>> initializer = tfkit.initializers.HeUniform(seed=1)
        >>> values = initializer(shape=(2, 3))
        >>> values.shape, values.dtype
        (TensorShape([2, 3]), tf.float32)
        >>> bool(np.all(values.numpy() == initializer(shape=(2, 3)).numpy()))
        True
    """

    _preset = (2.0, "fan_in", "uniform")


@registry.builtin(_KIND, "he_normal")
class HeNormal(_FixedVarianceScaling):
    """He normal initializer.

    Draws samples from a truncated normal distribution centered on 0 with
    `stddev = sqrt(2 / fan_in)`. Also available as `tfkit.initializers.he_normal` and
    under the name `"he_normal"`; suited to layers followed by `relu`.

    It is `VarianceScaling(scale=2.0, mode="fan_in", distribution="truncated_normal")`, where `fan_in` and `fan_out`
    are the numbers of input and output units of the weight (see `compute_fans`).

    Args:
        seed: An `int` or `None`. An `int` seed makes the initializer deterministic: every call,
            and every instance with that seed, gives the same values (as in Keras). With `None`,
            every call draws fresh values (a new seed is taken from Python's `random` module
            each time, so `random.seed(...)` makes a whole program repeatable). Defaults to `None`.
        input_axes: Optional list of integers, the axes of the weight's shape whose sizes multiply
            into `fan_in` (for an `EinsumDense` kernel `(in, heads, dim)`: `[0]`). Give it
            together with `output_axes`; with neither, the fans follow the default
            rule of `compute_fans`. Defaults to `None`.
        output_axes: Optional list of integers, the axes whose sizes multiply into `fan_out`
            (`[1, 2]` for the kernel above). Defaults to `None`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `seed` is not an `int` or `None`, if `input_axes` or `output_axes`
            is not a list of integers, or, when called, if the shape is not fully known or
            the dtype is not floating.

    References:
        He et al., 2015, "Delving Deep into Rectifiers: Surpassing Human-Level Performance on
        ImageNet Classification".

    Example:
        >>> initializer = tfkit.initializers.HeNormal(seed=1)
        >>> values = initializer(shape=(2, 3))
        >>> values.shape, values.dtype
        (TensorShape([2, 3]), tf.float32)
        >>> bool(np.all(values.numpy() == initializer(shape=(2, 3)).numpy()))
        True
    """

    _preset = (2.0, "fan_in", "truncated_normal")


@registry.builtin(_KIND, "lecun_uniform")
class LecunUniform(_FixedVarianceScaling):
    """Lecun uniform initializer.

    Draws samples from a uniform distribution within `[-limit, limit]`, where
    `limit = sqrt(3 / fan_in)`. Also available as `tfkit.initializers.lecun_uniform`
    and under the name `"lecun_uniform"`.

    It is `VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform")`, where `fan_in` and `fan_out`
    are the numbers of input and output units of the weight (see `compute_fans`).

    Args:
        seed: An `int` or `None`. An `int` seed makes the initializer deterministic: every call,
            and every instance with that seed, gives the same values (as in Keras). With `None`,
            every call draws fresh values (a new seed is taken from Python's `random` module
            each time, so `random.seed(...)` makes a whole program repeatable). Defaults to `None`.
        input_axes: Optional list of integers, the axes of the weight's shape whose sizes multiply
            into `fan_in` (for an `EinsumDense` kernel `(in, heads, dim)`: `[0]`). Give it
            together with `output_axes`; with neither, the fans follow the default
            rule of `compute_fans`. Defaults to `None`.
        output_axes: Optional list of integers, the axes whose sizes multiply into `fan_out`
            (`[1, 2]` for the kernel above). Defaults to `None`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `seed` is not an `int` or `None`, if `input_axes` or `output_axes`
            is not a list of integers, or, when called, if the shape is not fully known or
            the dtype is not floating.

    References:
        LeCun et al., 1998, "Efficient Backprop".

    Example:
        >>> initializer = tfkit.initializers.LecunUniform(seed=1)
        >>> values = initializer(shape=(2, 3))
        >>> values.shape, values.dtype
        (TensorShape([2, 3]), tf.float32)
        >>> bool(np.all(values.numpy() == initializer(shape=(2, 3)).numpy()))
        True
    """

    _preset = (1.0, "fan_in", "uniform")


@registry.builtin(_KIND, "lecun_normal")
class LecunNormal(_FixedVarianceScaling):
    """Lecun normal initializer.

    Draws samples from a truncated normal distribution centered on 0 with
    `stddev = sqrt(1 / fan_in)`. Also available as `tfkit.initializers.lecun_normal`
    and under the name `"lecun_normal"`; the initializer to pair with `selu`.

    It is `VarianceScaling(scale=1.0, mode="fan_in", distribution="truncated_normal")`, where `fan_in` and `fan_out`
    are the numbers of input and output units of the weight (see `compute_fans`).

    Args:
        seed: An `int` or `None`. An `int` seed makes the initializer deterministic: every call,
            and every instance with that seed, gives the same values (as in Keras). With `None`,
            every call draws fresh values (a new seed is taken from Python's `random` module
            each time, so `random.seed(...)` makes a whole program repeatable). Defaults to `None`.
        input_axes: Optional list of integers, the axes of the weight's shape whose sizes multiply
            into `fan_in` (for an `EinsumDense` kernel `(in, heads, dim)`: `[0]`). Give it
            together with `output_axes`; with neither, the fans follow the default
            rule of `compute_fans`. Defaults to `None`.
        output_axes: Optional list of integers, the axes whose sizes multiply into `fan_out`
            (`[1, 2]` for the kernel above). Defaults to `None`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `seed` is not an `int` or `None`, if `input_axes` or `output_axes`
            is not a list of integers, or, when called, if the shape is not fully known or
            the dtype is not floating.

    References:
        Klambauer et al., 2017, "Self-Normalizing Neural Networks".

    Example:
        >>> initializer = tfkit.initializers.LecunNormal(seed=1)
        >>> values = initializer(shape=(2, 3))
        >>> values.shape, values.dtype
        (TensorShape([2, 3]), tf.float32)
        >>> bool(np.all(values.numpy() == initializer(shape=(2, 3)).numpy()))
        True
    """

    _preset = (1.0, "fan_in", "truncated_normal")


@registry.builtin(_KIND, "orthogonal")
class Orthogonal(_RandomInitializer):
    """Initializer that generates an orthogonal matrix.

    If the shape of the tensor to initialize is two-dimensional, it is initialized
    with an orthogonal matrix obtained from the QR decomposition of a matrix of
    random numbers drawn from a normal distribution (signs fixed by the diagonal of
    `R`). If the matrix has fewer rows than columns then the output will have
    orthogonal rows; otherwise, the output will have orthogonal columns. The result
    is multiplied by `gain`.

    If the shape of the tensor to initialize is more than two-dimensional, a matrix
    of shape `(prod(shape[:-1]), shape[-1])` is initialized and reshaped, as in Keras.
    Also available as `tfkit.initializers.orthogonal`,
    `tfkit.initializers.OrthogonalInitializer` and under the name `"orthogonal"`.

    Args:
        gain: A scalar, the multiplicative factor to apply to the orthogonal matrix.
            Defaults to `1.0`.
        seed: An `int` or `None`. An `int` seed makes the initializer deterministic: every call,
            and every instance with that seed, gives the same values (as in Keras). With `None`,
            every call draws fresh values (a new seed is taken from Python's `random` module
            each time, so `random.seed(...)` makes a whole program repeatable). Defaults to `None`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known, with at least 2 dimensions.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `seed` is not an `int` or `None`; when called, if the shape has
            fewer than 2 dimensions or is not fully known, or the dtype is not floating.

    References:
        Saxe et al., 2014, "Exact solutions to the nonlinear dynamics of learning in
        deep linear neural networks".

    Example:
        >>> initializer = tfkit.initializers.Orthogonal(seed=1)
        >>> q = initializer(shape=(3, 3)).numpy()
        >>> q.shape, bool(np.allclose(q @ q.T, np.eye(3), atol=1e-5))
        ((3, 3), True)
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


def _axes(axes: Sequence[int] | None, what: str) -> list[int] | None:
    if axes is None:
        return None
    if isinstance(axes, int) or not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        raise ValueError(f"VarianceScaling expected {what} to be a list of integers or None, got {axes!r}")
    return list(axes)
