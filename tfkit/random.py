"""Random numbers from stateless TensorFlow ops, seeded by a ``SeedGenerator``.

    self.seed_generator = tfkit.random.SeedGenerator(1337)          # in a layer's __init__
    noise = tfkit.random.normal((batch, dim), seed=self.seed_generator)
    y = tfkit.random.dropout(x, rate=0.5, seed=self.seed_generator)

``seed`` may be:

* a :class:`SeedGenerator` -- new numbers on every call, eager, inside
  ``tf.function`` and under ``jit_compile=True`` alike, while a fresh
  generator with the same seed replays the same sequence;
* an int -- the same numbers on every call (like Keras);
* ``None`` -- a module-wide default generator, seeded randomly, or with
  ``[seed, 0]`` by every ``set_global_seed(seed)`` /
  ``tfkit.utils.set_random_seed(seed)`` call, the first one included.

Every function uses ``tf.random.stateless_*`` (or
``tf.nn.experimental.stateless_dropout``), so it compiles under XLA. Note
that XLA implements these ops with its own kernels: a compiled function
and an eager call with the same seed draw different (equally valid) numbers.
Inside an XLA-compiled function the draws name the Philox algorithm
(:func:`algorithm`): TensorFlow's default there turns the seed into a key
with a kernel that XLA compiles badly on CPUs (677 us for a 64x32 normal
draw, 33 us with Philox named; the guide's VAE trained 2.5x slower).
Outside XLA the default is Philox already, so those numbers are unchanged.
"""

from __future__ import annotations

import random as _py_random
import threading
from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base import symbolic as _symbolic
from tfkit.base.variable_roles import StateOwner
from tfkit.base.xla_context import in_xla_compilation
from tfkit.distribution import values as distribution_values

_MAX_SEED = 2**31 - 1


