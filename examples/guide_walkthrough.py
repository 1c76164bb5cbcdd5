"""Every snippet of the Keras guide "Making new layers and models via subclassing", in tfkit.

    python examples/guide_walkthrough.py

Each section is the guide's code with ``keras`` replaced by ``tfkit`` and
``keras.ops`` by ``tf`` (``ops.sum``/``ops.mean`` are ``tf.reduce_sum``/
``tf.reduce_mean``), printing what the guide prints. The last section (the
VAE on MNIST) lives in ``vae_mnist.py``.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tfkit  # noqa: E402
from tfkit import layers  # noqa: E402

ops = tf

# --- The Layer class: the combination of state (weights) and some computation


class Linear(tfkit.layers.Layer):
    def __init__(self, units=32, input_dim=32):
        super().__init__()
        self.w = self.add_weight(shape=(input_dim, units), initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b


x = ops.ones((2, 2))
linear_layer = Linear(4, 2)
y = linear_layer(x)
print(y)

assert linear_layer.weights == [linear_layer.w, linear_layer.b]

# --- Layers can have non-trainable weights


class ComputeSum(tfkit.layers.Layer):
    def __init__(self, input_dim):
        super().__init__()
        self.total = self.add_weight(initializer="zeros", shape=(input_dim,), trainable=False)

    def call(self, inputs):
        self.total.assign_add(ops.reduce_sum(inputs, axis=0))
        return self.total


x = ops.ones((2, 2))
my_sum = ComputeSum(2)
y = my_sum(x)
print(y.numpy())
y = my_sum(x)
print(y.numpy())

print("weights:", len(my_sum.weights))
print("non-trainable weights:", len(my_sum.non_trainable_weights))

# It's not included in the trainable weights:
print("trainable_weights:", my_sum.trainable_weights)

# --- Best practice: deferring weight creation until the shape of the inputs is known


class Linear(tfkit.layers.Layer):  # noqa: F811 (the guide redefines it)
    def __init__(self, units=32):
        super().__init__()
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="random_normal", trainable=True)

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b


# At instantiation, we don't know on what inputs this is going to get called
linear_layer = Linear(32)

# The layer's weights are created dynamically the first time the layer is called
y = linear_layer(x)

# --- Layers are recursively composable


class MLPBlock(tfkit.layers.Layer):
    def __init__(self):
        super().__init__()
        self.linear_1 = Linear(32)
        self.linear_2 = Linear(32)
        self.linear_3 = Linear(1)

    def call(self, inputs):
        x = self.linear_1(inputs)
        x = tfkit.activations.relu(x)
        x = self.linear_2(x)
        x = tfkit.activations.relu(x)
        return self.linear_3(x)


mlp = MLPBlock()
y = mlp(ops.ones(shape=(3, 64)))  # The first call to the `mlp` will create the weights
print("weights:", len(mlp.weights))
print("trainable weights:", len(mlp.trainable_weights))

# --- The add_loss() method


# A layer that creates an activity regularization loss
class ActivityRegularizationLayer(tfkit.layers.Layer):
    def __init__(self, rate=1e-2):
        super().__init__()
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * ops.reduce_mean(inputs))
        return inputs


class OuterLayer(tfkit.layers.Layer):
    def __init__(self):
        super().__init__()
        self.activity_reg = ActivityRegularizationLayer(1e-2)

    def call(self, inputs):
        return self.activity_reg(inputs)


layer = OuterLayer()
assert len(layer.losses) == 0  # No losses yet since the layer has never been called

_ = layer(ops.zeros((1, 1)))
assert len(layer.losses) == 1  # We created one loss value

# `layer.losses` gets reset at the start of each __call__
_ = layer(ops.zeros((1, 1)))
assert len(layer.losses) == 1  # This is the loss created during the call above


class OuterLayerWithKernelRegularizer(tfkit.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = tfkit.layers.Dense(32, kernel_regularizer=tfkit.regularizers.l2(1e-3))

    def call(self, inputs):
        return self.dense(inputs)


layer = OuterLayerWithKernelRegularizer()
_ = layer(ops.zeros((1, 1)))

# This is `1e-3 * sum(layer.dense.kernel ** 2)`,
# created by the `kernel_regularizer` above.
print(layer.losses)

inputs = tfkit.Input(shape=(3,))
outputs = ActivityRegularizationLayer()(inputs)
model = tfkit.Model(inputs, outputs)

# If there is a loss passed in `compile`, the regularization
# losses get added to it
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.random((2, 3)), np.random.random((2, 3)))

# It's also possible not to pass any loss in `compile`,
# since the model already has a loss to minimize, via the `add_loss`
# call during the forward pass!
model.compile(optimizer="adam")
model.fit(np.random.random((2, 3)), np.random.random((2, 3)))

# --- You can optionally enable serialization on your layers


class Linear(tfkit.layers.Layer):  # noqa: F811
    def __init__(self, units=32):
        super().__init__()
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="random_normal", trainable=True)

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b

    def get_config(self):
        return {"units": self.units}


# Now you can recreate the layer from its config:
layer = Linear(64)
config = layer.get_config()
print(config)
new_layer = Linear.from_config(config)


class Linear(tfkit.layers.Layer):  # noqa: F811
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="random_normal", trainable=True)

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})
        return config


layer = Linear(64)
config = layer.get_config()
print(config)
new_layer = Linear.from_config(config)

# --- Privileged training argument in the call() method


class CustomDropout(tfkit.layers.Layer):
    def __init__(self, rate, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate
        self.seed_generator = tfkit.random.SeedGenerator(1337)

    def call(self, inputs, training=None):
        if training:
            return tfkit.random.dropout(inputs, rate=self.rate, seed=self.seed_generator)
        return inputs


dropout = CustomDropout(0.5)
print("dropout at inference is the identity:", bool(np.all(dropout(ops.ones((2, 4))).numpy() == 1.0)))

# --- The Model class (the guide's ResNet sketch, with a tiny residual block)


class ResNetBlock(tfkit.layers.Layer):
    def __init__(self, filters=8, **kwargs):
        super().__init__(**kwargs)
        self.conv_1 = layers.Conv2D(filters, 3, padding="same", activation="relu")
        self.conv_2 = layers.Conv2D(filters, 3, padding="same")

    def call(self, inputs):
        return tfkit.activations.relu(inputs + self.conv_2(self.conv_1(inputs)))


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


resnet = ResNet(num_classes=10)
images = np.random.default_rng(0).random((32, 8, 8, 8)).astype("float32")
labels = np.random.default_rng(1).integers(0, 10, size=32)
dataset = tf.data.Dataset.from_tensor_slices((images, labels)).batch(8)
resnet.compile("adam", loss=tfkit.losses.SparseCategoricalCrossentropy(from_logits=True))
resnet.fit(dataset, epochs=2)
print("resnet layers:", [layer.name for layer in resnet.layers])
