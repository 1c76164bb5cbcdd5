"""The ``tfkit`` command line, with the standard library only: parse, check, run, report.

    code = tfkit_command_line.run(["inspect", "vae.h5"], load_commands)   # load_commands(args) -> COMMANDS

Both ways into the command use it: ``tfkit_launcher`` (the console script, which
imports TensorFlow only once the arguments are known to be good) and
``tfkit.cli`` (``tfkit.cli.main``, ``python -m tfkit.cli``), whose
:data:`~tfkit.cli.COMMANDS` do each command's work. Neither imports the other's
module for this: both import this one, which imports nothing of tfkit.

Exit codes: 0 success, 1 the file could not be read, loaded or exported,
2 wrong usage, 141 the reader of the output went away (``tfkit inspect m.h5 |
head -1``: what a shell reports for a Unix tool ended by SIGPIPE, and nothing
on stderr). Errors go to stderr as one ``tfkit: error: ...`` line;
``--verbose`` adds one ``tfkit: time: ...`` line saying where the time went.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from typing import Callable, Iterator, Mapping, Sequence

Command = Callable[[argparse.Namespace], int]
CLOSED_OUTPUT = 128 + 13  # 128 + SIGPIPE, as a shell reports a tool that wrote to a closed pipe

_PHASES: list[tuple[str, float]] = []


class UsageError(Exception):
    """Wrong use of the command line (exit code 2)."""


def build_parser() -> argparse.ArgumentParser:
    """The ``tfkit`` argument parser: ``inspect``, ``export`` and ``convert``."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="say on stderr where the time went (importing TensorFlow, reading, loading, writing) "
        "and show TensorFlow's start-up log",
    )
    imports = argparse.ArgumentParser(add_help=False)
    imports.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="FILE",
        help="import this .py file or module first: the classes and functions it defines (registered "
        "or not) are the custom_objects the model needs (this runs its code; repeatable)",
    )
    parser = argparse.ArgumentParser(
        prog="tfkit",
        description="Inspect tfkit and Keras model files, export them for TensorFlow Serving, convert Keras's files.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    inspect = commands.add_parser(
        "inspect",
        parents=[common],
        help="describe a tfkit .h5, a Keras 3 .keras or .weights.h5 file, or a SavedModel folder",
    )
    inspect.add_argument(
        "file",
        metavar="FILE",
        help="a tfkit .h5 file (model or weights), a Keras 3 .keras archive or .weights.h5 file, "
        "or a SavedModel folder",
    )
    export = commands.add_parser(
        "export", parents=[common, imports], help="export a model file as a SavedModel for TensorFlow Serving"
    )
    export.add_argument("model", metavar="MODEL.h5", help="a model file written by model.save() (.h5 or .keras)")
    export.add_argument(
        "out_dir", metavar="OUT_DIR", help="the export folder (with --version: the model's base folder)"
    )
    export.add_argument(
        "--version",
        type=int,
        default=None,
        metavar="N",
        help="write OUT_DIR/N, TensorFlow Serving's versioned layout (N >= 1)",
    )
    export.add_argument("--jit-compile", action="store_true", help="trace the serving function with XLA")
    convert = commands.add_parser(
        "convert",
        parents=[common, imports],
        help="read a Keras .keras or tf-keras .h5 model and save it as a tfkit file",
    )
    convert.add_argument("source", metavar="MODEL.keras", help="a Keras 3 .keras archive or a tf-keras model .h5 file")
    convert.add_argument("target", metavar="OUT.h5", help="the tfkit model file to write")
    return parser


def check_arguments(args: argparse.Namespace) -> None:
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


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    """Times one step of the command for the ``--verbose`` line (``with phase("reading m.h5"): ...``)."""
    start = time.perf_counter()
    try:
        yield
    finally:
        _PHASES.append((name, time.perf_counter() - start))


def record_phase(name: str, seconds: float) -> None:
    """Adds a step timed elsewhere to the ``--verbose`` line (the import of TensorFlow, timed by tfkit)."""
    _PHASES.append((name, seconds))


def run(argv: Sequence[str] | None, load_commands: Callable[[argparse.Namespace], Mapping[str, Command]]) -> int:
    """Parse and check ``argv``, then run the command ``load_commands(args)`` names; returns the exit code."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    start = time.perf_counter()
    _PHASES.clear()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on usage errors, 0 for --help
        return int(exit_.code or 0)
    try:
        check_arguments(args)
        command = load_commands(args)[args.command]
        code = command(args)
        sys.stdout.flush()  # a closed pipe shows here at the latest, not at the interpreter's exit
    except BrokenPipeError:
        _drop_closed_output()
        return CLOSED_OUTPUT
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"tfkit: error: {error}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as error:
        print(f"tfkit: error: {one_line(str(error))}", file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001  a damaged file must never show the user a traceback
        target = getattr(args, "file", None) or getattr(args, "model", None) or getattr(args, "source", "")
        print(f"tfkit: error: could not read {target}: {type(error).__name__}: {one_line(str(error))}", file=sys.stderr)
        return 1
    finally:
        if args.verbose:
            _report_time(time.perf_counter() - start)
    return code


def _drop_closed_output() -> None:
    """Point stdout at /dev/null, so nothing (the interpreter's last flush included) writes to the closed pipe.

    This is what Python's documentation recommends for SIGPIPE
    (https://docs.python.org/3/library/signal.html#note-on-sigpipe).
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # stdout is not a file (captured by a caller)
        pass


def _report_time(total: float) -> None:
    parts = [f"{name} {seconds:.2f} s" for name, seconds in _PHASES]
    rest = total - sum(seconds for _, seconds in _PHASES)
    parts.append(f"the rest {rest:.2f} s")
    with contextlib.suppress(OSError):
        print(f"tfkit: time: {', '.join(parts)}; {total:.2f} s in all", file=sys.stderr)


def one_line(message: str) -> str:
    """``message`` with its lines joined, for the one ``tfkit: error:`` line."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())
