"""Models pickle as the bytes of their ``.h5`` file, as Keras 3 models pickle as ``.keras`` bytes.

    data = pickle.dumps(model)            # what multiprocessing, joblib, Ray or Dask do
    again = pickle.loads(data)            # rebuilt by tfkit's loader: same config, weights, compile state

Pickle itself is never safe on data from strangers; tfkit adds no risk of its own: the
bytes are a tfkit ``.h5`` file, read back through the guarded loader (configs are data).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from tfkit.saving import saving_api


def model_to_bytes(model: Any) -> bytes:
    """The bytes of ``model.save(...)`` (an ``.h5`` file: config, weights, optimizer state)."""
    with tempfile.TemporaryDirectory(prefix="tfkit-pickle-") as folder:
        path = os.path.join(folder, "model.h5")
        saving_api.save_model(model, path)
        with open(path, "rb") as handle:
            return handle.read()


def model_from_bytes(data: bytes) -> Any:
    """The model :func:`model_to_bytes` saved (``pickle`` calls this when it loads a model)."""
    with tempfile.TemporaryDirectory(prefix="tfkit-pickle-") as folder:
        path = os.path.join(folder, "model.h5")
        with open(path, "wb") as handle:
            handle.write(data)
        return saving_api.load_model(path)
