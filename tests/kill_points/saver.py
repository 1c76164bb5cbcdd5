"""Fork server for the kill-point tests: import tfkit once, then save in a forked child per request.

Run under ``LD_PRELOAD=<shim.so>`` (see shim.c). Each stdin line is a JSON
request ``{"kind", "target", "fill", "kill_at", "log"}``; the server forks,
the child builds a small model whose weights all hold ``fill``, arms the
shim (kill before the ``kill_at``-th state-changing file call; 0 = never)
and saves. The server answers one JSON line per request:
``{"killed": bool, "exit": int, "calls": int}``.

Forking after ``import tensorflow`` is safe here because the server never
starts TensorFlow's runtime (no tensor is made before the fork); every
child starts it fresh, as a new process would, in a fraction of the time.
"""

import ctypes
import json
import os
import signal
import sys
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

import tfkit  # noqa: E402

SHIM = ctypes.CDLL(None)


def _model(fill: float) -> tfkit.Model:
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    model.compile("sgd", "mse")
    for weight in model.weights:
        weight.assign(np.full(weight.shape, fill, "float32"))
    return model


def _backup(model: tfkit.Model, target: str) -> tfkit.callbacks.BackupAndRestore:
    callback = tfkit.callbacks.BackupAndRestore(target)
    callback.set_model(model)
    callback.on_train_begin()  # restores the old backup (fill 1, one epoch) if there is one
    return callback


def _prepare(kind: str, target: str, fill: float):
    """Everything before the save: unarmed, so only the save's own calls are counted."""
    model = _model(fill)
    if kind == "backup":
        callback = _backup(model, target)
        for weight in model.weights:  # the restore brought back the old values: train "one more epoch"
            weight.assign(np.full(weight.shape, fill, "float32"))
        return lambda: callback.on_epoch_end(int(fill) - 1)
    if kind == "backup_cleanup":
        callback = _backup(model, target)
        return lambda: callback.on_train_end()
    if kind == "model":
        return lambda: model.save(target)
    if kind in ("weights", "checkpoint"):
        return lambda: model.save_weights(target)
    if kind == "export":
        return lambda: model.export(os.path.dirname(target), version=int(os.path.basename(target)))
    if kind == "export_unversioned":
        return lambda: model.export(target)
    if kind in ("model_checkpoint", "model_checkpoint_weights"):
        callback = tfkit.callbacks.ModelCheckpoint(target, save_weights_only=kind == "model_checkpoint_weights")
        callback.set_model(model)
        return lambda: callback.on_epoch_end(0, {"loss": 1.0})
    raise ValueError(f"unknown save kind {kind!r}")


def _child(request: dict) -> None:
    save = _prepare(request["kind"], request["target"], float(request["fill"]))
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    SHIM.kill_points_arm(ctypes.c_long(int(request["kill_at"])), log)
    save()
    SHIM.kill_points_disarm()
    os.write(log, f"completed {SHIM.kill_points_count()}\n".encode())


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            os.dup2(2, 1)  # the child's prints go to stderr: stdout carries only the server's answers
            code = 0
            try:
                _child(request)
            except BaseException:
                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
        print(json.dumps({"killed": killed, "exit": code}), flush=True)


if __name__ == "__main__":
    main()
