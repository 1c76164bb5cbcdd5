"""HDF5 saves on a full disk: one clean OSError, no litter, the previous file kept, a normal exit.

libhdf5 writes small datasets and its metadata when a file is closed; a write
that failed there used to leave h5py in a state that crashed the process at
exit (SIGSEGV, exit code 139), even when the OSError was caught. Each run
below fills the disk so that the failure lands anywhere from the first write
to that final flush, for every file kind tfkit writes with HDF5 inside (model ``.h5``, Keras's
``.keras`` archive, Keras's ``.weights.h5``), in one process that must then exit with 0.

``test_saving_atomic.py``'s full-disk test stops at 64 KB of a 360 KB model,
far from the final flush; these are the stronger versions.
"""

import errno
import json
import os
import shutil
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest
import time_limits

from tfkit.saving import h5_writer

_SAVES = textwrap.dedent(r"""
    import json, os, resource, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np, tfkit
    mode, folder = sys.argv[1], sys.argv[2]
    model = tfkit.Sequential([tfkit.Input((30,)), tfkit.layers.Dense(200), tfkit.layers.Dense(200),
                              tfkit.layers.Dense(3)])
    model.compile("adam", "mse")
    model.fit(np.ones((4, 30), "float32"), np.zeros((4, 3), "float32"), verbose=0)   # optimizer state too
    saves = {"m.h5": model.save, "m.keras": model.save, "m.weights.h5": model.save_weights}
    filler = os.path.join(folder, "filler")

    def fill_leaving(free_bytes):
        info = os.statvfs(folder)
        with open(filler, "wb") as handle:
            handle.write(b"\0" * max(0, info.f_bavail * info.f_frsize - free_bytes))

    results = []
    for name, save in saves.items():
        target = os.path.join(folder, name)
        save(target)                                   # the previous save, to be kept
        size, previous = os.path.getsize(target), open(target, "rb").read()
        for weight in model.weights:
            weight.assign(weight + 1.0)                # a save that got through would change the file
        if mode == "fsize":   # the new file may grow to size - cut bytes: cut small puts the failure at close
            cuts = [1, 100, 1000, 2000, 3000, 4000, 6000, 8000, 12000, size // 2, size - 1000]
        else:                 # the disk keeps size - cut bytes free (a tmpfs counts whole 4 KB pages)
            cuts = [4096, 8192, 12288, 16384, 24576, size // 2, size - 4096, size]
        for cut in cuts:
            if mode == "fsize":
                resource.setrlimit(resource.RLIMIT_FSIZE, (size - cut, resource.RLIM_INFINITY))
            else:
                fill_leaving(size - cut)
            try:
                save(target)
                outcome = "saved"
            except OSError as error:
                outcome = "OSError" if "Not enough disk space to save" in str(error) else f"OSError: {error}"
            except Exception as error:
                outcome = f"{type(error).__name__}: {error}"
            finally:
                resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
                if os.path.exists(filler):
                    os.remove(filler)
            results.append({"name": name, "cut": cut, "outcome": outcome, "listing": sorted(os.listdir(folder)),
                            "kept": open(target, "rb").read() == previous})
        save(target)                                   # with room again, the next save completes and loads
        if name.endswith(".weights.h5"):
            model.load_weights(target)
        else:
            tfkit.load_model(target)
        results.append({"name": name, "cut": None, "outcome": "saved", "listing": sorted(os.listdir(folder)),
                        "kept": open(target, "rb").read() != previous})
    print(json.dumps(results), flush=True)
""")


def _run_saves(mode, folder):
    done = subprocess.run(
        [sys.executable, "-c", _SAVES, mode, str(folder)],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(300),
    )
    assert done.returncode == 0, f"exit code {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert "Exception ignored" not in done.stderr, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _check(results):
    names = {"m.h5", "m.keras", "m.weights.h5"}
    for result in results:
        if result["cut"] is None:  # the save after the failures
            assert result["outcome"] == "saved" and result["kept"], result
            continue
        assert result["outcome"] == "OSError", result
        assert result["kept"], result  # the previous file is unchanged
        assert set(result["listing"]) <= names, result  # no m.h5.tmp-* left behind
        assert result["name"] in result["listing"], result


