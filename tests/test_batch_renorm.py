"""BatchNormalization(renorm=True): Keras 3.15's weights, corrections, statistics and config."""

import numpy as np
import pytest

from tfkit import layers

RNG = np.random.default_rng(0)


def _numpy_renorm_step(x, gamma, beta, stats, eps, momentum, renorm_momentum, clipping):
    mean, var = x.mean(0), x.var(0)
    std = np.sqrt(var + eps)
    renorm_std = np.maximum(stats["renorm_stddev"], np.sqrt(eps))
    r, d = std / renorm_std, (mean - stats["renorm_mean"]) / renorm_std
    r = np.clip(r, clipping.get("rmin", -np.inf), clipping.get("rmax", np.inf))
    d = np.clip(d, -clipping.get("dmax", np.inf), clipping.get("dmax", np.inf))
    out = (x - mean) / std * (r * gamma) + (d * gamma + beta)
    new = {
        "renorm_mean": stats["renorm_mean"] * renorm_momentum + mean * (1 - renorm_momentum),
        "renorm_stddev": stats["renorm_stddev"] * renorm_momentum + std * (1 - renorm_momentum),
        "moving_mean": stats["moving_mean"] * momentum + mean * (1 - momentum),
    }
    new["moving_stddev"] = stats["moving_stddev"] * momentum + std * (1 - momentum)
    new["moving_variance"] = np.maximum(new["moving_stddev"] ** 2 - eps, 0)
    return out, new


def test_two_training_steps_and_inference_equal_the_numpy_reference():
    clipping = {"rmax": 1.5, "rmin": 0.8, "dmax": 0.5}
    layer = layers.BatchNormalization(
        renorm=True, renorm_clipping=clipping, renorm_momentum=0.9, momentum=0.8, name="bn"
    )
    layer.build((None, 3))
    assert [w.name.split("/")[-1][:-2] for w in layer.weights] == [
        "gamma",
        "beta",
        "moving_mean",
        "moving_variance",
        "moving_stddev",
        "renorm_mean",
        "renorm_stddev",
    ]
    gamma, beta = RNG.random(3).astype("float32") + 0.5, RNG.random(3).astype("float32")
    layer.gamma.assign(gamma)
    layer.beta.assign(beta)
    stats = {
        "renorm_mean": np.zeros(3),
        "renorm_stddev": np.ones(3),
        "moving_mean": np.zeros(3),
        "moving_stddev": np.ones(3),
    }
    for step in range(2):
        x = (RNG.normal(size=(16, 3)) * (2 + step) + step).astype("float32")
        expected, stats = _numpy_renorm_step(x, gamma, beta, stats, 1e-3, 0.8, 0.9, clipping)
        np.testing.assert_allclose(layer(x, training=True).numpy(), expected, rtol=1e-4, atol=1e-5)
        for name, value in stats.items():
            np.testing.assert_allclose(getattr(layer, name).numpy(), value, rtol=1e-5, atol=1e-6)
    x = RNG.normal(size=(4, 3)).astype("float32")
    inference = (x - stats["moving_mean"]) / np.sqrt(stats["moving_variance"] + 1e-3) * gamma + beta
    np.testing.assert_allclose(layer(x, training=False).numpy(), inference, rtol=1e-4, atol=1e-5)


def test_config_and_checks_as_keras():
    layer = layers.BatchNormalization(renorm=True)
    config = layer.get_config()
    assert (config["renorm"], config["renorm_clipping"], config["renorm_momentum"]) == (True, {}, 0.99)
    assert layers.BatchNormalization.from_config(config).renorm
    assert layers.BatchNormalization().get_config()["renorm_clipping"] is None
    with pytest.raises(ValueError, match="renorm_clipping accepts the keys .* got \\['rmid'\\]"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"rmid": 1})
    with pytest.raises(ValueError, match="needs rmax >= rmin"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"rmax": 1, "rmin": 2})
    with pytest.raises(ValueError, match="needs a non-negative dmax"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"dmax": -1})


def test_matches_keras_side_by_side_over_three_steps():
    keras = pytest.importorskip("keras")
    kwargs = {"renorm": True, "renorm_clipping": {"rmax": 2.0, "dmax": 1.0}, "renorm_momentum": 0.7, "momentum": 0.6}
    ours, theirs = layers.BatchNormalization(**kwargs), keras.layers.BatchNormalization(**kwargs)
    ours.build((None, 4))
    theirs.build((None, 4))
    for step in range(3):
        x = (RNG.normal(size=(8, 4)) * 3 + step).astype("float32")
        np.testing.assert_allclose(
            ours(x, training=True).numpy(), np.asarray(theirs(x, training=True)), rtol=1e-4, atol=1e-5
        )
    for mine, their in zip(ours.weights, theirs.weights):
        np.testing.assert_allclose(mine.numpy(), np.asarray(their), rtol=1e-5, atol=1e-6)
    x = RNG.normal(size=(3, 4)).astype("float32")
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-4, atol=1e-5)
