"""One worker of the two-worker tests (run by cluster.py with TF_CONFIG set).

    python worker.py callbacks <folder> <runs>        # fits with every file-writing callback, then save/export
    python worker.py resumable <folder> [<kill_epoch>]  # a deterministic fit with BackupAndRestore; worker 1
                                                       # SIGKILLs itself in epoch <kill_epoch> when given
    python worker.py auto_chunks <folder>             # examples/two_workers.py's settings: steps_per_execution
                                                       # "auto", epoch-level callbacks only, verbose 2 on the chief
                                                       # and 0 elsewhere, enough steps for chunks to grow
    python worker.py predict_evaluate <folder> [tf_keras]  # predict and evaluate of arrays and datasets (rows not
                                                       # divisible by the workers too); with tf_keras, tf-keras's
                                                       # model with the same weights does the same, as a reference

Each worker prints one JSON line per fit: its task index, the losses, and a
digest of its final weights (predict_evaluate: its evaluations, and its
predictions in <folder>/worker-<task>.npz).
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


def model_in(strategy, metrics=None):
    with strategy.scope():
        model = tfkit.Sequential(
            [
                tfkit.Input((4,)),
                tfkit.layers.Dense(8, activation="relu", name="hidden"),
                tfkit.layers.Dense(1, name="out"),
            ]
        )
        model.compile(tfkit.optimizers.Adam(0.01), "mse", metrics=metrics)
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


class BatchRows(tfkit.callbacks.Callback):
    """The number of rows in each batch's outputs that predict hands to the callbacks."""

    def __init__(self):
        super().__init__()
        self.rows = []

    def on_predict_batch_end(self, batch, logs=None):
        self.rows.append(int(logs["outputs"].shape[0]))


def predictions_of(model, x, dataset, callbacks=None):
    """The same predict calls for tfkit's model and tf-keras's (``reference``): one batch, rows not divisible by
    the two workers, a last batch of one row (none for worker 1), ``steps``, and datasets."""
    off = tf.data.Options()
    off.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    return {
        "eight": model.predict(x[:8], verbose=0),  # issue 54's call: 4 rows on each worker
        "nine": model.predict(x[:9], verbose=0),
        "nine_by_4": model.predict(x[:9], batch_size=4, verbose=0, callbacks=callbacks),
        "steps": model.predict(x[:16], batch_size=4, steps=2, verbose=0),
        "dataset": model.predict(dataset, verbose=0),
        "dataset_off": model.predict(dataset.with_options(off), verbose=0),  # predict shards by data anyway
    }


def predict_evaluate(strategy, with_tf_keras):
    """Every worker's predict returns the whole batch in order, and evaluate the global metrics.

    The chief saves the models, so the test can predict and evaluate on one device with the same weights.
    """
    x, y = data()
    dataset = tf.data.Dataset.from_tensor_slices(x[:9]).batch(4)
    labelled = tf.data.Dataset.from_tensor_slices((x[:9], y[:9])).batch(4)
    tfkit.utils.set_random_seed(5)
    model = model_in(strategy, metrics=["mae"])
    rows = BatchRows()
    arrays = predictions_of(model, x, dataset, callbacks=[rows])
    report = {
        "task": TASK,
        "rows": rows.rows,
        "evaluate": model.evaluate(x[:9], y[:9], batch_size=4, verbose=0, return_dict=True),
        "evaluate_dataset": model.evaluate(labelled, verbose=0, return_dict=True),
    }
    model.save(os.path.join(FOLDER, "one_output.h5"))
    with strategy.scope():
        inputs = tfkit.Input((4,))
        hidden = tfkit.layers.Dense(8, activation="relu")(inputs)
        heads = tfkit.Model(inputs, [tfkit.layers.Dense(2, name="a")(hidden), tfkit.layers.Dense(3, name="b")(hidden)])
    arrays["heads_a"], arrays["heads_b"] = heads.predict(x[:9], batch_size=4, verbose=0)
    heads.save(os.path.join(FOLDER, "two_outputs.h5"))
    with strategy.scope():
        model.compile("adam", "mse", run_eagerly=True)
    arrays["eager"] = model.predict(x[:9], batch_size=4, verbose=0)
    if with_tf_keras:
        import tf_keras

        with strategy.scope():
            reference = tf_keras.Sequential(
                [tf_keras.Input((4,)), tf_keras.layers.Dense(8, activation="relu"), tf_keras.layers.Dense(1)]
            )
            reference.set_weights(model.get_weights())
            reference.compile("adam", "mse", metrics=["mae"])
        for name, value in predictions_of(reference, x, dataset).items():
            arrays[f"tf_keras_{name}"] = value
        report["tf_keras_evaluate"] = reference.evaluate(x[:9], y[:9], batch_size=4, verbose=0, return_dict=True)
    np.savez(os.path.join(FOLDER, f"worker-{TASK}.npz"), **arrays)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    if MODE == "callbacks":
        callbacks_runs(strategy, int(sys.argv[3]))
    elif MODE == "auto_chunks":
        auto_chunks(strategy)
    elif MODE == "predict_evaluate":
        predict_evaluate(strategy, sys.argv[3:] == ["tf_keras"])
    else:
        resumable(strategy, int(sys.argv[3]) if len(sys.argv) > 3 else None)
