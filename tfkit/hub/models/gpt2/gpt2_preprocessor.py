"""``GPT2Preprocessor``: KerasHub's legacy GPT-2 preprocessor, strings to token ids and a padding mask.

    preprocessor = keras_hub.models.GPT2Preprocessor(tokenizer, sequence_length=8)
    x = preprocessor(["a b"])                 # {"token_ids", "padding_mask"}, start and end tokens added
    x, y = preprocessor(["a b"], [1])         # labels pass through

New code pairs a tokenizer with its task's preprocessor (``GPT2CausalLMPreprocessor``);
this one packs without shifting, as KerasHub keeps it for older code.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers import StartEndPacker
from tfkit.hub.models.gpt2.gpt2_backbone import GPT2Backbone
from tfkit.hub.models.gpt2.gpt2_tokenizer import GPT2Tokenizer
from tfkit.hub.models.preprocessor import Preprocessor
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight


@register_keras_serializable(package="keras_hub")
class GPT2Preprocessor(Preprocessor):
    """GPT-2's legacy preprocessor: tokenizes, adds `<|endoftext|>` at both ends and pads.

    KerasHub keeps it for code written before task preprocessors: it returns
    `{"token_ids", "padding_mask"}` of the packed sequence, unshifted, and
    passes `y` and `sample_weight` through. For training a language model use
    `GPT2CausalLMPreprocessor`, which also makes the next-token labels.

    Args:
        tokenizer: A `GPT2Tokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with `<|endoftext|>`. Defaults to `True`.
        add_end_token: Whether to end with `<|endoftext|>`. Defaults to `True`.
        **kwargs: Layer keyword arguments, such as `name`.

    Call arguments:
        x: A string, a list of strings, or a string tensor.
        y: Labels, passed through. Defaults to `None`.
        sample_weight: Sample weights, passed through. Defaults to `None`.
        sequence_length: Overrides `sequence_length` for this call.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> tokenizer = keras_hub.models.GPT2Tokenizer(vocabulary={"<|endoftext|>": 0, "a": 1}, merges=[])
        >>> preprocessor = keras_hub.models.GPT2Preprocessor(tokenizer, sequence_length=5)
        >>> preprocessor(["a"])["token_ids"].numpy().tolist()
        [[0, 1, 0, 0, 0]]
        >>> preprocessor(["a"])["padding_mask"].numpy().tolist()
        [[True, True, True, False, False]]
    """

    backbone_cls = GPT2Backbone
    tokenizer_cls = GPT2Tokenizer

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

    def call(self, x: Any, y: Any = None, sample_weight: Any = None, sequence_length: int | None = None) -> Any:
        if self.packer is None:  # made on first use, once the tokenizer's assets are loaded
            self.packer = StartEndPacker(
                start_value=self.tokenizer.start_token_id,
                end_value=self.tokenizer.end_token_id,
                pad_value=self.tokenizer.pad_token_id,
                sequence_length=self.sequence_length,
                return_padding_mask=True,
            )
        token_ids, padding_mask = self.packer(
            self.tokenizer(x),
            sequence_length=sequence_length or self.sequence_length,
            add_start_value=self.add_start_token,
            add_end_value=self.add_end_token,
        )
        return pack_x_y_sample_weight({"token_ids": token_ids, "padding_mask": padding_mask}, y, sample_weight)

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
