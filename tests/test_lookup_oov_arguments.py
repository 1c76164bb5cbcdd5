"""Lookups' OOV handling as Keras 3.15: oov_method, salt, vocabulary_dtype, and num_oov_indices=0 refusing."""

import numpy as np
import pytest
import tensorflow as tf

from tfkit import layers


def test_integer_oov_buckets_are_the_key_modulo_the_bucket_count_by_default():
    lookup = layers.IntegerLookup(vocabulary=[10, 20], num_oov_indices=3)
    # indices: 0..2 OOV slots, 3 -> 10, 4 -> 20; 7 % 3 = 1, 8 % 3 = 2, 9 % 3 = 0, 100 % 3 = 1
    assert lookup(np.array([10, 7, 8, 9, 100])).numpy().tolist() == [3, 1, 2, 0, 1]


def test_farmhash_and_salt_hash_the_key_s_text():
    keys = np.array([7, 8, 9, 100])
    farm = layers.IntegerLookup(vocabulary=[10], num_oov_indices=4, oov_method="farmhash")
    expected = tf.strings.to_hash_bucket_fast(tf.strings.as_string(tf.constant(keys, tf.int64)), 4).numpy()
    assert farm(keys).numpy().tolist() == expected.tolist()
    salted = layers.StringLookup(vocabulary=["a"], num_oov_indices=4, salt=(3, 5))
    strong = tf.strings.to_hash_bucket_strong(["x", "y"], 4, key=[3, 5]).numpy()
    assert salted(np.array(["x", "y"])).numpy().tolist() == strong.tolist()
    assert salted.get_config()["salt"] == [3, 5] and farm.get_config()["oov_method"] == "farmhash"
    assert layers.StringLookup(salt=7).salt == [7, 7]


def test_bad_oov_arguments_are_refused_naming_the_layer():
    with pytest.raises(ValueError, match="oov_method must be 'floormod' or 'farmhash', got 'md5'"):
        layers.IntegerLookup(oov_method="md5")
    with pytest.raises(ValueError, match="salt can only be used with oov_method='farmhash'"):
        layers.IntegerLookup(salt=3)
    with pytest.raises(ValueError, match="salt must be an integer or a pair of integers"):
        layers.StringLookup(salt="pepper")
    with pytest.raises(ValueError, match="only vocabulary_dtype='int64' is supported"):
        layers.IntegerLookup(vocabulary_dtype="int32")


def test_no_oov_slot_means_an_unseen_value_is_an_error():
    lookup = layers.StringLookup(vocabulary=["a", "b"], num_oov_indices=0, name="strict")
    assert lookup(np.array(["b", "a"])).numpy().tolist() == [1, 0]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r'strict.*num_oov_indices=0 every input.*"q"'):
        lookup(np.array(["a", "q"]))
    compiled = tf.function(lambda x: lookup(x))
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_oov_indices=0"):
        compiled(tf.constant(["z"]))


def test_configs_round_trip_and_match_keras_numbers_side_by_side():
    keras = pytest.importorskip("keras")
    keys = np.array([10, 7, 8, 9, 100, 20, 13])
    for kwargs in (
        {"num_oov_indices": 3},
        {"num_oov_indices": 5, "oov_method": "farmhash"},
        {"num_oov_indices": 2, "oov_method": "farmhash", "salt": 11},
    ):
        ours = layers.IntegerLookup(vocabulary=[10, 20], **kwargs)
        theirs = keras.layers.IntegerLookup(vocabulary=[10, 20], **kwargs)
        assert ours(keys).numpy().tolist() == np.asarray(theirs(keys)).tolist()
        again = layers.IntegerLookup.from_config(ours.get_config())
        assert again(keys).numpy().tolist() == ours(keys).numpy().tolist()
        imported = layers.IntegerLookup.from_config(
            {k: v for k, v in theirs.get_config().items() if k not in ("dtype", "vocabulary_size")}
        )
        assert imported(keys).numpy().tolist() == ours(keys).numpy().tolist()
    words = np.array(["a", "zz", "q", "hello"])
    for kwargs in ({"num_oov_indices": 3}, {"num_oov_indices": 3, "salt": [1, 2]}):
        ours, theirs = (
            layers.StringLookup(vocabulary=["a"], **kwargs),
            keras.layers.StringLookup(vocabulary=["a"], **kwargs),
        )
        assert ours(words).numpy().tolist() == np.asarray(theirs(words)).tolist()