def test_a_file_size_limit_anywhere_up_to_the_final_flush_is_one_oserror_and_a_normal_exit(tmp_path):
    """RLIMIT_FSIZE just below the file's size: the last writes, at close, are the ones that fail."""
    _check(_run_saves("fsize", tmp_path))


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 4 MB tmpfs mounted at a fresh folder (root with mount permitted; skipped elsewhere): room for the three
    files and one more (a .weights.h5 holds the optimizer's state too, as Keras's do)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root and the mount command")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], capture_output=True, text=True, timeout=30
    )
    if done.returncode != 0:
        pytest.skip(f"mount -t tmpfs is not permitted here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30)


def test_a_full_tmpfs_to_the_last_few_kb_is_one_oserror_and_a_normal_exit(small_tmpfs):
    """A real full disk, filled to 4 KB ... one file's size short of what the save needs."""
    _check(_run_saves("tmpfs", small_tmpfs))


# ------------------------------------------------------- the writer itself, in this process


def _failing_after(monkeypatch, budget):
    """Make ``os.pwrite`` (as h5_writer calls it) fail with ENOSPC once ``budget`` bytes were written.

    Returns the running count of bytes written (libhdf5 rewrites some metadata, so it can exceed the file's size).
    """
    real = os.pwrite
    written = {"bytes": 0}

    def pwrite(fd, data, offset):
        if written["bytes"] + len(data) > budget:
            raise OSError(errno.ENOSPC, "No space left on device")
        written["bytes"] += len(data)
        return real(fd, data, offset)

    monkeypatch.setattr(h5_writer.os, "pwrite", pwrite)
    return written


def _write_sample(f):
    for index in range(20):
        f.create_dataset(f"g{index % 3}/small_{index}", data=np.arange(index + 1, dtype="float32"))
        f[f"g{index % 3}/small_{index}"].attrs["note"] = "x" * 50
    f.create_dataset("big", data=np.ones((100, 100), "float64"))
    f.attrs["config"] = "{}" * 2000


def test_writer_reports_the_first_failed_write_after_closing_cleanly(tmp_path, monkeypatch, capfd):
    with monkeypatch.context() as patch:
        written = _failing_after(patch, 2**62)
        with h5_writer.create(str(tmp_path / "reference.h5")) as f:
            _write_sample(f)
    total = written["bytes"]  # every write of a complete save, the ones at close last
    for budget in sorted({0, 100, 2000, total // 3, total // 2, total - 4000, total - 500, total - 1}):
        with monkeypatch.context() as patch:
            _failing_after(patch, budget)
            with pytest.raises(OSError) as caught:
                with h5_writer.create(str(tmp_path / f"out_{budget}.h5")) as f:
                    _write_sample(f)
        assert caught.value.errno == errno.ENOSPC, budget
    assert "Exception ignored" not in capfd.readouterr().err  # libhdf5 never saw an error


def test_writer_reads_back_what_it_kept_in_memory_after_a_failure(tmp_path, monkeypatch):
    path = str(tmp_path / "out.h5")
    with pytest.raises(OSError):
        with h5_writer.create(path) as f:
            _failing_after(monkeypatch, 0)  # nothing reaches the disk from here on
            f.create_dataset("a", data=np.arange(50_000, dtype="int64"))
            f.flush()
            assert f["a"][-3:].tolist() == [49_997, 49_998, 49_999]  # read back from memory, not the disk


def test_writer_writes_a_file_h5py_reads_as_usual(tmp_path):
    path = str(tmp_path / "plain.h5")
    with h5_writer.create(path) as f:
        _write_sample(f)
    with h5py.File(path, "r") as f:
        assert f["big"].shape == (100, 100) and f["g1/small_4"][()].tolist() == [0, 1, 2, 3, 4]
        assert f.attrs["config"] == "{}" * 2000


def test_writer_never_writes_into_an_existing_file(tmp_path):
    existing = tmp_path / "someone_elses.h5"
    existing.write_bytes(b"keep me")
    with pytest.raises(FileExistsError):
        with h5_writer.create(str(existing)):
            pass
    assert existing.read_bytes() == b"keep me"


CTRL_C_CHILD = textwrap.dedent(
    """
    import signal, sys
    sys.path.insert(0, sys.argv[2])
    import h5py
    from test_saving_faults import _write_sample
    from tfkit.saving import h5_writer

    real, calls = h5_writer.QuietFile.write, {"count": 0}

    def write(self, data):
        calls["count"] += 1
        if calls["count"] == 3:
            signal.raise_signal(signal.SIGINT)  # Ctrl-C arrives while libhdf5 waits for this write
        return real(self, data)

    h5_writer.QuietFile.write = write
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with h5_writer.create(sys.argv[1]) as f:
            _write_sample(f)
    except KeyboardInterrupt:
        print("interrupted")
    print("writes after the signal", calls["count"] > 3)
    with h5py.File(sys.argv[1], "r") as f:  # libhdf5 finished and closed the file normally
        print("complete", f["big"].shape == (100, 100) and f.attrs["config"] == "{}" * 2000)
    """
)


def test_ctrl_c_during_a_write_is_raised_once_the_file_is_closed(tmp_path):
    """A KeyboardInterrupt inside a write would reach libhdf5 as a failed write; it waits for the close.

    In a process of its own: raised in the suite's own worker, the SIGINT killed that worker in a full run
    (as a SIGTERM did before, see test_bench_resume.py), which stops the whole suite."""
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_CHILD, str(tmp_path / "interrupted.h5"), os.path.dirname(__file__)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["interrupted", "writes after the signal True", "complete True"]
    assert "Exception ignored" not in done.stderr
