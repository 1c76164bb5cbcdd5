"""tools/keras_io_sweep.py: the import rewrite and the classification of a finished run."""

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "tools" / "keras_io_sweep.py"
_spec = importlib.util.spec_from_file_location("keras_io_sweep", _PATH)
sweep = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sweep)


def test_rewrite_changes_only_keras_imports():
    source = "\n".join([
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
    ])
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
    missing = 'Traceback...\nModuleNotFoundError: No module named \'gym\'\n'
    assert sweep.classify(1, missing, "tfkit") == {"result": "needs package", "reason": "gym"}
    net = "Exception: URL fetch failure on https://x/mnist.npz: None -- SWEEP_NO_NETWORK\n"
    assert sweep.classify(1, net, "keras")["result"] == "needs data"
    failure = ('Traceback (most recent call last):\n  File "/tmp/a/example.py", line 3, in <module>\n'
               '  File "/w/tfkit/engine/layer.py", line 9, in __call__\n'
               "AttributeError: 'X' object has no attribute 'y'\n")
    result = sweep.classify(1, failure, "tfkit")
    assert result["result"] == "failed"
    assert result["reason"] == "AttributeError: 'X' object has no attribute 'y' (tfkit/engine/layer.py:9 in __call__)"
    keras_style = ("ValueError: Exception encountered when calling Foo.call().\n\n"
                   "\x1b[1mbad shape\x1b[0m\n")
    assert "bad shape" in sweep.classify(1, keras_style, "keras")["reason"]


def test_a_crash_without_traceback_is_named():
    result = sweep.classify(-11, "E0000 remapper failed\n", "tfkit")
    assert result == {"result": "failed", "reason": "the process died of signal 11 (a crash inside TensorFlow)"}
