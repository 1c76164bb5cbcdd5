"""Whether the graph being traced will be compiled by XLA: :func:`in_xla_compilation`.

    if in_xla_compilation():      # inside tf.function(jit_compile=True), or a function it calls
        ...                       # the form XLA compiles well

Some ops have a form that XLA compiles better than TensorFlow's kernels run,
and the other way round (a random draw naming its algorithm, an image warp by
gathers, a recurrent loop of one timestep per iteration). TensorFlow marks the
graph of a ``jit_compile=True`` function with an XLA control-flow context; the
check reads that private but long-stable mark.
"""

from __future__ import annotations

import tensorflow as tf

try:
    from tensorflow.python.ops.control_flow_util import GraphOrParentsInXlaContext as _graph_in_xla
except ImportError:  # pragma: no cover - a TensorFlow without it: assume XLA while tracing
    _graph_in_xla = None


def in_xla_compilation() -> bool:
    """Whether ops created here are traced into a graph that XLA will compile.

    Returns:
        False when executing eagerly; inside a traced graph, whether the
        function being traced, or one it is traced inside, has
        ``jit_compile=True``.

    Example:
        >>> import tensorflow as tf
        >>> from tfkit.base.xla_context import in_xla_compilation
        >>> in_xla_compilation()
        False
        >>> seen = []
        >>> _ = tf.function(lambda: seen.append(in_xla_compilation()) or tf.constant(0), jit_compile=True)()
        >>> seen
        [True]
    """
    if tf.executing_eagerly():
        return False
    if _graph_in_xla is None:  # pragma: no cover
        return True
    return bool(_graph_in_xla(tf.compat.v1.get_default_graph()))
