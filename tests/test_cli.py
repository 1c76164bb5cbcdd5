"""The ``tfkit`` command: inspect and export, with exit codes 0 (ok), 1 (bad file), 2 (bad usage)."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import cli, layers

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "vae_mnist.py"


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    features = tfkit.Input((6,), name="features")
    hidden = layers.Dense(8, activation="relu", name="hidden")(features)
    model = tfkit.Model(features, layers.Dense(3, name="scores")(hidden), name="scorer")
    model.compile("adam", "mse")
    model.train_on_batch(np.ones((4, 6), "float32"), np.zeros((4, 3), "float32"))
    path = tmp_path_factory.mktemp("cli") / "scorer.h5"
    model.save(str(path))
    return path


def test_inspect_h5_prints_version_class_and_weight_paths(model_file, capsys):
    assert cli.main(["inspect", str(model_file)]) == 0
    out = capsys.readouterr().out
    assert "format: tfkit, format_version 2, kind model" in out
    assert "model class: Functional (name 'scorer'), 3 layers" in out
    assert "input shape: [None, 6]" in out
    assert ["hidden", "Dense"] in [line.split() for line in out.splitlines()]
    assert "compiled: optimizer=Adam, loss=mse" in out
    assert "weights (4 arrays, 83 values):" in out
    lines = [line.split() for line in out.splitlines()]
    assert ["hidden/kernel", "(6,", "8)", "float32"] in lines
    assert ["scores/bias", "(3,)", "float32"] in lines
    assert "optimizer state: 10 variables, iterations=1" in out


def test_inspect_weights_file(tmp_path, capsys):
    model = tfkit.Sequential([tfkit.Input((2,)), layers.Dense(1, name="one")])
    model.save_weights(str(tmp_path / "w.h5"))                # tfkit's HDF5 weights file (.weights.h5: Keras's)
    assert cli.main(["inspect", str(tmp_path / "w.h5")]) == 0
    out = capsys.readouterr().out
    assert "kind weights" in out and "one/kernel" in out


def test_export_then_inspect_the_saved_model(model_file, tmp_path, capsys):
    assert cli.main(["export", str(model_file), str(tmp_path / "models" / "scorer"), "--version", "7"]) == 0
    assert (tmp_path / "models" / "scorer" / "7" / "saved_model.pb").exists()
    capsys.readouterr()
    assert cli.main(["inspect", str(tmp_path / "models" / "scorer" / "7")]) == 0
    out = capsys.readouterr().out
    assert "signature 'serving_default':" in out
    assert "input features: float32 (None, 6)" in out
    assert "output scores: float32 (None, 3)" in out
    model = tfkit.load_model(str(model_file))
    x = np.random.RandomState(0).normal(size=(2, 6)).astype("float32")
    served = tf.saved_model.load(str(tmp_path / "models" / "scorer" / "7")).signatures["serving_default"]
    np.testing.assert_allclose(served(features=tf.constant(x))["scores"].numpy(), model(x).numpy(), rtol=1e-6)


@pytest.mark.parametrize("argv", [[], ["inspect"], ["export", "only_one_arg.h5"], ["frobnicate", "x"],
                                  ["export", "a.h5", "out", "--version", "zero"]])
def test_usage_errors_exit_2(argv, capsys):
    assert cli.main(argv) == 2
    assert "usage: tfkit" in capsys.readouterr().err


def test_non_positive_version_is_a_usage_error(model_file, tmp_path, capsys):
    assert cli.main(["export", str(model_file), str(tmp_path / "out"), "--version", "0"]) == 2
    assert "--version must be a positive integer" in capsys.readouterr().err


def test_load_errors_exit_1_with_one_clear_line(tmp_path, capsys):
    bad = tmp_path / "bad.h5"
    bad.write_bytes(b"definitely not hdf5")
    assert cli.main(["inspect", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tfkit: error: ") and "not an HDF5 file" in err
    assert cli.main(["inspect", str(tmp_path / "missing.h5")]) == 1
    assert "No such file" in capsys.readouterr().err
    assert cli.main(["export", str(bad), str(tmp_path / "out")]) == 1
    assert not (tmp_path / "out").exists()


def test_export_of_custom_classes_needs_their_module(tmp_path, capsys):
    sys.path.insert(0, str(EXAMPLE.parent))
    import vae_mnist

    vae = vae_mnist.VariationalAutoEncoder(6, 4, 2)
    vae(np.ones((1, 6), "float32"))
    path = tmp_path / "vae.h5"
    vae.save(str(path))
    with pytest.MonkeyPatch.context() as patch:  # a process that never imported the example
        from tfkit.base import registry

        patch.setitem(sys.modules, "vae_mnist", vae_mnist)  # --import replaces it; put the original back after
        for name in [n for n in registry._CUSTOM if n.startswith("vae_mnist>")]:
            patch.delitem(registry._CUSTOM, name)
        assert cli.main(["export", str(path), str(tmp_path / "vae")]) == 1
        assert "--import" in capsys.readouterr().err
        assert cli.main(["export", str(path), str(tmp_path / "vae"), "--import", str(EXAMPLE)]) == 0
    assert (tmp_path / "vae" / "saved_model.pb").exists()


@pytest.mark.slow
def test_console_entry_point_runs_as_a_program(model_file):
    result = subprocess.run([sys.executable, "-m", "tfkit.cli", "inspect", str(model_file)], capture_output=True,
                            text=True, timeout=180, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "hidden/kernel" in result.stdout
    result = subprocess.run([sys.executable, "-m", "tfkit.cli", "inspect"], capture_output=True, text=True, timeout=180)
    assert result.returncode == 2
    result = subprocess.run([sys.executable, "-m", "tfkit_launcher", "inspect", str(model_file)], capture_output=True,
                            text=True, timeout=180, cwd=ROOT,
                            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "hidden/kernel" in result.stdout


ROOT = pathlib.Path(__file__).resolve().parents[1]
_EARLY = "import sys, tfkit_launcher; code = tfkit_launcher.main(sys.argv[1:]); print(code, 'tensorflow' in sys.modules)"


@pytest.mark.parametrize("argv", [["inspect", "missing.h5"], ["inspect", "."], ["export", "missing.h5", "out"],
                                  ["export", ".", "out"], ["convert", "missing.keras", "out.h5"]])
def test_a_bad_path_is_refused_before_tensorflow_loads(argv, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", _EARLY, *argv], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.split() == ["1", "False"], done.stderr[-2000:]    # exit code 1, TensorFlow never imported
    assert done.stderr.startswith("tfkit: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert argv[1] in done.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.h5").exists()


def test_the_console_command_enters_through_the_launcher():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["tfkit"] == "tfkit_launcher:main"
    assert "tfkit_launcher" in project["tool"]["setuptools"]["py-modules"]


SAMPLES = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "security-samples"
_DAMAGED = ["00_RuntimeError.h5", "04_KeyError.h5", "10_TypeError.h5"]
_RUN_CLI_ON_EACH = """
import contextlib, io, json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, 6 * 2**30))
from tfkit import cli
results = {}
for path in sys.argv[1:]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli.main(["inspect", path])
    results[path] = [code, err.getvalue()]
print(json.dumps(results))
"""


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="shared security samples not found")
def test_damaged_files_give_one_error_line_never_a_traceback():
    import json
    import subprocess

    paths = [str(SAMPLES / name) for name in _DAMAGED if (SAMPLES / name).is_file()]
    done = subprocess.run([sys.executable, "-c", _RUN_CLI_ON_EACH, *paths], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for path, (code, err) in results.items():
        assert code == 1, path
        assert err.startswith("tfkit: error: ") and err.count("\n") == 1 and "Traceback" not in err, (path, err)
