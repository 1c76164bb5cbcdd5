"""output_mode="tf_idf" for StringLookup, IntegerLookup and TextVectorization: numbers by hand, Keras 3 side by side,
saved and reloaded, in tf.function and in a functional model."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers

DOCS = [["a", "b", "a"], ["a", "c", "d"], ["c", "e", "a"]]
TEXTS = ["The cat sat.", "the dog sat on the cat", "a bird", ""]


def idf(document_counts, documents):
    return np.log(1.0 + documents / (1.0 + np.asarray(document_counts, dtype=np.float64)))


def keras_or_skip():
    return pytest.importorskip("keras")


def as_text(vocabulary):
    return [v.decode() if isinstance(v, bytes) else v if isinstance(v, str) else int(v) for v in vocabulary]


def test_adapted_string_lookup_weights_and_outputs_by_hand():
    lookup = layers.StringLookup(output_mode="tf_idf")
    lookup.adapt(DOCS)
    # frequencies a:4, c:2, then b, d, e once each (ties in descending order); documents: a 3, c 2, others 1
    assert lookup.get_vocabulary() == ["[UNK]", "a", "c", "e", "d", "b"]
    terms = idf([3, 2, 1, 1, 1], 3)
    expected = np.concatenate([[terms.mean()], terms]).astype("float32")
    np.testing.assert_allclose(lookup.idf_weights.numpy(), expected, rtol=1e-6)
    out = lookup(tf.constant([["a", "a", "z"], ["b", "c", "c"]]))
    assert out.dtype == tf.float32 and out.shape == (2, 6)
    np.testing.assert_allclose(
        out.numpy(), [[expected[0], 2 * expected[1], 0, 0, 0, 0], [0, 0, 2 * expected[2], 0, 0, expected[5]]], rtol=1e-6
    )
    # a 1-D input is one sample, a scalar one term
    np.testing.assert_allclose(
        lookup(tf.constant(["a", "e", "a"])).numpy(), [0, 2 * expected[1], 0, expected[3], 0, 0], rtol=1e-6
    )
    np.testing.assert_allclose(lookup(tf.constant("d")).numpy(), [0, 0, 0, 0, expected[4], 0], rtol=1e-6)
    # rank 3 counts along the last axis, (1, 2, 2) -> (1, 2, 6), as Keras documents it (Keras 3.15 itself sums
    # over axis 1 for rank 3: other numbers here, and a (1, 2, depth) output for a (1, 3, 2) input)
    np.testing.assert_allclose(
        lookup(tf.constant([[["a", "a"], ["e", "z"]]])).numpy(),
        [[[0, 2 * expected[1], 0, 0, 0, 0], [expected[0], 0, 0, expected[3], 0, 0]]],
        rtol=1e-6,
    )


def test_mask_oov_slots_and_padding_by_hand():
    lookup = layers.StringLookup(
        output_mode="tf_idf", mask_token="", num_oov_indices=2, max_tokens=5, pad_to_max_tokens=True
    )
    lookup.adapt([["a", "", "b"], ["", "c", "a"], ["e", "f", "f"]])
    assert lookup.get_vocabulary() == ["[UNK]", "[UNK]", "f", "a", "e"]  # no mask slot in tf_idf mode
    terms = idf([1, 2, 1], 3)
    np.testing.assert_allclose(lookup.idf_weights.numpy(), [terms.mean()] * 2 + list(terms), rtol=1e-6)
    out = lookup(tf.constant([["a", "", "a"]])).numpy()  # the mask token is left out of the counts
    np.testing.assert_allclose(out, [[0, 0, 0, 2 * terms[1], 0]], rtol=1e-6)

    padded = layers.StringLookup(output_mode="tf_idf", max_tokens=6, pad_to_max_tokens=True)
    padded.adapt([["a", "b"]])
    np.testing.assert_allclose(padded.idf_weights.numpy(), [np.log(1.5)] * 3 + [0, 0, 0], rtol=1e-6)
    assert padded(tf.constant([["b"]])).shape == (1, 6)


def test_given_vocabulary_and_weights_by_hand():
    lookup = layers.StringLookup(output_mode="tf_idf", vocabulary=["a", "b"], idf_weights=[1.0, 2.0])
    np.testing.assert_array_equal(lookup.idf_weights.numpy(), [1.5, 1.0, 2.0])  # the OOV slot: their mean
    np.testing.assert_array_equal(lookup(tf.constant([["a", "a", "b", "z"]])).numpy(), [[1.5, 2.0, 2.0]])
    with_oov = layers.StringLookup(output_mode="tf_idf", vocabulary=["[UNK]", "a", "b"], idf_weights=[9.0, 1.0, 2.0])
    np.testing.assert_array_equal(with_oov.idf_weights.numpy(), [9.0, 1.0, 2.0])
    with_oov.set_vocabulary(["x", "y", "z"], np.array([3.0, 4.0, 5.0]))
    assert with_oov.get_vocabulary() == ["[UNK]", "x", "y", "z"]
    np.testing.assert_array_equal(with_oov(tf.constant([["z", "q"]])).numpy(), [[4.0, 0, 0, 5.0]])
    numbers = layers.IntegerLookup(
        output_mode="tf_idf", vocabulary=[5, 6], idf_weights=[0.5, 0.25], max_tokens=5, pad_to_max_tokens=True
    )
    np.testing.assert_array_equal(numbers.idf_weights.numpy(), [0.375, 0.5, 0.25, 0, 0])
    np.testing.assert_array_equal(
        numbers(tf.ragged.constant([[5, 6, 6, 9], [6]])).numpy(), [[0.375, 0.5, 0.5, 0, 0], [0, 0, 0.25, 0, 0]]
    )


def test_adapt_flattens_ragged_nested_and_sparse_documents():
    # each row of the first axis is one document, whatever lies under it
    nested = tf.ragged.constant([[["a", "b"], ["a"]], [["c"]], [["a", "c", "c"]]])
    lookup = layers.StringLookup(output_mode="tf_idf")
    lookup.adapt(nested)
    assert lookup.get_vocabulary() == ["[UNK]", "c", "a", "b"]
    terms = idf([2, 2, 1], 3)
    np.testing.assert_allclose(lookup.idf_weights.numpy(), [terms.mean(), *terms], rtol=1e-6)
    ragged_list = layers.StringLookup(output_mode="tf_idf")
    ragged_list.adapt([["a", "b"], ["a", "c"], ["a", "c", "c"]])  # rows of different lengths
    assert ragged_list.get_vocabulary() == ["[UNK]", "c", "a", "b"]
    np.testing.assert_allclose(ragged_list.idf_weights.numpy()[1:], idf([2, 3, 1], 3), rtol=1e-6)
    sparse = tf.sparse.from_dense(tf.constant([[1, 2, 0], [2, 0, 0], [3, 3, 0]], tf.int64))
    numbers = layers.IntegerLookup(output_mode="tf_idf", mask_token=0)
    numbers.adapt(sparse)
    assert numbers.get_vocabulary() == [-1, 3, 2, 1]
    np.testing.assert_allclose(numbers.idf_weights.numpy()[1:], idf([1, 2, 1], 3), rtol=1e-6)
    streamed = layers.StringLookup(output_mode="tf_idf")
    streamed.adapt(batch for batch in (np.array(["a", "b", "a"]), np.array(["a"])))  # a 1-D batch: one document
    np.testing.assert_allclose(streamed.idf_weights.numpy()[1:], idf([2, 1], 2), rtol=1e-6)


def test_text_vectorization_by_hand():
    vectorize = layers.TextVectorization(output_mode="tf_idf")
    vectorize.adapt(TEXTS)
    assert vectorize.get_vocabulary() == ["[UNK]", "the", "sat", "cat", "on", "dog", "bird", "a"]
    terms = idf([2, 2, 2, 1, 1, 1, 1], 4)  # four documents, the empty text one of them
    expected = np.concatenate([[terms.mean()], terms])
    np.testing.assert_allclose(vectorize.lookup.idf_weights.numpy(), expected, rtol=1e-6)
    out = vectorize(tf.constant(["the cat, the CAT", "zebra", ""])).numpy()
    np.testing.assert_allclose(
        out, [[0, 2 * terms[0], 0, 2 * terms[2], 0, 0, 0, 0], [expected[0], 0, 0, 0, 0, 0, 0, 0], [0] * 8], rtol=1e-6
    )


STRING_CASES = [
    ({}, DOCS),
    ({}, ["a", "b", "a", "c"]),
    ({"mask_token": "", "num_oov_indices": 2}, [["a", "", "b"], ["", "c", "a"]]),
    ({"max_tokens": 4, "pad_to_max_tokens": True}, DOCS),
    ({"max_tokens": 3}, DOCS),
    ({"num_oov_indices": 0}, DOCS),
    ({}, tf.data.Dataset.from_tensor_slices(["a", "b", "a", "c", "a"]).batch(2)),
    ({}, tf.ragged.constant([["a", "b", "a"], ["c"]])),
    ({"vocabulary": ["a", "b", "c", "d", "e"], "idf_weights": [0.5, 1.0, 1.5, 2.0, 2.5]}, None),
    ({"vocabulary": ["[UNK]", "a", "b", "c", "d", "e"], "idf_weights": [7.0, 0.5, 1.0, 1.5, 2.0, 2.5]}, None),
    ({"vocabulary": ["a", "e"], "idf_weights": np.array([0.1, 0.2]), "max_tokens": 5, "pad_to_max_tokens": True}, None),
]


@pytest.mark.parametrize("kwargs,data", STRING_CASES)
def test_string_lookup_matches_keras(kwargs, data):
    keras = keras_or_skip()
    ours, theirs = (
        layers.StringLookup(output_mode="tf_idf", **kwargs),
        keras.layers.StringLookup(output_mode="tf_idf", **kwargs),
    )
    if data is not None:
        ours.adapt(data)
        theirs.adapt(data)
    assert ours.get_vocabulary() == as_text(theirs.get_vocabulary())
    np.testing.assert_allclose(ours.idf_weights.numpy(), theirs.idf_weights.numpy(), rtol=1e-6)
    queries = [tf.constant([["a", "a", "z"], ["d", "b", ""]]), tf.constant(["a", "c", "a"]), tf.constant("e")]
    if kwargs.get("num_oov_indices") == 0:
        queries = [tf.constant([["a", "a", "b"], ["d", "b", "c"]])]
    for query in queries:
        expected = np.asarray(theirs(query))
        assert ours(query).shape == expected.shape
        np.testing.assert_allclose(ours(query).numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize(
    "kwargs,data",
    [
        ({}, np.array([[1, 2, 2], [3, 1, 0]])),
        ({"mask_token": 0}, np.array([[1, 2, 2], [3, 1, 0], [4, 4, 4]])),
        ({"num_oov_indices": 2}, np.array([[1, 2], [2, 3]])),
        ({"vocabulary": [5, 6, 1], "idf_weights": [0.5, 0.25, 2.0]}, None),
    ],
)
def test_integer_lookup_matches_keras(kwargs, data):
    keras = keras_or_skip()
    ours, theirs = (
        layers.IntegerLookup(output_mode="tf_idf", **kwargs),
        keras.layers.IntegerLookup(output_mode="tf_idf", **kwargs),
    )
    if data is not None:
        ours.adapt(data)
        theirs.adapt(data)
    assert ours.get_vocabulary() == as_text(theirs.get_vocabulary())
    np.testing.assert_allclose(ours.idf_weights.numpy(), theirs.idf_weights.numpy(), rtol=1e-6)
    query = tf.constant([[1, 0, 7, 1], [2, 2, 3, 6]], tf.int64)
    np.testing.assert_allclose(ours(query).numpy(), np.asarray(theirs(query)), rtol=1e-6)


@pytest.mark.parametrize(
    "kwargs,data",
    [
        ({}, TEXTS),
        ({"max_tokens": 5}, TEXTS),
        ({"max_tokens": 12, "pad_to_max_tokens": True, "ngrams": 2}, TEXTS),
        ({"split": "character", "standardize": "lower"}, TEXTS),
        ({}, tf.data.Dataset.from_tensor_slices(TEXTS).batch(3)),
        ({"vocabulary": ["cat", "the"], "idf_weights": [0.3, 0.7]}, None),
        (
            {
                "vocabulary": ["[UNK]", "cat", "the"],
                "idf_weights": [1.5, 0.3, 0.7],
                "max_tokens": 6,
                "pad_to_max_tokens": True,
            },
            None,
        ),
    ],
)
def test_text_vectorization_matches_keras(kwargs, data):
    keras = keras_or_skip()
    ours = layers.TextVectorization(output_mode="tf_idf", **kwargs)
    theirs = keras.layers.TextVectorization(output_mode="tf_idf", **kwargs)
    if data is not None:
        ours.adapt(data)
        theirs.adapt(data)
    assert ours.get_vocabulary() == as_text(theirs.get_vocabulary())
    np.testing.assert_allclose(ours.lookup.idf_weights.numpy(), theirs._lookup_layer.idf_weights.numpy(), rtol=1e-6)
    query = tf.constant(["the cat sat", "zebra the the", "", "A bird, a BIRD"])
    np.testing.assert_allclose(ours(query).numpy(), np.asarray(theirs(query)), rtol=1e-6)


def _adapted_layers():
    words = layers.StringLookup(output_mode="tf_idf", mask_token="", num_oov_indices=2, name="words")
    words.adapt([["a", "b", "a"], ["c", "a", ""], ["d"]])
    numbers = layers.IntegerLookup(output_mode="tf_idf", max_tokens=6, pad_to_max_tokens=True, name="numbers")
    numbers.adapt(np.array([[1, 2], [2, 3], [3, 3]]))
    text = layers.TextVectorization(output_mode="tf_idf", ngrams=2, name="text")
    text.adapt(TEXTS)
    given = layers.StringLookup(
        output_mode="tf_idf", vocabulary=["[UNK]", "[UNK]", "x"], idf_weights=[4.0, 2.0, 1.0], name="given"
    )
    return words, numbers, text, given


def _functional_model():
    words, numbers, text, given = _adapted_layers()
    w_in, n_in = tfkit.Input((3,), dtype="string"), tfkit.Input((2,), dtype="int64")
    t_in, g_in = tfkit.Input((1,), dtype="string"), tfkit.Input((2,), dtype="string")
    encoded = [words(w_in), numbers(n_in), text(t_in), given(g_in)]
    assert [tuple(e.shape) for e in encoded] == [(None, 6), (None, 6), (None, text.vocabulary_size()), (None, 3)]
    merged = layers.Concatenate()(encoded)
    return tfkit.Model([w_in, n_in, t_in, g_in], layers.Dense(2)(merged))


INPUTS = [
    tf.constant([["a", "z", ""], ["c", "c", "b"]]),
    tf.constant([[1, 9], [3, 3]], tf.int64),
    tf.constant([["the cat sat"], ["zebra"]]),
    tf.constant([["x", "x"], ["y", "x"]]),
]


@pytest.mark.parametrize("suffix", [".h5", ".keras"])
def test_model_save_and_load_gives_the_same_outputs(tmp_path, suffix):
    model = _functional_model()
    expected = model(INPUTS).numpy()
    paths = model.weight_paths()
    assert {"words/idf_weights", "numbers/idf_weights", "text/lookup/idf_weights", "given/idf_weights"} <= set(paths)
    model.save(tmp_path / f"m{suffix}")
    loaded = tfkit.load_model(tmp_path / f"m{suffix}")
    np.testing.assert_array_equal(loaded(INPUTS).numpy(), expected)
    for name in ("words", "numbers", "given"):
        np.testing.assert_array_equal(
            loaded.get_layer(name).idf_weights.numpy(), model.get_layer(name).idf_weights.numpy()
        )
        assert loaded.get_layer(name).get_vocabulary() == model.get_layer(name).get_vocabulary()


def test_idf_weights_travel_with_the_weights_file(tmp_path):
    model = _functional_model()
    model.save_weights(tmp_path / "m.weights.h5")
    twin = _functional_model()
    twin.set_weights(model.get_weights())
    twin.get_layer("words").idf_weights.assign(tf.zeros([6]))
    assert not np.array_equal(twin(INPUTS).numpy(), model(INPUTS).numpy())
    twin.load_weights(tmp_path / "m.weights.h5")
    np.testing.assert_array_equal(twin(INPUTS).numpy(), model(INPUTS).numpy())


def test_a_doctored_max_tokens_is_refused_before_its_weights_are_allocated(tmp_path):
    h5py = pytest.importorskip("h5py")
    lookup = layers.StringLookup(output_mode="tf_idf", max_tokens=6, pad_to_max_tokens=True)
    lookup.adapt(DOCS)
    inputs = tfkit.Input((3,), dtype="string")
    tfkit.Model(inputs, lookup(inputs)).save(tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "r+") as f:  # padding to 10**9 would be 8 GB of float64 zeros
        f.attrs["model_config"] = f.attrs["model_config"].replace('"max_tokens": 6', '"max_tokens": 1000000000')
    with pytest.raises(ValueError, match=r"would create variable 'idf_weights' with 1000000000 elements"):
        tfkit.load_model(tmp_path / "m.h5")


def test_config_round_trip():
    for layer, query in zip(_adapted_layers(), INPUTS):
        config = layer.get_config()
        assert config["output_mode"] == "tf_idf" and len(config["idf_weights"]) == len(config["vocabulary"])
        twin = type(layer).from_config(config)
        assert twin.get_vocabulary() == layer.get_vocabulary()
        np.testing.assert_array_equal(twin(query).numpy(), layer(query).numpy())
    words = _adapted_layers()[0]
    assert words.get_config()["vocabulary"] == ["[UNK]", "[UNK]", "a", "d", "c", "b"]
    assert layers.StringLookup(output_mode="tf_idf").get_config()["idf_weights"] is None
    blank = layers.StringLookup.from_config(layers.StringLookup(output_mode="tf_idf").get_config())
    blank.adapt(DOCS)
    assert blank.get_vocabulary()[1] == "a"


def test_tf_function_and_symbolic_use():
    lookup = layers.StringLookup(output_mode="tf_idf")
    lookup.adapt(DOCS)

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.string)])
    def encode(tokens):
        return lookup(tokens)

    query = tf.constant([["a", "c"], ["e", "q"]])
    np.testing.assert_array_equal(encode(query).numpy(), lookup(query).numpy())
    assert encode(query)[0, 1].numpy() == pytest.approx(idf(3, 3), rel=1e-6)
    ragged = tf.function(lambda t: lookup(t), input_signature=[tf.RaggedTensorSpec([None, None], tf.string)])
    np.testing.assert_allclose(
        ragged(tf.ragged.constant([["a", "a", "a"], ["c"]])).numpy()[:, 1:3],
        [[3 * idf(3, 3), 0], [0, idf(2, 3)]],
        rtol=1e-6,
    )
    text = layers.TextVectorization(output_mode="tf_idf", max_tokens=10, pad_to_max_tokens=True)
    text.adapt(TEXTS)
    inputs = tfkit.Input((1,), dtype="string")
    outputs = text(inputs)
    assert tuple(outputs.shape) == (None, 10) and outputs.dtype == tf.float32
    model = tfkit.Model(inputs, outputs)
    np.testing.assert_allclose(
        model.predict(tf.constant([["the cat"]]), verbose=0), text(tf.constant(["the cat"])), rtol=1e-6
    )


def test_bad_arguments_name_the_layer_and_the_argument():
    with pytest.raises(ValueError, match=r"StringLookup layer 'w'.*a vocabulary needs its idf_weights.*None"):
        layers.StringLookup(output_mode="tf_idf", vocabulary=["a"], name="w")
    with pytest.raises(
        ValueError,
        match=r"IntegerLookup layer 'n': idf_weights are only used with "
        r"output_mode='tf_idf', got output_mode='count'",
    ):
        layers.IntegerLookup(output_mode="count", vocabulary=[1], idf_weights=[1.0], name="n")
    with pytest.raises(ValueError, match=r"'w': idf_weights need the vocabulary they weight, got vocabulary=None"):
        layers.StringLookup(output_mode="tf_idf", idf_weights=[1.0], name="w")
    with pytest.raises(
        ValueError,
        match=r"'w': idf_weights must be a 1-D .*one weight per vocabulary entry "
        r"\(2 entries\), got shape \(3,\)",
    ):
        layers.StringLookup(output_mode="tf_idf", vocabulary=["a", "b"], idf_weights=[1.0, 2.0, 3.0], name="w")
    with pytest.raises(ValueError, match=r"got shape \(2, 1\)"):
        layers.StringLookup(output_mode="tf_idf", vocabulary=["a", "b"], idf_weights=[[1.0], [2.0]], name="w")
    with pytest.raises(ValueError, match=r"'w': idf_weights must be numbers.*'x'"):
        layers.StringLookup(output_mode="tf_idf", vocabulary=["a"], idf_weights=["x"], name="w")
    with pytest.raises(ValueError, match=r"'w': set_vocabulary got a vocabulary of 4 entries .* max_tokens=3"):
        layers.StringLookup(
            output_mode="tf_idf", vocabulary=["a", "b", "c"], idf_weights=[1.0] * 3, max_tokens=3, name="w"
        )
    lookup = layers.StringLookup(output_mode="tf_idf", name="late")
    with pytest.raises(RuntimeError, match=r"'late': output_mode='tf_idf' needs a vocabulary and its idf weights"):
        lookup(tf.constant([["a"]]))
    with pytest.raises(ValueError, match=r"'late'.*set_vocabulary\(vocabulary, idf_weights\)"):
        lookup.set_vocabulary(["a"])
    with pytest.raises(ValueError, match=r"'late': adapt\(\) found no terms"):
        lookup.adapt([["[UNK]"]])
    with pytest.raises(ValueError, match=r"TextVectorization layer 'tv'.*a vocabulary needs its idf_weights"):
        layers.TextVectorization(output_mode="tf_idf", vocabulary=["a"], name="tv")
    with pytest.raises(
        ValueError,
        match=r"TextVectorization layer 'tv': idf_weights are only used with "
        r"output_mode='tf_idf'",
    ):
        layers.TextVectorization(output_mode="multi_hot", vocabulary=["a"], idf_weights=[1.0], name="tv")
    assert layers.StringLookup(output_mode="tf-idf").output_mode == "tf_idf"  # Keras's older spelling
