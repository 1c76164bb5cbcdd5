"""tfkit.export.ExportArchive: endpoints, variable collections and lookup tables in a SavedModel that loads
without tfkit; Keras 3's errors."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf
import time_limits

import tfkit
from tfkit.export import ExportArchive

RNG = np.random.default_rng(5)
X = RNG.normal(size=(4, 3)).astype("float32")


def _model():
    inputs = tfkit.Input((3,))
    hidden = tfkit.layers.Dense(8, activation="relu")(inputs)
    hidden = tfkit.layers.Dropout(0.5)(hidden)
    return tfkit.Model(inputs, tfkit.layers.Dense(2)(hidden))


def _load_without_tfkit(path, code):
    """Run ``code`` in a Python whose import path has no tfkit; it prints a JSON line."""
    script = textwrap.dedent(f"""
        import json, sys
        sys.path = [p for p in sys.path if not p or "tfkit" not in p and p != {os.getcwd()!r}]
        sys.modules["tfkit"] = None       # an import of tfkit would fail
        import numpy as np, tensorflow as tf
        archive = tf.saved_model.load({path!r})
        """) + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(300),
        cwd=os.path.dirname(path),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    import json

    return json.loads(done.stdout.strip().splitlines()[-1])


def test_endpoints_and_collections_reload_without_tfkit(tmp_path):
    model = _model()
    archive = ExportArchive()
    archive.track(model)
    archive.add_endpoint(
        "serve", lambda x: model(x, training=False), input_signature=[tfkit.InputSpec(shape=(None, 3), dtype="float32")]
    )
    archive.add_endpoint(
        "call_training", lambda x: model(x, training=True), input_signature=[tf.TensorSpec((None, 3), tf.float32)]
    )
    archive.add_variable_collection("my_vars", model.trainable_weights)
    path = str(tmp_path / "archive")
    archive.write_out(path, verbose=False)
    got = _load_without_tfkit(
        path,
        f"""
        x = np.array({X.tolist()!r}, "float32")
        print(json.dumps({{"serve": archive.serve(x).numpy().tolist(),
                          "default": list(archive.signatures["serving_default"](tf.constant(x)).values())[0].numpy().tolist(),
                          "signatures": sorted(archive.signatures), "vars": len(archive.my_vars),
                          "variables": len(archive.variables)}}))
        """,
    )
    expected = model(X, training=False).numpy()
    np.testing.assert_allclose(got["serve"], expected, rtol=1e-6)
    np.testing.assert_allclose(got["default"], expected, rtol=1e-6)
    assert got["signatures"] == ["call_training", "serve", "serving_default"]
    assert got["vars"] == 4 and got["variables"] == len(model.variables)  # weights + the dropout's seed
    reloaded = tf.saved_model.load(path)  # kept: its variables live as long as it does
    training = reloaded.call_training(X).numpy()
    assert not np.allclose(training, expected)  # dropout active in the training endpoint


def test_a_traced_tf_function_a_layer_and_lookup_tables(tmp_path):
    lookup = tfkit.layers.StringLookup(vocabulary=["a", "b", "c"])
    lookup(tf.constant(["a"]))  # built by a call, as Keras's track() requires
    archive = ExportArchive()
    archive.track_and_add_endpoint("lookup", lookup, input_signature=[tf.TensorSpec((None,), tf.string)])
    dense = tfkit.layers.Dense(2)
    dense.build((None, 3))
    function = tf.function(lambda x: dense(x))
    function(X)
    archive.track(dense)
    archive.add_endpoint("dense", function)  # already traced: no signature needed
    path = str(tmp_path / "archive")
    archive.write_out(path, verbose=False)
    reloaded = tf.saved_model.load(path)
    np.testing.assert_array_equal(reloaded.lookup(tf.constant(["b", "z", "a"])), [2, 0, 1])
    np.testing.assert_allclose(reloaded.dense(X), dense(X), rtol=1e-6)


def test_keras_errors(tmp_path):
    with pytest.raises(ValueError, match="Unsupported format"):
        ExportArchive(format="neptune_model")
    archive = ExportArchive(format="saved_model")
    with pytest.raises(ValueError, match="not yet been built"):
        archive.track(tfkit.layers.Dense(2))
    with pytest.raises(ValueError, match="Invalid resource type"):
        archive.track(object())
    with pytest.raises(ValueError, match="must provide an `input_signature`"):
        archive.add_endpoint("serve", lambda x: x)
    with pytest.raises(ValueError, match="has never been called"):
        archive.add_endpoint("serve", tf.function(lambda x: x))
    archive.add_endpoint("serve", lambda x: x + 1, input_signature=[tf.TensorSpec((None,), tf.float32)])
    with pytest.raises(ValueError, match="already taken"):
        archive.add_endpoint("serve", lambda x: x, input_signature=[tf.TensorSpec((None,), tf.float32)])
    with pytest.raises(ValueError, match="list/tuple/set"):
        archive.add_variable_collection("v", tf.Variable(1.0))
    with pytest.raises(ValueError, match="No endpoints"):
        ExportArchive().write_out(str(tmp_path / "nothing"))
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with pytest.raises(ValueError, match="notes.txt"):
        archive.write_out(str(tmp_path / "mine"), verbose=False)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"


def test_same_outputs_as_a_keras_archive(tmp_path):
    keras = pytest.importorskip("keras")
    theirs = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    mine = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    mine.set_weights(theirs.get_weights())
    for archive_class, model, name in ((keras.export.ExportArchive, theirs, "k"), (ExportArchive, mine, "t")):
        archive = archive_class()
        archive.track(model)
        archive.add_endpoint("serve", model.call, input_signature=[tf.TensorSpec((None, 3), tf.float32)])
        archive.write_out(str(tmp_path / name), verbose=False)
    k, t = tf.saved_model.load(str(tmp_path / "k")), tf.saved_model.load(str(tmp_path / "t"))
    np.testing.assert_allclose(t.serve(X), k.serve(X), rtol=1e-6)
    assert sorted(t.signatures) == sorted(k.signatures)
