"""The ``tfkit`` console command: the command line is checked before TensorFlow loads.

    $ tfkit inspect missing.h5        # "tfkit: error: No such file: missing.h5" at once
    $ python -m tfkit_launcher inspect vae.h5
    sys.exit(tfkit_launcher.main(["inspect", "vae.h5"]))

This module sits beside the ``tfkit`` package and imports only the standard
library and ``tfkit_command_line`` (which parses and checks the arguments):
``import tfkit`` imports TensorFlow (seconds), so a wrong path or option is
reported before that. Once the arguments are good, ``tfkit.cli`` is imported
(deliberately inside a function: that import, TensorFlow's with it, is the
slow part) and the command runs there.

Where a command's time goes (``tfkit inspect m.h5 --verbose`` prints it):
importing TensorFlow is most of it (2-4 s on an idle machine, several times
that on a busy one); importing tfkit adds about 0.2 s, reading a small file
about 0.2 s. Two things keep the import short and quiet, in this process only:

- TensorFlow's ``__init__`` imports Keras's optimizers eagerly (for Keras's
  own SavedModel registrations), which imports all of Keras, and with it
  SciPy, scikit-learn and matplotlib where installed: about half of the
  import. ``import tfkit`` skips that one import while TensorFlow loads
  (``tfkit/base/tensorflow_import.py``); a module given to ``--import`` can
  still import Keras afterwards.
- TensorFlow's C++ start-up lines (oneDNN, CUDA drivers) are held while it
  loads and shown only if loading fails, or with ``--verbose``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from typing import Iterator, Mapping, Sequence

import tfkit_command_line
from tfkit_command_line import Command, record_phase


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tfkit`` command; returns the exit code."""
    return tfkit_command_line.run(argv, _load_commands)


def _load_commands(args: argparse.Namespace) -> Mapping[str, Command]:
    """``tfkit.cli.COMMANDS``, importing tfkit (and TensorFlow with it, without Keras) quietly; each timed."""
    tensorflow_loaded = "tensorflow" in sys.modules
    start = time.perf_counter()
    with _held_native_stderr(show=args.verbose):
        import tfkit.cli  # the slow part, once the command line is known to be good
    took = time.perf_counter() - start
    from tfkit.base import tensorflow_import

    if not tensorflow_loaded and tensorflow_import.seconds is not None:
        record_phase("importing TensorFlow", tensorflow_import.seconds)
        took -= tensorflow_import.seconds
    record_phase("importing tfkit", took)
    return tfkit.cli.COMMANDS


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
