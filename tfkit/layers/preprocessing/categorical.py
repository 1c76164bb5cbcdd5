"""Categorical features: ``CategoryEncoding`` (ids to vectors), ``Hashing`` (values to bins),
``Discretization`` (numbers to buckets).

    tfkit.layers.CategoryEncoding(num_tokens=4, output_mode="multi_hot")([[0, 1], [2, 2]])
    tfkit.layers.Hashing(num_bins=8)(tf.constant([["cat"], ["dog"]]))      # FarmHash, as Keras
    tfkit.layers.Discretization(bin_boundaries=[0.0, 1.0])([[-1.5, 0.5, 2.0]])   # [[0, 1, 2]]
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry, settings
from tfkit.engine import shape_inference
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


def encoded_shape(input_shape: Any, output_mode: str, depth: int) -> tuple:
    """The shape `encode` gives for indices of `input_shape` (the shape rules of `encode`, without values)."""
    shape = tuple(input_shape)
    if output_mode == "int":
        return shape
    if not shape:
        shape = (1,)
    if output_mode == "one_hot":
        return (shape[:-1] if shape[-1] == 1 and len(shape) > 1 else shape) + (depth,)
    return shape[:-1] + (depth,)


def current_output_mode(output_mode: Any, old_names: Sequence[str] = ("binary", "tf-idf")) -> Any:
    """``output_mode`` under its current name when it is one of Keras's older ones in ``old_names``.

    Keras 3 still takes ``"binary"`` for ``"multi_hot"`` (lookups, ``TextVectorization``,
    ``CategoryEncoding``) and ``"tf-idf"`` for ``"tf_idf"`` (lookups, ``TextVectorization``); the
    layer stores and saves the current name. Anything else comes back unchanged, to be checked.
    """
    current = {"binary": "multi_hot", "tf-idf": "tf_idf"}
    return current[output_mode] if isinstance(output_mode, str) and output_mode in old_names else output_mode


def _check_mode(layer: Layer, output_mode: str, allowed: Sequence[str] = _MODES) -> None:
    if output_mode not in allowed:
        raise ValueError(
            f"{type(layer).__name__} layer '{layer.name}': output_mode must be one of {list(allowed)}, "
            f"got {output_mode!r}"
        )


@registry.builtin("layers")
@shape_inference.always_trace  # float32 outputs of int inputs, whatever the compute dtype: trace call
class CategoryEncoding(Layer):
    """A preprocessing layer which encodes integer features.

    This layer provides options for condensing data into a categorical
    encoding when the total number of tokens is known in advance. It accepts
    integer ids in `[0, num_tokens)` and turns them into one-hot, multi-hot
    or count vectors of float32. An id outside that range fails a runtime
    assertion.

    Args:
        num_tokens: Positive int, the total number of tokens the layer should
            support. All inputs must be in `[0, num_tokens)`.
        output_mode: Specification for the output of the layer. Values can be
            `"one_hot"`, `"multi_hot"` or `"count"` (`"binary"`, Keras's older
            name for `"multi_hot"`, is taken as it). Defaults to
            `"multi_hot"`.

            - `"one_hot"`: encodes each individual element of the input into a
              vector of size `num_tokens`. If the last axis has size 1, the
              encoding replaces it; otherwise a new axis is added.
            - `"multi_hot"`: encodes each sample into a single vector of size
              `num_tokens`, with a 1 at each id present in the sample. The
              last axis is the sample's ids.
            - `"count"`: like `"multi_hot"`, but the vector holds the number
              of times each id appears in the sample (weighted by
              `count_weights` if given).
        sparse: Must be `False`: sparse outputs are not supported by tfkit.
            Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor (or list/array) of integer ids: a scalar, a 1D batch
            of ids, or a 2D batch of samples.
        count_weights: Optional tensor of the same shape as `inputs`, the
            weight of each input id in `"count"` mode. Defaults to `None`.

    Input shape:
        Scalar, `(batch_size,)` or `(batch_size, ids_per_sample)`.

    Output shape:
        `(..., num_tokens)`: for `"one_hot"` one vector per id; for
        `"multi_hot"` and `"count"` one vector per sample (the last input axis
        is reduced).

    Raises:
        ValueError: If `output_mode` is not one of the three modes,
            `num_tokens` is not a positive int, or `sparse=True`.

    Example:
        >>> layer = tfkit.layers.CategoryEncoding(num_tokens=4, output_mode="multi_hot")
        >>> layer([[0, 1], [2, 2]]).numpy()
        array([[1., 1., 0., 0.],
               [0., 0., 1., 0.]], dtype=float32)
        >>> layer = tfkit.layers.CategoryEncoding(num_tokens=4, output_mode="one_hot")
        >>> layer([3, 0]).numpy()
        array([[0., 0., 0., 1.],
               [1., 0., 0., 0.]], dtype=float32)
        >>> layer = tfkit.layers.CategoryEncoding(num_tokens=4, output_mode="count")
        >>> layer([[0, 1, 1]], count_weights=[[0.5, 1.0, 2.0]]).numpy()
        array([[0.5, 3. , 0. , 0. ]], dtype=float32)
    """

    def __init__(
        self, num_tokens: int | None = None, output_mode: str = "multi_hot", sparse: bool = False, **kwargs: Any
    ) -> None:
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        output_mode = current_output_mode(output_mode, old_names=("binary",))  # as Keras: not "tf-idf"
        _check_mode(self, output_mode, ("one_hot", "multi_hot", "count"))
        if not isinstance(num_tokens, int) or num_tokens < 1:
            raise ValueError(
                f"CategoryEncoding layer '{self.name}': num_tokens must be a positive int, got {num_tokens!r}"
            )
        if sparse:
            raise ValueError(f"CategoryEncoding layer '{self.name}': sparse=True is not supported")
        self.num_tokens, self.output_mode = num_tokens, output_mode

    def call(self, inputs: Any, count_weights: Any = None) -> tf.Tensor:
        indices = tf.cast(tf.convert_to_tensor(inputs), tf.int64)
        in_range = tf.reduce_all((indices >= 0) & (indices < self.num_tokens))
        checks = [
            tf.debugging.Assert(
                in_range, [f"CategoryEncoding layer '{self.name}' expects ids in [0, {self.num_tokens})", indices]
            )
        ]
        with tf.control_dependencies(checks):
            indices = tf.identity(indices)
        return encode(indices, self.output_mode, self.num_tokens, count_weights)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return encoded_shape(input_shape, self.output_mode, self.num_tokens)

    def get_config(self) -> dict[str, Any]:
        return {
            **Layer.get_config(self),
            "num_tokens": self.num_tokens,
            "output_mode": self.output_mode,
            "sparse": False,
        }


@registry.builtin("layers")
class Hashing(Layer):
    """A preprocessing layer which hashes and bins categorical features.

    This layer transforms categorical inputs to hashed outputs: it converts a
    string, an integer or a float (truncated to an integer) to an id in
    `[0, num_bins)`. It uses FarmHash64 (`tf.strings.to_hash_bucket_fast`),
    as Keras does, which gives the same bins across platforms and runs; with
    a `salt` it uses the keyed SipHash64 (`to_hash_bucket_strong`) instead.
    When `mask_value` is set, inputs equal to it go to bin 0 and the other
    values are hashed into `[1, num_bins)`.

    Args:
        num_bins: Positive int, the number of hash bins. Note that this
            includes the `mask_value` bin, so the effective number of bins is
            `num_bins - 1` when `mask_value` is set.
        mask_value: A value that represents masked inputs, which are mapped to
            index 0. `None` means no mask term will be added and the hashing
            will start at index 0. Defaults to `None`.
        salt: A single unsigned integer or `None`. If passed, the hash
            function used is SipHash64, with these values used as an
            additional input (known as a "salt" in cryptography). A single int
            `s` is used as the key `[s, s]`; a pair of ints is also accepted.
            Defaults to `None`.
        output_mode: Specification for the output of the layer. Values can be
            `"int"`, `"one_hot"`, `"multi_hot"` or `"count"`, configuring the
            layer as follows: `"int"` returns the hashed ids directly;
            `"one_hot"` encodes each id as a vector of size `num_bins`
            (replacing a last axis of size 1); `"multi_hot"` encodes each
            sample (the last axis) as one vector of size `num_bins`;
            `"count"` is like `"multi_hot"` but counts occurrences. Defaults
            to `"int"`.
        sparse: Must be `False`: sparse outputs are not supported by tfkit.
            Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.
            The `dtype` is the output's, as in Keras: `"int64"` by default
            for `"int"` (which takes `"int32"` or `"int64"` only), the float
            type (`tfkit.config.floatx()`) for the other modes.

    Call arguments:
        inputs: A tensor, array or list of strings, ints or floats.

    Input shape:
        Arbitrary (a 1D or 2D batch for the encoding modes).

    Output shape:
        Same shape as the input for `"int"` (ids); `(..., num_bins)` vectors
        for the other modes; of the layer's `dtype` in every mode.

    Raises:
        ValueError: If `output_mode` is not a known mode, `num_bins` is not a
            positive int, `sparse=True`, `salt` is not an int or two ints, or
            `dtype` is not `"int32"` or `"int64"` with `output_mode="int"`.

    Example:
        >>> layer = tfkit.layers.Hashing(num_bins=3)
        >>> layer([["A"], ["B"], ["C"], ["D"], ["E"]]).numpy()
        array([[1],
               [0],
               [1],
               [1],
               [2]])
        >>> layer = tfkit.layers.Hashing(num_bins=3, mask_value="")
        >>> layer([["A"], [""], ["C"]]).numpy()
        array([[1],
               [0],
               [2]])
        >>> tfkit.layers.Hashing(num_bins=3, output_mode="one_hot")(["A", "B"]).numpy()
        array([[0., 1., 0.],
               [1., 0., 0.]], dtype=float32)
    """

    def __init__(
        self,
        num_bins: int,
        mask_value: Any = None,
        salt: Any = None,
        output_mode: str = "int",
        sparse: bool = False,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("autocast", False)
        if kwargs.get("dtype") is None:  # as Keras: integer ids, or vectors of the float type
            kwargs["dtype"] = "int64" if output_mode == "int" else settings.floatx()
        super().__init__(**kwargs)
        _check_mode(self, output_mode)
        if output_mode == "int" and self.dtype not in ("int32", "int64"):
            raise ValueError(
                f"Hashing layer '{self.name}': with output_mode='int' the dtype is the ids' type, "
                f"'int32' or 'int64'; got dtype={self.dtype!r} (leave dtype out for int64)"
            )
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
        hashed = (
            tf.strings.to_hash_bucket_strong(values, bins, key=self.salt)
            if self.salt is not None
            else tf.strings.to_hash_bucket_fast(values, bins)
        )
        if mask is not None:
            hashed = tf.where(mask, tf.zeros_like(hashed), hashed + 1)
        return tf.cast(encode(hashed, self.output_mode, self.num_bins), self.dtype)

    def get_config(self) -> dict[str, Any]:
        return {
            **Layer.get_config(self),
            "num_bins": self.num_bins,
            "mask_value": self.mask_value,
            "salt": self.salt,
            "output_mode": self.output_mode,
            "sparse": False,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Hashing":
        config = dict(config)
        dtype = config.get("dtype")
        name = dtype.get("config", {}).get("name") if isinstance(dtype, dict) else dtype
        if config.get("output_mode", "int") == "int" and isinstance(name, str) and name not in ("int32", "int64"):
            config.pop("dtype")  # tfkit's configs before its dtype followed Keras's: int64 ids whatever dtype said
        return super().from_config(config)


@registry.builtin("layers")
@shape_inference.always_trace  # int32 outputs (output_mode="int") of float inputs: trace call
class Discretization(Layer):
    """A preprocessing layer which buckets continuous features by ranges.

    This layer places each element of its input data into one of several
    contiguous ranges and outputs an integer index (int32) indicating which
    range each element was placed in. The boundaries are either given
    (`bin_boundaries`) or computed by `adapt()` as about the
    `1/num_bins, 2/num_bins, ...` quantiles of the data (with Keras 3's
    approximate quantile summary, so the same batches give Keras's
    boundaries).

    Args:
        bin_boundaries: A list of bin boundaries. The leftmost and rightmost
            bins always extend to `-inf` and `inf`, so
            `bin_boundaries=[0., 1., 2.]` generates bins `(-inf, 0.)`,
            `[0., 1.)`, `[1., 2.)` and `[2., +inf)`. Pass exactly one of
            `bin_boundaries` and `num_bins`. Defaults to `None`.
        num_bins: The integer number of bins to compute with `adapt()`. Pass
            exactly one of `bin_boundaries` and `num_bins`. Defaults to
            `None`.
        epsilon: Error tolerance of the quantile summary, typically a small
            fraction close to zero (e.g. 0.01). Higher values of epsilon
            increase the quantile approximation, and hence result in more
            unequal buckets, but could improve performance and resource
            consumption. Defaults to `0.01`.
        output_mode: Specification for the output of the layer. Values can be
            `"int"`, `"one_hot"`, `"multi_hot"` or `"count"`: `"int"` returns
            the bucket ids directly; the other modes encode them as vectors of
            size `len(bin_boundaries) + 1`, as `CategoryEncoding` does.
            Defaults to `"int"`.
        sparse: Must be `False`: sparse outputs are not supported by tfkit.
            Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor, array or list of numbers.

    Input shape:
        Arbitrary.

    Output shape:
        Same as the input shape for `"int"`; `(..., num_bins)` vectors for the
        other modes.

    Raises:
        ValueError: If `output_mode` is not a known mode, not exactly one of
            `bin_boundaries` and `num_bins` is given, or `sparse=True`; on
            call, if there are no boundaries yet (call `adapt()` first; a
            model can be defined before, as in Keras: its outputs have
            `num_bins` bins); from `adapt()`, if the layer has fixed
            `bin_boundaries` or the data is empty.

    Example:
        >>> layer = tfkit.layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
        >>> layer(np.array([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, 1.3, 0.0]])).numpy()
        array([[0, 2, 3, 1],
               [1, 3, 2, 1]], dtype=int32)
        >>> layer = tfkit.layers.Discretization(num_bins=4, epsilon=0.01)
        >>> layer.adapt(np.array([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, 1.3, 0.0]]))
        >>> layer(np.array([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, 1.3, 0.0]])).numpy()
        array([[0, 2, 3, 2],
               [1, 3, 3, 1]], dtype=int32)
    """

    def __init__(
        self,
        bin_boundaries: Sequence[float] | None = None,
        num_bins: int | None = None,
        epsilon: float = 0.01,
        output_mode: str = "int",
        sparse: bool = False,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        _check_mode(self, output_mode)
        if (bin_boundaries is None) == (num_bins is None):
            raise ValueError(
                f"Discretization layer '{self.name}': pass exactly one of bin_boundaries and num_bins, "
                f"got bin_boundaries={bin_boundaries!r}, num_bins={num_bins!r}"
            )
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
        values = tf.cast(tf.convert_to_tensor(inputs), tf.float32)
        if self.bin_boundaries is None:
            if shape_inference.in_symbolic_trace():  # a model defined before adapt(), as in Keras: num_bins bins
                return shape_inference.stand_in(
                    self.compute_output_shape(tuple(values.shape)),
                    tf.int32 if self.output_mode == "int" else tf.float32,
                )
            raise ValueError(
                f"Discretization layer '{self.name}' has no bin boundaries yet: pass bin_boundaries "
                f"when creating it, or call adapt(data) before using it"
            )
        buckets = tf.raw_ops.Bucketize(input=values, boundaries=list(self.bin_boundaries))  # int32, as Keras
        depth = len(self.bin_boundaries) + 1
        return encode(buckets, self.output_mode, depth)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        depth = len(self.bin_boundaries) + 1 if self.bin_boundaries is not None else self.num_bins
        return encoded_shape(input_shape, self.output_mode, depth)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: the boundaries and ``num_bins`` both once adapted (so it adapts again after a load);
        no ``trainable``, which Keras's ``Discretization`` does not take."""
        boundaries = None if self.bin_boundaries is None else [float(b) for b in self.bin_boundaries]
        config = {key: value for key, value in Layer.get_config(self).items() if key != "trainable"}
        return {
            **config,
            "bin_boundaries": boundaries,
            "num_bins": self.num_bins,
            "epsilon": self.epsilon,
            "output_mode": self.output_mode,
            "sparse": False,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Discretization":
        """An adapted layer's config holds ``num_bins`` and the boundaries it found: rebuilt with both, as Keras."""
        config = dict(config)
        if config.get("bin_boundaries") is not None and config.get("num_bins") is not None:
            boundaries = config.pop("bin_boundaries")
            layer = super().from_config(config)
            layer.bin_boundaries = [float(b) for b in boundaries]
            return layer
        return super().from_config(config)
