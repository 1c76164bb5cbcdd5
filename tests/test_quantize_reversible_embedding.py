"""ReversibleEmbedding quantized (the tied or untied output head): numbers by hand, Keras's, files both ways."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf
from quantized_compare import assert_same_quantized_weights

import tfkit

RNG = np.random.default_rng(11)
MODES = {
    "int8": lambda q: None,
    "int4": lambda q: q.Int4QuantizationConfig(block_size=-1),
    "int4_groups": lambda q: q.Int4QuantizationConfig(block_size=4),
}


def _pair(library, tie_weights: bool, cap: float | None = 5.0):
    layer = library.layers.ReversibleEmbedding(12, 6, tie_weights=tie_weights, logit_soft_cap=cap)
    layer.build()
    return layer


def _quantize(layer, mode: str, library=tfkit) -> None:
    layer.quantize("int4" if mode.startswith("int4") else mode, config=MODES[mode](library.quantizers))


def test_the_tied_int8_head_is_the_hand_computed_product():
    layer = _pair(tfkit, tie_weights=True, cap=None)
    table = RNG.normal(size=(12, 6)).astype("float32")
    layer.embeddings.assign(table)
    layer.quantize("int8")
    hidden = RNG.normal(size=(2, 3, 6)).astype("float32")
    eps = tfkit.backend.epsilon()
    table_scale = 127 / (np.max(np.abs(table), axis=-1) + eps)  # one per token
    table_q = np.clip(np.round(table * table_scale[:, None]), -127, 127)
    hidden_scale = 127 / (np.max(np.abs(hidden), axis=-1, keepdims=True) + eps)  # one per row
    hidden_q = np.clip(np.round(hidden * hidden_scale), -127, 127)
    expected = (hidden_q @ table_q.T) / (hidden_scale * table_scale)
    np.testing.assert_allclose(layer(hidden, reverse=True).numpy(), expected, rtol=1e-5, atol=1e-5)
    ids = np.array([[0, 7, 11]])
    np.testing.assert_allclose(layer(ids).numpy(), table_q[ids] / table_scale[ids][..., None], rtol=1e-6)


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("tie_weights", [True, False], ids=["tied", "untied"])
def test_weights_and_logits_equal_keras(tie_weights, mode):
    keras = pytest.importorskip("keras")
    ours, theirs = _pair(tfkit, tie_weights), _pair(keras, tie_weights)
    for mine, keras_weight in zip(ours.weights, theirs.weights):
        value = RNG.normal(size=tuple(mine.shape)).astype("float32")
        mine.assign(value)
        keras_weight.assign(value)
    _quantize(ours, mode)
    _quantize(theirs, mode, library=keras)
    assert_same_quantized_weights(ours, theirs)
    hidden, ids = RNG.normal(size=(2, 3, 6)).astype("float32"), np.array([[1, 5, 11]])
    np.testing.assert_array_equal(ours(hidden, reverse=True).numpy(), np.asarray(theirs(hidden, reverse=True)))
    np.testing.assert_array_equal(ours(ids).numpy(), np.asarray(theirs(ids)))


def _language_model(library, tie_weights: bool):
    ids = library.Input((4,), dtype="int32")
    embedding = library.layers.ReversibleEmbedding(12, 6, tie_weights=tie_weights, name="embedding")
    hidden = library.layers.Dense(6, name="mix")(embedding(ids))
    return library.Model(ids, embedding(hidden, reverse=True))


@pytest.mark.parametrize("mode", ["int8", "int4_groups"])
@pytest.mark.parametrize("tie_weights", [True, False], ids=["tied", "untied"])
def test_quantized_keras_files_load_both_ways(tie_weights, mode, tmp_path):
    keras = pytest.importorskip("keras")
    theirs = _language_model(keras, tie_weights)
    for weight in theirs.weights:
        weight.assign(RNG.normal(size=tuple(weight.shape)).astype("float32"))
    theirs.quantize("int4" if mode != "int8" else "int8", config=MODES[mode](keras.quantizers))
    ids = RNG.integers(0, 12, size=(3, 4))
    keras_path = os.fspath(tmp_path / "keras.keras")
    theirs.save(keras_path)
    ours = tfkit.saving.load_model(keras_path)
    assert ours.get_layer("embedding").dtype_policy.name == theirs.get_layer("embedding").dtype_policy.name
    np.testing.assert_array_equal(ours.predict(ids, verbose=0), theirs.predict(ids, verbose=0))
    tfkit_path = os.fspath(tmp_path / "tfkit.keras")
    ours.save(tfkit_path)
    back = keras.saving.load_model(tfkit_path)
    np.testing.assert_array_equal(np.asarray(back.predict(ids, verbose=0)), theirs.predict(ids, verbose=0))


def test_a_tfkit_quantized_head_round_trips_through_its_own_files(tmp_path):
    model = _language_model(tfkit, tie_weights=False)
    model.quantize("int8")
    ids = RNG.integers(0, 12, size=(3, 4))
    for name in ("m.keras", "m.weights.h5"):
        path = os.fspath(tmp_path / name)
        model.save(path) if name.endswith(".keras") else model.save_weights(path)
        if name.endswith(".keras"):
            loaded = tfkit.saving.load_model(path)
        else:
            loaded = _language_model(tfkit, tie_weights=False)
            loaded.quantize("int8")
            loaded.load_weights(path)
        np.testing.assert_array_equal(loaded.predict(ids, verbose=0), model.predict(ids, verbose=0))
    head = model.get_layer("embedding")
    assert head.reverse_embeddings.dtype == tf.int8 and tuple(head.reverse_embeddings_scale.shape) == (12,)
