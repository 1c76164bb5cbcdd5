"""Fourier transforms and framing of ``keras.ops`` (its ``math`` family), with complex values as (real, imag) pairs.

    real, imag = tfkit.ops.rfft(signal)                              # over the last axis
    real, imag = tfkit.ops.stft(signal, 256, 128, 256)               # (..., frames, 129)
    back = tfkit.ops.istft((real, imag), 256, 128, 256, length=n)

Complex inputs and outputs are tuples of two float tensors of one shape, as in Keras.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.ops._convert import export, float_of, promote, tensor


def _complex(x: Any, op: str) -> tf.Tensor:
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f"{op}: x must be a tuple (real, imag) of two tensors, got {type(x).__name__}")
    real, imag = promote(float_of(tensor(x[0])), float_of(tensor(x[1])))
    if not real.shape.is_compatible_with(imag.shape) or real.shape.rank != imag.shape.rank:
        raise ValueError(f"{op}: the real and imaginary parts must have the same shape, got {tuple(real.shape)} "
                         f"and {tuple(imag.shape)}")
    if real.dtype not in (tf.float32, tf.float64):
        real, imag = tf.cast(real, tf.float32), tf.cast(imag, tf.float32)
    return tf.complex(real, imag)


def _rank_at_least(x: tf.Tensor, rank: int, op: str) -> None:
    if len(x.shape) < rank:
        raise ValueError(f"{op}: x must have rank >= {rank}, got shape {tuple(x.shape)}")


def _parts(z: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    return tf.math.real(z), tf.math.imag(z)


def _real(x: Any) -> tf.Tensor:
    x = float_of(tensor(x))
    return x if x.dtype in (tf.float32, tf.float64) else tf.cast(x, tf.float32)


def fft(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """The discrete Fourier transform over the last axis of ``x = (real, imag)``."""
    z = _complex(x, "fft")
    _rank_at_least(z, 1, "fft")
    return _parts(tf.signal.fft(z))


def fft2(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """The 2-D discrete Fourier transform over the last two axes of ``x = (real, imag)``."""
    z = _complex(x, "fft2")
    _rank_at_least(z, 2, "fft2")
    return _parts(tf.signal.fft2d(z))


def ifft2(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """The inverse of ``fft2``."""
    z = _complex(x, "ifft2")
    _rank_at_least(z, 2, "ifft2")
    return _parts(tf.signal.ifft2d(z))


def _length(fft_length: Any, op: str) -> list[int] | None:
    if fft_length is None:
        return None
    if not isinstance(fft_length, int) or fft_length < 1:
        raise ValueError(f"{op}: fft_length must be a positive int, got {fft_length!r}")
    return [fft_length]


def rfft(x: Any, fft_length: int | None = None) -> tuple[tf.Tensor, tf.Tensor]:
    """The ``fft_length // 2 + 1`` non-negative frequencies of the real signal ``x`` (last axis cropped or padded)."""
    x = _real(x)
    _rank_at_least(x, 1, "rfft")
    return _parts(tf.signal.rfft(x, fft_length=_length(fft_length, "rfft")))


def irfft(x: Any, fft_length: int | None = None) -> tf.Tensor:
    """The real signal whose ``rfft`` is ``x = (real, imag)``; ``fft_length`` defaults to ``2 * (n - 1)``."""
    z = _complex(x, "irfft")
    _rank_at_least(z, 1, "irfft")
    return tf.signal.irfft(z, fft_length=_length(fft_length, "irfft"))


def extract_sequences(x: Any, sequence_length: int, sequence_stride: int) -> tf.Tensor:
    """Frames of ``sequence_length`` every ``sequence_stride`` along the last axis: ``(..., frames, length)``."""
    x = tensor(x)
    _rank_at_least(x, 1, "extract_sequences")
    for name, value in (("sequence_length", sequence_length), ("sequence_stride", sequence_stride)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"extract_sequences: {name} must be a positive int, got {value!r}")
    return tf.signal.frame(x, sequence_length, sequence_stride, pad_end=False, axis=-1)


