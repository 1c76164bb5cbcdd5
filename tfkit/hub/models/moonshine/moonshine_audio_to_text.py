"""``MoonshineAudioToText``: Moonshine speech recognition, with cached greedy (or sampled) decoding.

    audio_to_text = MoonshineAudioToText.from_preset("./moonshine_tiny")
    audio_to_text.generate({"audio": np.zeros((1, 16000), "float32")})     # the transcript

The encoder runs once per batch; the decoder's self-attention keys and values
are written into a cache in place, and the cross-attention's keys and values
of the encoder output are computed once, in the prompt pass.
"""

from __future__ import annotations

from typing import Any, ClassVar

import tensorflow as tf

from tfkit.hub.layers.kv_cache import join_cache, join_layer_caches, layer_cache
from tfkit.hub.models.audio_to_text import AudioToText
from tfkit.hub.models.moonshine.moonshine_audio_to_text_preprocessor import MoonshineAudioToTextPreprocessor
from tfkit.hub.models.moonshine.moonshine_backbone import MoonshineBackbone
from tfkit.hub.models.moonshine.moonshine_blocks import _head_dim
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MoonshineAudioToText(AudioToText):
    """An end-to-end Moonshine model for audio-to-text tasks.

    A `MoonshineBackbone` whose decoder's last hidden states go through the
    tied token embedding for next-token logits. `fit` takes
    `{"audio", "text"}` batches; `generate` takes `{"audio"}` and an optional
    `"text"` prompt. KerasHub's `call_encoder` and `call_decoder_with_cache`
    are here too.

    Args:
        backbone: A `MoonshineBackbone`.
        preprocessor: A `MoonshineAudioToTextPreprocessor`, or `None`.
            Defaults to `None`.
        **kwargs: `AudioToText` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.MoonshineBackbone(vocabulary_size=20, filter_dim=8, encoder_num_layers=1,
        ...     decoder_num_layers=1, hidden_dim=8, intermediate_dim=16, encoder_num_heads=2, decoder_num_heads=2)
        >>> model = keras_hub.models.MoonshineAudioToText(backbone)
        >>> logits = model({"encoder_input_values": np.ones((1, 1600, 1), "float32"),
        ...     "encoder_padding_mask": np.ones((1, 1600), bool), "decoder_token_ids": np.ones((1, 4), "int32"),
        ...     "decoder_padding_mask": np.ones((1, 4), bool)})
        >>> logits.shape
        TensorShape([1, 4, 20])
    """

    backbone_cls = MoonshineBackbone
    preprocessor_cls = MoonshineAudioToTextPreprocessor
    encoder_inputs: ClassVar[tuple[str, ...]] = ("encoder_input_values", "encoder_padding_mask")

    def call_encoder(self, encoder_input_values: Any, padding_mask: Any) -> tuple[Any, Any]:
        """The encoder's output and which of its frames hold audio.

        Args:
            encoder_input_values: Samples `(batch, samples, 1)`.
            padding_mask: `(batch, samples)`.

        Returns:
            `(encoder_hidden_states, frames_mask)`.
        """
        return self.backbone.encode(encoder_input_values, padding_mask, training=False)

    def encode(self, inputs: dict[str, Any]) -> tuple[Any, Any]:
        return self.call_encoder(inputs["encoder_input_values"], inputs["encoder_padding_mask"])

    def decoder_blocks(self) -> list[Any]:
        return list(self.backbone.decoder_blocks)

    def decoder_final_norm(self) -> Any:
        return self.backbone.decoder_post_norm

    def key_value_heads(self) -> tuple[int, int]:
        backbone = self.backbone
        heads = backbone.decoder_num_heads
        return heads, _head_dim(backbone.hidden_dim, heads, backbone.pad_head_dim_to_multiple_of)

    def call_decoder_with_cache(
        self,
        encoder_hidden_states: Any,
        encoder_padding_mask: Any,
        decoder_token_ids: Any,
        self_attention_cache: Any = None,
        self_attention_cache_update_index: Any = None,
        cross_attention_cache: Any = None,
        cross_attention_cache_update_index: Any = None,
    ) -> tuple[Any, Any, Any, Any]:
        """One decoder pass writing the self-attention cache, reading (or, with index `0`, first filling) the
        cross-attention cache; `Seq2SeqLM.call_decoder_with_cache`'s contract, with Moonshine's rotary angles.

        Returns:
            `(logits, hidden_states, self_attention_cache, cross_attention_cache)`.
        """
        start = 0 if self_attention_cache_update_index is None else self_attention_cache_update_index
        positions = start + tf.range(tf.shape(decoder_token_ids)[1], dtype=tf.int32)
        angles = self.backbone.decoder_rotary_embedding(positions)
        x = self.backbone.token_embedding(decoder_token_ids)
        self_caches, cross_caches = [], []
        for i, block in enumerate(self.decoder_blocks()):
            cross_cache = layer_cache(cross_attention_cache, i)
            if cross_attention_cache_update_index is not None:  # the encoder output's keys and values, once
                attention = block.cross_attention
                keys = attention._key_dense(encoder_hidden_states)
                values = attention._value_dense(encoder_hidden_states)
                cross_cache = join_cache(keys, values, like=cross_cache)
            x, self_cache = block(
                decoder_sequence=x,
                encoder_sequence=encoder_hidden_states,
                rotary_embedding=angles,
                encoder_padding_mask=encoder_padding_mask,
                self_attention_cache=layer_cache(self_attention_cache, i),
                self_attention_cache_update_index=start,
                cross_attention_cache=cross_cache,
                training=False,
            )
            self_caches.append(self_cache)
            cross_caches.append(cross_cache)
        logits, hidden_states = self.decoder_logits(self.final_decoder_states(x))
        if cross_attention_cache_update_index is not None:
            cross_attention_cache = join_layer_caches(cross_caches, like=cross_attention_cache)
        return logits, hidden_states, join_layer_caches(self_caches, like=self_attention_cache), cross_attention_cache
