"""``MelSpectrogram``: audio to a mel-scaled (decibel) spectrogram, Keras 3's preprocessing layer.

    mel = tfkit.layers.MelSpectrogram(fft_length=2048, sequence_stride=512, num_mel_bins=128)
    y = mel(audio)               # (batch, samples) -> (batch, 128, samples // 512 + 1); (samples,) -> (128, frames)
    tfkit.layers.MelSpectrogram(power_to_db=False)(audio)          # mel power, no decibels

The centred STFT (``tfkit.ops.signal.stft``: reflect padding, ``window``
``"hann"``/``"hamming"`` periodic, or values, or None) gives magnitudes,
raised to ``mag_exp``, projected on ``num_mel_bins`` triangular HTK mel
filters between ``min_freq`` and ``max_freq`` (default: Nyquist). With
``power_to_db`` the power becomes ``10 log10(max(p, min_power) / ref_power)``,
floored at ``top_db`` below the largest value of the *whole* batch, as
Keras does. Computed in float32 (float64 under a float64 policy); no weights.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.argument_validation import positive_int
from tfkit.engine.layer import Layer
from tfkit.ops import signal

__all__ = ["MelSpectrogram"]


@registry.builtin("layers")
class MelSpectrogram(Layer):
    """A preprocessing layer to convert raw audio signals to Mel spectrograms.

    This layer takes raw audio `(samples,)` or `(batch, samples)` and
    returns its mel spectrogram `(..., num_mel_bins, frames)`. A centered
    short-time Fourier transform (`tfkit.ops.signal.stft`, reflect padding)
    gives magnitudes, raised to `mag_exp`, which are projected on
    `num_mel_bins` triangular HTK mel filters between `min_freq` and
    `max_freq`. With `power_to_db`, the power becomes
    `10 * log10(max(p, min_power) / ref_power)`, floored at `top_db` below
    the largest value of the whole batch, as Keras does. It is computed in
    float32 (float64 under a float64 policy) and has no weights.

    Args:
        fft_length: Positive integer, the size of the FFT window (at least
            `sequence_length`). Defaults to `2048`.
        sequence_stride: Positive integer, the number of samples between
            successive STFT columns. Defaults to `512`.
        sequence_length: Positive integer, the size of the window used for
            each audio frame. If `None`, `fft_length` is used. Defaults to
            `None`.
        window: The windowing function to apply to each frame: `"hann"`,
            `"hamming"` (periodic), a list of `sequence_length` values, or
            `None` for no windowing. Defaults to `"hann"`.
        sampling_rate: The sample rate of the audio signal, in Hz. Defaults to
            `16000`.
        num_mel_bins: Positive integer, the number of mel bins to generate.
            Defaults to `128`.
        min_freq: Float, the minimum frequency of the mel bins, in Hz.
            Defaults to `20.0`.
        max_freq: Float, the maximum frequency of the mel bins, in Hz. If
            `None`, `sampling_rate / 2` (the Nyquist frequency) is used.
            Defaults to `None`.
        power_to_db: If `True`, convert the power spectrogram to decibels.
            Defaults to `True`.
        top_db: Float, the minimum negative cut-off `max(10 * log10(S)) -
            top_db` used with `power_to_db`. Defaults to `80.0`.
        mag_exp: Float, the exponent for the magnitude spectrogram: 1 for
            magnitude, 2 for power. Defaults to `2.0`.
        min_power: Float, the minimum value for the power and `ref_power`
            in the decibel conversion. Defaults to `1e-10`.
        ref_power: Float, the power to scale the decibels against:
            `10 * log10(S / ref_power)`. Defaults to `1.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A float tensor of raw audio samples.

    Input shape:
        1D (unbatched) or 2D (batched) tensor with shape `(..., samples)`.

    Output shape:
        2D (unbatched) or 3D (batched) tensor with shape
        `(..., num_mel_bins, samples // sequence_stride + 1)`.

    Raises:
        ValueError: If `fft_length`, `sequence_stride`, `sequence_length` or
            `num_mel_bins` is not a positive integer, `fft_length` is below
            `sequence_length`, `window` is an unknown name, or the
            frequencies do not satisfy
            `0 <= min_freq < max_freq <= sampling_rate / 2`.

    Example:
        >>> layer = tfkit.layers.MelSpectrogram(fft_length=256, sequence_stride=64, num_mel_bins=16)
        >>> audio = np.random.uniform(-1, 1, (2, 1024)).astype("float32")
        >>> layer(audio).shape
        TensorShape([2, 16, 17])
        >>> layer(audio[0]).shape
        TensorShape([16, 17])
    """

    def __init__(
        self,
        fft_length: int = 2048,
        sequence_stride: int = 512,
        sequence_length: int | None = None,
        window: Any = "hann",
        sampling_rate: int = 16000,
        num_mel_bins: int = 128,
        min_freq: float = 20.0,
        max_freq: float | None = None,
        power_to_db: bool = True,
        top_db: float = 80.0,
        mag_exp: float = 2.0,
        min_power: float = 1e-10,
        ref_power: float = 1.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        who = f"MelSpectrogram layer '{self.name}'"
        self.fft_length = positive_int(fft_length, "fft_length", who)
        self.sequence_stride = positive_int(sequence_stride, "sequence_stride", who)
        self.sequence_length = positive_int(sequence_length or fft_length, "sequence_length", who)
        if self.fft_length < self.sequence_length:
            raise ValueError(
                f"{who} expected `fft_length` to be at least `sequence_length`, got "
                f"sequence_length={self.sequence_length}, fft_length={self.fft_length}"
            )
        if isinstance(window, str) and window not in ("hann", "hamming"):
            raise ValueError(
                f"{who} expected `window` to be 'hann', 'hamming', None or a list of "
                f"sequence_length values, got {window!r}"
            )
        self.window = window if window is None or isinstance(window, str) else [float(w) for w in window]
        self.sampling_rate = sampling_rate
        self.num_mel_bins = positive_int(num_mel_bins, "num_mel_bins", who)
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        if not 0 <= self.min_freq < self.max_freq <= sampling_rate / 2:
            raise ValueError(
                f"{who} expected 0 <= min_freq < max_freq <= sampling_rate / 2 = {sampling_rate / 2}, "
                f"got min_freq={min_freq!r}, max_freq={self.max_freq!r}"
            )
        self.power_to_db, self.top_db, self.mag_exp = power_to_db, top_db, mag_exp
        self.min_power, self.ref_power = min_power, ref_power

    def _work_dtype(self) -> tf.DType:
        return tf.as_dtype(self.compute_dtype) if self.compute_dtype in ("float32", "float64") else tf.float32

    def call(self, inputs: Any) -> tf.Tensor:
        dtype = self._work_dtype()
        audio = tf.cast(inputs, dtype)
        real, imag = signal.stft(
            audio, self.sequence_length, self.sequence_stride, self.fft_length, window=self.window, center=True
        )
        spectrum = tf.pow(tf.sqrt(tf.square(real) + tf.square(imag)), tf.cast(self.mag_exp, dtype))
        mel = tf.tensordot(spectrum, self.mel_weights(spectrum.shape[-1], dtype), axes=1)
        if self.power_to_db:
            mel = self._decibels(mel)
        return tf.cast(tf.linalg.matrix_transpose(mel), self.compute_dtype)  # (..., num_mel_bins, frames)

    def mel_weights(self, num_spectrogram_bins: int, dtype: Any = tf.float32) -> tf.Tensor:
        """``(num_spectrogram_bins, num_mel_bins)`` triangular HTK filters (the DC bin stays zero)."""
        return tf.signal.linear_to_mel_weight_matrix(
            num_mel_bins=self.num_mel_bins,
            num_spectrogram_bins=num_spectrogram_bins,
            sample_rate=self.sampling_rate,
            lower_edge_hertz=self.min_freq,
            upper_edge_hertz=self.max_freq,
            dtype=dtype,
        )

    def _decibels(self, power: tf.Tensor) -> tf.Tensor:
        floor = tf.cast(self.min_power, power.dtype)
        decibels = 10.0 * _log10(tf.maximum(power, floor))
        reference = tf.abs(tf.cast(self.ref_power, power.dtype))
        decibels -= 10.0 * _log10(tf.maximum(reference, floor))
        return tf.maximum(decibels, tf.reduce_max(decibels) - tf.cast(self.top_db, power.dtype))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape = tuple(input_shape)
        samples = shape[-1]
        half = self.fft_length // 2
        frames = None if samples is None else (samples + 2 * half - self.fft_length) // self.sequence_stride + 1
        return (*shape[:-1], self.num_mel_bins, frames)

    def get_config(self) -> dict[str, Any]:
        return {
            **Layer.get_config(self),
            "fft_length": self.fft_length,
            "sequence_stride": self.sequence_stride,
            "sequence_length": self.sequence_length,
            "window": self.window,
            "sampling_rate": self.sampling_rate,
            "num_mel_bins": self.num_mel_bins,
            "min_freq": self.min_freq,
            "max_freq": self.max_freq,
            "power_to_db": self.power_to_db,
            "top_db": self.top_db,
            "mag_exp": self.mag_exp,
            "min_power": self.min_power,
            "ref_power": self.ref_power,
        }


def _log10(x: tf.Tensor) -> tf.Tensor:
    return tf.math.log(x) / tf.math.log(tf.constant(10.0, x.dtype))
