"""``AudioToText``: a speech-to-text encoder-decoder (``Seq2SeqLM``), its decoding loop shared with text models.

    audio_to_text = tfkit.hub.models.AudioToText.from_preset("./moonshine_tiny")     # MoonshineAudioToText
    audio_to_text.generate({"audio": audio})                                          # the transcripts
    audio_to_text.generate(clip)                                  # one rank-1 clip in, one string out
    audio_to_text.generate({"audio": audio, "text": "the"})                          # continuing a prompt

An audio backbone's ``"decoder_sequence_output"`` is already normalized (its
final norm is part of the backbone), so the model's logits are the tied
projection of it (``Seq2SeqLM.decoder_logits``); the cached decoding loop
applies the final norm the family names in ``Seq2SeqLM``'s
``decoder_final_norm`` hook, which an ``AudioToText`` must declare.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.hub.models.seq_2_seq_lm import Seq2SeqLM
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class AudioToText(Seq2SeqLM):
    """Base class for audio-to-text models.

    An `AudioToText` task wraps an encoder-decoder backbone that reads audio
    (and text for its decoder) and an `AudioToTextPreprocessor`: speech
    recognition, or translation of speech. `fit` takes
    `{"audio", "text"}` batches (the text the target transcript);
    `generate` takes `{"audio"}` (with an optional `"text"` prompt) and
    returns the decoded text, with the sampler chosen in `compile`. Called
    on this base class, `from_preset` returns the family's own
    (`MoonshineAudioToText`).

    Args:
        backbone: The family's backbone, whose outputs hold a normalized
            `"decoder_sequence_output"`.
        preprocessor: The family's `AudioToTextPreprocessor`, or `None` (the
            model then takes the backbone's inputs). Defaults to `None`.
        **kwargs: `Seq2SeqLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.AudioToText, keras_hub.models.Seq2SeqLM)
        True
    """

    def decoder_final_norm(self) -> Any:
        """The decoder's final norm layer (a hook every audio family declares: its backbone's output is normalized).

        Returns:
            The layer.

        Raises:
            NotImplementedError: Where the family does not declare it.
        """
        raise NotImplementedError(f"{type(self).__name__} must define decoder_final_norm")

    def _one_example(self, inputs: Any) -> bool:
        """One clip: a rank-1 array of samples (alone, or as the `"audio"` of a dict); its output is one string."""
        key = getattr(self.preprocessor, "encoder_text_key", "audio")
        audio = inputs.get(key) if isinstance(inputs, dict) else inputs
        if tf.is_tensor(audio):
            return audio.shape.rank == 1
        try:
            return np.ndim(audio) == 1
        except ValueError:  # a ragged list of clips
            return False

    def _as_batch(self, inputs: Any) -> Any:
        """One clip (and its optional prompt) as a batch of one."""
        key = getattr(self.preprocessor, "encoder_text_key", "audio")
        if not isinstance(inputs, dict):
            return tf.convert_to_tensor(inputs)[None]
        batched = {name: [value] if isinstance(value, (str, bytes)) else value for name, value in inputs.items()}
        batched[key] = tf.convert_to_tensor(inputs[key])[None]
        return batched
