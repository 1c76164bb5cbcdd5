"""Target ``keras_archive``: the ``.keras`` archive reader (``keras_files.archive``) and its vocabularies.

One input is one ``.keras`` file: ``read_archive`` finds ``config.json``,
``metadata.json``, ``model.weights.h5`` and the lookup layers' ``vocabulary.txt``
members under its limits, and the vocabularies are written into the config as the
importer does before it rebuilds the model. Reference: ``zipfile`` and ``json``:
wherever tfkit accepts an archive, the config, metadata, weights bytes and
vocabularies it read equal what ``zipfile.ZipFile.read`` and ``json.loads`` give.
"""

from __future__ import annotations

import json
import zipfile
from io import BytesIO
from pathlib import Path

from fuzzing.target import Finding, Target, as_file, equal, read_guarded, write_seeds
from fuzzing.targets import model_files

NAME = "fuzz-model.keras"


def _read(path: str) -> tuple:
    from tfkit.saving.keras_files import archive, importer

    with archive.read_archive(path) as found:
        config = importer._with_vocabularies(found.config, found.vocabularies, None, path)
        weights = Path(found.weights_path).read_bytes() if found.weights_path else None
        return found, config, weights


def _compare(path: str, found, weights: bytes | None) -> None:
    try:
        with zipfile.ZipFile(path) as zf:
            names = [info.filename for info in zf.infolist()]
            config = json.loads(zf.read("config.json"))
            metadata = json.loads(zf.read("metadata.json")) if "metadata.json" in names else {}
            stored_weights = zf.read("model.weights.h5") if "model.weights.h5" in names else None
            vocabularies = {key: zf.read(f"assets/{key}/vocabulary.txt") for key in found.vocabularies}
    except Exception as error:  # noqa: BLE001  (any refusal by the reference)
        raise Finding(f"tfkit read an archive that zipfile/json refuse ({type(error).__name__}: {error})")
    if not equal(found.config, config):
        raise Finding("config.json: tfkit and json.loads disagree")
    if not equal(found.metadata, metadata if isinstance(metadata, dict) else {}):
        raise Finding("metadata.json: tfkit and json.loads disagree")
    if weights != stored_weights:
        raise Finding("model.weights.h5: tfkit's copy differs from zipfile's")
    if vocabularies != found.vocabularies:
        raise Finding("a vocabulary differs from zipfile's")


def check(data: bytes) -> None:
    path = as_file(data, NAME)
    accepted, value = read_guarded(frozenset(), (), path, lambda: _read(path))
    if accepted:
        found, _, weights = value
        _compare(path, found, weights)


def _vocabulary_in_assets(archive: bytes) -> bytes:
    """The archive with its lookup layers' vocabularies moved to ``assets/layers/<name>/vocabulary.txt``, where
    Keras 3 keeps a vocabulary that ``adapt`` made (the config then says ``"vocabulary": null``)."""
    source, out = zipfile.ZipFile(BytesIO(archive)), BytesIO()
    config = json.loads(source.read("config.json"))
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for layer in config["config"]["layers"]:
            vocabulary = layer["config"].get("vocabulary")
            if isinstance(vocabulary, list):
                layer["config"]["vocabulary"] = None
                lines = "\n".join(
                    ["[UNK]" if layer["class_name"] == "StringLookup" else "-1"] + [str(token) for token in vocabulary]
                )
                target.writestr(f"assets/layers/{layer['config']['name']}/vocabulary.txt", lines)
        for name in source.namelist():
            target.writestr(name, json.dumps(config) if name == "config.json" else source.read(name))
    return out.getvalue()


def seeds(folder: Path) -> int:
    files = {name: data for name, data in model_files.keras3_files().items() if name.endswith(".keras")}
    for name in ("lookup.keras", "int_lookup.keras"):
        files[name.replace(".keras", "-assets.keras")] = _vocabulary_in_assets(files[name])
    return write_seeds(folder, files.items())


def setup() -> None:
    import tfkit.saving.keras_files.importer  # noqa: F401  (imported before the guard is armed)


TARGET = Target(
    name="keras_archive",
    reader="tfkit.saving.keras_files.archive.read_archive + vocabularies",
    modules=(
        "tfkit.saving.keras_files.archive",
        "tfkit.saving.keras_files.importer",
        "tfkit.saving.keras_files.scratch",
        "tfkit.engine.config_safety",
    ),
    guide_modules=("zipfile",),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=65536,
    dictionary=(
        b"PK\x03\x04",
        b"PK\x01\x02",
        b"PK\x05\x06",
        b"config.json",
        b"metadata.json",
        b"model.weights.h5",
        b"assets/layers/string_lookup/vocabulary.txt",
        b'"vocabulary"',
        b'"output_mode": "tf_idf"',
    ),
    suite_runs=1500,
)
