"""BackupAndRestore: a fit killed mid-run resumes to the same final weights as an uninterrupted fit."""

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import time_limits

SCRIPT = textwrap.dedent(
    """
    import os, random, signal, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import numpy as np, tensorflow as tf
    random.seed(0); np.random.seed(0); tf.random.set_seed(0)
    tf.config.experimental.enable_op_determinism()
    import tfkit
    from tfkit import layers

    mode, backup_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
    rng = np.random.default_rng(0)
    x = rng.normal(size=(96, 6)).astype("float32")
    y = (x[:, :1] * 2 - x[:, 1:2]).astype("float32")
    model = tfkit.Sequential([tfkit.Input((6,)), layers.Dense(8, activation="relu"), layers.Dropout(0.3), layers.Dense(1)])
    model.compile(tfkit.optimizers.Adam(1e-2), loss="mse")

    class KillAfterEpoch(tfkit.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                os.kill(os.getpid(), signal.SIGKILL)

    callbacks = [tfkit.callbacks.BackupAndRestore(backup_dir)] if mode != "plain" else []
    if mode == "kill":
        callbacks.append(KillAfterEpoch())
    model.fit(x, y, batch_size=16, epochs=4, shuffle=True, callbacks=callbacks, verbose=0)
    np.savez(out, *model.get_weights(), iterations=model.optimizer.iterations.numpy())
    """
)


def _run(mode: str, backup_dir: str, out: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, backup_dir, out],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(600),
    )


@pytest.mark.slow
def test_killed_fit_resumes_to_the_same_weights(tmp_path):
    backup = str(tmp_path / "backup")
    killed = _run("kill", backup, str(tmp_path / "unused.npz"))
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert os.path.isdir(backup) and os.listdir(backup)
    resumed = _run("resume", backup, str(tmp_path / "resumed.npz"))
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    plain = _run("plain", str(tmp_path / "unused"), str(tmp_path / "plain.npz"))
    assert plain.returncode == 0, plain.stderr[-2000:]
    a, b = np.load(tmp_path / "resumed.npz"), np.load(tmp_path / "plain.npz")
    assert int(a["iterations"]) == int(b["iterations"]) == 4 * 6
    for key in b.files:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert not os.path.exists(backup)  # deleted after a successful fit
