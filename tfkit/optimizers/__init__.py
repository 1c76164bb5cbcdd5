"""Optimizers and learning-rate schedules (Keras 3 formulas, defaults and configs).

optimizer = tfkit.optimizers.get("adam")
optimizer.apply(tape.gradient(loss, model.trainable_variables), model.trainable_variables)
optimizer.learning_rate.assign(1e-4)
"""

from tfkit.optimizers import schedules  # noqa: F401
from tfkit.optimizers.adadelta import Adadelta  # noqa: F401
from tfkit.optimizers.adafactor import Adafactor  # noqa: F401
from tfkit.optimizers.adam_family import Adam, Adamax, AdamW, Lion, Nadam  # noqa: F401
from tfkit.optimizers.base import Optimizer  # noqa: F401
from tfkit.optimizers.classic import SGD, Adagrad, RMSprop  # noqa: F401
from tfkit.optimizers.ftrl import Ftrl  # noqa: F401
from tfkit.optimizers.identifiers import deserialize, get, serialize  # noqa: F401
from tfkit.optimizers.lamb import Lamb  # noqa: F401
from tfkit.optimizers.loss_scale import LossScaleOptimizer  # noqa: F401
from tfkit.optimizers.multi_optimizer import MultiOptimizer, OptimizerMap  # noqa: F401
from tfkit.optimizers.muon import Muon  # noqa: F401
from tfkit.optimizers.schedule_free_adamw import ScheduleFreeAdamW  # noqa: F401
from tfkit.optimizers.schedules import LearningRateSchedule  # noqa: F401

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "Adamax",
    "Nadam",
    "Lion",
    "Adadelta",
    "Adafactor",
    "Ftrl",
    "Lamb",
    "LossScaleOptimizer",
    "Muon",
    "ScheduleFreeAdamW",
    "MultiOptimizer",
    "OptimizerMap",
    "LearningRateSchedule",
    "schedules",
    "get",
    "serialize",
    "deserialize",
]
