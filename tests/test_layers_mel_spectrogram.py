"""MelSpectrogram: against a numpy STFT + HTK mel filterbank, side by side with Keras 3, symbolic, h5."""

import numpy as np
import pytest
import tensorflow as tf
from keras3_crosscheck import config_round_trip

import tfkit
from tfkit import layers

RNG = np.random.RandomState(9)
TIME = np.arange(3000) / 16000.0
AUDIO = (np.sin(2 * np.pi * 440 * TIME)[None] * RNG.uniform(0.2, 1.0, (2, 1)) + 0.05 * RNG.randn(2, 3000)).astype(
    "float32"
)


def numpy_mel(audio, fft, stride, bins, rate, low, high, mag_exp=2.0, db=True, top_db=80.0, ref=1.0, floor=1e-10):
    """Centred, reflect-padded, periodic-Hann STFT; HTK triangles in the mel domain; decibels; (..., bins, frames)."""
    half = fft // 2
    padded = np.pad(audio.astype("float64"), [(0, 0), (half, half)], mode="reflect")
    starts = range(0, padded.shape[-1] - fft + 1, stride)
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(fft) / fft)
    frames = np.stack([padded[:, s : s + fft] * window for s in starts], axis=1)
    spectrum = np.abs(np.fft.rfft(frames, axis=-1)) ** mag_exp  # (batch, frames, fft // 2 + 1)
    mel = lambda hz: 1127.0 * np.log(1.0 + hz / 700.0)  # noqa: E731
    linear = mel(np.linspace(0.0, rate / 2, fft // 2 + 1))[1:]
    edges = np.linspace(mel(low), mel(high), bins + 2)
    lower, center, upper = edges[:-2], edges[1:-1], edges[2:]
    weights = np.maximum(
        0.0, np.minimum((linear[:, None] - lower) / (center - lower), (upper - linear[:, None]) / (upper - center))
    )
    weights = np.concatenate([np.zeros((1, bins)), weights])  # the DC bin is left out
    power = spectrum @ weights
    if db:
        power = 10 * np.log10(np.maximum(power, floor)) - 10 * np.log10(max(abs(ref), floor))
        power = np.maximum(power, power.max() - top_db)
    return power.swapaxes(-1, -2)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(fft_length=512, sequence_stride=128, num_mel_bins=40),
        dict(
            fft_length=256,
            sequence_stride=100,
            num_mel_bins=20,
            power_to_db=False,
            mag_exp=1.0,
            min_freq=0.0,
            max_freq=6000,
        ),
        dict(fft_length=256, sequence_stride=64, num_mel_bins=16, top_db=20.0, ref_power=2.0),
    ],
)
def test_matches_numpy(kwargs):
    layer = layers.MelSpectrogram(**kwargs)
    got = layer(AUDIO).numpy()
    want = numpy_mel(
        AUDIO,
        layer.fft_length,
        layer.sequence_stride,
        layer.num_mel_bins,
        layer.sampling_rate,
        layer.min_freq,
        layer.max_freq,
        layer.mag_exp,
        layer.power_to_db,
        layer.top_db,
        layer.ref_power,
    )
    assert got.shape == want.shape == layer.compute_output_shape(AUDIO.shape)
    scale = np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4 * scale)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(fft_length=512, sequence_stride=128, num_mel_bins=40),
        dict(
            fft_length=256,
            sequence_length=200,
            window="hamming",
            sequence_stride=100,
            num_mel_bins=20,
            power_to_db=False,
            mag_exp=1.0,
            min_freq=0.0,
            max_freq=6000,
        ),
        dict(
            fft_length=256,
            sequence_stride=64,
            num_mel_bins=16,
            top_db=20.0,
            ref_power=2.0,
            window=None,
            sampling_rate=22050,
        ),
    ],
)
def test_matches_keras(kwargs):
    keras = pytest.importorskip("keras")
    ours, theirs = layers.MelSpectrogram(**kwargs), keras.layers.MelSpectrogram(**kwargs)
    for audio in (AUDIO, AUDIO[0]):
        got, want = ours(audio).numpy(), keras.ops.convert_to_numpy(theirs(audio))
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    config, keras_config = ours.get_config(), theirs.get_config()
    assert set(config) == set(keras_config)
    assert {k: v for k, v in config.items() if k not in ("dtype", "name")} == {
        k: v for k, v in keras_config.items() if k not in ("dtype", "name")
    }


def test_functional_model_compiles_saves_and_loads(tmp_path):
    audio = tfkit.Input((3000,))
    mel = layers.MelSpectrogram(fft_length=256, sequence_stride=128, num_mel_bins=24, name="mel")
    features = mel(audio)
    assert features.shape == (None, 24, 24) == mel.compute_output_shape((None, 3000))
    model = tfkit.Model(audio, layers.Dense(2)(layers.Flatten()(features)))
    np.testing.assert_allclose(tf.function(lambda x: mel(x))(AUDIO).numpy(), mel(AUDIO).numpy(), rtol=1e-5, atol=1e-5)
    path = str(tmp_path / "mel.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    assert loaded.get_layer("mel").get_config() == mel.get_config() and mel.weights == []
    np.testing.assert_allclose(loaded.predict(AUDIO, verbose=0), model.predict(AUDIO, verbose=0), rtol=1e-5)
    config_round_trip(mel)
    assert layers.MelSpectrogram(dtype="float64")(AUDIO).dtype == tf.float64


def test_errors_name_the_layer():
    with pytest.raises(ValueError, match=r"MelSpectrogram layer 'mel' expected `fft_length` to be at least"):
        layers.MelSpectrogram(fft_length=256, sequence_length=512, name="mel")
    with pytest.raises(ValueError, match=r"'mel' expected `window` to be 'hann', 'hamming', None"):
        layers.MelSpectrogram(window="blackman", name="mel")
    with pytest.raises(ValueError, match=r"'mel' expected 0 <= min_freq < max_freq <= sampling_rate / 2 = 8000.0"):
        layers.MelSpectrogram(max_freq=9000, name="mel")
    with pytest.raises(ValueError, match=r"'mel' expected `num_mel_bins` to be a positive integer, got 0"):
        layers.MelSpectrogram(num_mel_bins=0, name="mel")
