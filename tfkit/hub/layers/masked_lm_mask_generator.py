"""``MaskedLMMaskGenerator``: BERT's masking of token ids for masked language modeling, on the fly in ``tf.data``.

    masker = MaskedLMMaskGenerator(vocabulary_size=100, mask_selection_rate=0.15, mask_token_id=3,
                                   mask_selection_length=8)
    out = masker(token_ids)     # {"token_ids", "mask_positions", "mask_ids", "mask_weights"}

Selection and replacement are ``tensorflow_text``'s (``RandomItemSelector``,
``MaskValuesChooser``, ``mask_language_model``), as in KerasHub: random each
call, TensorFlow ops only.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.config_values import config_value
from tfkit.hub.layers.preprocessing_layer import PreprocessingLayer
from tfkit.hub.layers.preprocessing_tensors import convert_to_ragged_batch, tensorflow_text
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MaskedLMMaskGenerator(PreprocessingLayer):
    """Layer that applies language model masking.

    For masked language modeling (BERT's pretraining): each token not in
    `unselectable_token_ids` is selected with probability
    `mask_selection_rate` (at most `mask_selection_length` a sequence); a
    selected token becomes `mask_token_id` with probability
    `mask_token_rate`, a random id with probability `random_token_rate`, and
    stays as it was otherwise. Inputs are one sequence (a list, a rank-1
    tensor) or a batch (a list of lists, a rank-2 tensor, a
    `tf.RaggedTensor`). Needs `tensorflow-text`.

    Args:
        vocabulary_size: Integer, the size of the vocabulary (random
            replacements are drawn from `[0, vocabulary_size)`).
        mask_selection_rate: Float, the probability that a token is selected.
        mask_token_id: Integer, the id of the mask token; must be below
            `vocabulary_size`.
        mask_selection_length: Optional integer, the most tokens selected in
            a sequence. When set, `mask_positions`, `mask_ids` and
            `mask_weights` are padded to this length; `None` (the default)
            leaves them ragged.
        unselectable_token_ids: List of ids never selected (padding, special
            tokens). Defaults to `[0]`.
        mask_token_rate: Float in `[0, 1]`, how often a selected token becomes
            the mask token. Defaults to `0.8`.
        random_token_rate: Float in `[0, 1]`, how often a selected token
            becomes a random token; `mask_token_rate + random_token_rate` must
            not exceed 1. Defaults to `0.1`.
        **kwargs: Base layer keyword arguments, such as `name`.

    Call arguments:
        inputs: Token ids: a tensor, a `tf.RaggedTensor` or Python lists.

    Returns:
        A dict: `token_ids` (the inputs with the masking applied, same shape
        and type), `mask_positions` (positions selected), `mask_ids` (their
        original ids) and `mask_weights` (1.0 for a selection, 0.0 for
        padding), the last three dense of length `mask_selection_length` when
        it is set, else ragged. Eagerly, ragged outputs are Python lists, as
        KerasHub returns them.

    Raises:
        ValueError: If `mask_token_id` is not below `vocabulary_size`.
        ImportError: On the first call, if `tensorflow-text` is not installed.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> masker = keras_hub.layers.MaskedLMMaskGenerator(
        ...     vocabulary_size=10, mask_selection_rate=1.0, mask_token_id=9, mask_selection_length=4,
        ...     mask_token_rate=1.0, random_token_rate=0.0,
        ... )
        >>> out = masker([[1, 2, 3, 0], [4, 5, 0, 0]])
        >>> out["token_ids"].numpy()
        array([[9, 9, 9, 0],
               [9, 9, 0, 0]], dtype=int32)
        >>> out["mask_positions"].numpy(), out["mask_ids"].numpy()
        (array([[0, 1, 2, 0],
               [0, 1, 0, 0]]), array([[1, 2, 3, 0],
               [4, 5, 0, 0]], dtype=int32))
    """

    def __init__(
        self,
        vocabulary_size: int,
        mask_selection_rate: float,
        mask_token_id: int,
        mask_selection_length: int | None = None,
        unselectable_token_ids: list[int] | None = [0],  # noqa: B006  KerasHub's default, never mutated
        mask_token_rate: float = 0.8,
        random_token_rate: float = 0.1,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if mask_token_id >= vocabulary_size:
            raise ValueError(
                f"MaskedLMMaskGenerator layer '{self.name}' expected `mask_token_id` in [0, vocabulary_size - 1] = "
                f"[0, {vocabulary_size - 1}], got mask_token_id={mask_token_id}"
            )
        self.vocabulary_size = vocabulary_size
        self.unselectable_token_ids = unselectable_token_ids
        self.mask_selection_rate = mask_selection_rate
        self.mask_selection_length = mask_selection_length
        self.mask_token_rate = mask_token_rate
        self.random_token_rate = random_token_rate
        self.mask_token_id = mask_token_id
        self._choosers: tuple[Any, Any] | None = None  # tensorflow_text's selector and chooser, made on first call

    def _selector_and_chooser(self) -> tuple[Any, Any]:
        if self._choosers is None:
            tf_text = tensorflow_text(f"MaskedLMMaskGenerator layer '{self.name}'")
            selector = tf_text.RandomItemSelector(
                max_selections_per_batch=self.mask_selection_length or 2**31 - 1,
                selection_rate=self.mask_selection_rate,
                unselectable_ids=self.unselectable_token_ids,
            )
            chooser = tf_text.MaskValuesChooser(
                self.vocabulary_size,
                self.mask_token_id,
                mask_token_rate=self.mask_token_rate,
                random_token_rate=self.random_token_rate,
            )
            self._choosers = (selector, chooser)
        return self._choosers

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs: Any) -> dict[str, Any]:
        selector, chooser = self._selector_and_chooser()
        tf_text = tensorflow_text(f"MaskedLMMaskGenerator layer '{self.name}'")
        inputs, unbatched, rectangular = convert_to_ragged_batch(inputs)
        token_ids, mask_positions, mask_ids = tf_text.mask_language_model(
            inputs, item_selector=selector, mask_values_chooser=chooser
        )
        if rectangular:
            token_ids = token_ids.to_tensor()
        mask_weights = tf.ones_like(mask_positions, self.compute_dtype)
        if self.mask_selection_length:
            shape = tf.cast([-1, self.mask_selection_length], tf.int64)
            mask_positions = mask_positions.to_tensor(shape=shape)
            mask_ids = mask_ids.to_tensor(shape=shape)
            mask_weights = mask_weights.to_tensor(shape=shape)
        outputs = {
            "token_ids": token_ids,
            "mask_positions": mask_positions,
            "mask_ids": mask_ids,
            "mask_weights": mask_weights,
        }
        if unbatched:
            outputs = {key: tf.squeeze(value, axis=0) for key, value in outputs.items()}
        return outputs

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            vocabulary_size=self.vocabulary_size,
            mask_selection_rate=self.mask_selection_rate,
            mask_selection_length=self.mask_selection_length,
            unselectable_token_ids=config_value(self.unselectable_token_ids),
            mask_token_id=self.mask_token_id,
            mask_token_rate=self.mask_token_rate,
            random_token_rate=self.random_token_rate,
        )
        return config
