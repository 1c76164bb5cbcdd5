"""Objects from Keras's world taken by their protocol, not their class (issue 54).

imbalanced-learn's ``BalancedBatchGenerator`` (a ``keras.utils.PyDataset``), tf-keras's
``Sequence`` and plain classes with ``__len__`` and ``__getitem__`` feed ``fit``,
``evaluate`` and ``predict``, read by worker threads or processes as their ``workers``
and ``use_multiprocessing`` say. ``Sequential`` and functional models take a dict keyed
by their ``Input`` names and give Keras 3's ``input_spec``, so OpenVINO's
``convert_model`` converts them.
"""

import os
import threading
import warnings

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit.utils.py_dataset import is_py_dataset

RNG = np.random.default_rng(0)
X = RNG.normal(size=(24, 3)).astype("float32")
Y = (X @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.25).astype("float32")


def linear_model(lr=0.1):
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=tfkit.optimizers.SGD(lr), loss="mse")
    return model


def numpy_sgd(epochs_of_batches, lr=0.1):
    """Plain SGD on mean squared error for a linear model from zeros: (kernel, bias, mean loss of each epoch)."""
    w, b, losses = np.zeros((3, 1)), np.zeros(1), []
    for batches in epochs_of_batches:
        epoch = []
        for xb, yb in batches:
            err = xb @ w + b - yb.reshape(len(xb), 1)
            epoch.append(np.mean(err**2))
            w, b = w - lr * 2 * xb.T @ err / len(xb), b - lr * 2 * err.mean(axis=0)
        losses.append(np.mean(epoch))
    return w, b, losses


class Batches:
    """A PyDataset by its methods only: no base class, Keras 3's reading settings as plain attributes."""

    def __init__(self, x=X, y=Y, batch_size=6, workers=1, use_multiprocessing=False, marks=None):
        self.x, self.y, self.batch_size = x, y, batch_size
        self.workers, self.use_multiprocessing, self.max_queue_size = workers, use_multiprocessing, 2
        self.offset, self.began, self.ended, self.readers, self.marks = 0.0, 0, 0, [], marks
        self.indices = []

    def __len__(self):
        return len(self.x) // self.batch_size

    def __getitem__(self, index):
        self.readers.append(threading.current_thread().name)
        self.indices.append(index)
        if self.marks is not None:  # in a worker process: leave a file named by its pid
            (self.marks / str(os.getpid())).touch()
        rows = slice(index * self.batch_size, (index + 1) * self.batch_size)
        return self.x[rows], self.y[rows] + self.offset

    def on_epoch_begin(self):
        self.began += 1

    def on_epoch_end(self):
        self.ended += 1
        self.offset += 1.0  # the next epoch's labels move: a worker must see it


def epoch_batches(source, offset=0.0):
    return [(xb, yb + offset) for xb, yb in (source[i][:2] for i in range(len(source)))]


def test_balanced_batch_generator_from_imbalanced_learn_trains_as_numpy_sgd_on_its_batches():
    imblearn_keras = pytest.importorskip("imblearn.keras")
    y = (np.arange(24) < 6).astype("float32")  # 6 positives against 18: each epoch gets 6 of each
    batches = imblearn_keras.BalancedBatchGenerator(X, y, batch_size=4, random_state=0)
    assert len(batches) == 3 and sum(float(batches[i][1].sum()) for i in range(3)) == 6.0
    model = linear_model()
    with warnings.catch_warnings():  # Keras's own warning as its PyDataset's workers is read: imblearn skips
        warnings.filterwarnings("ignore", message="Your `PyDataset` class should call")  # super().__init__
        history = model.fit(batches, epochs=2, shuffle=False, verbose=0)
        loss = model.evaluate(batches, verbose=0)
        predictions = model.predict(batches, verbose=0)
    w, b, losses = numpy_sgd([epoch_batches(batches)] * 2)
    np.testing.assert_allclose(history.history["loss"], losses, rtol=1e-5)
    kernel, bias = model.layers[0].get_weights()
    np.testing.assert_allclose(kernel, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bias, b, rtol=1e-5, atol=1e-6)
    inputs, labels = (np.concatenate([batches[i][part] for i in range(3)]) for part in (0, 1))
    np.testing.assert_allclose(predictions, inputs @ w + b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loss, np.mean((inputs @ w + b - labels[:, None]) ** 2), rtol=1e-5)


