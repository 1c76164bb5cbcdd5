"""tools/keras_io_sweep.py: the import rewrite and the classification of a finished run."""

import importlib.util
from pathlib import Path

import pytest
import time_limits

_PATH = Path(__file__).resolve().parents[1] / "tools" / "keras_io_sweep.py"
_spec = importlib.util.spec_from_file_location("keras_io_sweep", _PATH)
sweep = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sweep)


def test_rewrite_changes_only_keras_imports():
    source = "\n".join(
        [
            "import os",
            'os.environ["KERAS_BACKEND"] = "jax"',
            "import keras",
            "from keras import layers, ops",
            "from keras.layers import Dense",
            "import keras.layers as L",
            "from tensorflow import keras",
            "from tensorflow.keras import layers",
            "from tensorflow.keras.models import Model",
            "x = keras.layers.Dense(3)   # keras. stays: the alias covers it",
            "y = tf.keras.backend.epsilon()",
        ]
    )
    out = sweep.rewrite_source(source, "tfkit").splitlines()
    assert out == [
        "import os",
        'os.environ["KERAS_BACKEND"] = "tensorflow"',
        "import tfkit as keras",
        "from tfkit import layers, ops",
        "from tfkit.layers import Dense",
        "import tfkit.layers as L",
        "import tfkit as keras",
        "from tfkit import layers",
        "from tfkit.models import Model",
        "x = keras.layers.Dense(3)   # keras. stays: the alias covers it",
        "y = tf.keras.backend.epsilon()",
    ]
    assert sweep.rewrite_source("from tensorflow import keras", "keras") == "import keras as keras\n"
    with pytest.raises(ValueError, match="lib must be"):
        sweep.rewrite_source("", "torch")


def test_build_script_keeps_future_imports_first():
    script = sweep.build_script("from __future__ import annotations\nimport keras\n", "tfkit", True)
    assert script.splitlines()[0] == "from __future__ import annotations"
    assert "_sw_lib.config.set_max_steps_per_epoch(3)" in script
    compile(script, "example.py", "exec")


def test_classify():
    assert sweep.classify(0, "", "tfkit") == {"result": "passed", "reason": ""}
    assert sweep.classify(None, "", "tfkit")["result"] == "timeout"
    missing = "Traceback...\nModuleNotFoundError: No module named 'gym'\n"
    assert sweep.classify(1, missing, "tfkit") == {"result": "needs package", "reason": "gym"}
    net = "Exception: URL fetch failure on https://x/mnist.npz: None -- SWEEP_NO_NETWORK\n"
    assert sweep.classify(1, net, "keras")["result"] == "needs data"
    failure = (
        'Traceback (most recent call last):\n  File "/tmp/a/example.py", line 3, in <module>\n'
        '  File "/w/tfkit/engine/layer.py", line 9, in __call__\n'
        "AttributeError: 'X' object has no attribute 'y'\n"
    )
    result = sweep.classify(1, failure, "tfkit")
    assert result["result"] == "failed"
    assert result["reason"] == "AttributeError: 'X' object has no attribute 'y' (tfkit/engine/layer.py:9 in __call__)"
    keras_style = "ValueError: Exception encountered when calling Foo.call().\n\n\x1b[1mbad shape\x1b[0m\n"
    assert "bad shape" in sweep.classify(1, keras_style, "keras")["reason"]
    pydot = "ImportError: You must install pydot (`pip install pydot`) for `plot_model` to work.\n"
    assert sweep.classify(1, pydot, "keras") == {"result": "needs package", "reason": "graphviz (plot_model)"}
    gcs = (
        "tensorflow.python.framework.errors_impl.FailedPreconditionError: Error executing an HTTP "
        "request: libcurl code 6 meaning 'Could not resolve hostname'\n"
    )
    assert sweep.classify(1, gcs, "tfkit")["result"] == "needs data"
    no_folder = (
        '  File "/w/tfkit/utils/directory_datasets.py", line 27, in _index\n'
        "ValueError: 'aclImdb/train' is not a folder\n"
    )
    assert sweep.classify(1, no_folder, "tfkit")["result"] == "needs data"


def test_a_crash_without_traceback_is_named():
    result = sweep.classify(-11, "E0000 remapper failed\n", "tfkit")
    assert result == {"result": "failed", "reason": "the process died of signal 11 (a crash inside TensorFlow)"}


def test_prelude_fakes_the_moving_mnist_download_and_the_heart_csv(tmp_path):
    """conv_lstm's Moving MNIST and the FeatureSpace example's heart.csv get random data of the real layout."""
    import os
    import subprocess
    import sys

    pytest.importorskip("pandas")
    example = "\n".join(
        [
            "import numpy as np",
            "import pandas as pd",
            "import keras",
            'fpath = keras.utils.get_file("moving_mnist.npy", "http://x/mnist_test_seq.npy")',
            "d = np.load(fpath)",
            "assert d.shape[0] == 20 and d.shape[2:] == (64, 64) and d.dtype == np.uint8, d.shape",
            'df = pd.read_csv("http://storage.googleapis.com/download.tensorflow.org/data/heart.csv")',
            "assert len(df) == 303 and list(df.columns)[-1] == 'target', df.columns",
            "assert set(df['thal']) == {'fixed', 'normal', 'reversible'}",
            "print('fakes ok')",
        ]
    )
    script = sweep.build_script(example, "tfkit", True)
    assert "_sw_pd0.read_csv = _sw_read_csv" in script
    (tmp_path / "example.py").write_text(script)
    root = str(_PATH.parents[1])
    env = dict(os.environ, PYTHONPATH=root, TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run(
        [sys.executable, "example.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(300),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "fakes ok" in proc.stdout
    # without the CSV in the example, pandas is not patched (nor imported by the prelude)
    assert "_sw_pd0.read_csv = _sw_read_csv" in script
    assert "if False:\n        import pandas as _sw_pd0" in sweep.build_script("import keras\n", "tfkit", True)


def test_report_names_the_keras_failure_when_tfkit_passes(tmp_path):
    results = {
        "nlp/a": {
            "tfkit": {"result": "passed", "reason": ""},
            "keras": {"result": "failed", "reason": "TypeError: missing a required argument: 'training'"},
        },
        "nlp/b": {"tfkit": {"result": "failed", "reason": "E1"}, "keras": {"result": "failed", "reason": "E2"}},
        "nlp/c": {"tfkit": {"result": "passed", "reason": ""}, "keras": {"result": "passed", "reason": ""}},
    }
    doc = tmp_path / "SWEEP.md"
    sweep.write_report(results, doc, "cmd")
    text = doc.read_text()
    assert (
        "| a | nlp | passed | failed | (passes under tfkit; Keras: failed: TypeError: missing a required argument: 'training') |"
        in text
    )
    assert "| b | nlp | failed | failed | E1 (fails under Keras too: E2) |" in text
    assert "| c | nlp | passed | passed |  |" in text
    assert "| passed | 2 | 1 |" in text and "| failed | 1 | 2 |" in text
