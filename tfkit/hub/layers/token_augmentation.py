"""What ``RandomDeletion`` and ``RandomSwap`` share: their arguments, the tokens they may touch, and their draws.

    layer = RandomDeletion(rate=0.3, skip_list=["[CLS]"], seed=1)
    layer(tf.strings.split(["the quick brown fox"]))      # ragged words in, ragged words out

A row's candidates are its tokens outside ``skip_list`` (or for which
``skip_fn`` / ``skip_py_fn``, callables given in code, return False); how many
are touched is drawn from a binomial of the candidates and ``rate``, capped by
the layer's maximum. Draws come from a ``tf.random.Generator`` seeded with
``seed``: a seeded layer repeats itself, call for call, in a new process.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence

import tensorflow as tf

from tfkit.hub.layers.preprocessing_layer import PreprocessingLayer
from tfkit.hub.tokenizers.tensor_io import is_int_dtype, is_string_dtype


class TokenAugmentation(PreprocessingLayer):
    """Base of the token augmentation layers: `rate`, a maximum, what to skip, and the seed.

    Args:
        rate: The chance of each candidate token being touched, in `[0, 1]`.
        maximum: The most tokens touched per row, or `None`.
        maximum_name: The argument's name in the subclass (for messages).
        skip_list: Tokens never touched, or `None`.
        skip_fn: A TensorFlow function `token -> bool` (True: never touch),
            or `None`.
        skip_py_fn: A Python function `token -> bool`, run through
            `tf.py_function`, or `None`.
        seed: The seed of the layer's draws; `None` picks one. Defaults to
            `None`.
        dtype: The tokens' dtype: an integer type or `"string"`. Defaults to
            `"int32"`.
        **kwargs: Layer keyword arguments, such as `name`.

    Raises:
        ValueError: If `rate` is outside `[0, 1]`, the maximum is negative,
            more than one skip option is given, or `dtype` is neither an
            integer type nor `"string"`.
    """

    def __init__(
        self,
        rate: float,
        maximum: int | None,
        maximum_name: str,
        skip_list: Sequence[Any] | None = None,
        skip_fn: Callable[[Any], Any] | None = None,
        skip_py_fn: Callable[[Any], bool] | None = None,
        seed: int | None = None,
        dtype: Any = "int32",
        **kwargs: Any,
    ) -> None:
        who = f"{type(self).__name__} layer '{kwargs.get('name') or type(self).__name__}'"
        name = getattr(dtype, "name", dtype)
        if not is_int_dtype(name) and not is_string_dtype(name):
            raise ValueError(f"{who}: output dtype must be an integer type or a string. Received: dtype={dtype}")
        if maximum is not None and maximum < 0:
            raise ValueError(f"{who}: {maximum_name} must be non-negative. Received {maximum_name}={maximum}.")
        if not 0 <= rate <= 1:
            raise ValueError(f"{who}: rate must be between 0 and 1 (both inclusive). Received: rate={rate}")
        if [skip_list, skip_fn, skip_py_fn].count(None) < 2:
            raise ValueError(f"{who}: exactly one of `skip_list`, `skip_fn`, `skip_py_fn` may be provided")
        super().__init__(dtype=dtype, **kwargs)
        self.rate = rate
        self.seed = random.randint(1, int(1e9)) if seed is None else seed
        self.skip_list = skip_list
        self.skip_fn = skip_fn
        self.skip_py_fn = skip_py_fn
        self._generator: tf.random.Generator | None = None

    def _draw_seed(self) -> tf.Tensor:
        if self._generator is None:
            with tf.init_scope():
                self._generator = tf.random.Generator.from_seed(self.seed)
        return self._generator.make_seeds()[:, 0]

    def _candidates(self, inputs: tf.RaggedTensor) -> tf.Tensor:
        """Bool, one per flat token: whether it may be touched."""
        tokens = inputs.flat_values
        if self.skip_list:
            skipped = tf.reduce_any(tf.equal(tokens[:, None], tf.constant(list(self.skip_list), tokens.dtype)), -1)
        elif self.skip_fn is not None:
            skipped = tf.map_fn(self.skip_fn, tokens, fn_output_signature=tf.bool)
        elif self.skip_py_fn is not None:
            decode = tokens.dtype == tf.string

            def python_skip(token: tf.Tensor) -> bool:
                value = token.numpy()
                return bool(self.skip_py_fn(value.decode("utf-8") if decode else value))

            skipped = tf.map_fn(
                lambda t: tf.py_function(python_skip, [t], tf.bool), tokens, fn_output_signature=tf.bool
            )
        else:
            return tf.ones_like(tokens, dtype=tf.bool)
        return tf.reshape(~skipped, [-1])

    def _counts(self, candidates: tf.RaggedTensor, maximum: int | None) -> tf.Tensor:
        """How many tokens each row touches: binomial(candidates, rate), capped by `maximum`."""
        available = tf.cast(candidates.row_lengths(), tf.float32)
        counts = tf.random.stateless_binomial(tf.shape(available), self._draw_seed(), available, self.rate)
        if maximum is not None:
            counts = tf.minimum(counts, maximum)
        return tf.cast(counts, tf.int64)

    def _ragged(self, inputs: Any) -> tuple[tf.RaggedTensor, bool]:
        inputs = inputs if isinstance(inputs, tf.RaggedTensor) else tf.convert_to_tensor(inputs)
        unbatched = inputs.shape.rank == 1
        if unbatched:
            inputs = inputs[tf.newaxis]
        if isinstance(inputs, tf.Tensor):
            inputs = tf.RaggedTensor.from_tensor(inputs)
        return inputs, unbatched

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(seed=self.seed, skip_list=self.skip_list, skip_fn=self.skip_fn, skip_py_fn=self.skip_py_fn)
        return config

    def compute_output_shape(self, inputs_shape: Any) -> tuple:
        return (*tuple(inputs_shape)[:-1], None)