def test_a_plain_class_feeds_fit_validation_evaluate_and_predict_with_its_epoch_hooks():
    data, validation = Batches(), Batches()
    model = linear_model()
    history = model.fit(data, epochs=2, validation_data=validation, shuffle=False, verbose=0)
    assert (data.began, data.ended) == (2, 2) and (validation.began, validation.ended) == (2, 2)
    w, b, losses = numpy_sgd([epoch_batches(Batches()), epoch_batches(Batches(), offset=1.0)])
    np.testing.assert_allclose(history.history["loss"], losses, rtol=1e-5)  # epoch 2 saw on_epoch_end's offset
    np.testing.assert_allclose(history.history["val_loss"][-1], np.mean((X @ w + b - Y - 1.0) ** 2), rtol=1e-5)
    once = Batches()
    np.testing.assert_allclose(model.predict(once, verbose=0), X @ w + b, rtol=1e-5, atol=1e-6)
    assert (once.began, once.ended) == (1, 1)
    with pytest.raises(ValueError, match="When x is a PyDataset, .*do not pass y"):
        model.fit(Batches(), Y, verbose=0)


def test_fit_reads_the_batches_in_a_new_order_each_epoch_as_keras_shuffles_a_py_dataset():
    tfkit.utils.set_random_seed(3)
    data = Batches(batch_size=3)  # 8 batches
    model = linear_model()
    history = model.fit(data, epochs=2, verbose=0)  # shuffle=True, fit's default, as in Keras 3 and tf-keras
    first, second = data.indices[1:9], data.indices[9:17]  # after batch 0, read once for the signature
    assert sorted(first) == sorted(second) == list(range(8)) and first != second and len(data.indices) == 17
    rows = [(X[i * 3 : (i + 1) * 3], Y[i * 3 : (i + 1) * 3]) for i in range(8)]
    w, b, losses = numpy_sgd([[rows[i] for i in first], [(xb, yb + 1.0) for xb, yb in (rows[i] for i in second)]])
    np.testing.assert_allclose(history.history["loss"], losses, rtol=1e-5)
    np.testing.assert_allclose(model.layers[0].get_weights()[0], w, rtol=1e-5, atol=1e-6)
    del data.indices[:]
    model.evaluate(data, verbose=0)
    model.predict(data, verbose=0)
    assert data.indices == [0, *range(8), 0, *range(8)]  # evaluate and predict read in order


def test_workers_read_batches_in_threads_and_they_arrive_in_order():
    data = Batches(workers=2)
    model = linear_model()
    model.fit(data, epochs=1, verbose=0)
    assert data.readers[0] == threading.current_thread().name  # batch 0 once more here: the batch signature
    assert data.readers[1:] and all(name.startswith("py_dataset_worker") for name in data.readers[1:])
    predicted = Batches(workers=3)
    kernel, bias = model.layers[0].get_weights()
    np.testing.assert_allclose(model.predict(predicted, verbose=0), X @ kernel + bias, rtol=1e-5, atol=1e-6)
    assert predicted.ended == 1


def test_use_multiprocessing_reads_in_processes_started_each_epoch_after_on_epoch_end(tmp_path):
    data = Batches(workers=2, use_multiprocessing=True, marks=tmp_path)
    model = linear_model()
    history = model.fit(data, epochs=2, shuffle=False, verbose=0)
    pids = {int(p.name) for p in tmp_path.iterdir()}
    assert len(pids - {os.getpid()}) >= 2  # at least one worker process an epoch
    w, b, losses = numpy_sgd([epoch_batches(Batches()), epoch_batches(Batches(), offset=1.0)])
    np.testing.assert_allclose(history.history["loss"], losses, rtol=1e-5)  # epoch 2's processes saw offset 1
    np.testing.assert_allclose(model.layers[0].get_weights()[0], w, rtol=1e-5, atol=1e-6)


