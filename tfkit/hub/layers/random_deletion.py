"""``RandomDeletion``: KerasHub's text augmentation that drops random tokens (words, characters or ids).

augment = keras_hub.layers.RandomDeletion(rate=0.4, max_deletions=2, seed=42)
augment(tf.strings.split(["the quick brown fox"]))     # e.g. [["the", "brown", "fox"]]
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import tensorflow as tf

from tfkit.hub.layers.token_augmentation import TokenAugmentation
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class RandomDeletion(TokenAugmentation):
    """Deletes random tokens from each row: a binomial count of the candidates at `rate`, at most `max_deletions`.

    Takes a batch of token rows (ragged or dense, strings or ids; one row
    unbatched) and returns the rows without the deleted tokens (ragged).
    Tokens in `skip_list` (or for which `skip_fn` / `skip_py_fn` say True)
    are never deleted. TensorFlow ops: eagerly, in `tf.data`, in SavedModels
    (`skip_py_fn` excepted).

    Args:
        rate: The chance of each candidate being deleted, in `[0, 1]`.
        max_deletions: The most deletions per row, or `None`. Defaults to
            `None`.
        skip_list: Tokens never deleted. Defaults to `None`.
        skip_fn: A TensorFlow function `token -> bool`: True keeps it.
            Defaults to `None`.
        skip_py_fn: A Python function `token -> bool`: True keeps it.
            Defaults to `None`.
        seed: The seed of the draws; `None` picks one. Defaults to `None`.
        name: The layer's name. Defaults to `None`.
        dtype: The tokens' dtype: an integer type or `"string"`. Defaults to
            `"int32"`.
        **kwargs: Layer keyword arguments.

    Raises:
        ValueError: If `rate` is outside `[0, 1]`, `max_deletions` is
            negative, more than one skip option is given, or `dtype` is
            neither an integer type nor `"string"`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> augment = keras_hub.layers.RandomDeletion(rate=1.0, max_deletions=1, skip_list=["fox"], seed=1)
        >>> words = augment(tf.strings.split(["the quick fox"]))
        >>> len(words[0]), "fox" in words[0]
        (2, True)
    """

    def __init__(
        self,
        rate: float,
        max_deletions: int | None = None,
        skip_list: Sequence[Any] | None = None,
        skip_fn: Callable[[Any], Any] | None = None,
        skip_py_fn: Callable[[Any], bool] | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = "int32",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            rate, max_deletions, "max_deletions", skip_list, skip_fn, skip_py_fn, seed, dtype=dtype, name=name, **kwargs
        )
        self.max_deletions = max_deletions

    def call(self, inputs: Any) -> Any:
        inputs, unbatched = self._ragged(inputs)
        positions = inputs.with_flat_values(tf.range(tf.size(inputs.flat_values, out_type=tf.int64)))
        candidates = tf.ragged.boolean_mask(positions, inputs.with_flat_values(self._candidates(inputs)))
        counts = self._counts(candidates, self.max_deletions)
        seed = self._draw_seed()
        # a random order of each row's candidates (sorting random keys), of which the first `count` go
        keys = tf.random.stateless_uniform(tf.shape(candidates.flat_values), seed)
        order = tf.argsort(candidates.with_flat_values(keys).to_tensor(default_value=2.0), axis=1)
        shuffled = tf.gather(candidates.to_tensor(default_value=-1), order, batch_dims=1)
        chosen = tf.RaggedTensor.from_tensor(shuffled, lengths=counts).flat_values
        keep = tf.tensor_scatter_nd_update(
            tf.ones_like(inputs.flat_values, dtype=tf.bool), chosen[:, None], tf.zeros_like(chosen, dtype=tf.bool)
        )
        outputs = tf.ragged.boolean_mask(inputs, inputs.with_flat_values(keep))
        return outputs[0] if unbatched else outputs

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(rate=self.rate, max_deletions=self.max_deletions)
        return config
