"""Model: compile / fit / evaluate / predict on compiled steps, and the override points."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


def regression_data(n=256, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype("float32")
    w = np.array([[1.0], [-2.0], [0.5], [3.0]], dtype="float32")
    return x, x @ w + 0.25


class TinyRegressor(tfkit.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(1)

    def call(self, inputs):
        return self.dense(inputs)


def test_fit_reduces_loss_and_returns_history():
    x, y = regression_data()
    model = TinyRegressor()
    model.compile(tfkit.optimizers.SGD(0.1), loss="mse")
    history = model.fit(x, y, batch_size=32, epochs=5, verbose=0)
    losses = history.history["loss"]
    assert len(losses) == 5 and losses[-1] < losses[0] * 0.1
    assert model.evaluate(x, y, verbose=0) < 0.05


def test_fit_matches_a_hand_written_sgd_loop():
    """Same data order, same initial weights: the compiled chunks give the hand-computed weights."""
    x, y = regression_data(64)
    model = TinyRegressor()
    model.compile(tfkit.optimizers.SGD(0.05), loss="mse", steps_per_execution=3)
    model(x[:1])
    w0, b0 = model.dense.kernel.numpy().copy(), model.dense.bias.numpy().copy()
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    w, b = w0.astype("float64"), b0.astype("float64")
    for i in range(0, 64, 16):
        xb, yb = x[i : i + 16].astype("float64"), y[i : i + 16].astype("float64")
        err = xb @ w + b - yb
        w -= 0.05 * 2 * xb.T @ err / len(xb)
        b -= 0.05 * 2 * err.mean(axis=0)
    np.testing.assert_allclose(model.dense.kernel.numpy(), w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(model.dense.bias.numpy(), b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("spe", ["auto", 1, 7])
def test_steps_per_execution_does_not_change_results(spe):
    x, y = regression_data(100)
    tf.random.set_seed(0)
    model = TinyRegressor()
    model.compile(tfkit.optimizers.SGD(0.05), loss="mse", steps_per_execution=spe)
    model(x[:1])
    model.dense.kernel.assign(np.ones((4, 1), "float32"))
    model.dense.bias.assign(np.zeros(1, "float32"))
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    reference = TinyRegressor()
    reference.compile(tfkit.optimizers.SGD(0.05), loss="mse", run_eagerly=True)
    reference(x[:1])
    reference.dense.kernel.assign(np.ones((4, 1), "float32"))
    reference.dense.bias.assign(np.zeros(1, "float32"))
    reference.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(model.dense.kernel.numpy(), reference.dense.kernel.numpy(), rtol=1e-5)


def test_per_batch_callbacks_see_every_batch():
    x, y = regression_data(100)
    seen = []

    class Recorder(tfkit.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append((batch, set(logs)))

    model = TinyRegressor()
    model.compile("sgd", loss="mse")
    model.fit(x, y, batch_size=10, epochs=2, callbacks=[Recorder()], verbose=0)
    assert [b for b, _ in seen] == list(range(10)) * 2
    assert all(keys == {"loss"} for _, keys in seen)


def test_metrics_accuracy_resolves_by_loss_and_evaluate_dict():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 5)).astype("float32")
    y = (x[:, 0] > 0).astype("int32")
    model = tfkit.Sequential([tfkit.Input((5,)), layers.Dense(2)])
    model.compile(
        tfkit.optimizers.Adam(0.05),
        loss=tfkit.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(x, y, epochs=10, batch_size=20, verbose=0)
    result = model.evaluate(x, y, return_dict=True, verbose=0)
    assert set(result) == {"loss", "accuracy"}
    predicted = model.predict(x, verbose=0).argmax(axis=1)
    np.testing.assert_allclose(result["accuracy"], (predicted == y).mean(), atol=1e-6)
    assert result["accuracy"] > 0.9
    assert model.metrics_names == ["loss", "accuracy"]


def test_predict_batches_and_returns_numpy():
    x, _ = regression_data(103)
    model = TinyRegressor()
    out = model.predict(x, batch_size=10, verbose=0)
    assert isinstance(out, np.ndarray) and out.shape == (103, 1)
    np.testing.assert_allclose(out, model(x).numpy(), rtol=1e-5, atol=1e-6)


def test_compile_without_loss_trains_on_add_loss_only():
    class ActivityRegularizationLayer(tfkit.Layer):
        def __init__(self, rate=1e-2):
            super().__init__()
            self.rate = rate

        def call(self, inputs):
            self.add_loss(self.rate * tf.reduce_mean(inputs))
            return inputs

    inputs = tfkit.Input(shape=(3,))
    outputs = ActivityRegularizationLayer()(inputs)
    model = tfkit.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="mse")
    x, y = np.random.random((2, 3)), np.random.random((2, 3))
    with_mse = model.fit(x, y, verbose=0).history["loss"][0]
    expected = np.mean((x - y) ** 2) + 1e-2 * x.mean()
    np.testing.assert_allclose(with_mse, expected, rtol=1e-5)
    model.compile(optimizer="adam")
    only_reg = model.fit(x, y, verbose=0).history["loss"][0]
    np.testing.assert_allclose(only_reg, 1e-2 * x.mean(), rtol=1e-5)


def test_nothing_to_minimize_is_a_clear_error():
    model = TinyRegressor()
    model.compile("sgd")
    with pytest.raises(ValueError, match="nothing to minimize"):
        model.fit(*regression_data(8), verbose=0)


def test_train_step_override_guide_pattern():
    class CustomModel(tfkit.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)
            self.calls = tf.Variable(0)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(grads, self.trainable_variables)
            self.calls.assign_add(1)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    x, y = regression_data(64)
    model = CustomModel()
    model.compile(tfkit.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0)
    assert int(model.calls.numpy()) == 12
    assert set(history.history) == {"loss", "mae"}
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_gan_style_two_optimizers():
    class TwoPlayer(tfkit.Model):
        def __init__(self):
            super().__init__()
            self.generator = layers.Dense(2)
            self.discriminator = layers.Dense(1)

        def compile(self, d_optimizer, g_optimizer):
            super().compile(optimizer=None)
            self.d_optimizer = d_optimizer
            self.g_optimizer = g_optimizer
            self.d_tracker = tfkit.metrics.Mean(name="d_loss")
            self.g_tracker = tfkit.metrics.Mean(name="g_loss")

        @property
        def metrics(self):
            return [self.d_tracker, self.g_tracker]

        def call(self, x):
            return self.discriminator(self.generator(x))

        def train_step(self, real):
            noise = tf.random.normal(tf.shape(real))
            bce = tfkit.losses.BinaryCrossentropy(from_logits=True)
            with tf.GradientTape() as tape:
                fake = self.generator(noise)
                logits_real = self.discriminator(real)
                logits_fake = self.discriminator(fake)
                d_loss = bce(tf.ones_like(logits_real), logits_real) + bce(tf.zeros_like(logits_fake), logits_fake)
            grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
            self.d_optimizer.apply(grads, self.discriminator.trainable_weights)
            with tf.GradientTape() as tape:
                logits_fake = self.discriminator(self.generator(noise))
                g_loss = bce(tf.ones_like(logits_fake), logits_fake)
            grads = tape.gradient(g_loss, self.generator.trainable_weights)
            self.g_optimizer.apply(grads, self.generator.trainable_weights)
            self.d_tracker.update_state(d_loss)
            self.g_tracker.update_state(g_loss)
            return {"d_loss": self.d_tracker.result(), "g_loss": self.g_tracker.result()}

    real = np.random.default_rng(0).normal(3.0, 0.5, size=(128, 2)).astype("float32")
    gan = TwoPlayer()
    gan(real[:1])
    gan.compile(tfkit.optimizers.Adam(1e-2), tfkit.optimizers.Adam(1e-2))
    d0 = gan.discriminator.kernel.numpy().copy()
    g0 = gan.generator.kernel.numpy().copy()
    history = gan.fit(real, batch_size=32, epochs=2, verbose=0)
    assert set(history.history) == {"d_loss", "g_loss"}
    assert not np.allclose(d0, gan.discriminator.kernel.numpy())
    assert not np.allclose(g0, gan.generator.kernel.numpy())


def test_frozen_layer_is_not_updated_by_fit():
    class TwoLayers(tfkit.Model):
        def __init__(self):
            super().__init__()
            self.first = layers.Dense(3)
            self.second = layers.Dense(1)

        def call(self, x):
            return self.second(self.first(x))

    x, y = regression_data(32)
    model = TwoLayers()
    model(x[:1])
    model.first.trainable = False
    model.compile(tfkit.optimizers.SGD(0.1), loss="mse")
    frozen = model.first.kernel.numpy().copy()
    trained = model.second.kernel.numpy().copy()
    model.fit(x, y, epochs=2, verbose=0)
    np.testing.assert_array_equal(model.first.kernel.numpy(), frozen)
    assert not np.allclose(model.second.kernel.numpy(), trained)


def test_inputs_dataset_generator_dict_and_sample_weight():
    x, y = regression_data(64)
    model = TinyRegressor()
    model.compile(tfkit.optimizers.SGD(0.05), loss="mse")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
    assert len(model.fit(ds, epochs=2, verbose=0).history["loss"]) == 2

    def gen():
        for i in range(0, 64, 16):
            yield x[i : i + 16], y[i : i + 16]

    model.fit(gen(), epochs=1, verbose=0)
    zero_weights = np.zeros(64, "float32")
    before = model.dense.kernel.numpy().copy()
    model.fit(x, y, sample_weight=zero_weights, epochs=1, verbose=0)
    np.testing.assert_allclose(model.dense.kernel.numpy(), before, atol=1e-7)


def test_bad_inputs_are_clear_errors():
    model = TinyRegressor()
    model.compile("sgd", loss="mse")
    x, y = regression_data(10)
    with pytest.raises(ValueError, match=r"x: 10, y: 9"):
        model.fit(x, y[:9], verbose=0)
    with pytest.raises(ValueError, match="Unsupported type for x"):
        model.fit({"a": object()}, y, verbose=0)
    with pytest.raises(RuntimeError, match="must be compiled"):
        TinyRegressor().fit(x, y)


def test_validation_data_split_and_on_batch_methods():
    x, y = regression_data(100)
    model = TinyRegressor()
    model.compile(tfkit.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    history = model.fit(x, y, validation_split=0.2, epochs=2, verbose=0)
    assert {"loss", "mae", "val_loss", "val_mae"} == set(history.history)
    history = model.fit(x, y, validation_data=(x[:10], y[:10]), validation_freq=2, epochs=2, verbose=0)
    assert len(history.history["val_loss"]) == 1
    logs = model.train_on_batch(x[:8], y[:8], return_dict=True)
    assert set(logs) == {"loss", "mae"}
    loss = model.test_on_batch(x[:8], y[:8], return_dict=True)["loss"]
    manual = float(np.mean((model.predict_on_batch(x[:8]) - y[:8]) ** 2))
    np.testing.assert_allclose(loss, manual, rtol=1e-5)


def test_multi_output_losses_by_name_and_weights():
    inputs = tfkit.Input((4,))
    a = layers.Dense(1, name="a")(inputs)
    b = layers.Dense(1, name="b")(inputs)
    model = tfkit.Model(inputs, {"a": a, "b": b})
    model.compile("sgd", loss={"a": "mse", "b": "mae"}, loss_weights={"a": 1.0, "b": 0.5})
    x, y = regression_data(32)
    logs = model.evaluate(x, {"a": y, "b": y}, return_dict=True, verbose=0)
    preds = model.predict(x, verbose=0)
    mse = np.mean((preds["a"] - y) ** 2)
    mae = np.mean(np.abs(preds["b"] - y))
    np.testing.assert_allclose(logs["loss"], mse + 0.5 * mae, rtol=1e-5)
    np.testing.assert_allclose(logs["a_loss"], mse, rtol=1e-5)


def test_stop_training_and_summary_of_subclassed_model():
    class Stopper(tfkit.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                self.model.stop_training = True

    model = TinyRegressor(name="tiny")
    model.compile("sgd", loss="mse")
    history = model.fit(*regression_data(16), epochs=10, callbacks=[Stopper()], verbose=0)
    assert len(history.history["loss"]) == 2
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert 'Model: "tiny"' in text and "Dense" in text and "Total params: 5" in text


def test_auto_jit_falls_back_with_a_warning_when_xla_cannot_compile(monkeypatch):
    from tfkit.training import compiled_state

    monkeypatch.setattr(compiled_state, "gpu_available", lambda: True)  # "auto" means XLA on GPUs

    class HostOp(tfkit.Layer):
        def call(self, x):
            y = tf.numpy_function(lambda a: a * 2, [x], tf.float32)
            y.set_shape(x.shape)
            return y

    class WithHostOp(tfkit.Model):
        def __init__(self):
            super().__init__()
            self.host = HostOp()
            self.dense = layers.Dense(1)

        def call(self, x):
            return self.dense(self.host(x))

    model = WithHostOp()
    model.compile(tfkit.optimizers.SGD(0.1), loss="mse")
    assert model.jit_compile
    with pytest.warns(RuntimeWarning, match="XLA could not compile model.*falling back"):
        history = model.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), verbose=0)
    assert not model.jit_compile and np.isfinite(history.history["loss"][0])


def test_explicit_jit_compile_runs_under_xla():
    x, y = regression_data(64)
    model = TinyRegressor()
    model.compile(tfkit.optimizers.SGD(0.05), loss="mse", jit_compile=True)
    eager = TinyRegressor()
    eager.compile(tfkit.optimizers.SGD(0.05), loss="mse", run_eagerly=True)
    for m in (model, eager):
        m(x[:1])
        m.dense.kernel.assign(np.ones((4, 1), "float32"))
        m.dense.bias.assign(np.zeros(1, "float32"))
        m.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    np.testing.assert_allclose(model.dense.kernel.numpy(), eager.dense.kernel.numpy(), rtol=1e-4)


def test_class_weight_equals_the_matching_sample_weight():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, 3)).astype("float32")
    y = rng.integers(0, 2, size=40)
    weights = {0: 1.0, 1: 3.0}

    def trained(**kwargs):
        model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2, kernel_initializer="ones")])
        model.compile(tfkit.optimizers.SGD(0.1), tfkit.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0, **kwargs)
        return model.layers[0].kernel.numpy()

    by_class = trained(class_weight=weights)
    by_sample = trained(sample_weight=np.where(y == 1, 3.0, 1.0).astype("float32"))
    np.testing.assert_allclose(by_class, by_sample, rtol=1e-6)
    assert not np.allclose(by_class, trained())


def test_per_output_losses_are_per_epoch_not_cumulative():
    inputs = tfkit.Input((4,))
    model = tfkit.Model(inputs, {"a": layers.Dense(1, name="a")(inputs), "b": layers.Dense(1, name="b")(inputs)})
    model.compile(tfkit.optimizers.SGD(0.0), loss="mse")  # no learning: every epoch has the same loss
    x, y = regression_data(32)
    history = model.fit(x, {"a": y, "b": 2 * y}, epochs=2, verbose=0).history
    np.testing.assert_allclose(history["a_loss"][0], history["a_loss"][1], rtol=1e-6)
    np.testing.assert_allclose(history["loss"][1], history["a_loss"][1] + history["b_loss"][1], rtol=1e-5)


def test_train_on_batch_reports_its_own_batch_as_keras_3_does():
    # Keras 3 resets the metrics before each train_on_batch: the second call reports the second batch's loss
    # (before its update), not the mean of both. By hand: w = 1, b = 0; the first batch (x = 1) has loss 9 and
    # gradients 6, so SGD(0.01) leaves w = 0.94, b = -0.06; the second batch (x = 2) predicts 5.58: loss 31.1364.
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer=tfkit.optimizers.SGD(0.01), loss="mse")
    assert model.train_on_batch(np.ones((4, 3)), np.zeros((4, 1))) == pytest.approx(9.0)
    assert model.train_on_batch(np.full((4, 3), 2.0), np.zeros((4, 1))) == pytest.approx(5.58**2, rel=1e-5)
