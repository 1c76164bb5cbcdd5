"""Models that train through train_step alone (keras-io's VAE) and compute_loss overrides of either signature."""

import numpy as np
import tensorflow as tf

import tfkit
from tfkit import layers


class Sampling(layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        return z_mean + tf.exp(0.5 * z_log_var) * tf.random.normal(tf.shape(z_mean))


def _encoder(latent_dim=2):
    inputs = tfkit.Input(shape=(8, 8, 1))
    x = layers.Conv2D(4, 3, activation="relu", strides=2, padding="same")(inputs)
    x = layers.Flatten()(x)
    x = layers.Dense(8, activation="relu")(x)
    z_mean = layers.Dense(latent_dim, name="z_mean")(x)
    z_log_var = layers.Dense(latent_dim, name="z_log_var")(x)
    z = Sampling()([z_mean, z_log_var])
    return tfkit.Model(inputs, [z_mean, z_log_var, z], name="encoder")


def _decoder(latent_dim=2):
    latent_inputs = tfkit.Input(shape=(latent_dim,))
    x = layers.Dense(4 * 4 * 4, activation="relu")(latent_inputs)
    x = layers.Reshape((4, 4, 4))(x)
    x = layers.Conv2DTranspose(4, 3, activation="relu", strides=2, padding="same")(x)
    outputs = layers.Conv2DTranspose(1, 3, activation="sigmoid", padding="same")(x)
    return tfkit.Model(latent_inputs, outputs, name="decoder")


class VAE(tfkit.Model):
    """keras-io generative/vae.py's model: no call(), everything in train_step."""

    def __init__(self, encoder, decoder, **kwargs):
        super().__init__(**kwargs)
        self.encoder = encoder
        self.decoder = decoder
        self.total_loss_tracker = tfkit.metrics.Mean(name="total_loss")
        self.reconstruction_loss_tracker = tfkit.metrics.Mean(name="reconstruction_loss")
        self.kl_loss_tracker = tfkit.metrics.Mean(name="kl_loss")

    @property
    def metrics(self):
        return [self.total_loss_tracker, self.reconstruction_loss_tracker, self.kl_loss_tracker]

    def train_step(self, data):
        with tf.GradientTape() as tape:
            z_mean, z_log_var, z = self.encoder(data)
            reconstruction = self.decoder(z)
            reconstruction_loss = tf.reduce_mean(
                tf.reduce_sum(tfkit.losses.binary_crossentropy(data, reconstruction), axis=(1, 2))
            )
            kl_loss = -0.5 * (1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var))
            kl_loss = tf.reduce_mean(tf.reduce_sum(kl_loss, axis=1))
            total_loss = reconstruction_loss + kl_loss
        grads = tape.gradient(total_loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.total_loss_tracker.update_state(total_loss)
        self.reconstruction_loss_tracker.update_state(reconstruction_loss)
        self.kl_loss_tracker.update_state(kl_loss)
        return {m.name: m.result() for m in self.metrics}


def test_keras_io_vae_trains_without_call_with_functional_parts():
    data = np.zeros((32, 8, 8, 1), "float32")
    data[::2, :4] = 1.0  # two learnable patterns
    data[1::2, :, :4] = 1.0
    vae = VAE(_encoder(), _decoder())
    vae.compile(optimizer=tfkit.optimizers.Adam(1e-2))
    history = vae.fit(data, epochs=5, batch_size=8, verbose=0)
    assert sorted(history.history) == ["kl_loss", "reconstruction_loss", "total_loss"]
    assert history.history["total_loss"][-1] < history.history["total_loss"][0]
    assert len(vae.optimizer.variables) > 1
    vae.fit(data, epochs=1, batch_size=8, verbose=0)  # a second fit reuses the optimizer built in the first


def test_train_step_only_model_with_unbuilt_subclassed_parts():
    class Twin(tfkit.Model):
        def __init__(self):
            super().__init__()
            self.body = layers.Dense(3)
            self.tracker = tfkit.metrics.Mean(name="loss")

        @property
        def metrics(self):
            return [self.tracker]

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self.body(x) - y))
            self.optimizer.apply(tape.gradient(loss, self.trainable_weights), self.trainable_weights)
            self.tracker.update_state(loss)
            return {"loss": self.tracker.result()}

    x = np.random.default_rng(1).random((16, 2)).astype("float32")
    model = Twin()
    model.compile(tfkit.optimizers.SGD(0.1))
    losses = model.fit(x, np.zeros((16, 3), "float32"), epochs=3, batch_size=4, verbose=0).history["loss"]
    assert losses[-1] < losses[0] and model.body.kernel.shape == (2, 3)


def test_compute_loss_overrides_with_and_without_training_argument():
    seen = []

    class OldSignature(tfkit.Model):
        def compute_loss(self, x, y, y_pred, sample_weight):
            seen.append("old")
            return tf.reduce_mean(tf.square(y - y_pred))

    class NewSignature(tfkit.Model):
        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
            seen.append(("new", training))
            return tf.reduce_mean(tf.square(y - y_pred))

    data = np.ones((8, 2), "float32")
    for cls in (OldSignature, NewSignature):
        inputs = tfkit.Input((2,))
        model = cls(inputs, layers.Dense(2)(inputs))
        model.compile("sgd")
        model.fit(data, data, epochs=1, verbose=0)
        model.evaluate(data, data, verbose=0)
    assert "old" in seen and ("new", True) in seen and ("new", False) in seen


def test_tf_saved_model_save_works_after_fit_and_adds_serving_default(tmp_path):
    inputs = tfkit.Input((3,), name="features")
    model = tfkit.Model(inputs, layers.Dense(2, name="score_output")(inputs))
    model.compile("adam", "mse", metrics=["mae"])
    data = np.random.default_rng(0).random((8, 3)).astype("float32")
    model.fit(data, np.zeros((8, 2), "float32"), epochs=1, verbose=0)
    tf.saved_model.save(model, str(tmp_path / "saved"))
    served = tf.saved_model.load(str(tmp_path / "saved")).signatures["serving_default"](tf.constant(data))
    np.testing.assert_allclose(list(served.values())[0].numpy(), model.predict(data, verbose=0), rtol=1e-5)


def test_forgetting_super_init_says_so_and_weights_have_distinct_names():
    class Forgetful(layers.Layer):
        def __init__(self, units):
            self.units = units

    import pytest

    layer = Forgetful(3)  # attributes before (or without) super().__init__() are allowed ...
    with pytest.raises(
        RuntimeError,
        match=r"Forgetful was never initialized as a layer: its __init__ did not "
        r"call super\(\).__init__\(\)",
    ):
        layer(tf.ones((1, 2)))  # ... using the layer says what is missing
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2), layers.Dense(2, name="score_output")])
    names = [w.name for w in model.weights]
    assert len(set(names)) == 4 and "score_output/kernel:0" in names


def test_missing_gradients_warning_names_variables_by_layer():
    import pytest

    inputs = tfkit.Input((3,))
    unused = layers.Dense(2, name="unused_head")
    unused(inputs)
    model = tfkit.Model(inputs, layers.Dense(1, name="used")(inputs))

    optimizer = tfkit.optimizers.SGD(0.1)
    weights = model.trainable_weights + unused.trainable_weights
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(np.ones((1, 3), "float32")))
    with pytest.warns(UserWarning, match=r"unused_head/kernel"):
        optimizer.apply(tape.gradient(loss, weights), weights)
