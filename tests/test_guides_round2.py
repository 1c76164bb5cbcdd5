"""Second pass over the Keras guides and keras.io examples with ``keras`` -> ``tfkit``.

Each test is a pattern that failed when the guides were re-run as a new user
would (tiny data, a few steps): the Sequential guide's feature extraction from
a model built on data, the RNN guide's summary of an unbuilt model, the
transfer-learning guide's ``summary(show_trainable=True)``, the training guide's
``PyDataset`` validation data and per-output losses, the saving guide's
registry and ``keras.models.save_model``, the image utilities of the
training-loop guide and the image-classification example, ``InputLayer(input_shape=)``
of the convolution recipe, ``keras.preprocessing`` of the weather-forecasting
example and the endpoint-layer recipe's metric held by a layer.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import tensorflow as tf

import tfkit as keras
from tfkit import layers, ops

# ----------------------------------------------------------- Sequential guide


def test_sequential_built_on_data_exposes_its_graph_for_feature_extraction():
    model = keras.Sequential([layers.Dense(3, activation="relu"), layers.Dense(2)])
    with pytest.raises(AttributeError, match="call it on data"):
        model.inputs[0] if model.inputs else model.input
    x = np.random.rand(5, 4).astype("float32")
    y = model(x)
    features = [layer.output for layer in model.layers]  # before model.inputs: the graph is made on demand
    extractor = keras.Model(inputs=model.inputs, outputs=features)
    hidden, out = extractor(x)
    assert hidden.shape == (5, 3)
    np.testing.assert_allclose(out, y, rtol=1e-6)
    assert model.input.shape == (None, 4) and model.output.shape == (None, 2)


def test_sequential_built_on_integers_keeps_their_dtype_in_its_graph():
    model = keras.Sequential([layers.Embedding(20, 4, mask_zero=True), layers.LSTM(3)])
    tokens = np.array([[1, 2, 0], [3, 0, 0]])
    y = model(tokens)
    assert model.input.dtype == tf.int64
    extractor = keras.Model(model.inputs, model.layers[0].output)
    assert extractor(tokens).shape == (2, 3, 4)
    np.testing.assert_allclose(model.predict(tokens, verbose=0), y, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- summaries


def _summary(model, **kwargs):
    lines = []
    model.summary(print_fn=lines.append, **kwargs)
    return "\n".join(lines)


def test_summary_of_an_unbuilt_sequential_lists_its_layers_as_unbuilt():
    model = keras.Sequential()
    model.add(layers.Embedding(input_dim=1000, output_dim=64))
    model.add(layers.LSTM(128))
    model.add(layers.Dense(10))
    text = _summary(model)
    assert text.count("0 (unbuilt)") == 3 and " (LSTM)" in text
    assert "Total params: 0" in text


def test_summary_show_trainable_marks_frozen_layers_and_layer_range_selects_rows():
    base = keras.Sequential([keras.Input((4,)), layers.Dense(3, name="base_dense")], name="base")
    base.trainable = False
    inputs = keras.Input((4,))
    x = base(inputs, training=False)
    x = layers.Dropout(0.2, name="drop")(x)
    outputs = layers.Dense(1, name="head")(x)
    model = keras.Model(inputs, outputs)
    rows = {line.split(" ")[0]: line for line in _summary(model, show_trainable=True).splitlines()}
    assert rows["Layer"].rstrip().endswith("Trainable")
    assert rows["base"].rstrip().endswith("N")
    assert rows["head"].rstrip().endswith("Y")
    assert rows["drop"].rstrip().endswith("-")  # no weights
    text = _summary(model, layer_range=["base", "drop"])
    assert "base (Sequential)" in text and "drop (Dropout)" in text and "head (Dense)" not in text


def test_summary_wraps_long_names_instead_of_cutting_them():
    inputs = keras.Input((6, 4))
    x = layers.MultiHeadAttention(num_heads=1, key_dim=2, name="a_rather_long_attention_layer_name")(inputs, inputs)
    model = keras.Model(inputs, layers.GlobalAveragePooling1D()(x))
    text = _summary(model, line_length=60)
    assert all(len(line) <= 60 for line in text.splitlines())
    assert "".join(part.split("│")[0].strip() for part in text.splitlines()).count("a_rather_long_attention") == 1


# ------------------------------------------------------------ training guide


class _Batches(keras.utils.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y, self.batch_size = x, y, batch_size

    def __len__(self):
        return int(np.ceil(len(self.x) / self.batch_size))

    def __getitem__(self, idx):
        part = slice(idx * self.batch_size, (idx + 1) * self.batch_size)
        return self.x[part], self.y[part]


def _classifier():
    inputs = keras.Input(shape=(8,), name="digits")
    outputs = layers.Dense(3, activation="softmax", name="predictions")(layers.Dense(16, activation="relu")(inputs))
    model = keras.Model(inputs, outputs)
    model.compile("rmsprop", "sparse_categorical_crossentropy", metrics=["sparse_categorical_accuracy"])
    return model


def test_validation_data_may_be_a_pydataset_or_a_generator():
    rng = np.random.default_rng(0)
    x, y = rng.random((64, 8)).astype("float32"), rng.integers(0, 3, 64)
    model = _classifier()
    history = model.fit(_Batches(x, y, 16), validation_data=_Batches(x[:32], y[:32], 16), epochs=2, verbose=0)
    expected = model.evaluate(x[:32], y[:32], verbose=0, return_dict=True)
    assert history.history["val_loss"][-1] == pytest.approx(expected["loss"], rel=1e-5)

    def batches():
        for i in range(2):
            yield x[16 * i : 16 * (i + 1)], y[16 * i : 16 * (i + 1)]

    history = model.fit(x, y, validation_data=batches(), epochs=1, verbose=0)
    assert "val_sparse_categorical_accuracy" in history.history


def _two_outputs():
    image_input = keras.Input(shape=(8, 8, 3), name="img_input")
    x = layers.GlobalMaxPooling2D()(layers.Conv2D(3, 3)(image_input))
    score_output = layers.Dense(1, name="score_output")(x)
    class_output = layers.Dense(5, name="class_output")(x)
    return keras.Model(image_input, [score_output, class_output])


@pytest.mark.filterwarnings("ignore:Gradients do not exist")
def test_a_loss_for_some_outputs_needs_targets_for_those_only():
    rng = np.random.default_rng(1)
    images, classes = rng.random((16, 8, 8, 3)), rng.random((16, 5))
    model = _two_outputs()
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3), loss={"class_output": keras.losses.CategoricalCrossentropy()}
    )
    history = model.fit(images, {"class_output": classes}, batch_size=8, epochs=1, verbose=0)
    assert set(history.history) == {"loss"}  # one loss: no per-output entries, as Keras logs it
    model.compile(optimizer="rmsprop", loss=[None, keras.losses.CategoricalCrossentropy()])
    history = model.fit(images, [rng.random((16, 1)), classes], batch_size=8, epochs=1, verbose=0)
    assert set(history.history) == {"loss"}
    model.compile(optimizer="rmsprop", loss={"score_output": "mse", "class_output": "categorical_crossentropy"})
    history = model.fit(
        images, {"score_output": rng.random((16, 1)), "class_output": classes}, batch_size=8, epochs=1, verbose=0
    )
    assert set(history.history) == {"loss", "score_output_loss", "class_output_loss"}
    with pytest.raises(ValueError, match="No targets for the outputs \\['score_output'\\]"):
        model.fit(images, {"class_output": classes}, batch_size=8, epochs=1, verbose=0)


# ------------------------------------------------------ endpoint layer recipe


class _LogisticEndpoint(keras.layers.Layer):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
        self.accuracy_metric = keras.metrics.BinaryAccuracy(name="accuracy")

    def call(self, logits, targets=None, sample_weight=None):
        if targets is not None:
            self.add_loss(self.loss_fn(targets, logits, sample_weight))
            self.accuracy_metric.update_state(targets, ops.sigmoid(logits), sample_weight)
        return ops.sigmoid(logits)


def test_a_metric_held_by_a_layer_is_reported_by_fit_and_reset_each_epoch():
    class LogReg(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)
            self.logistic_endpoint = _LogisticEndpoint()

        def call(self, inputs):
            logits = self.dense(inputs["inputs"])
            return self.logistic_endpoint(logits, targets=inputs["targets"])

    rng = np.random.default_rng(2)
    data = {"inputs": rng.random((40, 6)), "targets": (rng.random((40, 1)) > 0.5).astype("float32")}
    model = LogReg()
    model.compile(keras.optimizers.Adam(1e-3))
    history = model.fit(data, epochs=2, batch_size=40, verbose=0)
    assert set(history.history) == {"loss", "accuracy"}
    assert model.logistic_endpoint.accuracy_metric in model.metrics
    # one batch per epoch and a freshly reset metric: the epoch's accuracy is that batch's accuracy
    probs = model.predict(data, verbose=0)
    acc = model.evaluate(data, verbose=0, return_dict=True)["accuracy"]
    assert acc == pytest.approx(np.mean((probs > 0.5) == (data["targets"] > 0.5)), abs=1e-6)


# -------------------------------------------------------------- saving guide


def test_registered_objects_appear_in_get_custom_objects_and_clearing_it_unregisters_them(tmp_path):
    custom = keras.saving.get_custom_objects()
    saved = dict(custom)
    try:

        @keras.saving.register_keras_serializable(package="GuideRound2")
        class Halve(keras.layers.Layer):
            def call(self, x):
                return x * 0.5

        @keras.saving.register_keras_serializable(package="guide_round2", name="square_fn")
        def square_fn(x):
            return x**2

        assert custom["GuideRound2>Halve"] is Halve and custom["guide_round2>square_fn"] is square_fn
        inputs = keras.Input((3,))
        model = keras.Model(inputs, layers.Dense(2, activation=square_fn)(Halve()(inputs)))
        model.save(tmp_path / "m.keras")
        assert isinstance(keras.models.load_model(tmp_path / "m.keras").layers[1], Halve)
        custom.clear()  # as the guide does first: forget registrations
        with pytest.raises(ValueError, match="Halve"):
            keras.models.load_model(tmp_path / "m.keras")
        loaded = keras.models.load_model(tmp_path / "m.keras", custom_objects={"Halve": Halve, "square_fn": square_fn})
        np.testing.assert_allclose(
            loaded.predict(np.ones((1, 3)), verbose=0), model.predict(np.ones((1, 3)), verbose=0)
        )
    finally:
        custom.clear()
        custom.update(saved)


def test_models_save_model_is_model_save(tmp_path):
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    keras.models.save_model(model, tmp_path / "a.keras")
    keras.saving.save_model(model, tmp_path / "b.keras")
    for name in ("a.keras", "b.keras"):
        np.testing.assert_allclose(keras.models.load_model(tmp_path / name).get_weights()[0], model.get_weights()[0])


# --------------------------------------------- convolution recipe, InputLayer


def test_input_layer_takes_kerass_older_input_shape_argument():
    with pytest.warns(UserWarning, match="input_shape is deprecated"):
        first = keras.layers.InputLayer(input_shape=(28, 28, 1))
    model = keras.Sequential([first, layers.Conv2D(2, 3), layers.Flatten()])
    assert model.input_shape == (None, 28, 28, 1)
    assert model.output_shape == (None, 26 * 26 * 2)
    assert keras.layers.InputLayer(batch_input_shape=(4, 3)).batch_shape == (4, 3)


# ------------------------------------------- keras.preprocessing namespace


def test_preprocessing_namespace_has_kerass_names():
    features = np.arange(40, dtype="float32").reshape(20, 2)
    ds = keras.preprocessing.timeseries_dataset_from_array(features, features[4:, 0], sequence_length=4, batch_size=8)
    x, y = next(iter(ds))
    assert x.shape == (8, 4, 2) and float(y[0]) == 8.0
    assert keras.preprocessing.sequence.pad_sequences([[1, 2], [3]]).tolist() == [[1, 2], [0, 3]]
    assert keras.preprocessing.image_dataset_from_directory is keras.utils.image_dataset_from_directory
    assert keras.preprocessing.image.load_img is keras.utils.load_img


def test_smart_resize_crops_the_centre_to_the_aspect_ratio_then_resizes():
    image = np.arange(4 * 8, dtype="float32").reshape(4, 8, 1)
    out = keras.preprocessing.image.smart_resize(image, (2, 2))
    expected = tf.image.resize(image[:, 2:6, :], (2, 2))  # the centred 4x4 window
    np.testing.assert_allclose(out, expected)
    batch = keras.preprocessing.image.smart_resize(np.stack([image, image]), (4, 4), interpolation="nearest")
    np.testing.assert_array_equal(batch[1], image[:, 2:6, :])


# ------------------------------------------------------------ image utilities


def test_image_utilities_name_pillow_when_it_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="pip install pillow"):
        keras.utils.array_to_img(np.zeros((2, 2, 3)))
    with pytest.raises(ImportError, match="pip install pillow"):
        keras.utils.load_img("missing.png")
    assert keras.utils.img_to_array(np.zeros((2, 3))).shape == (2, 3, 1)  # arrays need no Pillow


def test_array_to_img_save_img_load_img_and_img_to_array_round_trip(tmp_path):
    pytest.importorskip("PIL")
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 256, (6, 10, 3)).astype("float32")
    img = keras.utils.array_to_img(pixels, scale=False)
    assert img.size == (10, 6) and img.mode == "RGB"
    np.testing.assert_array_equal(keras.utils.img_to_array(img), pixels)
    keras.utils.save_img(tmp_path / "x.png", pixels, scale=False)
    loaded = keras.utils.load_img(tmp_path / "x.png")
    np.testing.assert_array_equal(keras.utils.img_to_array(loaded), pixels)
    small = keras.utils.img_to_array(keras.utils.load_img(tmp_path / "x.png", target_size=(3, 5)))
    assert small.shape == (3, 5, 3)
    gray = keras.utils.img_to_array(keras.utils.load_img(tmp_path / "x.png", color_mode="grayscale"))
    assert gray.shape == (6, 10, 1)
    scaled = keras.utils.img_to_array(keras.utils.array_to_img(np.linspace(0, 1, 6 * 10).reshape(6, 10, 1)))
    assert scaled.min() == 0 and scaled.max() == 255  # scale=True stretches to 0..255
    square = keras.utils.load_img(tmp_path / "x.png", target_size=(4, 4), keep_aspect_ratio=True)
    assert square.size == (4, 4)
    with pytest.raises(ValueError, match="1, 3 or 4 channels"):
        keras.utils.array_to_img(np.zeros((2, 2, 2)))


def test_gan_loop_saves_generated_images_with_array_to_img(tmp_path):
    pytest.importorskip("PIL")
    generator = keras.Sequential(
        [
            keras.Input((4,)),
            layers.Dense(7 * 7),
            layers.Reshape((7, 7, 1)),
            layers.Conv2D(1, 3, padding="same", activation="sigmoid"),
        ]
    )
    generated_images = generator(tf.random.normal((2, 4)))
    img = keras.utils.array_to_img(generated_images[0] * 255.0, scale=False)
    img.save(tmp_path / "generated_img_0.png")
    back = keras.utils.img_to_array(keras.utils.load_img(tmp_path / "generated_img_0.png", color_mode="grayscale"))
    np.testing.assert_allclose(back[..., 0], np.floor(np.asarray(generated_images[0, ..., 0]) * 255.0), atol=1)
