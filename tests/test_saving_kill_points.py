"""Kill a save before each state-changing system call it makes: the previous save always survives.

``kill_points/shim.c``, preloaded into a fork server (``kill_points/saver.py``),
counts every call that changes the file system (rename, link, unlink, rmdir,
mkdir, truncate, and opens that create or truncate), whichever code makes it:
Python's ``os`` module, libhdf5, or TensorFlow's C++ checkpoint writer on any
of its threads. For each kind of save (model .h5, weights .h5, TensorFlow
checkpoint prefix, export version folder, export without a version,
``ModelCheckpoint`` of a model and of weights only (a checkpoint prefix),
``BackupAndRestore`` and its clean-up), a child saves new weights over an old
save and is SIGKILLed before its N-th call, for N = 1, 2, ... until a save runs
to the end (exports: N = 1, 2 and odd N, unless ``TFKIT_KILL_POINTS=all``). After every kill:

- the target loads and holds either the old or the new weights, never a mix
  and never nothing (a backup restores a matching epoch and weights, or none
  after an interrupted clean-up);
- a file the user put beside it is still there;
- the next save completes and leaves no temporary files behind.

The log of a complete save is also checked: no save opens an existing file
that a reader could see for writing in place.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tfkit

HERE = Path(__file__).parent / "kill_points"
OLD, NEW = 1.0, 2.0
TARGETS = {
    "model": "m.h5",
    "weights": "w.weights.h5",
    "checkpoint": "ckpt/w",
    "export": "models/vae/1",
    "export_unversioned": "models/vae",
    "model_checkpoint": "best.keras",
    "model_checkpoint_weights": "ckpt/best",
    "backup": "backup",
    "backup_cleanup": "backup",
}
TEMPORARY_MARKS = (".tmp-", "_temp", ".tempstate", "checkpoint.tmp", "saved_model.pb.tmp", "fingerprint.pb.tmp")

# Every kill point checks that the previous save survived. The save after the kill (it must complete and
# leave no temporary files) runs after kill points 1, 2 and every AFTER_EVERY-th one; TFKIT_KILL_POINTS=all
# runs it after each of them.
AFTER_EVERY = 1 if os.environ.get("TFKIT_KILL_POINTS") == "all" else 3
# Export kill points each load a SavedModel (about 0.3 s); by default they are killed before calls 1, 2 and then
# every odd-numbered one (27 calls: 15 kill points), and TFKIT_KILL_POINTS=all kills before every call.
SAMPLED = () if AFTER_EVERY == 1 else ("export", "export_unversioned")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def saver(tmp_path_factory):
    """A fork server running under the kill-point library; stopped when the module ends."""
    if shutil.which("gcc") is None:
        pytest.skip("the kill-point library needs gcc to build")
    library = tmp_path_factory.mktemp("shim") / "kill_points.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(library), str(HERE / "shim.c"), "-ldl"], check=True)
    env = dict(
        os.environ,
        LD_PRELOAD=str(library),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONPATH=os.pathsep.join([str(Path(tfkit.__file__).parents[1]), os.environ.get("PYTHONPATH", "")]),
    )
    server = subprocess.Popen(
        [sys.executable, str(HERE / "saver.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )

    def save(kind, target, fill, kill_at, log):
        request = {"kind": kind, "target": str(target), "fill": fill, "kill_at": kill_at, "log": str(log)}
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        line = server.stdout.readline()
        assert line, f"the fork server died: {server.stderr.read()[-3000:] if server.poll() is not None else ''}"
        return json.loads(line)

    try:
        yield save
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server.stdout.close()
        server.stderr.close()


def _stored(kind, target):
    """What the save at ``target`` holds: OLD or NEW (None: a backup that is gone); fails on a mix or a broken file."""
    if kind.startswith("export"):
        import tensorflow as tf

        served = tf.saved_model.load(str(target)).signatures["serving_default"](tf.ones((1, 3)))
        value = float(list(served.values())[0].numpy()[0, 0]) / 4.0  # 3 inputs x w + b = 4 x fill
        assert value in (OLD, NEW), value
        return value
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    model.compile("sgd", "mse")
    if kind in ("backup", "backup_cleanup"):
        callback = tfkit.callbacks.BackupAndRestore(str(target))
        callback.set_model(model)
        callback.on_train_begin()
        if callback.restored_epoch is None:
            return None
        values = np.unique(np.concatenate([w.numpy().ravel() for w in model.weights]))
        assert values.tolist() == [float(callback.restored_epoch)], (callback.restored_epoch, values)
        return values[0]
    if kind in ("model", "model_checkpoint"):
        model = tfkit.load_model(str(target))
    else:
        model.load_weights(str(target))
    values = np.unique(np.concatenate([w.numpy().ravel() for w in model.weights]))
    assert len(values) == 1, values
    return float(values[0])


def _temporaries(folder):
    return sorted(str(p) for p in Path(folder).rglob("*") if any(mark in p.name for mark in TEMPORARY_MARKS))


def _calls(log):
    lines = Path(log).read_text().splitlines()
    return [line.split(" ", 2) for line in lines if not line.startswith("completed")]


def _in_place_writes(log, existed):
    """Opens for writing of a path that existed before the save and is not a temporary name."""
    return [
        path
        for _, call, path in _calls(log)
        if call in ("open", "openat", "fopen", "truncate")
        and path in existed
        and not any(mark in path for mark in TEMPORARY_MARKS)
    ]


@pytest.mark.parametrize("kind", list(TARGETS))
def test_a_save_killed_before_any_system_call_leaves_the_previous_save(tmp_path, saver, kind):
    work = tmp_path / "work"
    target = work / TARGETS[kind]
    first = "backup" if kind == "backup_cleanup" else kind  # the clean-up removes a backup made first
    assert saver(first, target, OLD, 0, tmp_path / "first.log") == {"killed": False, "exit": 0}
    bystander = (target if kind.startswith("backup") else target.parent) / "notes.txt"
    bystander.write_text("the user's")
    pristine = tmp_path / "pristine"
    shutil.copytree(work, pristine)
    existed = {str(p) for p in work.rglob("*")}
    expected_after = None if kind == "backup_cleanup" else NEW

    kills = 0
    for kill_at in range(1, 200):
        if kind in SAMPLED and kill_at > 2 and kill_at % 2 == 0:
            continue
        log = tmp_path / f"kill-{kill_at}.log"
        outcome = saver(kind, target, NEW, kill_at, log)
        assert outcome["killed"] or outcome["exit"] == 0, (kind, kill_at, outcome)
        stored = _stored(kind, target)
        assert bystander.read_text() == "the user's", (kind, kill_at)
        if not outcome["killed"]:
            assert stored == expected_after, (kind, stored)
            assert not _in_place_writes(log, existed), _in_place_writes(log, existed)
            assert not _temporaries(work), _temporaries(work)
            assert len(_calls(log)) == kill_at - 1 or kind in SAMPLED and len(_calls(log)) == kill_at - 2
            if kind == "backup_cleanup":
                assert sorted(os.listdir(target)) == [".tfkit-backup-dir", "notes.txt"]
            break
        kills += 1
        assert stored in (OLD, NEW, None) and (stored is not None or kind == "backup_cleanup"), (kind, kill_at)
        if kill_at % AFTER_EVERY and kill_at > 2:  # the previous save survived; the clean-up check is sampled
            shutil.rmtree(work)
            shutil.copytree(pristine, work)
            continue
        # The next save after the kill completes, holds the new weights and clears what the killed one left.
        after = saver(kind, target, NEW, 0, tmp_path / "after.log")
        assert after == {"killed": False, "exit": 0}, (kind, kill_at, after)
        assert _stored(kind, target) == expected_after, (kind, kill_at)
        assert not _temporaries(work), (kind, kill_at, _temporaries(work))
        if kind == "backup_cleanup":
            assert sorted(os.listdir(target)) == [".tfkit-backup-dir", "notes.txt"], (kill_at, os.listdir(target))
        shutil.rmtree(work)  # back to the old save for the next kill point
        shutil.copytree(pristine, work)
    else:
        pytest.fail(f"{kind}: the save never completed")
    assert kills >= 2, f"{kind}: only {kills} state-changing calls were seen"
