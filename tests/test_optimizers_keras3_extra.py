"""Keras 3's Adadelta, Ftrl, Adafactor, Lamb and schedules.CosineDecayRestarts (issue 19): update rules
checked step by step against Keras and by hand, configs, errors, compile/fit/save/load."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers, optimizers
from tfkit.optimizers import schedules

RNG = np.random.default_rng(2)
SHAPES = [(3, 4), (4,), (2, 3, 2)]  # a matrix, a vector and a rank-3 tensor (Adafactor factors the last two)
INITIAL = [RNG.normal(size=s).astype("float32") for s in SHAPES]
GRADS = [[RNG.normal(size=s).astype("float32") for s in SHAPES] for _ in range(5)]

CASES = [
    ("Adadelta", {"learning_rate": 1.0}),
    ("Adadelta", {"rho": 0.9, "epsilon": 1e-6, "weight_decay": 0.1}),
    ("Ftrl", {}),
    (
        "Ftrl",
        {
            "learning_rate": 0.1,
            "learning_rate_power": -0.7,
            "l1_regularization_strength": 0.05,
            "l2_regularization_strength": 0.1,
            "l2_shrinkage_regularization_strength": 0.02,
            "beta": 0.3,
        },
    ),
    ("Adafactor", {"learning_rate": 0.05}),
    ("Adafactor", {"learning_rate": 0.5, "clip_threshold": 0.5, "relative_step": False, "beta_2_decay": -0.5}),
    ("Lamb", {"learning_rate": 0.01}),
    ("Lamb", {"learning_rate": 0.01, "beta_1": 0.8, "weight_decay": 0.01, "global_clipnorm": 1.0}),
]


def _ids(case):
    return f"{case[0]}-{sorted(case[1])}"


def _run(module, name, kwargs, steps=5, variable=tf.Variable):
    variables = [variable(x) for x in INITIAL]
    optimizer = getattr(module.optimizers, name)(**kwargs)
    for grads in GRADS[:steps]:
        optimizer.apply(grads, variables)
    return optimizer, [np.asarray(v.numpy()) for v in variables]


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_five_steps_match_keras(case):
    keras = pytest.importorskip("keras")
    name, kwargs = case
    _, expected = _run(keras, name, kwargs, variable=keras.Variable)
    optimizer, got = _run(tfkit, name, kwargs)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    config = optimizer.get_config()
    keras_config = getattr(keras.optimizers, name)(**kwargs).get_config()
    keras_config.pop("gradient_accumulation_steps", None)
    # tfkit writes the float32 learning rate by its shortest repr (0.001, where Keras writes 0.0010000000474974513)
    assert config["learning_rate"] == pytest.approx(keras_config.pop("learning_rate"), rel=1e-7)
    assert {k: config[k] for k in keras_config if k != "name"} == {k: v for k, v in keras_config.items() if k != "name"}
    twin = optimizers.deserialize(optimizers.serialize(optimizer))
    assert type(twin) is type(optimizer) and twin.get_config() == config


@pytest.mark.parametrize("case", CASES[::2], ids=_ids)
def test_xla_steps_match_eager(case):
    name, kwargs = case
    _, eager = _run(tfkit, name, kwargs, steps=3)
    variables = [tf.Variable(x) for x in INITIAL]
    optimizer = getattr(optimizers, name)(**kwargs)
    optimizer.build(variables)

    @tf.function(jit_compile=True)
    def step(grads):
        optimizer.apply(grads, variables)

    for grads in GRADS[:3]:
        step([tf.constant(g) for g in grads])
    for a, b in zip(variables, eager):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-5, atol=1e-6)


def test_first_steps_by_hand():
    # Adadelta, first step from zero accumulators: a = (1 - rho) g^2, d = -sqrt(eps) g / sqrt(a + eps)
    w = tf.Variable([1.0])
    optimizers.Adadelta(learning_rate=1.0, rho=0.5, epsilon=1e-2).apply([tf.constant([2.0])], [w])
    assert float(w[0]) == pytest.approx(1.0 - np.sqrt(1e-2) * 2.0 / np.sqrt(0.5 * 4.0 + 1e-2), rel=1e-6)
    # Ftrl, no regularization, p = -0.5: n' = n + g^2, z = g - (sqrt(n') - sqrt(n)) / lr * w, w = -z lr / sqrt(n')
    w = tf.Variable([1.0])
    optimizers.Ftrl(learning_rate=0.5, initial_accumulator_value=1.0).apply([tf.constant([1.0])], [w])
    z = 1.0 - (np.sqrt(2.0) - 1.0) / 0.5 * 1.0
    assert float(w[0]) == pytest.approx(-z / (np.sqrt(2.0) / 0.5), rel=1e-6)
    # Lamb, first step: m_hat = g, v_hat = g^2, u = g / (|g| + eps); ratio ||w|| / ||u||
    w = tf.Variable([3.0, 4.0])
    optimizers.Lamb(learning_rate=0.1, epsilon=0.0).apply([tf.constant([1.0, -2.0])], [w])
    u = np.array([1.0, -1.0])
    np.testing.assert_allclose(w.numpy(), [3.0, 4.0] - 5.0 / np.sqrt(2.0) * 0.1 * u, rtol=1e-6)
    # Adafactor on a vector, step 1: beta_2 = 0, v = g^2 + eps1, u = sign(g); step = min(lr, 1) max(eps2, rms(w))
    w = tf.Variable([3.0, -4.0])
    optimizers.Adafactor(learning_rate=0.1).apply([tf.constant([0.5, 2.0])], [w])
    rms_w = np.sqrt((9.0 + 16.0) / 2)
    np.testing.assert_allclose(w.numpy(), [3.0 - 0.1 * rms_w, -4.0 - 0.1 * rms_w], rtol=1e-5)


def test_adafactor_factors_only_matrices():
    variables = [tf.Variable(x) for x in INITIAL]
    optimizer = optimizers.Adafactor()
    optimizer.build(variables)
    shapes = sorted(tuple(v.shape) for v in optimizer.variables[2:])
    # (3, 4): rows (3,), columns (4,), velocity; (4,): velocity only; (2, 3, 2): rows (2, 3), columns (2, 2), velocity
    assert shapes == sorted([(3,), (4,), (3, 4), (4,), (2, 3), (2, 2), (2, 3, 2)])


def test_cosine_decay_restarts_by_hand_and_against_keras():
    schedule = schedules.CosineDecayRestarts(1.0, first_decay_steps=4, t_mul=2.0, m_mul=0.5, alpha=0.1)
    assert float(schedule(0)) == pytest.approx(1.0)
    assert float(schedule(2)) == pytest.approx(0.1 + 0.9 * 0.5, rel=1e-6)  # halfway through period 0
    assert float(schedule(4)) == pytest.approx(0.1 + 0.9 * 0.5, rel=1e-6)  # restart at m_mul = 0.5
    assert float(schedule(8)) == pytest.approx(0.1 + 0.9 * 0.25, rel=1e-6)  # halfway through period 1 (8 steps)
    keras = pytest.importorskip("keras")
    for kwargs in [{}, {"t_mul": 1.0, "m_mul": 0.5}, {"t_mul": 1.5, "m_mul": 0.9, "alpha": 0.1}]:
        ours = schedules.CosineDecayRestarts(0.1, 7, **kwargs)
        theirs = keras.optimizers.schedules.CosineDecayRestarts(0.1, 7, **kwargs)
        got = [float(ours(s)) for s in range(60)]
        np.testing.assert_allclose(got, [float(theirs(s)) for s in range(60)], rtol=1e-5, atol=1e-7)
        assert ours.get_config() == theirs.get_config()
        assert schedules.deserialize(schedules.serialize(ours)).get_config() == ours.get_config()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: optimizers.Ftrl(learning_rate_power=0.5), "learning_rate_power must be <= 0"),
        (lambda: optimizers.Ftrl(l1_regularization_strength=-1.0), "l1_regularization_strength must be >= 0"),
        (lambda: optimizers.Adadelta(rho=1.5), r"rho must be a float in \[0, 1\]"),
        (lambda: optimizers.Lamb(beta_1=1.0), r"beta_1 must be a float in \[0, 1\)"),
        (lambda: optimizers.Adafactor(clip_threshold=0), "clip_threshold must be > 0"),
        (lambda: schedules.CosineDecayRestarts(0.1, first_decay_steps=0), "first_decay_steps must be > 0"),
    ],
)
def test_bad_arguments_say_what_is_wrong(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize(
    "optimizer",
    [
        "adadelta",
        "ftrl",
        lambda: optimizers.Adafactor(learning_rate=0.05),
        lambda: optimizers.Lamb(learning_rate=schedules.CosineDecayRestarts(0.01, 3)),
    ],
)
def test_compile_fit_save_load_keep_training(optimizer, tmp_path):
    optimizer = optimizer() if callable(optimizer) else optimizer
    x = RNG.random((16, 4)).astype("float32")
    y = x @ RNG.normal(size=(4, 2)).astype("float32")
    model = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(3, activation="relu"), layers.Dense(2)])
    model.compile(optimizer=optimizer, loss="mse", jit_compile=True)
    model.fit(x, y, epochs=1, batch_size=4, verbose=0)
    path = str(tmp_path / "model.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    assert type(loaded.optimizer) is type(model.optimizer)
    assert loaded.get_compile_config() == model.get_compile_config()
    expected = model.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False).history["loss"]
    got = loaded.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False).history["loss"]
    assert got == pytest.approx(expected, rel=1e-5)
    for a, b in zip(model.weights, loaded.weights):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)
