"""tfkit.optimizers: Keras 3 update formulas (checked against numpy), clipping, weight decay,
EMA, constraints, schedules, configs, checkpoints, tf.function/XLA, sparse gradients and
MirroredStrategy."""

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import tensorflow as tf
import time_limits

from tfkit import optimizers
from tfkit.optimizers import schedules

W0 = np.array([[0.5, -1.0, 2.0], [1.5, -0.3, 0.1]], np.float32)
GRADS = [
    np.array([[0.1, -0.2, 0.3], [0.4, 0.0, -0.6]], np.float32),
    np.array([[-0.5, 0.25, 0.1], [0.2, -0.3, 0.05]], np.float32),
    np.array([[0.3, 0.3, -0.2], [-0.1, 0.7, 0.4]], np.float32),
]


# ------------------------------------------------------------- numpy references
# Each reference is ``step(w, g, t, state) -> new w`` for the 1-based step t,
# written from the Keras 3 formulas.


def np_sgd(lr, momentum=0.0, nesterov=False):
    def step(w, g, t, s):
        if momentum == 0:
            return w - lr * g
        s["m"] = s.get("m", 0.0) * momentum - lr * g
        return w + (s["m"] * momentum - lr * g if nesterov else s["m"])

    return step


def np_adam(lr, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False, weight_decay=None):
    def step(w, g, t, s):
        if weight_decay is not None:
            w = w - lr * weight_decay * w
        s["m"] = s.get("m", 0.0) + (g - s.get("m", 0.0)) * (1 - b1)
        s["v"] = s.get("v", 0.0) + (g * g - s.get("v", 0.0)) * (1 - b2)
        v = s["v"]
        if amsgrad:
            s["vh"] = np.maximum(s.get("vh", 0.0), v)
            v = s["vh"]
        alpha = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
        return w - s["m"] * alpha / (np.sqrt(v) + eps)

    return step


def np_rmsprop(lr, rho=0.9, momentum=0.0, eps=1e-7, centered=False):
    def step(w, g, t, s):
        s["v"] = rho * s.get("v", 0.0) + (1 - rho) * g * g
        if centered:
            s["a"] = rho * s.get("a", 0.0) + (1 - rho) * g
            denominator = s["v"] - s["a"] ** 2 + eps
        else:
            denominator = s["v"] + eps
        increment = lr * g / np.sqrt(denominator)
        if momentum > 0:
            s["m"] = momentum * s.get("m", 0.0) + increment
            return w - s["m"]
        return w - increment

    return step


def np_adagrad(lr, initial=0.1, eps=1e-7):
    def step(w, g, t, s):
        s["acc"] = s.get("acc", initial) + g * g
        return w - lr * g / np.sqrt(s["acc"] + eps)

    return step


def np_adamax(lr, b1=0.9, b2=0.999, eps=1e-7):
    def step(w, g, t, s):
        s["m"] = s.get("m", 0.0) + (g - s.get("m", 0.0)) * (1 - b1)
        s["u"] = np.maximum(b2 * s.get("u", 0.0), np.abs(g))
        return w - lr * s["m"] / ((1 - b1**t) * (s["u"] + eps))

    return step


def np_nadam(lr, b1=0.9, b2=0.999, eps=1e-7):
    def step(w, g, t, s):
        u_t = b1 * (1 - 0.5 * 0.96**t)
        u_next = b1 * (1 - 0.5 * 0.96 ** (t + 1))
        s["prod"] = s.get("prod", 1.0) * u_t
        prod_next = s["prod"] * u_next
        s["m"] = s.get("m", 0.0) + (g - s.get("m", 0.0)) * (1 - b1)
        s["v"] = s.get("v", 0.0) + (g * g - s.get("v", 0.0)) * (1 - b2)
        m_hat = u_next * s["m"] / (1 - prod_next) + (1 - u_t) * g / (1 - s["prod"])
        v_hat = s["v"] / (1 - b2**t)
        return w - m_hat * lr / (np.sqrt(v_hat) + eps)

    return step


def np_lion(lr, b1=0.9, b2=0.99):
    def step(w, g, t, s):
        m = s.get("m", 0.0)
        w = w - lr * np.sign(m * b1 + g * (1 - b1))
        s["m"] = m * b2 + g * (1 - b2)
        return w

    return step


