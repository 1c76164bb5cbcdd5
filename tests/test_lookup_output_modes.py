"""StringLookup, IntegerLookup and TextVectorization outputs side by side with Keras 3: every output_mode at input
ranks 0, 1 and 2 (values and compute_output_shape), the mask token (no index outside "int" mode), set_vocabulary
past max_tokens, and Keras .keras archives with lookup layers (tf_idf, int, multi_hot) loaded by tfkit."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers

keras = pytest.importorskip("keras")

VOCAB = ["a", "b", "c"]
IDF = [0.5, 1.5, 2.5]
INPUTS = {
    "rank0": np.array("a", dtype=object),
    "rank1": np.array(["a", "b", "a", "m", "z"], dtype=object),
    "rank2": np.array([["a", "m", "b"], ["c", "z", "c"]], dtype=object),
    "rank2_last1": np.array([["a"], ["m"], ["c"]], dtype=object),
}
MODES = ["int", "one_hot", "multi_hot", "count", "tf_idf"]


def pair(cls_name, **kwargs):
    if kwargs.get("output_mode") == "tf_idf":
        kwargs["idf_weights"] = IDF
    return getattr(layers, cls_name)(**kwargs), getattr(keras.layers, cls_name)(**kwargs)


def values(x):
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


@pytest.mark.parametrize("mask_token", [None, "m"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rank", sorted(INPUTS))
def test_string_lookup_matches_keras_for_every_mode_and_rank(mode, rank, mask_token):
    ours, theirs = pair("StringLookup", vocabulary=VOCAB, mask_token=mask_token, output_mode=mode)
    x = INPUTS[rank]
    expected = values(theirs(tf.constant(x, tf.string)))
    got = values(ours(tf.constant(x, tf.string)))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=1e-6)
    assert ours.get_vocabulary() == [str(v) for v in theirs.get_vocabulary()]
    assert ours.vocabulary_size() == theirs.vocabulary_size()
    assert tuple(ours.compute_output_shape(x.shape)) == tuple(got.shape)


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count"])
def test_string_lookup_1d_input_by_hand(mode):
    lookup = layers.StringLookup(vocabulary=VOCAB, mask_token="m", output_mode=mode)
    out = lookup(tf.constant(["a", "b", "a", "m", "z"])).numpy()
    # indices: [UNK]=0, a=1, b=2, c=3; the mask token "m" has none (dropped)
    expected = {
        "one_hot": [[0, 1, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]],
        "multi_hot": [1, 1, 1, 0],
        "count": [1, 2, 1, 0],
    }[mode]
    np.testing.assert_array_equal(out, np.asarray(expected, np.float32))
    assert lookup.get_vocabulary() == ["[UNK]", "a", "b", "c"]


@pytest.mark.parametrize("mask_token", [None, 0])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rank", ["rank0", "rank1", "rank2", "rank2_last1"])
def test_integer_lookup_matches_keras_for_every_mode_and_rank(mode, rank, mask_token):
    ours, theirs = pair("IntegerLookup", vocabulary=[7, 8, 9], mask_token=mask_token, output_mode=mode)
    table = {"a": 7, "b": 8, "c": 9, "m": 0, "z": 5}
    x = np.vectorize(table.get, otypes=[np.int64])(INPUTS[rank])
    expected = values(theirs(tf.constant(x)))
    got = values(ours(tf.constant(x)))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=1e-6)
    assert [int(v) for v in ours.get_vocabulary()] == [int(v) for v in theirs.get_vocabulary()]
    assert tuple(ours.compute_output_shape(x.shape)) == tuple(got.shape)


@pytest.mark.parametrize("mode", ["multi_hot", "count"])
def test_mask_token_has_no_index_outside_int_mode_as_keras(mode):
    ours, theirs = pair("StringLookup", vocabulary=VOCAB, mask_token="m", output_mode=mode)
    assert ours.get_vocabulary() == ["[UNK]", "a", "b", "c"] == [str(v) for v in theirs.get_vocabulary()]
    x = tf.constant([["m", "m", "a"], ["z", "m", "c"]])
    np.testing.assert_array_equal(values(ours(x)), values(theirs(x)).astype(np.float32))
    np.testing.assert_array_equal(values(ours(x)), [[0, 1, 0, 0], [1, 0, 0, 1]])
    # "int" keeps the mask at 0
    assert layers.StringLookup(vocabulary=VOCAB, mask_token="m").get_vocabulary() == ["m", "[UNK]", "a", "b", "c"]


def test_rank3_keeps_the_documented_last_axis_rule():
    # Keras 3's call sums over axis 1 for rank-3 inputs (against its compute_output_shape); tfkit sums the last axis
    lookup = layers.StringLookup(vocabulary=VOCAB, output_mode="count")
    out = lookup(tf.constant([[["a", "b"], ["c", "c"]]])).numpy()
    np.testing.assert_array_equal(out, [[[0, 1, 1, 0], [0, 0, 0, 2]]])
    assert tuple(lookup.compute_output_shape((1, 2, 2))) == (1, 2, 4)


@pytest.mark.parametrize("mode", ["int", "one_hot", "multi_hot", "count"])
def test_set_vocabulary_past_max_tokens_raises_as_keras(mode):
    ours = layers.StringLookup(max_tokens=3, output_mode=mode, name="small")
    theirs = keras.layers.StringLookup(max_tokens=3, output_mode=mode)
    with pytest.raises(ValueError):
        theirs.set_vocabulary(["a", "b", "c"])
    with pytest.raises(ValueError, match=r"StringLookup layer 'small'.*set_vocabulary.* 4 entries.*max_tokens=3"):
        ours.set_vocabulary(["a", "b", "c"])
    ours.set_vocabulary(["a", "b"])  # 2 tokens and the OOV index fit
    assert ours.get_vocabulary() == ["[UNK]", "a", "b"]
    with pytest.raises(ValueError, match=r"IntegerLookup layer 'ints'.*max_tokens=2"):
        layers.IntegerLookup(max_tokens=2, vocabulary=[4, 5], name="ints")
    with pytest.raises(ValueError, match=r"TextVectorization.*max_tokens=3"):
        layers.TextVectorization(max_tokens=3, vocabulary=["a", "b"])  # "", "[UNK]", a, b: 4 entries


TEXTS = np.array([["the cat sat"], ["the dog"], ["a cat and a dog"], ["zebra"]], dtype=object)


@pytest.mark.parametrize("mode", ["multi_hot", "count", "tf_idf"])
@pytest.mark.parametrize("shape", ["batch", "batch_1", "scalar"])
def test_text_vectorization_matches_keras(mode, shape):
    kwargs = {"output_mode": mode, "vocabulary": ["the", "cat", "dog", "a"]}
    if mode == "tf_idf":
        kwargs["idf_weights"] = [0.2, 0.4, 0.6, 0.8]
    ours, theirs = layers.TextVectorization(**kwargs), keras.layers.TextVectorization(**kwargs)
    x = {"batch": TEXTS[:, 0], "batch_1": TEXTS, "scalar": TEXTS[2, 0]}[shape]
    expected, got = values(theirs(tf.constant(x, tf.string))), values(ours(tf.constant(x, tf.string)))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=1e-6)
    assert tuple(ours.compute_output_shape(np.shape(x))) == got.shape


def test_text_vectorization_multi_hot_drops_empty_tokens_as_keras():
    kwargs = {"output_mode": "count", "vocabulary": ["x", "y"], "split": None, "standardize": None}
    ours, theirs = layers.TextVectorization(**kwargs), keras.layers.TextVectorization(**kwargs)
    x = tf.constant([["x"], [""], ["q"]])
    np.testing.assert_array_equal(values(ours(x)), values(theirs(x)).astype(np.float32))
    np.testing.assert_array_equal(values(ours(x)), [[0, 1, 0], [0, 0, 0], [1, 0, 0]])


# -- Keras .keras archives


def _save_and_compare(tmp_path, model, x, name):
    path = str(tmp_path / f"{name}.keras")
    model.save(path)
    expected = values(model(x))
    loaded = tfkit.load_model(path)
    got = values(loaded(x))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=1e-5, atol=1e-6)
    return loaded


@pytest.mark.parametrize("pad", [False, True])
def test_keras_archive_with_adapted_tf_idf_text_vectorization(tmp_path, pad):
    texts = tf.constant(["the cat sat", "the dog", "a cat and a dog", "zebra"])
    vectorize = keras.layers.TextVectorization(output_mode="tf_idf", max_tokens=10, pad_to_max_tokens=pad)
    vectorize.adapt(texts)
    inputs = keras.Input((1,), dtype="string")
    model = keras.Model(inputs, keras.layers.Dense(3)(vectorize(inputs)))
    loaded = _save_and_compare(tmp_path, model, tf.constant([["the cat"], ["zebra dog q"], ["a a a"]]), "tv")
    ours = [layer for layer in loaded.layers if isinstance(layer, layers.TextVectorization)][0]
    np.testing.assert_allclose(ours.lookup.idf_weights.numpy(), vectorize._lookup_layer.idf_weights.numpy(), rtol=1e-6)
    assert ours.get_vocabulary() == [str(v) for v in vectorize.get_vocabulary()]


def test_keras_archive_with_adapted_tf_idf_lookups(tmp_path):
    strings = keras.layers.StringLookup(output_mode="tf_idf", mask_token="m")
    strings.adapt(tf.constant([["a", "b"], ["a", "c"], ["m", "d"]]))
    inputs = keras.Input((3,), dtype="string")
    _save_and_compare(
        tmp_path, keras.Model(inputs, strings(inputs)), tf.constant([["a", "m", "q"], ["b", "b", "d"]]), "sl"
    )
    ints = keras.layers.IntegerLookup(output_mode="tf_idf")
    ints.adapt(tf.constant([[1, 2], [1, 3], [4, 4]], tf.int64))
    inputs = keras.Input((2,), dtype="int64")
    _save_and_compare(
        tmp_path,
        keras.Model(inputs, keras.layers.Dense(2)(ints(inputs))),
        tf.constant([[1, 9], [4, 3]], tf.int64),
        "il",
    )


def test_keras_archive_with_given_vocabulary_and_idf_weights(tmp_path):
    lookup = keras.layers.StringLookup(output_mode="tf_idf", vocabulary=["a", "b"], idf_weights=[0.5, 0.7])
    inputs = keras.Input((3,), dtype="string")
    _save_and_compare(
        tmp_path, keras.Model(inputs, lookup(inputs)), tf.constant([["a", "m", "q"], ["b", "b", "a"]]), "given"
    )


def test_keras_archive_with_int_and_multi_hot_lookups_still_imports(tmp_path):
    texts = tf.constant(["the cat sat", "the dog", "a cat and a dog"])
    vectorize = keras.layers.TextVectorization(output_sequence_length=4)
    vectorize.adapt(texts)
    inputs = keras.Input((1,), dtype="string")
    model = keras.Model(inputs, keras.layers.Embedding(20, 2)(vectorize(inputs)))
    _save_and_compare(tmp_path, model, tf.constant([["the cat"], ["dog q"]]), "tv_int")
    multi = keras.layers.TextVectorization(output_mode="multi_hot")
    multi.adapt(texts)
    inputs = keras.Input((1,), dtype="string")
    model = keras.Model(inputs, keras.layers.Dense(2)(multi(inputs)))
    _save_and_compare(tmp_path, model, tf.constant([["the cat"], ["dog q"]]), "tv_multi")
    lookup = keras.layers.StringLookup(output_mode="multi_hot", mask_token="m")
    lookup.adapt(tf.constant([["a", "b"], ["a", "c"]]))
    model = keras.Sequential([keras.Input((3,), dtype="string"), lookup, keras.layers.Dense(2)])
    _save_and_compare(tmp_path, model, tf.constant([["a", "m", "q"], ["b", "c", "c"]]), "sl_multi")
