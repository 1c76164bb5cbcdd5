"""SavedModel export for TensorFlow Serving: names, dtypes, layout, and the same numbers everywhere."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
import time_limits

import tfkit
from tfkit import layers

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
import vae_mnist  # noqa: E402

SITE_DIRS = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
WITHOUT_TFKIT_PRELUDE = f"""
import sys
sys.path[:0] = {SITE_DIRS!r}   # installed packages, without their .pth hooks (tfkit's editable install is one)

class NoTfkit:                  # and should tfkit be installed for real, refuse it anyway
    def find_spec(self, name, path=None, target=None):
        if name == "tfkit" or name.startswith("tfkit."):
            raise ImportError("tfkit is not available in this process")

sys.meta_path.insert(0, NoTfkit())
try:
    import tfkit
except ImportError:
    pass
else:
    raise SystemExit("tfkit is importable here; the test would prove nothing")
"""


def run_without_tfkit(code, *args, timeout=180):
    """Run ``code`` in a fresh interpreter (-I -S: no site hooks, no cwd on the path) where tfkit cannot be imported."""
    env = {
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/"),
    }
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", WITHOUT_TFKIT_PRELUDE + code, *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=time_limits.seconds(timeout),
        cwd="/",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def functional_model():
    features = tfkit.Input((6,), name="features")
    hidden = layers.Dense(8, activation="relu", name="hidden")(features)
    return tfkit.Model(features, layers.Dense(3, name="scores")(hidden), name="scorer")


def signature(path):
    return tf.saved_model.load(path).signatures["serving_default"]


X = np.random.RandomState(0).normal(size=(5, 6)).astype("float32")


def test_functional_export_names_inputs_and_outputs_after_the_model(tmp_path):
    model = functional_model()
    path = model.export(str(tmp_path / "scorer"))
    serve = signature(path)
    _, inputs = serve.structured_input_signature
    assert inputs == {"features": tf.TensorSpec((None, 6), tf.float32, name="features")}
    assert set(serve.structured_outputs) == {"scores"}
    assert serve.structured_outputs["scores"].shape.as_list() == [None, 3]
    np.testing.assert_allclose(serve(features=tf.constant(X))["scores"].numpy(), model.predict(X, verbose=0), rtol=1e-6)


def test_multi_input_multi_output_keeps_dtypes_and_returns_a_dict(tmp_path):
    tokens = tfkit.Input((4,), dtype="int32", name="tokens")
    extra = tfkit.Input((2,), name="extra")
    embedded = layers.Flatten()(layers.Embedding(10, 3)(tokens))
    joined = layers.Concatenate()([embedded, extra])
    model = tfkit.Model(
        {"extra": extra, "tokens": tokens}, {"logits": layers.Dense(5)(joined), "value": layers.Dense(1)(joined)}
    )
    path = tfkit.saving.export_saved_model(model, str(tmp_path / "multi"))
    serve = signature(path)
    _, inputs = serve.structured_input_signature
    assert inputs["tokens"].dtype == tf.int32 and inputs["extra"].dtype == tf.float32
    assert inputs["tokens"].shape.as_list() == [None, 4]
    feed = {"tokens": np.array([[1, 2, 3, 4], [0, 0, 9, 9]], "int32"), "extra": np.ones((2, 2), "float32")}
    got = serve(**{k: tf.constant(v) for k, v in feed.items()})
    expected = model.predict(feed, verbose=0)
    assert set(got) == {"logits", "value"}
    for key in got:
        np.testing.assert_allclose(got[key].numpy(), expected[key], rtol=1e-6)


def test_subclassed_model_uses_inputs_and_output_n(tmp_path):
    vae = vae_mnist.VariationalAutoEncoder(6, 4, 2)
    vae(X)
    serve = signature(vae.export(str(tmp_path / "vae")))
    _, inputs = serve.structured_input_signature
    assert list(inputs) == ["inputs"] and inputs["inputs"].shape.as_list() == [None, 6]
    assert list(serve.structured_outputs) == ["output_0"]


def test_versioned_layout_for_tensorflow_serving(tmp_path):
    model = functional_model()
    base = tmp_path / "models" / "scorer"
    assert tfkit.saving.export_saved_model(model, str(base), version=1) == str(base / "1")
    assert (base / "1" / "saved_model.pb").exists()
    tfkit.saving.export_saved_model(model, str(base), version=2)
    tfkit.saving.export_saved_model(model, str(base), version=2)  # replacing a version in place
    assert sorted(os.listdir(base)) == ["1", "2"]  # no temporary folders left
    with pytest.raises(ValueError, match="overwrite=False"):
        tfkit.saving.export_saved_model(model, str(base), version=2, overwrite=False)
    with pytest.raises(ValueError, match="positive int"):
        tfkit.saving.export_saved_model(model, str(base), version=0)


def test_unbuilt_subclassed_model_needs_a_call_or_a_signature(tmp_path):
    vae = vae_mnist.VariationalAutoEncoder(6, 4, 2)
    with pytest.raises(ValueError, match="input_signature"):
        vae.export(str(tmp_path / "nope"))
    path = vae.export(str(tmp_path / "vae"), input_signature=[tf.TensorSpec((None, 6), tf.float32, name="pixels")])
    _, inputs = signature(path).structured_input_signature
    assert list(inputs) == ["pixels"]


def test_random_layers_advance_or_stay_frozen(tmp_path):
    vae = vae_mnist.VariationalAutoEncoder(6, 4, 2)
    vae(X)
    state = vae.encoder.sampling.seed_generator.state.numpy().copy()
    advancing = signature(vae.export(str(tmp_path / "advance")))
    frozen = signature(vae.export(str(tmp_path / "frozen"), freeze_random_state=True))
    np.testing.assert_array_equal(vae.encoder.sampling.seed_generator.state.numpy(), state)  # export draws nothing
    expected = [vae.predict(X, batch_size=5, verbose=0) for _ in range(2)]
    first, second = (advancing(inputs=tf.constant(X))["output_0"].numpy() for _ in range(2))
    np.testing.assert_allclose(first, expected[0], rtol=1e-6)
    np.testing.assert_allclose(second, expected[1], rtol=1e-6)
    assert not np.allclose(first, second)
    np.testing.assert_allclose(frozen(inputs=tf.constant(X))["output_0"].numpy(), expected[0], rtol=1e-6)
    np.testing.assert_allclose(frozen(inputs=tf.constant(X))["output_0"].numpy(), expected[0], rtol=1e-6)


def test_jit_compiled_export_gives_the_same_numbers(tmp_path):
    model = functional_model()
    serve = signature(model.export(str(tmp_path / "xla"), jit_compile=True))
    np.testing.assert_allclose(
        serve(features=tf.constant(X))["scores"].numpy(), model.predict(X, verbose=0), rtol=1e-5, atol=1e-6
    )


def test_extra_signatures_are_saved_beside_serving_default(tmp_path):
    model = functional_model()

    @tf.function(input_signature=[tf.TensorSpec((None, 6), tf.float32, name="features")])
    def probabilities(features):
        return {"probabilities": tf.nn.softmax(model(features, training=False))}

    path = model.export(str(tmp_path / "two"), signatures={"probabilities": probabilities})
    loaded = tf.saved_model.load(path)
    assert set(loaded.signatures) == {"serving_default", "probabilities"}
    got = loaded.signatures["probabilities"](features=tf.constant(X))["probabilities"].numpy()
    np.testing.assert_allclose(got.sum(axis=1), np.ones(5), rtol=1e-5)


@pytest.mark.slow
def test_vae_export_loads_without_tfkit_and_matches_predict(tmp_path):
    vae = vae_mnist.VariationalAutoEncoder(20, 8, 4)
    vae.compile(tfkit.optimizers.Adam(1e-3), loss=tfkit.losses.MeanSquaredError())
    data = np.random.RandomState(1).uniform(size=(32, 20)).astype("float32")
    vae.fit(data, data, epochs=1, batch_size=8, verbose=0)
    path = tfkit.saving.export_saved_model(vae, str(tmp_path / "models" / "vae"), version=1)
    expected = np.stack([vae.predict(data[:6], batch_size=6, verbose=0) for _ in range(2)])
    np.save(tmp_path / "x.npy", data[:6])
    run_without_tfkit(
        """
