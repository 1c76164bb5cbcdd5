"""tfkit writes Keras 3's files: ``model.save("m.keras")`` is an archive ``keras.saving.load_model`` opens.

Each case builds and trains a small tfkit model, saves it as ``.keras``, loads
it with Keras 3 in this process, and checks the predictions and then one more
training step on each side: Keras continuing from the file must land where
tfkit continuing from the model lands, which holds only if the weights, the
compile arguments and the optimizer's state all came across. Files go the
other way too (a Keras archive's optimizer state into tfkit), and tfkit reads
its own archives back with everything ``fit`` needs.
"""

import importlib.util
import os
import pathlib
import zipfile

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import cli, layers
from tfkit.saving.keras_files import optimizer_layout
from tfkit.saving.keras_files.keras_classes_table import CLASSES, FUNCTIONS, KERAS_VERSION

keras = pytest.importorskip("keras")
ROOT = pathlib.Path(__file__).resolve().parents[1]
ATOL = 1e-5


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return rng.random((8, 6)).astype("float32"), rng.random((8, 2)).astype("float32")


def _one_step(model, x, y):
    model.fit(x, y, batch_size=len(x), epochs=1, shuffle=False, verbose=0)


def _keras_continues_like_tfkit(model, path, x, y):
    """Keras loads ``path``: same predictions; one more step on each side: same predictions and optimizer state."""
    loaded = keras.saving.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), atol=ATOL)
    _one_step(loaded, x, y)
    _one_step(model, x, y)  # two float32 implementations of a step: equal to ~6 digits
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=5e-5, atol=ATOL)
    ours = optimizer_layout.stored_arrays(model.optimizer, model.trainable_weights)
    theirs = [np.asarray(v) for v in loaded.optimizer.variables]
    assert [a.shape for a, _ in ours] == [a.shape for a in theirs]
    for (mine, _), keras_value in zip(ours, theirs):  # float32 sums of gradients: ~6 digits of the largest
        np.testing.assert_allclose(keras_value, mine, rtol=1e-4, atol=ATOL * max(1.0, float(np.abs(mine).max())))
    return loaded


def _tool():
    spec = importlib.util.spec_from_file_location("keras_classes_table_tool", ROOT / "tools" / "keras_classes_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_classes_table_is_what_the_tool_derives_from_the_installed_keras():
    version, classes, functions = _tool().build_table()
    if version == KERAS_VERSION:
        assert (classes, functions) == (CLASSES, FUNCTIONS)
    else:  # a newer Keras: the classes tfkit names must still be there, in the same modules
        moved = [
            (kind, name)
            for kind, table in CLASSES.items()
            for name, (module, _) in table.items()
            if classes.get(kind, {}).get(name, (module,))[0] != module
        ]
        assert not moved, f"Keras {version} moved these since {KERAS_VERSION}: {moved}"


def test_a_functional_graph_with_operations_is_an_archive_keras_loads_and_trains_on(tmp_path, data):
    x, y = data
    inputs = tfkit.Input((6,), name="features")
    a = layers.Dense(4, activation="relu", name="a")(inputs)
    b = layers.Dense(4, name="b")(inputs)
    merged = layers.Concatenate()([a + b, a * 0.5])
    summed = tfkit.ops.sum(merged, axis=-1, keepdims=True)
    hidden = layers.BatchNormalization()(layers.Dense(3)(merged) - summed)
    model = tfkit.Model(inputs, layers.Dense(2, name="out")(hidden[:, :2] + hidden[:, 1:]))
    # jit_compile=True: Keras compiles its step with XLA; so must tfkit here, or (jit_compile="auto" picks by
    # timing) the two steps differ by XLA's rounding, which BatchNormalization over 8 samples magnifies to 1e-4
    model.compile(optimizer="adam", loss="mse", metrics=["mae"], jit_compile=True)
    model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    model.save(tmp_path / "graph.keras")
    members = zipfile.ZipFile(tmp_path / "graph.keras").namelist()
    assert {"config.json", "metadata.json", "model.weights.h5", "tfkit.json"} <= set(members)  # Keras skips ours
    loaded = _keras_continues_like_tfkit(model, tmp_path / "graph.keras", x, y)
    assert loaded.name == model.name and loaded.loss == "mse"


def test_a_sequential_model_continues_with_sgd_momentum(tmp_path, data):
    x, y = data
    model = tfkit.Sequential(
        [
            tfkit.Input((6,)),
            layers.Dense(5, activation="tanh"),
            layers.LayerNormalization(),
            layers.Dropout(0.0),
            layers.Dense(2),
        ],
        name="stack",
    )
    model.compile(optimizer=tfkit.optimizers.SGD(0.05, momentum=0.9), loss="mse")
    model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    model.save(tmp_path / "stack.keras")
    loaded = _keras_continues_like_tfkit(model, tmp_path / "stack.keras", x, y)
    assert type(loaded).__name__ == "Sequential"


@keras.saving.register_keras_serializable(package="archive_writer_test")
class Scale(keras.layers.Layer):
    """Keras's twin of the tfkit class below: registered under the same package and name."""

    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.gain = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="gain")

    def call(self, x):
        return x * self.gain * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


