"""Archive extraction for get_file (issue 19): hostile tar and zip members never write outside the target."""

import io
import os
import stat
import tarfile
import zipfile

import pytest

from tfkit.utils.safe_extract import extract_archive


def _tar(path, members, mode="w:gz"):
    """``members``: (name, kind, payload) with kind file / dir / sym / lnk / chr / fifo."""
    with tarfile.open(path, mode) as archive:
        for name, kind, payload in members:
            info = tarfile.TarInfo(name)
            data = None
            if kind == "file":
                data = payload if isinstance(payload, bytes) else b"x"
                info.size = len(data)
                info.mode = 0o4777 if name.endswith(".sh") else 0o644
            elif kind == "dir":
                info.type = tarfile.DIRTYPE
            elif kind == "sym":
                info.type, info.linkname = tarfile.SYMTYPE, payload
            elif kind == "lnk":
                info.type, info.linkname = tarfile.LNKTYPE, payload
            elif kind == "chr":
                info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return str(path)


def _tree(root):
    found = set()
    for folder, folders, files in os.walk(root):
        for name in folders + files:
            found.add(os.path.relpath(os.path.join(folder, name), root))
    return found


@pytest.fixture
def sandbox(tmp_path):
    """``tmp_path/outside`` holds a file a hostile archive would like to reach; archives extract into ``box/``."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_bytes(b"keep")
    (tmp_path / "work").mkdir()
    return tmp_path


def test_tar_members_leaving_the_folder_are_skipped_and_the_rest_extracted(sandbox):
    archive = _tar(
        sandbox / "hostile.tar.gz",
        [
            ("data/a.txt", "file", b"A"),
            ("../escape.txt", "file", b"E"),
            ("/abs/escape.txt", "file", b"E"),
            ("data/../../escape2.txt", "file", b"E"),
            ("to_secret", "sym", "../outside/secret"),
            ("to_root", "sym", "/"),
            ("hard_out", "lnk", "../outside/secret"),
            ("hard_abs", "lnk", "/etc/passwd"),
            ("hard_in", "lnk", "data/a.txt"),
            ("dot", "sym", "."),
            ("chain", "sym", "dot/.."),  # each link points inside, the chain leaves the folder
            ("inner", "sym", "data/a.txt"),
            ("null", "chr", None),
            ("pipe", "fifo", None),
            ("run.sh", "file", b"#!/bin/sh\n"),
        ],
    )
    target = sandbox / "work" / "box"
    with pytest.warns(UserWarning, match="Skipping invalid path during archive extraction") as caught:
        assert extract_archive(archive, target) is True
    skipped = " ".join(str(w.message) for w in caught)
    for name in (
        "../escape.txt",
        "/abs/escape.txt",
        "to_secret",
        "to_root",
        "hard_out",
        "hard_abs",
        "chain",
        "null",
        "pipe",
    ):
        assert repr(name) in skipped, name
    assert _tree(target) == {"data", "data/a.txt", "hard_in", "dot", "inner", "run.sh"}
    assert (target / "hard_in").read_bytes() == b"A" and not (target / "hard_in").is_symlink()  # a copy
    assert os.readlink(target / "inner") == "data/a.txt" and (target / "inner").read_bytes() == b"A"
    assert stat.S_IMODE(os.lstat(target / "run.sh").st_mode) == 0o755  # no setuid, no world write
    assert sorted(os.listdir(sandbox)) == ["hostile.tar.gz", "outside", "work"]
    assert sorted(os.listdir(sandbox / "work")) == ["box"]  # the temporary folder is gone
    assert sorted(os.listdir(sandbox / "outside")) == ["secret"]
    assert (sandbox / "outside" / "secret").read_bytes() == b"keep"


def test_a_link_in_the_archive_is_never_written_through(sandbox):
    # "sub" is a link (to a folder inside); a later member "sub/f" would be written through it: it is skipped
    archive = _tar(
        sandbox / "through.tar",
        [("real", "dir", None), ("sub", "sym", "real"), ("sub/f", "file", b"F"), ("sub", "file", b"replaces the link")],
        mode="w",
    )
    target = sandbox / "work" / "box"
    with pytest.warns(UserWarning, match=r"'sub/f' \(a parent folder is a link or a file\)"):
        extract_archive(archive, target)
    assert _tree(target) == {"real", "sub"}
    assert (target / "sub").read_bytes() == b"replaces the link" and not (target / "sub").is_symlink()


def test_zip_members_leaving_the_folder_are_skipped(sandbox):
    path = sandbox / "hostile.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("ok/b.txt", b"B")
        archive.writestr("../escape.txt", b"E")
        archive.writestr("/abs.txt", b"E")
        script = zipfile.ZipInfo("tool.sh")
        script.external_attr = (stat.S_IFREG | 0o6777) << 16
        archive.writestr(script, b"#!/bin/sh\n")
    target = sandbox / "work" / "box"
    with pytest.warns(UserWarning, match="Skipping invalid path") as caught:
        assert extract_archive(path, target, archive_format="zip") is True
    skipped = " ".join(str(w.message) for w in caught)
    assert "'../escape.txt'" in skipped and "'/abs.txt'" in skipped
    assert _tree(target) == {"ok", "ok/b.txt", "tool.sh"}
    assert stat.S_IMODE(os.stat(target / "tool.sh").st_mode) == 0o755
    assert sorted(os.listdir(sandbox)) == ["hostile.zip", "outside", "work"]


def test_into_an_existing_folder_entries_are_replaced_and_the_rest_kept(sandbox):
    target = sandbox / "work" / "box"
    target.mkdir()
    (target / "mine.txt").write_bytes(b"user's")
    (target / "a.txt").write_bytes(b"old")
    archive = _tar(sandbox / "new.tar", [("a.txt", "file", b"new"), ("d/b.txt", "file", b"B")], mode="w")
    assert extract_archive(archive, target, archive_format="tar") is True
    assert _tree(target) == {"mine.txt", "a.txt", "d", "d/b.txt"}
    assert (target / "a.txt").read_bytes() == b"new" and (target / "mine.txt").read_bytes() == b"user's"
    assert sorted(os.listdir(sandbox / "work")) == ["box"]


def test_a_broken_archive_leaves_nothing_and_a_non_archive_is_refused(sandbox):
    good = _tar(sandbox / "good.tar.gz", [(f"f{i}", "file", os.urandom(50_000)) for i in range(4)])
    broken = sandbox / "broken.tar.gz"
    broken.write_bytes(open(good, "rb").read()[:-30_000])
    with pytest.raises(ValueError, match=r"Cannot extract .*broken\.tar\.gz: a damaged tar archive \(") as caught:
        extract_archive(broken, sandbox / "work" / "box")
    assert isinstance(caught.value.__cause__, (tarfile.TarError, EOFError, OSError))  # the cause, chained
    assert os.listdir(sandbox / "work") == []
    text = sandbox / "notes.txt"
    text.write_text("not an archive")
    assert extract_archive(text, sandbox / "work" / "box") is False
    assert os.listdir(sandbox / "work") == []
    with pytest.raises(ValueError, match="archive_format must be 'auto', 'tar', 'zip'"):
        extract_archive(good, sandbox / "work" / "box", archive_format="rar")
