"""tfkit.utils.FeatureSpace: Keras 3's structured-data utility, checked by hand (no Keras needed).

space = FeatureSpace({"x": "float_normalized", "c": "string_categorical"}, crosses=[("x", "c")])
space.adapt(dataset); space(batch)                  # one vector per sample
"""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit.utils import FeatureSpace

RAW = {
    "float_values": [0.0, 0.1, 0.2, 0.3],
    "string_values": ["zero", "one", "two", "three"],
    "int_values": [0, 1, 2, 3],
}


def _space(**kwargs):
    space = FeatureSpace(
        features={
            "float_values": "float_normalized",
            "string_values": "string_categorical",
            "int_values": "integer_categorical",
        },
        crosses=[("string_values", "int_values")],
        **kwargs,
    )
    space.adapt(tf.data.Dataset.from_tensor_slices(RAW))
    return space


def test_concat_vector_by_hand():
    space = _space()
    out = space(RAW).numpy()
    # sorted features: float (1), int (OOV + 4 = 5), string (5), then the cross (32)
    assert out.shape == (4, 1 + 5 + 5 + 32)
    values = np.array(RAW["float_values"])
    np.testing.assert_allclose(out[:, 0], (values - values.mean()) / values.std(), rtol=1e-5)
    ints = space.preprocessors["int_values"](tf.constant([[0], [1], [2], [3]])).numpy().ravel()
    np.testing.assert_array_equal(out[:, 1:6], np.eye(5)[ints])
    strings = space.preprocessors["string_values"](tf.constant([[s] for s in RAW["string_values"]])).numpy().ravel()
    np.testing.assert_array_equal(out[:, 6:11], np.eye(5)[strings])
    crossed = (
        tf.sparse.to_dense(tf.sparse.cross_hashed([tf.constant(strings[:, None]), tf.constant(ints[:, None])], 32))
        .numpy()
        .ravel()
    )
    np.testing.assert_array_equal(out[:, 11:], np.eye(32)[crossed])
    # one sample (scalars) gives one vector; a dataset map gives batches
    np.testing.assert_allclose(space({k: v[2] for k, v in RAW.items()}).numpy(), out[2], rtol=1e-6)
    batches = list(tf.data.Dataset.from_tensor_slices(RAW).batch(3).map(space))
    np.testing.assert_allclose(np.concatenate([b.numpy() for b in batches]), out, rtol=1e-6)


def test_dict_mode_int_outputs_and_a_three_way_cross():
    space = FeatureSpace(
        features={
            "s": FeatureSpace.string_categorical(output_mode="int"),
            "i": FeatureSpace.integer_categorical(output_mode="int"),
            "h": FeatureSpace.string_hashed(num_bins=8, output_mode="int"),
        },
        crosses=[FeatureSpace.cross(("s", "i", "h"), crossing_dim=16, output_mode="int")],
        output_mode="dict",
    )
    data = {"s": RAW["string_values"], "i": RAW["int_values"], "h": RAW["string_values"]}
    space.adapt(data)  # a dict of arrays works too
    out = space(data)
    assert sorted(out) == ["h", "i", "s", "s_X_i_X_h"]
    ids = [out[key].numpy() for key in ("s", "i", "h")]
    want = tf.sparse.to_dense(tf.sparse.cross_hashed([tf.constant(x) for x in ids], 16)).numpy()
    np.testing.assert_array_equal(out["s_X_i_X_h"].numpy(), want)
    assert out["s"].shape == (4, 1) and out["s"].dtype == tf.int64


def test_every_kind_and_its_width():
    space = FeatureSpace(
        features={
            "a": FeatureSpace.float(),
            "b": FeatureSpace.float_rescaled(scale=2.0, offset=1.0),
            "c": FeatureSpace.float_discretized(num_bins=3),
            "d": FeatureSpace.float_discretized(bin_boundaries=[0.5]),
            "e": FeatureSpace.integer_hashed(num_bins=4),
            "f": FeatureSpace.string_categorical(max_tokens=3),
        }
    )
    data = {
        "a": [1, 2, 3, 4],
        "b": [0.0, 1.0, 2.0, 3.0],
        "c": [0.1, 0.5, 0.9, 0.7],
        "d": [0.1, 0.6, 0.2, 0.9],
        "e": [5, 6, 7, 8],
        "f": ["x", "y", "x", "z"],
    }
    space.adapt(data)
    out = space(data).numpy()
    assert out.shape == (4, 1 + 1 + 3 + 2 + 4 + 3)
    np.testing.assert_allclose(out[:, 0], [1, 2, 3, 4])  # ints for a float feature become floats
    np.testing.assert_allclose(out[:, 1], [1, 3, 5, 7])
    np.testing.assert_array_equal(out[:, 5:7], [[1, 0], [0, 1], [1, 0], [0, 1]])  # fixed boundaries: no adapt
    assert space.preprocessors["f"].get_vocabulary() == ["[UNK]", "x", "z"]  # max_tokens=3