import numpy as np, tensorflow as tf
serve = tf.saved_model.load(sys.argv[1]).signatures["serving_default"]
x = tf.constant(np.load(sys.argv[2]))
np.save(sys.argv[3], np.stack([serve(inputs=x)["output_0"].numpy() for _ in range(2)]))
assert "tfkit" not in sys.modules
""",
        path,
        tmp_path / "x.npy",
        tmp_path / "served.npy",
    )
    np.testing.assert_allclose(np.load(tmp_path / "served.npy"), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.slow
def test_saved_model_cli_run_gives_the_same_numbers(tmp_path):
    cli = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
    if not os.path.exists(cli):
        pytest.skip("saved_model_cli is not installed next to this Python")
    model = functional_model()
    path = model.export(str(tmp_path / "scorer"))
    np.save(tmp_path / "x.npy", X)
    show = subprocess.run(
        [cli, "show", "--dir", path, "--tag_set", "serve", "--signature_def", "serving_default"],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(180),
    )
    assert "inputs['features']" in show.stdout and "outputs['scores']" in show.stdout, show.stdout + show.stderr
    run = subprocess.run(
        [
            cli,
            "run",
            "--dir",
            path,
            "--tag_set",
            "serve",
            "--signature_def",
            "serving_default",
            "--inputs",
            f"features={tmp_path / 'x.npy'}",
            "--outdir",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(180),
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
    )
    assert run.returncode == 0, run.stderr[-2000:]
    np.testing.assert_allclose(np.load(tmp_path / "out" / "scores.npy"), model.predict(X, verbose=0), rtol=1e-6)


@pytest.mark.slow
def test_tf2onnx_and_onnxruntime_give_the_same_numbers(tmp_path):
    pytest.importorskip("tf2onnx")
    ort = pytest.importorskip("onnxruntime")
    vae = vae_mnist.VariationalAutoEncoder(20, 8, 4)
    data = np.random.RandomState(2).uniform(size=(4, 20)).astype("float32")
    vae(data)
    # ONNX has no mutable state and no TensorFlow random kernels: freeze the generator and the batch
    # size, so the converter folds the VAE's noise into constants computed by TensorFlow itself.
    path = vae.export(
        str(tmp_path / "vae"),
        freeze_random_state=True,
        input_signature=[tf.TensorSpec((4, 20), tf.float32, name="inputs")],
    )
    expected = vae.predict(data, batch_size=4, verbose=0)
    onnx_file = tmp_path / "vae.onnx"
    convert = subprocess.run(
        [sys.executable, "-m", "tf2onnx.convert", "--saved-model", path, "--output", str(onnx_file)],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(300),
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
    )
    assert convert.returncode == 0, convert.stderr[-3000:]
    session = ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["inputs"]
    got = session.run(["output_0"], {"inputs": data})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_warmup_requests_are_written_when_tensorflow_serving_api_is_installed(tmp_path):
    apis = pytest.importorskip("tensorflow_serving.apis.prediction_log_pb2")
    model = functional_model()
    path = tfkit.saving.export_saved_model(model, str(tmp_path / "scorer"), version=3, warmup_inputs=X[:2])
    records = list(tf.data.TFRecordDataset(os.path.join(path, "assets.extra", "tf_serving_warmup_requests")))
    assert len(records) == 1
    log = apis.PredictionLog.FromString(records[0].numpy())
    request = log.predict_log.request
    assert request.model_spec.signature_name == "serving_default"
    np.testing.assert_array_equal(tf.make_ndarray(request.inputs["features"]), X[:2])
    assert tf.saved_model.load(path).signatures["serving_default"] is not None


def test_warmup_has_one_request_per_signature(tmp_path):
    apis = pytest.importorskip("tensorflow_serving.apis.prediction_log_pb2")
    model = functional_model()

    @tf.function(input_signature=[tf.TensorSpec((None, X.shape[1]), tf.float32, name="rows")])
    def doubled(rows):
        return {"twice": 2.0 * model(rows)}

    path = tfkit.saving.export_saved_model(
        model, str(tmp_path / "scorer"), version=1, warmup_inputs=X[:2], signatures={"doubled": doubled}
    )
    records = list(tf.data.TFRecordDataset(os.path.join(path, "assets.extra", "tf_serving_warmup_requests")))
    requests = [apis.PredictionLog.FromString(r.numpy()).predict_log.request for r in records]
    assert [r.model_spec.signature_name for r in requests] == ["serving_default", "doubled"]
    extra = tf.make_ndarray(requests[1].inputs["rows"])
    assert extra.shape == (2, X.shape[1]) and not extra.any()  # zeros shaped by its own spec
    served = tf.saved_model.load(path)
    for request in requests:  # each record runs on its signature
        function = served.signatures[request.model_spec.signature_name]
        function(**{k: tf.constant(tf.make_ndarray(v)) for k, v in request.inputs.items()})


def test_warmup_without_tensorflow_serving_api_warns_and_still_exports(tmp_path, monkeypatch):
    for name in ["tensorflow_serving", *[m for m in sys.modules if m.startswith("tensorflow_serving.")]]:
        monkeypatch.setitem(sys.modules, name, None)  # as if the package were not installed
    model = functional_model()
    with pytest.warns(UserWarning, match="tensorflow-serving-api"):
        path = model.export(str(tmp_path / "scorer"), warmup_inputs=X[:2])
    assert (pathlib.Path(path) / "saved_model.pb").exists()
    assert not (pathlib.Path(path) / "assets.extra").exists()


def test_export_holds_only_plain_tensorflow_objects(tmp_path):
    path = functional_model().export(str(tmp_path / "scorer"))
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel.FromString((pathlib.Path(path) / "saved_model.pb").read_bytes())
    identifiers = {
        node.user_object.identifier
        for node in proto.meta_graphs[0].object_graph_def.nodes
        if node.HasField("user_object")
    }
    assert identifiers <= {"_generic_user_object", "trackable_list_wrapper", "trackable_dict_wrapper", "signature_map"}
    assert "tfkit" not in json.dumps(sorted(identifiers))


def test_the_serve_endpoint_returns_the_models_own_output_structure(tmp_path):
    single = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(3)])
    x = np.random.default_rng(0).random((5, 4)).astype("float32")
    reloaded = tf.saved_model.load(single.export(str(tmp_path / "single"), verbose=False))
    out = reloaded.serve(tf.constant(x))  # Keras 3: a tensor for one output
    assert isinstance(out, tf.Tensor)
    np.testing.assert_allclose(out.numpy(), single.predict(x, verbose=0), rtol=1e-6)
    a, b = tfkit.Input((4,), name="a"), tfkit.Input((2,), name="b")
    two = tfkit.Model([a, b], [layers.Dense(1, name="left")(a), layers.Dense(2, name="right")(b)])
    reloaded = tf.saved_model.load(two.export(str(tmp_path / "two"), verbose=False))
    outs = reloaded.serve([tf.constant(x), tf.constant(x[:, :2])])
    assert isinstance(outs, list) and [o.shape[-1] for o in outs] == [1, 2]
    assert set(reloaded.signatures["serving_default"].structured_outputs) == {"left", "right"}
