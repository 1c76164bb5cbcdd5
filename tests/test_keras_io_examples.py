"""keras-io code examples, ported with ``keras`` -> ``tfkit`` (tiny data, a few steps, our own code).

Each test follows one example's model and training code as a Keras user
writes it and checks what the example shows: it trains (the loss goes down),
saves and reloads, and predicts the same afterwards.
"""

import numpy as np
import tensorflow as tf

import tfkit
from tfkit import layers


def _rng(seed=0):
    return np.random.default_rng(seed)


def test_simple_mnist_convnet(tmp_path):
    """vision/mnist_convnet: Sequential convnet, to_categorical labels, validation_split."""
    y = np.arange(96) % 10
    x = 0.1 * _rng().random((96, 28, 28)).astype("float32")
    for digit in range(10):  # a learnable image: each class lights its own band of rows
        x[y == digit, 2 * digit : 2 * digit + 3, :] += 1.0
    x = np.expand_dims(x, -1)
    y = tfkit.utils.to_categorical(y, 10)
    model = tfkit.Sequential(
        [
            tfkit.Input(shape=(28, 28, 1)),
            layers.Conv2D(8, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Conv2D(16, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Flatten(),
            layers.Dropout(0.5),
            layers.Dense(10, activation="softmax"),
        ]
    )
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=3, validation_split=0.1, verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert history.history["loss"][-1] < history.history["loss"][0]
    score = model.evaluate(x, y, verbose=0)
    assert len(score) == 2 and 0 <= score[1] <= 1
    model.save(tmp_path / "convnet.keras")
    np.testing.assert_allclose(
        tfkit.models.load_model(tmp_path / "convnet.keras").predict(x[:4], verbose=0),
        model.predict(x[:4], verbose=0),
        rtol=1e-5,
    )


def test_image_classification_from_scratch(tmp_path):
    """vision/image_classification_from_scratch: augmentation in tf.data, Xception-style residuals, jit_compile."""
    images = (_rng(1).random((24, 32, 32, 3)) * 255).astype("float32")
    labels = (np.arange(24) % 2).astype("float32")
    data_augmentation = tfkit.Sequential([layers.RandomFlip("horizontal"), layers.RandomRotation(0.1)])
    train_ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(8)
    train_ds = train_ds.map(lambda img, label: (data_augmentation(img), label), num_parallel_calls=tf.data.AUTOTUNE)
    train_ds = train_ds.prefetch(tf.data.AUTOTUNE)

    inputs = tfkit.Input(shape=(32, 32, 3))
    x = layers.Rescaling(1.0 / 255)(inputs)
    x = layers.Conv2D(8, 3, strides=2, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    previous_block_activation = x
    for size in [16, 32]:
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(size, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
        residual = layers.Conv2D(size, 1, strides=2, padding="same")(previous_block_activation)
        x = layers.add([x, residual])
        previous_block_activation = x
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.5)(x)
    outputs = layers.Dense(1, activation="sigmoid")(x)
    model = tfkit.Model(inputs, outputs)

    callbacks = [tfkit.callbacks.ModelCheckpoint(str(tmp_path / "save_at_{epoch}.keras"))]
    model.compile(
        optimizer=tfkit.optimizers.Adam(1e-3), loss="binary_crossentropy", metrics=["accuracy"], jit_compile=True
    )
    history = model.fit(train_ds, epochs=2, callbacks=callbacks, validation_data=train_ds, verbose=0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["save_at_1.keras", "save_at_2.keras"]
    assert "val_accuracy" in history.history
    predictions = model.predict(tf.expand_dims(images[0], 0), verbose=0)
    assert predictions.shape == (1, 1) and 0 <= float(predictions[0, 0]) <= 1
    reloaded = tfkit.models.load_model(tmp_path / "save_at_2.keras")
    np.testing.assert_allclose(
        reloaded.predict(images[:3], verbose=0), model.predict(images[:3], verbose=0), rtol=1e-4, atol=1e-6
    )


def test_timeseries_classification_from_scratch(tmp_path):
    """timeseries/timeseries_classification_from_scratch: Conv1D blocks and the usual callbacks."""
    x = _rng(2).normal(size=(64, 50)).astype("float32")
    y = (x[:, :25].mean(axis=1) > 0).astype("int64")
    x = x.reshape((x.shape[0], x.shape[1], 1))
    num_classes = len(np.unique(y))
    idx = np.random.permutation(len(x))
    x, y = x[idx], y[idx]

    input_layer = layers.Input((50, 1))
    conv = input_layer
    for _ in range(2):
        conv = layers.Conv1D(filters=8, kernel_size=3, padding="same")(conv)
        conv = layers.BatchNormalization()(conv)
        conv = layers.ReLU()(conv)
    gap = layers.GlobalAveragePooling1D()(conv)
    output_layer = layers.Dense(num_classes, activation="softmax")(gap)
    model = tfkit.models.Model(inputs=input_layer, outputs=output_layer)

    callbacks = [
        tfkit.callbacks.ModelCheckpoint(str(tmp_path / "best_model.keras"), save_best_only=True, monitor="val_loss"),
        tfkit.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2, min_lr=0.0001),
        tfkit.callbacks.EarlyStopping(monitor="val_loss", patience=5, verbose=0),
    ]
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["sparse_categorical_accuracy"])
    history = model.fit(x, y, batch_size=16, epochs=4, callbacks=callbacks, validation_split=0.2, verbose=0)
    assert "val_sparse_categorical_accuracy" in history.history
    best = tfkit.models.load_model(tmp_path / "best_model.keras")
    test_loss, test_acc = best.evaluate(x, y, verbose=0)
    assert np.isfinite(test_loss) and 0 <= test_acc <= 1


class TransformerBlock(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
        super().__init__()
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = tfkit.Sequential([layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)])
        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs):
        attn_output = self.att(inputs, inputs)
        attn_output = self.dropout1(attn_output)
        out1 = self.layernorm1(inputs + attn_output)
        ffn_output = self.ffn(out1)
        ffn_output = self.dropout2(ffn_output)
        return self.layernorm2(out1 + ffn_output)


class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        maxlen = tfkit.ops.shape(x)[-1]
        positions = tfkit.ops.arange(start=0, stop=maxlen, step=1)
        positions = self.pos_emb(positions)
        x = self.token_emb(x)
        return x + positions


def test_text_classification_with_transformer(tmp_path):
    """nlp/text_classification_with_transformer: custom layers with keras.ops, pad_sequences."""
    vocab_size, maxlen, embed_dim = 200, 20, 8
    sequences = [list(_rng(i).integers(1, vocab_size, size=int(_rng(i).integers(5, 30)))) for i in range(48)]
    x = tfkit.utils.pad_sequences(sequences, maxlen=maxlen)
    # A label the model can learn from its tokens (low versus high ids), so the loss falls for any seed.
    y = np.array([int(np.mean(s) < vocab_size / 2) for s in sequences])
    tfkit.utils.set_random_seed(0)
    inputs = layers.Input(shape=(maxlen,))
    x_emb = TokenAndPositionEmbedding(maxlen, vocab_size, embed_dim)(inputs)
    x_out = TransformerBlock(embed_dim, 2, 16)(x_emb)
    x_out = layers.GlobalAveragePooling1D()(x_out)
    x_out = layers.Dropout(0.1)(x_out)
    x_out = layers.Dense(8, activation="relu")(x_out)
    outputs = layers.Dense(2, activation="softmax")(x_out)
    model = tfkit.Model(inputs=inputs, outputs=outputs)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, batch_size=16, epochs=5, validation_data=(x, y), verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    model.save_weights(tmp_path / "transformer.weights.h5")
    twin = tfkit.Model(inputs=inputs, outputs=outputs)
    twin.load_weights(tmp_path / "transformer.weights.h5")
    np.testing.assert_allclose(twin.predict(x[:4], verbose=0), model.predict(x[:4], verbose=0), rtol=1e-5)


def test_functional_residual_blocks_with_operators():
    """The pattern most ported examples trip on: ``x + res`` and ``x * scale`` between layers."""
    inputs = tfkit.Input((16, 4))
    x = layers.Conv1D(4, 3, padding="same")(inputs)
    res = x
    for _ in range(2):
        x = layers.LayerNormalization(epsilon=1e-6)(x)
        x = layers.Conv1D(4, 3, padding="same", activation="relu")(x)
        x = x + res
        res = x
    x = 0.5 * layers.GlobalAveragePooling1D(data_format="channels_last")(x)
    model = tfkit.Model(inputs, layers.Dense(1)(x))
    model.compile(optimizer="adam", loss="mse")
    data = _rng(3).normal(size=(32, 16, 4)).astype("float32")
    history = model.fit(data, data.mean(axis=(1, 2)), epochs=4, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
