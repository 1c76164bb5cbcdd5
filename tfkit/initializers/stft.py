"""``STFT``: convolution kernels that compute a short-time Fourier transform (Keras 3's ``STFTInitializer``).

    real = tfkit.initializers.STFT("real", window="hann", scaling="density")
    kernel = real((256, 1, 129))          # (frame_length, 1, fft_length // 2 + 1): cos(-2 pi t f / fft) * window
    tfkit.initializers.STFT("imag")((256, 1, 129))                              # the sin(...) half

``side="real"`` gives ``cos(-2 pi t k / n)``, ``"imag"`` gives ``sin(...)``, for
frame sample ``t`` and frequency bin ``k`` (``n = 2 * (bins - 1)``), times the
window and divided by its L2 norm (``scaling="density"``) or L1 norm
(``"spectrum"``). Windows are named as in ``scipy.signal.get_window`` (the
cosine family, triangles, boxcar, bohman, cosine: computed here in numpy, no
SciPy needed) or given as ``frame_length`` values; ``periodic=True`` is
SciPy's ``fftbins=True``. The numbers follow Keras's computation in the
requested dtype.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.initializers.base import Initializer, _as_dtype, _as_shape, _plain

__all__ = ["STFT", "STFTInitializer", "stft", "get_window", "WINDOWS"]


# ----------------------------------------------------------- window functions (scipy.signal.windows' formulas)


def _general_cosine(coefficients: Sequence[float]) -> Callable[[int], np.ndarray]:
    def window(length: int) -> np.ndarray:
        angle = np.linspace(-np.pi, np.pi, length)
        return sum(a * np.cos(k * angle) for k, a in enumerate(coefficients))

    return window


def _boxcar(length: int) -> np.ndarray:
    return np.ones(length)


def _triang(length: int) -> np.ndarray:
    n = np.arange(1, (length + 1) // 2 + 1)
    if length % 2 == 0:
        half = (2 * n - 1.0) / length
        return np.concatenate([half, half[::-1]])
    half = 2 * n / (length + 1.0)
    return np.concatenate([half, half[-2::-1]])


def _bartlett(length: int) -> np.ndarray:
    n = np.arange(length)
    return np.where(n <= (length - 1) / 2.0, 2.0 * n / (length - 1), 2.0 - 2.0 * n / (length - 1))


def _cosine(length: int) -> np.ndarray:
    return np.sin(np.pi / length * (np.arange(length) + 0.5))


def _bohman(length: int) -> np.ndarray:
    fraction = np.abs(np.linspace(-1, 1, length)[1:-1])
    inner = (1 - fraction) * np.cos(np.pi * fraction) + 1.0 / np.pi * np.sin(np.pi * fraction)
    return np.concatenate([[0.0], inner, [0.0]])


# name -> (window of a symmetric length, SciPy's other names for it)
WINDOWS: dict[str, tuple[Callable[[int], np.ndarray], tuple[str, ...]]] = {
    "boxcar": (_boxcar, ("box", "ones", "rect", "rectangular")),
    "triang": (_triang, ("triangle", "tri")),
    "bartlett": (_bartlett, ("bart", "brt")),
    "hann": (_general_cosine([0.5, 0.5]), ("han",)),
    "hamming": (_general_cosine([0.54, 0.46]), ("hamm", "ham")),
    "blackman": (_general_cosine([0.42, 0.50, 0.08]), ("black", "blk")),
    "blackmanharris": (_general_cosine([0.35875, 0.48829, 0.14128, 0.01168]), ("blackharr", "bkh")),
    "nuttall": (_general_cosine([0.3635819, 0.4891775, 0.1365995, 0.0106411]), ("nutl", "nut")),
    "flattop": (_general_cosine([0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368]), ("flat", "flt")),
    "cosine": (_cosine, ("halfcosine",)),
    "bohman": (_bohman, ("bman", "bmn")),
}
_ALIASES = {alias: name for name, (_, aliases) in WINDOWS.items() for alias in (name, *aliases)}


def _window_name(window: str, who: str) -> str:
    name = _ALIASES.get(window.lower()) if isinstance(window, str) else None
    if name is None:
        raise ValueError(
            f"{who}: unknown window {window!r}; tfkit knows {sorted(WINDOWS)} (SciPy's names and "
            f"aliases), or pass the window's values (a list of frame_length numbers)"
        )
    return name


def get_window(window: str, length: int, periodic: bool = False) -> np.ndarray:
    """``scipy.signal.get_window(window, length, fftbins=periodic)`` for the named windows in ``WINDOWS`` (float64)."""
    make, _ = WINDOWS[_window_name(window, "get_window")]
    if length <= 1:
        return np.ones(max(int(length), 0))
    if periodic:  # the symmetric window one sample longer, without its last sample
        return make(length + 1)[:-1]
    return make(length)


def check_window(window: Any, who: str) -> Any:
    """``window`` as a config keeps it: a known name, ``None``, or a list of numbers; raise ``ValueError`` otherwise."""
    if window is None:
        return None
    if isinstance(window, str):
        _window_name(window, who)
        return window
    values = np.asarray(_plain(window), dtype="float64")
    if values.ndim != 1:
        raise ValueError(f"{who}: a window given as values must be one-dimensional, got shape {values.shape}")
    return values.tolist()


# -------------------------------------------------------------------- the initializer

_SIDES = ("real", "imag")
_SCALINGS = ("density", "spectrum")


@registry.builtin("initializers", "stft", "STFTInitializer")
class STFT(Initializer):
    """Initializer of convolution kernels that compute a short-time Fourier transform.

    Makes kernels of shape `(frame_length, 1, fft_length // 2 + 1)` whose 1D
    convolution with a signal is one side (real or imaginary) of its windowed STFT,
    as Keras 3's `STFTInitializer` (used by `STFTSpectrogram`). `side="real"` gives
    `cos(-2 pi t k / n)` and `side="imag"` gives `sin(-2 pi t k / n)`, for frame sample
    `t` and frequency bin `k` (`n = 2 * (bins - 1)`), times the window and divided by
    its L2 norm (`scaling="density"`) or L1 norm (`scaling="spectrum"`). The numbers
    follow Keras's computation in the requested dtype. Also available as
    `tfkit.initializers.STFTInitializer`, `tfkit.initializers.stft` and under the
    names `"stft"` and `"STFTInitializer"`.

    Args:
        side: `"real"` or `"imag"`, the side of the transform the kernel computes.
            Defaults to `"real"`.
        window: The window to multiply the kernel by: a name as in
            `scipy.signal.get_window` (`"hann"`, `"hamming"`, `"blackman"`,
            `"blackmanharris"`, `"nuttall"`, `"flattop"`, `"boxcar"`, `"triang"`,
            `"bartlett"`, `"cosine"`, `"bohman"` and SciPy's aliases; computed in numpy,
            no SciPy needed), a 1D list or array of `frame_length` values, or `None` for
            no window (and no scaling). Defaults to `"hann"`.
        scaling: `"density"` (divide by the window's L2 norm), `"spectrum"` (divide by
            its L1 norm), or `None` (no scaling). Defaults to `"density"`.
        periodic: Whether a named window is periodic (SciPy's `fftbins=True`) rather
            than symmetric. Defaults to `False`.

    Call arguments:
        shape: The shape of the tensor to make: `(frame_length, 1, fft_length // 2 + 1)`.
        dtype: The dtype of the tensor, a floating dtype. Defaults to `"float32"`.

    Raises:
        ValueError: If `side` or `scaling` is not one of the values above, or `window`
            is an unknown name or not one-dimensional; when called, if the shape is not
            3D, the dtype is not floating, or a window given as values does not have
            `frame_length` entries.

    Example:
        >>> real = tfkit.initializers.STFT("real", window="hann", scaling="density")
        >>> real(shape=(16, 1, 9)).shape
        TensorShape([16, 1, 9])
        >>> boxcar = tfkit.initializers.STFT("real", window=None)
        >>> np.round(boxcar(shape=(4, 1, 3)).numpy()[:, 0, :], 4) + 0.0   # + 0.0 turns -0. into 0.
        array([[ 1.,  1.,  1.],
               [ 1.,  0., -1.],
               [ 1., -1.,  1.],
               [ 1.,  0., -1.]], dtype=float32)
    """

    def __init__(
        self, side: str = "real", window: Any = "hann", scaling: str | None = "density", periodic: bool = False
    ) -> None:
        if side not in _SIDES:
            raise ValueError(f"STFT initializer expected side to be 'real' or 'imag', got {side!r}")
        if scaling is not None and scaling not in _SCALINGS:
            raise ValueError(f"STFT initializer expected scaling to be None, 'density' or 'spectrum', got {scaling!r}")
        self.side = side
        self.window = check_window(window, "STFT initializer")
        self.scaling = scaling
        self.periodic = bool(periodic)

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        shape = _as_shape(shape, "STFT")
        dtype = _as_dtype(dtype, "STFT", floating=True)
        if len(shape) != 3:
            raise ValueError(f"STFT initializer needs a shape (frame_length, 1, fft_length // 2 + 1), got {shape}")
        frame_length, _, bins = shape
        window = scale = None
        if self.window is not None:
            values = (
                get_window(self.window, frame_length, self.periodic)
                if isinstance(self.window, str)
                else np.asarray(self.window, dtype="float64")
            )
            if values.shape != (frame_length,):
                raise ValueError(
                    f"STFT initializer: the window must have shape ({frame_length},) (frame_length), got {values.shape}"
                )
            window = tf.reshape(tf.constant(values, dtype), [frame_length, 1, 1])
            if self.scaling == "density":
                scale = tf.sqrt(tf.reduce_sum(tf.square(window)))
            elif self.scaling == "spectrum":
                scale = tf.reduce_sum(tf.abs(window))
        frequency = tf.reshape(tf.range(bins, dtype=dtype), (1, 1, bins)) / tf.cast((bins - 1) * 2, dtype)
        time = tf.reshape(tf.range(frame_length, dtype=dtype), (frame_length, 1, 1))
        angle = (tf.cast(-2, dtype) * time) * frequency * tf.acos(tf.cast(-1, dtype))
        kernel = tf.cos(angle) if self.side == "real" else tf.sin(angle)
        if window is not None:
            kernel = kernel * window
            if scale is not None:
                kernel = kernel / scale
        return kernel

    def get_config(self) -> dict[str, Any]:
        return {"side": self.side, "window": self.window, "periodic": self.periodic, "scaling": self.scaling}


STFTInitializer = stft = STFT
