"""Atomic saves: a save killed midway leaves the previous file intact and loadable."""

import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import time_limits
from pid_namespace import pid_namespace_prefix

import tfkit
from tfkit import layers
from tfkit.files import atomic
from tfkit.files.temporaries import Claim

WIDTH = 256


def model_with(value):
    model = tfkit.Sequential(
        [tfkit.Input((WIDTH,), name="x"), layers.Dense(WIDTH, name="wide"), layers.Dense(4, name="head")],
        name="wide_model",
    )
    for weight in model.weights:
        weight.assign(np.full(weight.shape, value, "float32"))
    return model


SAVER = textwrap.dedent(
    f"""
    import os, sys, time
    import numpy as np
    import tfkit
    from tfkit import layers
    from tfkit.saving import h5_format

    path, ready, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    model = tfkit.Sequential([tfkit.Input(({WIDTH},), name="x"), layers.Dense({WIDTH}, name="wide"),
                              layers.Dense(4, name="head")], name="wide_model")
    if mode == "pause":
        write = h5_format.write_variables

        def write_then_hang(group, variables):
            write(group, variables)          # part of the new file is on disk...
            open(ready, "w").close()
            time.sleep(600)                  # ...and the process is killed here

        h5_format.write_variables = write_then_hang
        for weight in model.weights:
            weight.assign(np.full(weight.shape, 2.0, "float32"))
        model.save(path)
    else:  # "loop": save versions 1.0, 2.0, 1.0, ... until killed
        open(ready, "w").close()
        value = 2.0
        while True:
            for weight in model.weights:
                weight.assign(np.full(weight.shape, value, "float32"))
            model.save(path)
            value = 3.0 - value
    """
)


