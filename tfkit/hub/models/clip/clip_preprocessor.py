"""``CLIPPreprocessor``: prompts and images to a ``CLIPBackbone``'s inputs, KerasHub's own.

preprocessor = CLIPPreprocessor.from_preset("./clip_tiny")
x = preprocessor({"prompts": ["a photo of a cat"], "images": images})
x["token_ids"], x["padding_mask"], x["images"]            # packed ids and mask; resized, normalized images
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.clip.clip_backbone import CLIPBackbone
from tfkit.hub.models.clip.clip_image_converter import CLIPImageConverter
from tfkit.hub.models.clip.clip_tokenizer import CLIPTokenizer
from tfkit.hub.tokenizers import tensor_io
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight


def packed_prompts_and_images(preprocessor: Any, x: dict, sequence_length: int, prompts: Any) -> dict[str, Any]:
    """``{"token_ids", "padding_mask", "images"}``: ``prompts`` tokenized and packed, ``x["images"]`` converted
    (passed through without a converter, or when `None`): what CLIP's and SigLIP's preprocessors return."""
    token_ids, padding_mask = preprocessor._packed(prompts, sequence_length, preprocessor.add_end_token)
    images = x["images"]
    if images is not None and preprocessor.image_converter is not None:
        images = preprocessor.image_converter(images)
    return {"token_ids": token_ids, "padding_mask": padding_mask, "images": images}


@register_keras_serializable(package="keras_hub")
class CLIPPreprocessor(CausalLMPreprocessor):
    """CLIP preprocessor.

    It lowercases the prompts (`to_lower`), tokenizes them, adds the start
    and end tokens and pads to `sequence_length`, and runs the image
    converter on the images. Pair it with a `CLIPBackbone`, which takes
    `"images"` and `"token_ids"`.

    Args:
        tokenizer: A `CLIPTokenizer`.
        image_converter: A `CLIPImageConverter`, or `None` to pass the images
            through. Defaults to `None`.
        sequence_length: The length of the packed token ids. Defaults to `77`.
        add_start_token: Whether to start each sequence with the start token.
            Defaults to `True`.
        add_end_token: Whether to end each sequence with the end token.
            Defaults to `True`.
        to_lower: Whether to lowercase the prompts (ASCII letters). Defaults
            to `True`.
        **kwargs: Layer keyword arguments, such as `name`.

    Call arguments:
        x: A dict with `"prompts"` (a string, a list of strings or a string
            tensor) and `"images"` (an image, a batch of them, or `None`).
        y: Labels, passed through. Defaults to `None`.
        sample_weight: Sample weights, passed through. Defaults to `None`.
        sequence_length: Overrides `sequence_length` for this call.

    Returns:
        `{"token_ids", "padding_mask", "images"}`, packed with `y` and
        `sample_weight` as Keras packs them.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"a": 0, "c": 1, "t": 2, "a</w>": 3, "t</w>": 4, "ca": 5, "cat</w>": 6,
        ...     "<|startoftext|>": 7, "<|endoftext|>": 8}
        >>> tokenizer = keras_hub.models.CLIPTokenizer(vocabulary=vocab, merges=["c a", "ca t</w>"])
        >>> preprocessor = keras_hub.models.CLIPPreprocessor(tokenizer, sequence_length=5)
        >>> x = preprocessor({"prompts": ["A cat"], "images": np.ones((1, 4, 4, 3))})
        >>> x["token_ids"].numpy(), x["padding_mask"].numpy(), x["images"].shape
        (array([[7, 3, 6, 8, 0]], dtype=int32), array([[ True,  True,  True,  True, False]]), TensorShape([1, 4, 4, 3]))
    """

    backbone_cls = CLIPBackbone
    tokenizer_cls = CLIPTokenizer
    image_converter_cls = CLIPImageConverter

    def __init__(
        self,
        tokenizer: Any,
        image_converter: Any = None,
        sequence_length: int = 77,
        add_start_token: bool = True,
        add_end_token: bool = True,
        to_lower: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            tokenizer,
            sequence_length=sequence_length,
            add_start_token=add_start_token,
            add_end_token=add_end_token,
            **kwargs,
        )
        self.image_converter = image_converter
        self.to_lower = to_lower

    def call(self, x: Any, y: Any = None, sample_weight: Any = None, sequence_length: int | None = None) -> Any:
        prompts = x["prompts"]
        if self.to_lower:
            prompts = tf.strings.lower(tensor_io.string_input(prompts, self.name))
        x = packed_prompts_and_images(self, x, sequence_length or self.sequence_length, prompts)
        return pack_x_y_sample_weight(x, y, sample_weight)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["to_lower"] = self.to_lower
        return config
