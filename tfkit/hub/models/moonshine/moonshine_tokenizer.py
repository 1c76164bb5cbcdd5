"""``MoonshineTokenizer``: Moonshine's SentencePiece tokenizer, ``LlamaTokenizer`` for Moonshine presets."""

from __future__ import annotations

from tfkit.hub.models.llama.llama_tokenizer import LlamaTokenizer
from tfkit.hub.models.moonshine.moonshine_backbone import MoonshineBackbone
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MoonshineTokenizer(LlamaTokenizer):
    """Moonshine tokenizer layer based on `LlamaTokenizer`.

    A SentencePiece tokenizer with `"<s>"` (start) and `"</s>"` (end); the
    padding id is 0. Moonshine's 768 tokens reserved for future use are not
    in the vocabulary, as in KerasHub. Unlike KerasHub 0.32's (whose
    `backbone_cls` stays Llama's), `Tokenizer.from_preset` finds it for a
    Moonshine preset.

    Args:
        proto: A SentencePiece model: the path of a `.model` file or its
            serialized bytes. `None` waits for a preset's assets.
        **kwargs: `SentencePieceTokenizer` keyword arguments.

    Raises:
        ValueError: If the model lacks `"<s>"` or `"</s>"`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.MoonshineTokenizer, keras_hub.models.LlamaTokenizer)
        True
    """

    backbone_cls = MoonshineBackbone