def _start_saver(tmp_path, path, mode):
    ready = tmp_path / "ready"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.Popen(
        [sys.executable, "-c", SAVER, str(path), str(ready), mode],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time_limits.Deadline(120)
    while not ready.exists():
        if proc.poll() is not None:
            raise AssertionError(f"the saving process exited early: {proc.stderr.read().decode()[-2000:]}")
        if deadline.passed():
            proc.kill()
            raise AssertionError("the saving process never got going")
        time.sleep(0.05)
    return proc


def _kill(proc):
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stderr.close()


def _values(model):
    return {float(np.unique(w.numpy())[0]) for w in model.weights}


@pytest.mark.slow
def test_save_killed_midway_leaves_the_previous_file_loadable(tmp_path):
    path = tmp_path / "model.h5"
    model_with(1.0).save(str(path))
    proc = _start_saver(tmp_path, path, "pause")
    _kill(proc)
    leftovers = [n for n in os.listdir(tmp_path) if n.startswith("model.h5.tmp-")]
    assert len(leftovers) == 1  # the killed save's partial file, under a temporary name
    assert _values(tfkit.load_model(str(path))) == {1.0}
    model_with(3.0).save(str(path))  # the next successful save cleans up after the killed one
    assert sorted(os.listdir(tmp_path)) == ["model.h5", "ready"]
    assert _values(tfkit.load_model(str(path))) == {3.0}


@pytest.mark.slow
def test_save_killed_at_a_random_moment_leaves_a_whole_file(tmp_path):
    path = tmp_path / "model.h5"
    model_with(1.0).save(str(path))
    proc = _start_saver(tmp_path, path, "loop")
    time.sleep(np.random.uniform(1.0, 3.0))
    _kill(proc)
    assert _values(tfkit.load_model(str(path))) in ({1.0}, {2.0})  # one whole version, never a mix


def test_failed_write_keeps_the_target_and_removes_the_temporary_file(tmp_path):
    target = tmp_path / "file.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="disk on fire"):
        with atomic.atomic_file(str(target)) as tmp:
            pathlib.Path(tmp).write_bytes(b"half")
            assert atomic.is_temp_name(tmp) and os.path.dirname(os.path.dirname(tmp)) == str(tmp_path)
            raise RuntimeError("disk on fire")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["file.bin"]


def test_successful_write_replaces_the_target_and_cleans_stale_temporaries(tmp_path):
    target = tmp_path / "file.bin"
    stale = tmp_path / "file.bin.tmp-0123456789abcdef"
    stale.write_bytes(b"left by a killed save")
    unrelated = tmp_path / "file.bin.tmp-notours"
    unrelated.write_bytes(b"keep me")
    with atomic.atomic_file(str(target)) as tmp:
        pathlib.Path(tmp).write_bytes(b"new")
    assert target.read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["file.bin", "file.bin.tmp-notours"]


def test_directories_are_published_whole(tmp_path):
    target = tmp_path / "1"
    with atomic.atomic_directory(str(target)) as tmp:
        os.makedirs(tmp)
        pathlib.Path(tmp, "a.txt").write_text("first")
    with pytest.raises(RuntimeError):
        with atomic.atomic_directory(str(target)) as tmp:
            os.makedirs(tmp)
            pathlib.Path(tmp, "a.txt").write_text("second")
            raise RuntimeError("interrupted")
    assert pathlib.Path(target, "a.txt").read_text() == "first"
    with atomic.atomic_directory(str(target)) as tmp:
        os.makedirs(tmp)
        pathlib.Path(tmp, "b.txt").write_text("third")
    assert os.listdir(target) == ["b.txt"]
    assert os.listdir(tmp_path) == ["1"]


def test_export_never_replaces_a_folder_with_other_content(tmp_path):
    import tfkit

    model = tfkit.Sequential([tfkit.Input((2,)), tfkit.layers.Dense(1)])
    base = tmp_path / "models" / "vae"
    model.export(str(base), version=1)
    (base / "notes.txt").write_text("keep me")
    with pytest.raises(ValueError, match=r"versions \['1'\]\): pass version=N"):
        model.export(str(base))
    assert sorted(os.listdir(base)) == ["1", "notes.txt"]
    model.export(str(base), version=2)
    assert sorted(os.listdir(base)) == ["1", "2", "notes.txt"]
    plain = tmp_path / "plain"
    model.export(str(plain))
    model.export(str(plain))  # an earlier export is replaced, whole
    assert (plain / "saved_model.pb").is_file()


def test_concurrent_saves_never_delete_each_others_temporary_files(tmp_path):
    target = str(tmp_path / "m.h5")
    other = Claim.beside(target)  # another save in progress: its folder is locked while it lives
    open(other.join("m.h5"), "w").close()
    dead = f"{target}.tmp-{'0' * 32}"  # a killed save's folder: nobody holds its lock
    os.mkdir(dead)
    legacy = f"{target}.tmp-999999999-{'0' * 16}"  # what a killed save of an earlier tfkit left
    open(legacy, "w").close()
    with atomic.atomic_file(target) as tmp:
        open(tmp, "w").write("x")
    assert os.path.exists(other.join("m.h5")) and not os.path.exists(dead) and not os.path.exists(legacy)
    other.remove()
    assert sorted(os.listdir(tmp_path)) == ["m.h5"]


def test_interrupted_directory_swap_is_undone(tmp_path):
    target = tmp_path / "1"
    old = (
        tmp_path / "1.old-999999999-0123456789abcdef"
    )  # the previous version, moved aside by an earlier tfkit's export
    old.mkdir()
    (old / "saved_model.pb").write_text("previous")
    atomic.recover(str(target))
    assert (target / "saved_model.pb").read_text() == "previous" and not old.exists()


def test_a_killed_swap_is_undone_from_its_temporary_folder(tmp_path):
    target = tmp_path / "1"
    kept = tmp_path / f"1.tmp-{'a' * 32}" / "previous"  # killed after moving the old version aside
    kept.mkdir(parents=True)
    (kept / "saved_model.pb").write_text("previous")
    atomic.recover(str(target))
    assert (target / "saved_model.pb").read_text() == "previous" and os.listdir(tmp_path) == ["1"]


_FULL_DISK = textwrap.dedent(r"""
    import os, resource, signal, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np, tfkit
    kind, target = sys.argv[1], sys.argv[2]
    model = tfkit.Sequential([tfkit.Input((300,)), tfkit.layers.Dense(300)])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)             # writes past the limit fail with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))
    try:
        model.save(target) if kind == "model" else model.save_weights(target)
    except OSError as error:
        print("OSError", error)
    except Exception as error:
        print("OTHER", type(error).__name__, error)
""")


@pytest.mark.parametrize("kind, name", [("model", "m.h5"), ("checkpoint", "ckpt/w")])
def test_a_full_disk_is_a_clear_error_and_keeps_the_previous_save(tmp_path, kind, name):
    target = tmp_path / name
    small = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    small.save(str(target)) if kind == "model" else small.save_weights(str(target))
    before = sorted(os.listdir(target.parent))
    done = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, kind, str(target)],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(180),
    )
    assert done.stdout.startswith("OSError") and "Not enough disk space to save" in done.stdout, (
        done.stdout + done.stderr[-1500:]
    )
    assert sorted(os.listdir(target.parent)) == before  # no partial file left behind
    reloaded = tfkit.load_model(str(target)) if kind == "model" else small
    if kind == "checkpoint":
        small.load_weights(str(target))
    assert [tuple(w.shape) for w in reloaded.weights] == [(3, 2), (2,)]


