"""``CausalLMPreprocessor``: strings to token ids, padding mask and next-token labels, KerasHub's own.

preprocessor = GPT2CausalLMPreprocessor.from_preset("./gpt2_tiny", sequence_length=8)
x, y, sample_weight = preprocessor(["a b"])                 # x: {"token_ids", "padding_mask"}
prompt = preprocessor.generate_preprocess(["a b"], 16)      # no end token: generation goes on
text = preprocessor.generate_postprocess(generated)         # ids back to strings, specials stripped
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers import StartEndPacker
from tfkit.hub.models.preprocessor import Preprocessor
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight


def strip_to_ragged(token_ids: Any, mask: Any, ids_to_strip: Any) -> tf.RaggedTensor:
    """The ids where ``mask`` holds and that are not in ``ids_to_strip``, one ragged row per sequence."""
    token_ids = tf.convert_to_tensor(token_ids)
    keep = tf.cast(mask, tf.bool)
    for token in ids_to_strip:
        keep &= token_ids != tf.cast(token, token_ids.dtype)
    return tf.ragged.boolean_mask(token_ids, keep)


@register_keras_serializable(package="keras_hub")
class CausalLMPreprocessor(Preprocessor):
    """Base class for causal language modeling preprocessing layers.

    It tokenizes strings, adds the start and end tokens, pads to
    `sequence_length` and, for training, shifts by one: `x` holds
    `"token_ids"` and `"padding_mask"` of all tokens but the last, `y` the
    ids of all tokens but the first, and `sample_weight` the padding mask of
    `y`, so the model learns to predict each next token. Called on the
    `CausalLMPreprocessor` base class, `from_preset` returns the family's own.

    Args:
        tokenizer: The family's tokenizer.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start each sequence with the tokenizer's
            start token. Defaults to `True`.
        add_end_token: Whether to end each sequence with the tokenizer's end
            token. Defaults to `True`.
        **kwargs: Layer keyword arguments, such as `name`.

    Call arguments:
        x: A string, a list of strings, or a string tensor (batched).
        y: Must be `None`: the labels come from `x`.
        sample_weight: Must be `None`: the weights are the padding mask.
        sequence_length: Overrides `sequence_length` for this call.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.CausalLMPreprocessor, keras_hub.models.Preprocessor)
        True
    """

    def __init__(
        self,
        tokenizer: Any,
        sequence_length: int = 1024,
        add_start_token: bool = True,
        add_end_token: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.tokenizer = tokenizer
        self.packer = None
        self.sequence_length = sequence_length
        self.add_start_token = add_start_token
        self.add_end_token = add_end_token

    def _make_packer(self) -> None:
        self.packer = StartEndPacker(
            start_value=self.tokenizer.start_token_id,
            end_value=self.tokenizer.end_token_id,
            pad_value=self.tokenizer.pad_token_id,
            sequence_length=self.sequence_length,
            return_padding_mask=True,
        )

    def _packed(self, x: Any, sequence_length: int, add_end_value: bool) -> tuple[Any, Any]:
        if self.packer is None:
            self._make_packer()
        return self.packer(
            self.tokenizer(x),
            sequence_length=sequence_length,
            add_start_value=self.add_start_token,
            add_end_value=add_end_value,
        )

    def call(self, x: Any, y: Any = None, sample_weight: Any = None, sequence_length: int | None = None) -> Any:
        sequence_length = sequence_length or self.sequence_length
        token_ids, padding_mask = self._packed(x, sequence_length + 1, self.add_end_token)
        x = {"token_ids": token_ids[..., :-1], "padding_mask": padding_mask[..., :-1]}
        return pack_x_y_sample_weight(x, token_ids[..., 1:], padding_mask[..., 1:])

    def generate_preprocess(self, x: Any, sequence_length: int | None = None) -> dict[str, Any]:
        """Strings to the inputs of generation: token ids and padding mask, with no end token.

        Args:
            x: A string, a list of strings or a string tensor.
            sequence_length: The padded length (`sequence_length` if `None`).

        Returns:
            `{"token_ids", "padding_mask"}`.
        """
        token_ids, padding_mask = self._packed(x, sequence_length or self.sequence_length, False)
        return {"token_ids": token_ids, "padding_mask": padding_mask}

    def generate_postprocess(self, x: dict[str, Any]) -> Any:
        """Generated ids back to strings: padding and special tokens stripped, then detokenized.

        Args:
            x: `{"token_ids", "padding_mask"}` as `generate_step` returns them.

        Returns:
            The strings (a string tensor, or Python strings as the tokenizer returns them).
        """
        ids_to_strip = list(getattr(self.tokenizer, "special_token_ids", []) or [])
        return self.tokenizer.detokenize(strip_to_ragged(x["token_ids"], x["padding_mask"], ids_to_strip))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            sequence_length=self.sequence_length, add_start_token=self.add_start_token, add_end_token=self.add_end_token
        )
        return config

    @property
    def sequence_length(self) -> int:
        """The padded length of the model's input sequences."""
        return self._sequence_length

    @sequence_length.setter
    def sequence_length(self, value: int) -> None:
        self._sequence_length = value
        if self.packer is not None:
            self.packer.sequence_length = value
