"""MultiHeadAttention(flash_attention=) as under Keras's TensorFlow backend: accepted, refused where used."""

import numpy as np
import pytest

import tfkit
from tfkit import layers
from tfkit.base import settings


def test_none_and_false_run_the_tensorflow_kernels_and_stay_out_of_the_config():
    x = np.random.default_rng(0).random((2, 3, 4)).astype("float32")
    default = layers.MultiHeadAttention(2, 4, flash_attention=None)
    off = layers.MultiHeadAttention(2, 4, flash_attention=False)
    off(x, x)
    off.set_weights(default(x, x) is not None and default.get_weights())
    np.testing.assert_allclose(off(x, x).numpy(), default(x, x).numpy(), rtol=1e-6)
    assert "flash_attention" not in default.get_config()  # Keras leaves it out too


def test_true_is_refused_at_the_call_naming_the_layer_and_with_dropout_at_construction():
    x = np.ones((1, 2, 4), "float32")
    layer = layers.MultiHeadAttention(2, 4, flash_attention=True, name="mha")
    with pytest.raises(ValueError, match="MultiHeadAttention layer 'mha': flash attention is not available"):
        layer(x, x)
    with pytest.raises(ValueError, match="attention scores are not available with flash attention"):
        layer(x, x, return_attention_scores=True)
    with pytest.raises(ValueError, match="dropout is not supported with flash attention"):
        layers.MultiHeadAttention(2, 4, dropout=0.1, flash_attention=True)


def test_the_global_switch_is_read_when_the_argument_is_none():
    tfkit.config.enable_flash_attention()
    try:
        with pytest.raises(ValueError, match="dropout is not supported with flash attention"):
            layers.MultiHeadAttention(2, 4, dropout=0.1)
    finally:
        settings.set_flash_attention(None)  # back to Keras's "decide automatically"
    assert tfkit.config.is_flash_attention_enabled() is None
    layers.MultiHeadAttention(2, 4, dropout=0.1)


def test_keras_refuses_flash_attention_on_tensorflow_too():
    keras = pytest.importorskip("keras")
    x = np.ones((1, 2, 4), "float32")
    with pytest.raises(ValueError):
        keras.layers.MultiHeadAttention(2, 4, flash_attention=True)(x, x)
