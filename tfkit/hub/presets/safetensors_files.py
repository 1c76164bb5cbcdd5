"""A Hugging Face checkpoint's tensors by name, read one at a time from ``model.safetensors`` (or its shards).

    checkpoint = SafetensorsCheckpoint(directory)
    checkpoint.tensor("h.0.attn.c_attn.weight")       # a NumPy array; nothing else is read

The ``safetensors`` package parses the files (a JSON header and raw little-endian
arrays: data, no code); tfkit reads each tensor when its variable is assigned,
so a checkpoint never sits in memory twice; each read opens the file afresh, so
the pages of the file's mapping it touched are given back with it. A sharded checkpoint's index
(``model.safetensors.index.json``) names its shards, which must be files of the
folder. Keys may carry the prefix of the model class that saved them
(``transformer.h.0...``, ``model.layers.0...``); a key is found with or without it.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from tfkit.hub.presets import files

SAFETENSORS_FILE = "model.safetensors"
SAFETENSORS_INDEX_FILE = "model.safetensors.index.json"


def _safetensors() -> Any:
    try:
        import safetensors
    except ImportError as error:
        raise ImportError(
            "Hugging Face checkpoints are read with the safetensors package: pip install safetensors "
            "(or pip install tfkit[hub])"
        ) from error
    return safetensors


class SafetensorsCheckpoint(contextlib.ExitStack):
    """The tensors of a Hugging Face checkpoint folder, by name, opened lazily.

    Args:
        directory: The checkpoint folder (`config.json`, `model.safetensors`
            or `model.safetensors.index.json` and its shards).
    """

    def __init__(self, directory: str) -> None:
        super().__init__()
        self.directory = directory
        self._open: dict[tuple[str, str], Any] = {}
        if files.has_file(directory, SAFETENSORS_INDEX_FILE):
            index = files.read_json(directory, SAFETENSORS_INDEX_FILE)
            weight_map = index.get("weight_map") if isinstance(index, dict) else None
            if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
                raise ValueError(
                    f"{directory}/{SAFETENSORS_INDEX_FILE}: weight_map must map tensor names to file names"
                )
            self._where = dict(weight_map)
            for shard in sorted(set(self._where.values())):  # every shard a file of this folder, before any read
                files.preset_file(directory, shard)
        else:
            files.preset_file(directory, SAFETENSORS_FILE)
            self._where = {key: SAFETENSORS_FILE for key in self._file(SAFETENSORS_FILE).keys()}
        self._prefix: str | None = None

    def _file(self, name: str, framework: str = "np") -> Any:
        if (name, framework) not in self._open:
            path = files.preset_file(self.directory, name)
            self._open[name, framework] = self.enter_context(_safetensors().safe_open(path, framework=framework))
        return self._open[name, framework]

    def _key(self, key: str) -> str:
        if key in self._where:
            return key
        if self._prefix is None:
            self._prefix = next((k[: -len(key)] for k in self._where if k.endswith("." + key)), "")
        full = self._prefix + key
        if full not in self._where:
            raise KeyError(f"{self.directory}: the checkpoint has no tensor {key!r}")
        return full

    def keys(self) -> list[str]:
        """Every tensor name the checkpoint stores."""
        return list(self._where)

    def has(self, key: str) -> bool:
        """Whether the checkpoint stores tensor `key` (with or without its class's prefix)."""
        try:
            self._key(key)
        except KeyError:
            return False
        return True

    def tensor(self, key: str) -> np.ndarray:
        """Tensor `key` as a NumPy array, read now."""
        full = self._key(key)
        path = files.preset_file(self.directory, self._where[full])
        # opened for this tensor only: the file's mapping, and the pages of it this read touched, go with it
        with _safetensors().safe_open(path, framework="np") as opened:
            if opened.get_slice(full).get_dtype() != "BF16":
                return opened.get_tensor(full)
        with _safetensors().safe_open(path, framework="tf") as opened:  # NumPy has no bfloat16: through TensorFlow
            return opened.get_tensor(full).numpy()  # an ml_dtypes bfloat16 array
