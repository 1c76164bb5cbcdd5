"""Low-rank adaptation (LoRA) for ``Dense``, ``EinsumDense`` and ``Embedding``, as Keras 3.

    layer = tfkit.layers.Dense(64)
    layer.build((None, 32)); layer.enable_lora(rank=4)     # or Dense(64, lora_rank=4)
    # the kernel is frozen; training updates lora_kernel_a (32, 4) and lora_kernel_b (4, 64)

The layer computes with ``kernel + (lora_alpha / lora_rank) * lora_kernel_a @ lora_kernel_b``
(``lora_alpha`` defaults to the rank). The two factors are float32 weights with the kernel's
regularizer; B starts at zero, so enabling LoRA changes no output (Keras 3.15 resets a
constructor's ``lora_alpha`` to the rank when it builds; tfkit keeps the value given).
Keras saves such a layer's kernel with the product merged in and leaves the factors out;
tfkit's ``.h5`` keeps every weight under its path instead (the kernel and both factors), so
training can resume, and ``merged_kernel()`` gives what Keras would save.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.base.argument_validation import is_positive_int


class LoRA:
    """Mixed into a layer with a ``kernel`` (``_lora_target = "kernel"``) or ``embeddings`` weight."""

    _lora_target = "kernel"
    _lora_initializers = ("he_uniform", "zeros")  # (A, B) as Keras's Dense and EinsumDense

    def _init_lora(self, lora_rank: int | None, lora_alpha: float | None) -> None:
        if lora_rank is not None and not is_positive_int(lora_rank):
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}': lora_rank must be a positive integer or "
                f"None, got {lora_rank!r}"
            )
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.lora_enabled = False

    def _lora_after_build(self) -> None:
        """``lora_rank=`` in the constructor enables LoRA as soon as the layer is built (Keras's order)."""
        if self.lora_rank and not self.lora_enabled:
            self.enable_lora(self.lora_rank, self.lora_alpha)

    def enable_lora(
        self, rank: int, lora_alpha: float | None = None, a_initializer: Any = None, b_initializer: Any = None
    ) -> None:
        """Freeze the target weight and add the trainable low-rank factors ``lora_<target>_a`` / ``_b``."""
        who = f"{type(self).__name__} layer '{self.name}'"
        if getattr(self, f"{self._lora_target}_constraint", None) is not None:
            raise ValueError(
                f"{who}: LoRA is incompatible with {self._lora_target}_constraint; remove the constraint to enable it"
            )
        if not self.built:
            raise ValueError(f"{who}: cannot enable LoRA on a layer that is not built yet; build or call it first")
        if self.lora_enabled:
            raise ValueError(f"{who}: LoRA is already enabled; it can be enabled once per layer")
        if not is_positive_int(rank):
            raise ValueError(f"{who}: rank must be a positive integer, got {rank!r}")
        target = getattr(self, self._lora_target)
        shape = self._lora_shape()
        regularizer = getattr(self, f"{self._lora_target}_regularizer", None)
        a_default, b_default = self._lora_initializers
        factor_a = self.add_weight(
            shape=shape[:-1] + (rank,),
            dtype="float32",
            regularizer=regularizer,
            initializer=initializers.get(a_initializer or a_default),
            name=f"lora_{self._lora_target}_a",
        )
        factor_b = self.add_weight(
            shape=(rank, shape[-1]),
            dtype="float32",
            regularizer=regularizer,
            initializer=initializers.get(b_initializer or b_default),
            name=f"lora_{self._lora_target}_b",
        )
        setattr(self, f"lora_{self._lora_target}_a", factor_a)
        setattr(self, f"lora_{self._lora_target}_b", factor_b)
        self._set_weight_trainable(target, False)
        self.lora_enabled, self.lora_rank = True, rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else rank

    def _lora_shape(self) -> tuple[int, ...]:
        """The shape the factors' product takes: the target weight's (a packed weight says its own)."""
        return tuple(getattr(self, self._lora_target).shape)

    def merged_kernel(self) -> tf.Tensor:
        """The target weight the layer computes with: with LoRA, plus ``alpha / rank`` times A @ B (in the
        dtype the target is read in: the compute dtype inside a mixed-precision call)."""
        target = tf.convert_to_tensor(getattr(self, self._lora_target))
        if not getattr(self, "lora_enabled", False):
            return target
        factor_a = tf.cast(getattr(self, f"lora_{self._lora_target}_a"), target.dtype)
        factor_b = tf.cast(getattr(self, f"lora_{self._lora_target}_b"), target.dtype)
        return target + tf.cast(self.lora_alpha / self.lora_rank, target.dtype) * tf.matmul(factor_a, factor_b)

    def _lora_config(self) -> dict[str, Any]:
        return {"lora_rank": self.lora_rank, "lora_alpha": self.lora_alpha} if self.lora_rank else {}
