"""Keras 3's long names for the transposed convolutions: the same classes under a second name.

tfkit.layers.Convolution1DTranspose is tfkit.layers.Conv1DTranspose   # True
tfkit.layers.Convolution3DTranspose(4, 3)(tf.ones((1, 3, 3, 3, 2))).shape   # (1, 5, 5, 5, 4)
registry.lookup("layers", "Convolution3DTranspose")                   # Conv3DTranspose
"""

from __future__ import annotations

from tfkit.base import registry
from tfkit.layers.convolution import Conv1DTranspose, Conv3DTranspose

__all__ = ["Convolution1DTranspose", "Convolution3DTranspose"]

Convolution1DTranspose = registry.builtin("layers", "Convolution1DTranspose")(Conv1DTranspose)
Convolution3DTranspose = registry.builtin("layers", "Convolution3DTranspose")(Conv3DTranspose)
