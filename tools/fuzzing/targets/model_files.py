"""Small model files of several kinds, as Keras 3, tf-keras and tfkit write them: the seeds of the file targets.

    files = keras3_files()        # {"mlp.keras": b"PK...", "text.keras": ..., "mlp.weights.h5": ...}
    files = tf_keras_files()      # {"mlp.h5": b"\\x89HDF...", ...}  (legacy HDF5 model files)
    files = tfkit_files()         # {"mlp.keras": ..., "mlp.h5": ..., "mlp.weights.h5": ...}

Keras 3 and tf-keras each run in a child process (tfkit never imports Keras); a
library that is not installed gives no files, and the caller says so.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys

_KERAS3 = r"""
import base64, json, os, sys, tempfile
os.environ["KERAS_BACKEND"] = "tensorflow"
import numpy as np, keras
from keras import layers
keras.utils.set_random_seed(0)
out, folder = {}, tempfile.mkdtemp()
def keep(name, model, weights=False):
    path = os.path.join(folder, name)
    model.save(path)
    out[name] = open(path, "rb").read()
    if weights:
        model.save_weights(path.replace(".keras", ".weights.h5"))
        out[name.replace(".keras", ".weights.h5")] = open(path.replace(".keras", ".weights.h5"), "rb").read()
mlp = keras.Sequential([keras.Input((4,)), layers.Dense(3, activation="relu"), layers.Dropout(0.1), layers.Dense(2)])
mlp.compile("adam", "mse")
keep("mlp.keras", mlp, weights=True)
a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
merged = layers.Concatenate()([layers.Dense(2)(a), b])
keep("two_inputs.keras", keras.Model([a, b], [layers.Dense(1, name="out")(merged), merged]))
cnn = keras.Sequential([keras.Input((8, 8, 1)), layers.Conv2D(2, 3), layers.BatchNormalization(),
                        layers.MaxPooling2D(), layers.Flatten(), layers.Dense(2, activation="softmax")])
keep("cnn.keras", cnn, weights=True)
rnn = keras.Sequential([keras.Input((5, 2)), layers.LSTM(3, return_sequences=True), layers.GRU(2)])
keep("rnn.keras", rnn)
text = keras.Sequential([keras.Input((1,), dtype="string"), layers.StringLookup(vocabulary=["a", "b", "c"]),
                         layers.Embedding(5, 2), layers.GlobalAveragePooling1D()])
keep("lookup.keras", text)
ints = keras.Sequential([keras.Input((2,), dtype="int64"),
                         layers.IntegerLookup(vocabulary=[3, 7, 9], output_mode="multi_hot")])
keep("int_lookup.keras", ints)
inp = keras.Input((4, 6))
att = layers.MultiHeadAttention(2, 3)(inp, inp)
keep("attention.keras", keras.Model(inp, layers.LayerNormalization()(layers.Add()([inp, att]))))
print(json.dumps({k: base64.b64encode(v).decode() for k, v in out.items()}))
"""

_TF_KERAS = r"""
import base64, json, os, sys, tempfile
import numpy as np, tf_keras as keras
from tf_keras import layers
keras.utils.set_random_seed(0)
out, folder = {}, tempfile.mkdtemp()
def keep(name, model, weights=False):
    path = os.path.join(folder, name)
    model.save(path, save_format="h5")
    out[name] = open(path, "rb").read()
    if weights:
        model.save_weights(path.replace(".h5", ".weights.h5"))
        out[name.replace(".h5", ".weights.h5")] = open(path.replace(".h5", ".weights.h5"), "rb").read()
mlp = keras.Sequential([keras.Input((4,)), layers.Dense(3, activation="relu"), layers.Dense(2)])
mlp.compile("adam", "mse")
keep("mlp.h5", mlp, weights=True)
a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
merged = layers.Concatenate()([layers.Dense(2)(a), b])
keep("two_inputs.h5", keras.Model([a, b], [layers.Dense(1, name="out")(merged), merged]))
keep("cnn.h5", keras.Sequential([keras.Input((8, 8, 1)), layers.Conv2D(2, 3), layers.BatchNormalization(),
                                  layers.Flatten(), layers.Dense(2)]))
keep("rnn.h5", keras.Sequential([keras.Input((5, 2)), layers.LSTM(3, return_sequences=True), layers.GRU(2)]))
print(json.dumps({k: base64.b64encode(v).decode() for k, v in out.items()}))
"""

_TFKIT = r"""
import base64, json, os, sys, tempfile
import numpy as np, tfkit
from tfkit import layers
tfkit.utils.set_random_seed(0)
out, folder = {}, tempfile.mkdtemp()
def keep(name, model):
    for suffix in (".keras", ".h5"):
        path = os.path.join(folder, name + suffix)
        model.save(path)
        out[name + suffix] = open(path, "rb").read()
    model.save_weights(os.path.join(folder, name + ".weights.h5"))
    out[name + ".weights.h5"] = open(os.path.join(folder, name + ".weights.h5"), "rb").read()
mlp = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(3, activation="relu"), layers.Dropout(0.1), layers.Dense(2)])
mlp.compile("adam", "mse")
mlp.fit(np.ones((4, 4)), np.ones((4, 2)), verbose=0)
keep("mlp", mlp)
a, b = tfkit.Input((3,), name="a"), tfkit.Input((2,), name="b")
merged = layers.Concatenate()([layers.Dense(2)(a), b])
keep("two_inputs", tfkit.Model([a, b], [layers.Dense(1, name="out")(merged), merged]))
keep("rnn", tfkit.Sequential([tfkit.Input((5, 2)), layers.LSTM(3, return_sequences=True), layers.GRU(2)]))
keep("lookup", tfkit.Sequential([tfkit.Input((1,), dtype="string"), layers.StringLookup(vocabulary=["a", "b"]),
                                 layers.Embedding(4, 2), layers.GlobalAveragePooling1D()]))
print(json.dumps({k: base64.b64encode(v).decode() for k, v in out.items()}))
"""


def _run(script: str, library: str) -> dict[str, bytes]:
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
        env={**__import__("os").environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    if done.returncode != 0:
        if f"No module named '{library}'" in done.stderr:
            print(f"{library} is not installed: its seed files are left out", file=sys.stderr)
            return {}
        raise RuntimeError(f"writing the {library} seed files failed:\n{done.stderr[-3000:]}")
    files = json.loads(done.stdout.strip().splitlines()[-1])
    return {name: base64.b64decode(data) for name, data in files.items()}


def keras3_files() -> dict[str, bytes]:
    return _run(_KERAS3, "keras")


def tf_keras_files() -> dict[str, bytes]:
    return _run(_TF_KERAS, "tf_keras")


def tfkit_files() -> dict[str, bytes]:
    return _run(_TFKIT, "tfkit")