def test_a_custom_preprocessor_feature():
    text = tfkit.layers.TextVectorization(output_mode="multi_hot", max_tokens=6)
    space = FeatureSpace({"text": FeatureSpace.feature(dtype="string", preprocessor=text, output_mode="float")})
    data = {"text": ["red cat", "blue cat", "red dog"]}
    space.adapt(tf.data.Dataset.from_tensor_slices(data))
    np.testing.assert_array_equal(space(data).numpy(), text(tf.constant([[s] for s in data["text"]])).numpy())


def test_errors_name_the_feature_and_what_to_do():
    with pytest.raises(ValueError, match="non-empty dict"):
        FeatureSpace({})
    with pytest.raises(ValueError, match="feature 'x' has an unknown type 'floaty'"):
        FeatureSpace({"x": "floaty"})
    with pytest.raises(ValueError, match=r"not in `features`: \['y'\]"):
        FeatureSpace({"x": "float"}, crosses=[("x", "y")])
    with pytest.raises(ValueError, match="output_mode"):
        FeatureSpace({"x": "float"}, output_mode="list")
    unadapted = FeatureSpace({"x": "float_normalized"})
    with pytest.raises(ValueError, match=r"call .adapt\(dataset\) before using it.*\['x'\]"):
        unadapted({"x": [1.0]})
    with pytest.raises(ValueError, match="'x' is not encoded .*output_mode='dict'"):
        FeatureSpace({"x": FeatureSpace.integer_hashed(4, output_mode="int")}).get_encoded_features()
    with pytest.raises(ValueError, match="'x' has output_mode='one_hot'.*Identity.*output_mode='int'"):
        FeatureSpace({"x": FeatureSpace.feature("int32", tfkit.layers.Identity(), "one_hot")}).get_inputs()
    space = FeatureSpace({"x": "float"})
    with pytest.raises(ValueError, match=r"missing: \['x'\], unknown: \['z'\]"):
        space({"z": [1.0]})
    with pytest.raises(ValueError, match="dict of features"):
        space([1.0])
    with pytest.raises(ValueError, match="no labels"):
        FeatureSpace({"x": "float_normalized"}).adapt(tf.data.Dataset.from_tensor_slices(({"x": [1.0]}, [0])))


def test_config_round_trip_is_json_and_keeps_vocabularies():
    space = _space(output_mode="dict")
    config = json.loads(json.dumps(space.get_config()))
    assert config["features"]["string_values"]["class_name"] == "Feature"
    assert config["crosses"][0]["config"]["feature_names"] == ["string_values", "int_values"]
    again = FeatureSpace.from_config(config)
    assert again.output_mode == "dict" and again.crossing_dim == 32
    assert (
        again.preprocessors["string_values"].get_vocabulary() == space.preprocessors["string_values"].get_vocabulary()
    )
    assert [c.name for c in again.crosses] == ["string_values_X_int_values"]
    revived = tfkit.utils.deserialize_keras_object(tfkit.utils.serialize_keras_object(space))
    assert isinstance(revived, FeatureSpace) and sorted(revived.features) == sorted(space.features)


@pytest.mark.parametrize("suffix", ["keras", "h5"])
def test_a_model_on_the_space_saves_loads_and_exports_with_identical_outputs(tmp_path, suffix):
    space = _space()
    inputs = space.get_inputs()
    assert sorted(inputs) == sorted(RAW) and inputs["string_values"].dtype == tf.string
    outputs = tfkit.layers.Dense(2, kernel_initializer="ones")(space.get_encoded_features())
    model = tfkit.Model(inputs, outputs)
    batch = {key: np.array(value) for key, value in RAW.items()}
    expected = model.predict(batch, verbose=0)
    np.testing.assert_allclose(
        expected, tfkit.layers.Dense(2, kernel_initializer="ones")(space(RAW)).numpy(), rtol=1e-5
    )
    model.save(tmp_path / f"model.{suffix}")
    loaded = tfkit.models.load_model(tmp_path / f"model.{suffix}")
    np.testing.assert_array_equal(loaded.predict(batch, verbose=0), expected)
    model.export(tmp_path / "exported")
    served = tf.saved_model.load(str(tmp_path / "exported"))
    tensors = {key: tf.constant(np.array(value)[:, None]) for key, value in RAW.items()}
    tensors["int_values"] = tf.cast(tensors["int_values"], tf.int32)  # the signature takes the Inputs' dtypes
    tensors["float_values"] = tf.cast(tensors["float_values"], tf.float32)
    np.testing.assert_allclose(served.serve(tensors).numpy(), expected, rtol=1e-6)
