"""Keras's ``keras.mixed_precision`` names: policies and the loss-scale optimizer.

tfkit.mixed_precision.set_global_policy("mixed_bfloat16")
model = make_model()                                  # float32 variables, bfloat16 computation
tfkit.mixed_precision.set_global_policy("float32")    # back to the default
"""

from tfkit.base.dtype_policy import DTypePolicy, global_policy, set_global_policy  # noqa: F401
from tfkit.optimizers.loss_scale import LossScaleOptimizer  # noqa: F401

Policy = DTypePolicy
dtype_policy = global_policy
set_dtype_policy = set_global_policy

__all__ = [
    "DTypePolicy",
    "Policy",
    "LossScaleOptimizer",
    "global_policy",
    "set_global_policy",
    "dtype_policy",
    "set_dtype_policy",
]
