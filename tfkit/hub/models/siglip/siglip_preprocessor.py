"""``SigLIPPreprocessor``: prompts and images to a ``SigLIPBackbone``'s inputs, KerasHub's own.

preprocessor = SigLIPPreprocessor.from_preset("./siglip_tiny")
x = preprocessor({"prompts": ["A photo of a cat!"], "images": images})
x["token_ids"]                                            # "a photo of a cat", end token, padded with it
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers import StartEndPacker
from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.clip.clip_preprocessor import packed_prompts_and_images
from tfkit.hub.models.siglip.siglip_backbone import SigLIPBackbone
from tfkit.hub.models.siglip.siglip_image_converter import SigLIPImageConverter
from tfkit.hub.models.siglip.siglip_tokenizer import SigLIPTokenizer
from tfkit.hub.tokenizers import tensor_io
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight

# ASCII punctuation, removed by SigLIP's canonicalization (as KerasHub's pattern lists it).
_PUNCTUATION = r"""!|\"|#|\$|%|&|\\|'|\(|\)|\*|\+|,|-|\.|/|:|;|<|=|>|\?|@|\[|\\|\]|\^|_|`|{|\||}|~"""


def canonicalize(prompts: tf.Tensor) -> tf.Tensor:
    """SigLIP's text canonicalization: lowercase (ASCII), ASCII punctuation removed, whitespace runs made one
    space, stripped.

    Args:
        prompts: A string tensor.

    Returns:
        The canonical strings, of the same shape.

    Example:
        >>> from tfkit.hub.models.siglip.siglip_preprocessor import canonicalize
        >>> canonicalize(tf.constant(["  A photo,  of a CAT! "])).numpy()
        array([b'a photo of a cat'], dtype=object)
    """
    prompts = tf.strings.lower(prompts)
    prompts = tf.strings.regex_replace(prompts, _PUNCTUATION, "")
    prompts = tf.strings.regex_replace(prompts, r"\s+", " ")
    return tf.strings.strip(prompts)


@register_keras_serializable(package="keras_hub")
class SigLIPPreprocessor(CausalLMPreprocessor):
    """SigLIP preprocessor.

    It canonicalizes the prompts (`canonicalize_text`), tokenizes them, adds
    the end token and pads with it to `sequence_length` (SigLIP's text
    encoder reads the last position), and runs the image converter on the
    images. Pair it with a `SigLIPBackbone`, which takes `"images"` and
    `"token_ids"`.

    Args:
        tokenizer: A `SigLIPTokenizer`.
        image_converter: A `SigLIPImageConverter`, or `None` to pass the
            images through. Defaults to `None`.
        sequence_length: The length of the packed token ids. Defaults to `64`.
        add_start_token: Whether to add a start token; SigLIP's tokenizer has
            none. Defaults to `False`.
        add_end_token: Whether to end each sequence with the end token.
            Defaults to `True`.
        canonicalize_text: Whether to lowercase the prompts and remove their
            punctuation and extra spaces first. Defaults to `True`.
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
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["a photo of a cat", "a photo of a dog"] * 5), model_writer=model,
        ...     vocab_size=8, model_type="word", pad_id=0, eos_id=1, unk_id=2, bos_id=-1, minloglevel=2)
        >>> tokenizer = keras_hub.models.SigLIPTokenizer(proto=model.getvalue())
        >>> preprocessor = keras_hub.models.SigLIPPreprocessor(tokenizer, sequence_length=5)
        >>> x = preprocessor({"prompts": ["A cat!"], "images": np.ones((1, 4, 4, 3))})
        >>> tokenizer.detokenize(x["token_ids"]), x["padding_mask"].numpy()
        (['a cat'], array([[ True,  True,  True, False, False]]))
    """

    backbone_cls = SigLIPBackbone
    tokenizer_cls = SigLIPTokenizer
    image_converter_cls = SigLIPImageConverter

    def __init__(
        self,
        tokenizer: Any,
        image_converter: Any = None,
        sequence_length: int = 64,
        add_start_token: bool = False,
        add_end_token: bool = True,
        canonicalize_text: bool = True,
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
        self.canonicalize_text = bool(canonicalize_text)

    def _make_packer(self) -> None:
        self.packer = StartEndPacker(
            end_value=self.tokenizer.end_token_id,
            pad_value=self.tokenizer.pad_token_id,
            sequence_length=self.sequence_length,
            return_padding_mask=True,
        )

    def call(self, x: Any, y: Any = None, sample_weight: Any = None, sequence_length: int | None = None) -> Any:
        prompts = x["prompts"]
        if self.canonicalize_text:
            prompts = canonicalize(tensor_io.string_input(prompts, self.name))
        x = packed_prompts_and_images(self, x, sequence_length or self.sequence_length, prompts)
        return pack_x_y_sample_weight(x, y, sample_weight)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["canonicalize_text"] = self.canonicalize_text
        return config
