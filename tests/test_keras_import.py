"""Keras files into tfkit: Keras 3 .keras and .weights.h5, tf-keras .h5; predictions compared with Keras's own.

Keras 3 comes with TensorFlow; tf-keras is in the test extra. Both build and
save the models here, in this process, so the files are the real thing.
"""

import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest
import time_limits

import tfkit

keras = pytest.importorskip("keras")


def _cnn_layers(k, with_input=True):
    first = [k.Input((12, 12, 1))] if with_input else []
    conv = k.layers.Conv2D(6, 3, activation="relu", **({} if with_input else {"input_shape": (12, 12, 1)}))
    return first + [
        conv,
        k.layers.BatchNormalization(),
        k.layers.MaxPooling2D(),
        k.layers.Flatten(),
        k.layers.Dropout(0.2),
        k.layers.Dense(5, activation="softmax"),
    ]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return rng.random((8, 12, 12, 1)).astype("float32"), np.arange(8) % 5


@pytest.fixture(scope="module")
def keras3_files(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("keras3")
    keras.utils.set_random_seed(0)
    x, y = data
    cnn = keras.Sequential(_cnn_layers(keras), name="cnn")
    cnn.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    cnn.fit(x, y, epochs=1, verbose=0)  # moving statistics away from their initial values
    cnn.save(folder / "cnn.keras")
    cnn.save_weights(folder / "cnn.weights.h5")
    inputs = keras.Input((6,), name="features")
    hidden = keras.layers.Dense(8, activation="relu", name="hidden")(inputs)
    a, b = keras.layers.Dense(3, name="a")(hidden), keras.layers.Dense(3, name="b")(hidden)
    out = keras.layers.LayerNormalization()(keras.layers.Add()([a, b]) - a)
    graph = keras.Model(inputs, out, name="graph")
    graph.save(folder / "graph.keras")
    features = np.random.default_rng(1).random((4, 6)).astype("float32")
    return {
        "folder": folder,
        "cnn": np.asarray(cnn.predict(x, verbose=0)),
        "features": features,
        "graph": np.asarray(graph.predict(features, verbose=0)),
    }


def test_a_keras3_cnn_archive_loads_and_predicts_as_keras(keras3_files, data):
    model = tfkit.load_model(keras3_files["folder"] / "cnn.keras")
    assert type(model).__name__ == "Sequential" and model.name == "cnn"
    np.testing.assert_allclose(model.predict(data[0], verbose=0), keras3_files["cnn"], atol=1e-5)
    assert model.optimizer is not None  # compiled from the archive's compile_config
    assert model._tfkit_import_report.unmapped == []
    history = model.fit(*data, epochs=1, verbose=0)  # and it trains on
    assert np.isfinite(history.history["loss"][0])


def test_a_keras3_functional_archive_with_operators_loads(keras3_files):
    model = tfkit.load_model(keras3_files["folder"] / "graph.keras")
    np.testing.assert_allclose(model.predict(keras3_files["features"], verbose=0), keras3_files["graph"], atol=1e-5)


def test_keras3_weights_load_into_a_tfkit_model_of_the_same_layers(keras3_files, data):
    from tfkit import layers

    model = tfkit.Sequential(
        [
            tfkit.Input((12, 12, 1)),
            layers.Conv2D(6, 3, activation="relu"),
            layers.BatchNormalization(),
            layers.MaxPooling2D(),
            layers.Flatten(),
            layers.Dropout(0.2),
            layers.Dense(5, activation="softmax"),
        ]
    )
    model.load_weights(keras3_files["folder"] / "cnn.weights.h5")
    np.testing.assert_allclose(model.predict(data[0], verbose=0), keras3_files["cnn"], atol=1e-5)
    wrong = tfkit.Sequential([tfkit.Input((12, 12, 1)), layers.Conv2D(4, 3), layers.Flatten(), layers.Dense(5)])
    before = [w.numpy() for w in wrong.weights]
    with pytest.raises(ValueError, match="do not fit model.*nothing was loaded") as caught:
        wrong.load_weights(keras3_files["folder"] / "cnn.weights.h5")
    assert "layers/conv2d/vars/0" in str(caught.value)
    assert all(np.array_equal(a, w.numpy()) for a, w in zip(before, wrong.weights))  # unchanged


def test_tf_keras_legacy_h5_model_and_weights_load(tmp_path, data):
    tf_keras = pytest.importorskip("tf_keras")
    tf_keras.utils.set_random_seed(0)
    x, y = data
    legacy = tf_keras.Sequential(_cnn_layers(tf_keras, with_input=False), name="legacy")
    legacy.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    legacy.fit(x, y, epochs=1, verbose=0)
    with pytest.warns(UserWarning):  # tf-keras calls its own .h5 format legacy
        legacy.save(tmp_path / "legacy.h5")
    legacy.save_weights(tmp_path / "legacy_weights.h5")
    expected = legacy.predict(x, verbose=0)
    model = tfkit.load_model(tmp_path / "legacy.h5")
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, atol=1e-5)
    assert model.optimizer is not None and model._tfkit_import_report.unmapped == []
    twin = tfkit.models.clone_model(model)
    twin.load_weights(tmp_path / "legacy_weights.h5")
    np.testing.assert_allclose(twin.predict(x, verbose=0), expected, atol=1e-5)


