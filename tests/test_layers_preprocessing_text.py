"""Normalization, StringLookup, IntegerLookup, TextVectorization: numbers against numpy and Keras, saved and exported."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers

TEXTS = ["The cat sat.", "The dog, the cat!", "A bird", "the end"]


def test_normalization_adapt_matches_numpy_and_streams_datasets():
    x = np.random.default_rng(0).normal(3.0, 2.0, size=(200, 3)).astype("float32")
    norm = layers.Normalization()
    norm.adapt(x)
    np.testing.assert_allclose(norm.mean.numpy(), x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(norm.variance.numpy(), x.var(0), rtol=1e-4)
    np.testing.assert_allclose(norm(x).numpy(), (x - x.mean(0)) / x.std(0), rtol=1e-4, atol=1e-5)
    streamed = layers.Normalization()
    streamed.adapt(tf.data.Dataset.from_tensor_slices(x).batch(7))
    np.testing.assert_allclose(streamed.mean.numpy(), x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(streamed.variance.numpy(), x.var(0), rtol=1e-4)
    inverted = layers.Normalization(mean=x.mean(0), variance=x.var(0), invert=True)
    np.testing.assert_allclose(inverted(norm(x)).numpy(), x, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="both mean and variance"):
        layers.Normalization(mean=1.0)


def test_adapted_normalization_is_saved_with_the_weights(tmp_path):
    x = np.random.default_rng(1).random((50, 4)).astype("float32") * 10
    norm = layers.Normalization()
    norm.adapt(x)
    model = tfkit.Sequential([tfkit.Input((4,)), norm, layers.Dense(1)])
    model.save(tmp_path / "m.keras")
    loaded = tfkit.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5)


def test_lookups_match_keras():
    keras = pytest.importorskip("keras")
    data = ["a", "b", "a", "c", "b", "a", "d"]
    query = tf.constant([["a", "z"], ["d", "c"]])
    for kwargs in ({}, {"mask_token": ""}, {"num_oov_indices": 2}, {"max_tokens": 3}):
        ours, theirs = layers.StringLookup(**kwargs), keras.layers.StringLookup(**kwargs)
        ours.adapt(data)
        theirs.adapt(data)
        assert ours.get_vocabulary() == [str(v) for v in theirs.get_vocabulary()], kwargs
        if kwargs.get("num_oov_indices", 1) == 1:
            np.testing.assert_array_equal(ours(query).numpy(), np.asarray(theirs(query)))
    for mode in ("one_hot", "multi_hot", "count"):
        ours = layers.StringLookup(vocabulary=["a", "b", "c"], output_mode=mode)
        theirs = keras.layers.StringLookup(vocabulary=["a", "b", "c"], output_mode=mode)
        np.testing.assert_array_equal(ours(query).numpy(), np.asarray(theirs(query)))
    ints = tf.constant([12, 5, 36])
    np.testing.assert_array_equal(
        layers.IntegerLookup(vocabulary=[12, 36])(ints).numpy(),
        np.asarray(keras.layers.IntegerLookup(vocabulary=[12, 36])(ints)),
    )
    inverse = layers.StringLookup(vocabulary=["a", "b"], invert=True)
    assert inverse(tf.constant([1, 2, 0])).numpy().tolist() == [b"a", b"b", b"[UNK]"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"output_sequence_length": 5},
        {},
        {"output_mode": "multi_hot"},
        {"output_mode": "count", "max_tokens": 5},
        {"ngrams": 2, "output_mode": "multi_hot"},
        {"standardize": "lower", "split": "character", "output_sequence_length": 8},
    ],
)
def test_text_vectorization_matches_keras(kwargs):
    keras = pytest.importorskip("keras")
    ours, theirs = layers.TextVectorization(**kwargs), keras.layers.TextVectorization(**kwargs)
    ours.adapt(TEXTS)
    theirs.adapt(TEXTS)
    assert ours.get_vocabulary() == [str(v) for v in theirs.get_vocabulary()]
    query = tf.constant(["the cat barked", "a dog"])
    np.testing.assert_array_equal(ours(query).numpy(), np.asarray(theirs(query)))


def test_text_model_trains_saves_and_exports_raw_strings(tmp_path):
    vectorize = layers.TextVectorization(max_tokens=50, output_sequence_length=6)
    vectorize.adapt(TEXTS)
    text = tfkit.Input((1,), dtype="string")
    x = layers.GlobalAveragePooling1D()(layers.Embedding(50, 4)(vectorize(text)))
    model = tfkit.Model(text, layers.Dense(1, activation="sigmoid")(x))
    model.compile("adam", "binary_crossentropy")
    raw = np.array([[t] for t in TEXTS])
    model.fit(raw, np.array([1, 0, 1, 0], "float32"), epochs=2, verbose=0)
    model.save(tmp_path / "text.keras")
    loaded = tfkit.load_model(tmp_path / "text.keras")
    np.testing.assert_allclose(loaded.predict(raw, verbose=0), model.predict(raw, verbose=0), rtol=1e-5)
    path = model.export(str(tmp_path / "export"))
    served = tf.saved_model.load(path).signatures["serving_default"](tf.constant(raw))
    np.testing.assert_allclose(list(served.values())[0].numpy(), model.predict(raw, verbose=0), rtol=1e-5)


def test_callable_standardize_cannot_be_saved():
    layer = layers.TextVectorization(standardize=tf.strings.lower, vocabulary=["a"])
    assert layer(tf.constant(["A a"])).numpy().tolist() == [[2, 2]]
    with pytest.raises(NotImplementedError, match="configs are data, never code"):
        layer.get_config()


@pytest.mark.parametrize(
    "name, kwargs, data",
    [
        ("CategoryEncoding", {"num_tokens": 4, "output_mode": "multi_hot"}, np.array([[0, 1], [2, 2]])),
        ("CategoryEncoding", {"num_tokens": 4, "output_mode": "count"}, np.array([[0, 1], [2, 2]])),
        ("CategoryEncoding", {"num_tokens": 4, "output_mode": "one_hot"}, np.array([0, 3])),
        ("Hashing", {"num_bins": 8}, np.array([["cat"], ["dog"], ["x"]])),
        ("Hashing", {"num_bins": 8, "salt": 7}, np.array([["cat"], ["dog"], ["x"]])),
        ("Hashing", {"num_bins": 8, "mask_value": 0}, np.array([[1], [0], [5]])),
        ("Discretization", {"bin_boundaries": [0.0, 1.0]}, np.array([[-1.5, 0.5, 2.0, 1.0]])),
        ("Discretization", {"bin_boundaries": [0.0, 1.0], "output_mode": "multi_hot"}, np.array([[-1.5, 0.5, 2.0]])),
    ],
)
def test_categorical_layers_match_keras(name, kwargs, data):
    keras = pytest.importorskip("keras")
    ours = getattr(layers, name)(**kwargs)(tf.constant(data)).numpy()
    theirs = np.asarray(getattr(keras.layers, name)(**kwargs)(tf.constant(data)))
    np.testing.assert_array_equal(ours, theirs)
    assert ours.dtype == theirs.dtype


def test_discretization_adapts_quantiles_and_category_encoding_checks_ids():
    values = np.arange(100, dtype="float32")
    layer = layers.Discretization(num_bins=4)
    layer.adapt(values)
    np.testing.assert_allclose(layer.bin_boundaries, [24.0, 49.0, 74.0], rtol=1e-5)  # Keras 3's (approximate) quantiles
    assert layer(np.array([[0.0, 30.0, 60.0, 99.0]])).numpy().tolist() == [[0, 1, 2, 3]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"expects ids in \[0, 3\)"):
        layers.CategoryEncoding(num_tokens=3)(np.array([[1, 5]]))


def test_a_vocabulary_file_is_read_as_keras_reads_it_but_never_from_a_saved_config(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("cat\ndog\n\nbird\n", encoding="utf-8")
    lookup = layers.StringLookup(vocabulary=str(path))
    assert lookup.get_vocabulary() == ["[UNK]", "cat", "dog", "bird"]
    np.testing.assert_array_equal(lookup(tf.constant(["dog", "fish"])).numpy(), [2, 0])
    numbers = tmp_path / "ids.txt"
    numbers.write_text("7\n3\n", encoding="utf-8")
    assert layers.IntegerLookup(vocabulary=numbers).get_vocabulary() == [-1, 7, 3]
    vectorize = layers.TextVectorization(vocabulary=str(path))
    assert vectorize.get_vocabulary() == ["", "[UNK]", "cat", "dog", "bird"]
    config = lookup.get_config()
    assert config["vocabulary"] == ["cat", "dog", "bird"]  # saved as tokens, not as the path
    for layer_class in (layers.StringLookup, layers.TextVectorization):
        with pytest.raises(ValueError, match="never reads files that a saved config names"):
            layer_class.from_config({**layer_class(vocabulary=["a"]).get_config(), "vocabulary": str(path)})
    with pytest.raises(ValueError, match="cannot read the vocabulary file"):
        layers.StringLookup(vocabulary=str(tmp_path / "missing.txt"))


REPEATED = [
    (layers.StringLookup, ["a", "b", "a"], "['a']"),
    (layers.IntegerLookup, [3, 4, 3, 5, 5], "[3, 5]"),
    (layers.TextVectorization, ["x", "y", "x"], "['x']"),
]


@pytest.mark.parametrize("layer_class, vocabulary, repeated", REPEATED)
def test_a_repeated_term_is_refused_with_keras_error(layer_class, vocabulary, repeated):
    expected = (
        "The passed vocabulary has at least one repeated term. Please uniquify your dataset. "
        f"The repeated terms are: {repeated}"
    )
    with pytest.raises(ValueError) as ours:
        layer_class(vocabulary=vocabulary)
    assert expected in str(ours.value)
    with pytest.raises(ValueError) as again:  # set_vocabulary says the same, naming the layer
        layer_class().set_vocabulary(vocabulary)
    assert expected in str(again.value) and "layer '" in str(again.value)


def test_repeated_terms_are_found_in_one_pass_and_listed_briefly():
    tokens = [f"t{i}" for i in range(200_000)] * 2  # counting each token's repeats took minutes
    with pytest.raises(
        ValueError,
        match=r"repeated terms are: \['t0', 't1', .*'t19'\] \.\.\. "
        r"\(200000 repeated terms in all\)",
    ):
        layers.StringLookup(vocabulary=tokens)


def test_special_tokens_inside_a_vocabulary_follow_keras():
    query = tf.constant(["a", "[UNK]", "b", "z"])
    lookup = layers.StringLookup(vocabulary=["a", "[UNK]", "b"])  # an OOV token inside stays a term
    assert lookup.get_vocabulary() == ["[UNK]", "a", "[UNK]", "b"]
    assert lookup(query).numpy().tolist() == [1, 2, 3, 0]
    leading = layers.StringLookup(vocabulary=["[UNK]", "[UNK]", "a"])  # only the leading special block goes
    assert leading.get_vocabulary() == ["[UNK]", "[UNK]", "a"]
    again = layers.StringLookup.from_config(leading.get_config())
    assert again.get_vocabulary() == leading.get_vocabulary()
    assert again(query).numpy().tolist() == leading(query).numpy().tolist() == [2, 1, 0, 0]
    with pytest.raises(
        ValueError,
        match=r"Found reserved mask token at unexpected location .* "
        r"Received: mask_token= at vocabulary index 1",
    ):
        layers.StringLookup(vocabulary=["a", ""], mask_token="")
    with pytest.raises(
        ValueError,
        match=r"Found reserved OOV token at unexpected location .* "
        r"Received: oov_token=\[UNK\] at vocabulary index 1",
    ):
        layers.StringLookup(vocabulary=["a", "[UNK]", "b"], invert=True)
    with pytest.raises(ValueError, match="Found reserved mask token"):
        layers.IntegerLookup(vocabulary=[0, 3, 4], mask_token=0)


def test_vocabulary_rules_match_keras():
    keras = pytest.importorskip("keras")
    query = tf.constant(["a", "[UNK]", "b", "z"])
    for kwargs in (
        {"vocabulary": ["a", "[UNK]", "b"]},
        {"vocabulary": ["[UNK]", "[UNK]", "a"]},
        {"vocabulary": ["[UNK]", "a"], "mask_token": ""},
        {"vocabulary": ["", "[UNK]", "a"], "mask_token": ""},
    ):
        ours, theirs = layers.StringLookup(**kwargs), keras.layers.StringLookup(**kwargs)
        assert ours.get_vocabulary() == [str(v) for v in theirs.get_vocabulary()], kwargs
        assert ours(query).numpy().tolist() == np.asarray(theirs(query)).tolist(), kwargs
    for kwargs in (
        {"vocabulary": ["a", "b", "a"]},
        {"vocabulary": ["a", ""], "mask_token": ""},
        {"vocabulary": ["a", "[UNK]"], "invert": True},
    ):
        with pytest.raises(ValueError) as theirs:
            keras.layers.StringLookup(**kwargs)
        with pytest.raises(ValueError) as ours:
            layers.StringLookup(**kwargs)
        assert str(theirs.value).split(".")[0] in str(ours.value), kwargs  # Keras's first sentence


def test_adapt_on_ragged_and_sparse_tensors_counts_terms_not_rows():
    strings = tfkit.layers.StringLookup()
    strings.adapt(tf.ragged.constant([["cs.CL", "cs.CV"], ["cs.LG", "cs.CL"]]))
    assert strings.get_vocabulary() == ["[UNK]", "cs.CL", "cs.LG", "cs.CV"]  # Keras 3's order, by frequency
    batched = tfkit.layers.StringLookup()
    batched.adapt(tf.data.Dataset.from_tensor_slices(tf.ragged.constant([["a", "b"], ["b"]])).batch(2))
    assert batched.get_vocabulary() == ["[UNK]", "b", "a"]
    integers = tfkit.layers.IntegerLookup()
    integers.adapt(tf.sparse.from_dense(tf.constant([[3, 0, 3], [5, 0, 0]])))
    assert integers.get_vocabulary() == [-1, 3, 5]  # the sparse values only
