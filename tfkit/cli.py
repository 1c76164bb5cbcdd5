"""The ``tfkit`` command's work: look inside saved files, export them for serving, convert Keras's files.

    tfkit inspect vae.h5                               # format, model class, weight paths, shapes, dtypes
    tfkit inspect vae.keras                            # the same for a Keras 3 archive (tfkit's or Keras's)
    tfkit export vae.h5 export/models/vae --version 1 --import examples/vae_mnist.py
    tfkit convert model.keras model.h5                 # a Keras 3 .keras or tf-keras .h5 file as tfkit's .h5

``convert`` reads a Keras 3 archive, a tf-keras ``.h5`` model or a tfkit model
file (such as a ``.keras`` file tfkit wrote in its own HDF5 format before it
wrote Keras's archive) and saves it as the target's suffix says: ``.h5`` /
``.hdf5`` tfkit's HDF5, ``.keras`` Keras 3's archive.

``--import FILE`` (``export``, ``convert``) imports a ``.py`` file or a module
and passes the classes and functions it defines, by name, as the
``custom_objects`` the model needs: a class saved unregistered
(``custom_objects={"MyLayer": MyLayer}`` in the load error) resolves as well as
one registered with ``@tfkit.saving.register_keras_serializable()``.

The command line is parsed and checked by ``tfkit_command_line`` (beside this
package, standard library only, so the console script ``tfkit_launcher``
reports a wrong path before TensorFlow loads); each entry of :data:`COMMANDS`
then does one command's work. ``tfkit.cli.main`` and ``python -m tfkit.cli``
are the same command.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect as pyinspect
import os
import sys
import types
import warnings
from typing import Any, Callable, Sequence

import tfkit_command_line
from tfkit.base.registry import UnknownObjectError
from tfkit.saving import export_saved_model, h5_format, keras_files, load_model
from tfkit.saving.file_description import describe
from tfkit_command_line import phase


def import_user_module(name: str) -> types.ModuleType:
    """Imports a ``.py`` file by its path, or a module by its dotted name (the current folder searched too).

    Args:
        name: A path ending in ``.py`` (``my_layers.py``) or a module name (``my_package.layers``).

    Returns:
        The imported module.

    Example:
        >>> tfkit.cli.import_user_module("json").__name__
        'json'
    """
    if name.endswith(".py") and os.path.isfile(name):
        module_name = os.path.splitext(os.path.basename(name))[0]
        spec = importlib.util.spec_from_file_location(module_name, os.path.abspath(name))
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # dataclasses and pickling look the module up by name
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(module_name, None)
            raise
        return module
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(name)


def defined_objects(module: types.ModuleType) -> dict[str, Any]:
    """The classes and functions ``module`` defines (or lists in ``__all__``), by name: what ``--import`` provides.

    Each is under its ``__name__`` (the name a file saves an unregistered
    class by) and under the name the module binds it to, so a class saved
    unregistered, or registered under any package, resolves.

    Args:
        module: An imported module.

    Returns:
        A ``custom_objects`` dict.

    Example:
        >>> import argparse
        >>> sorted(tfkit.cli.defined_objects(argparse))[:2]
        ['Action', 'ArgumentDefaultsHelpFormatter']
    """
    exported = set(getattr(module, "__all__", ()) or ())
    found: dict[str, Any] = {}
    for attribute, value in vars(module).items():
        if not (pyinspect.isclass(value) or pyinspect.isfunction(value)) or attribute.startswith("_"):
            continue
        if getattr(value, "__module__", None) == module.__name__ or attribute in exported:
            found.setdefault(value.__name__, value)
            found.setdefault(attribute, value)
    return found


def _import_user_modules(names: Sequence[str]) -> dict[str, Any]:
    objects: dict[str, Any] = {}
    for name in names:
        try:
            with phase(f"importing {name}"):
                module = import_user_module(name)
        except Exception as error:  # the user's module failed: report it as a load error
            raise ValueError(f"could not import {name!r}: {type(error).__name__}: {error}") from None
        objects.update(defined_objects(module))
    return objects


def _unknown_key(error: BaseException) -> str | None:
    """The ``custom_objects`` key an unknown-name error asks for, wherever it sits in the chain of causes."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, UnknownObjectError) and error.key:
            return error.key
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def _with_import_advice(error: ValueError, imports: Sequence[str], objects: dict[str, Any]) -> ValueError:
    """The load error, plus what ``--import`` can do about an unknown name (the command line's one route)."""
    key = _unknown_key(error)
    if key is None:
        return error
    if not imports:
        advice = (
            f"With the tfkit command, --import FILE provides it: a .py file or module that defines {key} "
            f"(registered or not)."
        )
    else:
        defined = ", ".join(sorted({value.__name__ for value in objects.values()})[:20]) or "no class or function"
        advice = f"No module given to --import ({', '.join(imports)}) defines {key}; they define: {defined}."
    return ValueError(f"{error} {advice}")


def _inspect(args: argparse.Namespace) -> int:
    with phase(f"reading {args.file}"):
        lines = describe(args.file)
    for line in lines:
        print(line)
    return 0


def _export(args: argparse.Namespace) -> int:
    objects = _import_user_modules(args.imports)
    try:
        with phase(f"loading {args.model}"):
            model = load_model(args.model, custom_objects=objects, compile=False)
    except ValueError as error:
        raise _with_import_advice(error, args.imports, objects) from None
    with phase(f"exporting to {args.out_dir}"):
        path = export_saved_model(model, args.out_dir, version=args.version, jit_compile=args.jit_compile)
    print(f"exported {args.model} ({type(model).__name__} '{model.name}') to {path}")
    return 0


def _convert(args: argparse.Namespace) -> int:
    objects = _import_user_modules(args.imports)
    unmapped: list[str] = []
    try:
        with phase(f"reading {args.source}"):
            if keras_files.is_keras_archive(args.source) or _is_keras_h5(args.source):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the report is printed below instead
                    model, report = keras_files.import_keras(args.source, custom_objects=objects)
                unmapped = report.unmapped
            else:  # a tfkit file (an HDF5 .keras from an earlier tfkit)
                model = load_model(args.source, custom_objects=objects)
    except ValueError as error:
        raise _with_import_advice(error, args.imports, objects) from None
    with phase(f"writing {args.target}"):
        model.save(args.target)
    written = "Keras 3 archive" if str(args.target).lower().endswith(".keras") else "tfkit HDF5"
    print(
        f"converted {args.source} ({type(model).__name__} '{model.name}', {len(model.weights)} weights) "
        f"to {args.target} ({written})"
    )
    for line in unmapped:
        print(f"  not mapped: {line}")
    return 0


def _is_keras_h5(path: str) -> bool:
    """A tf-keras model .h5 (no tfkit ``format`` attribute); a tfkit HDF5 file is read by ``load_model``."""
    with h5_format.open_h5(path) as f:
        return keras_files.is_legacy(f)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"inspect": _inspect, "export": _export, "convert": _convert}


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the ``tfkit`` command in this process.

    Args:
        argv: The arguments after ``tfkit`` (``["inspect", "vae.h5"]``). Defaults to ``None``: ``sys.argv[1:]``.

    Returns:
        The exit code: 0 success, 1 the file could not be read, loaded or exported, 2 wrong usage,
        141 the output's reader went away.

    Example:
        >>> tfkit.cli.main(["inspect", "missing.h5"])
        1
    """
    return tfkit_command_line.run(argv, lambda args: COMMANDS)


if __name__ == "__main__":
    sys.exit(main())
