"""``MoonshineAudioConverter``: raw mono audio to Moonshine's inputs (padded samples, optionally normalized).

    converter = MoonshineAudioConverter()
    samples = converter(audio, padding="longest", pad_to_multiple_of=64)     # (batch, samples, 1)

Moonshine reads raw samples (its convolutions make the features), so the
converter only shapes them: a channel axis, padding (to the longest clip, or
to ``max_length``, cutting longer clips), and with ``do_normalize`` each clip
scaled to zero mean and unit variance.
"""

from __future__ import annotations

import warnings
from typing import Any

import tensorflow as tf

from tfkit.hub.layers.audio_converter import AudioConverter
from tfkit.hub.models.moonshine.moonshine_backbone import MoonshineBackbone
from tfkit.saving import register_keras_serializable

_SHORTEST_SECONDS, _LONGEST_SECONDS = 0.1, 64.0


def _round_up(length: Any, multiple: int | None) -> Any:
    return length if not multiple else (length + multiple - 1) // multiple * multiple


@register_keras_serializable(package="keras_hub")
class MoonshineAudioConverter(AudioConverter):
    """Moonshine audio converter layer: raw samples `(batch, samples)` to `(batch, samples, 1)`.

    Clips shorter than 0.1 s or longer than 64 s give a warning (Moonshine
    was trained on segments between them).

    Args:
        sampling_rate: int. The sampling rate of the audio. Defaults to
            `16000`.
        padding_value: float. The value padding samples take. Defaults to
            `0.0`.
        do_normalize: bool. Whether each clip is normalized to zero mean and
            unit variance. Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Audio `(batch, samples)` or `(batch, samples, 1)`.
        sampling_rate: Optional; if given it must equal the layer's.
        padding: `None` (the default), `"longest"` or `"max_length"`.
        max_length: The length `padding="max_length"` pads or cuts to.
        pad_to_multiple_of: Optional int the padded length is rounded up to.

    Returns:
        The samples, `(batch, length, 1)` in the compute dtype.

    Raises:
        ValueError: If `sampling_rate` differs from the layer's, or the audio
            is not mono `(batch, samples[, 1])`.

    Example:
        >>> from tfkit.hub.models.moonshine.moonshine_audio_converter import MoonshineAudioConverter
        >>> converter = MoonshineAudioConverter()
        >>> converter(np.ones((2, 2000), "float32"), padding="longest", pad_to_multiple_of=640).shape
        TensorShape([2, 2560, 1])
    """

    backbone_cls = MoonshineBackbone

    def __init__(
        self, sampling_rate: int = 16000, padding_value: float = 0.0, do_normalize: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.sampling_rate = sampling_rate
        self.padding_value = padding_value
        self.do_normalize = do_normalize

    def _warn_on_duration(self, length: tf.Tensor) -> None:
        seconds = tf.cast(length, tf.float32) / self.sampling_rate
        invalid = tf.logical_or(seconds < _SHORTEST_SECONDS, seconds > _LONGEST_SECONDS)
        if tf.executing_eagerly() and bool(invalid):
            warnings.warn(
                "Audio duration must be between 0.1 and 64 seconds. For transcribing longer segments, pre-segment "
                "your audio and provide shorter segments.",
                stacklevel=3,
            )

    def call(
        self,
        inputs: Any,
        sampling_rate: int | None = None,
        padding: str | None = None,
        max_length: int | None = None,
        pad_to_multiple_of: int | None = None,
    ) -> tf.Tensor:
        who = f"MoonshineAudioConverter layer '{self.name}'"
        if sampling_rate is not None and sampling_rate != self.sampling_rate:
            raise ValueError(f"{who}: expected sampling_rate {self.sampling_rate}, got {sampling_rate}")
        if isinstance(inputs, tf.RaggedTensor):
            inputs = inputs.to_tensor(default_value=self.padding_value)
        if inputs.shape.rank == 2:
            inputs = inputs[..., tf.newaxis]
        elif inputs.shape.rank != 3:
            raise ValueError(f"{who}: inputs must be mono audio: (batch_size, time_steps, 1), got {inputs.shape}")
        audio = tf.cast(inputs, self.compute_dtype)
        length = tf.shape(audio)[1]
        self._warn_on_duration(length)
        target = None
        if padding == "longest":
            target = _round_up(length, pad_to_multiple_of)
        elif padding == "max_length" and max_length is not None:
            target = _round_up(max_length, pad_to_multiple_of)
            audio = audio[:, :target]
        if target is not None:
            extra = tf.maximum(target - tf.shape(audio)[1], 0)
            audio = tf.pad(audio, [[0, 0], [0, extra], [0, 0]], constant_values=float(self.padding_value))
        if self.do_normalize:
            mean, variance = tf.nn.moments(audio, axes=[1], keepdims=True)
            audio = (audio - mean) / tf.sqrt(variance + 1e-7)
        return audio

    def compute_output_shape(self, input_shape: Any) -> tuple:
        if len(input_shape) not in (2, 3):
            raise ValueError("Input shape must be rank 2 or 3.")
        return (input_shape[0], None, 1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            sampling_rate=self.sampling_rate, padding_value=self.padding_value, do_normalize=self.do_normalize
        )
        return config
