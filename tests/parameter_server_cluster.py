"""An in-process parameter-server cluster for tests: 2 workers and 1 ps as ``tf.distribute.Server``s on loopback.

    strategy = in_process_strategy(workers=2, ps=1)   # this process is the chief (the coordinator)
    with strategy.scope():
        model = build(); model.compile("adam", "mse")

Run as a script (``python tests/parameter_server_cluster.py OUT.json``) it
builds the cluster, runs every scenario ``test_parameter_server.py`` checks,
writes the numbers as JSON and leaves with ``os._exit``: servers in the
process never need a shutdown, and the pytest fixture that starts the
script kills it if it outlives its time limit. In-process servers are how
tf-keras tests parameter-server training; a separate process keeps the
remote eager context (which connecting to a cluster installs process-wide)
out of the rest of the test session.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def in_process_strategy(
    workers: int = 2, ps: int = 1, variable_partitioner: object = None
) -> tf.distribute.ParameterServerStrategy:
    """Start ``workers`` worker and ``ps`` parameter servers in this process; return the chief's strategy."""
    spec = {
        "chief": [f"127.0.0.1:{_free_port()}"],
        "worker": [f"127.0.0.1:{_free_port()}" for _ in range(workers)],
        "ps": [f"127.0.0.1:{_free_port()}" for _ in range(ps)],
    }
    cluster = tf.train.ClusterSpec(spec)
    config = tf.compat.v1.ConfigProto()
    # The servers share this process's CPUs; with fewer inter-op threads than workers + 1 a worker's step
    # and the parameter server's reads can wait on each other for ever (seen with 2 threads on 2 cores).
    config.inter_op_parallelism_threads = workers + 2
    servers = [
        tf.distribute.Server(cluster, job_name=job, task_index=i, protocol="grpc", config=config, start=True)
        for job in ("worker", "ps")
        for i in range(len(spec[job]))
    ]
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        cluster, task_type="chief", task_id=0, rpc_layer="grpc"
    )
    strategy = tf.distribute.ParameterServerStrategy(resolver, variable_partitioner=variable_partitioner)
    strategy._tfkit_test_servers = servers  # keep them referenced for the life of the strategy
    return strategy


# ---------------------------------------------------------------- scenarios


def _small_regression(tfkit, seed: int = 0):
    from tfkit import layers

    model = tfkit.Sequential(
        [
            tfkit.Input((4,)),
            layers.Dense(8, activation="relu", kernel_initializer=tfkit.initializers.GlorotUniform(seed=seed)),
            layers.Dense(1, kernel_initializer=tfkit.initializers.GlorotUniform(seed=seed + 1)),
        ]
    )
    model.compile(tfkit.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    return model


def _regression_data(n: int = 256):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 4)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], "float32")).astype("float32")
    return x, y


def _error(call) -> str:
    try:
        call()
    except (ValueError, TypeError) as error:
        return f"{type(error).__name__}: {error}"
    return "no error"


def run_small_model(strategy, tfkit) -> dict:
    x, y = _regression_data()
    with strategy.scope():
        model = _small_regression(tfkit)
    kernel = model.layers[0].kernel
    before = kernel.numpy().copy()
    history = model.fit(x, y, batch_size=32, epochs=3, steps_per_epoch=8, verbose=0).history

    def dataset_fn(context):
        batch = context.get_per_replica_batch_size(32)
        return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(256).repeat().batch(batch)

    creator = tfkit.utils.experimental.DatasetCreator(dataset_fn)
    creator_history = model.fit(
        creator, epochs=2, steps_per_epoch=8, verbose=0, validation_data=(x, y), validation_steps=4
    ).history
    dataset_history = model.fit(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(32), epochs=1, steps_per_epoch=8, verbose=0
    ).history
    return {
        "kernel_device": kernel.device,
        "kernel_changed": float(np.abs(kernel.numpy() - before).max()),
        "iterations": int(model.optimizer.iterations.numpy()),
        "loss": history["loss"],
        "mae": history["mae"],
        "creator_loss": creator_history["loss"],
        "creator_val_loss": creator_history["val_loss"],
        "dataset_loss": dataset_history["loss"],
        "evaluate": model.evaluate(x, y, batch_size=64, steps=4, verbose=0, return_dict=True),
        "evaluate_creator": model.evaluate(creator, steps=4, verbose=0),
        "predict": model.predict(x[:5], verbose=0).tolist(),
        "predict_expected": (
            np.maximum(x[:5] @ model.layers[0].kernel.numpy() + model.layers[0].bias.numpy(), 0)
            @ model.layers[1].kernel.numpy()
            + model.layers[1].bias.numpy()
        ).tolist(),
    }


