"""Atomic saves: write beside the target, flush to disk, then rename over it.

    with atomic_file("model.h5") as tmp:     # tmp == "model.h5.tmp-3f9c1a2b7d4e5f60"
        write_everything_to(tmp)
    # model.h5 is either the old file or the complete new one, never half of each

A save killed midway (power loss, SIGKILL) leaves the previous target intact.
The temporary name ``<target>.tmp-<16 hex digits>`` sits in the same folder
(a rename is only atomic within one file system); loads never look at such
names, and the next successful save of the same target removes any left over
by a killed save. Directories (SavedModel exports) are published the same
way; TensorFlow Serving ignores version folders whose names are not numbers,
so it never sees a half-written ``1.tmp-...`` folder.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
from typing import Iterator

_TEMP_SUFFIX = re.compile(r"\.(tmp|old)-[0-9a-f]{16}$")


def temp_name(target: str, kind: str = "tmp") -> str:
    """``<target>.tmp-<random hex>`` in the target's folder."""
    return f"{target}.{kind}-{secrets.token_hex(8)}"


def is_temp_name(path: str) -> bool:
    """Whether ``path`` is a temporary name made by :func:`temp_name`."""
    return _TEMP_SUFFIX.search(os.path.basename(path)) is not None


def _fsync_file(path: str) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder or ".", os.O_RDONLY)
    except OSError:
        return  # some platforms cannot open folders; the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_tree(root: str) -> None:
    for folder, _, files in os.walk(root):
        for name in files:
            _fsync_file(os.path.join(folder, name))
        _fsync_dir(folder)


def remove_stale_temps(target: str) -> list[str]:
    """Delete ``<target>.tmp-*`` / ``.old-*`` left by saves that were killed; returns what was removed."""
    folder = os.path.dirname(os.path.abspath(target))
    base = os.path.basename(target)
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if name.startswith(base + ".") and _TEMP_SUFFIX.fullmatch(name[len(base):]) is not None:
            path = os.path.join(folder, name)
            try:
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.remove(path)
                removed.append(path)
            except OSError:
                pass
    return removed


def check_target(target: str, overwrite: bool, directory: bool = False) -> str:
    """The absolute target path; ``ValueError`` if it exists and ``overwrite`` is False."""
    target = os.path.abspath(os.fspath(target))
    if os.path.lexists(target):
        if not overwrite:
            raise ValueError(f"{target} already exists and overwrite=False; pass overwrite=True to replace it")
        if directory != os.path.isdir(target):
            what = "a folder" if os.path.isdir(target) else "a file"
            raise ValueError(f"{target} exists and is {what}; refusing to replace it with a {'folder' if directory else 'file'}")
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        os.makedirs(parent, exist_ok=True)
    return target


@contextlib.contextmanager
def atomic_file(target: str, overwrite: bool = True) -> Iterator[str]:
    """Yield a temporary path; on success fsync it and rename it over ``target``."""
    target = check_target(target, overwrite)
    tmp = temp_name(target)
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, target)
        _fsync_dir(os.path.dirname(target))
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    remove_stale_temps(target)


@contextlib.contextmanager
def atomic_directory(target: str, overwrite: bool = True) -> Iterator[str]:
    """Yield a temporary folder path; on success publish it as ``target``.

    An existing ``target`` is first renamed aside and removed after the new
    folder is in place, so readers see the old or the new folder, whole.
    """
    target = check_target(target, overwrite, directory=True)
    tmp = temp_name(target)
    try:
        yield tmp
        _fsync_tree(tmp)
        old = None
        if os.path.isdir(target):
            old = temp_name(target, "old")
            os.replace(target, old)
        try:
            os.replace(tmp, target)
        except BaseException:
            if old is not None:
                os.replace(old, target)
            raise
        _fsync_dir(os.path.dirname(target))
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    remove_stale_temps(target)
