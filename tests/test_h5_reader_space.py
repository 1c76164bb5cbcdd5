"""The guarded HDF5 reader with little room: a valid file loads, or the error says what ran short.

The reader's child hands arrays back through a data file in /dev/shm (Docker
gives it 64 MB); a small /dev/shm used to make a valid file "a damaged HDF5
file", and a full TMPDIR made a valid ``.keras`` "a damaged zip archive". Now
the data file goes to the first of /dev/shm (``TFKIT_SHM_DIR``) and TMPDIR
that can hold it, else the arrays come through the child's stdout; a lack of
space or file handles is an ``OSError`` saying so.
"""

import errno
import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
import zlib

import h5py
import numpy as np
import pytest
import time_limits

import tfkit
from tfkit.saving import h5_reader_child, h5_snapshot
from tfkit.saving.keras_files import archive

SNAPSHOT_MODULE = os.path.abspath(h5_snapshot.__file__)


def _weights_file(path, megabytes=2.5):
    """A tfkit-style file of about ``megabytes`` MB; returns the CRC-32 of its array."""
    values = np.random.default_rng(0).random(int(megabytes * 2**20 / 4)).astype("float32")
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "tfkit"
        f.create_dataset("weights/big/kernel", data=values)
    return zlib.crc32(values)


# Reads a file with the guarded reader, imported from its file alone (h5py and numpy, no TensorFlow).
_READ = textwrap.dedent(r"""
    import importlib.util, json, os, sys, zlib
    spec = importlib.util.spec_from_file_location("h5_snapshot", sys.argv[1])
    snapshot = sys.modules["h5_snapshot"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(snapshot)
    try:
        table = snapshot.read_snapshot(sys.argv[2]).tables["weights"]
        print(json.dumps({"crc": zlib.crc32(table["big/kernel"].array)}))
    except Exception as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
""")


def _can_unshare_mounts():
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True, timeout=30)
    return done.returncode == 0


