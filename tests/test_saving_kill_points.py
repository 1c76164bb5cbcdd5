"""Kill a save at every state-changing file operation it makes: the previous file always survives.

For each kind of save (model .h5, weights .h5, TensorFlow checkpoint prefix,
export version folder, ModelCheckpoint), a child process saves new weights
over an old save and SIGKILLs itself at its N-th call of ``os.replace``,
``os.rename``, ``os.remove``, ``os.unlink``, ``os.link``, ``os.rmdir``,
``shutil.rmtree`` or the ``renameat2`` exchange, for N = 1, 2, ... until a
save runs to the end. After every kill the target must load, hold either the
old or the new weights (never a mix, never nothing), and a file the user put
beside it must still be there. (TensorFlow's own C++ file writes happen under
temporary names, so these Python-level calls are the ones that publish.)
"""

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tfkit

CHILD = textwrap.dedent(r"""
    import os, shutil, signal, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np, tfkit
    from tfkit.saving import atomic

    kind, target, fill, kill_at = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    model.compile("sgd", "mse")
    for weight in model.weights:
        weight.assign(np.full(weight.shape, fill, "float32"))

    calls = 0
    def counting(function):
        def wrapper(*args, **kwargs):
            global calls
            calls += 1
            if calls == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return function(*args, **kwargs)
        return wrapper
    for name in ("replace", "rename", "remove", "unlink", "link", "rmdir"):
        setattr(os, name, counting(getattr(os, name)))
    shutil.rmtree = counting(shutil.rmtree)
    atomic._exchange = counting(atomic._exchange)

    if kind == "model":
        model.save(target)
    elif kind == "weights":
        model.save_weights(target)
    elif kind == "checkpoint":
        model.save_weights(target)
    elif kind == "export":
        model.export(os.path.dirname(target), version=int(os.path.basename(target)))
    elif kind == "model_checkpoint":
        callback = tfkit.callbacks.ModelCheckpoint(target)
        callback.set_model(model)
        callback.on_epoch_end(0, {"loss": 1.0})
    print("completed", calls)
""")


def _run(kind, target, fill, kill_at):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", CHILD, kind, str(target), str(fill), str(kill_at)],
                          capture_output=True, text=True, timeout=180, env=env)


def _stored_fill(kind, target):
    """The single value every stored weight holds (old 1.0 or new 2.0); fails on a mix or an unreadable save."""
    if kind == "export":
        import tensorflow as tf

        served = tf.saved_model.load(str(target)).signatures["serving_default"](tf.ones((1, 3)))
        value = list(served.values())[0].numpy()
        return {1.0: 1.0, 2.0: 2.0}[float(value[0, 0]) / 4.0]   # 3 inputs x w + b: 4 x fill
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    if kind in ("model", "model_checkpoint"):
        model = tfkit.load_model(str(target))
    else:
        model.load_weights(str(target))
    values = np.unique(np.concatenate([w.numpy().ravel() for w in model.weights]))
    assert len(values) == 1, values
    return float(values[0])


TARGETS = {"model": "m.h5", "weights": "w.weights.h5", "checkpoint": "ckpt/w", "export": "models/vae/1",
           "model_checkpoint": "best.keras"}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(TARGETS))
def test_a_save_killed_anywhere_leaves_the_previous_save_loadable(tmp_path, kind):
    import shutil

    work = tmp_path / "work"
    target = work / TARGETS[kind]
    done = _run(kind, target, 1.0, kill_at=0)
    assert "completed" in done.stdout, done.stderr[-2000:]
    bystander = work / "notes.txt"
    bystander.write_text("the user's")
    pristine = tmp_path / "pristine"
    shutil.copytree(work, pristine)
    kills = 0
    for kill_at in range(1, 40):
        done = _run(kind, target, 2.0, kill_at)
        killed = done.returncode == -signal.SIGKILL
        assert killed or "completed" in done.stdout, done.stderr[-2000:]
        fill = _stored_fill(kind, target)
        assert fill == 2.0 or killed and fill == 1.0, (kind, kill_at, fill)
        assert bystander.read_text() == "the user's"
        if not killed:
            break
        kills += 1
        shutil.rmtree(work)                         # back to the old save for the next kill point
        shutil.copytree(pristine, work)
    assert kills >= 1, f"{kind}: no state-changing call was made"
