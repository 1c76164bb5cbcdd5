"""Publish a TensorFlow checkpoint (``prefix.index`` + ``prefix.data-*``) so a kill never leaves it unloadable.

    publish_checkpoint(write=lambda tmp_prefix: checkpoint.write(tmp_prefix), prefix="ckpt/w")
    recover_checkpoint("ckpt/w")     # before reading: undo a publish that was killed midway

TensorFlow replaces the data file and then rewrites the index in place, so a
kill in between leaves an old index with new data. Here the new checkpoint is
written under a temporary prefix first; the current files are hard-linked to
a backup prefix (data first, the index last, so a backup with an index is
complete); the new files are renamed over the current ones (the index last);
then the backup goes (its index first). A process killed anywhere in that
sequence leaves files that :func:`recover_checkpoint` puts back to the
previous checkpoint when a complete backup exists, and otherwise (the kill
came before the backup was complete or after the new files were all in
place) simply cleans up.
Temporary and backup prefixes carry the writing process's id, so a
concurrent save is never mistaken for a killed one.
"""

from __future__ import annotations

import glob
import os
import re
import secrets
from typing import Callable

_TOKEN = re.compile(r"\.(tmp|bak)-(\d+)-([0-9a-f]{16})")


def _files(prefix: str) -> list[str]:
    """The files of the checkpoint at ``prefix``: its index and data shards."""
    escaped = glob.escape(prefix)
    return sorted(glob.glob(escaped + ".index") + glob.glob(escaped + ".data-?????-of-?????"))


def _suffix(prefix: str, path: str) -> str:
    return path[len(prefix):]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover_checkpoint(prefix: str) -> None:
    """Undo publishes of ``prefix`` whose process died: restore backups, delete temporary files."""
    prefix = os.path.abspath(os.fspath(prefix))
    folder, base = os.path.split(prefix)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    tokens = set()
    for name in names:
        if name.startswith(base + "."):
            match = _TOKEN.match(name[len(base):])
            if match and not _alive(int(match.group(2))):
                tokens.add((match.group(2), match.group(3)))
    for pid, token in sorted(tokens):
        backup = f"{prefix}.bak-{pid}-{token}"
        backup_files = _files(backup)
        if os.path.exists(backup + ".index"):          # a complete backup: the previous checkpoint wins
            for path in backup_files:
                _put_back(path, prefix + _suffix(backup, path))
        else:                                          # a backup being made or being removed: current is whole
            for path in backup_files:
                _remove(path)
        temporary = f"{prefix}.tmp-{pid}-{token}"
        for path in _files(temporary) + glob.glob(glob.escape(temporary) + "_temp*"):
            _remove(path)


def _put_back(backup: str, target: str) -> None:
    """Move a backup file over ``target``; drop it where it still is ``target`` (a link made before the kill).

    rename(2) does nothing when both names are links to one file, so without
    this check the backup would stay and overwrite a later save's file.
    """
    try:
        same = os.path.samefile(backup, target)
    except FileNotFoundError:
        same = False
    if same:
        os.remove(backup)
    else:
        os.replace(backup, target)


def _remove(path: str) -> None:
    try:
        if os.path.isdir(path):
            import shutil

            shutil.rmtree(path)
        else:
            os.remove(path)
    except FileNotFoundError:
        pass


def publish_checkpoint(write: Callable[[str], object], prefix: str) -> str:
    """``write(temporary_prefix)``, then make it the checkpoint at ``prefix`` (see the module docstring)."""
    prefix = os.path.abspath(os.fspath(prefix))
    recover_checkpoint(prefix)
    token = f"{os.getpid()}-{secrets.token_hex(8)}"
    temporary, backup = f"{prefix}.tmp-{token}", f"{prefix}.bak-{token}"
    try:
        write(temporary)
        new_files = _files(temporary)
        if not any(path.endswith(".index") for path in new_files):
            raise OSError(f"writing the checkpoint {prefix} produced no index file")
        old_files = _files(prefix)
        for path in old_files:
            os.link(path, backup + _suffix(prefix, path))
        data_first = sorted(new_files, key=lambda path: path.endswith(".index"))   # the index last
        for path in data_first:
            os.replace(path, prefix + _suffix(temporary, path))
        new_suffixes = {_suffix(temporary, path) for path in new_files}
        for path in old_files:                      # shards of the old checkpoint the new one lacks
            if _suffix(prefix, path) not in new_suffixes:
                _remove(path)
    except BaseException as error:
        for path in _files(backup):                 # put the previous checkpoint back
            _put_back(path, prefix + _suffix(backup, path))
        for path in _files(temporary) + glob.glob(glob.escape(temporary) + "_temp*"):
            _remove(path)
        from tfkit.saving.atomic import _no_space, _space_error

        if _no_space(error):
            raise _space_error(prefix, error) from error
        raise
    for path in sorted(_files(backup), key=lambda path: not path.endswith(".index")):   # index first
        _remove(path)
    return prefix
