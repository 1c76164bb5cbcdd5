"""A checkpoint saver paused at each of its steps, and a reader in another PID namespace meanwhile.

A reader must never change what is on disk, and a save that returned is never
rolled back: the reader holds the folder shared (it waits while a publish is
under way) and otherwise reads the prefix, or the previous checkpoint a killed
publish kept. Liveness comes from kernel locks, never from process ids, which
a process in another namespace cannot see.
"""

import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
import time_limits
from pid_namespace import pid_namespace_prefix

import tfkit

pytestmark = pytest.mark.slow

_SAVER = textwrap.dedent(r"""
    import os, shutil, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np, tfkit
    target = sys.argv[1]
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])

    def fill(value):
        for w in model.weights:
            w.assign(np.full(w.shape, value, "float32"))

    fill(1.0)
    model.save_weights(target)
    state = {"calls": 0, "pause_at": 0}

    def pausing(name, real):
        def call(*args, **kwargs):
            state["calls"] += 1
            if state["calls"] == state["pause_at"]:
                print(f"paused {name} {os.path.basename(str(args[0]))}", flush=True)
                sys.stdin.readline()
            return real(*args, **kwargs)
        return call

    for name in ("mkdir", "link", "replace", "rename", "remove", "unlink", "rmdir"):
        setattr(os, name, pausing(name, getattr(os, name)))
    value = 1.0
    for pause_at in range(1, 100):                  # save k pauses before its k-th file system call
        value += 1.0
        fill(value)
        state["calls"], state["pause_at"] = 0, pause_at
        model.save_weights(target)
        print(f"saved {value} {state['calls']}", flush=True)
        if state["calls"] < pause_at:                # it never reached that call: every step was paused once
            break
        sys.stdin.readline()                         # the test reads the saved checkpoint before the next save
""")

_READER = textwrap.dedent(r"""
    import os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np, tfkit
    target = sys.argv[1]
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    print(f"ready {os.getpid()}", flush=True)
    for line in sys.stdin:
        try:
            model.load_weights(target)
            values = np.unique(np.concatenate([w.numpy().ravel() for w in model.weights])).tolist()
            print("loaded " + " ".join(str(v) for v in values), flush=True)
        except Exception as error:
            print(f"failed {type(error).__name__}: {error}".replace("\n", " "), flush=True)
""")


def _tree(folder):
    """Every entry under ``folder`` with its inode and modification time: what a reader must leave as it was."""
    entries = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            info = os.lstat(path)
            entries[os.path.relpath(path, folder)] = (info.st_ino, info.st_mtime_ns, info.st_size)
    return entries


def _line(process, timeout, probe=False):
    """The next line ``process`` prints within ``timeout`` seconds, or None.

    ``timeout`` is a hang detector, a quiet machine's seconds stretched by the load (``time_limits``), unless
    ``probe``: a short wait whose end is itself the answer (the saver holds the folder).
    """
    try:
        return process.lines.get(timeout=timeout if probe else time_limits.seconds(timeout))
    except queue.Empty:
        return None


def _start(code, target, prefix=None):
    process = subprocess.Popen(
        [*(prefix or []), sys.executable, "-c", code, target],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(tfkit.__file__))),
    )
    process.lines = queue.Queue()  # a thread reads stdout: select() cannot see lines already buffered

    def pump():
        for line in process.stdout:
            process.lines.put(line.strip())

    threading.Thread(target=pump, daemon=True).start()
    return process


def _stop(*processes):
    for process in processes:
        try:
            process.stdin.close()  # a reader's loop ends with its input
            process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait(timeout=30)
        process.stderr.close()


def test_a_reader_in_another_pid_namespace_never_changes_or_rolls_back_a_checkpoint(tmp_path):
    namespace = pid_namespace_prefix()
    if namespace is None:
        pytest.skip(
            "this machine refuses a new PID namespace (unshare --pid --fork --mount-proc); the reader "
            "runs in the test's namespace would prove less: see test_saving_atomic's races instead"
        )
    target = str(tmp_path / "ckpt" / "w")
    saver = _start(_SAVER, target)
    reader = _start(_READER, target, namespace)
    try:
        assert (_line(reader, 120) or "").startswith("ready 1"), reader.stderr.read()[
            -2000:
        ]  # pid 1: its own namespace
        folder = os.path.dirname(target)
        steps, waited, save_number = [], 0, 1
        while True:
            event = _line(saver, 120)
            assert event is not None, saver.stderr.read()[-3000:]
            if event.startswith("saved"):
                _, value, calls = event.split()
                reader.stdin.write("load\n")
                answer = _line(reader, 60)
                assert answer == f"loaded {value}", (answer, event, steps)  # a save that returned is what a reader gets
                if int(calls) < save_number:  # the last save ran without a pause
                    break
                save_number += 1
                saver.stdin.write("next\n")
                continue
            assert event.startswith("paused"), event
            steps.append(event)
            before = _tree(folder)
            reader.stdin.write("load\n")
            answer = _line(reader, 1.5, probe=True)
            if answer is None:  # the saver holds the folder: the reader waits for the publish
                waited += 1
                saver.stdin.write("go\n")
                answer = _line(reader, 60)
                assert answer is not None and answer.startswith("loaded"), (event, answer)
            else:
                assert _tree(folder) == before, event  # the reader changed nothing on disk
                saver.stdin.write("go\n")
            assert answer.startswith("loaded ") and len(answer.split()) == 2, (event, answer)  # one whole save
        assert len(steps) >= 6 and waited >= 3, (steps, waited)
        assert saver.wait(timeout=time_limits.seconds(60)) == 0
    finally:
        _stop(saver, reader)


def test_a_killed_publish_is_read_as_the_previous_checkpoint_without_touching_the_files(tmp_path):
    target = str(tmp_path / "ckpt" / "w")
    saver = _start(_SAVER, target)
    try:
        while True:  # save k pauses before its k-th call: go on until one pauses
            event = _line(saver, 120)  # with its new files in place and the previous one kept
            assert event is not None, saver.stderr.read()[-3000:]
            if event == "paused remove previous.index":
                break
            saver.stdin.write("go\n")  # on from a pause, or to the next save
        os.kill(saver.pid, signal.SIGKILL)
        saver.wait(timeout=30)
    finally:
        _stop(saver)
    folder = os.path.dirname(target)
    before = _tree(folder)
    assert any(".tmp-" in name for name in before)
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    model.load_weights(target)
    kept = np.unique(np.concatenate([w.numpy().ravel() for w in model.weights]))
    assert len(kept) == 1 and _tree(folder) == before  # one whole checkpoint, read without a write
    model.save_weights(target)  # the next save puts things right
    assert sorted(os.listdir(folder)) == ["w.data-00000-of-00001", "w.index"]
