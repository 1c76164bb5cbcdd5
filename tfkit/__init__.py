"""tfkit: Keras-style layers and models written directly on TensorFlow.

import tfkit
model = tfkit.Sequential([tfkit.Input((784,)), tfkit.layers.Dense(10)])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
"""

from tfkit.base import tensorflow_import as _tensorflow_import

_tensorflow_import.import_tensorflow()  # first, without TensorFlow's eager import of Keras (see that module)

from tfkit import (  # noqa: F401
    activations,
    applications,
    backend,
    callbacks,
    config,
    constraints,
    datasets,
    distillation,
    distribution,
    dtype_policies,
    export,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    models,  # noqa: F401
    ops,
    optimizers,
    preprocessing,
    quantizers,
    random,
    regularizers,
    saving,
    tree,
    utils,
    visualization,
    wrappers,
)
from tfkit.backend import clear_session  # noqa: F401
from tfkit.base.dtype_policy import DTypePolicy  # noqa: F401
from tfkit.base.import_freeze import freeze_import_objects as _freeze_import_objects
from tfkit.base.symbolic import SymbolicTensor as KerasTensor  # noqa: F401  (Keras's name)
from tfkit.base.version import VERSION, version  # noqa: F401
from tfkit.engine.functional_graph import Input, InputLayer  # noqa: F401
from tfkit.engine.input_spec import InputSpec  # noqa: F401
from tfkit.engine.layer import Layer  # noqa: F401
from tfkit.engine.scopes import device, name_scope, remat  # noqa: F401
from tfkit.engine.variable import Variable  # noqa: F401
from tfkit.initializers import Initializer  # noqa: F401
from tfkit.losses import Loss  # noqa: F401
from tfkit.metrics import Metric  # noqa: F401
from tfkit.models import Functional, Sequential  # noqa: F401
from tfkit.models.model import Model  # noqa: F401
from tfkit.optimizers import Optimizer  # noqa: F401
from tfkit.quantizers import Quantizer  # noqa: F401
from tfkit.regularizers import Regularizer  # noqa: F401
from tfkit.saving import load_model, save_model  # noqa: F401

FloatDTypePolicy = DTypePolicy  # Keras's older name for the float policies
__version__ = VERSION

_freeze_import_objects()  # full garbage collections skip TensorFlow's and tfkit's import (tfkit/base/import_freeze.py)
