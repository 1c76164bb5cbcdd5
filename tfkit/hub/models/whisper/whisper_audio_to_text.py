"""``WhisperAudioToText``: Whisper speech recognition (and translation), with cached decoding.

    audio_to_text = WhisperAudioToText.from_preset("./whisper_tiny_en")
    audio_to_text.generate({"audio": np.zeros((1, 16000), "float32")})     # the transcript

KerasHub 0.32 has a Whisper backbone but no task: this one is ``Seq2SeqLM``'s
loop on it. The encoder runs once a batch; the decoder's self-attention keys
and values are written into a cache in place; the cross-attention's of the
encoder output are computed once, in the prompt pass.
"""

from __future__ import annotations

from typing import Any, ClassVar

from tfkit.hub.models.audio_to_text import AudioToText
from tfkit.hub.models.whisper.whisper_audio_to_text_preprocessor import WhisperAudioToTextPreprocessor
from tfkit.hub.models.whisper.whisper_backbone import WhisperBackbone
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class WhisperAudioToText(AudioToText):
    """An end-to-end Whisper model for audio-to-text tasks.

    A `WhisperBackbone` whose decoder's last hidden states go through the
    tied token embedding for next-token logits. `fit` takes
    `{"audio", "text"}` batches; `generate` takes `{"audio"}` and an optional
    `"text"` prompt, after the preprocessor's prefix (start of transcript,
    language, task, no timestamps).

    Args:
        backbone: A `WhisperBackbone`.
        preprocessor: A `WhisperAudioToTextPreprocessor`, or `None`. Defaults
            to `None`.
        **kwargs: `AudioToText` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.WhisperBackbone(vocabulary_size=20, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, num_mels=4, max_encoder_sequence_length=12,
        ...     max_decoder_sequence_length=6)
        >>> model = keras_hub.models.WhisperAudioToText(backbone)
        >>> model({"encoder_features": np.ones((1, 12, 4), "float32"),
        ...     "decoder_token_ids": np.ones((1, 5), "int32"), "decoder_padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 20])
    """

    backbone_cls = WhisperBackbone
    preprocessor_cls = WhisperAudioToTextPreprocessor
    encoder_inputs: ClassVar[tuple[str, ...]] = ("encoder_features",)

    def call_encoder(self, encoder_features: Any) -> Any:
        """The encoder's output for log-mel features `(batch, frames, num_mels)`.

        Args:
            encoder_features: The features.

        Returns:
            `(batch, frames // 2, hidden_dim)`.
        """
        return self.backbone.encode(encoder_features, training=False)

    def encode(self, inputs: dict[str, Any]) -> tuple[Any, Any]:
        return self.call_encoder(inputs["encoder_features"]), None  # every frame counts: no padding mask

    def embed_decoder(self, token_ids: Any, start_index: Any = 0) -> Any:
        return self.backbone.decoder_embeddings(token_ids, start_index=start_index)

    def decoder_final_norm(self) -> Any:
        return self.backbone.decoder_layer_norm
