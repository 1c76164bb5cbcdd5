"""The file's layer and weight order of a tf-keras ``.h5`` file, read in a limited child process.

    layer_names, weight_names = read_legacy_order("w.h5", "")              # a weights file: the root
    layer_names, weight_names = read_legacy_order("m.h5", "model_weights")  # a model file

Keras 3 loads a tf-keras weights file by layer *order* (the file's
``layer_names`` that list weights, paired with the model's layers that have
weights). That order lives in string-array attributes, which the guarded
dataset reader does not return; ``legacy_order_child.py`` reads just them,
under the same memory and CPU limits, and nothing of the file is parsed here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tfkit.saving import h5_snapshot

CHILD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "legacy_order_child.py")


def read_legacy_order(path: str, group: str) -> tuple[list[str], dict[str, list[str]]]:
    """``(layer_names, {layer name: weight names})`` as tf-keras wrote them; ``ValueError`` naming ``path``."""
    limits = h5_snapshot.limits_for(path)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "HDF5_PLUGIN"))}
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", HDF5_PLUGIN_PATH="", HDF5_USE_FILE_LOCKING="FALSE")
    timeout = h5_snapshot.WALL_SECONDS_FACTOR * limits["cpu_seconds"] + 10
    command = [sys.executable, "-I", CHILD_SCRIPT, path, group, json.dumps(limits)]
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ValueError(
            f"{path}: its layer order could not be read within {timeout} s (a damaged or hostile "
            f"file); nothing was loaded"
        ) from None
    if done.returncode != 0:
        raise ValueError(
            f"{path}: its layer order could not be read: the HDF5 reader "
            f"{h5_snapshot._how_it_ended(done.returncode, limits)}; nothing was loaded"
        )
    try:
        result: Any = json.loads(done.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError(
            f"{path}: its layer order could not be read (the reader gave no result); nothing was loaded"
        ) from None
    if not isinstance(result, dict):
        raise ValueError(f"{path}: its layer order could not be read (malformed result); nothing was loaded")
    if "error" in result:
        raise ValueError(f"{path}: its layer order could not be read: {str(result['error'])[:300]}")
    layer_names, weight_names = result.get("layer_names"), result.get("weight_names")
    if not (
        isinstance(layer_names, list)
        and all(isinstance(n, str) for n in layer_names)
        and isinstance(weight_names, dict)
        and all(isinstance(v, list) and all(isinstance(n, str) for n in v) for v in weight_names.values())
    ):
        raise ValueError(f"{path}: its layer order could not be read (malformed result); nothing was loaded")
    return layer_names, weight_names
