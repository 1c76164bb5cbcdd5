"""`import tfkit` loads TensorFlow without TensorFlow's eager import of Keras (tfkit/base/tensorflow_import.py).

Each case runs in a fresh interpreter: what a program gets from `import tfkit` first, from
`import tensorflow` first, and that `tf.keras` and `import keras` still work afterwards.
"""

import importlib
import json
import os
import subprocess
import sys
import textwrap

import pytest

from tfkit.base import tensorflow_import

pytest.importorskip("keras")  # without Keras installed there is no import to skip


def _run(script, **env):
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "", **env},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


HEAVY = ("keras", "sklearn", "matplotlib")

TFKIT_FIRST = """
    import json, sys
    import tfkit
    from tfkit.base import tensorflow_import
    after_tfkit = [name for name in {heavy} if name in sys.modules]
    import tensorflow as tf
    dense = tf.keras.layers.Dense(2)   # TensorFlow's lazy loader imports Keras now
    import keras
    print(json.dumps({{"after_tfkit": after_tfkit, "seconds": tensorflow_import.seconds,
                      "dense": type(dense).__module__, "keras": keras.__version__,
                      "optimizers": "keras.src.optimizers" in sys.modules}}))
"""


def test_import_tfkit_first_skips_keras_and_tf_keras_still_works():
    report = _run(TFKIT_FIRST.format(heavy=HEAVY))
    assert report["after_tfkit"] == []
    assert report["seconds"] > 0
    assert report["dense"].startswith("keras.") and report["keras"]
    assert report["optimizers"]  # Keras imported normally afterwards, its optimizers with it


def test_legacy_keras_is_not_imported_either_and_tf_keras_is_tf_keras():
    pytest.importorskip("tf_keras")
    report = _run(TFKIT_FIRST.format(heavy=HEAVY + ("tf_keras",)), TF_USE_LEGACY_KERAS="1")
    assert report["after_tfkit"] == []
    assert report["dense"].startswith("tf_keras.")


def test_import_tensorflow_first_is_tensorflows_usual_import():
    report = _run(
        """
        import json, sys
        import tensorflow
        import tfkit
        from tfkit.base import tensorflow_import
        print(json.dumps({"keras": "keras.src.optimizers" in sys.modules, "seconds": tensorflow_import.seconds}))
        """
    )
    assert report == {"keras": True, "seconds": None}


def test_the_block_holds_only_inside_and_leaves_imported_modules_alone(monkeypatch):
    name = tensorflow_import.KERAS_PRELOADS[1]
    monkeypatch.delitem(sys.modules, name, raising=False)
    already = tensorflow_import.KERAS_PRELOADS[0]
    monkeypatch.setitem(sys.modules, already, sys)  # stands for an imported module
    with tensorflow_import.without_keras_preload():
        with pytest.raises(ImportError):
            importlib.import_module(name)
        assert sys.modules[already] is sys
    assert name not in sys.modules and sys.modules[already] is sys
