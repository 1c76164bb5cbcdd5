"""The STFT initializer and STFTSpectrogram: against numpy's rfft, SciPy's windows and Keras 3; config, h5, fit."""

import json

import numpy as np
import pytest
import tensorflow as tf
from keras3_crosscheck import config_round_trip, fit_once

import tfkit
from tfkit import initializers, layers
from tfkit.initializers.stft import WINDOWS, get_window

RNG = np.random.RandomState(5)
AUDIO = RNG.randn(2, 120, 3).astype("float32")


def numpy_frames(x, frame_length, step, fft_length, window, scale):
    """(batch, channels, frames, bins) complex STFT of (batch, time, channels) audio, padding 'valid'."""
    starts = range(0, x.shape[1] - frame_length + 1, step)
    frames = np.stack([x[:, s : s + frame_length, :] for s in starts], axis=1)  # (b, frames, t, c)
    frames = frames * window[None, None, :, None] / scale
    return np.fft.rfft(frames, n=fft_length, axis=2).transpose(0, 3, 1, 2)  # (b, c, frames, bins)


def test_windows_are_scipys():
    signal = pytest.importorskip("scipy.signal")
    for name, (_, aliases) in WINDOWS.items():
        for length in (1, 2, 9, 16):
            for periodic in (False, True):
                want = signal.get_window(name, length, fftbins=periodic)
                np.testing.assert_allclose(get_window(name, length, periodic), want, atol=1e-12)
                np.testing.assert_allclose(get_window(aliases[0], length, periodic), want, atol=1e-12)


def test_the_initializer_is_a_windowed_fourier_basis():
    window = np.hanning(8)  # numpy's Hann is SciPy's symmetric one
    real = initializers.STFT("real", "hann", "density")((8, 1, 5)).numpy()[:, 0, :]
    imag = initializers.STFT("imag", "hann", "density")((8, 1, 5)).numpy()[:, 0, :]
    basis = (
        np.exp(-2j * np.pi * np.outer(np.arange(8), np.arange(5)) / 8) * window[:, None] / np.sqrt(np.sum(window**2))
    )
    np.testing.assert_allclose(real, basis.real, atol=1e-6)
    np.testing.assert_allclose(imag, basis.imag, atol=1e-6)
    spectrum = initializers.STFT("real", [1.0, 2.0, 3.0, 4.0], "spectrum")((4, 1, 3)).numpy()[:, 0, 0]
    np.testing.assert_allclose(spectrum, np.array([1.0, 2.0, 3.0, 4.0]) / 10.0, rtol=1e-6)
    plain = initializers.STFT("real", None, None)((4, 1, 3)).numpy()[:, 0, :]
    np.testing.assert_allclose(plain, np.cos(-2 * np.pi * np.outer(np.arange(4), np.arange(3)) / 4), atol=1e-6)
    assert initializers.get("stft").side == "real" and initializers.STFTInitializer is initializers.STFT
    assert initializers.deserialize(initializers.serialize(initializers.STFT("imag", [0.5, 1.0]))).window == [0.5, 1.0]


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(side="real"),
        dict(side="imag", window="hamming", periodic=True),
        dict(side="real", window="blackman", scaling="spectrum"),
        dict(side="imag", window=None, scaling=None),
    ],
)
def test_initializer_matches_keras(kwargs):
    keras = pytest.importorskip("keras")
    ours, theirs = initializers.STFT(**kwargs), keras.initializers.STFT(**kwargs)
    np.testing.assert_allclose(
        ours((64, 1, 65)).numpy(), keras.ops.convert_to_numpy(theirs((64, 1, 65))), rtol=1e-6, atol=1e-6
    )
    assert ours.get_config() == theirs.get_config()


