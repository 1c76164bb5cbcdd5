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

from tfkit.initializers.base import Initializer, compute_fans  # noqa: F401
from tfkit.initializers.constant_initializers import Constant, Identity, Ones, Zeros  # noqa: F401
from tfkit.initializers.identifiers import deserialize, get, serialize  # noqa: F401
from tfkit.initializers.random_initializers import (  # noqa: F401
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    LecunNormal,
    LecunUniform,
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
)
from tfkit.initializers.stft import STFT, STFTInitializer, stft  # noqa: F401

# Keras 3 also exposes each initializer class under its string name.
constant, glorot_normal, glorot_uniform = Constant, GlorotNormal, GlorotUniform
he_normal, he_uniform, identity, IdentityInitializer = HeNormal, HeUniform, Identity, Identity
lecun_normal, lecun_uniform, ones, zeros = LecunNormal, LecunUniform, Ones, Zeros
orthogonal, OrthogonalInitializer = Orthogonal, Orthogonal
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling = VarianceScaling
