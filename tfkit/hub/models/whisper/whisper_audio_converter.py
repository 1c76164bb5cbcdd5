"""``WhisperAudioConverter``: raw 16 kHz audio to Whisper's log-mel spectrogram, in TensorFlow ops.

    converter = WhisperAudioConverter()                       # 80 mels, 25 ms windows every 10 ms, 30 s chunks
    features = converter(np.zeros((2, 8000), "float32"))      # (2, 3000, 80): padded with silence to 30 s

The audio is padded (or cut) to ``max_audio_length`` seconds, reflected at
both ends by half a window, and cut in Hann-windowed frames
(``tf.signal.stft``, the last frame dropped as Whisper drops it); the power
spectrum goes through Slaney-style mel filters, then ``log10``, a floor 8
below each clip's maximum, and ``(x + 4) / 4``. The filter bank is a NumPy
constant made once per layer.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.hub.layers.audio_converter import AudioConverter
from tfkit.hub.models.whisper.whisper_backbone import WhisperBackbone
from tfkit.saving import register_keras_serializable

_TOP_HZ = 8000.0  # Whisper's filters span 0 to 8 kHz whatever the sampling rate (KerasHub's and OpenAI's)
_LINEAR_HZ_PER_MEL = 200.0 / 3  # Slaney's scale: linear up to 1 kHz ...
_LOG_START_HZ = 1000.0
_LOG_STEP = math.log(6.4) / 27.0  # ... then logarithmic, 27 mels per factor 6.4


def _hz_to_mel(hz: float) -> float:
    if hz < _LOG_START_HZ:
        return hz / _LINEAR_HZ_PER_MEL
    return _LOG_START_HZ / _LINEAR_HZ_PER_MEL + math.log(hz / _LOG_START_HZ) / _LOG_STEP


def _mel_to_hz(mels: np.ndarray) -> np.ndarray:
    start = _LOG_START_HZ / _LINEAR_HZ_PER_MEL
    linear = mels * _LINEAR_HZ_PER_MEL
    logarithmic = _LOG_START_HZ * np.exp(_LOG_STEP * (mels - start))
    return np.where(mels >= start, logarithmic, linear)


def mel_filter_bank(num_mels: int, num_fft_bins: int, sampling_rate: int) -> np.ndarray:
    """Slaney-normalized triangular mel filters, `(num_fft_bins // 2 + 1, num_mels)` float32.

    Args:
        num_mels: The number of mel bands.
        num_fft_bins: The FFT size.
        sampling_rate: The audio's sampling rate, in Hz.

    Returns:
        The filter bank, to multiply a power spectrum `(..., bins)` by.
    """
    bin_hz = np.fft.rfftfreq(n=num_fft_bins, d=1.0 / sampling_rate)
    edges_hz = _mel_to_hz(np.linspace(0.0, _hz_to_mel(_TOP_HZ), num_mels + 2))
    widths = np.diff(edges_hz)
    distances = edges_hz[:, None] - bin_hz[None, :]  # (num_mels + 2, bins)
    rising = -distances[:-2] / widths[:-1, None]
    falling = distances[2:] / widths[1:, None]
    triangles = np.maximum(0.0, np.minimum(rising, falling))
    triangles *= (2.0 / (edges_hz[2:] - edges_hz[:-2]))[:, None]  # equal area: constant energy per band
    return np.ascontiguousarray(triangles.T).astype("float32")


@register_keras_serializable(package="keras_hub")
class WhisperAudioConverter(AudioConverter):
    """Whisper audio converter layer.

    Computes the log-mel spectrogram features of each audio clip: the
    inputs of `WhisperBackbone`'s encoder. Clips are padded with zeros (or
    cut) to `max_audio_length * sampling_rate` samples first, so every clip
    gives `max_audio_length * sampling_rate / stride` frames.

    Args:
        num_mels: int. The number of mel-frequency filters. Defaults to `80`.
        num_fft_bins: int. The size of the Fourier transform (and of the
            window) of the STFT. Defaults to `400`.
        stride: int. The distance between neighbouring frames of the STFT.
            Defaults to `160`.
        sampling_rate: int. The sampling rate of the audio. Defaults to
            `16000`.
        max_audio_length: int. The length of each audio chunk, in seconds.
            Defaults to `30`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        audio: One clip `(num_samples,)`, a batch `(batch_size, num_samples)`,
            or a ragged batch (a list of clips of different lengths).

    Returns:
        The features, `(num_frames, num_mels)` for one clip or
        `(batch_size, num_frames, num_mels)` for a batch.

    Example:
        >>> from tfkit.hub.models.whisper.whisper_audio_converter import WhisperAudioConverter
        >>> converter = WhisperAudioConverter(num_mels=8, max_audio_length=1)
        >>> converter(np.ones((2, 4000), "float32")).shape
        TensorShape([2, 100, 8])
        >>> converter([np.ones(4000, "float32"), np.ones(9000, "float32")]).shape
        TensorShape([2, 100, 8])
    """

    backbone_cls = WhisperBackbone

    def __init__(
        self,
        num_mels: int = 80,
        num_fft_bins: int = 400,
        stride: int = 160,
        sampling_rate: int = 16000,
        max_audio_length: int = 30,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_mels = num_mels
        self.num_fft_bins = num_fft_bins
        self.stride = stride
        self.sampling_rate = sampling_rate
        self.max_audio_length = max_audio_length
        self.num_samples = sampling_rate * max_audio_length
        self.mel_filters = mel_filter_bank(num_mels, num_fft_bins, sampling_rate)

    def audio_shape(self) -> tuple:
        """Returns the preprocessed size of a single audio sample (KerasHub's `(max_audio_length, num_mels)`)."""
        return (self.max_audio_length, self.num_mels)

    def _fixed_length(self, audio: Any) -> tf.Tensor:
        """`(batch, num_samples)` in the compute dtype: each clip cut or padded with zeros at its end."""
        if isinstance(audio, tf.RaggedTensor):
            return tf.cast(audio.to_tensor(shape=[None, self.num_samples]), self.compute_dtype)
        audio = tf.cast(audio[:, : self.num_samples], self.compute_dtype)
        return tf.pad(audio, [[0, 0], [0, self.num_samples - tf.shape(audio)[1]]])

    def log_mel_spectrogram(self, audio: tf.Tensor) -> tf.Tensor:
        """Whisper's features of `(batch, num_samples)` audio: `(batch, num_samples // stride, num_mels)`."""
        half_window = self.num_fft_bins // 2
        audio = tf.pad(audio, [[0, 0], [half_window, half_window]], mode="REFLECT")  # centred frames
        spectrum = tf.signal.stft(
            audio, frame_length=self.num_fft_bins, frame_step=self.stride, fft_length=self.num_fft_bins
        )
        power = tf.square(tf.abs(spectrum[:, :-1, :]))
        mel = tf.matmul(power, tf.constant(self.mel_filters, dtype=power.dtype))
        log_mel = tf.math.log(tf.maximum(mel, 1e-10)) / tf.math.log(tf.constant(10.0, mel.dtype))
        floor = tf.reduce_max(log_mel, axis=[1, 2], keepdims=True) - 8.0  # 80 dB of range below each clip's peak
        return (tf.maximum(log_mel, floor) + 4.0) / 4.0

    def call(self, audio: Any) -> tf.Tensor:
        one_clip = audio.shape.rank == 1
        if one_clip:
            audio = audio[tf.newaxis]
        features = self.log_mel_spectrogram(self._fixed_length(audio))
        return features[0] if one_clip else features

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            num_mels=self.num_mels,
            num_fft_bins=self.num_fft_bins,
            stride=self.stride,
            sampling_rate=self.sampling_rate,
            max_audio_length=self.max_audio_length,
        )
        return config
