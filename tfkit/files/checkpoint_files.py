"""Publish a TensorFlow checkpoint (``prefix.index`` + ``prefix.data-*``) so that neither a kill nor a second saver breaks it.

    publish_checkpoint(checkpoint.write, "ckpt/w")       # write aside, then rename into place
    with reading("ckpt/w") as source:                     # what to read: "ckpt/w", or the version a killed publish kept
        tf.train.Checkpoint(model=model).read(source)

A checkpoint is several files, and TensorFlow replaces the data file before
it rewrites the index in place, so a kill in between leaves an old index with
new data. Here the new checkpoint is written under the prefix ``new`` in a
temporary folder this process claims beside the target
(``temporaries.Claim``). Then, holding the target's folder exclusively
(``folder_lock``), so that no other tfkit process publishes, recovers or
deletes there at the same time, the current files are hard-linked into that
folder under the prefix ``previous`` (data first, the index last: a
``previous`` with an index is complete), the new files are renamed over the
current ones (the index last), and ``previous`` goes (its index first).

A process killed anywhere in that sequence leaves at most one claimed folder,
which nobody else can lock while the process lives. Readers hold the folder
shared, so no publish is under way while they look: if an abandoned folder
holds a complete ``previous``, they read that (the previous checkpoint),
otherwise the prefix itself, which is then whole. Readers never change what
is on disk; the next publish of the prefix puts the previous checkpoint back
and removes the folder.
"""

from __future__ import annotations

import contextlib
import glob
import os
from typing import Callable, Iterator

from tfkit.files import temporaries
from tfkit.files.atomic import claimed
from tfkit.files.folder_lock import exclusive, shared

_NEW, _PREVIOUS = "new", "previous"


def _files(prefix: str) -> list[str]:
    """The files of the checkpoint at ``prefix``: its index and data shards."""
    escaped = glob.escape(prefix)
    return sorted(glob.glob(escaped + ".index") + glob.glob(escaped + ".data-?????-of-?????"))


def _suffix(prefix: str, path: str) -> str:
    return path[len(prefix) :]


def _claim_folders(prefix: str) -> list[str]:
    folder, base = os.path.split(prefix)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [
        os.path.join(folder, name)
        for name in names
        if name.startswith(base + ".")
        and temporaries.is_temporary_name(os.path.join(folder, name), prefix)
        and os.path.isdir(os.path.join(folder, name))
    ]


def _kept_previous(prefix: str) -> str | None:
    """The complete previous checkpoint a killed publish of ``prefix`` kept, if there is one."""
    for folder in _claim_folders(prefix):
        if os.path.exists(os.path.join(folder, _PREVIOUS + ".index")):
            return os.path.join(folder, _PREVIOUS)
    for path in temporaries.legacy(prefix):  # an earlier tfkit kept it as <prefix>.bak-<pid>-<hex>.*
        if ".bak-" in os.path.basename(path) and path.endswith(".index"):
            return path[: -len(".index")]
    return None


def readable_prefix(prefix: str) -> str | None:
    """The prefix a load of ``prefix`` reads (see :func:`reading`); None when there is no checkpoint."""
    prefix = os.path.abspath(os.fspath(prefix))
    kept = _kept_previous(prefix)
    if kept is not None:
        return kept
    return prefix if os.path.lexists(prefix + ".index") else None  # a broken index too: the reader's check names it


@contextlib.contextmanager
def reading(prefix: str) -> Iterator[str | None]:
    """Hold ``prefix``'s folder against publishers and yield the prefix to read (None: no checkpoint)."""
    prefix = os.path.abspath(os.fspath(prefix))
    with shared(os.path.dirname(prefix)):
        yield readable_prefix(prefix)


def _restore(previous: str, prefix: str) -> None:
    """Make the complete checkpoint at ``previous`` the one at ``prefix`` again (shards it lacks removed)."""
    kept = {_suffix(previous, path) for path in _files(previous)}
    for path in _files(prefix):
        if _suffix(prefix, path) not in kept:
            os.remove(path)
    data_first = sorted(_files(previous), key=lambda path: path.endswith(".index"))
    for path in data_first:
        os.replace(path, prefix + _suffix(previous, path))


def recover_publishes(prefix: str) -> None:
    """Undo publishes of ``prefix`` that were killed; call it holding the folder exclusively."""
    for claim in temporaries.abandoned(prefix):
        previous = claim.join(_PREVIOUS)
        if os.path.exists(previous + ".index"):  # killed while replacing: the previous checkpoint wins
            _restore(previous, prefix)
        claim.remove()
    leftovers = temporaries.legacy(prefix)
    backup = _kept_previous(prefix)
    if backup is not None and backup + ".index" in leftovers:
        _restore(backup, prefix)
    for path in temporaries.legacy(prefix):
        temporaries.remove_path(path)


def _drop(prefix: str) -> None:
    """Remove the checkpoint at ``prefix``, its index first (a prefix with an index is always complete)."""
    for path in sorted(_files(prefix), key=lambda path: not path.endswith(".index")):
        os.remove(path)


def publish_checkpoint(write: Callable[[str], object], prefix: str) -> str:
    """``write(temporary_prefix)``, then make it the checkpoint at ``prefix`` (see the module docstring)."""
    prefix = os.path.abspath(os.fspath(prefix))
    os.makedirs(os.path.dirname(prefix), exist_ok=True)  # as TensorFlow's writer does
    with claimed(prefix) as claim:
        new, previous = claim.join(_NEW), claim.join(_PREVIOUS)
        write(new)
        new_files = _files(new)
        if not any(path.endswith(".index") for path in new_files):
            raise OSError(f"writing the checkpoint {prefix} produced no index file")
        with exclusive(os.path.dirname(prefix)) as locked:
            if locked:  # without the lock nobody can be proven gone: leftovers stay
                recover_publishes(prefix)
            old_files = _files(prefix)
            for path in sorted(old_files, key=lambda path: path.endswith(".index")):  # data first, the index last
                os.link(path, previous + _suffix(prefix, path))
            try:
                for path in sorted(new_files, key=lambda path: path.endswith(".index")):
                    os.replace(path, prefix + _suffix(new, path))
                new_suffixes = {_suffix(new, path) for path in new_files}
                for path in old_files:  # shards of the old checkpoint the new one lacks
                    if _suffix(prefix, path) not in new_suffixes:
                        os.remove(path)
            except BaseException:
                _restore(previous, prefix)
                raise
            _drop(previous)
    return prefix