KerasScale = Scale


@tfkit.saving.register_keras_serializable(package="archive_writer_test")
class Scale(layers.Layer):  # noqa: F811  the same name as Keras's class: Keras keys its weights by class name
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.gain = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="gain")

    def call(self, x):
        return x * self.gain * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def test_a_nested_model_with_a_registered_custom_layer_continues_with_rmsprop(tmp_path, data):
    x, y = data
    inner = tfkit.Sequential([tfkit.Input((6,)), layers.Dense(3), Scale(3.0)], name="inner")
    inputs = tfkit.Input((6,))
    model = tfkit.Model(inputs, layers.Dense(2)(inner(inputs)), name="outer")
    model.compile(optimizer=tfkit.optimizers.RMSprop(0.01, momentum=0.5, centered=True), loss="mse")
    model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    model.save(tmp_path / "nested.keras")
    loaded = _keras_continues_like_tfkit(model, tmp_path / "nested.keras", x, y)
    assert isinstance(loaded.get_layer("inner").layers[-1], KerasScale)


@pytest.mark.parametrize(
    "make",
    [
        lambda: tfkit.optimizers.Adam(0.01, amsgrad=True),
        lambda: tfkit.optimizers.AdamW(0.01, weight_decay=0.1),
        lambda: tfkit.optimizers.Adafactor(0.01),  # Keras keeps placeholders for a vector's moments
        lambda: tfkit.optimizers.LossScaleOptimizer(tfkit.optimizers.SGD(0.01, momentum=0.5)),
    ],
    ids=["adam_amsgrad", "adamw", "adafactor", "loss_scale_sgd"],
)
def test_optimizer_state_is_stored_in_keras_order(tmp_path, data, make):
    x, y = data
    model = tfkit.Sequential([tfkit.Input((6,)), layers.Dense(4), layers.Dense(2)])
    model.compile(optimizer=make(), loss="mse")
    model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    model.save(tmp_path / "opt.keras")
    _keras_continues_like_tfkit(model, tmp_path / "opt.keras", x, y)


def test_an_application_model_is_an_archive_keras_loads(tmp_path):
    tfkit.utils.set_random_seed(0)  # the same weights whatever ran before (AdamW's next step is compared closely)
    model = tfkit.applications.MobileNet(weights=None, input_shape=(32, 32, 3), alpha=0.25, classes=3, dropout=0.0)
    images = np.random.default_rng(1).random((2, 32, 32, 3)).astype("float32")
    labels = np.eye(3, dtype="float32")[[0, 2]]
    model.compile(optimizer=tfkit.optimizers.AdamW(1e-3), loss="categorical_crossentropy")
    _one_step(model, images, labels)
    model.save(tmp_path / "mobilenet.keras")
    _keras_continues_like_tfkit(model, tmp_path / "mobilenet.keras", images, labels)


