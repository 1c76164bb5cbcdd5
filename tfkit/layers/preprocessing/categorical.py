"""Categorical features: ``CategoryEncoding`` (ids to vectors), ``Hashing`` (values to bins),
``Discretization`` (numbers to buckets).

    tfkit.layers.CategoryEncoding(num_tokens=4, output_mode="multi_hot")([[0, 1], [2, 2]])
    tfkit.layers.Hashing(num_bins=8)(tf.constant([["cat"], ["dog"]]))      # FarmHash, as Keras
    tfkit.layers.Discretization(bin_boundaries=[0.0, 1.0])([[-1.5, 0.5, 2.0]])   # [[0, 1, 2]]
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine.layer import Layer
from tfkit.layers.preprocessing import quantile_summary

__all__ = ["CategoryEncoding", "Hashing", "Discretization"]
_MODES = ("int", "one_hot", "multi_hot", "count")


def encode(indices: tf.Tensor, output_mode: str, depth: int, count_weights: Any = None) -> tf.Tensor:
    """Indices as Keras's categorical outputs: themselves, one-hot rows, or per-sample multi-hot/count vectors."""
    if output_mode == "int":
        return indices
    if len(indices.shape) == 0:
        indices = tf.expand_dims(indices, -1)
    if output_mode == "one_hot":
        if indices.shape[-1] == 1 and len(indices.shape) > 1:
            indices = tf.squeeze(indices, -1)
        return tf.one_hot(indices, depth, dtype=tf.float32)
    hot = tf.one_hot(indices, depth, dtype=tf.float32)
    if output_mode == "multi_hot":
        return tf.reduce_max(hot, axis=-2)
    if count_weights is not None:
        hot = hot * tf.expand_dims(tf.cast(count_weights, tf.float32), -1)
    return tf.reduce_sum(hot, axis=-2)


def _check_mode(layer: Layer, output_mode: str, allowed: Sequence[str] = _MODES) -> None:
    if output_mode not in allowed:
        raise ValueError(f"{type(layer).__name__} layer '{layer.name}': output_mode must be one of {list(allowed)}, "
                         f"got {output_mode!r}")


@registry.builtin("layers")
class CategoryEncoding(Layer):
    """Integer ids in ``[0, num_tokens)`` to one-hot, multi-hot or count vectors."""

    def __init__(self, num_tokens: int | None = None, output_mode: str = "multi_hot", sparse: bool = False,
                 **kwargs: Any) -> None:
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        _check_mode(self, output_mode, ("one_hot", "multi_hot", "count"))
        if not isinstance(num_tokens, int) or num_tokens < 1:
            raise ValueError(f"CategoryEncoding layer '{self.name}': num_tokens must be a positive int, got "
                             f"{num_tokens!r}")
        if sparse:
            raise ValueError(f"CategoryEncoding layer '{self.name}': sparse=True is not supported")
        self.num_tokens, self.output_mode = num_tokens, output_mode

    def call(self, inputs: Any, count_weights: Any = None) -> tf.Tensor:
        indices = tf.cast(tf.convert_to_tensor(inputs), tf.int64)
        in_range = tf.reduce_all((indices >= 0) & (indices < self.num_tokens))
        checks = [tf.debugging.Assert(in_range, [f"CategoryEncoding layer '{self.name}' expects ids in "
                                                 f"[0, {self.num_tokens})", indices])]
        with tf.control_dependencies(checks):
            indices = tf.identity(indices)
        return encode(indices, self.output_mode, self.num_tokens, count_weights)

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "num_tokens": self.num_tokens, "output_mode": self.output_mode,
                "sparse": False}


