"""Extract tar and zip archives without letting them write outside their folder.

    extract_archive("flowers.tgz", "~/.keras/datasets/flowers")   # True: extracted
    extract_archive("notes.txt", "somewhere")                    # False: not an archive
    # members with absolute paths, "..", device files or links leaving the folder are skipped, with a warning

Members are written one by one by this module (never ``extractall``) into a
fresh folder of the extraction's own, beside the target: every parent folder on
the way must be a real folder (never a link), files are created with
``O_NOFOLLOW | O_EXCL``, a hard link becomes a copy of the archive member it
names, and symbolic links must point inside, also through other links (checked
again once everything is written). Character and block devices and FIFOs are
skipped; permission bits are reduced to 0o644/0o755. The new folder then
becomes the target in one rename; into an existing target its entries are moved
over those of the same name (as Keras's extraction overwrites them), and
nothing else there is touched. A failed extraction removes only its own folder.
"""

from __future__ import annotations

import lzma
import os
import posixpath
import shutil
import stat
import tarfile
import warnings
import zipfile
from typing import IO, Sequence

from tfkit.files import atomic
from tfkit.files.zip_errors import ZIP_READ_ERRORS, machine_fault

_OPEN_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _skip(name: str, why: str) -> None:
    warnings.warn(f"Skipping invalid path during archive extraction: {name!r} ({why})", stacklevel=4)


def _parts(name: str) -> list[str] | None:
    """The normalized components of a member name, or None when it leaves the folder (absolute, '..')."""
    if not name or name.startswith("/") or "\x00" in name:
        return None
    normalized = posixpath.normpath(name)
    if normalized == ".." or normalized.startswith("../"):
        return None
    return [] if normalized == "." else normalized.split("/")


def _link_stays_inside(parts: list[str], target: str) -> bool:
    """Whether a symbolic link at ``parts`` pointing to ``target`` names a place inside the folder."""
    if not target or target.startswith("/") or "\x00" in target:
        return False
    joined = posixpath.normpath(posixpath.join(*parts[:-1], target) if len(parts) > 1 else target)
    return not (joined == ".." or joined.startswith("../"))


def _folder(root: str, parts: Sequence[str]) -> str | None:
    """``root/parts...`` as real folders (made when missing); None when something else is in the way."""
    current = root
    for part in parts:
        current = os.path.join(current, part)
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            os.mkdir(current, 0o755)
            continue
        if not stat.S_ISDIR(mode):  # a file or a link (lstat never follows it)
            return None
    return current


def _place(root: str, parts: list[str], name: str) -> str | None:
    """The path to create for member ``parts``: its parents made real folders, an earlier member removed."""
    parent = _folder(root, parts[:-1])
    if parent is None:
        _skip(name, "a parent folder is a link or a file")
        return None
    destination = os.path.join(parent, parts[-1])
    if os.path.lexists(destination):
        if stat.S_ISDIR(os.lstat(destination).st_mode):
            _skip(name, "a folder of the same name was extracted before")
            return None
        os.unlink(destination)  # an earlier member of this archive, in this extraction's own folder
    return destination


def _write(destination: str, source: IO[bytes], executable: bool) -> None:
    descriptor = os.open(destination, _OPEN_FLAGS, 0o755 if executable else 0o644)
    with os.fdopen(descriptor, "wb") as out:
        shutil.copyfileobj(source, out, 1 << 20)


def _extract_tar(archive: tarfile.TarFile, root: str) -> None:
    for member in archive:
        parts = _parts(member.name)
        if parts is None:
            _skip(member.name, "outside the target folder")
            continue
        if member.isdir():
            if _folder(root, parts) is None:
                _skip(member.name, "a parent folder is a link or a file")
            continue
        if not parts:
            continue
        if member.issym():
            if not _link_stays_inside(parts, member.linkname):
                _skip(member.name, f"a symbolic link to {member.linkname!r}, outside the target folder")
                continue
            destination = _place(root, parts, member.name)
            if destination is not None:
                os.symlink(member.linkname, destination)
            continue
        if member.islnk() and _parts(member.linkname) is None:
            _skip(member.name, f"a hard link to {member.linkname!r}, outside the target folder")
            continue
        if not (member.isfile() or member.islnk()):
            _skip(member.name, "a device file or FIFO")
            continue
        try:
            source = archive.extractfile(member)  # a hard link reads the member it names, from the archive
        except (KeyError, tarfile.TarError, RecursionError) as error:
            _skip(member.name, f"cannot be read: {error}")
            continue
        if source is None:
            _skip(member.name, "no data")
            continue
        destination = _place(root, parts, member.name)
        if destination is not None:
            with source:
                _write(destination, source, bool(member.mode & 0o111))


def _extract_zip(archive: zipfile.ZipFile, root: str) -> None:
    for info in archive.infolist():
        parts = _parts(info.filename)
        if parts is None:
            _skip(info.filename, "outside the target folder")
            continue
        if info.is_dir():
            if _folder(root, parts) is None:
                _skip(info.filename, "a parent folder is a link or a file")
            continue
        if not parts:
            continue
        destination = _place(root, parts, info.filename)
        if destination is not None:
            with archive.open(info) as source:  # a zip "link" entry is written as the file it is
                _write(destination, source, bool((info.external_attr >> 16) & 0o111))


