"""The Keras developer guides as small cases, with ``keras`` -> ``tfkit`` (our own code, tiny data).

Guides covered here: the Sequential model, masking and padding, writing your own
callbacks, transfer learning and fine-tuning, writing a training loop from
scratch, the functional API. (Customizing fit and serialization are in
test_functional_subclass.py, test_model_train_step_only.py and test_saving_guide_models.py.)
"""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


def _rng(seed=0):
    return np.random.default_rng(seed)


# ------------------------------------------------------------------ the Sequential model


def test_sequential_guide():
    model = tfkit.Sequential(name="my_sequential")
    model.add(tfkit.Input(shape=(4,)))
    model.add(layers.Dense(2, activation="relu", name="layer1"))
    model.add(layers.Dense(3, activation="relu", name="layer2"))
    model.add(layers.Dense(4, name="layer3"))
    assert len(model.layers) == 3 and model.layers[0].name == "layer1"
    model.pop()
    assert len(model.layers) == 2
    assert model.output.shape == (None, 3)
    lazy = tfkit.Sequential([layers.Dense(2, activation="relu"), layers.Dense(4)])
    assert lazy.weights == []
    lines = []
    lazy.summary(print_fn=lines.append)  # as in Keras 3: printed, each layer "0 (unbuilt)"
    assert sum("0 (unbuilt)" in line for line in lines) == 2
    lazy(tf.ones((3, 3)))
    assert len(lazy.weights) == 4
    feature_extractor = tfkit.Model(inputs=model.inputs, outputs=[layer.output for layer in model.layers])
    assert [tuple(f.shape) for f in feature_extractor(tf.ones((1, 4)))] == [(1, 2), (1, 3)]


# ------------------------------------------------------------------ masking and padding


def test_masking_and_padding_guide():
    raw_inputs = [[711, 632, 71], [73, 8, 3215, 55, 927], [83, 91, 1, 645, 1253, 927]]
    padded = tfkit.utils.pad_sequences(raw_inputs, padding="post")
    assert padded.shape == (3, 6) and padded[0].tolist() == [711, 632, 71, 0, 0, 0]
    embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
    masked = embedding(padded)
    np.testing.assert_array_equal(masked._keras_mask.numpy(), padded != 0)
    masking_layer = layers.Masking()
    unmasked = tf.cast(tf.tile(tf.expand_dims(padded, axis=-1), [1, 1, 10]), tf.float32)
    np.testing.assert_array_equal(masking_layer(unmasked)._keras_mask.numpy(), padded != 0)

    inputs = tfkit.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    outputs = layers.LSTM(8)(x)
    model = tfkit.Model(inputs, outputs)
    full = model(padded).numpy()
    for row, sequence in enumerate(raw_inputs):
        alone = model(np.array([sequence])).numpy()[0]
        np.testing.assert_allclose(full[row], alone, rtol=1e-5, atol=1e-6)

    class TemporalSplit(layers.Layer):
        """Split in two along time, and the mask with it (the guide's mask-generating layer)."""

        def call(self, inputs):
            return tf.split(inputs, 2, axis=1)

        def compute_mask(self, inputs, mask=None):
            return None if mask is None else tf.split(mask, 2, axis=1)

    first, second = TemporalSplit()(layers.Embedding(10, 4, mask_zero=True)(tf.constant([[1, 2, 0, 0]])))
    assert first._keras_mask.numpy().tolist() == [[True, True]] and second._keras_mask.numpy().tolist() == [
        [False, False]
    ]

    class MaskedSoftmax(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs, mask=None):
            logits = inputs if mask is None else tf.where(mask[..., None], inputs, -1e9)
            return tf.nn.softmax(logits, axis=1)

    probs = MaskedSoftmax()(layers.Embedding(10, 1, mask_zero=True)(tf.constant([[3, 4, 0]]))).numpy()
    assert probs[0, 2, 0] == pytest.approx(0.0) and probs[0, :2, 0].sum() == pytest.approx(1.0)


# ------------------------------------------------------------------ writing your own callbacks