def test_save_weights_writes_keras_weights_files_both_read(tmp_path, data):
    x, _ = data
    model = tfkit.Sequential(
        [tfkit.Input((6,)), layers.Dense(4, activation="relu"), layers.BatchNormalization(), layers.Dense(2)]
    )
    model.predict(x, verbose=0)
    for weight in model.weights:
        weight.assign(tf.random.stateless_normal(weight.shape, seed=(1, len(weight.name))))
    model.save_weights(tmp_path / "m.weights.h5")
    twin = keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(4, activation="relu"),
            keras.layers.BatchNormalization(),
            keras.layers.Dense(2),
        ]
    )
    twin.load_weights(tmp_path / "m.weights.h5")
    np.testing.assert_allclose(twin.predict(x, verbose=0), model.predict(x, verbose=0), atol=ATOL)
    unbuilt = tfkit.Sequential([layers.Dense(4, activation="relu"), layers.BatchNormalization(), layers.Dense(2)])
    unbuilt.load_weights(tmp_path / "m.weights.h5")  # built from the input shapes the file also holds
    np.testing.assert_allclose(unbuilt.predict(x, verbose=0), model.predict(x, verbose=0), atol=ATOL)


def _tower(k):
    """The same subclassed model in tfkit and in Keras: weights stored under attribute names, a list's by class."""

    class Tower(k.Model):
        def __init__(self):
            super().__init__()
            self.trunk = k.layers.Dense(4, activation="relu")
            self.heads = [k.layers.Dense(3), k.layers.Dense(1)]

        def call(self, x):
            return self.heads[1](self.heads[0](self.trunk(x)))

    return Tower()


def test_a_subclassed_models_weights_file_is_laid_out_as_keras_lays_it_out(tmp_path, data):
    x, _ = data
    model = _tower(tfkit)
    model.predict(x, verbose=0)
    model.save_weights(tmp_path / "tower.weights.h5")
    twin = _tower(keras)
    twin(x)
    twin.load_weights(tmp_path / "tower.weights.h5")
    np.testing.assert_allclose(twin.predict(x, verbose=0), model.predict(x, verbose=0), atol=ATOL)
    again = _tower(tfkit)
    again.load_weights(tmp_path / "tower.weights.h5")
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0), atol=ATOL)
    model.save(tmp_path / "tower.keras")  # an archive's weights load the same way
    from_archive = _tower(tfkit)
    from_archive.load_weights(tmp_path / "tower.keras")  # built from the archive's input shape first
    np.testing.assert_allclose(from_archive.predict(x, verbose=0), model.predict(x, verbose=0), atol=ATOL)


def test_an_adapted_lookup_keeps_its_vocabulary_in_assets(tmp_path):
    words = layers.StringLookup(output_mode="multi_hot")
    words.adapt(np.array([["cat"], ["dog"], ["cat"], ["bird"]]))
    model = tfkit.Sequential([tfkit.Input((2,), dtype="string"), words])
    model.save(tmp_path / "lookup.keras")
    archive = zipfile.ZipFile(tmp_path / "lookup.keras")
    assert archive.read("assets/layers/string_lookup/vocabulary.txt").decode().split("\n") == words.get_vocabulary()
    x = tf.constant([["cat", "fish"], ["bird", "dog"]])
    np.testing.assert_allclose(
        keras.saving.load_model(tmp_path / "lookup.keras").predict(x, verbose=0), model.predict(x, verbose=0)
    )
    np.testing.assert_allclose(
        tfkit.load_model(tmp_path / "lookup.keras").predict(x, verbose=0), model.predict(x, verbose=0)
    )


