"""Target ``preset_config``: a KerasHub preset's ``config.json``, read and built by ``Backbone.from_preset``.

Each input is the ``config.json`` of a preset folder whose weights file stores 200 small arrays and one of
262,144 elements: room for any tiny backbone, none for a large one. The preset is loaded without its
weights (``load_weights=False``), so the whole path runs but the final read: the JSON limits, the config
checks, the translation of Keras's config, the size checks against the weights' layout (``config_budget``)
and the build under the variable budget. Every input must load or be refused with a ``ValueError`` naming
the preset, within the target's time limit (a config asking for a huge model is refused, not built).
"""

from __future__ import annotations

import json
from pathlib import Path

from fuzzing.target import Target, read_guarded, scratch_path, write_seeds

FOLDER = "fuzz-preset"
EVENTS = frozenset({"subprocess.Popen", "os.posix_spawn", "os.fork"})  # the guarded HDF5 reader's child


def _folder() -> Path:
    folder = scratch_path(FOLDER)
    folder.mkdir(exist_ok=True)
    weights = folder / "model.weights.h5"
    if not weights.exists():
        import h5py
        import numpy as np

        with h5py.File(weights, "w") as f:
            f.create_dataset("layers/big/vars/0", data=np.zeros((4096, 64), np.float32))
            for i in range(199):
                f.create_dataset(f"layers/small_{i}/vars/0", data=np.zeros(4, np.float32))
    return folder


def check(data: bytes) -> None:
    import tfkit.hub as hub

    folder = _folder()
    (folder / "config.json").write_bytes(data)
    read_guarded(EVENTS, (), str(folder), lambda: hub.models.Backbone.from_preset(str(folder), load_weights=False))


def seeds(folder: Path) -> int:
    import tfkit.hub as hub
    from tfkit.hub.presets.saver import keras_entry

    models = {
        "gpt2": hub.models.GPT2Backbone(
            vocabulary_size=50, num_layers=2, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=16
        ),
        "bert": hub.models.BertBackbone(
            vocabulary_size=40, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=16
        ),
        "llama3": hub.models.Llama3Backbone(
            vocabulary_size=60,
            num_layers=2,
            num_query_heads=4,
            num_key_value_heads=2,
            hidden_dim=16,
            intermediate_dim=32,
        ),
        "gemma": hub.models.GemmaBackbone(
            vocabulary_size=60,
            num_layers=2,
            num_query_heads=2,
            num_key_value_heads=1,
            hidden_dim=16,
            intermediate_dim=32,
            head_dim=8,
        ),
        "vit": hub.models.ViTBackbone(
            image_shape=(8, 8, 3), patch_size=4, num_layers=1, num_heads=2, hidden_dim=8, mlp_dim=16
        ),
    }
    named = [(name, json.dumps(keras_entry(model, name), indent=2).encode()) for name, model in models.items()]
    return write_seeds(folder, named)


def setup() -> None:
    import tfkit.hub  # noqa: F401  (imported before the guard is armed)

    _folder()


TARGET = Target(
    name="preset_config",
    reader="tfkit.hub's preset loading: config.json checked, translated, sized and built (Backbone.from_preset)",
    modules=(
        "tfkit.hub.presets.loader",
        "tfkit.hub.presets.config_budget",
        "tfkit.hub.presets.files",
        "tfkit.saving.keras_files.config_from_keras",
    ),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=8192,
    timeout=60,
    allowed_events=EVENTS,
    dictionary=(b'"class_name"', b'"registered_name"', b'"keras_hub>', b'"num_layers"', b'"config"', b"1e308"),
    suite_runs=40,
)
