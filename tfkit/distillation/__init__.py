"""Keras's ``keras.distillation``: a student trained on its labels and on a frozen teacher.

distiller = tfkit.distillation.Distiller(teacher, student, tfkit.distillation.LogitsDistillation(3.0))
distiller.compile("adam", loss="sparse_categorical_crossentropy")
distiller.fit(x, y); student = distiller.student
"""

from tfkit.distillation.distillation_loss import DistillationLoss, FeatureDistillation, LogitsDistillation  # noqa: F401
from tfkit.distillation.distiller import Distiller  # noqa: F401

__all__ = ["DistillationLoss", "Distiller", "FeatureDistillation", "LogitsDistillation"]
