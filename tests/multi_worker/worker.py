"""One worker of the two-worker tests (run by cluster.py with TF_CONFIG set).

    python worker.py callbacks <folder> <runs>        # fits with every file-writing callback, then save/export
    python worker.py resumable <folder> [<kill_epoch>]  # a deterministic fit with BackupAndRestore; worker 1
                                                       # SIGKILLs itself in epoch <kill_epoch> when given
    python worker.py auto_chunks <folder>             # examples/two_workers.py's settings: steps_per_execution
                                                       # "auto", epoch-level callbacks only, verbose 2 on the chief
                                                       # and 0 elsewhere, enough steps for chunks to grow

Each worker prints one JSON line per fit: its task index, the losses, and a
digest of its final weights.
"""

import hashlib
import json
import os
import signal
import sys

import numpy as np
import tensorflow as tf

import tfkit

MODE, FOLDER = sys.argv[1], sys.argv[2]
TASK = json.loads(os.environ["TF_CONFIG"])["task"]["index"]


def data():
    rng = np.random.default_rng(0)
    x = rng.random((128, 4)).astype("float32")
    return x, (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], "float32")).astype("float32")


def model_in(strategy):
    with strategy.scope():
        model = tfkit.Sequential(
            [
                tfkit.Input((4,)),
                tfkit.layers.Dense(8, activation="relu", name="hidden"),
                tfkit.layers.Dense(1, name="out"),
            ]
        )
        model.compile(tfkit.optimizers.Adam(0.01), "mse")
    return model


def digest(model):
    return hashlib.sha256(b"".join(w.numpy().tobytes() for w in model.weights)).hexdigest()


class KillWorkerOne(tfkit.callbacks.Callback):
    """Worker 1 dies mid-epoch, as a machine would: no clean-up, no message."""

    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch
        self.current = -1

    def on_epoch_begin(self, epoch, logs=None):
        self.current = epoch

    def on_train_batch_end(self, batch, logs=None):
        if TASK == 1 and self.current == self.epoch and batch == 1:
            os.kill(os.getpid(), signal.SIGKILL)


def callbacks_runs(strategy, runs):
    x, y = data()
    for run in range(runs):
        tfkit.utils.set_random_seed(run)
        folder = os.path.join(FOLDER, f"run-{run}")
        model = model_in(strategy)
        callbacks = [
            tfkit.callbacks.ModelCheckpoint(
                os.path.join(folder, "ckpt", "epoch-{epoch}.weights.h5"), save_weights_only=True
            ),
            tfkit.callbacks.ModelCheckpoint(os.path.join(folder, "best.keras"), monitor="loss", save_best_only=True),
            tfkit.callbacks.BackupAndRestore(os.path.join(folder, "backup"), save_freq=2),
            tfkit.callbacks.TensorBoard(os.path.join(folder, "logs"), histogram_freq=1),
            tfkit.callbacks.CSVLogger(os.path.join(folder, "log.csv")),
        ]
        history = model.fit(x, y, batch_size=16, epochs=3, verbose=0, callbacks=callbacks)
        model.save(os.path.join(folder, "final.h5"))
        model.save_weights(os.path.join(folder, "final-ckpt", "w"))
        model.export(os.path.join(folder, "export"), version=1)
        print(
            json.dumps({"task": TASK, "run": run, "loss": history.history["loss"], "digest": digest(model)}), flush=True
        )


def resumable(strategy, kill_epoch):
    tf.config.experimental.enable_op_determinism()
    tfkit.utils.set_random_seed(7)
    x, y = data()
    model = model_in(strategy)
    callbacks = [tfkit.callbacks.BackupAndRestore(os.path.join(FOLDER, "backup"))]
    if kill_epoch is not None:
        callbacks.append(KillWorkerOne(kill_epoch))
    history = model.fit(x, y, batch_size=16, epochs=4, verbose=0, shuffle=True, callbacks=callbacks)
    print(
        json.dumps({"task": TASK, "loss": history.history["loss"], "epochs": history.epoch, "digest": digest(model)}),
        flush=True,
    )


def auto_chunks(strategy):
    """The README example's fit, small: nothing asks for batch hooks, so steps run in multi-step compiled calls.

    The workers' clocks and verbose settings differ (a chunk aims at 0.1 s with a progress line, 1 s without);
    a chunk length taken from them would differ between the workers and their all-reduces would never pair up.
    """
    rng = np.random.default_rng(1)
    x = rng.random((4096, 32)).astype("float32")
    y = (x.sum(axis=1) > 16).astype("int64")
    tfkit.utils.set_random_seed(3)
    with strategy.scope():
        model = tfkit.Sequential([tfkit.Input((32,)), tfkit.layers.Dense(64, activation="relu"), tfkit.layers.Dense(2)])
        model.compile("adam", tfkit.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    callbacks = [
        tfkit.callbacks.BackupAndRestore(os.path.join(FOLDER, "backup")),
        tfkit.callbacks.ModelCheckpoint(
            os.path.join(FOLDER, "ckpt", "epoch-{epoch}.weights.h5"), save_weights_only=True
        ),
        tfkit.callbacks.TensorBoard(os.path.join(FOLDER, "logs")),
        tfkit.callbacks.CSVLogger(os.path.join(FOLDER, "training.csv")),
    ]
    history = model.fit(
        x,
        y,
        batch_size=32,
        epochs=2,
        verbose=2 if TASK == 0 else 0,
        callbacks=callbacks,
        validation_data=(x[:1024], y[:1024]),
    )
    evaluated = model.evaluate(x, y, batch_size=64, verbose=0)
    print(
        json.dumps(
            {
                "task": TASK,
                "loss": history.history["loss"],
                "val_loss": history.history["val_loss"],
                "evaluate": evaluated,
                "digest": digest(model),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    if MODE == "callbacks":
        callbacks_runs(strategy, int(sys.argv[3]))
    elif MODE == "auto_chunks":
        auto_chunks(strategy)
    else:
        resumable(strategy, int(sys.argv[3]) if len(sys.argv) > 3 else None)
