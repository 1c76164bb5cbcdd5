"""Train an MNIST classifier on two worker processes (MultiWorkerMirroredStrategy) on this machine.

    python examples/two_workers.py               # starts both workers on free localhost ports, waits for them
    TF_CONFIG='{"cluster": {"worker": ["localhost:12345", "localhost:12346"]}, "task": {"type": "worker", "index": 0}}' \\
        python examples/two_workers.py           # one worker, as you would start it on each machine

Every worker runs this same script; ``TF_CONFIG`` tells each one the
cluster and its own place in it. The global batch (64) is split between the
workers, gradients are summed across them after every step, and both end
with identical weights. Worker 0 is the chief: ``ModelCheckpoint``,
``BackupAndRestore``, ``TensorBoard``, ``CSVLogger`` and ``model.save``
write their files only there (under ``two_workers_out/``); the other worker
writes into temporary ``workertemp_1`` folders that are deleted as it goes.
Kill either process and start both again: training resumes from the last
epoch's backup.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys

_SHARED = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
if _SHARED.is_dir():  # this workplace keeps MNIST beside the repository
    os.environ.setdefault("TFKIT_DATA_DIR", str(_SHARED))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
OUT = "two_workers_out"


def launch_two_workers() -> int:
    """Start this script twice with a TF_CONFIG on free localhost ports; stop both on any failure."""
    ports = []
    for _ in range(2):
        with socket.socket() as sock:
            sock.bind(("localhost", 0))
            ports.append(sock.getsockname()[1])
    cluster = {"worker": [f"localhost:{port}" for port in ports]}
    workers = [
        subprocess.Popen(
            [sys.executable, __file__],
            env=dict(
                os.environ, TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}})
            ),
        )
        for index in range(2)
    ]

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)  # the finally below kills both workers

    signal.signal(signal.SIGTERM, stop)  # a killed launcher must not leave its workers behind
    try:
        codes = [worker.wait(timeout=900) for worker in workers]
    except subprocess.TimeoutExpired:
        print("the workers did not finish within 900 s; stopping them", file=sys.stderr)
        raise
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    return max(abs(code) for code in codes)


def train() -> None:
    import tensorflow as tf

    import tfkit

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    (x_train, y_train), (x_test, y_test) = tfkit.datasets.mnist.load_data()
    x_train, x_test = x_train.reshape(-1, 784).astype("float32") / 255, x_test.reshape(-1, 784).astype("float32") / 255
    with strategy.scope():
        model = tfkit.Sequential(
            [tfkit.Input((784,)), tfkit.layers.Dense(128, activation="relu"), tfkit.layers.Dense(10)]
        )
        model.compile("adam", tfkit.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    callbacks = [
        tfkit.callbacks.BackupAndRestore(f"{OUT}/backup"),
        tfkit.callbacks.ModelCheckpoint(f"{OUT}/ckpt/epoch-{{epoch}}.weights.h5", save_weights_only=True),
        tfkit.callbacks.TensorBoard(f"{OUT}/logs"),
        tfkit.callbacks.CSVLogger(f"{OUT}/training.csv"),
    ]
    chief = json.loads(os.environ["TF_CONFIG"])["task"]["index"] == 0
    model.fit(x_train, y_train, batch_size=64, epochs=2, verbose=2 if chief else 0, callbacks=callbacks)
    loss, accuracy = model.evaluate(x_test, y_test, batch_size=256, verbose=0)
    model.save(f"{OUT}/model.h5")
    if chief:
        print(f"test accuracy {accuracy:.4f}; files in {OUT}/: {sorted(os.listdir(OUT))}")


if __name__ == "__main__":
    if "TF_CONFIG" in os.environ:
        train()
    else:
        sys.exit(launch_two_workers())
