"""tfkit: Keras-style layers and models written directly on TensorFlow.

    import tfkit
    layer = tfkit.layers.Dense(4)
    y = layer(tf.ones((2, 3)))
"""

from tfkit import activations, constraints, initializers, random, regularizers  # noqa: F401
from tfkit.layer import Layer, clear_session  # noqa: F401

__version__ = "0.1.0"
