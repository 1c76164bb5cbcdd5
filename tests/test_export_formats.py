"""model.export(path, format="onnx" | "tflite"): files that agree with predict, or errors that name the layer."""

import importlib.util
import os
import pathlib
import sys
import warnings

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.saving import export_check

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
import vae_mnist  # noqa: E402
from layer_catalog import CATALOG, layer_module  # noqa: E402
from long_checks import one_of_each_kind  # noqa: E402

FORMATS = ["onnx", "tflite"]

# (layer, format) -> words the refusal must contain. docs/guides/exporting_and_serving.md lists the same, with reasons.
UNSUPPORTED = {
    ("MaxPooling3D", "tflite"): "select_tf_ops=True",
    ("AveragePooling3D", "tflite"): "select_tf_ops=True",
    **{(name, "tflite"): "unroll=True" for name in ["SimpleRNN", "LSTM", "GRU", "RNN", "Bidirectional"]},
    ("LSTM", "onnx"): "unroll=True",  # return_sequences=False: tf2onnx's Loop is rejected by onnxruntime
    ("GRU", "onnx"): "unroll=True",
    **{(name, "tflite"): "unroll=True" for name in ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]},
    ("ConvLSTM2D", "onnx"): "unroll=True",  # the catalog's ConvLSTM2D/3D have return_sequences=False, as LSTM
    ("ConvLSTM3D", "onnx"): "unroll=True",
    ("Hashing", "onnx"): "StringToHashBucketFast",
    ("Hashing", "tflite"): "StringToHashBucketFast",
    ("HashedCrossing", "onnx"): "SparseCross",
    ("HashedCrossing", "tflite"): "SparseCross",
    ("MelSpectrogram", "onnx"): "RFFT",
    ("Discretization", "onnx"): "Bucketize",
    ("IntegerLookup", "onnx"): "LookupTableFindV2",
    ("IntegerLookup", "tflite"): "LookupTableFindV2",
    ("StringLookup", "onnx"): "LookupTableFindV2",
    ("TextVectorization", "onnx"): "StringSplitV2",
    ("TextVectorization", "tflite"): "StringSplitV2",
}


def needs(format):
    if format == "onnx":
        pytest.importorskip("tf2onnx")
        pytest.importorskip("onnxruntime")


