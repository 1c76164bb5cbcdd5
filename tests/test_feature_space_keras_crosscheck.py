"""tfkit's FeatureSpace side by side with Keras 3's: the same data adapted by both encodes to the same numbers.

Skipped without keras. Every feature kind, crosses (of two features: Keras 3 refuses more),
concat and dict modes, batched datasets, dict calls and single samples.
"""

import json

import numpy as np
import pytest
import tensorflow as tf

from tfkit.utils import FeatureSpace

keras = pytest.importorskip("keras")

CITIES = np.array(["paris", "rome", "oslo", "lima", "kyiv", "quito"])


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "plain": rng.normal(size=n).astype("float32"),
        "scaled": rng.uniform(0, 10, size=n).astype("float32"),
        "normal": rng.normal(40, 9, size=n).astype("float32"),
        "binned": rng.normal(50, 12, size=n).round().astype("float32"),
        "code": rng.integers(0, 7, size=n).astype("int64"),
        "city": CITIES[rng.integers(0, len(CITIES), size=n)],
        "zip": rng.integers(1000, 1100, size=n).astype("int64"),
        "tag": np.array([f"t{i}" for i in rng.integers(0, 40, size=n)]),
    }


def _features(space_class, output_mode):
    one_hot = output_mode == "concat"
    mode = "one_hot" if one_hot else "int"
    return {
        "plain": space_class.float(),
        "scaled": space_class.float_rescaled(scale=0.5, offset=-1.0),
        "normal": space_class.float_normalized(),
        "binned": space_class.float_discretized(num_bins=6, output_mode=mode),
        "code": space_class.integer_categorical(output_mode=mode),
        "city": space_class.string_categorical(max_tokens=5, output_mode=mode),
        "zip": space_class.integer_hashed(16, output_mode=mode),
        "tag": space_class.string_hashed(8, output_mode=mode),
    }


def _crosses(space_class, output_mode):
    mode = "one_hot" if output_mode == "concat" else "int"
    return [
        space_class.cross(("code", "city"), crossing_dim=24, output_mode=mode),
        space_class.cross(("binned", "tag"), crossing_dim=10, output_mode=mode),
    ]  # Keras: two features a cross


def _pair(output_mode, batch):
    data = _data()
    spaces = []
    for space_class in (FeatureSpace, keras.utils.FeatureSpace):
        space = space_class(
            features=_features(space_class, output_mode),
            crosses=_crosses(space_class, output_mode),
            output_mode=output_mode,
        )
        dataset = tf.data.Dataset.from_tensor_slices(data)
        space.adapt(dataset.batch(batch) if batch else dataset)
        spaces.append(space)
    return data, spaces


def _numpy(value):
    return {k: np.asarray(v) for k, v in value.items()} if isinstance(value, dict) else np.asarray(value)


def _assert_same(ours, theirs):
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs)
        for key in theirs:
            _assert_same(ours[key], theirs[key])
        return
    assert ours.shape == theirs.shape
    if np.issubdtype(theirs.dtype, np.floating):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("output_mode, batch", [("concat", 16), ("concat", None), ("dict", 32)])
def test_same_encoding_as_keras(output_mode, batch):
    data, (ours, theirs) = _pair(output_mode, batch)
    _assert_same(_numpy(ours(data)), _numpy(theirs(data)))
    sample = {key: value[3] for key, value in data.items()}
    _assert_same(_numpy(ours(sample)), _numpy(theirs(sample)))
    # in a tf.data pipeline
    dataset = tf.data.Dataset.from_tensor_slices(data).batch(50)
    got = [_numpy(x) for x in dataset.map(ours)]
    want = [_numpy(x) for x in dataset.map(theirs)]
    for a, b in zip(got, want):
        _assert_same(a, b)


def test_same_vocabularies_boundaries_and_widths_as_keras():
    _, (ours, theirs) = _pair("concat", 16)
    assert ours.preprocessors["city"].get_vocabulary() == theirs.preprocessors["city"].get_vocabulary()
    assert ours.preprocessors["code"].get_vocabulary() == [
        int(v) for v in theirs.preprocessors["code"].get_vocabulary()
    ]
    np.testing.assert_allclose(
        ours.preprocessors["binned"].bin_boundaries, theirs.preprocessors["binned"].bin_boundaries, rtol=1e-6
    )
    assert ours.get_encoded_features().shape == tuple(theirs.get_encoded_features().shape)
    assert sorted(ours.get_inputs()) == sorted(theirs.get_inputs())
    for key, symbol in ours.get_inputs().items():
        assert symbol.dtype.name == theirs.get_inputs()[key].dtype


def test_string_shorthands_and_defaults_as_keras():
    data = _data(60, seed=2)
    kinds = {
        "plain": "float",
        "scaled": "float_rescaled",
        "normal": "float_normalized",
        "binned": "float_discretized",
        "code": "integer_categorical",
        "city": "string_categorical",
        "zip": "integer_hashed",
        "tag": "string_hashed",
    }
    outs = []
    for space_class in (FeatureSpace, keras.utils.FeatureSpace):
        space = space_class(
            kinds, crosses=[("code", "city"), ("zip", "tag")], crossing_dim=8, hashing_dim=12, num_discretization_bins=5
        )
        space.adapt(tf.data.Dataset.from_tensor_slices(data))
        outs.append(_numpy(space(data)))
    _assert_same(*outs)
    assert outs[0].shape[-1] == 1 + 1 + 1 + 5 + 8 + 7 + 12 + 12 + 8 + 8


def test_same_config_keys_as_keras():
    _, (ours, theirs) = _pair("dict", 32)
    mine, keras_config = ours.get_config(), theirs.get_config()
    assert set(keras_config) <= set(mine)
    assert mine["crosses"][0]["class_name"] == keras_config["crosses"][0]["class_name"] == "Cross"
    assert json.loads(json.dumps(mine["crosses"][0]["config"])) == json.loads(
        json.dumps(keras_config["crosses"][0]["config"])
    )
    assert mine["features"]["city"]["class_name"] == "Feature"
    assert set(mine["features"]["city"]["config"]) == set(keras_config["features"]["city"]["config"])
