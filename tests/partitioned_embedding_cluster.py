"""An Embedding split over 2 parameter servers by a ``variable_partitioner``: trained, saved, loaded, served.

    python tests/partitioned_embedding_cluster.py OUT.json [ROWS]

Run by ``test_parameter_server_partitioned.py`` (one process: the chief, with
2 workers and 2 parameter servers as in-process servers on loopback ports);
it writes its figures as JSON and leaves with ``os._exit``.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import time_limits  # noqa: E402
from parameter_server_cluster import in_process_strategy  # noqa: E402

SERVE = """
import json, sys
import numpy as np
import tensorflow as tf
served = tf.saved_model.load(sys.argv[1])
out = served.signatures["serving_default"](tf.constant(np.load(sys.argv[2])))
assert "tfkit" not in sys.modules
print(json.dumps(next(iter(out.values())).numpy().tolist()))
"""


def run(rows: int) -> dict:
    partitioner = tf.distribute.experimental.partitioners.MinSizePartitioner(min_shard_bytes=1 << 20, max_shards=2)
    strategy = in_process_strategy(workers=2, ps=2, variable_partitioner=partitioner)
    import tfkit

    with strategy.scope():
        tfkit.utils.set_random_seed(0)
        inputs = tfkit.Input((6,), dtype="int32")
        x = tfkit.layers.Embedding(rows, 32, name="table")(inputs)
        outputs = tfkit.layers.Dense(1, name="out")(tfkit.layers.GlobalAveragePooling1D()(x))
        model = tfkit.Model(inputs, outputs)
        model.compile(tfkit.optimizers.Adagrad(0.5), loss="mse")
    table = model.get_layer("table").embeddings
    figures: dict = {
        "parts": [[list(v.shape), v.device] for v in table.variables],
        "trainable_parts": len(model.trainable_weights),
    }
    rng = np.random.default_rng(0)
    ids = rng.integers(0, rows, size=(512, 6)).astype("int32")
    y = (np.sin(ids.astype("float64")).mean(axis=1, keepdims=True)).astype("float32")  # learnable from the rows
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(ids[:8]) - y[:8]) ** 2)
    figures["gradient_types"] = [type(g).__name__ for g in tape.gradient(loss, table.variables)]
    before = table.numpy()
    history = model.fit(ids, y, batch_size=32, epochs=3, steps_per_epoch=16, verbose=0).history
    after = table.numpy()
    figures["loss"] = history["loss"]
    figures["rows_changed"] = int((np.abs(after - before).max(axis=1) > 0).sum())
    figures["rows_used"] = int(len(np.unique(ids)))
    figures["changed_rows_all_used"] = bool(
        set(np.where(np.abs(after - before).max(axis=1) > 0)[0]) <= set(np.unique(ids).tolist())
    )
    figures["slots_on_servers"] = sorted(
        {v.device.split("/device")[0] for v in model.optimizer.variables if v.shape.rank == 2}
    )
    expected = model.predict(ids[:16], verbose=0)
    folder = tempfile.mkdtemp()
    model.save(os.path.join(folder, "model.keras"))
    model.export(os.path.join(folder, "served"), verbose=False)
    # compile=False: the optimizer state is saved per part (one slot per server), which one device cannot take
    loaded = tfkit.saving.load_model(os.path.join(folder, "model.keras"), compile=False)
    figures["loaded_on_one_device"] = float(np.max(np.abs(loaded.predict(ids[:16], verbose=0) - expected)))
    figures["loaded_table"] = list(loaded.get_layer("table").embeddings.shape)
    np.save(os.path.join(folder, "ids.npy"), ids[:16])
    served = subprocess.run(
        [sys.executable, "-c", SERVE, os.path.join(folder, "served"), os.path.join(folder, "ids.npy")],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(120),
    )
    if served.returncode:
        raise RuntimeError(served.stderr[-2000:])
    figures["served_without_tfkit"] = float(
        np.max(np.abs(np.array(json.loads(served.stdout.splitlines()[-1])) - expected))
    )
    figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


if __name__ == "__main__":
    out_file, rows = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    try:
        result = run(rows)
    except Exception:  # the test reads the traceback from the file
        result = {"traceback": traceback.format_exc()}
    with open(out_file, "w") as f:
        json.dump(result, f)
    sys.stdout.flush()
    os._exit(0)
