"""``HashedCrossing``: crosses of categorical features, hashed into ``num_bins`` bins (the hashing trick).

    cross = tfkit.layers.HashedCrossing(num_bins=5)
    cross((np.array(["A", "B", "A"]), np.array([101, 101, 102])))      # [1, 4, 3]: hash(A x 101) % 5, ...
    tfkit.layers.HashedCrossing(5, output_mode="one_hot")((a, b))         # (3, 5) float one-hot rows

Keras 3's layer, with the same bins: the cross is ``tf.sparse.cross_hashed``
(FarmHash fingerprints of the features, combined in order), run on the CPU.
Inputs are two or more dense integer or string tensors of one shape: ``()``,
``(batch,)`` or ``(batch, 1)``. ``output_mode="int"`` returns the bins with
the inputs' shape as ``int64`` (the default dtype); ``"one_hot"`` returns
``(batch, num_bins)`` rows in the compute dtype, a ``tf.SparseTensor`` with
``sparse=True`` (eager and ``tf.function`` calls; functional models carry
dense tensors only).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.argument_validation import positive_int
from tfkit.base.symbolic import is_symbolic
from tfkit.engine.layer import Layer
from tfkit.layers.preprocessing.categorical import encode

__all__ = ["HashedCrossing"]

_MODES = ("int", "one_hot")


@registry.builtin("layers")
class HashedCrossing(Layer):
    """A preprocessing layer which crosses features using the "hashing trick".

    This layer performs crosses of categorical features using the "hashing
    trick": conceptually, the transformation is
    `hash(concatenate(features)) % num_bins` for each sample. It gives
    Keras 3's bins: the cross is `tf.sparse.cross_hashed` (FarmHash
    fingerprints of the features, combined in order), run on the CPU.

    Inputs are two or more dense integer or string tensors of one shape:
    `()`, `(batch,)` or `(batch, 1)`. `output_mode="int"` returns the bins
    with the inputs' shape as int64 (the default dtype); `"one_hot"` returns
    `(batch, num_bins)` rows in the compute dtype.

    Args:
        num_bins: Positive int, the number of hash bins.
        output_mode: Specification for the output of the layer. Values can be
            `"int"` (the hashed bin ids) or `"one_hot"` (one one-hot row of
            size `num_bins` per sample). Defaults to `"int"`.
        sparse: Whether to return a `tf.SparseTensor`; only with
            `output_mode="one_hot"`. It works in eager and `tf.function`
            calls (e.g. `tf.data` pipelines), not in functional models, which
            carry dense tensors only. Defaults to `False`.
        name: Optional name of the layer. Defaults to `None` (a generated
            name).
        dtype: The dtype of the output. Defaults to `None`, which means
            `"int64"` for `output_mode="int"` and the default float dtype
            otherwise.
        **kwargs: Other base layer keyword arguments.

    Call arguments:
        inputs: A list or tuple of at least two dense integer or string
            tensors (or arrays) of one shape.

    Input shape:
        A list of two or more shapes, all `()`, `(batch_size,)` or
        `(batch_size, 1)`.

    Output shape:
        The inputs' shape for `"int"`; `(batch_size, num_bins)` for
        `"one_hot"` (`(1, num_bins)` for scalar features).

    Raises:
        ValueError: If `num_bins` is not a positive integer, `output_mode` is
            not `"int"` or `"one_hot"`, or `sparse=True` without `"one_hot"`;
            on call, if the inputs are not two or more dense integer or string
            tensors of one allowed shape, or a `sparse=True` layer is called
            on symbolic inputs.

    Example:
        >>> layer = tfkit.layers.HashedCrossing(num_bins=5)
        >>> feat1 = np.array(["A", "B", "A", "B", "A"])
        >>> feat2 = np.array([101, 101, 101, 102, 102])
        >>> layer((feat1, feat2)).numpy()
        array([1, 4, 1, 1, 3])
        >>> layer = tfkit.layers.HashedCrossing(num_bins=5, output_mode="one_hot")
        >>> layer((feat1, feat2)).shape
        TensorShape([5, 5])
    """

    def __init__(
        self,
        num_bins: int,
        output_mode: str = "int",
        sparse: bool = False,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        if output_mode == "int" and dtype is None:
            dtype = "int64"
        kwargs.setdefault("autocast", False)
        super().__init__(name=name, dtype=dtype, **kwargs)
        who = f"HashedCrossing layer '{self.name}'"
        num_bins = positive_int(num_bins, "num_bins", who)
        if output_mode not in _MODES:
            raise ValueError(f"{who} expected `output_mode` to be one of {list(_MODES)}, got {output_mode!r}")
        if sparse and output_mode != "one_hot":
            raise ValueError(
                f"{who}: sparse=True applies to output_mode='one_hot' only, got output_mode={output_mode!r}"
            )
        self.num_bins, self.output_mode, self.sparse = num_bins, output_mode, bool(sparse)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.sparse and any(is_symbolic(x) for x in tf.nest.flatten((args, kwargs))):
            raise ValueError(
                f"HashedCrossing layer '{self.name}' with sparse=True returns a tf.SparseTensor, and "
                f"tfkit's functional models carry dense tensors only: use sparse=False in a model "
                f"(or call the layer on tensors, e.g. in a tf.data pipeline)"
            )
        return super().__call__(*args, **kwargs)

    def _checked(self, inputs: Any) -> list[tf.Tensor]:
        who = f"HashedCrossing layer '{self.name}'"
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"{who} expects a list or tuple of at least two feature tensors, got {inputs!r}")
        if any(isinstance(x, (tf.SparseTensor, tf.RaggedTensor)) for x in inputs):
            raise ValueError(f"{who} expects dense feature tensors, got {[type(x).__name__ for x in inputs]}")
        features = [tf.convert_to_tensor(x) for x in inputs]
        shapes = [tuple(x.shape) for x in features]
        first = shapes[0]
        if len(first) > 2 or (len(first) == 2 and first[-1] != 1):
            raise ValueError(f"{who} expects features of shape (), (batch,) or (batch, 1), got {first}")
        if any(shape != first for shape in shapes[1:]):
            raise ValueError(f"{who} expects features of one shape, got {shapes}")
        dtypes = [x.dtype for x in features]
        if not all(d.is_integer or d == tf.string for d in dtypes):
            raise ValueError(f"{who} expects integer or string features, got {[d.name for d in dtypes]}")
        return features

    def call(self, inputs: Any) -> Any:
        features = self._checked(inputs)
        shape = tuple(features[0].shape)
        with tf.device("CPU:0"):  # as Keras: the op has CPU kernels only
            if len(shape) < 2:
                features = [tf.reshape(x, [-1, 1]) for x in features]
            bins = tf.sparse.to_dense(tf.sparse.cross_hashed(features, self.num_bins))
            if len(shape) == 2:
                bins.set_shape(shape)
            elif len(shape) == 1:
                bins.set_shape(shape + (1,))
                bins = tf.squeeze(bins, axis=1)
            else:
                bins = tf.reshape(bins, [])
            if self.output_mode == "int":
                return tf.cast(bins, self.compute_dtype)
            hot = tf.cast(encode(bins, "one_hot", self.num_bins), self.compute_dtype)
            return tf.sparse.from_dense(hot) if self.sparse else hot

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shapes = list(input_shape) if isinstance(input_shape, (list, tuple)) else []
        if len(shapes) < 2 or not all(isinstance(s, (list, tuple)) for s in shapes):
            raise ValueError(
                f"HashedCrossing layer '{self.name}' expects the shapes of at least two features, got {input_shape!r}"
            )
        first = tuple(shapes[0])
        if self.output_mode == "int":
            return first
        if len(first) == 0:
            return (1, self.num_bins)  # what the call gives for scalar features, as Keras's
        return (*first[:-1], self.num_bins) if len(first) == 2 else (*first, self.num_bins)

    def get_config(self) -> dict[str, Any]:
        # Keras's keys exactly (no "trainable": the layer has no weights).
        base = Layer.get_config(self)
        return {
            "num_bins": self.num_bins,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
            "name": base["name"],
            "dtype": base["dtype"],
        }
