"""Target ``tfkit_config``: ``from_config`` of tfkit's own model files, with its safety rules.

One input is a JSON object of the three configs a tfkit model file holds
(``model_config``, ``build_config``, ``compile_config``), rebuilt as ``load_model``
rebuilds them (``h5.rebuild_built``: registered names only, never code, the
config counted first, variables within the budget of what the file stores, here
nothing; then ``h5.compile_from``). Checks: loads or ``ValueError`` naming the
file; a rebuilt model rebuilds from its own config (``config_checks``).
"""

from __future__ import annotations

import json
from io import BytesIO
from pathlib import Path

from fuzzing.target import Target, read_guarded, write_seeds
from fuzzing.targets import model_files
from fuzzing.targets.config_checks import check_round_trip

NAME = "fuzz-tfkit-model.h5"
IMPORTS = ("tensorflow.", "tfkit.")  # the library's own lazy imports; nothing a file names
PARTS = ("model_config", "build_config", "compile_config")


def _rebuild(data: bytes):
    from tfkit.engine.config_safety import loads_json
    from tfkit.saving import h5

    document = loads_json(data, NAME)
    if not isinstance(document, dict):
        raise ValueError(f"{NAME}: the fuzz input is a JSON object of {', '.join(PARTS)}")
    model = h5.rebuild_built(document.get("model_config"), document.get("build_config"), {}, NAME, None)
    if document.get("compile_config") is not None:
        h5.compile_from(model, document["compile_config"], NAME)
    return model


def check(data: bytes) -> None:
    accepted, model = read_guarded(frozenset(), IMPORTS, NAME, lambda: _rebuild(data))
    if accepted:
        check_round_trip(model)


def seeds(folder: Path) -> int:
    import h5py

    named = []
    for name, data in model_files.tfkit_files().items():
        if name.endswith(".h5") and not name.endswith(".weights.h5"):
            with h5py.File(BytesIO(data), "r") as f:
                document = {part: json.loads(f.attrs[part]) for part in PARTS if part in f.attrs}
            named.append((name.replace(".h5", ".json"), json.dumps(document).encode()))
    return write_seeds(folder, named)


def setup() -> None:
    import tfkit.saving.h5  # noqa: F401  (imported before the guard is armed)


TARGET = Target(
    name="tfkit_config",
    reader="tfkit model configs from files: from_config with its safety rules (h5)",
    modules=(
        "tfkit.saving.h5",
        "tfkit.saving.rebuild",
        "tfkit.engine.config_safety",
        "tfkit.engine.config_serialization",
        "tfkit.models.functional",
        "tfkit.saving.model_config",
        "tfkit.saving.weights_io",
    ),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=32768,
    timeout=30,
    dictionary=(
        b'"class_name"',
        b'"config"',
        b'"module"',
        b'"registered_name"',
        b'"inbound_nodes"',
        b'"Functional"',
        b'"Sequential"',
        b'"Lambda"',
        b'"function"',
        b'"units"',
        b'"input_shape"',
        b'"safe_mode"',
        b'"TFSMLayer"',
        b'"optimizer"',
        b'"loss"',
        b'"metrics"',
        b'"build_config"',
    ),
    suite_runs=500,
)
