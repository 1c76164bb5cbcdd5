"""Property tests: every built-in layer's config, saving and output shape over generated valid arguments.

For each entry of ``properties.layer_cases.LAYER_CASES`` (core, convolution,
pooling, normalization, recurrent, attention, reshaping, merging,
regularization, activation and value-shaping preprocessing layers), hypothesis
draws constructor arguments and input shapes that Keras 3 accepts, and checks:

- ``cls.from_config(layer.get_config())`` has an equal (JSON-clean) config, and
  with the original's weights gives the original's outputs;
- ``compute_output_shape`` of the input shapes, with the batch axis known and
  unknown (``None``), agrees with the shapes of the real call's outputs, and so
  does the symbolic call on ``tfkit.Input`` tensors (dtype too);
- functional models with a branch around each layer (a dozen layers a
  model), saved to ``.keras`` and loaded with ``tfkit.load_model``, give the
  same outputs (few examples: each saves and loads seven models).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st
from properties.layer_cases import LAYER_CASES
from properties.strategies import assert_shape_matches, examples

import tfkit

NAMES = sorted(LAYER_CASES)
SEEDS = st.integers(0, 2**16)


def _flat(value) -> list:
    return [np.asarray(t) for t in tf.nest.flatten(value)]


def _flat_shapes(shape) -> list[tuple]:
    """The shapes in ``compute_output_shape``'s answer: one shape, or a (nested) list of them."""
    if isinstance(shape, tf.TensorShape):
        return [tuple(shape.as_list())]
    if isinstance(shape, (tuple, list)) and all(d is None or isinstance(d, (int, np.integer)) for d in shape):
        return [tuple(shape)]
    if isinstance(shape, dict):
        shape = list(shape.values())
    return [s for item in shape for s in _flat_shapes(item)]


def _json(config: dict) -> dict:
    """``config`` through JSON text, as a saved file holds it (which fails on anything but data)."""
    return json.loads(json.dumps(config))


def _assert_same_outputs(got, want, what: str) -> None:
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=what)


def _built(case, seed):
    layer = case.make()
    values = case.inputs(seed)
    return layer, values, case.call(layer, values)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(4))
@given(data=st.data(), seed=SEEDS)
def test_config_round_trip_rebuilds_an_equal_layer(name, data, seed):
    case = data.draw(LAYER_CASES[name], label="case")
    layer, values, outputs = _built(case, seed)
    config = _json(layer.get_config())  # as a file holds it: tuples become lists
    rebuilt = type(layer).from_config(config)
    assert _json(rebuilt.get_config()) == config
    case.call(rebuilt, values)  # build, then take the original's weights
    rebuilt.set_weights(layer.get_weights())
    _assert_same_outputs(case.call(rebuilt, values), outputs, f"{name} rebuilt from its config")


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(4))
@given(data=st.data(), seed=SEEDS, free_batch=st.booleans())
def test_compute_output_shape_matches_the_call(name, data, seed, free_batch):
    case = data.draw(LAYER_CASES[name], label="case")
    layer, values, outputs = _built(case, seed)
    real = [tuple(t.shape) for t in tf.nest.flatten(outputs)]
    shapes = [((None,) + s[1:]) if free_batch else s for s in case.shapes]
    inferred = _flat_shapes(case.output_shape(layer, shapes))
    assert len(inferred) == len(real), f"{name}: compute_output_shape gives {inferred}, the call {real}"
    for i, r in zip(inferred, real):
        assert_shape_matches(i, r, f"{name} compute_output_shape")
        if not free_batch:
            assert tuple(i) == r, f"{name}: compute_output_shape gives {i} for known shapes, the call {r}"
    symbols = [tfkit.Input(batch_shape=s, dtype=case.dtype) for s in shapes]
    symbolic = tf.nest.flatten(case.call(case.make(), symbols))
    assert len(symbolic) == len(real)
    for s, r, t in zip(symbolic, real, tf.nest.flatten(outputs)):
        assert_shape_matches(s.shape, r, f"{name} symbolic call")
        assert s.dtype == t.dtype, f"{name}: symbolic dtype {s.dtype.name}, eager {t.dtype.name}"


def _branches(data, names, seed):
    """A functional model with one branch per layer of ``names``: inputs, outputs, the values to feed,
    and each branch's (name, first output, output count)."""
    inputs, outputs, feed, branches = [], [], [], []
    for name in names:
        case = data.draw(LAYER_CASES[name], label=name)
        symbols = [tfkit.Input(batch_shape=(None,) + s[1:], dtype=case.dtype) for s in case.shapes]
        out = tf.nest.flatten(case.call(case.make(), symbols))
        inputs += symbols
        feed += case.inputs(seed)
        branches.append((name, len(outputs), len(out)))
        outputs += out
    return tfkit.Model(inputs, outputs), feed, branches


# Layers per saved model: a dozen keeps each save and load small. (An eager call of a layer with an input
# spec used to walk the whole model for the layer's path on every call, a cost growing with the square of
# the layers; the path is now computed only for an error message.)
GROUP = 12


@settings(max_examples=examples(2))
@given(data=st.data(), seed=SEEDS)
def test_saved_models_load_with_equal_outputs(data, seed, tmp_path_factory):
    # One test for every layer (not one per layer): each save and load costs a few hundred milliseconds.
    folder = tmp_path_factory.mktemp("saved")
    for start in range(0, len(NAMES), GROUP):
        model, feed, branches = _branches(data, NAMES[start : start + GROUP], seed)
        path = folder / f"group{start}.keras"
        model.save(path)
        loaded = tfkit.load_model(path)
        assert _json(loaded.get_config()) == _json(model.get_config())
        got, want = loaded(feed), model(feed)
        for name, first, count in branches:
            _assert_same_outputs(got[first : first + count], want[first : first + count], f"{name} saved and loaded")
