"""Preprocessing layers in a model defined before ``adapt``, and their configs, side by side with Keras 3.

Keras 3 defines a model of un-adapted ``Discretization`` and lookup layers (the
symbolic outputs say ``num_bins`` bins, or an unknown width for a lookup's
vocabulary), refuses to run it, and runs it after ``adapt``; tfkit does the
same. The configs of the categorical layers are what Keras's ``from_config``
takes (``Hashing``'s dtype is its ids' type, as Keras's). Keras runs in this
process on the TensorFlow backend; every number is Keras's own.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit.engine import shape_inference

keras = pytest.importorskip("keras")
FRAMEWORKS = (keras, tfkit)

FLOATS = np.random.default_rng(6).normal(size=(64, 4)).astype("float32")
INTS = np.array([[4, 9, 7], [9, 9, 4], [1, 4, 4]], "int64")
STRINGS = np.array([["a", "b", "c"], ["b", "b", "a"], ["d", "a", "a"]])
TEXTS = np.array(["the cat sat", "the dog sat on the mat", "a cat"])
LOOKUP_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def _values(outputs) -> np.ndarray:
    return np.asarray(outputs, dtype=np.float64)


def _symbolic(tensor) -> tuple[tuple, str]:
    return tuple(tensor.shape), tf.as_dtype(tensor.dtype).name


# ------------------------------------------------------------------ Discretization


@pytest.mark.parametrize("mode", ["int", "one_hot", "multi_hot", "count"])
def test_a_discretization_model_is_defined_before_adapt_refused_until_it_and_runs_after(mode):
    results = {}
    for k in FRAMEWORKS:
        x = k.Input((4,))
        bins = k.layers.Discretization(num_bins=4, output_mode=mode)
        y = bins(x)
        model = k.Model(x, y)
        with pytest.raises(ValueError, match="adapt"):
            model(FLOATS[:3])
        bins.adapt(FLOATS)
        results[k.__name__] = _symbolic(y), _values(model(FLOATS[:5])), _values(model.predict(FLOATS[:5], verbose=0))
    (k_spec, k_eager, k_predict), (t_spec, t_eager, t_predict) = results["keras"], results["tfkit"]
    assert t_spec == k_spec
    np.testing.assert_array_equal(t_eager, k_eager)
    np.testing.assert_array_equal(t_predict, k_predict)


def test_the_zoo_discretization_sequential_builds_before_adapt():
    outputs = []
    for k in FRAMEWORKS:
        model = k.Sequential(
            [
                k.Input((4,)),
                k.layers.Discretization(num_bins=4),
                k.layers.CategoryEncoding(num_tokens=4, output_mode="count"),
            ]
        )
        with pytest.raises(ValueError, match="adapt"):
            model.predict(FLOATS[:2], verbose=0)
        model.layers[0].adapt(FLOATS)
        outputs.append(_values(model.predict(FLOATS[:6], verbose=0)))
    np.testing.assert_array_equal(outputs[1], outputs[0])


def test_a_sequential_without_input_builds_from_a_shape_before_adapt():
    outputs = []
    for k in FRAMEWORKS:
        model = k.Sequential([k.layers.Discretization(num_bins=3, output_mode="one_hot"), k.layers.Flatten()])
        model.build((None, 4))
        model.layers[0].adapt(FLOATS)
        outputs.append(_values(model(FLOATS[:4])))
    np.testing.assert_array_equal(outputs[1], outputs[0])


def test_an_adapted_discretization_config_keeps_num_bins_and_the_boundaries_as_keras():
    layers = {}
    for k in FRAMEWORKS:
        layers[k.__name__] = k.layers.Discretization(num_bins=4, output_mode="int")
        layers[k.__name__].adapt(FLOATS)
    config = layers["tfkit"].get_config()
    expected = layers["keras"].get_config()
    assert set(config) == set(expected)  # no "trainable": Keras's Discretization does not take it
    assert config["num_bins"] == expected["num_bins"] == 4
    np.testing.assert_allclose(config["bin_boundaries"], expected["bin_boundaries"], rtol=1e-6)
    for rebuilt in (keras.layers.Discretization.from_config(config), tfkit.layers.Discretization.from_config(config)):
        np.testing.assert_array_equal(_values(rebuilt(FLOATS[:8])), _values(layers["keras"](FLOATS[:8])))
    again = tfkit.layers.Discretization.from_config(config)
    again.adapt(FLOATS[:16] * 10.0)  # still num_bins: it adapts again, as Keras's does
    reference = keras.layers.Discretization.from_config(expected)
    reference.adapt(FLOATS[:16] * 10.0)
    np.testing.assert_allclose(again.bin_boundaries, reference.bin_boundaries, rtol=1e-6)


# ------------------------------------------------------------------ lookups


def _lookup_model(k, kind: str, mode: str, follow: str, pad: bool):
    padding = {"max_tokens": 9, "pad_to_max_tokens": True} if pad else {}
    if kind == "TextVectorization":
        first, layer = k.Input((), dtype="string"), k.layers.TextVectorization(output_mode=mode, **padding)
    elif kind == "StringLookup":
        first, layer = k.Input((3,), dtype="string"), k.layers.StringLookup(output_mode=mode, **padding)
    else:
        first, layer = k.Input((3,), dtype="int64"), k.layers.IntegerLookup(output_mode=mode, **padding)
    last = k.layers.Flatten() if follow == "Flatten" else k.layers.Dense(2, kernel_initializer="ones")
    return k.Sequential([first, layer, last]), layer


_DATA = {"IntegerLookup": INTS, "StringLookup": STRINGS, "TextVectorization": TEXTS}
_LOOKUP_CASES = [
    (kind, mode, "Flatten", False)
    for kind in _DATA
    for mode in LOOKUP_MODES
    if not (kind == "TextVectorization" and mode in ("one_hot", "int"))
]
_LOOKUP_CASES += [("IntegerLookup", mode, "Dense", True) for mode in ("one_hot", "multi_hot", "tf_idf")]
_LOOKUP_CASES += [("StringLookup", "count", "Dense", True), ("TextVectorization", "multi_hot", "Dense", True)]


@pytest.mark.parametrize(
    "kind, mode, follow, pad",
    _LOOKUP_CASES,
    ids=[f"{c[0]}-{c[1]}-{c[2]}{'-padded' if c[3] else ''}" for c in _LOOKUP_CASES],
)
def test_a_lookup_model_defined_before_adapt_predicts_after_it_as_keras(kind, mode, follow, pad):
    data = _DATA[kind]
    results = {}
    for k in FRAMEWORKS:
        model, lookup = _lookup_model(k, kind, mode, follow, pad)
        symbolic = _symbolic(lookup.output)  # before adapt: an unknown width unless padded
        lookup.adapt(data)
        results[k.__name__] = symbolic, _values(model(tf.constant(data)))
    (k_spec, k_out), (t_spec, t_out) = results["keras"], results["tfkit"]
    assert t_spec == k_spec
    np.testing.assert_allclose(t_out, k_out, rtol=1e-6, atol=1e-6)


def test_the_zoo_integer_lookup_predicts_after_adapt():
    outputs = []
    for k in FRAMEWORKS:
        model = k.Sequential(
            [k.Input((3,), dtype="int64"), k.layers.IntegerLookup(output_mode="one_hot"), k.layers.Flatten()]
        )
        model.layers[0].adapt(np.array([[4, 9, 7], [9, 9, 4]], "int64"))
        outputs.append(_values(model.predict(np.array([[4, 9, 4], [7, 7, 1]], "int64"), verbose=0)))
    assert outputs[1].shape == outputs[0].shape == (2, 12)
    np.testing.assert_array_equal(outputs[1], outputs[0])


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count", "tf_idf"])
def test_a_dense_layer_on_an_unknown_vocabulary_width_is_refused_at_definition_as_keras(mode):
    for k in FRAMEWORKS:
        with pytest.raises(ValueError):
            _lookup_model(k, "IntegerLookup", mode, "Dense", pad=False)


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count", "tf_idf"])
def test_an_unadapted_lookup_refuses_a_call_as_keras(mode):
    for k in FRAMEWORKS:
        with pytest.raises(RuntimeError, match="vocabulary"):
            k.layers.IntegerLookup(output_mode=mode)(tf.constant([[1, 2]], tf.int64))
        with pytest.raises(RuntimeError, match="vocabulary"):
            k.layers.StringLookup(output_mode=mode)(tf.constant([["a"]]))


@pytest.mark.parametrize("kind", ["IntegerLookup", "StringLookup", "TextVectorization"])
def test_an_unadapted_lookup_config_is_one_keras_takes(kind):
    layer = getattr(tfkit.layers, kind)(output_mode="multi_hot")
    config = layer.get_config()
    assert (
        config["vocabulary"] is None is getattr(keras.layers, kind)(output_mode="multi_hot").get_config()["vocabulary"]
    )
    rebuilt = getattr(keras.layers, kind).from_config(config)  # Keras refuses an empty vocabulary list
    data = _DATA[kind]
    rebuilt.adapt(data)
    layer.adapt(data)
    np.testing.assert_allclose(_values(layer(tf.constant(data))), _values(rebuilt(tf.constant(data))))


# ------------------------------------------------------------------ Hashing and the other configs


@pytest.mark.parametrize("mode", ["int", "one_hot", "multi_hot", "count"])
@pytest.mark.parametrize("dtype", [None, "int32", "float64"])
def test_hashing_outputs_have_keras_dtype_for_every_mode(mode, dtype):
    kwargs = {} if dtype is None else {"dtype": dtype}
    values = INTS[:, :1] if mode == "one_hot" else INTS
    if mode == "int" and dtype == "float64":
        for k in FRAMEWORKS:
            with pytest.raises(ValueError, match="int32"):
                k.layers.Hashing(num_bins=5, output_mode=mode, **kwargs)
        return
    expected = keras.layers.Hashing(num_bins=5, output_mode=mode, **kwargs)
    layer = tfkit.layers.Hashing(num_bins=5, output_mode=mode, **kwargs)
    assert layer.dtype == expected.dtype
    got, want = layer(values), expected(values)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    rebuilt = keras.layers.Hashing.from_config(layer.get_config())
    np.testing.assert_array_equal(np.asarray(rebuilt(values)), np.asarray(want))


def test_a_hashing_config_written_before_its_dtype_followed_keras_still_loads():
    old = {
        "name": "hashing",
        "trainable": True,
        "dtype": "float32",
        "num_bins": 7,
        "mask_value": None,
        "salt": None,
        "output_mode": "int",
        "sparse": False,
    }
    layer = tfkit.layers.Hashing.from_config(old)
    assert layer.dtype == "int64"
    np.testing.assert_array_equal(np.asarray(layer(INTS)), np.asarray(keras.layers.Hashing(num_bins=7)(INTS)))


def test_the_zoo_hashing_model_config_is_one_keras_takes():
    models = [
        k.Sequential(
            [
                k.Input((3,), dtype="int64"),
                k.layers.Hashing(num_bins=7),
                k.layers.Embedding(7, 2, embeddings_initializer="ones"),
                k.layers.Flatten(),
            ]
        )
        for k in FRAMEWORKS
    ]
    hashing = models[1].layers[0]
    assert tf.as_dtype(hashing.output.dtype) == tf.int64
    rebuilt = keras.layers.Hashing.from_config(hashing.get_config())
    np.testing.assert_array_equal(np.asarray(rebuilt(INTS)), np.asarray(models[0].layers[0](INTS)))
    np.testing.assert_array_equal(_values(models[1](INTS)), _values(models[0](INTS)))


def _layer_pairs():
    cases = [("CategoryEncoding", {"num_tokens": 4, "output_mode": m}) for m in ("one_hot", "multi_hot", "count")]
    cases += [("HashedCrossing", {"num_bins": 5, "output_mode": m}) for m in ("int", "one_hot")]
    cases += [("Discretization", {"bin_boundaries": [0.0, 1.0], "output_mode": m}) for m in ("int", "count")]
    cases += [("Discretization", {"num_bins": 3})]
    cases += [(kind, {"output_mode": m}) for kind in ("IntegerLookup", "StringLookup") for m in LOOKUP_MODES]
    cases += [("TextVectorization", {"output_mode": m}) for m in ("int", "multi_hot", "count", "tf_idf")]
    return cases


@pytest.mark.parametrize(
    "kind, kwargs",
    _layer_pairs(),
    ids=lambda v: v if isinstance(v, str) else "-".join(f"{key}={value}" for key, value in v.items()),
)
def test_a_preprocessing_config_has_keras_keys_and_keras_rebuilds_it(kind, kwargs):
    layer = getattr(tfkit.layers, kind)(**kwargs)
    expected = getattr(keras.layers, kind)(**kwargs).get_config()
    config = layer.get_config()
    extra = set(config) - set(expected)
    assert extra <= {"sparse"}, f"keys Keras's {kind} does not write: {extra}"  # sparse: Keras takes it
    assert set(expected) - set(config) <= {"vocabulary_size"}  # the size Keras records beside its assets
    for key in set(config) & set(expected) - {"name", "dtype"}:
        assert config[key] == expected[key], key
    assert _dtype_name(config["dtype"]) == _dtype_name(expected["dtype"])
    getattr(keras.layers, kind).from_config(config)


def _dtype_name(entry) -> str:
    """A config's dtype: a name (tfkit) or a serialized ``DTypePolicy`` (Keras)."""
    return entry["config"]["name"] if isinstance(entry, dict) else entry


def test_a_stand_in_output_is_for_symbolic_traces_only():
    with pytest.raises(RuntimeError, match="symbolic traces only"):
        shape_inference.stand_in((None, 2), tf.float32)  # eager: a value is needed here
    assert not shape_inference.in_symbolic_trace()
    with shape_inference.symbolic_trace():
        assert shape_inference.in_symbolic_trace()
    assert not shape_inference.in_symbolic_trace()
