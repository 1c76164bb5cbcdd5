"""Random numbers from stateless TensorFlow ops, seeded by a ``SeedGenerator``.

    self.seed_generator = tfkit.random.SeedGenerator(1337)          # in a layer's __init__
    noise = tfkit.random.normal((batch, dim), seed=self.seed_generator)
    y = tfkit.random.dropout(x, rate=0.5, seed=self.seed_generator)

``seed`` may be:

* a :class:`SeedGenerator` -- new numbers on every call, eager, inside
  ``tf.function`` and under ``jit_compile=True`` alike, while a fresh
  generator with the same seed replays the same sequence;
* an int -- the same numbers on every call (like Keras);
* ``None`` -- a module-wide default generator, seeded randomly.

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
from tensorflow.python.ops.control_flow_util import GraphOrParentsInXlaContext

from tfkit.base.variable_roles import StateOwner

_MAX_SEED = 2**31 - 1


class SeedGenerator(tf.Module, StateOwner):
    """A seed that advances on every draw, kept in a variable.

    ``state`` is an int64 ``tf.Variable`` ``[seed, counter]``; :meth:`next`
    returns the current state as a stateless-op seed and adds one to the
    counter. The variable is saved in checkpoints, but tfkit does not list
    it among a layer's weights (a ``StateOwner``).
    """

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(name=name or "seed_generator")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise ValueError(f"SeedGenerator expected seed to be an int or None, got {type(seed).__name__}: {seed!r}")
        self._initial_seed = None if seed is None else int(seed)
        start = _py_random.randint(0, _MAX_SEED) if seed is None else int(seed)
        with tf.init_scope():
            self.state = tf.Variable(
                tf.constant([start, 0], dtype=tf.int64),
                trainable=False,
                name="seed_generator_state",
                aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA,
            )

    def next(self) -> tf.Tensor:
        """The current ``[seed, counter]`` (int64, shape (2,)); then advance the counter."""
        seed = self.state.read_value()
        with tf.control_dependencies([seed]):
            self.state.assign_add(tf.constant([0, 1], dtype=tf.int64))
        return seed

    def get_config(self) -> dict[str, Any]:
        return {"seed": self._initial_seed}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "SeedGenerator":
        return cls(**config)

    def __repr__(self) -> str:
        return f"SeedGenerator(seed={self._initial_seed!r})"


_default_generator: SeedGenerator | None = None
_default_lock = threading.Lock()


def default_seed_generator() -> SeedGenerator:
    """The module-wide generator used for ``seed=None`` (created on first use)."""
    global _default_generator
    with _default_lock:
        if _default_generator is None:
            with tf.init_scope():
                _default_generator = SeedGenerator(name="default_seed_generator")
        return _default_generator


def set_global_seed(seed: int) -> None:
    """Make ``seed=None`` draws repeatable: new generators and the module-wide one start from ``seed``."""
    _py_random.seed(int(seed))
    with _default_lock:
        if _default_generator is not None:
            _default_generator.state.assign([int(seed), 0])


def draw_seed(seed: Any) -> tf.Tensor:
    """A shape-(2,) seed tensor for a stateless op from a ``seed`` argument."""
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
    """The stateless RNG algorithm for a draw traced here: ``"philox"`` under XLA, else TensorFlow's default.

    Outside XLA, CPUs and GPUs select Philox for ``"auto_select"`` too (the same numbers, from one op
    that makes the key); under XLA, naming it avoids that op's slow XLA kernel.
    """
    return "philox" if GraphOrParentsInXlaContext(tf.compat.v1.get_default_graph()) else "auto_select"


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
    shape: Sequence[Any],
    mean: float = 0.0,
    stddev: float = 1.0,
    dtype: Any = None,
    seed: Any = None,
) -> tf.Tensor:
    """Normal values with ``mean`` and ``stddev``; ``shape`` entries may be scalar tensors."""
    return tf.random.stateless_normal(
        _shape(shape), seed=draw_seed(seed), mean=mean, stddev=stddev, dtype=_float_dtype(dtype, "normal"),
        alg=algorithm(),
    )


def uniform(
    shape: Sequence[Any],
    minval: float = 0.0,
    maxval: float = 1.0,
    dtype: Any = None,
    seed: Any = None,
) -> tf.Tensor:
    """Uniform floats in ``[minval, maxval)`` (use :func:`randint` for integers)."""
    return tf.random.stateless_uniform(
        _shape(shape), seed=draw_seed(seed), minval=minval, maxval=maxval, dtype=_float_dtype(dtype, "uniform"),
        alg=algorithm(),
    )


def truncated_normal(
    shape: Sequence[Any],
    mean: float = 0.0,
    stddev: float = 1.0,
    dtype: Any = None,
    seed: Any = None,
) -> tf.Tensor:
    """Normal values redrawn until they lie within two ``stddev`` of ``mean``."""
    return tf.random.stateless_truncated_normal(
        _shape(shape),
        seed=draw_seed(seed),
        mean=mean,
        stddev=stddev,
        dtype=_float_dtype(dtype, "truncated_normal"),
        alg=algorithm(),
    )


def randint(
    shape: Sequence[Any],
    minval: int,
    maxval: int,
    dtype: Any = "int32",
    seed: Any = None,
) -> tf.Tensor:
    """Uniform integers in ``[minval, maxval)``."""
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
    return tf.cast(values, dtype)


def dropout(inputs: Any, rate: float, noise_shape: Sequence[Any] | None = None, seed: Any = None) -> tf.Tensor:
    """Zero each entry with probability ``rate``, scale the rest by ``1 / (1 - rate)``.

    ``noise_shape`` (broadcastable to ``inputs``; ``None`` entries take the
    input's size) shares one keep/drop decision along its size-1 axes.
    """
    inputs = tf.convert_to_tensor(inputs)
    if isinstance(rate, (int, float)) and not 0 <= rate < 1:
        raise ValueError(f"tfkit.random.dropout expected rate in [0, 1), got {rate!r}")
    if noise_shape is not None:
        noise_shape = _noise_shape(inputs, noise_shape)
    return tf.nn.experimental.stateless_dropout(inputs, rate=rate, seed=draw_seed(seed), noise_shape=noise_shape,
                                                rng_alg=algorithm())


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
    """``x`` with its entries along ``axis`` in a random order."""
    x = tf.convert_to_tensor(x)
    keys = tf.random.stateless_uniform(tf.expand_dims(tf.shape(x)[axis], 0), seed=draw_seed(seed), alg=algorithm())
    return tf.gather(x, tf.argsort(keys, stable=True), axis=axis)


def categorical(logits: Any, num_samples: int, dtype: Any = "int32", seed: Any = None) -> tf.Tensor:
    """``num_samples`` class indices per row of the 2-D ``logits`` ``(batch, classes)``."""
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
    """Gamma(``alpha``, scale 1) values: mean ``alpha``, variance ``alpha``; ``alpha`` broadcasts to ``shape``."""
    dtype = _float_dtype(dtype, "gamma")
    return tf.random.stateless_gamma(_shape(shape), seed=draw_seed(seed), alpha=tf.cast(alpha, dtype), dtype=dtype)


def binomial(shape: Sequence[Any], counts: Any, probabilities: Any, dtype: Any = None, seed: Any = None) -> tf.Tensor:
    """Successes in ``counts`` trials of probability ``probabilities`` (both broadcast to ``shape``), as
    floats of ``dtype`` (as in Keras): mean ``n p``, variance ``n p (1 - p)``."""
    dtype = _float_dtype(dtype, "binomial")
    draws = tf.random.stateless_binomial(
        _shape(shape), seed=draw_seed(seed), counts=tf.cast(counts, tf.float32),
        probs=tf.cast(probabilities, tf.float32), output_dtype=tf.float32,
    )
    return tf.cast(draws, dtype)


def beta(shape: Sequence[Any], alpha: Any, beta: Any, dtype: Any = None, seed: Any = None) -> tf.Tensor:
    """Beta(``alpha``, ``beta``) values in [0, 1], as ``X / (X + Y)`` of two gamma draws from one seed."""
    dtype = _float_dtype(dtype, "beta")
    seeds = tf.random.experimental.stateless_split(draw_seed(seed), num=2, alg=algorithm())
    shape = _shape(shape)
    x = tf.random.stateless_gamma(shape, seed=seeds[0], alpha=tf.cast(alpha, dtype), dtype=dtype)
    y = tf.random.stateless_gamma(shape, seed=seeds[1], alpha=tf.cast(beta, dtype), dtype=dtype)
    return x / (x + y)