def run_errors(strategy, tfkit) -> dict:
    x, y = _regression_data(64)
    with strategy.scope():
        model = _small_regression(tfkit)

    def generator():
        while True:
            yield x[:8], y[:8]

    creator = tfkit.utils.experimental.DatasetCreator(
        lambda context: tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(8)
    )
    return {
        "arrays_without_steps": _error(lambda: model.fit(x, y, batch_size=16, verbose=0)),
        "creator_without_steps": _error(lambda: model.fit(creator, verbose=0)),
        "dataset_without_steps": _error(
            lambda: model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(8), verbose=0)
        ),
        "generator": _error(lambda: model.fit(generator(), steps_per_epoch=2, verbose=0)),
        "bare_callable": _error(lambda: model.fit(lambda context: None, steps_per_epoch=2, verbose=0)),
        "evaluate_without_steps": _error(lambda: model.evaluate(x, y, verbose=0)),
        "validation_without_steps": _error(
            lambda: model.fit(x, y, steps_per_epoch=2, validation_data=(x, y), verbose=0)
        ),
        "verbose_1": _error(lambda: model.fit(x, y, steps_per_epoch=2, verbose=1)),
        "train_on_batch": _error(lambda: model.train_on_batch(x, y)),
    }


def run_custom_train_step(strategy, tfkit) -> dict:
    """A model without call() that trains through its own train_step and metric (keras-io's pattern)."""
    from tfkit import layers

    class Regressor(tfkit.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1, kernel_initializer="zeros")
            self.dense.build((None, 4))
            self.tracker = tfkit.metrics.Mean(name="mse")

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self.dense(x) - y))
            grads = tape.gradient(loss, self.trainable_weights)
            self.optimizer.apply(grads, self.trainable_weights)
            self.tracker.update_state(loss)
            return {"mse": self.tracker.result(), "batch_rows": tf.shape(x)[0]}

    x, y = _regression_data()
    with strategy.scope():
        model = Regressor()
        model.compile(tfkit.optimizers.SGD(0.05))
    history = model.fit(x, y, batch_size=32, epochs=3, steps_per_epoch=8, verbose=0).history
    return {
        "mse": history["mse"],
        "batch_rows": history["batch_rows"],
        "slots_device": model.optimizer.variables[0].device,
    }


def _vae_losses(tfkit, vae_module, x, strategy=None, epochs: int = 3, batch_size: int = 64) -> dict:
    tfkit.utils.set_random_seed(1337)
    scope = strategy.scope() if strategy is not None else _Null()
    with scope:
        vae = vae_module.VariationalAutoEncoder(784, 64, 32)
        vae.compile(tfkit.optimizers.Adam(1e-3), loss=tfkit.losses.MeanSquaredError())
    steps = len(x) // batch_size
    history = vae.fit(x, x, batch_size=batch_size, epochs=epochs, steps_per_epoch=steps, verbose=0).history
    kwargs = {"steps": steps} if strategy is not None else {}
    return {"loss": history["loss"], "evaluate": vae.evaluate(x, x, batch_size=batch_size, verbose=0, **kwargs)}


class _Null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None


def run_vae(strategy, tfkit) -> dict:
    sys.path.insert(0, os.path.join(_ROOT, "examples"))
    import vae_mnist

    (x_train, _), _ = tfkit.datasets.mnist.load_data()
    x = x_train[:512].reshape(512, 784).astype("float32") / 255
    return {
        "one_device": _vae_losses(tfkit, vae_mnist, x),
        "parameter_server": _vae_losses(tfkit, vae_mnist, x, strategy),
    }


def main(out_file: str) -> None:
    sys.path.insert(0, _ROOT)
    import tfkit

    results: dict = {}
    strategy = in_process_strategy(workers=2, ps=1)
    from tfkit.training.distributed_loops import num_workers

    results["workers"] = num_workers(strategy)
    for name, scenario in (
        ("small", run_small_model),
        ("errors", run_errors),
        ("custom_train_step", run_custom_train_step),
        ("vae", run_vae),
    ):
        try:
            results[name] = scenario(strategy, tfkit)
        except Exception:  # noqa: BLE001 - reported to the test, which fails with the traceback
            results[name] = {"traceback": traceback.format_exc()}
        with open(out_file, "w") as f:
            json.dump(results, f, default=float)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # the in-process servers have no shutdown: leave without waiting for their threads


if __name__ == "__main__":
    main(sys.argv[1])
