"""Exports of models with a variable-length axis: the check's sample length comes from the model.

A stack of strided Conv1D layers refuses the check's old fixed length of 4 ("Negative dimension
size caused by subtracting 7 from 4"); the export now checks at the first length the model builds
for (``export_check.sample_length``), keeps the length unknown in the signature, and only warns
when no tried length builds.
"""

import warnings

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.saving import export_check, export_tflite


def _conv_chain(depth: int = 2, kernel: int = 7) -> tfkit.Model:
    inputs = tfkit.Input((None, 1), name="frames")
    x = inputs
    for _ in range(depth):
        x = layers.Conv1D(2, kernel, strides=3)(x)
    return tfkit.Model(inputs, x)


def _frames(length: int, batch: int = 3) -> np.ndarray:
    return np.random.RandomState(length).normal(size=(batch, length, 1)).astype("float32")


def _not_compared(caught: list) -> list:
    return [w for w in caught if "not compared with predict" in str(w.message)]


def _assert_serves(path: str, model: tfkit.Model, lengths: tuple = (40, 100)) -> None:
    loaded = tf.saved_model.load(path)
    serve = loaded.signatures["serving_default"]
    spec = serve.structured_input_signature[1]["frames"]
    assert spec.shape.as_list() == [None, None, 1]  # the length stays unknown
    for length in lengths:
        x = _frames(length)
        want = model.predict(x, verbose=0)
        got = serve(frames=tf.constant(x))
        assert list(got) == [model.output_names[0]]
        np.testing.assert_allclose(got[model.output_names[0]].numpy(), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(loaded.serve(tf.constant(x)).numpy(), want, rtol=1e-5, atol=1e-6)


def test_strided_conv_chain_exports_and_serves_two_lengths(tmp_path):
    model = _conv_chain()
    path = str(tmp_path / "chain")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.export(path, verbose=False)  # verify=True: compared with predict
    assert not _not_compared(caught)
    _assert_serves(path, model)


def test_the_check_compares_at_a_length_the_model_takes(tmp_path, monkeypatch):
    model = _conv_chain()
    specs = model.default_input_signature()
    assert export_check.sample_length(model, specs) == (64, None)  # 4 and 16 are too short for two strided convs
    fed = []
    real = export_check.run_saved_model

    def wrong_by_one(path, inputs):
        fed.append({k: v.shape for k, v in inputs.items()})
        return {k: v + 1.0 for k, v in real(path, inputs).items()}

    monkeypatch.setattr(export_check, "run_saved_model", wrong_by_one)
    with pytest.raises(ValueError, match="disagrees with predict"):
        model.export(str(tmp_path / "bad"), verbose=False)
    assert fed == [{"frames": (2, 64, 1)}]
    assert not (tmp_path / "bad").exists()
    monkeypatch.setattr(export_check, "run_saved_model", real)
    model.export(str(tmp_path / "good"), verbose=False)
    assert (tmp_path / "good" / "saved_model.pb").exists()


def test_tflite_export_checks_and_runs_the_chain_at_two_lengths(tmp_path):
    model = _conv_chain()
    path = str(tmp_path / "chain.tflite")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.export(path, format="tflite", verbose=False)
    assert not _not_compared(caught)
    for length in (40, 100):
        x = _frames(length)
        got = export_tflite.run(path, {"frames": x})
        np.testing.assert_allclose(got[model.output_names[0]], model.predict(x, verbose=0), rtol=1e-4, atol=1e-5)


def test_a_model_that_takes_length_4_is_checked_at_4_as_before(tmp_path, monkeypatch):
    inputs = tfkit.Input((None, 1), name="frames")
    model = tfkit.Model(inputs, layers.Conv1D(2, 3)(inputs))
    fed = []
    real = export_check.run_saved_model

    def recording(path, feeds):
        fed.append({k: v.shape for k, v in feeds.items()})
        answers = real(path, feeds)
        want = model.predict(feeds["frames"], verbose=0)
        np.testing.assert_allclose(answers[model.output_names[0]], want, rtol=1e-5, atol=1e-6)
        return answers

    monkeypatch.setattr(export_check, "run_saved_model", recording)
    path = str(tmp_path / "short")
    model.export(path, verbose=False)
    assert fed == [{"frames": (2, 4, 1)}]
    _assert_serves(path, model)


def test_no_workable_sample_length_warns_naming_the_input_and_keeps_the_export(tmp_path, capsys):
    model = _conv_chain(depth=6)  # needs at least 2,185 steps: longer than every sample length tried
    path = str(tmp_path / "deep")
    with pytest.warns(UserWarning, match=r"not compared with predict.*'frames'.*\[4, 16, 64, 256\]"):
        model.export(path)
    printed = capsys.readouterr().out
    assert "Exported model" in printed and "agrees with predict" not in printed  # it was not compared
    _assert_serves(path, model, lengths=(2200, 3000))


def test_a_model_broken_at_every_length_still_fails_clearly(tmp_path):
    inputs = tfkit.Input((None, 1), name="frames")
    # log of a negative number: NaN at run time for any input, which check_numerics refuses
    broken = layers.Lambda(lambda t: tf.debugging.check_numerics(tf.math.log(-tf.abs(t) - 1.0), "always NaN"))
    model = tfkit.Model(inputs, broken(inputs))
    path = tmp_path / "broken"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(Exception, match="always NaN"):
            model.export(str(path), verbose=False)
    assert not _not_compared(caught)
    assert not path.exists()