def test_callbacks_guide_hook_order_and_logs():
    calls = []

    class Recorder(tfkit.callbacks.Callback):
        def on_train_begin(self, logs=None):
            calls.append("train_begin")

        def on_epoch_begin(self, epoch, logs=None):
            calls.append(f"epoch_begin {epoch}")

        def on_train_batch_end(self, batch, logs=None):
            calls.append(f"batch_end {batch} {sorted(logs)}")

        def on_epoch_end(self, epoch, logs=None):
            calls.append(f"epoch_end {epoch} {sorted(logs)}")

        def on_train_end(self, logs=None):
            calls.append("train_end")

        def on_test_begin(self, logs=None):
            calls.append("test_begin")

        def on_predict_end(self, logs=None):
            calls.append("predict_end")

    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    model.compile(optimizer=tfkit.optimizers.RMSprop(learning_rate=0.1), loss="mse", metrics=["mean_absolute_error"])
    x, y = _rng().random((8, 3)).astype("float32"), _rng(1).random((8, 1)).astype("float32")
    model.fit(x, y, batch_size=4, epochs=2, verbose=0, callbacks=[Recorder()])
    assert calls[:3] == ["train_begin", "epoch_begin 0", "batch_end 0 ['loss', 'mean_absolute_error']"]
    assert calls[-1] == "train_end" and "epoch_end 1 ['loss', 'mean_absolute_error']" in calls
    model.evaluate(x, y, verbose=0, callbacks=[Recorder()])
    model.predict(x, verbose=0, callbacks=[Recorder()])
    assert calls[-2:] == ["test_begin", "predict_end"]

    class EarlyStoppingAtMinLoss(tfkit.callbacks.Callback):
        def __init__(self, patience=0):
            super().__init__()
            self.patience = patience

        def on_train_begin(self, logs=None):
            self.wait, self.best, self.stopped_epoch = 0, np.inf, 0

        def on_epoch_end(self, epoch, logs=None):
            if logs["loss"] < self.best:
                self.best, self.wait, self.best_weights = logs["loss"], 0, self.model.get_weights()
            else:
                self.wait += 1
                if self.wait >= self.patience:
                    self.stopped_epoch = epoch
                    self.model.stop_training = True
                    self.model.set_weights(self.best_weights)

    diverging = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    diverging.compile(optimizer=tfkit.optimizers.SGD(learning_rate=5.0), loss="mse")
    history = diverging.fit(x, y * 100, epochs=30, verbose=0, callbacks=[EarlyStoppingAtMinLoss()])
    assert len(history.history["loss"]) < 30


# ------------------------------------------------------------------ transfer learning


def test_transfer_learning_guide_freezing_and_fine_tuning():
    layer = layers.Dense(3)
    layer.build((None, 4))
    layer.trainable = False
    assert len(layer.weights) == 2 and len(layer.trainable_weights) == 0 and len(layer.non_trainable_weights) == 2

    base_model = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(3, activation="relu"), layers.BatchNormalization()])
    base_model.trainable = False
    inputs = tfkit.Input(shape=(4,))
    x = base_model(inputs, training=False)  # BatchNormalization stays in inference mode
    outputs = layers.Dense(1)(layers.Dropout(0.2)(x))
    model = tfkit.Model(inputs, outputs)
    frozen = [w.numpy() for w in base_model.weights]
    model.compile(
        optimizer=tfkit.optimizers.Adam(),
        loss=tfkit.losses.BinaryCrossentropy(from_logits=True),
        metrics=[tfkit.metrics.BinaryAccuracy()],
    )
    data = _rng().random((16, 4)).astype("float32")
    labels = (data.sum(1) > 2).astype("float32")
    model.fit(data, labels, epochs=2, verbose=0)
    for before, after in zip(frozen, base_model.weights):
        np.testing.assert_array_equal(before, after.numpy())  # BN statistics too

    base_model.trainable = True
    model.compile(
        optimizer=tfkit.optimizers.Adam(1e-5),
        loss=tfkit.losses.BinaryCrossentropy(from_logits=True),
        metrics=[tfkit.metrics.BinaryAccuracy()],
    )
    model.fit(data, labels, epochs=1, verbose=0)
    changed = [not np.array_equal(b, a.numpy()) for b, a in zip(frozen, base_model.weights)]
    moving = [w for w in base_model.weights if "moving" in w.name]
    assert any(changed) and all(
        np.array_equal(b, a.numpy()) for b, a in zip(frozen, base_model.weights) if "moving" in a.name
    ), moving


