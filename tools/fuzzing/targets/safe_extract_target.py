"""Target ``safe_extract``: ``tfkit.utils.safe_extract.extract_archive`` on tar (plain, gz, bz2, xz) and zip.

Checks, for every input: it extracts (True), says it is no archive (False) or
raises ``ValueError`` naming the file; nothing appears outside the target folder
(the scratch folder holds only the archive and the target afterwards); no link
inside points outside; no file is executable by others or writable by group.
Reference: ``zipfile`` / ``tarfile``: every file extracted is a member of the
archive with the same bytes (a hard link: the bytes of the member it names).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import shutil
import stat
import tarfile
import warnings
import zipfile
from pathlib import Path

from fuzzing.target import Finding, Target, read_guarded, scratch_path, write_seeds

NAME = "fuzz-archive.bin"
OUT = "extracted"


def _members(path: str) -> dict[str, bytes | None]:
    """What the reference reads: member name -> bytes (None where the reference cannot read it)."""
    found: dict[str, bytes | None] = {}
    if not tarfile.is_tarfile(path):  # "auto" tries tar first: a file can be both (a zip inside a tar)
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                try:
                    found[info.filename.strip("/")] = archive.read(info)
                except Exception:  # noqa: BLE001
                    found[info.filename.strip("/")] = None
        return found
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            try:
                handle = archive.extractfile(member)
                found[member.name.strip("/")] = handle.read() if handle is not None else None
            except Exception:  # noqa: BLE001
                found[member.name.strip("/")] = None
    return found


def _check_tree(root: Path, scratch: Path) -> dict[str, bytes]:
    extra = sorted(p.name for p in scratch.iterdir() if p.name not in (NAME, OUT))
    if extra:
        raise Finding(f"extract_archive left {extra} beside the target folder")
    files = {}
    if not root.exists():
        return files
    for folder, names, entries in os.walk(root):
        for name in names + entries:
            path = Path(folder) / name
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                target = (path.parent / os.readlink(path)).resolve()
                if not target.is_relative_to(root.resolve()):
                    raise Finding(f"{path.relative_to(root)} links outside the target: {os.readlink(path)}")
            elif stat.S_ISREG(info.st_mode):
                if info.st_mode & 0o022:
                    raise Finding(f"{path.relative_to(root)} has mode {oct(info.st_mode)}")
                files[str(path.relative_to(root))] = path.read_bytes()
            elif not stat.S_ISDIR(info.st_mode):
                raise Finding(f"{path.relative_to(root)} is a special file ({oct(info.st_mode)})")
    return files


def check(data: bytes) -> None:
    from tfkit.utils.safe_extract import extract_archive

    scratch = scratch_path("safe-extract")  # a folder of its own: the check lists what is in it
    scratch.mkdir(exist_ok=True)
    path = str(scratch / NAME)
    Path(path).write_bytes(data)
    root = scratch / OUT
    shutil.rmtree(root, ignore_errors=True)
    with warnings.catch_warnings():  # a skipped member is a warning: expected here
        warnings.simplefilter("ignore")
        accepted, extracted = read_guarded(
            frozenset(), (), path, lambda: extract_archive(path, str(root)), write_roots=(str(scratch),)
        )
    files = _check_tree(root, scratch)
    if accepted and extracted:
        try:
            members = _members(path)
        except Exception as error:  # noqa: BLE001
            raise Finding(f"extract_archive extracted an archive the reference cannot list: {error!r:.300}")
        for name, content in files.items():
            if name in members and members[name] is not None and members[name] != content:
                raise Finding(f"{name}: extracted bytes differ from the archive member's")
            if name not in members:
                raise Finding(f"{name} was extracted but the archive has no such member")


def _tar(members: dict[str, bytes], mode: str = "w", links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as archive:
        folder = tarfile.TarInfo("data")
        folder.type = tarfile.DIRTYPE
        archive.addfile(folder)
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = (
                (tarfile.LNKTYPE if target.startswith("=") else tarfile.SYMTYPE),
                target.lstrip("="),
            )
            archive.addfile(info)
    return buffer.getvalue()


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def seeds(folder: Path) -> int:
    members = {"data/a.txt": b"alpha\n", "data/sub/b.bin": bytes(range(64)), "top.csv": b"x,y\n1,2\n"}
    plain = _tar(members, links={"data/link": "a.txt", "data/hard": "=data/a.txt"})
    named = [
        ("plain.tar", plain),
        ("gz.tar.gz", gzip.compress(plain)),
        ("bz2.tar.bz2", bz2.compress(plain)),
        ("xz.tar.xz", lzma.compress(plain)),
        ("deflate.zip", _zip(members)),
        ("stored.zip", _zip(members, zipfile.ZIP_STORED)),
        ("escaping.tar", _tar({"../outside.txt": b"x", "/abs.txt": b"y"}, links={"data/up": "../../etc"})),
        ("pax.tar", _tar(members, mode="w:")),
        ("not-an-archive.txt", b"just text\n"),
    ]
    return write_seeds(folder, named)


def setup() -> None:
    import tfkit.utils.safe_extract  # noqa: F401  (imported before the guard is armed)


TARGET = Target(
    name="safe_extract",
    reader="tfkit.utils.safe_extract.extract_archive (tar, tar.gz/bz2/xz, zip)",
    modules=("tfkit.utils.safe_extract", "tfkit.files.atomic"),
    guide_modules=("tarfile", "zipfile"),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=32768,
    timeout=30,
    dictionary=(
        b"ustar\x0000",
        b"ustar  \x00",
        b"PK\x03\x04",
        b"PK\x01\x02",
        b"PK\x05\x06",
        b"\x1f\x8b\x08",
        b"BZh9",
        b"\xfd7zXZ\x00",
        b"../",
        b"/etc/passwd",
        b"data/link",
        b"path=",
        b"linkpath=",
    ),
    suite_runs=300,
)
