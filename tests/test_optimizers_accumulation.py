"""gradient_accumulation_steps on every optimizer: Keras 3's averaging, iterations and schedule semantics."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit


def _grads(count=7, shape=(3, 2)):
    rng = np.random.default_rng(0)
    return rng.normal(size=shape).astype("float32"), [rng.normal(size=shape).astype("float32") for _ in range(count)]


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "tf.function"])
def test_sgd_applies_the_mean_of_each_group_of_gradients(compiled):
    w0, grads = _grads()
    variable = tf.Variable(w0)
    optimizer = tfkit.optimizers.SGD(0.1, gradient_accumulation_steps=3)
    apply = lambda g: optimizer.apply([g], [variable])
    apply = tf.function(apply) if compiled else apply
    expected = w0.astype("float64")
    for step, g in enumerate(grads, start=1):
        apply(tf.constant(g))
        if step % 3 == 0:  # steps 3 and 6 update with the mean of three
            expected = expected - 0.1 * np.mean(grads[step - 3 : step], axis=0)
        np.testing.assert_allclose(variable.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert int(optimizer.iterations) == 2 and int(optimizer._iterations) == 7
    accumulator = optimizer.variables[-1]
    np.testing.assert_allclose(accumulator.numpy(), grads[6], rtol=1e-6)  # the seventh waits for two more


def test_schedules_see_every_step_and_bias_correction_counts_updates():
    w0, grads = _grads(count=4)
    seen = []

    class Recording(tfkit.optimizers.schedules.LearningRateSchedule):
        def __call__(self, step):
            seen.append(int(step))
            return 0.1

    variable = tf.Variable(w0)
    optimizer = tfkit.optimizers.Adam(Recording(), gradient_accumulation_steps=2)
    for g in grads:
        optimizer.apply([tf.constant(g)], [variable])
    assert seen == [0, 1, 2, 3]  # the "real" iterations, as Keras documents
    m = np.zeros_like(w0, dtype="float64")
    v = np.zeros_like(m)
    w = w0.astype("float64")
    for t, group in enumerate((grads[:2], grads[2:]), start=1):
        g = np.mean(group, axis=0)
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        w = w - 0.1 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t) * m / (np.sqrt(v) + 1e-7)
    np.testing.assert_allclose(variable.numpy(), w, rtol=2e-5, atol=1e-6)


def test_a_bad_count_is_refused_and_the_setting_round_trips():
    with pytest.raises(ValueError, match="gradient_accumulation_steps must be an integer >= 2, got 1"):
        tfkit.optimizers.Adam(gradient_accumulation_steps=1)
    config = tfkit.optimizers.RMSprop(gradient_accumulation_steps=4).get_config()
    assert config["gradient_accumulation_steps"] == 4
    assert tfkit.optimizers.RMSprop.from_config(config).gradient_accumulation_steps == 4
    assert tfkit.optimizers.Adam().get_config()["gradient_accumulation_steps"] is None


def test_fit_with_accumulation_trains_saves_and_resumes(tmp_path):
    rng = np.random.default_rng(1)
    x, y = rng.random((64, 3)).astype("float32"), rng.random((64, 1)).astype("float32")
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
    model.compile(tfkit.optimizers.Adam(0.01, gradient_accumulation_steps=2), "mse")
    model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    assert int(model.optimizer.iterations) == 8  # 16 batches, one update per two
    model.save(tmp_path / "m.h5")
    loaded = tfkit.models.load_model(tmp_path / "m.h5")
    assert loaded.optimizer.gradient_accumulation_steps == 2
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_equal_to_keras_side_by_side():
    keras = pytest.importorskip("keras")
    w0, grads = _grads()
    for name, kwargs in [
        ("Adam", {"use_ema": True, "global_clipnorm": 0.5}),
        ("SGD", {"momentum": 0.9}),
        ("Nadam", {}),
        ("RMSprop", {"clipnorm": 0.3}),
    ]:
        ours, theirs = tf.Variable(w0), keras.Variable(w0)
        a = getattr(tfkit.optimizers, name)(learning_rate=0.1, gradient_accumulation_steps=3, **kwargs)
        b = getattr(keras.optimizers, name)(learning_rate=0.1, gradient_accumulation_steps=3, **kwargs)
        for g in grads:
            a.apply([tf.constant(g)], [ours])
            b.apply([tf.constant(g)], [theirs])
        np.testing.assert_allclose(ours.numpy(), np.asarray(theirs), rtol=2e-5, atol=2e-6, err_msg=name)
        assert int(a.iterations) == int(b.iterations)
