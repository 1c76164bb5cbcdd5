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
    model.save_weights(str(tmp_path / "w.h5"))  # tfkit's HDF5 weights file (.weights.h5: Keras's)
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


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["inspect"],
        ["export", "only_one_arg.h5"],
        ["frobnicate", "x"],
        ["export", "a.h5", "out", "--version", "zero"],
    ],
)
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
    result = subprocess.run(
        [sys.executable, "-m", "tfkit.cli", "inspect", str(model_file)],
        capture_output=True,
        text=True,
        timeout=180,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "hidden/kernel" in result.stdout
    result = subprocess.run([sys.executable, "-m", "tfkit.cli", "inspect"], capture_output=True, text=True, timeout=180)
    assert result.returncode == 2
    result = subprocess.run(
        [sys.executable, "-m", "tfkit_launcher", "inspect", str(model_file)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "hidden/kernel" in result.stdout


ROOT = pathlib.Path(__file__).resolve().parents[1]
_EARLY = (
    "import sys, tfkit_launcher; code = tfkit_launcher.main(sys.argv[1:]); print(code, 'tensorflow' in sys.modules)"
)


@pytest.mark.parametrize(
    "argv",
    [
        ["inspect", "missing.h5"],
        ["inspect", "."],
        ["export", "missing.h5", "out"],
        ["export", ".", "out"],
        ["convert", "missing.keras", "out.h5"],
    ],
)
def test_a_bad_path_is_refused_before_tensorflow_loads(argv, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-c", _EARLY, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["1", "False"], done.stderr[-2000:]  # exit code 1, TensorFlow never imported
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
    done = subprocess.run([sys.executable, "-c", _RUN_CLI_ON_EACH, *paths], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for path, (code, err) in results.items():
        assert code == 1, path
        assert err.startswith("tfkit: error: ") and err.count("\n") == 1 and "Traceback" not in err, (path, err)


# ------------------------------------------------------------------ a closed pipe, where the time goes

_LAUNCH = "import sys, tfkit_launcher; sys.exit(tfkit_launcher.main(sys.argv[1:]))"


def _launcher_env():
    return dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), TF_CPP_MIN_LOG_LEVEL="2"
    )


@pytest.mark.slow
def test_a_closed_pipe_ends_quietly_as_unix_tools_do(model_file):
    """``tfkit inspect m.h5 | head -1``: the reader is gone before tfkit writes; no error line, exit 141 (SIGPIPE)."""
    process = subprocess.Popen(
        [sys.executable, "-c", _LAUNCH, "inspect", str(model_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_launcher_env(),
    )
    process.stdout.close()  # the only reader of the pipe goes away before anything is written
    try:
        err = process.stderr.read()
        assert process.wait(timeout=180) == 141, err[-2000:]
    finally:
        process.kill()
    assert "Broken pipe" not in err and "Traceback" not in err and "tfkit: error" not in err, err[-2000:]
    assert "oneDNN" not in err and "absl" not in err  # TensorFlow's start-up lines are held back too


_TIMED = """
import sys, tfkit_launcher
code = tfkit_launcher.main(["inspect", sys.argv[1], "--verbose"])
print("exit", code, "keras_imported", "keras" in sys.modules)
print("block_left", "keras.src.optimizers" in sys.modules)   # a later `import keras` would work as usual
"""


@pytest.mark.slow
def test_verbose_says_where_the_time_went_and_keras_is_never_imported(model_file):
    done = subprocess.run(
        [sys.executable, "-c", _TIMED, str(model_file)],
        capture_output=True,
        text=True,
        timeout=180,
        env=_launcher_env(),
    )
    assert "exit 0 keras_imported False" in done.stdout, done.stderr[-2000:]
    assert "block_left False" in done.stdout
    assert "hidden/kernel" in done.stdout
    line = [line for line in done.stderr.splitlines() if line.startswith("tfkit: time: ")]
    assert len(line) == 1, done.stderr[-2000:]
    phases = dict(part.rsplit(" ", 2)[:2] for part in line[0][len("tfkit: time: ") :].split("; ")[0].split(", "))
    assert list(phases) == ["importing TensorFlow", "importing tfkit", f"reading {model_file}", "the rest"]
    total = float(line[0].rsplit("; ", 1)[1].split()[0])
    assert sum(float(seconds) for seconds in phases.values()) == pytest.approx(total, abs=0.02)


def test_verbose_in_process_times_the_command(model_file, capsys):
    assert cli.main(["inspect", str(model_file), "-v"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"tfkit: time: reading {model_file} ") and err.rstrip().endswith(" s in all"), err


# ------------------------------------------------------------------ Keras's files


@pytest.fixture(scope="module")
def keras_functional(tmp_path_factory):
    """A Keras 3 functional model whose automatic layer names are not its weight keys (dense_N vs dense, dense_1)."""
    keras = pytest.importorskip("keras")
    keras.layers.Dense(1, name=None)  # one automatic name taken first, so the model's names start at dense_1+
    inputs = keras.Input((5,))
    hidden = keras.layers.Dense(4, activation="relu")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(2)(hidden))
    folder = tmp_path_factory.mktemp("keras_files")
    model.save(folder / "functional.keras")
    model.save_weights(folder / "functional.weights.h5")
    return model, folder


def _layer_rows(out):
    """``{layer name: weight key}`` from inspect's layers table (a row's key is its name unless it says otherwise)."""
    lines = out.splitlines()
    start = lines.index("layers:") + 1
    rows = {}
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        parts = line.split()
        rows[parts[0]] = parts[-1].rstrip("/") if "weights under" in line else parts[0]
    return rows


def test_inspect_a_keras_archive_maps_each_layer_to_its_weights(keras_functional, capsys):
    import zipfile

    import h5py

    model, folder = keras_functional
    assert cli.main(["inspect", str(folder / "functional.keras")]) == 0
    out = capsys.readouterr().out
    assert "format: Keras 3 archive (.keras), written by Keras" in out
    assert "checksums: none (Keras stores none)" in out
    rows = _layer_rows(out)
    dense = [layer for layer in model.layers if layer.weights]
    assert sorted(rows[layer.name] for layer in dense) == ["layers/dense", "layers/dense_1"]
    with zipfile.ZipFile(folder / "functional.keras") as archive:
        archive.extract("model.weights.h5", folder)
    with h5py.File(folder / "model.weights.h5", "r") as f:  # the file itself is the reference
        for layer in dense:
            np.testing.assert_array_equal(f[rows[layer.name]]["vars"]["0"][()], layer.kernel.numpy())


def test_inspect_a_keras_weights_file(keras_functional, capsys):
    _, folder = keras_functional
    assert cli.main(["inspect", str(folder / "functional.weights.h5")]) == 0
    out = capsys.readouterr().out
    assert "format: Keras 3 weights file (.weights.h5), written by Keras" in out
    assert ["layers/dense/vars/0", "(5,", "4)", "float32"] in [line.split() for line in out.splitlines()]


def test_a_converted_file_shows_which_weights_each_layer_holds(keras_functional, tmp_path, capsys):
    import h5py

    model, folder = keras_functional
    target = tmp_path / "converted.h5"
    assert cli.main(["convert", str(folder / "functional.keras"), str(target)]) == 0
    capsys.readouterr()
    assert cli.main(["inspect", str(target)]) == 0
    rows = _layer_rows(capsys.readouterr().out)
    loaded = tfkit.load_model(str(target))
    with h5py.File(target, "r") as f:
        for layer in [layer for layer in model.layers if layer.weights]:
            stored = f["weights"][rows[layer.name]]["kernel"][()]
            np.testing.assert_array_equal(stored, layer.kernel.numpy())  # Keras's layer of that name
            np.testing.assert_array_equal(stored, loaded.get_layer(layer.name).kernel.numpy())


def test_inspect_a_tf_keras_file_gives_the_convert_command_that_reads_it(tmp_path, capsys):
    tf_keras = pytest.importorskip("tf_keras")
    import shlex

    legacy = tf_keras.Sequential([tf_keras.layers.Dense(3, input_shape=(4,)), tf_keras.layers.Dense(2)])
    path = tmp_path / "legacy model.h5"
    legacy.save(str(path))
    assert cli.main(["inspect", str(path)]) == 1
    err = capsys.readouterr().err
    assert "tf-keras (Keras 2) model file" in err
    convert, inspect = err.rstrip().split("inspect that: ", 1)[1].split(" && ")
    convert, inspect = shlex.split(convert), shlex.split(inspect)
    assert convert[:2] == ["tfkit", "convert"] and convert[2] == str(path) and inspect[:2] == ["tfkit", "inspect"]
    assert cli.main(convert[1:]) == 0
    assert cli.main(inspect[1:]) == 0
    out = capsys.readouterr().out
    x = np.random.RandomState(1).normal(size=(3, 4)).astype("float32")
    np.testing.assert_allclose(tfkit.load_model(inspect[2])(x).numpy(), legacy(x).numpy(), rtol=1e-6)
    assert "weights (4 arrays, 23 values):" in out


# ------------------------------------------------------------------ --import resolves what the error asks for


class Rescale(tfkit.Layer):
    """Saved unregistered: the file names it 'Rescale', from this test module."""

    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor


_USER_MODULE = """
import tfkit
{decorator}
class Rescale(tfkit.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor
"""


@pytest.fixture(scope="module")
def unregistered_file(tmp_path_factory):
    inputs = tfkit.Input((3,), name="features")
    model = tfkit.Model(inputs, layers.Dense(2, name="scores")(Rescale(3.0)(inputs)))
    path = tmp_path_factory.mktemp("unregistered") / "rescale.h5"
    model.save(str(path))
    return path, model


@pytest.mark.parametrize(
    "decorator",
    ["", "@tfkit.saving.register_keras_serializable(package='cli_test')"],
    ids=["unregistered", "registered"],
)
def test_import_resolves_a_class_saved_unregistered(unregistered_file, decorator, tmp_path, capsys):
    from tfkit.base import registry

    path, model = unregistered_file
    assert cli.main(["export", str(path), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "custom_objects={'Rescale': Rescale}" in err
    assert "--import FILE provides it: a .py file or module that defines Rescale" in err
    module = tmp_path / f"cli_layers_{'registered' if decorator else 'plain'}.py"
    module.write_text(_USER_MODULE.format(decorator=decorator))
    try:
        assert cli.main(["export", str(path), str(tmp_path / "out"), "--import", str(module)]) == 0, (
            capsys.readouterr().err
        )
        assert ("cli_test>Rescale" in registry.get_custom_objects()) == bool(decorator)
    finally:  # the user's module and its registration leave with the test
        sys.modules.pop(module.stem, None)
        registry.get_custom_objects().pop("cli_test>Rescale", None)
    served = tf.saved_model.load(str(tmp_path / "out")).signatures["serving_default"]
    x = np.random.RandomState(0).normal(size=(2, 3)).astype("float32")
    np.testing.assert_allclose(served(features=tf.constant(x))["scores"].numpy(), model(x).numpy(), rtol=1e-6)
    try:
        assert cli.main(["convert", str(path), str(tmp_path / "converted.keras"), "--import", str(module)]) == 0
    finally:
        sys.modules.pop(module.stem, None)
        registry.get_custom_objects().pop("cli_test>Rescale", None)


def test_an_import_that_lacks_the_class_says_so(unregistered_file, tmp_path, capsys):
    path, _ = unregistered_file
    module = tmp_path / "cli_other_layers.py"
    module.write_text("def scale(x):\n    return x\n\n\nclass Other:\n    pass\n")
    try:
        assert cli.main(["export", str(path), str(tmp_path / "out"), "--import", str(module)]) == 1
    finally:
        sys.modules.pop(module.stem, None)
    err = capsys.readouterr().err
    assert f"No module given to --import ({module}) defines Rescale; they define: Other, scale." in err
    assert "--import FILE provides it" not in err


def _imported_modules(path):
    """Every module a file imports, at the top or inside a function."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module)
    return names


def test_the_command_modules_import_in_one_direction():
    """launcher -> command line <- tfkit.cli, and launcher -> tfkit.cli: no module imports another that imports it."""
    launcher = _imported_modules(ROOT / "tfkit_launcher.py")
    command_line = _imported_modules(ROOT / "tfkit_command_line.py")
    commands = _imported_modules(ROOT / "tfkit" / "cli.py")
    assert not {name.split(".")[0] for name in command_line} - set(sys.stdlib_module_names) - {"__future__"}
    assert "tfkit_command_line" in launcher and "tfkit.cli" in launcher
    assert "tfkit_command_line" in commands and "tfkit_launcher" not in commands
    # tfkit.cli, and tfkit.base's tensorflow_import for how long TensorFlow's share of that import took
    assert not {name for name in launcher if name.startswith("tfkit.")} - {"tfkit.cli", "tfkit.base"}
