"""Keras 3.15's format / preferred_backend / splines / subgraph arguments of the data and plot utilities."""

import shutil

import numpy as np
import pytest

import tfkit
from tfkit import utils


def test_format_tf_builds_a_dataset_and_grain_is_refused_with_the_reason(tmp_path):
    data = np.arange(10, dtype="float32")
    windows = utils.timeseries_dataset_from_array(data, None, sequence_length=3, batch_size=4, format="tf")
    assert next(iter(windows)).shape == (4, 3)
    with pytest.raises(ValueError, match="timeseries_dataset_from_array: format='grain' .* use format='tf'"):
        utils.timeseries_dataset_from_array(data, None, sequence_length=3, format="grain")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.txt").write_text("hello")
    with pytest.raises(ValueError, match="text_dataset_from_directory: format must be 'tf'"):
        utils.text_dataset_from_directory(str(tmp_path), format="pandas")
    with pytest.raises(ValueError, match="image_dataset_from_directory: format='grain'"):
        utils.image_dataset_from_directory(str(tmp_path), format="grain")


def test_split_dataset_takes_preferred_backend():
    left, right = utils.split_dataset(np.arange(10), left_size=0.8, preferred_backend="tensorflow")
    assert len(list(left)) == 8 and len(list(right)) == 2
    with pytest.raises(ValueError, match="preferred_backend must be None or 'tensorflow' .*got 'torch'"):
        utils.split_dataset(np.arange(10), left_size=0.8, preferred_backend="torch")


@pytest.mark.skipif(shutil.which("dot") is None, reason="model_to_dot needs Graphviz's dot program, as in Keras")
def test_model_to_dot_splines_and_subgraph():
    pydot = pytest.importorskip("pydot")
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)], name="tiny")
    dot = utils.model_to_dot(model, splines="curved")
    assert dot.get_splines() == "curved" and isinstance(dot, pydot.Dot)
    cluster = utils.model_to_dot(model, subgraph=True)
    assert isinstance(cluster, pydot.Cluster) and cluster.get_name() == "cluster_tiny"
