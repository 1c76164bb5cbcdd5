"""The ``pretrained`` workload's random presets, built by KerasHub once a run (its own subprocess).

    python tools/bench.py --prepare-presets '{"directory": "/tmp/...", "models": ["gpt2_124m"], "tiny": false}'
    build(data_dir, ["gpt2_124m", "bert_base"])     # in a process where Keras runs on TensorFlow

Each backbone is built by ``keras_hub.models.<Backbone>(**config)`` after
``keras.utils.set_random_seed(WEIGHTS_SEED)`` and saved with ``save_to_preset``
(``config.json``, ``model.weights.h5``, ``metadata.json``) into
``<data_dir>/presets/<model>``; a folder is written under a temporary name and
renamed when complete, and a complete one is kept. The peers build their task
around it with ``from_preset(preset, preprocessor=None)``: generation and
fine-tuning take token ids, so no tokenizer is needed.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil

from bench import pretrained


def build(data_dir: str | pathlib.Path, models: list[str], tiny: bool = False) -> list[pathlib.Path]:
    """Build and save the presets of ``models`` (``pretrained.MODELS`` keys) that the folder lacks.

    Args:
        data_dir: The run's data folder; the presets go into its ``presets/`` folder.
        models: The models to build.
        tiny: Build each family at a few thousand parameters instead (the tests).

    Returns:
        The preset folders, in the order of ``models``.
    """
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    import keras
    import keras_hub

    folders = []
    for name in models:
        model = pretrained.MODELS[name]
        target = pretrained.preset_dir(data_dir, name)
        folders.append(target)
        if (target / "config.json").is_file():
            continue
        partial = target.with_name(target.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.parent.mkdir(parents=True, exist_ok=True)
        keras.utils.set_random_seed(pretrained.WEIGHTS_SEED)
        backbone = getattr(keras_hub.models, model.backbone)(**(model.tiny if tiny else model.config))
        backbone.save_to_preset(str(partial))
        partial.rename(target)
        del backbone
        keras.backend.clear_session()
    return folders


def main(payload: str) -> int:
    """Entry of ``bench.py --prepare-presets``: ``{"directory", "models", "tiny"}`` as JSON."""
    request = json.loads(payload)
    build(request["directory"], list(request["models"]), tiny=bool(request.get("tiny", False)))
    return 0