def _drop_escaping_links(root: str) -> None:
    """Remove links whose chain of links ends outside ``root`` (each link alone pointed inside)."""
    real_root = os.path.realpath(root)
    changed = True
    while changed:
        changed = False
        for folder, folders, files in os.walk(root):
            for name in folders + files:
                path = os.path.join(folder, name)
                if not os.path.islink(path):
                    continue
                real = os.path.realpath(path)
                if os.path.commonpath([real, real_root]) != real_root:
                    os.unlink(path)
                    _skip(os.path.relpath(path, root), "its links lead outside the target folder")
                    changed = True


def _move_into(source: str, target: str) -> None:
    """Move the entries of folder ``source`` into folder ``target``, replacing files of the same name."""
    for name in sorted(os.listdir(source)):
        origin, destination = os.path.join(source, name), os.path.join(target, name)
        origin_is_folder = os.path.isdir(origin) and not os.path.islink(origin)
        if not os.path.lexists(destination):
            os.replace(origin, destination)
        elif origin_is_folder:
            if os.path.islink(destination) or not os.path.isdir(destination):
                raise ValueError(
                    f"Cannot extract folder {name!r} into {target}: {destination} exists and is not a "
                    "folder; move it away and try again"
                )
            _move_into(origin, destination)
        elif os.path.isdir(destination) and not os.path.islink(destination):
            raise ValueError(
                f"Cannot extract file {name!r} into {target}: {destination} is a folder; move it away and try again"
            )
        else:
            os.replace(origin, destination)


# What a damaged archive raises while it is read (tarfile, zipfile and their decompressors); an OSError is the
# archive's unless its errno says the machine fell short (zip_errors.machine_fault: a full disk stays an OSError)
_DAMAGED = ZIP_READ_ERRORS + (tarfile.TarError, lzma.LZMAError)


def _extract(kind: str, file_path: str, folder: str) -> None:
    os.mkdir(folder, 0o755)
    try:
        if kind == "tar":
            with tarfile.open(file_path) as archive:
                _extract_tar(archive, folder)
        else:
            with zipfile.ZipFile(file_path) as archive:
                _extract_zip(archive, folder)
    except _DAMAGED as error:
        if machine_fault(error):
            raise
        raise ValueError(
            f"Cannot extract {file_path}: a damaged {kind} archive ({type(error).__name__}: "
            f"{error}); nothing was extracted"
        ) from error
    _drop_escaping_links(folder)


def archive_kind(file_path: str, archive_format: str | Sequence[str] | None = "auto") -> str | None:
    """``"tar"`` or ``"zip"``: the first of ``archive_format`` the file is; None when it is none of them."""
    if archive_format is None:
        return None
    formats = (
        ["tar", "zip"]
        if archive_format == "auto"
        else [archive_format]
        if isinstance(archive_format, str)
        else list(archive_format)
    )
    for kind in formats:
        if kind not in ("tar", "zip"):
            raise ValueError(f"archive_format must be 'auto', 'tar', 'zip', a list of those or None; got {kind!r}")
        try:  # tarfile.is_tarfile lets EOFError out of a truncated .tar.gz (it catches only TarError)
            if (tarfile.is_tarfile if kind == "tar" else zipfile.is_zipfile)(file_path):
                return kind
        except _DAMAGED as error:
            if machine_fault(error):
                raise
            raise ValueError(
                f"Cannot extract {file_path}: a damaged {kind} archive ({type(error).__name__}: "
                f"{error}); nothing was extracted"
            ) from error
    return None


def _fsync(path: str, flags: int) -> None:
    descriptor = os.open(path, os.O_RDONLY | flags)
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # some file systems cannot sync a folder; the rename is still atomic
    finally:
        os.close(descriptor)


def _sync(root: str) -> None:
    """fsync the regular files and folders under ``root`` (links are neither followed nor opened)."""
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                _fsync(path, getattr(os, "O_NOFOLLOW", 0))
        _fsync(folder, 0)


def extract_archive(
    file_path: str | os.PathLike, path: str | os.PathLike = ".", archive_format: str | Sequence[str] | None = "auto"
) -> bool:
    """Extract ``file_path`` (tar, tar.gz, tar.bz2, tar.xz or zip) into folder ``path``; False if it is no archive.

    A damaged archive is a ``ValueError`` naming it (its ``tarfile``/``zipfile`` error chained), and leaves
    nothing behind; a full disk stays an ``OSError``.
    """
    file_path, path = os.fspath(file_path), os.path.abspath(os.fspath(path))
    kind = archive_kind(file_path, archive_format)
    if kind is None:
        return False
    if os.path.lexists(path) and not os.path.isdir(path):
        raise ValueError(f"Cannot extract {file_path} into {path}: it exists and is not a folder")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with atomic.claimed(path) as claim:  # beside the target: removed, with what is left in it, at the end
        folder = claim.join("extracted")
        _extract(kind, file_path, folder)
        _sync(folder)
        if not os.path.lexists(path):
            try:
                os.rename(folder, path)  # a new target appears complete, in one step
                return True
            except OSError:
                if not os.path.isdir(path):  # another process extracting the same archive won the race
                    raise
        _move_into(folder, path)
    return True
