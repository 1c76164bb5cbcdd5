"""A quantized layer with LoRA saves as Keras 3 saves it: the update merged into a kernel quantized again.

Keras writes the de-quantized kernel plus ``lora_alpha / lora_rank * A @ B``, quantized again in the
layer's mode, and no factors; loading zeroes the factors. tfkit's file and Keras's file of the same
layer load, in either library, to the same outputs.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import tfkit

keras = pytest.importorskip("keras")
RNG = np.random.default_rng(5)
MODES = {"int8": None, "int4": -1, "int4_groups": 4}  # mode -> int4 block size


def _model(library, kind: str):
    inputs = library.Input((5, 8))
    if kind == "dense":
        layer = library.layers.Dense(6, name="adapted")
    else:
        layer = library.layers.EinsumDense("btd,dnh->btnh", (None, 2, 3), bias_axes="nh", name="adapted")
    return library.Model(inputs, layer(inputs))


def _quantize_with_lora(model, library, mode: str) -> None:
    block = MODES[mode]
    config = None if block is None else library.quantizers.Int4QuantizationConfig(block_size=block)
    model.quantize("int8" if block is None else "int4", config=config)
    model.get_layer("adapted").enable_lora(2)


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("kind", ["dense", "einsum_dense"])
def test_the_merged_file_loads_both_ways_with_kerass_outputs(kind, mode, tmp_path):
    ours, theirs = _model(tfkit, kind), _model(keras, kind)
    for mine, keras_weight in zip(ours.weights, theirs.weights):
        value = RNG.normal(size=tuple(mine.shape)).astype("float32")
        mine.assign(value)
        keras_weight.assign(value)
    _quantize_with_lora(ours, tfkit, mode)
    _quantize_with_lora(theirs, keras, mode)
    keras_factors = {w.path.split("/")[-1]: w for w in theirs.get_layer("adapted").trainable_weights}
    for weight in ours.get_layer("adapted").trainable_weights:  # bias and the two factors
        value = RNG.normal(size=tuple(weight.shape)).astype("float32")
        weight.assign(value)
        keras_factors[weight.path.split("/")[-1]].assign(value)
    ours_path, keras_path = os.fspath(tmp_path / "tfkit.keras"), os.fspath(tmp_path / "keras.keras")
    ours.save(ours_path)
    theirs.save(keras_path)
    x = RNG.normal(size=(2, 5, 8)).astype("float32")
    expected = np.asarray(keras.saving.load_model(keras_path).predict(x, verbose=0))
    np.testing.assert_array_equal(np.asarray(keras.saving.load_model(ours_path).predict(x, verbose=0)), expected)
    for path in (ours_path, keras_path):
        loaded = tfkit.saving.load_model(path)
        np.testing.assert_array_equal(loaded.predict(x, verbose=0), expected)