@registry.builtin("layers")
class Hashing(Layer):
    """Values (strings, ints, floats cut to ints) to ``num_bins`` bins by FarmHash; bin 0 for ``mask_value``."""

    def __init__(self, num_bins: int, mask_value: Any = None, salt: Any = None, output_mode: str = "int",
                 sparse: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        _check_mode(self, output_mode)
        if not isinstance(num_bins, int) or num_bins < 1:
            raise ValueError(f"Hashing layer '{self.name}': num_bins must be a positive int, got {num_bins!r}")
        if sparse:
            raise ValueError(f"Hashing layer '{self.name}': sparse=True is not supported")
        if isinstance(salt, int):
            salt = [salt, salt]
        if salt is not None and (not isinstance(salt, (list, tuple)) or len(salt) != 2):
            raise ValueError(f"Hashing layer '{self.name}': salt must be an int or two ints, got {salt!r}")
        self.num_bins, self.mask_value, self.output_mode = num_bins, mask_value, output_mode
        self.salt = None if salt is None else [int(s) for s in salt]

    def call(self, inputs: Any) -> tf.Tensor:
        values = tf.convert_to_tensor(inputs)
        if self.output_mode == "one_hot" and values.shape.rank and values.shape[-1] == 1:
            values = tf.squeeze(values, -1)
        bins, mask = self.num_bins, None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mask = tf.equal(values, tf.cast(self.mask_value, values.dtype))
        if values.dtype.is_floating:
            values = tf.cast(values, tf.int64)
        if values.dtype != tf.string:
            values = tf.strings.as_string(values)
        hashed = (tf.strings.to_hash_bucket_strong(values, bins, key=self.salt) if self.salt is not None
                  else tf.strings.to_hash_bucket_fast(values, bins))
        if mask is not None:
            hashed = tf.where(mask, tf.zeros_like(hashed), hashed + 1)
        return encode(hashed, self.output_mode, self.num_bins)

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "num_bins": self.num_bins, "mask_value": self.mask_value,
                "salt": self.salt, "output_mode": self.output_mode, "sparse": False}


@registry.builtin("layers")
class Discretization(Layer):
    """Numbers to bucket ids by ``bin_boundaries`` (or ``num_bins`` quantile boundaries from ``adapt``)."""

    def __init__(self, bin_boundaries: Sequence[float] | None = None, num_bins: int | None = None,
                 epsilon: float = 0.01, output_mode: str = "int", sparse: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        _check_mode(self, output_mode)
        if (bin_boundaries is None) == (num_bins is None):
            raise ValueError(f"Discretization layer '{self.name}': pass exactly one of bin_boundaries and num_bins, "
                             f"got bin_boundaries={bin_boundaries!r}, num_bins={num_bins!r}")
        if sparse:
            raise ValueError(f"Discretization layer '{self.name}': sparse=True is not supported")
        self.bin_boundaries = None if bin_boundaries is None else [float(b) for b in bin_boundaries]
        self.num_bins, self.epsilon, self.output_mode = num_bins, epsilon, output_mode

    def adapt(self, data: Any, steps: int | None = None) -> None:
        """Boundaries at about the ``1/num_bins, 2/num_bins, ...`` quantiles of ``data``, as Keras 3 finds them
        (``quantile_summary``: batch by batch, so the same batches give Keras's boundaries)."""
        if self.num_bins is None:
            raise ValueError(f"Discretization layer '{self.name}' has fixed bin_boundaries; adapt() needs num_bins")
        batches = data if isinstance(data, tf.data.Dataset) else [data]
        summary = quantile_summary.empty_summary()
        for step, batch in enumerate(batches):
            if steps is not None and step >= steps:
                break
            summary = quantile_summary.add_batch(summary, batch, self.epsilon)
        if summary.shape[1] == 0:
            raise ValueError(f"Discretization layer '{self.name}': adapt() got no data")
        self.bin_boundaries = quantile_summary.bin_boundaries(summary, self.num_bins)

    def call(self, inputs: Any) -> tf.Tensor:
        if self.bin_boundaries is None:
            raise ValueError(f"Discretization layer '{self.name}' has no bin boundaries yet: call adapt() first")
        values = tf.cast(tf.convert_to_tensor(inputs), tf.float32)
        buckets = tf.raw_ops.Bucketize(input=values, boundaries=list(self.bin_boundaries))   # int32, as Keras
        depth = len(self.bin_boundaries) + 1
        return encode(buckets, self.output_mode, depth)

    def get_config(self) -> dict[str, Any]:
        boundaries = None if self.bin_boundaries is None else [float(b) for b in self.bin_boundaries]
        return {**Layer.get_config(self), "bin_boundaries": boundaries,
                "num_bins": None if self.bin_boundaries is not None else self.num_bins, "epsilon": self.epsilon,
                "output_mode": self.output_mode, "sparse": False}
