"""The ``tfkit`` console command's entry point: the command line is checked before TensorFlow loads.

    $ tfkit inspect missing.h5        # "tfkit: error: No such file: missing.h5" at once
    $ python -m tfkit_launcher inspect vae.h5
    sys.exit(tfkit_launcher.main(["inspect", "vae.h5"]))

``import tfkit`` imports TensorFlow (seconds), and any ``tfkit.<module>`` imports
``tfkit`` first. ``tfkit/cli.py`` imports only the standard library at its top,
so it is loaded here from its file, without its package; it imports tfkit itself
once the arguments are good and the input exists.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from types import ModuleType
from typing import Sequence


def _cli() -> ModuleType:
    if "tfkit" in sys.modules:          # already paid for: the package's own module
        import tfkit.cli

        return tfkit.cli
    package = importlib.util.find_spec("tfkit")
    if package is None or not package.submodule_search_locations:
        raise ImportError("the tfkit package is not installed (pip install tfkit)")
    path = os.path.join(list(package.submodule_search_locations)[0], "cli.py")
    spec = importlib.util.spec_from_file_location("_tfkit_cli_unpackaged", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tfkit`` command; returns the exit code."""
    return _cli().main(argv)


if __name__ == "__main__":
    sys.exit(main())