# ------------------------------------------------------------------ a training loop from scratch


def test_training_loop_from_scratch_guide():
    tfkit.utils.set_random_seed(0)  # weights and shuffle order fixed: the check is about learning, not luck
    inputs = tfkit.Input(shape=(6,), name="digits")
    x = layers.Dense(8, activation="relu")(inputs)
    outputs = layers.Dense(3, name="predictions")(x)
    model = tfkit.Model(inputs=inputs, outputs=outputs)
    optimizer = tfkit.optimizers.Adam(learning_rate=1e-2)
    loss_fn = tfkit.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_acc_metric = tfkit.metrics.SparseCategoricalAccuracy()
    x_train = _rng().random((64, 6)).astype("float32")
    y_train = (x_train[:, 0] * 3).astype("int64").clip(0, 2)
    dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(64, seed=0).batch(16)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss_value = loss_fn(y, logits)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply(grads, model.trainable_weights)
        train_acc_metric.update_state(y, logits)
        return loss_value

    losses = []
    for _ in range(40):
        for x_batch, y_batch in dataset:
            losses.append(float(train_step(x_batch, y_batch)))
        accuracy = float(train_acc_metric.result())
        train_acc_metric.reset_state()
    assert np.mean(losses[-4:]) < np.mean(losses[:4]) and accuracy > 0.5


# ------------------------------------------------------------------ the functional API


def test_functional_api_guide_multi_input_multi_output():
    num_tags, num_words, num_departments = 4, 100, 3
    title_input = tfkit.Input(shape=(None,), name="title")
    body_input = tfkit.Input(shape=(None,), name="body")
    tags_input = tfkit.Input(shape=(num_tags,), name="tags")
    title_features = layers.LSTM(8)(layers.Embedding(num_words, 8)(title_input))
    body_features = layers.LSTM(4)(layers.Embedding(num_words, 8)(body_input))
    x = layers.concatenate([title_features, body_features, tags_input])
    priority_pred = layers.Dense(1, name="priority")(x)
    department_pred = layers.Dense(num_departments, name="department")(x)
    model = tfkit.Model(
        inputs=[title_input, body_input, tags_input], outputs={"priority": priority_pred, "department": department_pred}
    )
    model.compile(
        optimizer=tfkit.optimizers.RMSprop(1e-3),
        loss={
            "priority": tfkit.losses.BinaryCrossentropy(from_logits=True),
            "department": tfkit.losses.CategoricalCrossentropy(from_logits=True),
        },
        loss_weights={"priority": 1.0, "department": 0.2},
    )
    rng = _rng()
    title, body = rng.integers(num_words, size=(32, 6)), rng.integers(num_words, size=(32, 10))
    tags = rng.integers(2, size=(32, num_tags)).astype("float32")
    history = model.fit(
        {"title": title, "body": body, "tags": tags},
        {"priority": rng.random((32, 1)), "department": rng.integers(2, size=(32, num_departments))},
        epochs=2,
        batch_size=16,
        verbose=0,
    )
    assert {"loss", "priority_loss", "department_loss"} <= set(history.history)

    inputs = tfkit.Input(shape=(8, 8, 3), name="img")
    x = layers.Conv2D(8, 3, activation="relu", padding="same")(inputs)
    block_1_output = layers.MaxPooling2D(2)(x)
    x = layers.Conv2D(8, 3, activation="relu", padding="same")(block_1_output)
    block_2_output = layers.add([x, block_1_output])
    outputs = layers.Dense(2)(layers.GlobalAveragePooling2D()(block_2_output))
    toy_resnet = tfkit.Model(inputs, outputs, name="toy_resnet")
    assert toy_resnet(np.zeros((1, 8, 8, 3), "float32")).shape == (1, 2)
    assert toy_resnet.get_layer(index=-1).output is outputs