def run_file(path, inputs):
    """Run an exported file with its own runtime, not through tfkit: {output name: array}.

    ``inputs`` is {input name: array}, or one array for a file with one input.
    """
    if path.endswith(".onnx"):
        import onnxruntime

        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        if not isinstance(inputs, dict):
            inputs = {session.get_inputs()[0].name: inputs}
        names = [o.name for o in session.get_outputs()]
        return dict(zip(names, session.run(names, inputs)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        interpreter = tf.lite.Interpreter(model_path=path)
    runner = interpreter.get_signature_runner()
    if not isinstance(inputs, dict):
        inputs = {next(iter(runner.get_input_details())): inputs}
    return runner(**inputs)


def mnist_model():
    """The model of the README's example (and of docs/index.md)."""
    model = tfkit.Sequential([tfkit.Input((784,)), tfkit.layers.Dense(64, activation="relu"), tfkit.layers.Dense(10)])
    model.compile("adam", tfkit.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def small_vae():
    vae = vae_mnist.VariationalAutoEncoder(784, 16, 4)
    vae(np.zeros((1, 784), "float32"))
    return vae


@pytest.mark.parametrize("format", FORMATS)
def test_readme_mnist_model_agrees_with_predict_at_any_batch_size(tmp_path, format):
    needs(format)
    model = mnist_model()
    path = model.export(str(tmp_path / f"mnist.{format}"), format=format, verbose=False)
    assert path == str(tmp_path / f"mnist.{format}") and os.path.isfile(path)
    for batch in (1, 3):  # exported once, dynamic batch
        x = np.random.RandomState(batch).rand(batch, 784).astype("float32")
        (answer,) = run_file(path, x).values()
        np.testing.assert_allclose(answer, model.predict(x, verbose=0), rtol=1e-4, atol=1e-5)
    assert sorted(os.listdir(tmp_path)) == [f"mnist.{format}"]


@pytest.mark.parametrize("format", FORMATS)
def test_vae_with_dynamic_batch_is_refused_naming_the_sampling_layer_and_the_options(tmp_path, format, capfd):
    needs(format)
    vae = small_vae()
    capfd.readouterr()
    with pytest.raises(ValueError) as info:
        vae.export(str(tmp_path / f"vae.{format}"), format=format, verbose=False)
    message = str(info.value)
    assert f"format='{format}'" in message and "autoencoder/encoder/sampling" in message
    assert "StatelessRandomNormalV2" in message and "fixed batch size" in message
    if format == "tflite":
        assert "select_tf_ops=True" in message and "SELECT_TF_OPS" in message
        # a failed conversion still shows what the converter printed (its native stderr, held while it ran)
        assert "error: 'tf.StatelessRandomNormalV2' op is neither a custom op nor a flex op" in capfd.readouterr().err
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("format", FORMATS)
def test_vae_exports_with_a_fixed_batch_size_drawing_what_predict_draws(tmp_path, format, capfd):
    needs(format)
    vae = small_vae()
    state = vae.encoder.sampling.seed_generator.state.numpy()
    capfd.readouterr()
    path = vae.export(
        str(tmp_path / f"vae.{format}"),
        format=format,
        verbose=False,
        input_signature=[tf.TensorSpec((2, 784), tf.float32, name="pixels")],
    )
    printed = capfd.readouterr().err
    if format == "tflite":  # the first try's "op is neither a custom op nor a flex op" lines stay unprinted
        assert "error:" not in printed, printed[:2000]
    np.testing.assert_array_equal(vae.encoder.sampling.seed_generator.state.numpy(), state)  # export draws nothing
    x = np.random.RandomState(5).rand(2, 784).astype("float32")
    (answer,) = run_file(path, {"pixels": x}).values()
    expected = vae.predict(x, verbose=0)  # from the same generator state
    np.testing.assert_allclose(answer, expected, rtol=1e-4, atol=1e-5)
    assert not np.allclose(answer, vae.predict(x, verbose=0), atol=1e-3)  # it does draw: next call differs


def test_bad_format_names_the_valid_ones(tmp_path):
    with pytest.raises(ValueError, match=r"format='keras'.*\['tf_saved_model', 'onnx', 'tflite'\]"):
        mnist_model().export(str(tmp_path / "m"), format="keras")
    with pytest.raises(TypeError, match="opset_version"):
        mnist_model().export(str(tmp_path / "m.tflite"), format="tflite", opset_version=13)
    assert os.listdir(tmp_path) == []


def test_saved_model_and_litert_names_still_work(tmp_path):
    model = mnist_model()
    folder = model.export(str(tmp_path / "sm"), format="tf_saved_model", verbose=False)
    assert os.path.isfile(os.path.join(folder, "saved_model.pb"))
    assert os.path.isfile(model.export(str(tmp_path / "m.tflite"), format="litert", verbose=False))


def test_a_failed_export_keeps_the_previous_file_and_leaves_nothing_beside_it(tmp_path, monkeypatch):
    from tfkit.saving import export_tflite

    target = tmp_path / "model.tflite"
    target.write_bytes(b"previous export")
    with pytest.raises(ValueError, match="sampling"):  # the converter refuses
        small_vae().export(str(target), format="tflite", verbose=False)
    real_run = export_tflite.run
    shifted = lambda path, inputs: {k: v + 1e-3 for k, v in real_run(path, inputs).items()}  # noqa: E731
    monkeypatch.setattr(export_tflite, "run", shifted)
    with pytest.raises(ValueError, match=r"tflite export disagrees with predict on output 'dense_\d+'"):
        mnist_model().export(str(target), format="tflite", verbose=False)  # the check refuses after writing
    assert target.read_bytes() == b"previous export"
    assert os.listdir(tmp_path) == ["model.tflite"]


def test_saved_model_checked_against_predict_on_request_before_it_replaces_the_folder(tmp_path, monkeypatch):
    vae = small_vae()
    folder = vae.export(str(tmp_path / "vae"), verify=True, verbose=False)  # draws, from predict's state
    monkeypatch.setattr(export_check, "run_saved_model", lambda path, inputs: {"output_0": np.zeros((2, 784))})
    with pytest.raises(ValueError, match="tf_saved_model export disagrees with predict"):
        vae.export(folder, verify=True, verbose=False)
    assert tf.saved_model.load(folder).signatures["serving_default"] is not None
    assert os.listdir(tmp_path) == ["vae"]


def test_select_tf_ops_writes_a_file_this_interpreter_cannot_check(tmp_path):
    x = tfkit.Input((2, 2, 2, 1))
    model = tfkit.Model(x, layers.MaxPooling3D(2)(x))
    with pytest.raises(ValueError, match="Flex delegate.*verify=False"):
        model.export(str(tmp_path / "pool.tflite"), format="tflite", select_tf_ops=True, verbose=False)
    assert os.listdir(tmp_path) == []
    model.export(str(tmp_path / "pool.tflite"), format="tflite", select_tf_ops=True, verify=False, verbose=False)
    assert (tmp_path / "pool.tflite").stat().st_size > 0


def test_recurrent_layers_convert_to_tflite_at_a_fixed_batch_size(tmp_path):
    x = tfkit.Input((5, 2), name="steps")
    model = tfkit.Model(x, layers.LSTM(3)(x))
    model.export(
        str(tmp_path / "lstm.tflite"),
        format="tflite",
        verbose=False,
        input_signature=[tf.TensorSpec((4, 5, 2), tf.float32, name="steps")],
    )


# One layer of each module, and every layer with a refusal, by default; every layer with TFKIT_LONG_TESTS=1.
SWEEP = one_of_each_kind(
    sorted(CATALOG), layer_module, "a layer whose module another layer exports", keep={name for name, _ in UNSUPPORTED}
)


@pytest.mark.parametrize("name", SWEEP)
def test_every_built_in_layer_exports_or_is_refused_by_name(tmp_path, name):
    """Each catalog model agrees with predict on a seeded batch of 2, or the error names its layer and the way out."""
    model = CATALOG[name]()
    layer = model.layers[-1].name
    for format in FORMATS if importlib.util.find_spec("onnxruntime") else ["tflite"]:
        path = str(tmp_path / f"model.{format}")
        if (name, format) in UNSUPPORTED:
            with pytest.raises(ValueError) as info:
                model.export(path, format=format, verbose=False)
            assert UNSUPPORTED[name, format] in str(info.value) and layer in str(info.value), format
            assert not os.path.exists(path)
        else:
            model.export(path, format=format, verbose=False)  # verify=True: compared with predict inside
            assert os.path.getsize(path) > 0
    assert sorted(os.listdir(tmp_path)) == sorted(
        f"model.{f}" for f in FORMATS if os.path.exists(tmp_path / f"model.{f}")
    )


def test_seeded_batch_follows_the_input_signature():
    specs = {"a": tf.TensorSpec((None, 3), tf.float32, name="a"), "b": tf.TensorSpec((5, None), tf.int32, name="b")}
    batch = export_check.sample_batch(specs, batch_size=2)
    assert batch["a"].shape == (2, 3) and batch["b"].shape == (5, 4) and batch["b"].dtype == np.int32
    np.testing.assert_array_equal(export_check.sample_batch(specs)["a"], batch["a"])
