"""VarianceScaling and its presets take Keras 3.15's input_axes / output_axes for the fans."""

import numpy as np
import pytest

from tfkit import initializers


def test_the_fans_multiply_the_named_axes():
    assert initializers.compute_fans((4, 3, 5), input_axes=[0], output_axes=[1, 2]) == (4, 15)
    assert initializers.compute_fans((4, 3, 5)) == (3 * 4, 5 * 4)  # a 1D-conv kernel otherwise


def test_a_uniform_preset_s_bound_follows_the_axes():
    values = initializers.GlorotUniform(seed=1, input_axes=[0], output_axes=[1, 2])((64, 8, 16)).numpy()
    limit = np.sqrt(6.0 / (64 + 8 * 16))  # fan_avg of 64 and 128
    assert values.max() <= limit and values.min() >= -limit and values.max() > 0.9 * limit


def test_configs_carry_the_axes_and_round_trip():
    he = initializers.HeNormal(seed=3, input_axes=[0, 1], output_axes=[2])
    assert he.get_config() == {"seed": 3, "input_axes": [0, 1], "output_axes": [2]}
    again = initializers.HeNormal.from_config(he.get_config())
    np.testing.assert_array_equal(again((2, 3, 4)).numpy(), he((2, 3, 4)).numpy())
    scaling = initializers.VarianceScaling(2.0, "fan_out", "uniform", input_axes=[1], output_axes=[0])
    assert scaling.get_config()["input_axes"] == [1] and scaling.get_config()["output_axes"] == [0]
    with pytest.raises(ValueError, match="input_axes to be a list of integers or None, got 1"):
        initializers.VarianceScaling(input_axes=1)


def test_the_variance_matches_keras_side_by_side():
    keras = pytest.importorskip("keras")
    ours = initializers.LecunNormal(seed=5, input_axes=[0], output_axes=[1, 2])((256, 4, 8)).numpy()
    theirs = np.asarray(keras.initializers.LecunNormal(seed=5, input_axes=[0], output_axes=[1, 2])((256, 4, 8)))
    # both: truncated normal with variance 1 / fan_in = 1 / 256 (different generators, same distribution)
    np.testing.assert_allclose(ours.var(), 1 / 256, rtol=0.1)
    np.testing.assert_allclose(theirs.var(), 1 / 256, rtol=0.1)
    assert set(keras.initializers.LecunNormal(input_axes=[0], output_axes=[1]).get_config()) == set(
        initializers.LecunNormal(input_axes=[0], output_axes=[1]).get_config()
    )
