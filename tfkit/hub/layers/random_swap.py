"""``RandomSwap``: KerasHub's text augmentation that swaps random pairs of tokens within a row.

augment = keras_hub.layers.RandomSwap(rate=0.4, max_swaps=2, seed=42)
augment(tf.strings.split(["the quick brown fox"]))     # e.g. [["the", "fox", "brown", "quick"]]
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import tensorflow as tf

from tfkit.hub.layers.token_augmentation import TokenAugmentation
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class RandomSwap(TokenAugmentation):
    """Swaps random pairs of candidate tokens in each row: a binomial count at `rate`, at most `max_swaps`.

    Each swap exchanges two candidate positions drawn at random (possibly
    the same one, as in KerasHub). Rows keep their tokens and lengths; tokens
    in `skip_list` (or marked by `skip_fn` / `skip_py_fn`) never move.
    TensorFlow ops: eagerly, in `tf.data`, in SavedModels (`skip_py_fn`
    excepted).

    Args:
        rate: The chance of each candidate starting a swap, in `[0, 1]`.
        max_swaps: The most swaps per row, or `None`. Defaults to `None`.
        skip_list: Tokens never moved. Defaults to `None`.
        skip_fn: A TensorFlow function `token -> bool`: True keeps it in
            place. Defaults to `None`.
        skip_py_fn: A Python function `token -> bool`: True keeps it in
            place. Defaults to `None`.
        seed: The seed of the draws; `None` picks one. Defaults to `None`.
        name: The layer's name. Defaults to `None`.
        dtype: The tokens' dtype: an integer type or `"string"`. Defaults to
            `"int32"`.
        **kwargs: Layer keyword arguments.

    Raises:
        ValueError: If `rate` is outside `[0, 1]`, `max_swaps` is negative,
            more than one skip option is given, or `dtype` is neither an
            integer type nor `"string"`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> augment = keras_hub.layers.RandomSwap(rate=1.0, max_swaps=3, seed=1)
        >>> words = augment(tf.strings.split(["the quick brown fox"]))
        >>> sorted(words[0]) == sorted(["the", "quick", "brown", "fox"])
        True
    """

    def __init__(
        self,
        rate: float,
        max_swaps: int | None = None,
        skip_list: Sequence[Any] | None = None,
        skip_fn: Callable[[Any], Any] | None = None,
        skip_py_fn: Callable[[Any], bool] | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = "int32",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            rate, max_swaps, "max_swaps", skip_list, skip_fn, skip_py_fn, seed, dtype=dtype, name=name, **kwargs
        )
        self.max_swaps = max_swaps

    def call(self, inputs: Any) -> Any:
        inputs, unbatched = self._ragged(inputs)
        positions = inputs.with_flat_values(tf.range(tf.size(inputs.flat_values, out_type=tf.int64)))
        candidates = tf.ragged.boolean_mask(positions, inputs.with_flat_values(self._candidates(inputs)))
        counts = self._counts(candidates, self.max_swaps)
        seed = self._draw_seed()
        flat = inputs.flat_values
        rows = tf.cast(candidates.nrows(), tf.int64)
        starts, lengths = candidates.row_starts(), candidates.row_lengths()

        def one_swap(step: tf.Tensor, flat: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
            # every row still swapping picks two of its candidates (uniformly) and exchanges their tokens
            active = (step < counts) & (lengths > 0)
            draws = tf.random.stateless_uniform([rows, 2], tf.stack([seed[0], seed[1] + tf.cast(step, seed.dtype)]))
            picks = tf.cast(draws * tf.cast(lengths[:, None], tf.float32), tf.int64)
            picks = tf.minimum(picks, tf.maximum(lengths[:, None] - 1, 0))
            pair = tf.gather(candidates.flat_values, tf.boolean_mask(starts[:, None] + picks, active))
            pair = tf.reshape(pair, [-1, 2])
            swapped = tf.tensor_scatter_nd_update(
                flat, tf.reshape(tf.reverse(pair, axis=[1]), [-1, 1]), tf.gather(flat, tf.reshape(pair, [-1]))
            )
            return step + 1, swapped

        most = tf.reduce_max(tf.concat([counts, [0]], 0))
        _, flat = tf.while_loop(lambda step, _: step < most, one_swap, (tf.constant(0, tf.int64), flat))
        outputs = inputs.with_flat_values(flat)
        return outputs[0] if unbatched else outputs

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(rate=self.rate, max_swaps=self.max_swaps)
        return config