def test_tf_keras_sequence_has_no_worker_attributes_and_is_read_in_the_training_thread():
    tf_keras = pytest.importorskip("tf_keras")

    class Sequence(tf_keras.utils.Sequence):
        def __init__(self):
            self.readers, self.ended = [], 0

        def __len__(self):
            return 4

        def __getitem__(self, index):
            self.readers.append(threading.current_thread().name)
            return X[index * 6 : (index + 1) * 6], Y[index * 6 : (index + 1) * 6]

        def on_epoch_end(self):
            self.ended += 1

    data = Sequence()
    model = linear_model()
    history = model.fit(data, epochs=1, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], numpy_sgd([epoch_batches(Batches())])[2], rtol=1e-5)
    assert data.ended == 1 and not any(name.startswith("py_dataset_worker") for name in data.readers)


def test_an_endless_py_dataset_needs_steps_and_goes_on_across_epochs():
    class Endless:
        num_batches = None  # Keras 3: an endless PyDataset

        def __init__(self):
            self.requested = []

        def __getitem__(self, index):
            self.requested.append(index)
            return X[:4], Y[:4]

    model = linear_model()
    with pytest.raises(ValueError, match=r"PyDataset Endless passed as x has num_batches None .* steps_per_epoch"):
        model.fit(Endless(), epochs=1, verbose=0)
    data = Endless()
    model.fit(data, epochs=2, steps_per_epoch=3, verbose=0)
    assert data.requested[1:7] == list(range(6))  # after batch 0 for the signature: one pass over two epochs


def test_bad_reading_settings_and_non_datasets():
    with pytest.raises(
        ValueError, match=r"PyDataset Batches passed as x: workers must be a non-negative integer, got '2'"
    ):
        linear_model().fit(Batches(workers="2"), verbose=0)
    not_datasets = [X, [X], (X, Y), {"x": X}, tf.constant(X), tf.data.Dataset.from_tensors(X), "text"]
    assert not any(is_py_dataset(value) for value in not_datasets)
    assert is_py_dataset(Batches()) and is_py_dataset(tfkit.utils.PyDataset())


def conv_sequential():
    tfkit.utils.set_random_seed(1)
    return tfkit.Sequential(
        [
            tfkit.Input((8, 8, 3), name="pixels"),
            tfkit.layers.Conv2D(4, 3, activation="relu"),
            tfkit.layers.Flatten(),
            tfkit.layers.Dense(2),
        ]
    )


def two_input_model():
    tfkit.utils.set_random_seed(2)
    image = tfkit.Input((4, 4, 1), name="image")
    meta = tfkit.Input((3,), name="meta")
    merged = tfkit.layers.Concatenate()([tfkit.layers.Flatten()(image), meta])
    return tfkit.Model(
        [image, meta], [tfkit.layers.Dense(1, name="score")(merged), tfkit.layers.Dense(2, name="aux")(meta)]
    )


def test_sequential_takes_a_dict_keyed_by_its_input_name_and_has_no_input_spec_as_in_keras():
    model = conv_sequential()
    x = RNG.random((2, 8, 8, 3)).astype("float32")
    expected = model(x).numpy()
    assert model.input.name == "pixels"  # the key OpenVINO's converter uses
    np.testing.assert_array_equal(model({"pixels": x}).numpy(), expected)
    np.testing.assert_array_equal(model({"pixels": x, "label": x[:, 0]}).numpy(), expected)  # others left out
    np.testing.assert_array_equal(model([x]).numpy(), expected)
    with pytest.raises(ValueError, match=r"Sequential '\w+' .* missing \['pixels'\], unexpected key\(s\) \['image'\]"):
        model({"image": x})
    assert model.input_spec is None
    keras = pytest.importorskip("keras")
    theirs = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3), keras.layers.Flatten()])
    assert theirs.input_spec is None


