"""The ``tfkit`` command's work: look inside saved files and export them for serving.

    tfkit inspect vae.h5                               # format, model class, weight paths, shapes, dtypes
    tfkit inspect vae.keras                            # the same for a Keras 3 archive (tfkit's or Keras's)
    tfkit export vae.h5 export/models/vae --version 1 --import examples/vae_mnist.py
    tfkit convert model.keras model.h5                 # a Keras 3 .keras or tf-keras .h5 file as tfkit's .h5

``convert`` reads a Keras 3 archive, a tf-keras ``.h5`` model or a tfkit model
file (such as a ``.keras`` file tfkit wrote in its own HDF5 format before it
wrote Keras's archive) and saves it as the target's suffix says: ``.h5`` /
``.hdf5`` tfkit's HDF5, ``.keras`` Keras 3's archive.

The command line is parsed and checked by ``tfkit_launcher`` (beside this
package, standard library only, so a wrong path is reported before TensorFlow
loads); each entry of :data:`COMMANDS` then does one command's work.
``tfkit.cli.main`` and ``python -m tfkit.cli`` are the same command.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Callable, Sequence

import tfkit_launcher
from tfkit.saving import export_saved_model, h5_format, keras_files, load_model
from tfkit.saving.inspect import describe


def _inspect(args: argparse.Namespace) -> int:
    for line in describe(args.file):
        print(line)
    return 0


def _import_user_modules(names: Sequence[str]) -> None:
    for name in names:
        try:
            tfkit_launcher.import_user_module(name)
        except Exception as error:  # the user's module failed: report it as a load error
            raise ValueError(f"could not import {name!r}: {type(error).__name__}: {error}") from None


def _export(args: argparse.Namespace) -> int:
    _import_user_modules(args.imports)
    try:
        model = load_model(args.model, compile=False)
    except ValueError as error:
        if "Unknown" in str(error) and not args.imports:
            raise ValueError(f"{error}\nIf the model uses custom classes, pass --import MODULE (a module or .py "
                             f"file that registers them).") from None
        raise
    path = export_saved_model(model, args.out_dir, version=args.version, jit_compile=args.jit_compile)
    print(f"exported {args.model} ({type(model).__name__} '{model.name}') to {path}")
    return 0


def _convert(args: argparse.Namespace) -> int:
    _import_user_modules(args.imports)
    unmapped: list[str] = []
    if keras_files.is_keras_archive(args.source) or _is_keras_h5(args.source):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # the report is printed below instead
            model, report = keras_files.import_keras(args.source)
        unmapped = report.unmapped
    else:                                            # a tfkit file (an HDF5 .keras from an earlier tfkit)
        model = load_model(args.source)
    model.save(args.target)
    written = "Keras 3 archive" if str(args.target).lower().endswith(".keras") else "tfkit HDF5"
    print(f"converted {args.source} ({type(model).__name__} '{model.name}', {len(model.weights)} weights) "
          f"to {args.target} ({written})")
    for line in unmapped:
        print(f"  not mapped: {line}")
    return 0


def _is_keras_h5(path: str) -> bool:
    """A tf-keras model .h5 (no tfkit ``format`` attribute); a tfkit HDF5 file is read by ``load_model``."""
    with h5_format.open_h5(path) as f:
        return keras_files.is_legacy(f)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "inspect": _inspect, "export": _export, "convert": _convert,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tfkit`` command (``main(["inspect", "vae.h5"])``); returns the exit code."""
    return tfkit_launcher.main(argv)


if __name__ == "__main__":
    sys.exit(main())
