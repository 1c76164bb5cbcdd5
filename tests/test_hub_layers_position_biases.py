"""SinePositionEncoding and AlibiBias beside KerasHub's, and against the formulas written in numpy."""

import math

import numpy as np
import pytest
from hub_presets import keras_hub

import tfkit
import tfkit.hub as tk_hub

X = np.random.default_rng(0).random((2, 7, 10)).astype("float32")


@pytest.mark.parametrize(
    "kwargs", [{}, {"start_index": 3}, {"positions": np.arange(0, 14, 2, dtype="float32")}], ids=str
)
def test_sine_position_encoding_as_kerashubs_and_numpy(kwargs):
    ours = np.asarray(tk_hub.layers.SinePositionEncoding(max_wavelength=500)(X, **kwargs))
    theirs = np.asarray(keras_hub.layers.SinePositionEncoding(max_wavelength=500)(X, **kwargs))
    np.testing.assert_allclose(ours, theirs, atol=1e-6)
    positions = kwargs.get("positions", np.arange(7) + kwargs.get("start_index", 0))
    rates = 500.0 ** (-(2 * (np.arange(10) // 2)) / 10)
    angles = positions[:, None] * rates[None, :]
    reference = np.where(np.arange(10) % 2 == 0, np.sin(angles), np.cos(angles))
    np.testing.assert_allclose(ours[1], reference, atol=1e-5)


@pytest.mark.parametrize("heads", [1, 2, 3, 6, 8, 12])
def test_alibi_bias_as_kerashubs_and_numpy(heads):
    scores = np.random.default_rng(heads).random((2, heads, 4, 6)).astype("float32")
    for bias_max in (8, 5):
        ours = np.asarray(tk_hub.layers.AlibiBias(alibi_bias_max=bias_max)(scores))
        theirs = np.asarray(keras_hub.layers.AlibiBias(alibi_bias_max=bias_max)(scores))
        np.testing.assert_allclose(ours, theirs, atol=1e-7)
    if math.log2(heads).is_integer():  # the paper's geometric slopes 2**(-8 (h + 1) / heads)
        slopes = 2.0 ** (-8.0 * (np.arange(heads) + 1) / heads)
        bias = slopes[:, None, None] * (np.arange(6) - 5)[None, None, :]
        np.testing.assert_allclose(
            np.asarray(tk_hub.layers.AlibiBias()(scores)) - scores,
            np.broadcast_to(bias, scores.shape[1:])[None].repeat(2, 0),
            atol=1e-6,
        )


def test_configs_and_errors():
    for name, kwargs in (("SinePositionEncoding", {"max_wavelength": 100}), ("AlibiBias", {"alibi_bias_max": 4})):
        ours, theirs = getattr(tk_hub.layers, name)(**kwargs), getattr(keras_hub.layers, name)(**kwargs)
        config = {k: v for k, v in ours.get_config().items() if k not in ("name", "dtype")}
        assert config == {k: v for k, v in theirs.get_config().items() if k not in ("name", "dtype")}
        assert type(tfkit.saving.deserialize_keras_object(tfkit.saving.serialize_keras_object(ours))) is type(ours)
    with pytest.raises(ValueError, match="AlibiBias layer .* expected `attention_scores` of shape"):
        tk_hub.layers.AlibiBias()(np.zeros((2, 3, 4), "float32"))
