"""LossScaleOptimizer by hand-derived numbers, and fit under mixed precision (loss scaling, MNIST)."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers, mixed_precision, optimizers


@pytest.fixture(autouse=True)
def restore_policy():
    yield
    mixed_precision.set_global_policy("float32")


def _sgd_scaled(initial_scale=8.0, growth=2):
    w = tf.Variable([1.0, 2.0])
    opt = optimizers.LossScaleOptimizer(optimizers.SGD(0.1), initial_scale=initial_scale, dynamic_growth_steps=growth)
    return w, opt


def test_keras_names_and_defaults():
    opt = tfkit.mixed_precision.LossScaleOptimizer(optimizers.Adam())
    assert opt.initial_scale == 2.0**15 and opt.dynamic_growth_steps == 2000
    assert float(opt.dynamic_scale) == 2.0**15
    assert float(opt.scale_loss(tf.constant(2.0))) == 2.0**16
    config = opt.get_config()
    assert config["inner_optimizer"]["class_name"] == "Adam"
    clone = optimizers.LossScaleOptimizer.from_config(config)
    assert isinstance(clone.inner_optimizer, optimizers.Adam) and clone.initial_scale == 2.0**15
    with pytest.raises(ValueError, match="clipnorm"):
        optimizers.LossScaleOptimizer(optimizers.SGD(), clipnorm=1.0)


def test_finite_step_equals_inner_step_on_unscaled_gradients():
    w, opt = _sgd_scaled()
    opt.apply([tf.constant([8 * 0.5, 8 * 1.0])], [w])  # scaled by 8
    np.testing.assert_allclose(w.numpy(), [1.0 - 0.1 * 0.5, 2.0 - 0.1 * 1.0], rtol=1e-6)
    assert float(opt.dynamic_scale) == 8.0 and int(opt.step_counter) == 1 and int(opt.iterations) == 1


def test_scale_doubles_after_growth_steps_finite_steps():
    w, opt = _sgd_scaled()
    for _ in range(2):
        opt.apply([tf.constant([4.0, 8.0])], [w])
    np.testing.assert_allclose(w.numpy(), [0.9, 1.8], rtol=1e-6)
    assert float(opt.dynamic_scale) == 16.0 and int(opt.step_counter) == 0
    opt.apply([tf.constant([16 * 1.0, 0.0])], [w])  # unscaled by the new scale 16
    np.testing.assert_allclose(w.numpy(), [0.8, 1.8], rtol=1e-6)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_non_finite_gradient_skips_the_step_and_halves_the_scale(bad):
    w, opt = _sgd_scaled()
    opt.apply([tf.constant([4.0, 8.0])], [w])
    before = w.numpy().copy()
    opt.apply([tf.constant([bad, 1.0])], [w])
    np.testing.assert_array_equal(w.numpy(), before)
    assert float(opt.dynamic_scale) == 4.0 and int(opt.step_counter) == 0
    assert int(opt.iterations) == 1  # the skipped step does not count


def test_apply_in_a_compiled_function():
    w, opt = _sgd_scaled()
    opt.build([w])

    @tf.function
    def step(g):
        opt.apply([g], [w])

    step(tf.constant([np.inf, 0.0]))
    step(tf.constant([4.0 * 0.5, 4.0 * 1.0]))  # the scale is 4 now
    np.testing.assert_allclose(w.numpy(), [0.95, 1.9], rtol=1e-6)
    assert float(opt.dynamic_scale) == 4.0


def _regression_model():
    model = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(8, activation="relu"), layers.Dense(1, dtype="float32")])
    model.compile(optimizers.SGD(0.01), "mse")
    return model


def test_compile_wraps_only_mixed_float16_models():
    assert not isinstance(_regression_model().optimizer, optimizers.LossScaleOptimizer)
    mixed_precision.set_global_policy("mixed_bfloat16")
    assert not isinstance(_regression_model().optimizer, optimizers.LossScaleOptimizer)
    mixed_precision.set_global_policy("mixed_float16")
    model = _regression_model()
    assert isinstance(model.optimizer, optimizers.LossScaleOptimizer)
    assert isinstance(model.optimizer.inner_optimizer, optimizers.SGD)
    model.compile(optimizers.SGD(0.01), "mse", auto_scale_loss=False)
    assert isinstance(model.optimizer, optimizers.SGD)


def test_fit_survives_an_overflowing_batch():
    tfkit.utils.set_random_seed(3)
    mixed_precision.set_global_policy("mixed_float16")
    model = _regression_model()
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (16, 4)).astype("float32")
    x[:8] = 1e6  # float16 overflows: inf activations, NaN grads
    y = rng.uniform(-1, 1, (16, 1)).astype("float32")
    before = [w.numpy().copy() for w in model.weights]
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    assert all(np.all(np.isfinite(w.numpy())) for w in model.weights)
    assert float(model.optimizer.dynamic_scale) == 2.0**14  # halved once, by the first batch
    assert int(model.optimizer.iterations) == 1  # only the second batch was applied
    assert any(not np.array_equal(b, w.numpy()) for b, w in zip(before, model.weights))


def test_fit_matches_float32_gradient_direction_under_loss_scaling():
    # The scaled-then-unscaled step equals a float32 step up to float16 rounding.
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (32, 4)).astype("float32")
    y = rng.uniform(-1, 1, (32, 1)).astype("float32")
    tfkit.utils.set_random_seed(5)
    ref = _regression_model()
    start = ref.get_weights()
    ref.fit(x, y, batch_size=32, epochs=1, verbose=0)
    mixed_precision.set_global_policy("mixed_float16")
    mixed = _regression_model()
    mixed.set_weights(start)
    mixed.fit(x, y, batch_size=32, epochs=1, verbose=0)
    for a, b, s in zip(ref.get_weights(), mixed.get_weights(), start):
        np.testing.assert_allclose(b - s, a - s, atol=2e-4)


def _mnist(n_train=12000, n_test=2000):
    (x, y), (xt, yt) = tfkit.datasets.mnist.load_data()
    prep = lambda a: (a.reshape(len(a), 784) / 255.0).astype("float32")  # noqa: E731
    return prep(x[:n_train]), y[:n_train], prep(xt[:n_test]), yt[:n_test]


def _mnist_accuracy(policy, data):
    mixed_precision.set_global_policy(policy)
    tfkit.utils.set_random_seed(7)
    model = tfkit.Sequential(
        [
            tfkit.Input((784,)),
            layers.Dense(64, activation="relu"),
            layers.Dense(10),
            layers.Activation("softmax", dtype="float32"),
        ]
    )
    model.compile(optimizers.Adam(1e-3), "sparse_categorical_crossentropy", metrics=["accuracy"])
    x, y, xt, yt = data
    model.fit(x, y, batch_size=64, epochs=2, verbose=0)
    assert model.layers[0].kernel.dtype == tf.float32
    return model.evaluate(xt, yt, verbose=0, return_dict=True)["accuracy"]


def test_mixed_bfloat16_mnist_matches_float32_twin():
    data = _mnist()
    reference = _mnist_accuracy("float32", data)
    mixed = _mnist_accuracy("mixed_bfloat16", data)
    assert reference > 0.85, reference
    assert abs(mixed - reference) <= 0.01, (mixed, reference)
