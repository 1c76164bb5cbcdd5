"""save_model(zipped=) and save_weights(max_shard_size=): Keras's arguments, with tfkit's one-file format."""

import os

import pytest

import tfkit


def _model():
    return tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])


def test_zipped_none_or_true_saves_and_false_is_refused_leaving_nothing(tmp_path):
    path = str(tmp_path / "m.h5")
    tfkit.saving.save_model(_model(), path, zipped=True)
    tfkit.models.save_model(_model(), path, zipped=None)
    assert tfkit.load_model(path).count_params() == 8
    other = str(tmp_path / "other.h5")
    with pytest.raises(ValueError, match="zipped=False asks for Keras's unzipped .keras folder"):
        tfkit.models.save_model(_model(), other, zipped=False)
    assert not os.path.exists(other)


def test_max_shard_size_is_refused_with_the_reason(tmp_path):
    path = str(tmp_path / "w.weights.h5")
    tfkit.saving.save_weights(_model(), path, max_shard_size=None)
    assert os.path.exists(path)
    with pytest.raises(ValueError, match="max_shard_size=2 asks for Keras's sharded weights files"):
        tfkit.saving.save_weights(_model(), str(tmp_path / "x.weights.h5"), max_shard_size=2)
