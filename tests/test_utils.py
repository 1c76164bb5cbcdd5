"""tfkit.utils and tfkit.backend: Keras's names, checked against numpy and (when installed) Keras."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers, utils


def test_to_categorical_and_normalize():
    np.testing.assert_array_equal(utils.to_categorical([0, 2, 1]), np.eye(3)[[0, 2, 1]])
    assert utils.to_categorical(np.array([[1], [0]]), 4).shape == (2, 4)
    with pytest.raises(ValueError, match="out of range for num_classes=2"):
        utils.to_categorical([3], 2)
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(utils.normalize(x), [[0.6, 0.8], [0.0, 0.0]])


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"maxlen": 3},
        {"padding": "post", "truncating": "post", "maxlen": 2},
        {"value": -1.0, "dtype": "float32", "maxlen": 5},
    ],
)
def test_pad_sequences_matches_keras(kwargs):
    sequences = [[1, 2, 3, 4], [5], [], [6, 7]]
    ours = utils.pad_sequences(sequences, **kwargs)
    if "maxlen" not in kwargs:
        np.testing.assert_array_equal(ours, [[1, 2, 3, 4], [0, 0, 0, 5], [0, 0, 0, 0], [0, 0, 6, 7]])
    keras = pytest.importorskip("keras")
    theirs = keras.utils.pad_sequences(sequences, **kwargs)
    np.testing.assert_array_equal(ours, theirs)
    assert ours.dtype == theirs.dtype


def test_set_random_seed_makes_initial_weights_repeatable():
    def weights():
        utils.set_random_seed(7)
        layer = layers.Dense(3)
        layer(np.ones((1, 2), "float32"))
        return layer.kernel.numpy(), np.random.rand()

    (a, ra), (b, rb) = weights(), weights()
    np.testing.assert_array_equal(a, b)
    assert ra == rb


def test_timeseries_windows_match_numpy():
    data = np.arange(20).reshape(10, 2)
    targets = np.arange(10) * 10
    ds = utils.timeseries_dataset_from_array(
        data, targets, sequence_length=3, sequence_stride=2, sampling_rate=2, batch_size=2
    )
    windows = np.concatenate([w.numpy() for w, _ in ds])
    labels = np.concatenate([t.numpy() for _, t in ds])
    starts = [0, 2, 4]
    np.testing.assert_array_equal(windows, [data[[s, s + 2, s + 4]] for s in starts])
    np.testing.assert_array_equal(labels, [0, 10, 20])
    keras = pytest.importorskip("keras")
    theirs = keras.utils.timeseries_dataset_from_array(
        data, targets, sequence_length=3, sequence_stride=2, sampling_rate=2, batch_size=2
    )
    np.testing.assert_array_equal(windows, np.concatenate([w.numpy() for w, _ in theirs]))


class Batches(utils.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y, self.batch_size = x, y, batch_size
        self.requested, self.epochs_ended = [], 0

    def __len__(self):
        return int(np.ceil(len(self.x) / self.batch_size))

    def __getitem__(self, index):
        self.requested.append(index)
        low = index * self.batch_size
        return self.x[low : low + self.batch_size], self.y[low : low + self.batch_size]

    def on_epoch_end(self):
        self.epochs_ended += 1


def test_py_dataset_feeds_fit_evaluate_and_predict():
    x = np.random.default_rng(0).random((20, 3)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    data = Batches(x, y, batch_size=8, workers=2)
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    model.compile("sgd", "mse")
    history = model.fit(data, epochs=3, verbose=0)
    assert len(history.history["loss"]) == 3
    assert data.epochs_ended == 3  # [0] first: the batch signature; then each epoch's batches, read by two threads
    assert [sorted(data.requested[1 + 3 * epoch : 4 + 3 * epoch]) for epoch in range(3)] == [[0, 1, 2]] * 3
    evaluated = Batches(x, y, 8)
    loss = model.evaluate(evaluated, verbose=0)
    np.testing.assert_allclose(loss, np.mean((model.predict(x, verbose=0) - y) ** 2), rtol=1e-4)
    predicted = Batches(x, y, 8)
    predictions = model.predict(predicted, verbose=0)
    assert predictions.shape == (20, 1)
    assert evaluated.epochs_ended == 1 and predicted.epochs_ended == 1  # once per pass, as Keras calls it
    with pytest.raises(ValueError, match="do not pass y"):
        model.fit(data, y, verbose=0)


def test_plot_model_says_what_to_install_or_draws(tmp_path):
    x = tfkit.Input((3,))
    model = tfkit.Model(x, layers.Dense(1)(layers.Dense(2)(x)))
    try:
        import shutil

        import pydot  # noqa: F401

        ready = shutil.which("dot") is not None
    except ImportError:
        ready = False
    if not ready:
        with pytest.raises(ImportError, match="pip install pydot|apt-get install graphviz"):
            utils.plot_model(model, to_file=str(tmp_path / "m.png"))
        return
    path = utils.plot_model(model, to_file=str(tmp_path / "m.png"), show_shapes=True)
    assert (tmp_path / "m.png").stat().st_size > 0 and path.endswith("m.png")


def test_backend_names():
    assert tfkit.backend.backend() == "tensorflow" and tfkit.backend.epsilon() == 1e-7
    assert tfkit.backend.floatx() == "float32" and tfkit.backend.image_data_format() == "channels_last"
    assert tfkit.backend.is_keras_tensor(tfkit.Input((2,))) and not tfkit.backend.is_keras_tensor(tf.ones(2))
    tfkit.backend.clear_session()
    assert layers.Dense(2).name == "dense"


def _image_tree(root, counts=(3, 2)):
    for name, count in zip(("cats", "dogs"), counts):
        (root / name).mkdir(parents=True)
        for i in range(count):
            pixels = np.full((6 + i, 5, 3), 40 * i, dtype="uint8")
            (root / name / f"{i}.png").write_bytes(tf.io.encode_png(pixels).numpy())


def test_image_dataset_from_directory(tmp_path, capsys):
    _image_tree(tmp_path)
    train, val = utils.image_dataset_from_directory(
        tmp_path, validation_split=0.4, subset="both", seed=3, image_size=(4, 4), batch_size=2
    )
    assert "Found 5 files belonging to 2 classes." in capsys.readouterr().out
    assert train.class_names == ["cats", "dogs"]
    images = np.concatenate([x.numpy() for x, _ in train] + [x.numpy() for x, _ in val])
    labels = np.concatenate([y.numpy() for _, y in train] + [y.numpy() for _, y in val])
    assert images.shape == (5, 4, 4, 3) and images.dtype == np.float32 and sorted(labels.tolist()) == [0, 0, 0, 1, 1]
    assert not set(train.file_paths) & set(val.file_paths)
    one_hot = utils.image_dataset_from_directory(
        tmp_path, label_mode="categorical", image_size=(4, 4), color_mode="grayscale", shuffle=False, verbose=False
    )
    x, y = next(iter(one_hot))
    assert x.shape[1:] == (4, 4, 1) and y.numpy()[0].tolist() == [1.0, 0.0]


def test_text_dataset_from_directory(tmp_path):
    for name, texts in (("neg", ["bad film", "awful"]), ("pos", ["great", "loved it"])):
        (tmp_path / name).mkdir()
        for i, text in enumerate(texts):
            (tmp_path / name / f"{i}.txt").write_text(text)
    data = utils.text_dataset_from_directory(tmp_path, batch_size=8, shuffle=False, max_length=5, verbose=False)
    texts, labels = next(iter(data))
    assert texts.numpy().tolist() == [b"bad f", b"awful", b"great", b"loved"] and labels.numpy().tolist() == [
        0,
        0,
        1,
        1,
    ]
    assert data.class_names == ["neg", "pos"]


def test_directory_datasets_raise_keras_errors_for_a_missing_or_wrong_folder(tmp_path):
    # Keras 3 raises FileNotFoundError / NotADirectoryError (keras-io examples catch them)
    for build in (utils.text_dataset_from_directory, utils.image_dataset_from_directory):
        with pytest.raises(FileNotFoundError, match="aclImdb"):
            build(str(tmp_path / "aclImdb" / "train"))
        (tmp_path / "a_file").write_text("x")
        with pytest.raises(NotADirectoryError, match="a_file"):
            build(str(tmp_path / "a_file"))


def _creator_model():
    model = tfkit.Sequential([tfkit.Input((2,)), layers.Dense(1, kernel_initializer="zeros")])
    model.compile(tfkit.optimizers.SGD(0.02), loss="mse")
    return model


def test_dataset_creator_trains_on_one_device_with_steps_per_epoch():
    x = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0], [2.0, 0.0]], "float32")
    y = x.sum(axis=1, keepdims=True)
    contexts = []

    def dataset_fn(context):
        contexts.append(context)
        return tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(context.get_per_replica_batch_size(2))

    creator = utils.experimental.DatasetCreator(dataset_fn)
    model = _creator_model()
    history = model.fit(
        creator, epochs=3, steps_per_epoch=10, verbose=0, validation_data=creator, validation_steps=2
    ).history
    assert isinstance(contexts[0], tf.distribute.InputContext)
    assert history["loss"][-1] < 0.1 * history["loss"][0]
    assert len(history["val_loss"]) == 3
    assert model.evaluate(creator, steps=2, verbose=0) < history["loss"][0]
    assert model.predict(
        utils.experimental.DatasetCreator(lambda c: tf.data.Dataset.from_tensor_slices(x).batch(2)), steps=2, verbose=0
    ).shape == (4, 1)


def test_dataset_creator_errors_say_what_to_pass():
    model = _creator_model()
    creator = utils.experimental.DatasetCreator(lambda c: tf.data.Dataset.from_tensors((np.ones((1, 2)), [[1.0]])))
    with pytest.raises(ValueError, match="pass steps_per_epoch to fit"):
        model.fit(creator, verbose=0)
    with pytest.raises(ValueError, match="do not pass y"):
        model.fit(creator, np.ones((1, 1)), steps_per_epoch=1, verbose=0)
    with pytest.raises(TypeError, match="dataset_fn must be a callable"):
        utils.experimental.DatasetCreator("not a function")
    with pytest.raises(TypeError, match="input_options must be a tf.distribute.InputOptions"):
        utils.experimental.DatasetCreator(lambda c: None, input_options={"fetch": True})
    with pytest.raises(TypeError, match="must return a tf.data.Dataset"):
        model.fit(utils.experimental.DatasetCreator(lambda c: [1, 2]), steps_per_epoch=1, verbose=0)
