"""HashedCrossing: Keras's documented bins, side by side with Keras 3 (shapes, dtypes, modes), tf.function, h5."""

import numpy as np
import pytest
import tensorflow as tf
from keras3_crosscheck import config_round_trip

import tfkit
from tfkit import layers

WORDS = np.array(["A", "B", "A", "B", "A"])
CODES = np.array([101, 101, 101, 102, 102])


def test_keras_documented_bins():
    np.testing.assert_array_equal(layers.HashedCrossing(num_bins=5)((WORDS, CODES)).numpy(), [1, 4, 1, 1, 3])
    hot = layers.HashedCrossing(num_bins=5, output_mode="one_hot")((WORDS, CODES)).numpy()
    np.testing.assert_array_equal(hot, np.eye(5, dtype="float32")[[1, 4, 1, 1, 3]])


def test_dtypes_shapes_and_sparse_rows():
    ints = layers.HashedCrossing(num_bins=7)
    assert ints.dtype == "int64" and ints((WORDS, CODES)).dtype == tf.int64
    column = ints((WORDS[:, None], CODES[:, None]))
    assert column.shape == (5, 1) and column.dtype == tf.int64
    assert ints(("A", 3)).shape == ()
    assert layers.HashedCrossing(num_bins=7, dtype="int32")((WORDS, CODES)).dtype == tf.int32
    hot = layers.HashedCrossing(num_bins=7, output_mode="one_hot")
    assert hot((WORDS[:, None], CODES[:, None])).shape == (5, 7) and hot(("A", 3)).shape == (1, 7)
    sparse = layers.HashedCrossing(num_bins=7, output_mode="one_hot", sparse=True)((WORDS, CODES))
    assert isinstance(sparse, tf.SparseTensor)
    np.testing.assert_array_equal(tf.sparse.to_dense(sparse).numpy(), hot((WORDS, CODES)).numpy())
    compiled = tf.function(lambda a, b: ints((a, b)))
    np.testing.assert_array_equal(
        compiled(tf.constant(WORDS), tf.constant(CODES)).numpy(), ints((WORDS, CODES)).numpy()
    )


@pytest.mark.parametrize(
    "features",
    [
        (WORDS, CODES),
        (WORDS[:, None], CODES[:, None]),
        (CODES, CODES * 7, WORDS),
        (np.array("x"), np.array(12)),
        (CODES.astype("int32")[:, None], np.array([[b"q"], [b"r"], [b"s"], [b"t"], [b"u"]])),
    ],
)
@pytest.mark.parametrize("output_mode", ["int", "one_hot"])
def test_matches_keras(features, output_mode):
    keras = pytest.importorskip("keras")
    ours = layers.HashedCrossing(num_bins=11, output_mode=output_mode)
    theirs = keras.layers.HashedCrossing(num_bins=11, output_mode=output_mode)
    got, want = ours(features), keras.ops.convert_to_numpy(theirs(features))
    assert got.dtype.name == str(want.dtype)
    assert tuple(got.shape) == want.shape
    np.testing.assert_array_equal(got.numpy(), want)
    assert ours.get_config() | {"name": None} == theirs.get_config() | {"name": None}


def test_functional_model_predicts_saves_and_loads(tmp_path):
    words, codes = tfkit.Input((1,), dtype="string", name="words"), tfkit.Input((1,), dtype="int32", name="codes")
    crossed = layers.HashedCrossing(9, output_mode="one_hot", name="cross")([words, codes])
    model = tfkit.Model([words, codes], layers.Dense(2)(crossed))
    assert crossed.shape == (None, 9)
    data = [WORDS[:, None], CODES[:, None].astype("int32")]
    path = str(tmp_path / "cross.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    assert type(loaded.get_layer("cross")) is layers.HashedCrossing
    assert loaded.get_layer("cross").get_config() == model.get_layer("cross").get_config()
    np.testing.assert_allclose(loaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-6)
    config_round_trip(model.get_layer("cross"))


def test_errors_name_the_layer():
    layer = layers.HashedCrossing(4, name="cross")
    with pytest.raises(ValueError, match=r"'cross' expects a list or tuple of at least two"):
        layer(WORDS)
    with pytest.raises(ValueError, match=r"'cross' expects features of one shape, got \[\(5,\), \(4,\)\]"):
        layer((WORDS, CODES[:4]))
    with pytest.raises(ValueError, match=r"'cross' expects integer or string features, got \['string', 'float32'\]"):
        layer((WORDS, CODES.astype("float32")))
    with pytest.raises(ValueError, match=r"'cross' expects features of shape \(\), \(batch,\) or \(batch, 1\)"):
        layer((WORDS.reshape(5, 1, 1), CODES.reshape(5, 1, 1)))
    with pytest.raises(ValueError, match=r"'cross' expected `num_bins` to be a positive integer, got 0"):
        layers.HashedCrossing(0, name="cross")
    with pytest.raises(ValueError, match=r"'cross' expected `output_mode` to be one of \['int', 'one_hot'\]"):
        layers.HashedCrossing(3, output_mode="count", name="cross")
    with pytest.raises(ValueError, match=r"'cross': sparse=True applies to output_mode='one_hot' only"):
        layers.HashedCrossing(3, sparse=True, name="cross")
    words, codes = tfkit.Input((1,), dtype="string"), tfkit.Input((1,), dtype="int32")
    with pytest.raises(ValueError, match=r"'cross' with sparse=True returns a tf.SparseTensor.*dense tensors only"):
        layers.HashedCrossing(3, output_mode="one_hot", sparse=True, name="cross")([words, codes])
