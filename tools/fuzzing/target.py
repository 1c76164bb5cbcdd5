"""What a fuzz target is, the outcome rules every target shares, and the registry of targets.

    target = get("pickle")
    target.check(b"\\x80\\x02K\\x01.")     # returns, or raises Finding (or any non-ValueError exception)
    target.seeds(Path("corpus"))           # writes the seed corpus (real files the project makes)

An input is fine when the reader returns or raises ``ValueError`` whose message
names the input (the file, source or endpoint the caller gave). Anything else
is a finding: another exception type, a ``ValueError`` that does not say which
input failed, a disagreement with a reference reader (``Finding``), or an
import or call the guard refuses.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from typing import Any, Callable, Iterable

TARGET_MODULES = {
    "pickle": "targets.pickle_target",
    "npz": "targets.npz_target",
    "idx": "targets.idx_target",
    "keras_archive": "targets.keras_archive_target",
    "keras_config": "targets.keras_config_target",
    "tfkit_config": "targets.tfkit_config_target",
    "h5_child_output": "targets.h5_child_output_target",
    "h5_file": "targets.h5_file_target",
    "checkpoint_index": "targets.checkpoint_index_target",
    "safe_extract": "targets.safe_extract_target",
    "serving_json": "targets.serving_json_target",
    "serving_grpc": "targets.serving_grpc_target",
    "safetensors": "targets.safetensors_target",
    "sentence_piece": "targets.sentence_piece_target",
    "tokenizer_files": "targets.tokenizer_files_target",
    "preset_config": "targets.preset_config_target",
}


class Finding(AssertionError):
    """A broken invariant: the reader misbehaved on this input (the fuzzer keeps the input as a crash)."""


@dataclasses.dataclass(frozen=True)
class Target:
    """One reader under fuzzing.

    Attributes:
        name: The target's name (``tools/fuzz.py run NAME``).
        reader: What is fuzzed, in words (for reports).
        modules: The reader's modules: atheris instruments them, and the line coverage report counts them.
        guide_modules: Other modules instrumented to guide the fuzzer deeper (the standard library's
            ``zipfile`` or ``tarfile`` under a tfkit reader); not in the coverage report.
        check: Checks one input (see the module docstring).
        seeds: Writes the seed corpus into a folder; returns the number of files written.
        setup: Run once in the fuzzing process before the first input (imports, a model to load into).
        max_len: The longest input libFuzzer makes.
        timeout: Seconds one input may take before libFuzzer calls it a hang.
        allowed_events: Audit events the reader may raise (beyond the harmless ones): a child process for
            the guarded HDF5 reader, for example.
        dictionary: Tokens libFuzzer splices into inputs (the format's keywords), or None.
        suite_runs: How many inputs the test suite's brief run makes (a fixed seed and count, so that the
            suite explores the same inputs on every machine: about two seconds here).
        mutator: A custom mutator ``(data, max_size, seed) -> bytes`` (libFuzzer's ``LLVMFuzzerCustomMutator``):
            libFuzzer's own mutation, then repairs such as checksums, so that mutated inputs get past them to
            the checks behind; None: libFuzzer's mutation alone.
    """

    name: str
    reader: str
    modules: tuple[str, ...]
    check: Callable[[bytes], None]
    seeds: Callable[[Path], int]
    guide_modules: tuple[str, ...] = ()
    setup: Callable[[], None] = lambda: None
    max_len: int = 65536
    timeout: int = 20
    allowed_events: frozenset[str] = frozenset()
    dictionary: tuple[bytes, ...] | None = None
    suite_runs: int = 300
    mutator: Callable[[bytes, int, int], bytes] | None = None


# modules that are files outside any package (export/client.py): module name -> path, for the coverage report
EXTRA_MODULE_FILES: dict[str, str] = {}


def module_file(module: str) -> str:
    """The source file of ``module``, found without importing it or its packages (the coverage report starts
    measuring before they are imported, so that their module-level lines count)."""
    import importlib.util
    import os

    if module in EXTRA_MODULE_FILES:
        return EXTRA_MODULE_FILES[module]
    top, *rest = module.split(".")
    spec = importlib.util.find_spec(top)  # a top-level name: nothing is imported
    if not rest:
        return spec.origin
    folder = os.path.join(os.path.dirname(spec.origin), *rest)
    return os.path.join(folder, "__init__.py") if os.path.isdir(folder) else folder + ".py"


def names() -> list[str]:
    return list(TARGET_MODULES)


def get(name: str) -> Target:
    if name not in TARGET_MODULES:
        raise ValueError(f"unknown fuzz target {name!r}; the targets are {', '.join(TARGET_MODULES)}")
    return importlib.import_module(f"fuzzing.{TARGET_MODULES[name]}").TARGET


def expect_refusal_naming(source: str, call: Callable[[], Any]) -> tuple[bool, Any]:
    """``(True, result)`` when ``call`` returns; ``(False, None)`` for a ``ValueError`` that names ``source``.

    Any other exception propagates (a finding); a ``ValueError`` that does not name ``source`` becomes a
    ``Finding``, since a user loading many files could not tell which one was refused.
    """
    try:
        return True, call()
    except ValueError as error:
        if source not in str(error):
            raise Finding(f"ValueError does not name {source!r}: {str(error)[:500]}") from error
        return False, None


def equal(a: Any, b: Any) -> bool:
    """Deep equality of plain data and numpy arrays (NaN equal to NaN; dtypes and shapes must match)."""
    import numpy as np

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype.hasobject:
            return all(equal(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    return a == b


def write_seeds(folder: Path, named: Iterable[tuple[str, bytes]]) -> int:
    """Write ``(name, bytes)`` pairs as files of ``folder``; returns how many."""
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for name, data in named:
        (folder / name).write_bytes(data)
        count += 1
    return count


def read_guarded(
    target_events: frozenset[str],
    imports: tuple[str, ...],
    source: str,
    call: Callable[[], Any],
    write_roots: tuple[str, ...] | None = None,
) -> tuple[bool, Any]:
    """``expect_refusal_naming`` with the guard armed around the reader only (never around a reference)."""
    from fuzzing import guard

    with guard.armed(target_events, imports, write_roots):
        return expect_refusal_naming(source, call)


def warm_up(target: Target) -> None:
    """The target's setup, then its committed inputs once with the guard off (see ``guard.warming``)."""
    from fuzzing import corpus, guard

    target.setup()
    with guard.warming():
        for path in corpus.committed_inputs(target.name):
            try:
                target.check(path.read_bytes())
            except Exception:  # noqa: BLE001,S112  (findings are reported by the real run, not here)
                continue


def scratch_path(name: str) -> Path:
    """A path of this process's own scratch folder (in /dev/shm when there is one), for file-based readers."""
    import os
    import tempfile

    folder = (
        Path("/dev/shm")
        if Path("/dev/shm").is_dir() and os.access("/dev/shm", os.W_OK)
        else Path(tempfile.gettempdir())
    )
    mine = folder / f"tfkit-fuzz-{os.getpid()}"
    mine.mkdir(exist_ok=True)
    return mine / name


def as_file(data: bytes, name: str) -> str:
    """``data`` written to ``scratch_path(name)``; returns the path."""
    path = scratch_path(name)
    path.write_bytes(data)
    return str(path)