class SeedGenerator(tf.Module, StateOwner):
    """Generates a new seed on every draw, from a state kept in a variable.

    Pass it as the `seed` of `tfkit.random` functions (and of random layers'
    own draws) to get new numbers on every call, eagerly, inside a
    `tf.function` and under XLA alike, while a new generator with the same
    seed replays the same sequence. Create it in a layer's `__init__`.
    `state` is an int64 `tf.Variable` `[seed, counter]`; `next` returns the
    current state as a stateless-op seed and adds one to the counter. The
    variable is saved in checkpoints (so a resumed run continues the
    sequence), but tfkit does not list it among a layer's weights.

    Args:
        seed: Integer initial seed, or `None` for a random one. Defaults to
            `None`.
        name: Optional name of the generator. Defaults to `None`
            (`"seed_generator"`).

    Raises:
        ValueError: If `seed` is not an int or `None`.

    Example:
        >>> gen = tfkit.random.SeedGenerator(1337)
        >>> a = tfkit.random.uniform((3,), seed=gen)
        >>> b = tfkit.random.uniform((3,), seed=gen)
        >>> bool(tf.reduce_all(a == b))
        False
        >>> again = tfkit.random.SeedGenerator(1337)
        >>> bool(tf.reduce_all(tfkit.random.uniform((3,), seed=again) == a))
        True
    """

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(name=name or "seed_generator")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise ValueError(f"SeedGenerator expected seed to be an int or None, got {type(seed).__name__}: {seed!r}")
        self._initial_seed = None if seed is None else int(seed)
        start = _py_random.randint(0, _MAX_SEED) if seed is None else int(seed)
        with tf.init_scope(), distribution_values.variable_scope():
            self.state = tf.Variable(
                tf.constant([start, 0], dtype=tf.int64),
                trainable=False,
                name="seed_generator_state",
                aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA,
            )

    def next(self) -> tf.Tensor:
        """Returns the current `[seed, counter]` (int64, shape `(2,)`) as a seed, then advances the counter.

        Returns:
            An int64 tensor of shape `(2,)`, for `tf.random.stateless_*` ops.
        """
        seed = self.state.value()  # not read_value(): its extra Identity is one more op in every export
        with tf.control_dependencies([seed]):
            self.state.assign_add(tf.constant([0, 1], dtype=tf.int64), read_value=False)
        return seed

    def get_config(self) -> dict[str, Any]:
        """The generator's config: `{"seed": initial seed}`."""
        return {"seed": self._initial_seed}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "SeedGenerator":
        """Creates a generator from its config (it starts its sequence over)."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"SeedGenerator(seed={self._initial_seed!r})"


_default_generator: SeedGenerator | None = None
_global_seed: int | None = None
_default_lock = threading.Lock()


def default_seed_generator() -> SeedGenerator:
    """Returns the module-wide `SeedGenerator` that draws with `seed=None` use.

    It is created on first use: with state `[seed, 0]` after
    `set_global_seed(seed)` / `tfkit.utils.set_random_seed(seed)`, else
    with a random seed.

    Returns:
        A `tfkit.random.SeedGenerator`.

    Example:
        >>> tfkit.random.default_seed_generator() is tfkit.random.default_seed_generator()
        True
    """
    global _default_generator
    with _default_lock:
        if _default_generator is None:
            with tf.init_scope():
                _default_generator = SeedGenerator(_global_seed, name="default_seed_generator")
        return _default_generator


def set_global_seed(seed: int) -> None:
    """Makes unseeded draws repeatable: (re)seeds the module-wide generator and new unseeded generators.

    The module-wide generator that `seed=None` draws use starts over at
    `[seed, 0]` on every call, the first one included (it is created with
    that state if it does not exist yet), so the draws after each call with
    the same seed are the same. New `SeedGenerator` objects created without
    a seed take their starting seed from Python's `random`, which this
    reseeds with `seed`. `tfkit.utils.set_random_seed` calls it (along with
    Python's, NumPy's and TensorFlow's seeds).

    Args:
        seed: Integer seed.

    Example:
        >>> tfkit.random.set_global_seed(7)
        >>> a = tfkit.random.normal((2,), seed=tfkit.random.SeedGenerator())
        >>> tfkit.random.set_global_seed(7)
        >>> bool(tf.reduce_all(a == tfkit.random.normal((2,), seed=tfkit.random.SeedGenerator())))
        True
        >>> tfkit.random.set_global_seed(7)
        >>> b = tfkit.random.normal((2,))
        >>> tfkit.random.set_global_seed(7)
        >>> bool(tf.reduce_all(b == tfkit.random.normal((2,))))
        True
    """
    global _global_seed
    _py_random.seed(int(seed))
    with _default_lock:
        _global_seed = int(seed)
        if _default_generator is not None:
            _default_generator.state.assign([int(seed), 0])


def draw_seed(seed: Any) -> tf.Tensor:
    """Turns a `seed` argument into a shape-`(2,)` seed tensor for a stateless random op.

    Args:
        seed: A `tfkit.random.SeedGenerator` (new numbers on every call, also
            inside a compiled function), an int (the same numbers on every
            call), a shape-`(2,)` integer seed tensor, or `None` (the
            module-wide default generator). Defaults to `None`.

    Returns:
        An integer tensor of shape `(2,)`: the generator's next seed, or
        `[seed, 0]` for an int.

    Raises:
        ValueError: For another kind of seed.

    Example:
        >>> tfkit.random.draw_seed(42)
        <tf.Tensor: shape=(2,), dtype=int64, numpy=array([42,  0])>
    """
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if seed is None:
        return default_seed_generator().next()
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return tf.constant([int(seed), 0], dtype=tf.int64)
    if isinstance(seed, (tf.Tensor, tf.Variable)) and seed.shape == (2,) and seed.dtype.is_integer:
        return seed
    raise ValueError(
        f"seed must be a tfkit.random.SeedGenerator, an int, a shape-(2,) integer tensor or None; "
        f"got {type(seed).__name__}: {seed!r}"
    )


def algorithm() -> str:
    """Returns the stateless RNG algorithm for a draw traced here: `"philox"` under XLA, else `"auto_select"`.

    Outside XLA, CPUs and GPUs select Philox for `"auto_select"` too (the
    same numbers, from one op that makes the key); under XLA, naming it
    avoids that op's slow XLA kernel.

    Returns:
        `"philox"` or `"auto_select"`.

    Example:
        >>> tfkit.random.algorithm()
        'auto_select'
    """
    return "philox" if in_xla_compilation() else "auto_select"


def _refuse_symbolic(who: str, **values: Any) -> None:
    """A random draw on a functional model's symbolic tensor: a TypeError saying what to use instead."""
    for name, value in values.items():
        if _symbolic.is_symbolic(value):
            raise TypeError(
                f"tfkit.random.{who} cannot take a symbolic tensor ({name}={value!r}): a functional model records "
                f"no random draws (Keras 3 refuses a KerasTensor here too). Draw inside a layer's call, or use a "
                f"layer that draws at call time, such as tfkit.layers.Dropout or tfkit.layers.GaussianNoise."
            )


def _shape(shape: Any) -> Any:
    """A static tuple when every entry is known, else an int32 shape tensor."""
    if isinstance(shape, (tf.Tensor, tf.Variable)):
        return tf.cast(shape, tf.int32)
    dims = list(tf.TensorShape(shape).as_list()) if isinstance(shape, tf.TensorShape) else list(shape)
    if all(isinstance(d, (int, np.integer)) for d in dims):
        return tuple(int(d) for d in dims)
    if any(d is None for d in dims):
        raise ValueError(f"Random shapes must be fully known, got {tuple(dims)}")
    return tf.stack([tf.cast(d, tf.int32) for d in dims])


def _float_dtype(dtype: Any, who: str) -> tf.DType:
    dtype = tf.as_dtype(dtype or "float32")
    if not dtype.is_floating:
        raise ValueError(f"tfkit.random.{who} draws floats and needs a floating dtype, got {dtype.name}")
    return dtype


def normal(
    shape: Sequence[Any], mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: Any = None
) -> tf.Tensor:
    """Draws random samples from a normal (Gaussian) distribution.

    Args:
        shape: The shape of the output; entries may be scalar tensors.
        mean: Mean of the distribution. Defaults to `0.0`.
        stddev: Standard deviation of the distribution. Defaults to `1.0`.
        dtype: A floating dtype. Defaults to `None` (float32).
        seed: A `tfkit.random.SeedGenerator` (new numbers on every call, also
            inside a compiled function), an int (the same numbers on every
            call), a shape-`(2,)` integer seed tensor, or `None` (the
            module-wide default generator). Defaults to `None`.

    Returns:
        A tensor of `shape`.

    Raises:
        ValueError: If `dtype` is not floating, or `shape` has unknown
            entries.

    Example:
        >>> x = tfkit.random.normal((2, 3), mean=1.0, stddev=0.5, seed=0)
        >>> x.shape, x.dtype
        (TensorShape([2, 3]), tf.float32)
        >>> bool(tf.reduce_all(x == tfkit.random.normal((2, 3), mean=1.0, stddev=0.5, seed=0)))
        True
    """
    return distribution_values.replicated(
        tf.random.stateless_normal(  # the same draws on any layout
            _shape(shape),
            seed=draw_seed(seed),
            mean=mean,
            stddev=stddev,
            dtype=_float_dtype(dtype, "normal"),
            alg=algorithm(),
        )
    )


def uniform(
    shape: Sequence[Any], minval: float = 0.0, maxval: float = 1.0, dtype: Any = None, seed: Any = None
) -> tf.Tensor:
    """Draws samples from a uniform distribution over `[minval, maxval)`.

    For integers, use `randint`.

    Args:
        shape: The shape of the output; entries may be scalar tensors.
        minval: Lower bound (inclusive). Defaults to `0.0`.
        maxval: Upper bound (exclusive). Defaults to `1.0`.
        dtype: A floating dtype. Defaults to `None` (float32).
        seed: A `tfkit.random.SeedGenerator` (new numbers on every call, also
            inside a compiled function), an int (the same numbers on every
            call), a shape-`(2,)` integer seed tensor, or `None` (the
            module-wide default generator). Defaults to `None`.

    Returns:
        A tensor of `shape`.

    Raises:
        ValueError: If `dtype` is not floating, or `shape` has unknown
            entries.

    Example:
        >>> x = tfkit.random.uniform((1000,), minval=2.0, maxval=3.0, seed=1)
        >>> bool(tf.reduce_min(x) >= 2.0), bool(tf.reduce_max(x) < 3.0)
        (True, True)
    """
    return distribution_values.replicated(
        tf.random.stateless_uniform(  # the same draws on any layout
            _shape(shape),
            seed=draw_seed(seed),
            minval=minval,
            maxval=maxval,
            dtype=_float_dtype(dtype, "uniform"),
            alg=algorithm(),
        )
    )


def truncated_normal(
    shape: Sequence[Any], mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: Any = None
) -> tf.Tensor:
    """Draws samples from a truncated normal distribution.

    Values more than two standard deviations from the mean are redrawn.

    Args:
        shape: The shape of the output; entries may be scalar tensors.
        mean: Mean of the distribution. Defaults to `0.0`.
        stddev: Standard deviation of the distribution (before truncation).
            Defaults to `1.0`.
        dtype: A floating dtype. Defaults to `None` (float32).
        seed: A `tfkit.random.SeedGenerator` (new numbers on every call, also
            inside a compiled function), an int (the same numbers on every
            call), a shape-`(2,)` integer seed tensor, or `None` (the
            module-wide default generator). Defaults to `None`.

    Returns:
        A tensor of `shape`.

    Raises:
        ValueError: If `dtype` is not floating, or `shape` has unknown
            entries.

    Example:
        >>> x = tfkit.random.truncated_normal((1000,), seed=3)
        >>> bool(tf.reduce_max(tf.abs(x)) <= 2.0)
        True
    """
    return distribution_values.replicated(
        tf.random.stateless_truncated_normal(  # the same draws on any layout
            _shape(shape),
            seed=draw_seed(seed),
            mean=mean,
            stddev=stddev,
            dtype=_float_dtype(dtype, "truncated_normal"),
            alg=algorithm(),
        )
    )


def randint(shape: Sequence[Any], minval: int, maxval: int, dtype: Any = "int32", seed: Any = None) -> tf.Tensor:
    """Draws random integers from a uniform distribution over `[minval, maxval)`.

    Args:
        shape: The shape of the output; entries may be scalar tensors.
        minval: Lower bound (inclusive), an integer.
        maxval: Upper bound (exclusive), an integer.
        dtype: An integer dtype. Defaults to `"int32"`.
        seed: A `tfkit.random.SeedGenerator` (new numbers on every call, also
            inside a compiled function), an int (the same numbers on every
            call), a shape-`(2,)` integer seed tensor, or `None` (the
            module-wide default generator). Defaults to `None`.

    Returns:
        A tensor of `shape` and `dtype`.

    Raises:
        ValueError: If `dtype` is not an integer dtype.

    Example:
        >>> x = tfkit.random.randint((100,), minval=0, maxval=3, seed=5)
        >>> x.dtype, sorted(set(x.numpy().tolist()))
        (tf.int32, [0, 1, 2])
    """
    dtype = tf.as_dtype(dtype)
    if not dtype.is_integer:
        raise ValueError(f"tfkit.random.randint needs an integer dtype, got {dtype.name}")
    work = tf.int64 if dtype in (tf.int64, tf.uint64, tf.uint32) else tf.int32
    values = tf.random.stateless_uniform(
        _shape(shape),
        seed=draw_seed(seed),
        minval=tf.cast(minval, work),
        maxval=tf.cast(maxval, work),
        dtype=work,
        alg=algorithm(),
    )
    return distribution_values.replicated(tf.cast(values, dtype))  # the same draws on any layout


def dropout(inputs: Any, rate: float, noise_shape: Sequence[Any] | None = None, seed: Any = None) -> tf.Tensor:
    """Randomly sets entries of the inputs to 0, scaling the others by `1 / (1 - rate)`.

    Each entry is dropped with probability `rate`, so the expected sum is
    unchanged.

    Args:
        inputs: A tensor (or array).
        rate: Float in `[0, 1)`, the probability of dropping each entry.
        noise_shape: Optional shape with one entry per input dimension,
            broadcastable to `inputs`; `None` entries take the input's size.
            Size-1 axes share one keep/drop decision (for example
            `(batch, 1, features)` drops whole features across timesteps).
            Defaults to `None` (independent decisions).
        seed: A `tfkit.random.SeedGenerator` (new numbers on every call, also
            inside a compiled function), an int (the same numbers on every
            call), a shape-`(2,)` integer seed tensor, or `None` (the
            module-wide default generator). Defaults to `None`.

    Returns:
        A tensor like `inputs`.

    Raises:
        TypeError: If `inputs` is a symbolic tensor (`tfkit.Input`): use a random layer.
        ValueError: If `rate` is outside `[0, 1)`, or `noise_shape` has the
            wrong length.

    Example:
        >>> y = tfkit.random.dropout(tf.ones((2, 4)), rate=0.5, seed=1)
        >>> sorted(set(y.numpy().ravel().tolist())) in ([0.0, 2.0], [0.0], [2.0])
        True
    """
    _refuse_symbolic("dropout", inputs=inputs)
    inputs = tf.convert_to_tensor(inputs)
    if isinstance(rate, (int, float)) and not 0 <= rate < 1:
        raise ValueError(f"tfkit.random.dropout expected rate in [0, 1), got {rate!r}")
    if noise_shape is not None:
        noise_shape = _noise_shape(inputs, noise_shape)
    if distribution_values.on_mesh() and not (isinstance(rate, (int, float)) and rate == 0):
        # TensorFlow's stateless_dropout, with the mask drawn whole: the same mask on any layout
        mask_shape = noise_shape if noise_shape is not None else tf.shape(inputs)
        draws = distribution_values.replicated(
            tf.random.stateless_uniform(mask_shape, seed=draw_seed(seed), dtype=inputs.dtype, alg=algorithm())
        )
        kept = (
            inputs * tf.convert_to_tensor(1 / (1 - rate), dtype=inputs.dtype)
            if isinstance(rate, (int, float))
            else inputs / (1 - tf.cast(rate, inputs.dtype))
        )
        return tf.where(draws >= tf.cast(rate, inputs.dtype), kept, tf.zeros((), inputs.dtype))
    return tf.nn.experimental.stateless_dropout(
        inputs, rate=rate, seed=draw_seed(seed), noise_shape=noise_shape, rng_alg=algorithm()
    )


def _noise_shape(inputs: tf.Tensor, noise_shape: Sequence[Any]) -> Any:
    noise_shape = list(noise_shape)
    if inputs.shape.rank is not None and len(noise_shape) != inputs.shape.rank:
        raise ValueError(
            f"noise_shape {tuple(noise_shape)} must have one entry per input dimension; "
            f"the inputs have shape {tuple(inputs.shape)}"
        )
    if all(d is not None for d in noise_shape):
        return _shape(noise_shape)
    dynamic = tf.shape(inputs)
    return _shape([dynamic[i] if d is None else d for i, d in enumerate(noise_shape)])


def shuffle(x: Any, axis: int = 0, seed: Any = None) -> tf.Tensor:
    """Shuffles the entries of a tensor along an axis.

    Args:
        x: A tensor (or array).
        axis: The axis to shuffle along. Defaults to `0`.
        seed: A `tfkit.random.SeedGenerator` (new numbers on every call, also
            inside a compiled function), an int (the same numbers on every
            call), a shape-`(2,)` integer seed tensor, or `None` (the
            module-wide default generator). Defaults to `None`.

    Returns:
        A tensor like `x`, its entries along `axis` in a random order.

    Raises:
        TypeError: If `x` is a symbolic tensor (`tfkit.Input`): use a random layer.

    Example:
        >>> y = tfkit.random.shuffle(tf.range(5), seed=2)
        >>> sorted(y.numpy().tolist())
        [0, 1, 2, 3, 4]
    """
    _refuse_symbolic("shuffle", x=x)
    x = tf.convert_to_tensor(x)
    keys = tf.random.stateless_uniform(tf.expand_dims(tf.shape(x)[axis], 0), seed=draw_seed(seed), alg=algorithm())
    return tf.gather(x, tf.argsort(keys, stable=True), axis=axis)


def categorical(logits: Any, num_samples: int, dtype: Any = "int32", seed: Any = None) -> tf.Tensor:
    """Draws samples from a categorical distribution given by logits.

    Args:
        logits: A 2-D tensor `(batch, classes)` of unnormalized log
            probabilities.
        num_samples: Integer, the number of samples per row.
        dtype: `"int32"` or `"int64"`, the dtype of the indices. Defaults to
            `"int32"`.
        seed: A `tfkit.random.SeedGenerator` (new numbers on every call, also
            inside a compiled function), an int (the same numbers on every
            call), a shape-`(2,)` integer seed tensor, or `None` (the
            module-wide default generator). Defaults to `None`.

    Returns:
        An integer tensor `(batch, num_samples)` of class indices.

    Raises:
        TypeError: If `logits` is a symbolic tensor (`tfkit.Input`): use a random layer.
        ValueError: If `logits` is not 2-D, or `dtype` is not int32 or
            int64.

    Example:
        >>> logits = tf.math.log([[0.0, 1.0], [1.0, 0.0]])
        >>> tfkit.random.categorical(logits, 3, seed=0).numpy()
        array([[1, 1, 1],
               [0, 0, 0]], dtype=int32)
    """
    _refuse_symbolic("categorical", logits=logits)
    logits = tf.convert_to_tensor(logits)
    if logits.shape.rank != 2:
        raise ValueError(
            f"tfkit.random.categorical expected 2-D logits (batch, classes), got shape {tuple(logits.shape)}"
        )
    dtype = tf.as_dtype(dtype)
    if dtype not in (tf.int32, tf.int64):
        raise ValueError(f"tfkit.random.categorical returns int32 or int64, got dtype {dtype.name}")
    return tf.random.stateless_categorical(logits, num_samples, seed=draw_seed(seed), dtype=dtype)


def gamma(shape: Sequence[Any], alpha: Any, dtype: Any = None, seed: Any = None) -> tf.Tensor:
    """Draws samples from a gamma distribution with shape `alpha` and scale 1.

    The samples have mean `alpha` and variance `alpha`.

    Args:
        shape: The shape of the output.
        alpha: The concentration (shape) parameter, a float or a tensor
            broadcastable to `shape`.
        dtype: A floating dtype. Defaults to `None` (float32).
        seed: A `tfkit.random.SeedGenerator` (new numbers on every call, also
            inside a compiled function), an int (the same numbers on every
            call), a shape-`(2,)` integer seed tensor, or `None` (the
            module-wide default generator). Defaults to `None`.

    Returns:
        A tensor of `shape` with positive values.

    Raises:
        TypeError: If `alpha` is a symbolic tensor (`tfkit.Input`): use a random layer.
        ValueError: If `dtype` is not floating.

    Example:
        >>> x = tfkit.random.gamma((4,), alpha=2.0, seed=0)
        >>> x.shape, bool(tf.reduce_all(x > 0))
        (TensorShape([4]), True)
    """
    _refuse_symbolic("gamma", alpha=alpha)
    dtype = _float_dtype(dtype, "gamma")
    return tf.random.stateless_gamma(_shape(shape), seed=draw_seed(seed), alpha=tf.cast(alpha, dtype), dtype=dtype)


def binomial(shape: Sequence[Any], counts: Any, probabilities: Any, dtype: Any = None, seed: Any = None) -> tf.Tensor:
    """Draws samples from a binomial distribution: successes in `counts` trials of probability `probabilities`.

    The samples have mean `n p` and variance `n p (1 - p)`; they are
    returned as floats, as in Keras.

    Args:
        shape: The shape of the output.
        counts: The number of trials, a number or a tensor broadcastable to
            `shape`.
        probabilities: The success probability of each trial, broadcastable
            to `shape`.
        dtype: A floating dtype. Defaults to `None` (float32).
        seed: A `tfkit.random.SeedGenerator` (new numbers on every call, also
            inside a compiled function), an int (the same numbers on every
            call), a shape-`(2,)` integer seed tensor, or `None` (the
            module-wide default generator). Defaults to `None`.

    Returns:
        A float tensor of `shape`.

    Raises:
        TypeError: If `counts` or `probabilities` is a symbolic tensor (`tfkit.Input`): use a random layer.
        ValueError: If `dtype` is not floating.

    Example:
        >>> x = tfkit.random.binomial((3,), counts=5.0, probabilities=1.0, seed=0)
        >>> x.numpy()
        array([5., 5., 5.], dtype=float32)
    """
    _refuse_symbolic("binomial", counts=counts, probabilities=probabilities)
    dtype = _float_dtype(dtype, "binomial")
    draws = tf.random.stateless_binomial(
        _shape(shape),
        seed=draw_seed(seed),
        counts=tf.cast(counts, tf.float32),
        probs=tf.cast(probabilities, tf.float32),
        output_dtype=tf.float32,
    )
    return tf.cast(draws, dtype)


def beta(shape: Sequence[Any], alpha: Any, beta: Any, dtype: Any = None, seed: Any = None) -> tf.Tensor:
    """Draws samples from a beta distribution with parameters `alpha` and `beta`.

    Computed as `X / (X + Y)` of two gamma draws split from one seed.

    Args:
        shape: The shape of the output.
        alpha: The first concentration parameter, a float or a tensor
            broadcastable to `shape`.
        beta: The second concentration parameter, likewise.
        dtype: A floating dtype. Defaults to `None` (float32).
        seed: A `tfkit.random.SeedGenerator` (new numbers on every call, also
            inside a compiled function), an int (the same numbers on every
            call), a shape-`(2,)` integer seed tensor, or `None` (the
            module-wide default generator). Defaults to `None`.

    Returns:
        A tensor of `shape` with values in `[0, 1]`.

    Raises:
        TypeError: If `alpha` or `beta` is a symbolic tensor (`tfkit.Input`): use a random layer.
        ValueError: If `dtype` is not floating.

    Example:
        >>> x = tfkit.random.beta((100,), alpha=2.0, beta=2.0, seed=0)
        >>> bool(tf.reduce_all((x >= 0) & (x <= 1)))
        True
    """
    _refuse_symbolic("beta", alpha=alpha, beta=beta)
    dtype = _float_dtype(dtype, "beta")
    seeds = tf.random.experimental.stateless_split(draw_seed(seed), num=2, alg=algorithm())
    shape = _shape(shape)
    x = tf.random.stateless_gamma(shape, seed=seeds[0], alpha=tf.cast(alpha, dtype), dtype=dtype)
    y = tf.random.stateless_gamma(shape, seed=seeds[1], alpha=tf.cast(beta, dtype), dtype=dtype)
    return x / (x + y)
