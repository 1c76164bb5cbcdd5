"""tfkit.saving.KerasFileEditor: Keras 3's editor on tfkit's guarded reader, checked by loading the edited
files in Keras and in tfkit."""

import os

import numpy as np
import pytest

import tfkit
from tfkit.saving import KerasFileEditor

keras = pytest.importorskip("keras")


def _keras_model(units=2):
    return keras.Sequential(
        [keras.Input((3,)), keras.layers.Dense(4, name="hidden"), keras.layers.Dense(units, name="head")]
    )


@pytest.fixture()
def weights_file(tmp_path):
    model = _keras_model()
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    return model, path


def test_reads_keras_files_and_compares_with_a_tfkit_model(weights_file, tmp_path, capsys):
    model, path = weights_file
    editor = KerasFileEditor(path)
    np.testing.assert_array_equal(editor.weights_dict["layers"]["dense"]["0"], model.layers[0].kernel.numpy())
    mine = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(4), tfkit.layers.Dense(2)])
    assert editor.compare(mine) == {"status": "success", "error_count": 0, "match_count": 4}
    wider = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(4), tfkit.layers.Dense(5)])
    result = editor.compare(wider)
    assert result["status"] == "error" and result["error_count"] == 2
    assert "shape mismatch for /layers/dense_1/0" in capsys.readouterr().out
    archive = str(tmp_path / "m.keras")
    model.save(archive)
    from_archive = KerasFileEditor(archive)
    assert from_archive.config["class_name"] == "Sequential" and "keras_version" in from_archive.metadata
    editor.summary()
    assert "dense_1" in capsys.readouterr().out


def test_edits_load_in_keras_and_tfkit(weights_file, tmp_path):
    model, path = weights_file
    editor = KerasFileEditor(path)
    new_head = np.full((4, 5), 0.5, "float32"), np.arange(5, dtype="float32")
    editor.delete_object("layers/dense_1")
    editor.add_object("layers/dense_1", weights={"0": new_head[0], "1": new_head[1]})
    out = str(tmp_path / "edited.weights.h5")
    editor.save(out)
    theirs = _keras_model(units=5)
    theirs.load_weights(out)
    np.testing.assert_array_equal(theirs.layers[1].kernel.numpy(), new_head[0])
    np.testing.assert_array_equal(theirs.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())
    mine = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(4), tfkit.layers.Dense(5)])
    mine.load_weights(out)
    np.testing.assert_array_equal(mine.layers[-1].bias.numpy(), new_head[1])
    assert os.path.exists(path) and KerasFileEditor(path).weights_dict["layers"]["dense_1"]["0"].shape == (4, 2)


def test_rename_delete_weight_and_errors(weights_file, tmp_path):
    _, path = weights_file
    editor = KerasFileEditor(path)
    editor.rename_object("dense_1", "output_dense")
    assert "output_dense" in editor.weights_dict["layers"] and "dense_1" not in editor.weights_dict["layers"]
    editor.delete_weight("output_dense", "1")
    assert list(editor.weights_dict["layers"]["output_dense"]) == ["0"]
    editor.add_weights("output_dense", {"1": np.zeros(2, "float32")})
    assert list(editor.weights_dict["layers"]["output_dense"]) == ["0", "1"]
    with pytest.raises(ValueError, match="does not appear"):
        editor.delete_object("nope")
    with pytest.raises(ValueError, match="not found in model"):
        editor.delete_object("layers/nope")
    with pytest.raises(ValueError, match="leaf name"):
        editor.rename_object("dense", "layers/x")
    with pytest.raises(ValueError, match="Weight 7 not found"):
        editor.delete_weight("dense", "7")
    with pytest.raises(ValueError, match="should be a dict"):
        editor.add_object("layers/x", [1, 2])
    with pytest.raises(ValueError, match=".weights.h5"):
        editor.save(str(tmp_path / "x.h5"))
    with pytest.raises(ValueError, match="expected a `.keras` `.weights.h5`"):
        KerasFileEditor(str(tmp_path / "m.h5"))


def test_a_damaged_file_is_a_value_error(tmp_path):
    broken = tmp_path / "broken.weights.h5"
    broken.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\x00" * 100)
    with pytest.raises(ValueError, match="broken.weights.h5"):
        KerasFileEditor(str(broken))
