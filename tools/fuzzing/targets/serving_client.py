"""``export/client.py`` (the TF Serving client, a script beside the exports, not part of tfkit) as a module."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from fuzzing.target import EXTRA_MODULE_FILES

CLIENT_PATH = Path(__file__).resolve().parents[3] / "export" / "client.py"
MODULE = "tfkit_export_client"
EXTRA_MODULE_FILES[MODULE] = str(CLIENT_PATH)


def load() -> Any:
    import sys

    if MODULE in sys.modules:
        return sys.modules[MODULE]
    spec = importlib.util.spec_from_file_location(MODULE, CLIENT_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[MODULE] = module  # so that atheris and coverage find its functions by module name
    return module
