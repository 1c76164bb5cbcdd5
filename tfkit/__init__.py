"""tfkit: Keras-style layers and models written directly on TensorFlow.

    import tfkit
    model = tfkit.Sequential([tfkit.Input((784,)), tfkit.layers.Dense(10)])
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
"""

from tfkit import (  # noqa: F401
    activations,
    backend,
    callbacks,
    constraints,
    datasets,
    dtype_policies,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    models,  # noqa: F401,E402
    ops,
    optimizers,
    preprocessing,
    random,
    regularizers,
    saving,
    utils,
)
from tfkit.base.version import VERSION
from tfkit.engine.functional_graph import Input, InputLayer  # noqa: F401
from tfkit.engine.layer import Layer, clear_session  # noqa: F401
from tfkit.models import Functional, Sequential  # noqa: F401,E402
from tfkit.models.model import Model  # noqa: F401
from tfkit.saving import load_model, save_model  # noqa: F401,E402

__version__ = VERSION