def test_functional_input_spec_and_dict_inputs_match_keras():
    model = two_input_model()
    specs = model.input_spec
    assert [(s.shape, s.ndim, s.name, s.dtype, s.allow_last_axis_squeeze, s.optional) for s in specs] == [
        ((None, 4, 4, 1), 4, "image", None, True, False),
        ((None, 3), 2, "meta", None, True, False),
    ]
    image, meta = RNG.random((2, 4, 4, 1)).astype("float32"), RNG.random((2, 3)).astype("float32")
    expected = [t.numpy() for t in model([image, meta])]
    by_name = model({"meta": meta, "image": image[..., 0], "id": meta})  # a trailing 1 added; "id" left out
    for got, want in zip(by_name, expected):
        np.testing.assert_array_equal(got.numpy(), want)
    with pytest.raises(ValueError, match=r"Model '\w+' .* missing \['meta'\], unexpected key\(s\) \['metadata'\]"):
        model({"image": image, "metadata": meta})
    model.input_spec = tfkit.InputSpec(ndim=4)  # assigned: replaces it and is checked
    assert repr(model.input_spec) == "InputSpec(ndim=4)"
    keras = pytest.importorskip("keras")
    k_image, k_meta = keras.Input((4, 4, 1), name="image"), keras.Input((3,), name="meta")
    theirs = keras.Model([k_image, k_meta], keras.layers.Concatenate()([keras.layers.Flatten()(k_image), k_meta]))
    assert [(s.shape, s.ndim, s.name, s.dtype, s.allow_last_axis_squeeze, s.optional) for s in theirs.input_spec] == [
        (s.shape, s.ndim, s.name, s.dtype, s.allow_last_axis_squeeze, s.optional) for s in specs
    ]
    assert [repr(s) for s in theirs.input_spec] == [repr(s) for s in specs]


def test_input_spec_allow_last_axis_squeeze_accepts_a_missing_or_extra_axis_of_one():
    layer = tfkit.layers.Flatten()
    layer.input_spec = tfkit.InputSpec(shape=(None, 4, 1), allow_last_axis_squeeze=True)
    assert layer(np.ones((2, 4))).shape == (2, 4)
    assert layer(np.ones((2, 4, 1))).shape == (2, 4)
    with pytest.raises(ValueError, match=r"expected input shape \(None, 4, 1\), got \(2, 5\)"):
        layer(np.ones((2, 5)))


def test_openvino_converts_a_sequential_conv_model_and_a_functional_model():
    ov = pytest.importorskip("openvino")
    f32 = {"INFERENCE_PRECISION_HINT": "f32"}  # CPUs with bf16 would otherwise round
    model = conv_sequential()
    converted = ov.convert_model(model)  # no input_spec: it calls model({"pixels": x}) in a tf.function
    assert [port.get_any_name() for port in converted.inputs] == ["pixels"]
    x = RNG.random((3, 8, 8, 3)).astype("float32")
    compiled = ov.compile_model(converted, "CPU", f32)
    np.testing.assert_allclose(compiled(x)[0], model.predict(x, verbose=0), rtol=1e-5, atol=1e-5)

    model = two_input_model()
    converted = ov.convert_model(model)  # its input_spec names the inputs; it calls model((image, meta))
    assert [port.get_any_name() for port in converted.inputs] == ["image", "meta"]
    image, meta = RNG.random((3, 4, 4, 1)).astype("float32"), RNG.random((3, 3)).astype("float32")
    compiled = ov.compile_model(converted, "CPU", f32)
    outputs = compiled([image, meta])
    for name, expected in zip(model.output_names, model.predict([image, meta], verbose=0)):  # named as the model's
        np.testing.assert_allclose(outputs[compiled.output(name)], expected, rtol=1e-5, atol=1e-5)