@pytest.mark.parametrize("mode", ["real", "imag", "stft", "magnitude", "log", "psd", "angle"])
def test_modes_against_numpy_rfft(mode):
    layer = layers.STFTSpectrogram(mode=mode, frame_length=16, frame_step=8, fft_length=32, window="hann")
    got = layer(AUDIO).numpy()
    window = get_window("hann", 16)
    z = numpy_frames(AUDIO.astype("float64"), 16, 8, 32, window, np.sqrt(np.sum(window**2)))
    power = np.abs(z) ** 2
    want = {
        "real": z.real,
        "imag": z.imag,
        "stft": np.concatenate([z.real, z.imag], axis=-1),
        "magnitude": np.sqrt(np.maximum(power, 1e-7)),
        "log": np.log(np.sqrt(np.maximum(power, 1e-7))),
        "angle": np.angle(z),
    }.get(mode)
    if mode == "psd":
        want = power.copy()
        want[..., 1:-1] *= 2
    want = want.transpose(0, 2, 1, 3).reshape(2, want.shape[2], -1)  # (batch, frames, channels * bins)
    assert got.shape == want.shape == layer.compute_output_shape(AUDIO.shape)
    if mode == "angle":  # +pi and -pi are one angle (real bins: DC and Nyquist)
        got = want + np.angle(np.exp(1j * (got - want)))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(mode="magnitude", frame_step=10, padding="same"),
        dict(mode="psd", fft_length=64, window="hamming", periodic=True, scaling="spectrum"),
        dict(mode="stft", expand_dims=True),
        dict(mode="angle", window=None, scaling=None),
        dict(mode="real", data_format="channels_first"),
        dict(mode="imag", expand_dims=True, data_format="channels_first"),
    ],
)
def test_matches_keras(kwargs):
    keras = pytest.importorskip("keras")
    kwargs = dict(kwargs, frame_length=32)
    channels_first = kwargs.get("data_format") == "channels_first"
    ours = layers.STFTSpectrogram(**kwargs)
    theirs = keras.layers.STFTSpectrogram(**dict(kwargs, data_format="channels_last"))  # Keras's NCW conv: GPU only
    got = ours(AUDIO.transpose(0, 2, 1) if channels_first else AUDIO).numpy()
    want = keras.ops.convert_to_numpy(theirs(AUDIO))
    if channels_first:
        want = want.transpose(0, 3, 1, 2) if kwargs.get("expand_dims") else want.transpose(0, 2, 1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert [(w.name.split("/")[-1].split(":")[0], tuple(w.shape), w.trainable) for w in ours.weights] == [
        (w.name, tuple(w.shape), w.trainable) for w in theirs.weights
    ]
    config, keras_config = ours.get_config(), theirs.get_config()
    assert set(config) == set(keras_config)
    assert {k: v for k, v in config.items() if k not in ("dtype", "name", "data_format")} == {
        k: v for k, v in keras_config.items() if k not in ("dtype", "name", "data_format")
    }


def test_functional_model_compiles_saves_loads_and_fits(tmp_path):
    audio = tfkit.Input((120, 3))
    spectrogram = layers.STFTSpectrogram(mode="log", frame_length=16, name="stft")
    model = tfkit.Model(audio, layers.Dense(1)(layers.GlobalAveragePooling1D()(spectrogram(audio))))
    assert spectrogram.output.shape == (None, 14, 27)
    compiled = tf.function(lambda x: spectrogram(x))
    np.testing.assert_allclose(compiled(AUDIO).numpy(), spectrogram(AUDIO).numpy(), rtol=1e-6)
    path = str(tmp_path / "stft.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    assert loaded.get_layer("stft").get_config() == spectrogram.get_config()
    np.testing.assert_allclose(loaded.predict(AUDIO, verbose=0), model.predict(AUDIO, verbose=0), rtol=1e-5)
    config_round_trip(spectrogram)
    before = spectrogram.real_kernel.numpy().copy()
    fit_once(model, AUDIO, np.ones((2, 1), "float32"))
    assert not np.allclose(before, spectrogram.real_kernel.numpy())  # the front end is trainable, as in Keras
    frozen = layers.STFTSpectrogram(frame_length=16, trainable=False)
    frozen(AUDIO)
    assert frozen.trainable_weights == [] and len(frozen.weights) == 2
    assert json.loads(json.dumps(layers.STFTSpectrogram(window=[0.5] * 256).get_config()))["window"] == [0.5] * 256


def test_errors_name_the_layer():
    with pytest.raises(ValueError, match=r"STFTSpectrogram layer 's' expected `frame_step` .* frame_length=8, got 9"):
        layers.STFTSpectrogram(frame_length=8, frame_step=9, name="s")
    with pytest.raises(ValueError, match=r"'s' expected `fft_length` to be an integer not less than frame_length=8"):
        layers.STFTSpectrogram(frame_length=8, fft_length=4, name="s")
    with pytest.raises(ValueError, match=r"'s' expected `mode` to be one of"):
        layers.STFTSpectrogram(mode="power", name="s")
    with pytest.raises(ValueError, match=r"STFTSpectrogram layer 's': unknown window 'kaiserish'"):
        layers.STFTSpectrogram(window="kaiserish", name="s")
    with pytest.warns(UserWarning, match="power of two"):
        layers.STFTSpectrogram(frame_length=8, fft_length=12)
    with pytest.raises(TypeError, match=r"'s' expects float16, bfloat16, float32 or float64 audio, got int32"):
        layers.STFTSpectrogram(frame_length=8, name="s", autocast=False)(np.ones((1, 16, 1), "int32"))
    with pytest.raises(ValueError, match=r"STFT initializer: the window must have shape \(8,\)"):
        initializers.STFT(window=[1.0, 2.0])((8, 1, 5))
