"""An audit hook that refuses imports and calls a reader of untrusted bytes must never make.

    with armed(allowed_events=frozenset(), allowed_imports=("tfkit.",)):
        reader(data)          # a new import, a child process, exec, pickle.find_class ... -> Finding

Python raises an audit event (PEP 578) for every import of a module not yet
loaded, every process started, every ``exec``/``eval`` of code, every
``pickle`` global looked up, every socket opened and every ``ctypes`` load.
While armed, each of these (but the target's allowed ones) is refused: the hook
raises ``Finding`` where the event happens, and records it, so that a reader
that swallows the exception is still caught when ``armed`` exits. ``compile`` is
not refused: ``ast.parse`` raises it (numpy reads ``.npy`` headers with
``ast.literal_eval``, ``inspect.signature`` parses builtins' signatures), and a
compiled code object runs only through ``exec``, which is refused, but for the module
code of an allowed import (its ``<module>`` code from the allowed package's own files). Files may be
opened for writing only in the temporary folders (TMPDIR, /dev/shm), where the
readers put their scratch copies.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import tempfile
from typing import Iterator

from fuzzing.target import Finding

REFUSED_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "exec",
        "pickle.find_class",
        "ctypes.dlopen",
        "ctypes.dlsym",
        "ctypes.call_function",
        "socket.connect",
        "socket.bind",
        "socket.getaddrinfo",
        "urllib.Request",
        "webbrowser.open",
        "code.__new__",
        "function.__new__",
        "sys._getframe",
        "object.__setattr__",
    }
)
# sys._getframe, object.__setattr__ (on type attributes) are used by ordinary library code: they are listed so a
# target may allow them explicitly; they are not refused unless a target asks (see _STRICT_ONLY).
_STRICT_ONLY = frozenset({"sys._getframe", "object.__setattr__", "code.__new__", "function.__new__"})
_WRITE_MODES = ("w", "a", "x", "+")


def _writes(mode: object, flags: object) -> bool:
    if isinstance(mode, str):
        return any(flag in mode for flag in _WRITE_MODES)
    return isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND))


_state = {"armed": False, "events": frozenset(), "imports": (), "violations": [], "roots": (), "import_roots": ()}


def _writable_roots() -> tuple[str, ...]:
    roots = {os.path.realpath(tempfile.gettempdir()), "/dev/shm", os.path.realpath("/tmp")}
    return tuple(sorted(roots))


def _module_code_of_allowed_import(code: object) -> bool:
    """An allowed import runs its module's code: ``exec`` of a ``<module>`` code object from its own file."""
    filename = getattr(code, "co_filename", "")
    return getattr(code, "co_name", "") == "<module>" and filename.startswith(_state["import_roots"])


@functools.lru_cache(maxsize=None)
def _import_roots(allowed_imports: tuple[str, ...]) -> tuple[str, ...]:
    """The folders (packages) or files (modules) that the allowed imports load code from."""
    import importlib.util

    roots = []
    for name in allowed_imports:
        spec = importlib.util.find_spec(name.rstrip(".").split(".")[0])
        if spec is not None and spec.origin:
            locations = list(spec.submodule_search_locations or [])
            roots.extend(os.path.join(location, "") for location in locations)
            if not locations:
                roots.append(spec.origin)
    return tuple(roots)


def _hook(event: str, args: tuple) -> None:
    if not _state["armed"]:
        return
    problem = None
    if event == "import":
        module = args[0]
        if not any(module == p.rstrip(".") or module.startswith(p) for p in _state["imports"]):
            problem = f"imported {module!r}"
    elif event == "exec" and _module_code_of_allowed_import(args[0]):
        pass
    elif event in REFUSED_EVENTS and event not in _STRICT_ONLY and event not in _state["events"]:
        problem = f"audit event {event} {str(args)[:300]}"
    elif event == "open" and isinstance(args[0], (str, bytes)) and _writes(args[1], args[2]):
        path = os.path.realpath(os.fsdecode(args[0]))
        if not path.startswith(_state["roots"]) and path != os.devnull:
            problem = f"opened {path!r} for writing (mode {args[1]!r}, flags {args[2]!r})"
    if problem is not None:
        _state["violations"].append(problem)
        raise Finding(f"the reader {problem}")


_installed = False
_warming = {"on": False}


@contextlib.contextmanager
def warming() -> Iterator[None]:
    """Run a target's seeds with the guard off first: the lazy imports of valid inputs (zipfile's cp437
    codec, say) happen then, and only what hostile inputs add is refused afterwards."""
    _warming["on"] = True
    try:
        yield
    finally:
        _warming["on"] = False


@contextlib.contextmanager
def armed(
    allowed_events: frozenset[str] = frozenset(),
    allowed_imports: tuple[str, ...] = (),
    write_roots: tuple[str, ...] | None = None,
) -> Iterator[None]:
    """Refuse the events above while the block runs; ``Finding`` at the end if any was attempted.

    ``write_roots`` narrows where files may be opened for writing (default: the temporary folders).
    """
    global _installed
    if _warming["on"]:
        yield
        return
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    import_roots = _import_roots(allowed_imports)
    _state.update(
        armed=True,
        events=allowed_events,
        imports=allowed_imports,
        violations=[],
        import_roots=import_roots,
        roots=tuple(os.path.realpath(r).rstrip("/") + "/" for r in write_roots or _writable_roots()),
    )
    try:
        yield
    finally:
        _state["armed"] = False
    if _state["violations"]:
        raise Finding("; ".join(_state["violations"]))
