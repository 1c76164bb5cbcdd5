"""One mesh over two processes on loopback: each process has 4 logical CPU devices, the mesh has 8.

    python tests/mesh/two_processes.py PROCESS_ID PORT0 PORT1 FOLDER     # once per process; FOLDER shared

Each process calls ``tfkit.distribution.initialize`` (DTensor's multi-client
runtime), trains the same model on the same batches under DataParallel (8,)
and ModelParallel (2, 4), each process reading only its half of every batch
(``auto_shard_dataset``), and prints, as JSON, how far its weights and
predictions are from a run on one device. ``tests/test_distribution_mesh.py`` starts both and kills
them at a time limit.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
import tensorflow as tf

tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 4
)

import tfkit  # noqa: E402
from tfkit import distribution  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import time_limits  # noqa: E402  (tests/time_limits.py)


def _mlp() -> tfkit.Model:
    tfkit.utils.set_random_seed(0)
    inputs = tfkit.Input((16,))
    x = tfkit.layers.Dense(32, activation="relu", name="d1")(inputs)
    model = tfkit.Model(inputs, tfkit.layers.Dense(8, name="d2")(x))
    model.compile(optimizer=tfkit.optimizers.Adam(1e-2), loss="mse")
    return model


def main(process_id: int, ports: list[str]) -> dict:
    distribution.initialize([f"localhost:{p}" for p in ports], num_processes=2, process_id=process_id)
    rng = np.random.default_rng(0)  # every process feeds the same batches
    x, y = rng.normal(size=(64, 16)).astype("float32"), rng.normal(size=(64, 8)).astype("float32")
    single = _mlp()
    single.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    figures: dict = {
        "devices": distribution.list_devices(),
        "local_devices": len(tf.config.list_logical_devices("CPU")),
    }
    mesh_2d = distribution.DeviceMesh((2, 4), ["batch", "model"])
    layout_map = distribution.LayoutMap(mesh_2d)
    layout_map["d1/kernel"] = (None, "model")
    layout_map["d2/kernel"] = ("model", None)
    for name, dist in (
        ("data_parallel", distribution.DataParallel()),
        ("model_parallel", distribution.ModelParallel(layout_map=layout_map)),
    ):
        distribution.set_distribution(dist)
        model = _mlp()
        history = model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0).history
        global_batches = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
        own = [batch[0].numpy() for batch in dist.distribute_dataset(global_batches)]
        figures[name] = {
            "weight_diff": max(float(np.max(np.abs(a - b))) for a, b in zip(model.get_weights(), single.get_weights())),
            "loss": history["loss"],
            "local_shards": len(tf.experimental.dtensor.unpack(model.weights[0].read_value())),
            "rows_read": [len(rows) for rows in own],  # auto_shard_dataset: this process's rows of each batch
            "own_rows_are_its_block": all(
                np.array_equal(rows, x[16 * i : 16 * (i + 1)][8 * process_id : 8 * (process_id + 1)])
                for i, rows in enumerate(own)
            ),
            "predict_diff": float(
                np.max(np.abs(model.predict(global_batches, verbose=0) - single.predict(x, batch_size=16, verbose=0)))
            ),
        }
        distribution.set_distribution(None)
    return figures


def wait_for_each_other(folder: str, process_id: int, limit_s: float = 120.0) -> None:
    """Leave only when both processes are done: a process that exits early would refuse the other's last
    reads of its shards (gRPC pulls the data of a collective from the process that holds it)."""
    open(os.path.join(folder, f"done_{process_id}"), "w").close()
    other = os.path.join(folder, f"done_{1 - process_id}")
    deadline = time_limits.Deadline(limit_s)  # a quiet machine's limit, stretched by the load
    while not os.path.exists(other) and not deadline.passed():
        time.sleep(0.05)


if __name__ == "__main__":
    process = int(sys.argv[1])
    result = main(process, sys.argv[2:4])
    wait_for_each_other(sys.argv[4], process)
    print(json.dumps(result))
    sys.stdout.flush()