def test_tfkit_reads_its_archive_and_fit_continues_exactly(tmp_path, data):
    x, y = data
    model = tfkit.Sequential([tfkit.Input((6,)), layers.Dense(4, activation="relu"), layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse", steps_per_execution="auto")
    model.fit(x, y, epochs=2, batch_size=2, verbose=0)  # shuffled batches: the seed must come back
    model.save(tmp_path / "resume.keras")
    loaded = tfkit.load_model(tmp_path / "resume.keras")
    assert loaded.get_compile_config() == model.get_compile_config()  # tfkit's own terms, from tfkit.json
    for a, b in zip(loaded.optimizer.variables, model.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    model.fit(x, y, epochs=2, batch_size=2, verbose=0)
    loaded.fit(x, y, epochs=2, batch_size=2, verbose=0)
    for a, b in zip(loaded.weights, model.weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-6)


def test_a_keras_archive_brings_its_optimizer_state_into_tfkit(tmp_path, data):
    x, y = data
    keras.utils.set_random_seed(0)
    theirs = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(2)])
    theirs.compile(optimizer=keras.optimizers.RMSprop(0.01, momentum=0.9), loss="mse")
    theirs.fit(x, y, epochs=2, batch_size=4, verbose=0)
    theirs.save(tmp_path / "keras.keras")
    ours = tfkit.load_model(tmp_path / "keras.keras")
    stored = optimizer_layout.stored_arrays(ours.optimizer, ours.trainable_weights)
    for (mine, _), variable in zip(stored, theirs.optimizer.variables):
        np.testing.assert_allclose(mine, np.asarray(variable), atol=ATOL)
    assert int(ours.optimizer.iterations) == 4
    _one_step(theirs, x, y)
    _one_step(ours, x, y)
    np.testing.assert_allclose(ours.predict(x, verbose=0), theirs.predict(x, verbose=0), atol=ATOL)


def test_what_keras_cannot_express_is_refused_and_the_previous_file_stays(tmp_path):
    target = tmp_path / "model.keras"
    tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2)]).save(target)
    previous = target.read_bytes()
    inputs = tfkit.Input((3,))
    with_tf_function = tfkit.Model(inputs, tf.nn.relu(layers.Dense(2, name="proj")(inputs)), name="uses_tf")
    with pytest.raises(ValueError, match=r"uses_tf/tf\.nn\.relu.*\.h5"):
        with_tf_function.save(target)

    class Opaque(tfkit.Model):  # its constructor takes an object: no config
        def __init__(self, helper):
            super().__init__()
            self.helper = helper
            self.dense = layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    opaque = Opaque(object())
    opaque(np.ones((1, 3), "float32"))
    with pytest.raises(ValueError, match=r"'opaque' \(Opaque\) has no config.*get_config.*\.h5"):
        opaque.save(target)
    assert target.read_bytes() == previous and sorted(os.listdir(tmp_path)) == ["model.keras"]
    with_tf_function.save(tmp_path / "model.h5")  # tfkit's own format keeps it
    assert sorted(os.listdir(tmp_path)) == ["model.h5", "model.keras"]


def test_a_keras_file_tfkit_wrote_as_hdf5_still_loads_and_converts(tmp_path, data, capsys):
    x, _ = data
    model = tfkit.Sequential([tfkit.Input((6,)), layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    model.save(tmp_path / "old.h5")
    os.replace(tmp_path / "old.h5", tmp_path / "old.keras")  # what tfkit wrote under .keras before
    np.testing.assert_allclose(
        tfkit.load_model(tmp_path / "old.keras").predict(x, verbose=0), model.predict(x, verbose=0), atol=ATOL
    )
    assert cli.main(["convert", str(tmp_path / "old.keras"), str(tmp_path / "new.keras")]) == 0
    assert "(Keras 3 archive)" in capsys.readouterr().out
    np.testing.assert_allclose(
        keras.saving.load_model(tmp_path / "new.keras").predict(x, verbose=0), model.predict(x, verbose=0), atol=ATOL
    )
    assert cli.main(["inspect", str(tmp_path / "new.keras")]) == 0
    out = capsys.readouterr().out
    assert "format: Keras 3 archive (.keras), written by tfkit" in out
    assert "compiled: optimizer=Adam, loss=mse" in out and "layers/dense/vars/0" in out