def test_a_small_dev_shm_falls_back_to_the_temporary_folder(tmp_path):
    """A 1 MB /dev/shm (in a private mount namespace) and a 2.5 MB file: it loads, and leaves nothing behind."""
    if not _can_unshare_mounts():
        pytest.skip("needs root and unshare --mount to give a child process its own small /dev/shm")
    path, scratch = tmp_path / "m.h5", tmp_path / "tmp"
    scratch.mkdir()
    expected = _weights_file(path)
    shell = 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec "$0" -c "$1" "$2" "$3"'
    done = subprocess.run(
        [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            shell,
            sys.executable,
            _READ,
            SNAPSHOT_MODULE,
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(120),
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == {"crc": expected}, done.stdout
    assert os.listdir(scratch) == []


def _read_with_file_size_limit(path, limit, env=None):
    code = f"import resource; resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, resource.RLIM_INFINITY))\n" + _READ
    done = subprocess.run(
        [sys.executable, "-c", code, SNAPSHOT_MODULE, str(path)],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(120),
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_no_room_for_a_data_file_anywhere_still_loads_through_the_pipe(tmp_path):
    """Runs everywhere: a 64 KB file-size limit leaves no folder able to hold 2.5 MB of arrays."""
    path = tmp_path / "m.h5"
    expected = _weights_file(path)
    assert _read_with_file_size_limit(path, 64 * 1024, {"TMPDIR": str(tmp_path)}) == {"crc": expected}
    assert os.listdir(tmp_path) == ["m.h5"]


@pytest.fixture
def tmpfs(tmp_path):
    """``tmpfs(name, size)``: a small tmpfs mounted at tmp_path/name (root with mount permitted; else skipped)."""
    mounted = []

    def mount(name, size):
        folder = tmp_path / name
        folder.mkdir()
        if shutil.which("mount") is None or os.geteuid() != 0:
            pytest.skip("mounting a small tmpfs needs root and the mount command")
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if done.returncode != 0:
            pytest.skip(f"mount -t tmpfs is not permitted here: {done.stderr.strip()}")
        mounted.append(folder)
        return folder

    yield mount
    for folder in mounted:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30)


def _fill(folder):
    with open(folder / "filler", "wb", buffering=0) as handle:
        with pytest.raises(OSError):
            while True:
                handle.write(b"\0" * 4096)


def test_the_shm_setting_and_tmpdir_are_tried_in_order_then_the_pipe(tmp_path, tmpfs, monkeypatch):
    path = tmp_path / "m.h5"
    expected = _weights_file(path)
    shm, scratch = tmpfs("shm", "1m"), tmpfs("scratch", "8m")
    monkeypatch.setenv("TFKIT_SHM_DIR", str(shm))
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr("tempfile.tempdir", None)  # read TMPDIR again
    assert h5_snapshot.data_folders() == [str(shm), str(scratch)]
    snapshot = h5_snapshot.read_snapshot(str(path))  # too big for shm: through scratch
    assert zlib.crc32(snapshot.tables["weights"]["big/kernel"].array) == expected
    _fill(scratch)
    snapshot = h5_snapshot.read_snapshot(str(path))  # both full: through the pipe
    assert zlib.crc32(snapshot.tables["weights"]["big/kernel"].array) == expected
    assert sorted(os.listdir(shm)) == [] and sorted(os.listdir(scratch)) == ["filler"]


# ------------------------------------------------------------- what each shortage is called


def test_a_data_file_that_fills_up_after_all_is_a_lack_of_space_not_a_damaged_file(tmp_path, monkeypatch):
    """A file system without fallocate, whose free space statvfs overstated: the write fails in the child."""
    path = tmp_path / "m.h5"
    _weights_file(path, 0.1)

    def no_fallocate(fd, offset, length):
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")

    monkeypatch.setattr(h5_reader_child.os, "posix_fallocate", no_fallocate)
    monkeypatch.setattr(h5_reader_child.os, "statvfs", lambda folder: os.statvfs_result((4096,) * 10 + (255,)))
    limits = h5_snapshot.limits_for(str(path))
    with pytest.raises(h5_reader_child.SinkError) as caught:
        h5_reader_child.read(str(path), limits, ["/dev/full"])  # every write: ENOSPC
    assert caught.value.kind == "space"
    with pytest.raises(OSError) as raised:
        h5_snapshot._raise_refusal(str(path), {"error": str(caught.value), "resource": "space"}, ["/dev/shm/x"])
    assert raised.value.errno == errno.ENOSPC and "not enough space" in str(raised.value)
    assert "damaged" not in str(raised.value) and "not judged" in str(raised.value)


@pytest.mark.parametrize(
    "error, kind",
    [
        (OSError(errno.ENOSPC, "No space left on device"), "space"),
        (OSError(errno.EMFILE, "Too many open files"), "files"),
        (MemoryError(), "memory"),
        (
            OSError(
                "Unable to synchronously open file (file read failed: errno = 24, error message = 'Too many open "
                "files')"
            ),
            "files",
        ),
        (RuntimeError("Can't read data (memory allocation failed for raw data chunk)"), "memory"),
        (OSError("Unable to synchronously open file (truncated file: eof = 96, sblock->base_addr = 0)"), None),
        (KeyError("Unable to open object (bad object header version number)"), None),
    ],
)
def test_the_reader_tells_a_shortage_from_a_damaged_file(error, kind):
    assert h5_reader_child.resource_kind(error) == kind


def test_shortages_reach_the_caller_as_what_they_are(tmp_path, monkeypatch):
    path = tmp_path / "m.h5"
    _weights_file(path, 0.01)
    answers = {"space": (OSError, errno.ENOSPC), "files": (OSError, errno.EMFILE), "memory": (ValueError, None)}
    for kind, (expected_type, expected_errno) in answers.items():
        header = json.dumps({"error": f"out of {kind}", "resource": kind}).encode()
        output = h5_snapshot.MAGIC + len(header).to_bytes(8, "little") + header
        monkeypatch.setattr(h5_snapshot, "_run_child", lambda *args, **kwargs: (0, output))  # zygote or not
        with pytest.raises(expected_type) as caught:
            tfkit.load_model(str(path))  # through the loader that turns other errors into ValueError
        assert type(caught.value) is expected_type and "damaged" not in str(caught.value), kind
        assert getattr(caught.value, "errno", None) == expected_errno


def test_a_reader_that_cannot_start_within_its_memory_limit_says_so(tmp_path, monkeypatch):
    path = tmp_path / "m.h5"
    _weights_file(path, 0.01)
    monkeypatch.setenv("TFKIT_LOAD_MEMORY_LIMIT", str(40 * 2**20))  # too little to map numpy's libraries
    with pytest.raises(ValueError) as caught:
        h5_snapshot.read_snapshot(str(path))
    message = str(caught.value)
    assert "could not start" in message and "memory" in message and "damaged" not in message, message


# ------------------------------------------------------------------ Keras .keras archives


def _keras_archive(path, megabytes=2.0):
    weights = path.parent / "inner.weights.h5"
    _weights_file(weights, megabytes)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("config.json", json.dumps({"class_name": "Sequential", "config": {}}))
        zf.write(weights, "model.weights.h5")
    return weights.read_bytes()


def test_a_full_tmpdir_unpacks_a_keras_archive_into_dev_shm_instead(tmp_path, tmpfs, monkeypatch):
    inner = _keras_archive(tmp_path / "m.keras")
    scratch, shm = tmpfs("scratch", "1m"), tmpfs("shm", "8m")
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setenv("TFKIT_SHM_DIR", str(shm))
    monkeypatch.setattr("tempfile.tempdir", None)
    with archive.read_archive(str(tmp_path / "m.keras")) as opened:
        assert os.path.dirname(opened.weights_path) == str(shm)
        with open(opened.weights_path, "rb") as handle:
            assert handle.read() == inner
    assert os.listdir(shm) == [] and os.listdir(scratch) == []


_ARCHIVE_WITHOUT_ROOM = textwrap.dedent(r"""
    import json, os, resource, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tfkit
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))
    try:
        tfkit.load_model(sys.argv[1])
        print(json.dumps({"loaded": True}))
    except Exception as error:
        print(json.dumps({"type": type(error).__name__, "errno": getattr(error, "errno", None), "text": str(error)}))
""")


def test_no_room_to_unpack_a_keras_archive_is_a_lack_of_space_not_a_damaged_archive(tmp_path):
    """Runs everywhere: a 64 KB file-size limit, so neither TMPDIR nor /dev/shm can take the 2 MB weights."""
    _keras_archive(tmp_path / "m.keras")
    done = subprocess.run(
        [sys.executable, "-c", _ARCHIVE_WITHOUT_ROOM, str(tmp_path / "m.keras")],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(180),
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["type"] == "OSError" and result["errno"] == errno.ENOSPC, result
    assert "Not enough space to unpack model.weights.h5" in result["text"] and "damaged" not in result["text"]
    assert sorted(os.listdir(tmp_path)) == ["inner.weights.h5", "m.keras"]
