"""Saving never requires registration; custom configs round-trip (the seed guide's ResNet and VAE)."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers

# ------------------------------------------------------------------ the guide's models, unregistered


class ResNetBlock(layers.Layer):
    def __init__(self, filters=4, **kwargs):
        super().__init__(**kwargs)
        self.conv_1 = layers.Conv2D(filters, 3, padding="same", activation="relu")
        self.conv_2 = layers.Conv2D(filters, 3, padding="same")
        self.norm = layers.BatchNormalization()

    def call(self, inputs, training=None):
        x = self.conv_2(self.conv_1(inputs))
        return tf.nn.relu(self.norm(x, training=training) + inputs)


class ResNet(tfkit.Model):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.block_1 = ResNetBlock()
        self.block_2 = ResNetBlock()
        self.global_pool = layers.GlobalAveragePooling2D()
        self.classifier = layers.Dense(num_classes)

    def call(self, inputs):
        x = self.block_1(inputs)
        x = self.block_2(x)
        x = self.global_pool(x)
        return self.classifier(x)


class Sampling(layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        epsilon = tf.random.normal(tf.shape(z_mean))
        return z_mean + tf.exp(0.5 * z_log_var) * epsilon


class Encoder(layers.Layer):
    def __init__(self, latent_dim=32, intermediate_dim=64, name="encoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
        self.dense_mean = layers.Dense(latent_dim)
        self.dense_log_var = layers.Dense(latent_dim)
        self.sampling = Sampling()

    def call(self, inputs):
        x = self.dense_proj(inputs)
        z_mean, z_log_var = self.dense_mean(x), self.dense_log_var(x)
        return z_mean, z_log_var, self.sampling((z_mean, z_log_var))


class Decoder(layers.Layer):
    def __init__(self, original_dim, intermediate_dim=64, name="decoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
        self.dense_output = layers.Dense(original_dim, activation="sigmoid")

    def call(self, inputs):
        return self.dense_output(self.dense_proj(inputs))


class VariationalAutoEncoder(tfkit.Model):
    def __init__(self, original_dim, intermediate_dim=64, latent_dim=32, name="autoencoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.original_dim = original_dim
        self.encoder = Encoder(latent_dim=latent_dim, intermediate_dim=intermediate_dim)
        self.decoder = Decoder(original_dim, intermediate_dim=intermediate_dim)

    def call(self, inputs):
        z_mean, z_log_var, z = self.encoder(inputs)
        reconstructed = self.decoder(z)
        self.add_loss(-0.5 * tf.reduce_mean(z_log_var - tf.square(z_mean) - tf.exp(z_log_var) + 1))
        return reconstructed


def test_guide_resnet_saves_unregistered_and_reloads_with_plain_custom_objects(tmp_path):
    resnet = ResNet(num_classes=3)
    images = np.random.default_rng(0).random((8, 6, 6, 4)).astype("float32")
    labels = np.arange(8) % 3
    resnet.compile("adam", tfkit.losses.SparseCategoricalCrossentropy(from_logits=True))
    resnet.fit(images, labels, epochs=1, batch_size=4, verbose=0)
    path = tmp_path / "resnet.keras"
    resnet.save(path)
    with pytest.raises(ValueError, match=r"^.*Unknown layer 'ResNet'.*custom_objects=\{'ResNet': ResNet\}"):
        tfkit.load_model(path)
    loaded = tfkit.load_model(path, custom_objects={"ResNet": ResNet})
    assert type(loaded) is ResNet
    np.testing.assert_allclose(loaded.predict(images, verbose=0), resnet.predict(images, verbose=0), rtol=1e-5)
    loaded.fit(images, labels, epochs=1, batch_size=4, verbose=0)  # still trains, optimizer state restored


def test_guide_vae_saves_unregistered_and_reloads(tmp_path):
    vae = VariationalAutoEncoder(12, 8, 4)
    data = np.random.default_rng(1).random((16, 12)).astype("float32")
    vae.compile(tfkit.optimizers.Adam(1e-3), loss=tfkit.losses.MeanSquaredError())
    vae.fit(data, data, epochs=1, batch_size=8, verbose=0)
    vae.save(tmp_path / "vae.h5")
    loaded = tfkit.load_model(tmp_path / "vae.h5", custom_objects={"VariationalAutoEncoder": VariationalAutoEncoder})
    assert [w.name for w in loaded.weights] and len(loaded.weights) == len(vae.weights)
    for ours, theirs in zip(loaded.weights, vae.weights):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    with tfkit.saving.custom_object_scope({"VariationalAutoEncoder": VariationalAutoEncoder}):
        assert type(tfkit.models.load_model(tmp_path / "vae.h5")) is VariationalAutoEncoder
    tfkit.saving.get_custom_objects()["VariationalAutoEncoder"] = VariationalAutoEncoder
    try:
        assert type(tfkit.load_model(tmp_path / "vae.h5")) is VariationalAutoEncoder
    finally:
        del tfkit.saving.get_custom_objects()["VariationalAutoEncoder"]


# ------------------------------------------------------------------ custom configs


@tfkit.saving.register_keras_serializable(package="test_unregistered")
class ScaledDense(layers.Layer):
    """A guide-style get_config: only its own arguments, no name; objects inside."""

    def __init__(self, units, initializer="glorot_uniform", regularizer=None, activation=None, inner=None, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.initializer = tfkit.initializers.get(initializer)
        self.regularizer = tfkit.regularizers.get(regularizer)
        self.activation = tfkit.activations.get(activation)
        self.inner = inner if inner is not None else layers.Dense(2, name="inner_default")

    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1], self.units), initializer=self.initializer, regularizer=self.regularizer
        )

    def call(self, x):
        return self.inner(self.activation(tf.matmul(x, self.w)))

    def get_config(self):
        return {
            "units": self.units,
            "initializer": self.initializer,
            "regularizer": self.regularizer,
            "activation": self.activation,
            "inner": self.inner,
        }


def test_config_without_name_and_with_objects_round_trips_in_a_functional_model(tmp_path):
    x = tfkit.Input((3,))
    custom = ScaledDense(
        4,
        initializer=tfkit.initializers.Constant(0.5),
        regularizer=tfkit.regularizers.L2(0.1),
        activation=tfkit.activations.relu,
        inner=layers.Dense(5, name="head"),
        name="scaled",
    )
    model = tfkit.Model(x, custom(x))
    config = json.loads(model.to_json())
    entry = config["config"]["layers"][1]
    assert entry["registered_name"] == "test_unregistered>ScaledDense" and entry["name"] == "scaled"
    inner = entry["config"]
    assert inner["initializer"]["class_name"] == "Constant" and inner["initializer"]["config"] == {"value": 0.5}
    assert inner["activation"] == {
        "module": "tfkit.activations",
        "class_name": "function",
        "config": "relu",
        "registered_name": "relu",
    }
    assert inner["inner"]["class_name"] == "Dense" and inner["inner"]["config"]["units"] == 5
    model.save(tmp_path / "m.h5")
    loaded = tfkit.load_model(tmp_path / "m.h5")
    revived = loaded.get_layer("scaled")
    assert isinstance(revived.initializer, tfkit.initializers.Constant)
    assert isinstance(revived.regularizer, tfkit.regularizers.L2) and revived.activation is tfkit.activations.relu
    assert isinstance(revived.inner, layers.Dense) and revived.inner.units == 5
    data = np.random.default_rng(2).random((2, 3)).astype("float32")
    np.testing.assert_allclose(loaded(data).numpy(), model(data).numpy(), rtol=1e-6)


def test_keras_named_saving_entry_points():
    dense = layers.Dense(3, name="d")
    config = tfkit.saving.serialize_keras_object(dense)
    assert config["class_name"] == "Dense" and config["registered_name"] is None
    assert isinstance(tfkit.saving.deserialize_keras_object(config), layers.Dense)
    assert tfkit.saving.get_registered_name(ScaledDense) == "test_unregistered>ScaledDense"
    assert tfkit.saving.get_registered_object("test_unregistered>ScaledDense") is ScaledDense
    with tfkit.saving.CustomObjectScope({"Anything": ScaledDense}):
        assert tfkit.saving.get_registered_object("Anything") is ScaledDense
    layer_config = tfkit.layers.serialize(dense)
    assert tfkit.layers.deserialize(layer_config).units == 3
