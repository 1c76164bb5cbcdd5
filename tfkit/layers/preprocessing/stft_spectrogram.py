"""``STFTSpectrogram``: a spectrogram as two strided convolutions with STFT kernels (trainable, like Keras 3's).

    spectrogram = tfkit.layers.STFTSpectrogram(mode="log", frame_length=256, frame_step=128)
    y = spectrogram(audio)                 # (batch, time, channels) -> (batch, frames, channels * 129)
    tfkit.layers.STFTSpectrogram(mode="stft", expand_dims=True)(audio)   # (batch, frames, 2 * 129, channels)

Each channel is convolved with ``real_kernel`` and ``imag_kernel``
``(frame_length, 1, fft_length // 2 + 1)`` (``tfkit.initializers.STFT``: the
windowed cosines and sines), stride ``frame_step`` (default
``frame_length // 2``), ``padding`` ``"valid"`` or ``"same"``; ``fft_length``
defaults to the next power of two. ``mode``: ``"real"``, ``"imag"``,
``"stft"`` (both, concatenated on the frequency axis), ``"angle"``,
``"magnitude"``, ``"log"`` (of the magnitude, floored at epsilon) or
``"psd"`` (power, interior bins doubled). Outputs are
``(batch, frames, channels * bins)`` (``channels_last``) or
``(batch, channels * bins, frames)``; ``expand_dims=True`` keeps channels
apart. The kernels are trainable weights (``trainable=False`` for a fixed
front end), so Keras's files load into this layer.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.base import registry, settings
from tfkit.base.argument_validation import positive_int
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.initializers.stft import check_window
from tfkit.layers.conv_utils import conv_output_length

__all__ = ["STFTSpectrogram"]


def _dim(x: tf.Tensor, axis: int) -> Any:
    """The static size of ``axis`` when known, else the dynamic one."""
    return x.shape[axis] if x.shape[axis] is not None else tf.shape(x)[axis]


MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")


@registry.builtin("layers")
class STFTSpectrogram(Layer):
    """Layer to compute the Short-Time Fourier Transform (STFT) on a 1D signal.

    A layer that computes spectrograms of the input signal to produce a
    spectrogram. This layer utilizes Short-Time Fourier Transform (STFT) by
    convolution: each channel is convolved with `real_kernel` and
    `imag_kernel`, of shape `(frame_length, 1, fft_length // 2 + 1)`
    (`tfkit.initializers.STFT`: the windowed cosines and sines), with stride
    `frame_step`. The kernels are trainable weights, as in Keras 3 (use
    `trainable=False` for a fixed front end), so Keras's files load into
    this layer.

    Args:
        mode: String, the output type of the spectrogram: `"real"`,
            `"imag"`, `"stft"` (real and imaginary parts concatenated on the
            frequency axis), `"angle"`, `"magnitude"`, `"log"` (log of the
            magnitude, floored at epsilon) or `"psd"` (the power spectral
            density, interior bins doubled). Defaults to `"log"`.
        frame_length: Positive integer, the length of each frame (window)
            for STFT in samples. Defaults to `256`.
        frame_step: Positive integer not greater than `frame_length`, the
            step size (hop length) between consecutive frames. If `None`,
            `frame_length // 2` is used. Defaults to `None`.
        fft_length: Integer not less than `frame_length`, the size of the
            frequency bins used in the FFT (a power of two is recommended; a
            warning is issued otherwise). If `None`, the next power of two at
            or above `frame_length` is used. Defaults to `None`.
        window: The windowing function applied to each frame: a window name
            (SciPy's names and aliases, such as `"hann"`, `"hamming"`), a
            list of `frame_length` values, or `None` for no windowing.
            Defaults to `"hann"`.
        periodic: If `True`, the window function is treated as periodic
            (for spectral analysis); if `False`, as symmetric. Defaults to
            `False`.
        scaling: The type of scaling of the kernels: `"density"` (power
            spectral density), `"spectrum"` (power spectrum) or `None` (no
            scaling). Defaults to `"density"`.
        padding: `"valid"` or `"same"` (pad the signal so that the number of
            frames is `ceil(time / frame_step)`). Defaults to `"valid"`.
        expand_dims: If `True`, the output keeps the channels apart in a
            separate axis; if `False`, the channels' bins are concatenated.
            Defaults to `False`.
        data_format: `"channels_last"` (inputs `(batch, time, channels)`) or
            `"channels_first"` (inputs `(batch, channels, time)`). Defaults to
            `None`, which means `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name`, `dtype` and
            `trainable`.

    Call arguments:
        inputs: A 3D float tensor of signals.

    Input shape:
        3D tensor `(batch_size, time_length, channels)` for
        `"channels_last"`, or `(batch_size, channels, time_length)` for
        `"channels_first"`.

    Output shape:
        With `expand_dims=False`, `(batch_size, frames, channels * bins)` for
        `"channels_last"` or `(batch_size, channels * bins, frames)` for
        `"channels_first"`; with `expand_dims=True`, `(batch_size, frames,
        bins, channels)` or `(batch_size, channels, frames, bins)`. `bins` is
        `fft_length // 2 + 1`, doubled for `mode="stft"`.

    Raises:
        ValueError: If `frame_length`, `frame_step` or `fft_length` is not a
            valid integer, `mode`, `scaling`, `padding`, `window` or
            `data_format` is not a supported value; on call, if the input is
            not 3D.

    Example:
        >>> layer = tfkit.layers.STFTSpectrogram(mode="log", frame_length=256, frame_step=128)
        >>> audio = np.random.uniform(-1, 1, (2, 1024, 1)).astype("float32")
        >>> layer(audio).shape
        TensorShape([2, 7, 129])
        >>> tfkit.layers.STFTSpectrogram(mode="stft", frame_length=64, expand_dims=True)(
        ...     np.zeros((1, 256, 2), dtype="float32")).shape
        TensorShape([1, 7, 66, 2])
    """

    def __init__(
        self,
        mode: str = "log",
        frame_length: int = 256,
        frame_step: int | None = None,
        fft_length: int | None = None,
        window: Any = "hann",
        periodic: bool = False,
        scaling: str | None = "density",
        padding: str = "valid",
        expand_dims: bool = False,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        who = f"STFTSpectrogram layer '{self.name}'"
        frame_length = positive_int(frame_length, "frame_length", who)
        if frame_step is not None and (
            isinstance(frame_step, bool) or not isinstance(frame_step, int) or not 1 <= frame_step <= frame_length
        ):
            raise ValueError(
                f"{who} expected `frame_step` to be a positive integer not greater than "
                f"frame_length={frame_length}, got {frame_step!r}"
            )
        if fft_length is not None and (
            isinstance(fft_length, bool) or not isinstance(fft_length, int) or fft_length < frame_length
        ):
            raise ValueError(
                f"{who} expected `fft_length` to be an integer not less than "
                f"frame_length={frame_length}, got {fft_length!r}"
            )
        if fft_length is not None and fft_length & (fft_length - 1):
            warnings.warn(f"{who}: `fft_length` is recommended to be a power of two, got {fft_length}", stacklevel=2)
        if mode not in MODES:
            raise ValueError(f"{who} expected `mode` to be one of {list(MODES)}, got {mode!r}")
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError(f"{who} expected `scaling` to be None, 'density' or 'spectrum', got {scaling!r}")
        if padding not in ("valid", "same"):
            raise ValueError(f"{who} expected `padding` to be 'valid' or 'same', got {padding!r}")
        if data_format is None:
            data_format = settings.image_data_format()
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                f"{who} expected `data_format` to be 'channels_last', 'channels_first' or None, got {data_format!r}"
            )
        self.mode, self.frame_length, self.frame_step, self.fft_length = mode, frame_length, frame_step, fft_length
        self.window = check_window(window, who)
        self.periodic, self.scaling, self.padding = bool(periodic), scaling, padding
        self.expand_dims, self.data_format = bool(expand_dims), data_format
        self.input_spec = InputSpec(ndim=3)

    @property
    def _step(self) -> int:
        return self.frame_step or self.frame_length // 2

    @property
    def _fft(self) -> int:
        return self.fft_length or 2 ** int(math.ceil(math.log2(self.frame_length)))

    def build(self, input_shape: Any) -> None:
        shape = (self.frame_length, 1, self._fft // 2 + 1)
        if self.mode != "imag":
            self.real_kernel = self.add_weight(
                name="real_kernel",
                shape=shape,
                initializer=initializers.STFT("real", self.window, self.scaling, self.periodic),
            )
        if self.mode != "real":
            self.imag_kernel = self.add_weight(
                name="imag_kernel",
                shape=shape,
                initializer=initializers.STFT("imag", self.window, self.scaling, self.periodic),
            )

    def _convolve(self, inputs: tf.Tensor, kernel: Any) -> tf.Tensor:
        """``(batch, channels, bins, frames)``: every channel convolved with ``kernel`` on its own."""
        if self.data_format == "channels_last":
            inputs = tf.transpose(inputs, [0, 2, 1])
        channels, time = _dim(inputs, 1), _dim(inputs, 2)
        columns = tf.reshape(inputs, [-1, time, 1])
        outputs = tf.nn.conv1d(
            columns, tf.cast(kernel, inputs.dtype), stride=self._step, padding=self.padding.upper()
        )  # (batch * channels, frames, bins)
        outputs = tf.transpose(outputs, [0, 2, 1])
        return tf.reshape(outputs, [-1, channels, _dim(outputs, 1), _dim(outputs, 2)])

    def _arrange(self, outputs: tf.Tensor) -> tf.Tensor:
        if self.expand_dims:
            return tf.transpose(outputs, [0, 3, 2, 1] if self.data_format == "channels_last" else [0, 1, 3, 2])
        flat = tf.reshape(outputs, [-1, _dim(outputs, 1) * _dim(outputs, 2), _dim(outputs, 3)])
        return tf.transpose(flat, [0, 2, 1]) if self.data_format == "channels_last" else flat

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        if inputs.dtype not in (tf.float16, tf.bfloat16, tf.float32, tf.float64):
            raise TypeError(
                f"STFTSpectrogram layer '{self.name}' expects float16, bfloat16, float32 or float64 audio, "
                f"got {inputs.dtype.name}"
            )
        real = self._convolve(inputs, self.real_kernel) if self.mode != "imag" else None
        imag = self._convolve(inputs, self.imag_kernel) if self.mode != "real" else None
        if self.mode == "real":
            return self._arrange(real)
        if self.mode == "imag":
            return self._arrange(imag)
        if self.mode == "angle":
            return self._arrange(tf.math.atan2(imag, real))
        if self.mode == "stft":
            return self._arrange(tf.concat([real, imag], axis=2))
        power = tf.square(real) + tf.square(imag)
        if self.mode == "psd":
            return self._arrange(power + tf.pad(power[:, :, 1:-1, :], [[0, 0], [0, 0], [1, 1], [0, 0]]))
        epsilon = tf.cast(settings.epsilon(), power.dtype)
        magnitude = self._arrange(tf.sqrt(tf.maximum(power, epsilon)))
        return magnitude if self.mode == "magnitude" else tf.math.log(tf.maximum(magnitude, epsilon))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        batch, *rest = tuple(input_shape)
        time, channels = rest if self.data_format == "channels_last" else rest[::-1]
        bins = (self._fft // 2 + 1) * (2 if self.mode == "stft" else 1)
        frames = conv_output_length(time, self.frame_length, self.padding, self._step)
        if self.expand_dims:
            return (
                (batch, frames, bins, channels)
                if self.data_format == "channels_last"
                else (batch, channels, frames, bins)
            )
        features = None if channels is None else channels * bins
        return (batch, frames, features) if self.data_format == "channels_last" else (batch, features, frames)

    def get_config(self) -> dict[str, Any]:
        return {
            **Layer.get_config(self),
            "mode": self.mode,
            "frame_length": self.frame_length,
            "frame_step": self.frame_step,
            "fft_length": self.fft_length,
            "window": self.window,
            "periodic": self.periodic,
            "scaling": self.scaling,
            "padding": self.padding,
            "data_format": self.data_format,
            "expand_dims": self.expand_dims,
        }
