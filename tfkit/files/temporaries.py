"""Temporary folders beside a save's target, each locked by the process writing in it.

    claim = Claim.beside("models/m.h5")     # models/m.h5.tmp-<32 hex>/, locked while this process lives
    write_to(claim.join("m.h5"))
    claim.remove()

A save writes into a folder of its own next to the target (a rename is atomic
only within one file system) and publishes from there. The folder's name
carries 128 random bits and ``mkdir`` refuses a name that exists, so two
savers never share one, whatever machine or PID namespace they run in. The
folder is created and locked (``folder_lock.Held``) while the target's folder
is held shared; a cleaner holds that folder exclusively and takes over only
the temporaries it can lock itself, which the kernel allows only once their
writer is dead (:func:`abandoned`). Loads never look inside them, except to
read a complete previous version that a killed publish left there.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil

from tfkit.files.folder_lock import Held, shared

_NAME = re.compile(r"\.tmp-[0-9a-f]{32}")
# What tfkit before the folder locks left: ``<target>.tmp-<pid>-<16 hex>`` files or folders, ``.old-`` folders of an
# interrupted directory swap and ``.bak-`` checkpoint backups; ``(\..*|_temp)?`` is a checkpoint's file or shard folder.
LEGACY_NAME = re.compile(r"\.(tmp|old|bak)-(?:\d+-)?[0-9a-f]{16}(?:\..*|_temp.*)?")


def _split(target: str) -> tuple[str, str]:
    return os.path.split(os.path.abspath(os.fspath(target)))


def is_temporary_name(path: str, target: str) -> bool:
    """Whether ``path`` is one of ``target``'s temporaries (a claimed folder or one tfkit used to make)."""
    folder, base = _split(target)
    name = os.path.basename(path)
    if os.path.dirname(os.path.abspath(path)) != folder or not name.startswith(base + "."):
        return False
    rest = name[len(base) :]
    return _NAME.fullmatch(rest) is not None or LEGACY_NAME.fullmatch(rest) is not None


class Claim:
    """A temporary folder beside a target, locked by this process until :meth:`remove`."""

    def __init__(self, path: str, held: Held | None) -> None:
        self.path = path
        self._held = held

    @classmethod
    def beside(cls, target: str) -> Claim:
        """Create and lock ``<target>.tmp-<32 hex>/`` in the target's folder."""
        folder, base = _split(target)
        with shared(folder):  # a cleaner (exclusive) sees the folder only once it is locked
            while True:
                path = os.path.join(folder, f"{base}.tmp-{secrets.token_hex(16)}")
                try:
                    os.mkdir(path)
                except FileExistsError:
                    continue
                break
            return cls(path, Held.take(path))

    def join(self, *names: str) -> str:
        return os.path.join(self.path, *names)

    def remove(self) -> None:
        """Delete the folder and what is in it, then drop the lock."""
        try:
            shutil.rmtree(self.path)
        except FileNotFoundError:
            pass
        finally:
            if self._held is not None:
                self._held.release()
                self._held = None


def abandoned(target: str) -> list[Claim]:
    """The temporaries of ``target`` whose writer is gone, now locked by this process.

    Call it while holding the target's folder exclusively; the caller puts
    back what it needs from each one and then calls :meth:`Claim.remove`.
    """
    folder, base = _split(target)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    claims = []
    for name in names:
        if not name.startswith(base + ".") or _NAME.fullmatch(name[len(base) :]) is None:
            continue
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            held = Held.take(path, wait=False)
            if held is not None:
                claims.append(Claim(path, held))
    return claims


def legacy(target: str) -> list[str]:
    """Temporaries an earlier tfkit left beside ``target`` (it ran no locks: they are taken as abandoned)."""
    folder, base = _split(target)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [
        os.path.join(folder, name)
        for name in names
        if name.startswith(base + ".") and LEGACY_NAME.fullmatch(name[len(base) :])
    ]


def remove_path(path: str) -> None:
    """Remove a file, link or folder tree; nothing if it is gone already."""
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    except FileNotFoundError:
        pass
