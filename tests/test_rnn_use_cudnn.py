"""LSTM / GRU accept Keras's use_cudnn: "auto" and False run tfkit's kernels, True fails at the call."""

import numpy as np
import pytest

from tfkit import layers


@pytest.mark.parametrize("kind", [layers.LSTM, layers.GRU])
def test_auto_and_false_compute_the_same_and_stay_out_of_the_config(kind):
    x = np.random.default_rng(0).random((2, 5, 3)).astype("float32")
    auto, off = kind(4, use_cudnn="auto"), kind(4, use_cudnn=False)
    auto(x)
    off(x)
    off.set_weights(auto.get_weights())
    np.testing.assert_allclose(off(x).numpy(), auto(x).numpy(), rtol=1e-6)
    assert "use_cudnn" not in auto.get_config() and kind.from_config(auto.get_config()).use_cudnn == "auto"


@pytest.mark.parametrize("kind", [layers.LSTM, layers.GRU])
def test_true_is_refused_at_the_call_and_other_values_at_construction(kind):
    layer = kind(4, use_cudnn=True, name="rnn")
    with pytest.raises(ValueError, match=f"{kind.__name__} layer 'rnn': use_cudnn=True was specified"):
        layer(np.ones((1, 2, 3), "float32"))
    with pytest.raises(ValueError, match="use_cudnn must be one of 'auto', True, False, got 'yes'"):
        kind(4, use_cudnn="yes")
    with pytest.raises(ValueError, match="got 1"):
        kind(4, use_cudnn=1)