_SAVER = textwrap.dedent(r"""
    import os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np, tfkit
    target, fill, rounds = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    model.compile("sgd", "mse")
    callback = None
    if os.path.basename(target) == "backup":
        callback = tfkit.callbacks.BackupAndRestore(target)
    elif target.endswith(".keras"):
        callback = tfkit.callbacks.ModelCheckpoint(target)
    if callback is not None:
        callback.set_model(model)
        callback.on_train_begin()
    for w in model.weights:
        w.assign(np.full(w.shape, fill, "float32"))
    print("ready", flush=True)
    sys.stdin.readline()                      # both processes start saving together
    for _ in range(rounds):
        if callback is not None:
            callback.on_epoch_end(int(fill) - 1, {"loss": 1.0})       # a backup of "epoch fill" done
        elif target.endswith(".weights.h5"):
            model.save_weights(target)
        elif target.endswith(".h5"):
            model.save(target)
        elif os.path.basename(target).isdigit():          # an export version folder
            model.export(os.path.dirname(target), version=int(os.path.basename(target)))
        else:
            model.save_weights(target)
    print("done", flush=True)
""")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["m.h5", "w.weights.h5", "ckpt/w", "models/vae/1", "best.keras", "backup"])
def test_two_processes_saving_the_same_path_never_fail_or_mix(tmp_path, name):
    target = str(tmp_path / name)
    rounds = int(os.environ.get("TFKIT_RACE_ROUNDS", "40")) // (4 if name.endswith("/1") else 1)  # exports are slower
    # The second saver runs in a PID namespace of its own where the machine allows it (two containers on one
    # volume): neither can see the other's process id, so nothing may depend on one.
    namespace = pid_namespace_prefix() or []
    workers = [
        subprocess.Popen(
            [*(namespace if fill == 2.0 else []), sys.executable, "-c", _SAVER, target, str(fill), str(rounds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for fill in (1.0, 2.0)
    ]
    try:
        for worker in workers:
            assert worker.stdout.readline().strip() == "ready", worker.stderr.read()[-2000:]
        for worker in workers:
            worker.stdin.write("go\n")
            worker.stdin.flush()
        for worker in workers:
            out, err = worker.communicate(timeout=time_limits.seconds(240))
            assert worker.returncode == 0 and "done" in out, err[-3000:]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    if name.endswith("/1"):
        import tensorflow as tf

        served = tf.saved_model.load(target).signatures["serving_default"](tf.ones((1, 3)))
        values = np.unique(list(served.values())[0].numpy()) / 4.0  # 3 inputs x w + b = 4 x fill
    elif name == "backup":  # a restore finds one whole backup: its epoch and its weights agree
        model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        model.compile("sgd", "mse")
        callback = tfkit.callbacks.BackupAndRestore(target)
        callback.set_model(model)
        callback.on_train_begin()
        values = np.unique(np.concatenate([w.numpy().ravel() for w in model.weights]))
        assert callback.restored_epoch == values[0], (callback.restored_epoch, values)
    else:
        model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        whole = name.endswith((".keras", ".h5")) and not name.endswith(".weights.h5")
        loaded = tfkit.load_model(target) if whole else (model.load_weights(target) or model)
        values = np.unique(np.concatenate([w.numpy().ravel() for w in loaded.weights]))
    assert len(values) == 1 and values[0] in (1.0, 2.0)  # one whole save, never a mix
    folder = target if name == "backup" else os.path.dirname(target)
    leftovers = [n for n in os.listdir(folder) if ".tmp-" in n or ".bak-" in n or n.endswith("_temp")]
    assert leftovers == []
