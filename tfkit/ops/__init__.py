"""``tfkit.ops``: the part of ``keras.ops`` Keras code uses, as thin functions on TensorFlow.

    import tfkit.ops as ops                 # the whole port of `keras.ops` code is the import line
    y = ops.mean(ops.square(x), axis=-1)
    p = ops.softmax(logits); k = ops.top_k(p, 3)

Submodules as in Keras: ``tfkit.ops.numpy``, ``tfkit.ops.nn``, ``tfkit.ops.linalg``,
``tfkit.ops.core`` (``tfkit.ops.math`` is the same module as ``core``), and
``tfkit.ops.signal`` (the Fourier transforms, at the top level in Keras). On
``tfkit.Input``-derived tensors each op records a node of the functional graph, saved by name.
"""

from tfkit.ops import (  # noqa: F401
    core,
    image,  # noqa: F401  (only as a submodule: keras.ops has no top-level image names)
    linalg,
    nn,
    numpy,
    signal,
)
from tfkit.ops.core import *  # noqa: F401,F403
from tfkit.ops.linalg import *  # noqa: F401,F403
from tfkit.ops.nn import *  # noqa: F401,F403
from tfkit.ops.numpy import *  # noqa: F401,F403
from tfkit.ops.signal import *  # noqa: F401,F403

math = core
