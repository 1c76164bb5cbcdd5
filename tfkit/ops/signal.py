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
        raise ValueError(
            f"{op}: the real and imaginary parts must have the same shape, got {tuple(real.shape)} "
            f"and {tuple(imag.shape)}"
        )
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
    """Computes the Fast Fourier Transform along last axis of input.

    Complex values are passed as `(real, imag)` tuples of float tensors, as in
    Keras.

    Args:
        x: Tuple of the real and imaginary parts of the input tensor. Both
            tensors in the tuple should be of floating type (integers are read
            as float32) and have the same shape.

    Returns:
        A tuple containing two tensors - the real and imaginary parts of the
        output tensor.

    Raises:
        ValueError: If `x` is not a tuple of two tensors of the same shape, or
            if they are scalars.

    Example:
        >>> x = (np.array([1.0, 2.0, 3.0, 4.0]), np.zeros(4))
        >>> real, imag = tfkit.ops.fft(x)
        >>> real.numpy(), imag.numpy()
        (array([10., -2., -2., -2.], dtype=float32), array([ 0.,  2.,  0., -2.], dtype=float32))
    """
    z = _complex(x, "fft")
    _rank_at_least(z, 1, "fft")
    return _parts(tf.signal.fft(z))


def fft2(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """Computes the 2D Fast Fourier Transform along the last two axes of input.

    Args:
        x: Tuple of the real and imaginary parts of the input tensor. Both
            tensors in the tuple should be of floating type (integers are read
            as float32) and have the same shape.

    Returns:
        A tuple containing two tensors - the real and imaginary parts of the
        output.

    Raises:
        ValueError: If `x` is not a tuple of two tensors of the same shape, or
            if they have rank below 2.

    Example:
        >>> x = (np.array([[1.0, 2.0], [3.0, 4.0]]), np.zeros((2, 2)))
        >>> real, imag = tfkit.ops.fft2(x)
        >>> real.numpy()
        array([[10., -2.],
               [-4.,  0.]], dtype=float32)
        >>> imag.numpy()
        array([[0., 0.],
               [0., 0.]], dtype=float32)
    """
    z = _complex(x, "fft2")
    _rank_at_least(z, 2, "fft2")
    return _parts(tf.signal.fft2d(z))


def ifft2(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """Computes the 2D Inverse Fast Fourier Transform along the last two axes of input.

    It is the inverse of `fft2`.

    Args:
        x: Tuple of the real and imaginary parts of the input tensor. Both
            tensors in the tuple should be of floating type (integers are read
            as float32) and have the same shape.

    Returns:
        A tuple containing two tensors - the real and imaginary parts of the
        output.

    Raises:
        ValueError: If `x` is not a tuple of two tensors of the same shape, or
            if they have rank below 2.

    Example:
        >>> x = (np.array([[10.0, -2.0], [-4.0, 0.0]]), np.zeros((2, 2)))
        >>> real, imag = tfkit.ops.ifft2(x)
        >>> real.numpy()
        array([[1., 2.],
               [3., 4.]], dtype=float32)
    """
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
    """Real-valued Fast Fourier Transform along the last axis of the input.

    Computes the 1D Discrete Fourier Transform of a real-valued signal over the
    inner-most dimension of input.

    Since the Discrete Fourier Transform of a real-valued signal is
    Hermitian-symmetric, RFFT only returns the `fft_length / 2 + 1` unique
    components of the FFT: the zero-frequency term, followed by the
    `fft_length / 2` positive-frequency terms.

    Along the axis RFFT is computed on, if `fft_length` is smaller than the
    corresponding dimension of the input, the dimension is cropped. If it is
    larger, the dimension is padded with zeros.

    Args:
        x: Input tensor. Integer inputs are read as float32.
        fft_length: An integer representing the number of the fft length. If not
            specified, it is inferred from the length of the last axis of `x`.
            Defaults to `None`.

    Returns:
        A tuple containing two tensors - the real and imaginary parts of the
        output.

    Raises:
        ValueError: If `x` is a scalar, or if `fft_length` is not a positive
            int.

    Example:
        >>> x = np.array([1.0, 2.0, 3.0, 4.0])
        >>> real, imag = tfkit.ops.rfft(x)
        >>> real.numpy(), imag.numpy()
        (array([10., -2., -2.], dtype=float32), array([0., 2., 0.], dtype=float32))
        >>> real, imag = tfkit.ops.rfft(x, fft_length=2)
        >>> real.numpy()
        array([ 3., -1.], dtype=float32)
    """
    x = _real(x)
    _rank_at_least(x, 1, "rfft")
    return _parts(tf.signal.rfft(x, fft_length=_length(fft_length, "rfft")))


def irfft(x: Any, fft_length: int | None = None) -> tf.Tensor:
    """Inverse real-valued Fast Fourier transform along the last axis.

    Computes the inverse 1D Discrete Fourier Transform of a real-valued signal
    over the inner-most dimension of input.

    The inner-most dimension of the input is assumed to be the result of RFFT:
    the `fft_length / 2 + 1` unique components of the DFT of a real-valued
    signal. If `fft_length` is not provided, it is computed from the size of the
    inner-most dimension of the input `(fft_length = 2 * (inner - 1))`. If the
    FFT length used to compute is odd, it should be provided since it cannot
    be inferred properly.

    Along the axis IRFFT is computed on, if `fft_length / 2 + 1` is smaller than
    the corresponding dimension of the input, the dimension is cropped. If it is
    larger, the dimension is padded with zeros.

    Args:
        x: Tuple of the real and imaginary parts of the input tensor. Both
            tensors in the tuple should be of floating type (integers are read
            as float32) and have the same shape.
        fft_length: An integer representing the number of the fft length. If not
            specified, it is inferred from the length of the last axis of `x`.
            Defaults to `None`.

    Returns:
        A tensor containing the inverse real-valued Fast Fourier Transform
        along the last axis of `x`.

    Raises:
        ValueError: If `x` is not a tuple of two tensors of the same shape, or
            if they are scalars, or if `fft_length` is not a positive int.

    Example:
        >>> spectrum = tfkit.ops.rfft(np.array([1.0, 2.0, 3.0, 4.0]))
        >>> tfkit.ops.irfft(spectrum).numpy()
        array([1., 2., 3., 4.], dtype=float32)
    """
    z = _complex(x, "irfft")
    _rank_at_least(z, 1, "irfft")
    return tf.signal.irfft(z, fft_length=_length(fft_length, "irfft"))


def extract_sequences(x: Any, sequence_length: int, sequence_stride: int) -> tf.Tensor:
    """Expands the dimension of last axis into sequences of `sequence_length`.

    Slides a window of size `sequence_length` over the last axis of the input
    with a stride of `sequence_stride`, replacing the last axis with
    `[num_sequences, sequence_length]` sequences.

    If the dimension along the last axis is N, the number of sequences can be
    computed by:

    `num_sequences = 1 + (N - sequence_length) // sequence_stride`

    Args:
        x: Input tensor.
        sequence_length: An integer representing the sequences length.
        sequence_stride: An integer representing the sequences hop size.

    Returns:
        A tensor of sequences with shape `[..., num_sequences, sequence_length]`.

    Raises:
        ValueError: If `x` is a scalar, or if `sequence_length` or
            `sequence_stride` is not a positive int.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([1, 2, 3, 4, 5, 6])
        >>> tfkit.ops.extract_sequences(x, 3, 2).numpy()
        array([[1, 2, 3],
               [3, 4, 5]], dtype=int32)
    """
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
            raise ValueError(
                f"{op}: window must have shape ({sequence_length},) (sequence_length), got {tuple(values.shape)}"
            )
    left = (fft_length - sequence_length) // 2
    return tf.pad(values, [[left, fft_length - sequence_length - left]])


def _check_frames(sequence_length: Any, sequence_stride: Any, fft_length: Any, op: str) -> None:
    for name, value in (
        ("sequence_length", sequence_length),
        ("sequence_stride", sequence_stride),
        ("fft_length", fft_length),
    ):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{op}: {name} must be a positive int, got {value!r}")
    if fft_length < sequence_length:
        raise ValueError(f"{op}: fft_length ({fft_length}) must be at least sequence_length ({sequence_length})")


def stft(
    x: Any, sequence_length: int, sequence_stride: int, fft_length: int, window: Any = "hann", center: bool = True
) -> tuple[tf.Tensor, tf.Tensor]:
    """Short-Time Fourier Transform along the last axis of the input.

    The STFT computes the Fourier transform of short overlapping windows of the
    input. This giving frequency components of the signal as they change over
    time. The frames are `fft_length` samples long; a window shorter than that
    is zero-padded on both sides.

    Args:
        x: Input tensor. Integer inputs are read as float32.
        sequence_length: An integer representing the sequence length.
        sequence_stride: An integer representing the sequence hop size.
        fft_length: An integer representing the size of the FFT to apply, at
            least `sequence_length`.
        window: A string, a tensor of the window or `None`. If `window` is a
            string, available values are `"hann"` and `"hamming"`. If `window`
            is a tensor, it will be used directly as the window and its length
            must be `sequence_length`. If `window` is `None`, no windowing is
            used. Defaults to `"hann"`.
        center: Whether to pad `x` on both sides so that the t-th sequence is
            centered at time `t * sequence_stride`. Otherwise, the t-th sequence
            begins at time `t * sequence_stride`. The padding reflects
            `fft_length // 2` samples. Defaults to `True`.

    Returns:
        A tuple containing two tensors - the real and imaginary parts of the
        STFT output, of shape `(..., num_sequences, fft_length // 2 + 1)`.

    Raises:
        ValueError: If `sequence_length`, `sequence_stride` or `fft_length` is
            not a positive int, if `fft_length < sequence_length`, or if
            `window` is not one of the values above.
        ValueError: If `x` is a scalar.

    Example:
        >>> x = np.sin(np.arange(64) / 3.0).astype("float32")
        >>> real, imag = tfkit.ops.stft(x, 16, 8, 16)
        >>> real.shape
        TensorShape([9, 9])
        >>> real, imag = tfkit.ops.stft(x, 16, 8, 32, center=False)
        >>> real.shape
        TensorShape([5, 17])
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


def istft(
    x: Any,
    sequence_length: int,
    sequence_stride: int,
    fft_length: int,
    length: int | None = None,
    window: Any = "hann",
    center: bool = True,
) -> tf.Tensor:
    """Inverse Short-Time Fourier Transform along the last axis of the input.

    To reconstruct an original waveform, the parameters should be the same in
    `stft`. The signal is rebuilt by windowed overlap-add.

    Args:
        x: Tuple of the real and imaginary parts of the input tensor, of shape
            `(..., num_sequences, fft_length // 2 + 1)`. Both tensors in the
            tuple should be of floating type.
        sequence_length: An integer representing the sequence length.
        sequence_stride: An integer representing the sequence hop size.
        fft_length: An integer representing the size of the FFT to apply, at
            least `sequence_length`.
        length: An integer representing the output is clipped to exactly length.
            If not specified, no padding or clipping take place (beyond
            removing the `center` padding). Defaults to `None`.
        window: A string, a tensor of the window or `None`. If `window` is a
            string, available values are `"hann"` and `"hamming"`. If `window`
            is a tensor, it will be used directly as the window and its length
            must be `sequence_length`. If `window` is `None`, no windowing is
            used. Defaults to `"hann"`.
        center: Whether `x` was padded on both sides so that the t-th sequence
            is centered at time `t * sequence_stride`. Defaults to `True`.

    Returns:
        A tensor containing the inverse Short-Time Fourier Transform along the
        last axis of `x`.

    Raises:
        ValueError: If `sequence_length`, `sequence_stride` or `fft_length` is
            not a positive int, if `fft_length < sequence_length`, or if
            `window` is not one of the values above.
        ValueError: If `x` is not a tuple of two tensors of the same shape, or
            if they have rank below 2.

    Example:
        >>> x = np.sin(np.arange(64) / 3.0).astype("float32")
        >>> spectrum = tfkit.ops.stft(x, 16, 8, 16)
        >>> y = tfkit.ops.istft(spectrum, 16, 8, 16, length=64)
        >>> y.shape
        TensorShape([64])
        >>> bool(np.allclose(y.numpy(), x, atol=1e-5))
        True
    """
    _check_frames(sequence_length, sequence_stride, fft_length, "istft")
    z = _complex(x, "istft")
    _rank_at_least(z, 2, "istft")
    dtype = tf.math.real(z).dtype
    analysis = _window(window, sequence_length, fft_length, dtype, "istft")
    window_fn = (
        None
        if analysis is None
        else tf.signal.inverse_stft_window_fn(sequence_stride, forward_window_fn=lambda frame_length, dtype: analysis)
    )
    signal = tf.signal.inverse_stft(z, fft_length, sequence_stride, fft_length, window_fn=window_fn)
    start = fft_length // 2 if center else 0
    if length is not None:
        signal = signal[..., start : start + length]
        missing = length - tf.shape(signal)[-1]
        return tf.pad(signal, [[0, 0]] * (len(signal.shape) - 1) + [[0, missing]])
    return signal[..., start:-start] if center and start else signal


__all__ = ["fft", "fft2", "ifft2", "rfft", "irfft", "extract_sequences", "stft", "istft"]
export(globals(), __all__)
