"""``set_random_seed``: one call makes Python, numpy, TensorFlow and tfkit's random numbers repeatable.

tfkit.utils.set_random_seed(1337)
model = build_model()            # same initial weights, same dropout masks, same shuffling on every run
"""

from __future__ import annotations

import random

import numpy as np
import tensorflow as tf

from tfkit import random as tfkit_random


def set_random_seed(seed: int) -> None:
    """Sets all random seeds: Python's `random`, NumPy's, TensorFlow's and tfkit's.

    After it, initial weights, dropout masks and `fit`'s shuffling are the
    same on every run of a program. tfkit's default seed generator (used by
    `tfkit.random` draws without a `seed`) starts over at `[seed, 0]` on
    every call, the first one included (via `tfkit.random.set_global_seed`),
    so the unseeded draws after each call with the same seed are the same.

    Args:
        seed: Non-negative integer seed.

    Raises:
        ValueError: If `seed` is not a non-negative int.

    Example:
        >>> tfkit.utils.set_random_seed(1337)
        >>> a, b = np.random.rand(), tf.random.uniform(())
        >>> tfkit.utils.set_random_seed(1337)
        >>> a == np.random.rand(), bool(b == tf.random.uniform(()))
        (True, True)
        >>> tfkit.utils.set_random_seed(1337)
        >>> c = tfkit.random.normal((2,))
        >>> tfkit.utils.set_random_seed(1337)
        >>> bool(tf.reduce_all(c == tfkit.random.normal((2,))))
        True
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"set_random_seed expects a non-negative int, got {seed!r}")
    seed = int(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    tf.random.set_seed(seed)

    tfkit_random.set_global_seed(seed)
