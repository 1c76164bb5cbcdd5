"""Bidirectional(weights=): the forward layer's arrays, then the backward layer's, set when it builds."""

import numpy as np
import pytest

from tfkit import layers


def test_initial_weights_are_set_at_build():
    reference = layers.Bidirectional(layers.SimpleRNN(2))
    reference.build((None, 3, 4))
    arrays = [np.full(w.shape, 0.1 * (i + 1), "float32") for i, w in enumerate(reference.weights)]
    layer = layers.Bidirectional(layers.SimpleRNN(2), weights=arrays)
    out = layer(np.ones((1, 3, 4), "float32"))
    for got, want in zip(layer.get_weights(), arrays):
        np.testing.assert_array_equal(got, want)
    reference.set_weights(arrays)
    np.testing.assert_allclose(out.numpy(), reference(np.ones((1, 3, 4), "float32")).numpy(), rtol=1e-6)


def test_a_wrong_count_names_the_layer():
    layer = layers.Bidirectional(layers.SimpleRNN(2), weights=[np.zeros((4, 2))], name="bi")
    with pytest.raises(ValueError, match="'bi': weights= holds 1 arrays, the forward and backward layers have 6"):
        layer.build((None, 3, 4))
