"""tfkit.random.gamma/binomial/beta: moments against numpy's, and seeded like the other draws."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit

N = 20000


def _moments_close(sample, reference, tolerance=0.05):
    sample, reference = np.asarray(sample, "float64"), np.asarray(reference, "float64")
    assert abs(sample.mean() - reference.mean()) < tolerance * max(1.0, abs(reference.mean()))
    assert abs(sample.var() - reference.var()) < 2 * tolerance * max(1.0, reference.var())


def test_gamma_matches_numpys_moments():
    rng = np.random.default_rng(0)
    for alpha in (0.5, 2.0, 7.0):
        _moments_close(tfkit.random.gamma((N,), alpha, seed=1), rng.gamma(alpha, size=N))


def test_binomial_matches_numpys_moments_and_returns_floats():
    rng = np.random.default_rng(0)
    draws = tfkit.random.binomial((N,), counts=10, probabilities=0.3, seed=2)
    assert draws.dtype == tf.float32
    assert np.all(draws.numpy() == np.round(draws.numpy())) and draws.numpy().min() >= 0 and draws.numpy().max() <= 10
    _moments_close(draws, rng.binomial(10, 0.3, size=N))
    per_column = tfkit.random.binomial((N, 2), counts=[4.0, 20.0], probabilities=[0.5, 0.9], seed=3).numpy()
    assert np.allclose(per_column.mean(axis=0), [2.0, 18.0], atol=0.1)


def test_beta_matches_numpys_moments_and_stays_in_the_unit_interval():
    rng = np.random.default_rng(0)
    for a, b in ((2.0, 5.0), (0.5, 0.5)):
        draws = tfkit.random.beta((N,), a, b, dtype="float64", seed=4)
        assert draws.dtype == tf.float64
        assert 0.0 <= draws.numpy().min() and draws.numpy().max() <= 1.0
        _moments_close(draws, rng.beta(a, b, size=N), tolerance=0.02)


@pytest.mark.parametrize(
    "draw",
    [
        lambda seed: tfkit.random.gamma((5,), 2.0, seed=seed),
        lambda seed: tfkit.random.binomial((5,), 10, 0.5, seed=seed),
        lambda seed: tfkit.random.beta((5,), 2.0, 3.0, seed=seed),
    ],
)
def test_seeding_is_that_of_the_other_draws(draw):
    assert np.array_equal(draw(7), draw(7))  # an int: the same numbers every call
    generator = tfkit.random.SeedGenerator(3)
    first, second = draw(generator), draw(generator)  # a generator: new numbers each call
    assert not np.array_equal(first, second)
    replay = tfkit.random.SeedGenerator(3)
    assert np.array_equal(draw(replay), first)  # ... replayed by a fresh one
    compiled = tf.function(lambda: draw(generator))
    assert not np.array_equal(compiled(), compiled())


def test_integer_dtype_is_refused_with_the_functions_name():
    with pytest.raises(ValueError, match="tfkit.random.beta .*floating dtype, got int32"):
        tfkit.random.beta((2,), 1.0, 1.0, dtype="int32")
