"""Keras 3's Muon and ScheduleFreeAdamW (issue 19): numbers against Keras and numpy, configs, XLA, fit, save/load."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers, optimizers

RNG = np.random.default_rng(7)
# Muon's kinds of variables: tall and wide matrices (Muon), a vector, an embedding and a rank-3 kernel (AdamW).
SPECS = [
    ("dense/kernel", (5, 3)),
    ("dense/bias", (3,)),
    ("wide/kernel", (3, 6)),
    ("embedding/embeddings", (7, 4)),
    ("head/kernel", (4, 2)),
    ("conv/kernel", (2, 3, 4)),
]
INITIAL = [RNG.normal(size=shape).astype("float32") for _, shape in SPECS]
GRADS = [[RNG.normal(size=shape).astype("float32") for _, shape in SPECS] for _ in range(6)]

MUON_CASES = [
    {},
    {
        "learning_rate": 0.01,
        "exclude_layers": ["head"],
        "nesterov": False,
        "rms_rate": None,
        "adam_lr_ratio": 0.1,
        "weight_decay": None,
    },
    {"use_ema": True, "ema_momentum": 0.9, "global_clipnorm": 1.0, "exclude_embeddings": False, "ns_steps": 3},
    {"clipnorm": 0.5, "loss_scale_factor": 4.0, "adam_weight_decay": None, "momentum": 0.8},
]
SCHEDULE_FREE_CASES = [
    {},
    {"learning_rate": 0.1, "warmup_steps": 3, "weight_decay": 0.01},
    {"beta_1": 0.5, "beta_2": 0.9, "epsilon": 1e-6, "clipvalue": 0.5, "use_ema": True},
]


def _tf_variables():
    return [tf.Variable(x, name=name) for x, (name, _) in zip(INITIAL, SPECS)]


def _keras_variables(keras):
    variables = []
    for x, (name, _) in zip(INITIAL, SPECS):
        scope, leaf = name.split("/")
        with keras.name_scope(scope):  # a Keras variable's path is "scope/leaf", as tfkit's name is
            variables.append(keras.Variable(x, name=leaf))
    return variables


def _run(optimizer, variables, steps=len(GRADS)):
    for grads in GRADS[:steps]:
        optimizer.apply(grads, variables)
    return [np.asarray(v.numpy()) for v in variables]


def _assert_config_matches_keras(ours, theirs):
    config, keras_config = ours.get_config(), theirs.get_config()
    assert config["learning_rate"] == pytest.approx(keras_config.pop("learning_rate"), rel=1e-7)
    keras_config.pop("name")
    assert {key: config[key] for key in keras_config} == keras_config
    assert set(config) == set(keras_config) | {"name", "learning_rate"}


# ------------------------------------------------------------------ Muon


@pytest.mark.parametrize("kwargs", MUON_CASES, ids=lambda kw: "-".join(sorted(kw)) or "defaults")
def test_muon_six_steps_match_keras(kwargs):
    keras = pytest.importorskip("keras")
    theirs = keras.optimizers.Muon(**kwargs)
    expected = _run(theirs, _keras_variables(keras))
    ours = optimizers.Muon(**kwargs)
    got = _run(ours, _tf_variables())
    for (name, _), a, b in zip(SPECS, got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=name)
    _assert_config_matches_keras(ours, theirs)
    assert [v.name.split(":")[0] for v in ours.variables] == [v.path.split("/", 1)[1] for v in theirs.variables]


def _newton_schulz(x, steps=5, a=3.4445, b=-4.7750, c=2.0315):
    tall = x.shape[0] > x.shape[1]
    x = x.T if tall else x
    x = x / (np.linalg.norm(x) + 1e-7)
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.T if tall else x


def test_muon_first_step_by_hand():
    w0 = RNG.normal(size=(6, 4)).astype("float32")
    g = RNG.normal(size=(6, 4)).astype("float32")
    w = tf.Variable(w0, name="dense/kernel")
    optimizers.Muon(learning_rate=0.1, weight_decay=0.5).apply([g], [w])
    # m = g; Nesterov direction g + 0.95 m; scaled by sqrt(max(6, 4)) * 0.2; decay w *= 1 - lr * wd first
    update = 0.1 * _newton_schulz((g + 0.95 * g).astype("float64")) * np.sqrt(6.0) * 0.2
    np.testing.assert_allclose(w.numpy(), w0 * (1 - 0.1 * 0.5) - update, rtol=1e-4, atol=1e-5)
    # the iteration approximately orthogonalizes: singular values land near 1
    singular = np.linalg.svd(_newton_schulz(g.astype("float64")), compute_uv=False)
    assert np.all((singular > 0.5) & (singular < 1.3))


def test_muon_picks_adamw_for_vectors_embeddings_and_excluded_layers():
    optimizer = optimizers.Muon(exclude_layers=["^head/"])
    variables = _tf_variables()
    assert [optimizer.uses_adamw(v) for v in variables] == [False, True, False, True, True, True]
    optimizer.build(variables)
    # one momentum per variable; a velocity only for the AdamW ones
    names = [v.name.split(":")[0] for v in optimizer.variables[2:]]
    assert names == [
        "dense_kernel_momentum",
        "dense_bias_momentum",
        "dense_bias_velocity",
        "wide_kernel_momentum",
        "embedding_embeddings_momentum",
        "embedding_embeddings_velocity",
        "head_kernel_momentum",
        "head_kernel_velocity",
        "conv_kernel_momentum",
        "conv_kernel_velocity",
    ]
    assert not optimizers.Muon(exclude_embeddings=False).uses_adamw(variables[3])


def test_muon_decays_each_kind_with_its_own_rate_and_honours_exclusions():
    # zero gradients: neither step moves a variable, so only the decoupled decay shows
    variables = [
        tf.Variable(np.ones((3, 3), "float32"), name="a/kernel"),
        tf.Variable(np.ones((3,), "float32"), name="a/bias"),
        tf.Variable(np.ones((3, 3), "float32"), name="b/kernel"),
    ]
    optimizer = optimizers.Muon(learning_rate=0.5, weight_decay=None, adam_weight_decay=0.2)
    optimizer.exclude_from_weight_decay(var_list=[variables[2]])
    optimizer.apply([tf.zeros_like(v) for v in variables], variables)
    np.testing.assert_allclose(variables[0].numpy(), 1.0)  # Muon variable, weight_decay=None
    np.testing.assert_allclose(variables[1].numpy(), 1.0 - 0.5 * 0.2)  # AdamW variable
    np.testing.assert_allclose(variables[2].numpy(), 1.0)  # excluded


# ------------------------------------------------------- ScheduleFreeAdamW


def _schedule_free_reference(
    steps, learning_rate=0.0025, beta_1=0.9, beta_2=0.999, epsilon=1e-8, warmup_steps=0, weight_decay=None, alias=False
):
    """Defazio et al.'s schedule-free AdamW in float64. ``alias=True`` recovers x from the *new* z, as Keras's
    TensorFlow backend does (its ``momentum.value`` is the live variable, read after the update)."""
    ys = [x.astype("float64") for x in INITIAL]
    zs = [y.copy() for y in ys]
    vs = [np.zeros_like(y) for y in ys]
    for t, grads in enumerate(GRADS[:steps], start=1):
        lr = learning_rate * min(t / warmup_steps, 1.0) if warmup_steps else learning_rate
        for i, g in enumerate(grads):
            if weight_decay:
                ys[i] = ys[i] - ys[i] * weight_decay * learning_rate
            z_old = zs[i].copy()
            vs[i] = vs[i] + (g.astype("float64") ** 2 - vs[i]) * (1 - beta_2)
            zs[i] = zs[i] - lr * g / (np.sqrt(vs[i] / (1 - beta_2**t)) + epsilon)
            x_old = (ys[i] - (1 - beta_1) * (zs[i] if alias else z_old)) / beta_1
            x = (1 - 1 / t) * x_old + zs[i] / t
            ys[i] = (1 - beta_1) * zs[i] + beta_1 * x
    return ys


@pytest.mark.parametrize("kwargs", SCHEDULE_FREE_CASES[:2], ids=["defaults", "warmup-decay"])
def test_schedule_free_six_steps_match_the_reference(kwargs):
    got = _run(optimizers.ScheduleFreeAdamW(**kwargs), _tf_variables())
    for a, b in zip(got, _schedule_free_reference(len(GRADS), **kwargs)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs", SCHEDULE_FREE_CASES, ids=["defaults", "warmup-decay", "betas-clip-ema"])
def test_schedule_free_against_keras(kwargs):
    keras = pytest.importorskip("keras")
    # Step 1 does not depend on the old z (x = z there): Keras and tfkit agree exactly.
    ours, theirs = optimizers.ScheduleFreeAdamW(**kwargs), keras.optimizers.ScheduleFreeAdamW(**kwargs)
    for a, b in zip(_run(ours, _tf_variables(), 1), _run(theirs, _keras_variables(keras), 1)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    _assert_config_matches_keras(ours, theirs)
    # Later steps: Keras's TensorFlow backend reads z after updating it; the reference with that reading
    # reproduces Keras, so the formulas are Keras's and the old z is the only difference.
    if "clipvalue" not in kwargs:
        expected = _run(keras.optimizers.ScheduleFreeAdamW(**kwargs), _keras_variables(keras))
        for a, b in zip(expected, _schedule_free_reference(len(GRADS), alias=True, **kwargs)):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_schedule_free_z_starts_as_the_variable_even_when_built_in_a_tf_function():
    variables = _tf_variables()
    optimizer = optimizers.ScheduleFreeAdamW(learning_rate=0.05)

    @tf.function
    def step(grads):
        optimizer.apply(grads, variables)

    step([tf.constant(g) for g in GRADS[0]])
    step([tf.constant(g) for g in GRADS[1]])
    expected = _run(optimizers.ScheduleFreeAdamW(learning_rate=0.05), _tf_variables(), steps=2)
    for a, b in zip(variables, expected):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-6, atol=1e-7)


def test_schedule_free_bad_arguments_say_what_is_wrong():
    with pytest.raises(ValueError, match=r"beta_1 must be a float in \(0, 1\]"):
        optimizers.ScheduleFreeAdamW(beta_1=0.0)
    with pytest.raises(ValueError, match="warmup_steps must be an int >= 0"):
        optimizers.ScheduleFreeAdamW(warmup_steps=-1)
    with pytest.raises(ValueError, match=r"ns_steps must be an int >= 0, got ns_steps=2.5"):
        optimizers.Muon(ns_steps=2.5)
    with pytest.raises(ValueError, match="exclude_layers must be a list of patterns"):
        optimizers.Muon(exclude_layers="head")
    with pytest.raises(ValueError, match=r"exclude_layers holds '\(', not a regular expression"):
        optimizers.Muon(exclude_layers=["("])


# ------------------------------------------------------------ both of them


@pytest.mark.parametrize(
    "make",
    [lambda: optimizers.Muon(learning_rate=0.02, use_ema=True), lambda: optimizers.ScheduleFreeAdamW(warmup_steps=2)],
    ids=["muon", "schedule_free"],
)
def test_xla_steps_match_eager(make):
    eager = _run(make(), _tf_variables(), steps=3)
    variables = _tf_variables()
    optimizer = make()
    optimizer.build(variables)

    @tf.function(jit_compile=True)
    def step(grads):
        optimizer.apply(grads, variables)

    for grads in GRADS[:3]:
        step([tf.constant(g) for g in grads])
    for a, b in zip(variables, eager):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, alias", [("Muon", "muon"), ("ScheduleFreeAdamW", "schedulefreeadamw")])
def test_config_round_trip_and_names(name, alias):
    optimizer = getattr(optimizers, name)(learning_rate=0.03, weight_decay=0.1)
    twin = optimizers.deserialize(optimizers.serialize(optimizer))
    assert type(twin) is type(optimizer) and twin.get_config() == optimizer.get_config()
    assert type(optimizers.get(alias)) is type(optimizer)


@pytest.mark.parametrize(
    "make",
    [
        lambda: optimizers.Muon(learning_rate=0.01, exclude_layers=["out"]),
        lambda: optimizers.ScheduleFreeAdamW(learning_rate=0.01, warmup_steps=3, use_ema=True),
    ],
    ids=["muon", "schedule_free"],
)
@pytest.mark.parametrize("run_eagerly", [False, True], ids=["compiled", "eager"])
def test_fit_save_load_keep_training(make, run_eagerly, tmp_path):
    x = RNG.random((16, 4)).astype("float32")
    y = x @ RNG.normal(size=(4, 2)).astype("float32")
    model = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(3, activation="relu"), layers.Dense(2, name="out")])
    model.compile(optimizer=make(), loss="mse", run_eagerly=run_eagerly)
    history = model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    assert int(model.optimizer.iterations) == 8
    path = str(tmp_path / "model.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    assert type(loaded.optimizer) is type(model.optimizer)
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    assert len(loaded.optimizer.variables) == len(model.optimizer.variables)
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):  # slots restored by position
        np.testing.assert_array_equal(b.numpy(), a.numpy())
    expected = model.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False).history["loss"]
    got = loaded.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False).history["loss"]
    assert got == pytest.approx(expected, rel=1e-5)
