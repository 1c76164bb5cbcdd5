"""The ``tfkit`` console command: the command line is checked before TensorFlow loads.

    $ tfkit inspect missing.h5        # "tfkit: error: No such file: missing.h5" at once
    $ python -m tfkit_launcher inspect vae.h5
    sys.exit(tfkit_launcher.main(["inspect", "vae.h5"]))

This module sits beside the ``tfkit`` package and imports only the standard
library and ``tfkit_command_line`` (which parses and checks the arguments):
``import tfkit`` imports TensorFlow (seconds), so a wrong path or option is
reported before that. Once the arguments are good, TensorFlow and
``tfkit.cli`` are imported (deliberately inside a function: that import is
the slow part) and the command runs there.

Where a command's time goes (``tfkit inspect m.h5 --verbose`` prints it):
importing TensorFlow is most of it (2-4 s on an idle machine, several times
that on a busy one); importing tfkit adds about 0.2 s, reading a small file
about 0.2 s. Two things keep the import short and quiet, in this process only:

- TensorFlow's ``__init__`` imports Keras's optimizers eagerly (for Keras's
  own SavedModel registrations), which imports all of Keras, and with it
  SciPy, scikit-learn and matplotlib where installed: about half of the
  import. tfkit never uses Keras, so that one import is skipped while
  TensorFlow loads (TensorFlow catches the ``ImportError``); a module given
  to ``--import`` can still import Keras afterwards.
- TensorFlow's C++ start-up lines (oneDNN, CUDA drivers) are held while it
  loads and shown only if loading fails, or with ``--verbose``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from typing import Iterator, Mapping, Sequence

import tfkit_command_line
from tfkit_command_line import Command, phase

# What TensorFlow's __init__ imports eagerly: Keras's optimizers (all of Keras), or tf-keras's.
_KERAS_PRELOADS = ("keras.src.optimizers", "tf_keras.src.optimizers")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tfkit`` command; returns the exit code."""
    return tfkit_command_line.run(argv, _load_commands)


def _load_commands(args: argparse.Namespace) -> Mapping[str, Command]:
    """``tfkit.cli.COMMANDS``, importing TensorFlow (timed, quiet, without Keras) and tfkit first."""
    if "tensorflow" not in sys.modules:
        with phase("importing TensorFlow"), _held_native_stderr(show=args.verbose), _without_keras_preload():
            import tensorflow  # noqa: F401  the slow part, once the command line is known to be good
    with phase("importing tfkit"):
        import tfkit.cli
    return tfkit.cli.COMMANDS


@contextlib.contextmanager
def _without_keras_preload() -> Iterator[None]:
    """TensorFlow's import skips its eager import of Keras; afterwards Keras imports normally again."""
    blocked = [name for name in _KERAS_PRELOADS if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]   # import_module(name) raises ImportError
    try:
        yield
    finally:
        for name in blocked:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]


@contextlib.contextmanager
def _held_native_stderr(show: bool) -> Iterator[None]:
    """Native code's writes to stderr go to a temporary file inside the block, replayed only if it fails."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # stderr is not a file (captured by a caller)
        fd = -1
    if show or fd < 0:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(fd)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), fd)
        try:
            yield
        except BaseException:
            sys.stderr.flush()
            os.dup2(saved, fd)
            held.seek(0)
            sys.stderr.write(held.read().decode(errors="replace"))
            raise
        finally:
            sys.stderr.flush()
            os.dup2(saved, fd)
            os.close(saved)


if __name__ == "__main__":
    sys.exit(main())
