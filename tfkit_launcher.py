"""The ``tfkit`` console command: the command line is checked before TensorFlow loads.

    $ tfkit inspect missing.h5        # "tfkit: error: No such file: missing.h5" at once
    $ python -m tfkit_launcher inspect vae.h5
    sys.exit(tfkit_launcher.main(["inspect", "vae.h5"]))

This module sits beside the ``tfkit`` package and imports only the standard
library: ``import tfkit`` imports TensorFlow (seconds), so the arguments and the
input path are checked here first. Once they are good, ``main`` imports
``tfkit.cli`` (deliberately inside the function: that import is the slow part)
and runs the command there.

Exit codes: 0 success, 1 the file could not be read, loaded or exported,
2 wrong usage. Errors go to stderr as one ``tfkit: error: ...`` line.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from typing import Sequence


class UsageError(Exception):
    """Wrong use of the command line (exit code 2)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tfkit", description="Inspect tfkit files and export them for TensorFlow Serving.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    inspect = commands.add_parser("inspect", help="describe an .h5 file or a SavedModel folder")
    inspect.add_argument("file", metavar="FILE", help="a tfkit .h5 file (model or weights) or a SavedModel folder")
    export = commands.add_parser("export", help="export an .h5 model file as a SavedModel for TensorFlow Serving")
    export.add_argument("model", metavar="MODEL.h5", help="a model file written by model.save()")
    export.add_argument("out_dir", metavar="OUT_DIR", help="the export folder (with --version: the model's base folder)")
    export.add_argument("--version", type=int, default=None, metavar="N",
                        help="write OUT_DIR/N, TensorFlow Serving's versioned layout (N >= 1)")
    export.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                        help="import this module or .py file first, so the custom classes it registers "
                             "can be loaded (this runs that module's code; repeatable)")
    export.add_argument("--jit-compile", action="store_true", help="trace the serving function with XLA")
    convert = commands.add_parser("convert", help="read a Keras .keras or tf-keras .h5 model and save it as a tfkit file")
    convert.add_argument("source", metavar="MODEL.keras", help="a Keras 3 .keras archive or a tf-keras model .h5 file")
    convert.add_argument("target", metavar="OUT.h5", help="the tfkit model file to write")
    convert.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                         help="import this module or .py file first, so the custom classes it registers "
                              "can be loaded (this runs that module's code; repeatable)")
    return parser



def import_user_module(name: str) -> None:
    if name.endswith(".py") and os.path.isfile(name):
        module_name = os.path.splitext(os.path.basename(name))[0]
        spec = importlib.util.spec_from_file_location(module_name, os.path.abspath(name))
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        return
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    importlib.import_module(name)



def _check_arguments(args: argparse.Namespace) -> None:
    """Refuse a bad option, a missing input or a folder where none fits, before tfkit and TensorFlow load."""
    if args.command == "export" and args.version is not None and args.version < 1:
        raise UsageError(f"--version must be a positive integer, got {args.version}")
    path = getattr(args, {"inspect": "file", "export": "model", "convert": "source"}[args.command])
    if not os.path.exists(path):
        raise FileNotFoundError(f"No such file: {path}")
    if args.command == "inspect" and os.path.isdir(path) and not os.path.exists(os.path.join(path, "saved_model.pb")):
        raise ValueError(f"{path} is a folder without saved_model.pb; expected a SavedModel or a tfkit .h5 file")
    if args.command == "export" and os.path.isdir(path):
        raise ValueError(f"{path} is a folder, not a model file written by model.save() (an .h5 file)")



def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tfkit`` command; returns the exit code."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on usage errors, 0 for --help
        return int(exit_.code or 0)
    try:
        _check_arguments(args)
        import tfkit.cli  # TensorFlow loads here, once the command line is known to be good

        return tfkit.cli.COMMANDS[args.command](args)
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"tfkit: error: {error}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as error:
        print(f"tfkit: error: {_one_line(str(error))}", file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001  a damaged file must never show the user a traceback
        target = getattr(args, "file", None) or getattr(args, "model", "")
        print(f"tfkit: error: could not read {target}: {type(error).__name__}: {_one_line(str(error))}",
              file=sys.stderr)
        return 1


def _one_line(message: str) -> str:
    return " ".join(part.strip() for part in message.splitlines() if part.strip())




if __name__ == "__main__":
    sys.exit(main())
