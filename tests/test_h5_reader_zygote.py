"""The HDF5 reader zygote: one waiting process forks a fresh limited reader per load; every failure of the
zygote falls back to the one-shot reader, and nothing outlives the caller."""

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import time_limits

import tfkit
from tfkit.saving import h5_reader_zygote, h5_snapshot

pytestmark = pytest.mark.skipif(not h5_reader_zygote.enabled(), reason="the zygote runs on Linux only")


@pytest.fixture()
def saved(tmp_path):
    model = tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(3)])
    path = str(tmp_path / "m.h5")
    model.save(path)
    yield model, path
    h5_reader_zygote.stop()


def _same_predictions(model, path):
    x = np.ones((2, 4), "float32")
    np.testing.assert_array_equal(tfkit.load_model(path).predict(x, verbose=0), model.predict(x, verbose=0))


def test_loads_share_one_zygote_and_survive_its_death(saved):
    model, path = saved
    h5_reader_zygote.stop()
    _same_predictions(model, path)
    zygote = h5_reader_zygote._zygote
    assert zygote is not None and zygote.process.poll() is None
    _same_predictions(model, path)
    assert h5_reader_zygote._zygote is zygote  # reused: no new Python start
    os.kill(zygote.process.pid, signal.SIGKILL)
    zygote.process.wait()
    _same_predictions(model, path)  # noticed, replaced
    assert h5_reader_zygote._zygote is not zygote


def test_refusals_come_back_from_forked_readers_and_the_zygote_lives_on(saved, monkeypatch, tmp_path):
    model, path = saved
    _same_predictions(model, path)
    zygote = h5_reader_zygote._zygote
    broken = tmp_path / "broken.h5"
    broken.write_bytes(open(path, "rb").read()[:600])  # a truncated file: the forked reader refuses it
    with pytest.raises(ValueError, match="broken.h5"):
        h5_snapshot.read_snapshot(str(broken))
    assert h5_reader_zygote._zygote is zygote and zygote.process.poll() is None
    monkeypatch.setenv("TFKIT_LOAD_MEMORY_LIMIT", str(40 * 2**20))  # less than h5py and numpy map
    with pytest.raises(ValueError, match="could not start .*memory"):
        h5_snapshot.read_snapshot(path)
    zygote = h5_reader_zygote._zygote  # a changed environment started a new one, which lives on
    assert zygote is not None and zygote.process.poll() is None
    monkeypatch.delenv("TFKIT_LOAD_MEMORY_LIMIT")
    _same_predictions(model, path)


def test_a_changed_resource_limit_restarts_the_zygote_and_the_switch_turns_it_off(saved, monkeypatch):
    import resource

    model, path = saved
    _same_predictions(model, path)
    first = h5_reader_zygote._zygote
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft - 1, hard))
    try:
        _same_predictions(model, path)
        assert h5_reader_zygote._zygote is not first and first.process.poll() is not None
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    monkeypatch.setenv("TFKIT_H5_ZYGOTE", "0")
    h5_reader_zygote.stop()
    _same_predictions(model, path)
    assert h5_reader_zygote._zygote is None


def test_the_zygote_ends_with_its_caller(saved):
    _, path = saved
    script = textwrap.dedent(f"""
        import tfkit
        from tfkit.saving import h5_reader_zygote
        tfkit.load_model({path!r})
        print(h5_reader_zygote._zygote.process.pid, flush=True)
        """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=time_limits.seconds(300)
    )
    assert done.returncode == 0, done.stderr[-2000:]
    pid = int(done.stdout.split()[-1])
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        import time

        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the zygote outlived its caller")


def test_a_relative_path_names_the_file_in_the_callers_current_folder(tmp_path, monkeypatch):
    # The zygote keeps the folder it started in; a relative path read after os.chdir used to name that
    # folder's file: a load silently returned another model, or called a good file "not an HDF5 file".
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.chdir(first)
    tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(3)]).save("model.keras")
    assert tfkit.load_model("model.keras").output_shape == (None, 3)
    monkeypatch.chdir(second)
    tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(5)]).save("model.keras")
    assert tfkit.load_model("model.keras").output_shape == (None, 5)
    tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(7)]).save("other.keras")
    assert tfkit.load_model("other.keras").output_shape == (None, 7)