def test_keras3_lookup_vocabularies_come_from_the_archive_assets(tmp_path):
    """Keras 3 keeps an adapted lookup's vocabulary in assets/layers/<path>/vocabulary.txt, not in the weights."""
    import tensorflow as tf

    words = keras.layers.StringLookup(mask_token="", num_oov_indices=2)
    words.adapt(np.array([["a"], ["b"], ["a"], ["c"]]))
    numbers = keras.layers.IntegerLookup()
    numbers.adapt(np.array([[5], [7], [5], [9]]))
    text = keras.layers.TextVectorization(max_tokens=20, output_sequence_length=4)
    text.adapt(["the cat sat", "the dog ran far"])
    cases = {
        "words": (
            keras.Sequential([keras.Input((1,), dtype="string"), words]),
            tf.constant([["a"], ["c"], [""], ["q"]]),
        ),
        "numbers": (
            keras.Sequential([keras.Input((1,), dtype="int64"), numbers]),
            tf.constant([[5], [9], [1]], tf.int64),
        ),
        "text": (keras.Sequential([keras.Input((), dtype="string"), text]), tf.constant(["the cat ran", "zebra"])),
    }
    for name, (model, x) in cases.items():
        model.save(tmp_path / f"{name}.keras")
        imported = tfkit.load_model(tmp_path / f"{name}.keras")
        np.testing.assert_array_equal(np.asarray(imported(x)), np.asarray(model(x)), err_msg=name)
        assert imported._tfkit_import_report.unmapped == [], name


def test_a_broken_vocabulary_is_a_value_error(tmp_path):
    numbers = keras.layers.IntegerLookup()
    numbers.adapt(np.array([[5], [7]]))
    keras.Sequential([keras.Input((1,), dtype="int64"), numbers]).save(tmp_path / "numbers.keras")
    member = "assets/layers/integer_lookup/vocabulary.txt"
    _rewrite(tmp_path / "numbers.keras", tmp_path / "words.keras", drop=(member,), extra=[(member, b"-1\nfive")])
    with pytest.raises(ValueError, match=f"{member} must hold one integer a line"):
        tfkit.load_model(tmp_path / "words.keras")
    _rewrite(tmp_path / "numbers.keras", tmp_path / "bytes.keras", drop=(member,), extra=[(member, b"-1\n\xff")])
    with pytest.raises(ValueError, match=f"{member} is not UTF-8 text"):
        tfkit.load_model(tmp_path / "bytes.keras")


def test_what_does_not_map_is_reported(tmp_path):
    inputs = keras.Input((4,))
    hidden = keras.layers.Dense(4, name="hidden")(inputs)
    keras.Model(inputs, keras.layers.Dense(2, lora_rank=None, name="head")(hidden)).save(tmp_path / "plain.keras")
    keras.Model(inputs, keras.layers.LayerNormalization(rms_scaling=True)(hidden)).save(tmp_path / "rms.keras")
    plain = tfkit.load_model(tmp_path / "plain.keras")  # lora_rank=None: a default, left out silently
    assert plain._tfkit_import_report.unmapped == []
    with pytest.raises(ValueError, match="(?s)nothing was loaded.*rms_scaling=True has no tfkit equivalent"):
        tfkit.load_model(tmp_path / "rms.keras")  # RMS scaling has one weight; tfkit's layer two


