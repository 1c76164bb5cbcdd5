"""tfkit.utils.audio_dataset_from_directory on small .wav files written here, against numpy and Keras."""

import os
import wave

import numpy as np
import pytest

from tfkit.utils import audio_dataset_from_directory


def _write_wav(path, samples, rate=8000):
    pcm = (np.asarray(samples) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.tobytes())
    return pcm.astype("float32") / 32768.0  # what decode_wav gives back


@pytest.fixture()
def folder(tmp_path):
    rng = np.random.default_rng(0)
    decoded = {}
    for label, lengths in (("no", (5, 7)), ("yes", (3, 6, 4))):
        os.makedirs(tmp_path / label)
        for i, length in enumerate(lengths):
            path = tmp_path / label / f"{i}.wav"
            decoded[str(path)] = _write_wav(path, rng.uniform(-0.9, 0.9, size=length))
    (tmp_path / "no" / "notes.txt").write_text("not audio")
    return tmp_path, decoded


def test_padded_batches_and_labels(folder):
    root, decoded = folder
    dataset = audio_dataset_from_directory(str(root), batch_size=5, shuffle=False, verbose=False)
    assert dataset.class_names == ["no", "yes"]
    audio, labels = next(iter(dataset))
    assert audio.shape == (5, 7, 1) and list(labels.numpy()) == [0, 0, 1, 1, 1]
    for row, path in enumerate(dataset.file_paths):
        expected = np.zeros(7, "float32")
        expected[: len(decoded[path])] = decoded[path]
        np.testing.assert_allclose(audio[row, :, 0], expected, atol=1e-6)


def test_fixed_length_ragged_and_splits(folder):
    root, decoded = folder
    fixed = audio_dataset_from_directory(
        str(root), output_sequence_length=4, label_mode="categorical", batch_size=None, shuffle=False, verbose=False
    )
    shapes = {tuple(x.shape) for x, _ in fixed}
    assert shapes == {(4, 1)}
    ragged = audio_dataset_from_directory(
        str(root), ragged=True, label_mode=None, batch_size=5, shuffle=False, verbose=False
    )
    batch = next(iter(ragged))
    assert [int(n) for n in batch.row_lengths()] == [5, 7, 3, 6, 4]
    train, val = audio_dataset_from_directory(str(root), validation_split=0.4, subset="both", seed=3, verbose=False)
    assert len(train.file_paths) == 3 and len(val.file_paths) == 2
    assert not set(train.file_paths) & set(val.file_paths)


def test_argument_errors(folder):
    root, _ = folder
    with pytest.raises(ValueError, match="Cannot set both `ragged` and `output_sequence_length`"):
        audio_dataset_from_directory(str(root), ragged=True, output_sequence_length=3)
    with pytest.raises(ValueError, match="label_mode"):
        audio_dataset_from_directory(str(root), label_mode="sparse")
    with pytest.raises(ValueError, match="exactly 2 class_names"):
        os.makedirs(root / "maybe")
        _write_wav(root / "maybe" / "0.wav", [0.1, 0.2])
        audio_dataset_from_directory(str(root), label_mode="binary")


def test_same_batches_as_keras(folder):
    keras = pytest.importorskip("keras")
    root, _ = folder
    mine = audio_dataset_from_directory(str(root), batch_size=5, shuffle=False, verbose=False)
    theirs = keras.utils.audio_dataset_from_directory(str(root), batch_size=5, shuffle=False, verbose=False)
    (a, la), (b, lb) = next(iter(mine)), next(iter(theirs))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(la, lb)