def _window(window: Any, sequence_length: int, fft_length: int, dtype: tf.DType, op: str) -> tf.Tensor | None:
    """The analysis window, zero-padded on both sides to ``fft_length`` (``None``: no window)."""
    if window is None:
        return None
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(f"{op}: window must be 'hann', 'hamming', a tensor or None, got {window!r}")
        make = tf.signal.hann_window if window == "hann" else tf.signal.hamming_window
        values = make(sequence_length, periodic=True, dtype=dtype)
    else:
        values = tf.cast(tensor(window), dtype)
        if values.shape.rank != 1 or values.shape[0] != sequence_length:
            raise ValueError(f"{op}: window must have shape ({sequence_length},) (sequence_length), "
                             f"got {tuple(values.shape)}")
    left = (fft_length - sequence_length) // 2
    return tf.pad(values, [[left, fft_length - sequence_length - left]])


def _check_frames(sequence_length: Any, sequence_stride: Any, fft_length: Any, op: str) -> None:
    for name, value in (("sequence_length", sequence_length), ("sequence_stride", sequence_stride),
                        ("fft_length", fft_length)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{op}: {name} must be a positive int, got {value!r}")
    if fft_length < sequence_length:
        raise ValueError(f"{op}: fft_length ({fft_length}) must be at least sequence_length ({sequence_length})")


def stft(x: Any, sequence_length: int, sequence_stride: int, fft_length: int, window: Any = "hann",
         center: bool = True) -> tuple[tf.Tensor, tf.Tensor]:
    """The short-time Fourier transform over the last axis: ``(real, imag)`` of shape ``(..., frames, fft_length // 2 + 1)``.

    ``center=True`` reflect-pads ``fft_length // 2`` samples on both sides so frame ``t`` is centred at
    ``t * sequence_stride``.
    """
    _check_frames(sequence_length, sequence_stride, fft_length, "stft")
    x = _real(x)
    _rank_at_least(x, 1, "stft")
    if center:
        half = fft_length // 2
        x = tf.pad(x, [[0, 0]] * (len(x.shape) - 1) + [[half, half]], mode="REFLECT")
    frames = tf.signal.frame(x, fft_length, sequence_stride, axis=-1)
    analysis = _window(window, sequence_length, fft_length, x.dtype, "stft")
    if analysis is not None:
        frames = frames * analysis
    return _parts(tf.signal.rfft(frames, fft_length=[fft_length]))


def istft(x: Any, sequence_length: int, sequence_stride: int, fft_length: int, length: int | None = None,
          window: Any = "hann", center: bool = True) -> tf.Tensor:
    """The signal whose ``stft`` (same arguments) is ``x = (real, imag)``, by windowed overlap-add.

    ``length`` crops (or zero-pads) the result to exactly that many samples.
    """
    _check_frames(sequence_length, sequence_stride, fft_length, "istft")
    z = _complex(x, "istft")
    _rank_at_least(z, 2, "istft")
    dtype = tf.math.real(z).dtype
    analysis = _window(window, sequence_length, fft_length, dtype, "istft")
    window_fn = None if analysis is None else tf.signal.inverse_stft_window_fn(
        sequence_stride, forward_window_fn=lambda frame_length, dtype: analysis)
    signal = tf.signal.inverse_stft(z, fft_length, sequence_stride, fft_length, window_fn=window_fn)
    start = fft_length // 2 if center else 0
    if length is not None:
        signal = signal[..., start:start + length]
        missing = length - tf.shape(signal)[-1]
        return tf.pad(signal, [[0, 0]] * (len(signal.shape) - 1) + [[0, missing]])
    return signal[..., start:-start] if center and start else signal


__all__ = ["fft", "fft2", "ifft2", "rfft", "irfft", "extract_sequences", "stft", "istft"]
export(globals(), __all__)