def test_tfkit_convert_writes_a_tfkit_file(keras3_files, data, tmp_path):
    target = tmp_path / "cnn.h5"
    done = subprocess.run(
        [sys.executable, "-m", "tfkit.cli", "convert", str(keras3_files["folder"] / "cnn.keras"), str(target)],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(180),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "converted" in done.stdout
    model = tfkit.load_model(target)
    np.testing.assert_allclose(model.predict(data[0], verbose=0), keras3_files["cnn"], atol=1e-5)


# ------------------------------------------------------------------ hostile Keras files: every one a ValueError


def _rewrite(source, target, config=None, extra=(), drop=(), weights=None):
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename in drop:
                continue
            data = zin.read(info)
            if info.filename == "config.json" and config is not None:
                data = json.dumps(config(json.loads(data))).encode()
            if info.filename == "model.weights.h5" and weights is not None:
                data = _mutated_h5(data, weights, str(target) + ".weights.h5")
            zout.writestr(info.filename, data)
        for name, data in extra:
            zout.writestr(name, data)


def _mutated_h5(data, mutate, scratch):
    import h5py

    with open(scratch, "wb") as f:
        f.write(data)
    with h5py.File(scratch, "a") as f:
        mutate(f)
    with open(scratch, "rb") as f:
        return f.read()


_DENSE_KERNEL = "layers/dense/vars/0"


def _pickle_weight(f):
    del f[_DENSE_KERNEL]
    f[_DENSE_KERNEL] = np.void(b"\x80\x04cos\nsystem\n.")


def _external_link_weight(f):
    del f[_DENSE_KERNEL]
    f[_DENSE_KERNEL] = __import__("h5py").ExternalLink("/etc/hostname", "/data")


def _huge_weight(f):
    del f[_DENSE_KERNEL]
    f.create_dataset(_DENSE_KERNEL, shape=(10**6, 10**5), dtype="float32")  # 400 GB declared, none stored


def _first_dense(config):
    return next(layer for layer in config["config"]["layers"] if layer["class_name"] == "Dense")


def _lambda_with_bytecode(config):
    marker = os.environ["TFKIT_MARKER"]
    code = (
        __import__("base64")
        .b64encode(__import__("marshal").dumps(compile(f"open({marker!r}, 'w')", "<x>", "exec")))
        .decode()
    )
    config["config"]["layers"].insert(
        1,
        {
            "module": "keras.layers",
            "class_name": "Lambda",
            "registered_name": None,
            "config": {"name": "evil", "function": {"class_name": "__lambda__", "config": {"code": code}}},
        },
    )
    return config


def _module_injection(config):
    layer = _first_dense(config)
    layer.update(module="os", class_name="system", registered_name="system")
    layer["config"] = {"command": f"touch {os.environ['TFKIT_MARKER']}"}
    return config


def _safe_mode_switch(config):
    config["config"]["safe_mode"] = False
    return config


def _function_object(config):
    _first_dense(config)["config"]["activation"] = {
        "class_name": "function",
        "config": {"code": "x"},
        "module": "builtins",
        "function_type": "lambda",
    }
    return config


def _enable_unsafe_then_lambda(config):
    """Keras 3 CVE class: a config entry that calls keras.config.enable_unsafe_deserialization, then a Lambda."""
    config["config"]["layers"].insert(
        1,
        {
            "module": "keras.config",
            "class_name": "enable_unsafe_deserialization",
            "registered_name": None,
            "config": {},
        },
    )
    return _lambda_with_bytecode(config)


def _get_file_layer(config):
    """Keras 3 CVE class: a layer entry naming keras.utils.get_file (a download at load time)."""
    config["config"]["layers"].insert(
        1,
        {
            "module": "keras.utils",
            "class_name": "get_file",
            "registered_name": None,
            "config": {"fname": "x", "origin": "http://127.0.0.1:9/payload"},
        },
    )
    return config


def _builtin_function(config):
    _first_dense(config)["config"]["activation"] = {
        "module": "builtins",
        "class_name": "function",
        "config": "exec",
        "registered_name": "exec",
    }
    return config


def _importable_module(config):
    layer = _first_dense(config)
    layer.update(module="tfkit_evil_keras_module", class_name="run", registered_name="tfkit_evil_keras_module>run")
    return config


def _unknown_operation(config):
    layer = _first_dense(config)
    layer.update(module="keras.src.ops.core", class_name="PyFunc")
    return config


HOSTILE = {
    "lambda bytecode": dict(config=_lambda_with_bytecode),
    "module injection": dict(config=_module_injection),
    "safe_mode in the file": dict(config=_safe_mode_switch),
    "function saved as code": dict(config=_function_object),
    "unknown operation": dict(config=_unknown_operation),
    "pickle beside the config": dict(extra=[("assets/model.pkl", b"\x80\x04cos\nsystem\n.")], config=_module_injection),
    "no config": dict(drop=("config.json",)),
    "config twice": dict(extra=[("config.json", b"{}")]),
    "zip bomb weights": dict(drop=("model.weights.h5",), extra=[("model.weights.h5", b"\0" * 8 * 2**20)]),
    "config not an object": dict(config=lambda config: [config]),
    "enable_unsafe_deserialization, then a Lambda": dict(config=_enable_unsafe_then_lambda),
    "get_file as a layer": dict(config=_get_file_layer),
    "builtins.exec as an activation": dict(config=_builtin_function),
    "an importable module named in the config": dict(config=_importable_module),
    "pickle in the weights": dict(weights=_pickle_weight),
    "external link in the weights": dict(weights=_external_link_weight),
    "huge declared weight": dict(weights=_huge_weight),
}
EVIL_MODULE = "open({marker!r}, 'w').write('imported')\ndef run(**kwargs):\n    open({marker!r}, 'w')\n"


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_keras_archives_are_refused_and_run_nothing(keras3_files, tmp_path, monkeypatch, case):
    marker = tmp_path / "code-ran"
    monkeypatch.setenv("TFKIT_MARKER", str(marker))
    evil = tmp_path / "importable"
    evil.mkdir()
    (evil / "tfkit_evil_keras_module.py").write_text(EVIL_MODULE.format(marker=str(marker)))
    monkeypatch.syspath_prepend(str(evil))  # importing the module named in a file would run it
    target = tmp_path / "hostile.keras"
    _rewrite(keras3_files["folder"] / "cnn.keras", target, **HOSTILE[case])
    for safe_mode in (True, False):
        with pytest.raises(ValueError) as caught:
            tfkit.load_model(target, safe_mode=safe_mode)
        # the message names the user's file (never a temporary copy of a member) and what is wrong in it
        assert str(caught.value).startswith(str(target)), str(caught.value)
        assert "tfkit-keras-" not in str(caught.value), str(caught.value)
    assert not marker.exists()
    assert "tfkit_evil_keras_module" not in sys.modules


def test_an_archive_member_tfkit_does_not_read_is_reported_and_never_opened(keras3_files, data, tmp_path):
    target = tmp_path / "extra.keras"
    _rewrite(keras3_files["folder"] / "cnn.keras", target, extra=[("assets/model.pkl", b"\x80\x04cos\nsystem\n.")])
    with pytest.warns(UserWarning, match="archive member 'assets/model.pkl' is not read"):
        model = tfkit.load_model(target)
    np.testing.assert_allclose(model.predict(data[0], verbose=0), keras3_files["cnn"], atol=1e-5)


def test_truncated_and_foreign_files_are_value_errors(keras3_files, tmp_path):
    data = (keras3_files["folder"] / "cnn.keras").read_bytes()
    (tmp_path / "cut.keras").write_bytes(data[: len(data) // 2])
    (tmp_path / "zip.keras").write_bytes(b"PK\x03\x04" + b"\0" * 100)
    for name in ("cut.keras", "zip.keras"):
        with pytest.raises(ValueError):
            tfkit.load_model(tmp_path / name)