def reference(step, grads=GRADS, w0=W0):
    w, state, out = w0.astype(np.float64), {}, []
    for t, g in enumerate(grads, start=1):
        w = step(w, g.astype(np.float64), t, state)
        out.append(w)
    return out


CASES = {
    "sgd": (lambda: optimizers.SGD(0.1), np_sgd(0.1)),
    "sgd_momentum": (lambda: optimizers.SGD(0.1, momentum=0.9), np_sgd(0.1, 0.9)),
    "sgd_nesterov": (lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True), np_sgd(0.1, 0.9, True)),
    "adam": (lambda: optimizers.Adam(0.1), np_adam(0.1)),
    "adam_amsgrad": (lambda: optimizers.Adam(0.1, beta_2=0.9, amsgrad=True), np_adam(0.1, b2=0.9, amsgrad=True)),
    "adamw": (lambda: optimizers.AdamW(0.1, weight_decay=0.05), np_adam(0.1, weight_decay=0.05)),
    "rmsprop": (lambda: optimizers.RMSprop(0.1), np_rmsprop(0.1)),
    "rmsprop_centered_momentum": (
        lambda: optimizers.RMSprop(0.1, momentum=0.5, centered=True),
        np_rmsprop(0.1, momentum=0.5, centered=True),
    ),
    "adagrad": (lambda: optimizers.Adagrad(0.1), np_adagrad(0.1)),
    "adamax": (lambda: optimizers.Adamax(0.1), np_adamax(0.1)),
    "nadam": (lambda: optimizers.Nadam(0.1), np_nadam(0.1)),
    "lion": (lambda: optimizers.Lion(0.1), np_lion(0.1)),
}


def run_steps(optimizer, grads=GRADS, w0=W0, mode="eager"):
    variable = tf.Variable(w0)

    def step(gradient):
        optimizer.apply([gradient], [variable])

    if mode == "function":
        step = tf.function(step)
    elif mode == "jit":
        step = tf.function(step, jit_compile=True)
    values = []
    for g in grads:
        step(tf.constant(g))
        values.append(variable.numpy())
    return values


@pytest.mark.parametrize("case", sorted(CASES))
def test_first_three_steps_match_keras_formula(case):
    make, step = CASES[case]
    optimizer = make()
    for got, want in zip(run_steps(optimizer), reference(step)):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
    assert int(optimizer.iterations.numpy()) == 3


@pytest.mark.parametrize("case", ["adam_amsgrad", "nadam"])
def test_eager_function_and_jit_agree(case):
    make, _ = CASES[case]
    eager = run_steps(make())[-1]
    function = run_steps(make(), mode="function")[-1]
    jit = run_steps(make(), mode="jit")[-1]
    np.testing.assert_allclose(function, eager, rtol=1e-6)
    np.testing.assert_allclose(jit, eager, rtol=1e-5, atol=1e-7)


def test_defaults_follow_keras():
    assert optimizers.SGD().learning_rate.numpy() == pytest.approx(0.01)
    adam = optimizers.Adam()
    assert (adam.learning_rate.numpy(), adam.beta_1, adam.beta_2, adam.epsilon, adam.amsgrad) == (
        pytest.approx(0.001),
        0.9,
        0.999,
        1e-7,
        False,
    )
    assert optimizers.AdamW().weight_decay == 0.004
    rms = optimizers.RMSprop()
    assert (rms.rho, rms.momentum, rms.epsilon, rms.centered) == (0.9, 0.0, 1e-7, False)
    assert optimizers.Adagrad().initial_accumulator_value == 0.1
    assert (optimizers.Lion().beta_1, optimizers.Lion().beta_2) == (0.9, 0.99)
    assert optimizers.Nadam().epsilon == 1e-7 and optimizers.Adamax().beta_2 == 0.999


# ------------------------------------------------------------ gradient handling


def sgd_step_delta(**kwargs):
    """With SGD at lr=1 the change of each variable is minus the processed gradient."""
    a, b = tf.Variable([3.0, 4.0]), tf.Variable([1.0])
    optimizer = optimizers.SGD(1.0, **kwargs)
    optimizer.apply([tf.constant([3.0, 4.0]), tf.constant([12.0])], [a, b])
    return np.array([3.0, 4.0]) - a.numpy(), np.array([1.0]) - b.numpy()


