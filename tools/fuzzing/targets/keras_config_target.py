"""Target ``keras_config``: translating a Keras 3 or tf-keras model config and rebuilding the model from it.

One input is the JSON text a Keras file holds as its model config: ``config.json``
of a ``.keras`` archive (Keras 3) or the ``model_config`` attribute of a tf-keras
``.h5`` file. It is parsed by ``loads_json`` (size, value and depth limits), then
translated and rebuilt as the importer does (``keras_files.importer._rebuild``:
registered names only, the config counted first, variables within the budget of
what the file stores, here nothing), and compiled from its ``compile_config``.
Checks: loads or ``ValueError`` naming the file; the parsed config equals
``json.loads``; a rebuilt model rebuilds from its own config (``config_checks``).
"""

from __future__ import annotations

import json
import zipfile
from io import BytesIO
from pathlib import Path

from fuzzing.target import Finding, Target, equal, read_guarded, write_seeds
from fuzzing.targets import model_files
from fuzzing.targets.config_checks import check_round_trip

NAME = "fuzz-keras-model.keras"
IMPORTS = ("tensorflow.", "tfkit.")  # the library's own lazy imports; nothing a file names


def _rebuild(data: bytes):
    from tfkit.engine.config_safety import loads_json
    from tfkit.saving.keras_files import importer
    from tfkit.saving.keras_files.config_from_keras import ImportReport

    config = loads_json(data, NAME)
    report = ImportReport(NAME)
    model = importer._rebuild(config, None, report, None)
    if isinstance(config, dict):
        importer._compile(model, config.get("compile_config"), report, None)
    return config, model


def check(data: bytes) -> None:
    accepted, value = read_guarded(frozenset(), IMPORTS, NAME, lambda: _rebuild(data))
    if not accepted:
        return
    config, model = value
    if not equal(config, json.loads(data)):
        raise Finding("loads_json and json.loads read the config differently")
    check_round_trip(model)


def _configs() -> list[tuple[str, bytes]]:
    import h5py

    named = []
    for name, data in model_files.keras3_files().items():
        if name.endswith(".keras"):
            with zipfile.ZipFile(BytesIO(data)) as archive:
                named.append((name.replace(".keras", "-keras3.json"), archive.read("config.json")))
    for name, data in model_files.tf_keras_files().items():
        if not name.endswith(".weights.h5"):
            with h5py.File(BytesIO(data), "r") as f:
                text = f.attrs["model_config"]
                named.append(
                    (name.replace(".h5", "-tf_keras.json"), text.encode() if isinstance(text, str) else bytes(text))
                )
    return named


def seeds(folder: Path) -> int:
    return write_seeds(folder, _configs())


def setup() -> None:
    import tfkit.saving.keras_files.importer  # noqa: F401  (imported before the guard is armed)


TARGET = Target(
    name="keras_config",
    reader="Keras 3 / tf-keras model configs: translation and rebuild (keras_files)",
    modules=(
        "tfkit.saving.keras_files.config_from_keras",
        "tfkit.saving.keras_files.importer",
        "tfkit.saving.rebuild",
        "tfkit.engine.config_safety",
        "tfkit.engine.config_serialization",
        "tfkit.models.functional",
    ),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=32768,
    timeout=30,
    dictionary=(
        b'"class_name"',
        b'"config"',
        b'"inbound_nodes"',
        b'"module"',
        b'"registered_name"',
        b'"keras.layers"',
        b'"Functional"',
        b'"Sequential"',
        b'"Lambda"',
        b'"function"',
        b'"units"',
        b'"build_config"',
        b'"input_shape"',
        b'"dtype"',
        b'"__tensor__"',
        b'"keras_history"',
        b'"layers"',
        b'"input_layers"',
        b'"output_layers"',
        b'"compile_config"',
        b'"shared_object_id"',
    ),
    suite_runs=150,
)