def test_clipnorm_clips_each_gradient():
    da, db = sgd_step_delta(clipnorm=1.0)
    np.testing.assert_allclose(da, [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(db, [1.0], rtol=1e-6)


def test_global_clipnorm_scales_all_gradients_together():
    da, db = sgd_step_delta(global_clipnorm=6.5)  # global norm = sqrt(9 + 16 + 144) = 13
    np.testing.assert_allclose(da, [1.5, 2.0], rtol=1e-6)
    np.testing.assert_allclose(db, [6.0], rtol=1e-6)


def test_clipvalue_clips_elementwise():
    da, db = sgd_step_delta(clipvalue=3.5)
    np.testing.assert_allclose(da, [3.0, 3.5])
    np.testing.assert_allclose(db, [3.5])


def test_only_one_clip_option_allowed():
    with pytest.raises(ValueError, match="at most one of clipnorm"):
        optimizers.SGD(clipnorm=1.0, clipvalue=1.0)


def test_loss_scale_factor_divides_gradients():
    optimizer = optimizers.SGD(1.0, loss_scale_factor=4.0)
    assert float(optimizer.scale_loss(tf.constant(2.0))) == 8.0
    v = tf.Variable([1.0])
    optimizer.apply([tf.constant([4.0])], [v])
    np.testing.assert_allclose(v.numpy(), [0.0])


def test_weight_decay_is_decoupled_and_can_exclude_variables():
    kernel = tf.Variable([1.0, 2.0], name="kernel")
    bias = tf.Variable([1.0, 2.0], name="bias")
    other = tf.Variable([1.0, 2.0], name="other")
    optimizer = optimizers.SGD(0.1, weight_decay=0.5)
    optimizer.exclude_from_weight_decay(var_list=[other], var_names=["bias"])
    g = tf.constant([1.0, 1.0])
    optimizer.apply([g, g, g], [kernel, bias, other])
    w = np.array([1.0, 2.0])
    np.testing.assert_allclose(kernel.numpy(), w - 0.1 * 0.5 * w - 0.1, rtol=1e-6)
    np.testing.assert_allclose(bias.numpy(), w - 0.1, rtol=1e-6)
    np.testing.assert_allclose(other.numpy(), w - 0.1, rtol=1e-6)
    with pytest.raises(ValueError, match="before the optimizer is built"):
        optimizer.exclude_from_weight_decay(var_names=["kernel"])


def test_constraint_applied_after_update():
    v = tf.Variable([0.5, -0.5], constraint=lambda w: tf.clip_by_value(w, -0.6, 0.6))
    optimizers.SGD(1.0).apply([tf.constant([-1.0, 1.0])], [v])
    np.testing.assert_allclose(v.numpy(), [0.6, -0.6])


def test_none_gradients_are_skipped_with_a_warning():
    a, b = tf.Variable([1.0]), tf.Variable([1.0])
    optimizer = optimizers.SGD(1.0)
    with pytest.warns(UserWarning, match="Gradients do not exist"):
        optimizer.apply([None, tf.constant([1.0])], [a, b])
    assert (a.numpy()[0], b.numpy()[0]) == (1.0, 0.0)
    with pytest.raises(ValueError, match="no gradients"):
        optimizer.apply([None, None], [a, b])


def test_errors_name_what_was_expected():
    a, b = tf.Variable([1.0]), tf.Variable([1.0])
    optimizer = optimizers.SGD()
    with pytest.raises(ValueError, match="without variables before it was built"):
        optimizer.apply([tf.constant([1.0])])
    optimizer.apply([tf.constant([1.0])], [a])
    with pytest.raises(ValueError, match="not one of them"):
        optimizer.apply([tf.constant([1.0])], [b])
    with pytest.raises(ValueError, match="one gradient per variable"):
        optimizer.apply([tf.constant([1.0]), tf.constant([1.0])])
    with pytest.raises(ValueError, match="learning_rate must be a float"):
        optimizers.Adam(learning_rate="fast")


def test_apply_gradients_pairs_and_apply_without_variables():
    a = tf.Variable([1.0, 2.0])
    optimizer = optimizers.SGD(0.5)
    assert int(optimizer.apply_gradients([(tf.constant([1.0, 1.0]), a)]).numpy()) == 1
    optimizer.apply([tf.constant([2.0, 2.0])])
    np.testing.assert_allclose(a.numpy(), [-0.5, 0.5])
    assert int(optimizer.iterations.numpy()) == 2


@pytest.mark.parametrize("mode", ["eager", "function", "jit"])
def test_indexed_slices_gradient_equals_dense(mode):
    table_sparse = tf.Variable(W0)
    table_dense = tf.Variable(W0)
    sparse_opt, dense_opt = optimizers.Adam(0.1), optimizers.Adam(0.1)
    ids = tf.constant([1, 1, 0])

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.gather(table_sparse, ids) * [[1.0, 2.0, 3.0]])
        grad = tape.gradient(loss, table_sparse)
        sparse_opt.apply([grad], [table_sparse])
        dense_opt.apply([tf.convert_to_tensor(grad)], [table_dense])
        return isinstance(grad, tf.IndexedSlices)

    if mode != "eager":
        step = tf.function(step, jit_compile=mode == "jit")
    for _ in range(2):
        was_sparse = step()
    assert bool(was_sparse)
    np.testing.assert_allclose(table_sparse.numpy(), table_dense.numpy(), rtol=1e-6)
    np.testing.assert_allclose(table_sparse.numpy()[1], W0[1] - 2 * 0.1 * np.sign([1, 2, 3]), rtol=1e-4)


# --------------------------------------------------------------------- EMA


def test_ema_tracks_average_and_finalize_copies_it():
    v = tf.Variable([1.0, -1.0])
    optimizer = optimizers.SGD(0.1, use_ema=True, ema_momentum=0.9)
    w, average = np.array([1.0, -1.0]), None
    for g in ([1.0, 2.0], [0.5, -1.0], [2.0, 0.0]):
        optimizer.apply([tf.constant(g)], [v])
        w = w - 0.1 * np.array(g)
        average = w if average is None else 0.9 * average + 0.1 * w  # first step copies
    np.testing.assert_allclose(v.numpy(), w, rtol=1e-6)
    optimizer.finalize_variable_values([v])
    np.testing.assert_allclose(v.numpy(), average, rtol=1e-6)


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_ema_overwrite_frequency_overwrites_every_n_steps(mode):
    v = tf.Variable([0.0])
    optimizer = optimizers.SGD(1.0, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=2)
    step = lambda: optimizer.apply([tf.constant([-1.0])], [v])  # noqa: E731
    if mode != "eager":
        step = tf.function(step, jit_compile=mode == "jit")
    step()  # w = 1, average = 1 (copied on the first step)
    assert v.numpy()[0] == pytest.approx(1.0)
    step()  # w = 2, average = 1.5, overwritten at step 2
    assert v.numpy()[0] == pytest.approx(1.5)
    step()  # w = 2.5, average = 2.0, not overwritten
    assert v.numpy()[0] == pytest.approx(2.5)


# --------------------------------------------------------- learning rate


def test_learning_rate_is_an_assignable_variable():
    v = tf.Variable([1.0])
    optimizer = optimizers.SGD(0.1)
    step = tf.function(lambda: optimizer.apply([tf.constant([1.0])], [v]))
    step()
    optimizer.learning_rate.assign(0.5)
    step()
    optimizer.learning_rate = 0.25
    step()
    np.testing.assert_allclose(v.numpy(), [1.0 - 0.1 - 0.5 - 0.25], rtol=1e-6)
    assert optimizer.learning_rate.trainable is False


def test_learning_rate_schedule_is_evaluated_at_iterations():
    schedule = schedules.ExponentialDecay(0.5, decay_steps=1, decay_rate=0.5)
    optimizer = optimizers.SGD(schedule)
    v = tf.Variable([0.0])
    step = tf.function(lambda: optimizer.apply([tf.constant([-1.0])], [v]))
    for _ in range(3):
        step()
    np.testing.assert_allclose(v.numpy(), [0.5 + 0.25 + 0.125], rtol=1e-6)
    assert float(optimizer.learning_rate) == pytest.approx(0.5 * 0.5**3)
    assert len(optimizer.variables) == 1  # only iterations; no learning-rate variable
    with pytest.raises(ValueError, match="cannot be assigned"):
        optimizer.learning_rate = 0.1


def test_learning_rate_callable_and_replacing_by_schedule(tmp_path):
    optimizer = optimizers.SGD(lambda: 0.25)
    v = tf.Variable([0.0])
    optimizer.apply([tf.constant([-1.0])], [v])
    np.testing.assert_allclose(v.numpy(), [0.25])
    optimizer = optimizers.SGD(0.1)
    optimizer.learning_rate = schedules.InverseTimeDecay(1.0, 1, 1.0)
    optimizer.apply([tf.constant([-1.0])], [v])
    np.testing.assert_allclose(v.numpy(), [1.25])
    assert optimizer.variables == [optimizer.iterations]
    path = tf.train.Checkpoint(optimizer=optimizer).write(str(tmp_path / "ckpt"))
    assert not [name for name, _ in tf.train.list_variables(path) if "learning_rate" in name]


# ------------------------------------------------------------- variables


def test_variables_order_iterations_learning_rate_then_slots_by_position():
    a, b = tf.Variable(tf.zeros((2, 3))), tf.Variable(tf.zeros((4,)))
    optimizer = optimizers.Adam()
    assert not optimizer.built
    optimizer.build([a, b])
    assert optimizer.built
    shapes = [tuple(v.shape) for v in optimizer.variables]
    assert shapes == [(), (), (2, 3), (2, 3), (4,), (4,)]  # m0, v0, m1, v1 as in Keras 3
    optimizer.build([a, b])  # a second build is a no-op
    assert len(optimizer.variables) == 6
    assert optimizer.variables[0] is optimizer.iterations and optimizer.iterations.dtype == tf.int64
    assert optimizer.trainable_variables == ()
    assert optimizer.variable_index(b) == 1
    nadam = optimizers.Nadam()
    nadam.build([a])
    assert tuple(nadam.variables[-1].shape) == ()  # the momentum-schedule product comes last


def test_build_inside_tf_function_creates_slots_once():
    v = tf.Variable([1.0, 2.0])
    optimizer = optimizers.RMSprop(0.01, momentum=0.9, centered=True)
    step = tf.function(lambda g: optimizer.apply([g], [v]))
    step(tf.constant([1.0, 1.0]))
    step(tf.constant([0.5, 1.0]))
    assert len(optimizer.variables) == 2 + 3 and int(optimizer.iterations.numpy()) == 2


def test_checkpoint_round_trip_restores_slots(tmp_path):
    make, _ = CASES["adam_amsgrad"]
    original, original_var = make(), tf.Variable(W0)
    for g in GRADS[:2]:
        original.apply([tf.constant(g)], [original_var])
    variable = tf.Variable(W0)
    path = tf.train.Checkpoint(optimizer=original, var=original_var).write(str(tmp_path / "ckpt"))

    # Restore before build: slots pick up their values when the first apply creates them.
    deferred = make()
    tf.train.Checkpoint(optimizer=deferred, var=variable).read(path).expect_partial()
    assert int(deferred.iterations.numpy()) == 2
    deferred.apply([tf.constant(GRADS[2])], [variable])
    # Restore after build.
    built_var = tf.Variable(W0)
    built = make()
    built.build([built_var])
    tf.train.Checkpoint(optimizer=built, var=built_var).read(path).assert_consumed()
    built.apply([tf.constant(GRADS[2])], [built_var])
    original.apply([tf.constant(GRADS[2])], [original_var])
    want = reference(CASES["adam_amsgrad"][1])[-1]
    for got in (variable, built_var, original_var):
        np.testing.assert_allclose(got.numpy(), want, rtol=2e-5, atol=1e-6)
    for restored, saved in zip(built.variables, original.variables):
        np.testing.assert_allclose(restored.numpy(), saved.numpy(), rtol=1e-6)


# ---------------------------------------------------------------- config


@pytest.mark.parametrize("name", ["sgd", "adam", "adamw", "rmsprop", "adagrad", "adamax", "nadam", "lion"])
def test_get_and_config_round_trip(name):
    optimizer = optimizers.get(name)
    assert type(optimizer).__name__.lower() == name
    config = optimizer.get_config()
    json.dumps(config)
    again = type(optimizer).from_config(config)
    assert again.get_config() == config
    restored = optimizers.deserialize(json.loads(json.dumps(optimizers.serialize(optimizer))))
    assert type(restored) is type(optimizer) and restored.get_config() == config


def test_config_keeps_hyperparameters_and_schedule():
    schedule = schedules.CosineDecay(0.0, 100, warmup_target=0.1, warmup_steps=10)
    optimizer = optimizers.SGD(
        schedule,
        momentum=0.9,
        nesterov=True,
        clipnorm=2.0,
        use_ema=True,
        ema_overwrite_frequency=5,
        weight_decay=0.01,
        name="my_sgd",
    )
    config = optimizer.get_config()
    assert config["learning_rate"] == {"class_name": "CosineDecay", "config": schedule.get_config()}
    assert config["momentum"] == 0.9 and config["nesterov"] is True and config["clipnorm"] == 2.0
    restored = optimizers.deserialize(json.loads(json.dumps(optimizers.serialize(optimizer))))
    assert isinstance(restored, optimizers.SGD) and restored.name == "my_sgd"
    assert restored.get_config() == config
    assert optimizers.Adam(0.003).get_config()["learning_rate"] == 0.003


def test_get_rejects_unknown_identifiers():
    adam = optimizers.Adam()
    assert optimizers.get(adam) is adam
    with pytest.raises(ValueError, match="Unknown optimizer"):
        optimizers.get("adamm")
    with pytest.raises(ValueError, match="Expected an optimizer"):
        optimizers.get(3)


def test_custom_optimizer_subclass():
    class SignSGD(optimizers.Optimizer):
        def __init__(self, learning_rate=0.1, **kwargs):
            super().__init__(learning_rate=learning_rate, **kwargs)

        def update_step(self, gradient, variable, learning_rate):
            variable.assign_sub(tf.cast(learning_rate, variable.dtype) * tf.sign(gradient))

    v = tf.Variable([1.0, 1.0])
    SignSGD().apply([tf.constant([3.0, -0.2])], [v])
    np.testing.assert_allclose(v.numpy(), [0.9, 1.1], rtol=1e-6)


# --------------------------------------------------------- MirroredStrategy

MIRRORED_SCRIPT = textwrap.dedent(
    """
    import numpy as np, tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    from tfkit import optimizers

    init = [np.array([[1.0, -2.0], [3.0, 0.5]], np.float32), np.array([0.3, -0.1], np.float32)]
    rng = np.random.default_rng(0)
    grads = [[rng.normal(size=w.shape).astype(np.float32) for w in init] for _ in range(3)]
    constraint = lambda w: tf.clip_by_value(w, -10.0, 2.5)
    make = lambda: optimizers.Adam(0.1, global_clipnorm=0.5, weight_decay=0.01, use_ema=True,
                                   ema_overwrite_frequency=2)

    def single():
        vs = [tf.Variable(init[0], constraint=constraint), tf.Variable(init[1])]
        opt = make()
        step = tf.function(lambda g: opt.apply(g, vs))
        for g in grads:
            step([tf.constant(x) for x in g])
        return [v.numpy() for v in vs] + [opt.iterations.numpy()]

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

    def mirrored(build_first):
        with strategy.scope():
            vs = [tf.Variable(init[0], constraint=constraint), tf.Variable(init[1])]
            opt = make()
            if build_first:
                opt.build(vs)

        @tf.function
        def step(g):
            # Each replica sees half of the global gradient; the all-reduce sums them.
            strategy.run(lambda g: opt.apply([x / 2.0 for x in g], vs), args=(g,))

        for g in grads:
            step([tf.constant(x) for x in g])
        assert all(isinstance(s, tf.distribute.DistributedValues) for s in opt.variables), opt.variables
        for v in vs:
            np.testing.assert_allclose(v.values[0].numpy(), v.values[1].numpy())
        return [v.numpy() for v in vs] + [opt.iterations.numpy()]

    want = single()
    for build_first in (True, False):
        for got, expected in zip(mirrored(build_first), want):
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)
    print("MIRRORED_OK")
    """
)


def test_mirrored_strategy_sums_replica_gradients_like_one_device():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-c", MIRRORED_SCRIPT],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(240),
    )
    assert "MIRRORED_OK" in result.stdout, result.stdout[-3000:] + result.stderr[-5000:]


# ------------------------------------------------------ optional Keras check


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("Adam", {"learning_rate": 0.1, "amsgrad": True}),
        ("SGD", {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
        ("Nadam", {"learning_rate": 0.1}),
    ],
)
def test_matches_keras_trajectory(name, kwargs):
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "tensorflow":
        pytest.skip("the cross-check needs Keras on the TensorFlow backend")
    ours = run_steps(getattr(optimizers, name)(**kwargs))
    keras_optimizer = getattr(keras.optimizers, name)(**kwargs)
    variable = keras.Variable(W0)
    theirs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for g in GRADS:
            keras_optimizer.apply([tf.constant(g)], [variable])
            theirs.append(np.array(variable.numpy()))
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
