"""Runs one distribution scenario on 8 logical CPU devices and prints its figures as JSON.

    python tests/mesh/scenarios.py data_parallel_8 files   # named scenarios; none named: all of them

Logical devices must be set before TensorFlow starts, so the scenarios run in a
process of their own (one process for all: TensorFlow starts once). Every scenario compares a distributed run with the same run
on one device (same seed, same data) and reports the largest differences.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

import numpy as np
import tensorflow as tf

tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 8
)

import tfkit  # noqa: E402
from tfkit import distribution  # noqa: E402
from tfkit.distribution import values  # noqa: E402
from tfkit.training.distributed_loops import mesh_loop  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from distribution_memory import megatron_map  # noqa: E402  (the split tools/distribution_memory.py measures)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import time_limits  # noqa: E402  (tests/time_limits.py)
from long_checks import LONG_RUN  # noqa: E402  (tests/long_checks.py)

layers = tfkit.layers
RNG = np.random.default_rng(0)


def _mlp() -> tfkit.Model:
    tfkit.utils.set_random_seed(0)
    inputs = tfkit.Input((16,))
    x = layers.Dense(32, activation="relu", name="d1")(inputs)
    outputs = layers.Dense(8, name="d2")(x)
    model = tfkit.Model(inputs, outputs)
    model.compile(optimizer=tfkit.optimizers.Adam(1e-2), loss="mse", metrics=["mae"])
    return model


def _transformer_block() -> tfkit.Model:
    """Megatron's split: attention heads and the MLP's hidden units on "model"."""
    tfkit.utils.set_random_seed(0)
    inputs = tfkit.Input((8, 16))
    attention = layers.MultiHeadAttention(num_heads=4, key_dim=8, name="mha")(inputs, inputs)
    x = layers.LayerNormalization(name="ln1")(inputs + attention)
    hidden = layers.Dense(64, activation="gelu", name="mlp_up")(x)
    x = layers.LayerNormalization(name="ln2")(x + layers.Dense(16, name="mlp_down")(hidden))
    outputs = layers.Dense(4, name="head")(layers.GlobalAveragePooling1D()(x))
    model = tfkit.Model(inputs, outputs)
    model.compile(optimizer=tfkit.optimizers.AdamW(1e-3), loss="mse")
    return model


def _embedding_model() -> tfkit.Model:
    tfkit.utils.set_random_seed(0)
    inputs = tfkit.Input((6,), dtype="int32")
    x = layers.Embedding(512, 16, name="table")(inputs)
    outputs = layers.Dense(1, name="out")(layers.GlobalAveragePooling1D()(x))
    model = tfkit.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="mse")
    return model


def _mlp_map(mesh: distribution.DeviceMesh) -> distribution.LayoutMap:
    layout_map = distribution.LayoutMap(mesh)
    layout_map["d1/kernel"] = (None, "model")
    layout_map["d1/bias"] = ("model",)
    layout_map["d2/kernel"] = ("model", None)
    layout_map["d1/output"] = ("batch", "model")
    return layout_map


def _compare(make, x, y, dist, epochs: int = 2, models: dict | None = None) -> dict:
    """Train on one device and under ``dist``; the largest differences of losses, weights, evaluate, predict.

    ``models``, when given, receives the two trained models (``"one_device"``, ``"mesh"``).
    """
    distribution.set_distribution(None)
    single = make()
    single_history = single.fit(x, y, batch_size=16, epochs=epochs, shuffle=True, verbose=0).history
    distribution.set_distribution(dist)
    try:
        model = make()
        if models is not None:
            models.update(one_device=single, mesh=model)
        history = model.fit(x, y, batch_size=16, epochs=epochs, shuffle=True, verbose=0).history
        figures = {
            "loss_diff": float(np.max(np.abs(np.subtract(history["loss"], single_history["loss"])))),
            "loss_fell": bool(history["loss"][-1] < history["loss"][0]),
            "weight_diff": max(float(np.max(np.abs(a - b))) for a, b in zip(model.get_weights(), single.get_weights())),
            "evaluate_diff": float(
                abs(
                    model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)["loss"]
                    - single.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)["loss"]
                )
            ),
            "predict_diff": float(
                np.max(np.abs(model.predict(x, batch_size=16, verbose=0) - single.predict(x, batch_size=16, verbose=0)))
            ),
            "layouts": {w.name.split(":")[0]: list(w.layout.sharding_specs) for w in model.weights},
            "slot_layouts": {
                v.name.split(":")[0]: list(v.layout.sharding_specs) for v in model.optimizer.variables if v.shape.rank
            },
            "shard_shapes": {w.name.split(":")[0]: [list(s) for s in values.shard_shapes(w)] for w in model.weights},
            "sharded": all(values.is_sharded(w) for w in model.weights),
        }
    finally:
        distribution.set_distribution(None)
    return figures


def data_parallel_8() -> dict:
    x, y = RNG.normal(size=(64, 16)).astype("float32"), RNG.normal(size=(64, 8)).astype("float32")
    return _compare(_mlp, x, y, distribution.DataParallel())


def model_parallel(shape: tuple[int, int]) -> dict:
    mesh = distribution.DeviceMesh(shape, ["batch", "model"])
    x, y = RNG.normal(size=(64, 16)).astype("float32"), RNG.normal(size=(64, 8)).astype("float32")
    return _compare(_mlp, x, y, distribution.ModelParallel(layout_map=_mlp_map(mesh), batch_dim_name="batch"))


def model_parallel_2x4() -> dict:
    return model_parallel((2, 4))


def model_parallel_4x2() -> dict:
    return model_parallel((4, 2))


def transformer_block() -> dict:
    mesh = distribution.DeviceMesh((2, 4), ["batch", "model"])
    x, y = RNG.normal(size=(32, 8, 16)).astype("float32"), RNG.normal(size=(32, 4)).astype("float32")
    return _compare(_transformer_block, x, y, distribution.ModelParallel(layout_map=megatron_map(mesh)))


def sharded_embedding() -> dict:
    mesh = distribution.DeviceMesh((1, 8), ["batch", "model"])
    layout_map = distribution.LayoutMap(mesh)
    layout_map["table/embeddings"] = ("model", None)  # rows split over 8 devices
    x = RNG.integers(0, 512, size=(64, 6)).astype("int32")
    y = RNG.normal(size=(64, 1)).astype("float32")
    return _compare(_embedding_model, x, y, distribution.ModelParallel(layout_map=layout_map))


def files() -> dict:
    """Save under ModelParallel, load on one device (and back); export and serve without tfkit."""
    mesh = distribution.DeviceMesh((2, 4), ["batch", "model"])
    x, y = RNG.normal(size=(32, 16)).astype("float32"), RNG.normal(size=(32, 8)).astype("float32")
    folder = tempfile.mkdtemp()
    distribution.set_distribution(distribution.ModelParallel(layout_map=_mlp_map(mesh)))
    model = _mlp()
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    expected = model.predict(x, verbose=0)
    for name in ("model.keras", "model.h5"):
        model.save(os.path.join(folder, name))
    model.save_weights(os.path.join(folder, "model.weights.h5"))
    model.export(os.path.join(folder, "served"), verbose=False)
    distribution.set_distribution(None)
    figures: dict = {}
    for name in ("model.keras", "model.h5"):
        loaded = tfkit.saving.load_model(os.path.join(folder, name))
        figures[f"{name}_on_one_device"] = float(np.max(np.abs(loaded.predict(x, verbose=0) - expected)))
        figures[f"{name}_ordinary"] = not any(values.is_sharded(w) for w in loaded.weights)
    distribution.set_distribution(distribution.ModelParallel(layout_map=_mlp_map(mesh)))
    back = _mlp()
    back.load_weights(os.path.join(folder, "model.weights.h5"))
    figures["weights_into_model_parallel"] = float(np.max(np.abs(back.predict(x, verbose=0) - expected)))
    figures["loaded_sharded"] = [list(s) for s in values.shard_shapes(back.weights[0])]
    # the guarded reader and the load budgets apply on a mesh as on one device; a refused load changes nothing
    samples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "security-samples")
    kept = back.get_weights()
    figures["hostile_files"] = {}
    for name in ("00_RuntimeError.h5", "04_KeyError.h5", "10_TypeError.h5"):
        for how, load in (("load_model", tfkit.saving.load_model), ("load_weights", back.load_weights)):
            try:
                load(os.path.join(samples, name))
                outcome = "loaded"
            except ValueError:
                outcome = "ValueError"
            figures["hostile_files"][f"{name} {how}"] = outcome
    figures["unchanged_after_refusals"] = all(np.array_equal(a, b) for a, b in zip(kept, back.get_weights()))
    distribution.set_distribution(None)
    np.save(os.path.join(folder, "x.npy"), x)
    served = subprocess.run(
        [sys.executable, "-c", SERVE_WITHOUT_TFKIT, os.path.join(folder, "served"), os.path.join(folder, "x.npy")],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(120),
    )
    if served.returncode != 0:
        raise RuntimeError(served.stderr[-2000:])
    figures["served_without_tfkit"] = float(
        np.max(np.abs(np.array(json.loads(served.stdout.strip().splitlines()[-1])) - expected))
    )
    return figures


def _guide_model() -> tfkit.Model:
    """keras.io's "Distributed training with Keras 3" model, Dropout included."""
    tfkit.utils.set_random_seed(0)
    inputs = tfkit.Input(shape=(28, 28, 1))
    y = layers.Flatten()(inputs)
    y = layers.Dense(units=200, use_bias=False, activation="relu", name="d1")(y)
    y = layers.Dropout(0.4)(y)
    y = layers.Dense(units=10, activation="softmax", name="d2")(y)
    model = tfkit.Model(inputs=inputs, outputs=y)
    model.compile(loss="sparse_categorical_crossentropy", optimizer=tfkit.optimizers.Adam(), metrics=["accuracy"])
    return model


def keras_io_guide() -> dict:
    """The guide's DataParallel and ModelParallel (its LayoutMap) on MNIST, against one device."""
    (x, y), _ = tfkit.datasets.mnist.load_data()
    x, y = (x[:1024, ..., None] / 255.0).astype("float32"), y[:1024]
    devices = distribution.list_devices()
    mesh_2d = distribution.DeviceMesh(shape=(2, 4), axis_names=["data", "model"], devices=devices)
    layout_map = distribution.LayoutMap(mesh_2d)
    layout_map["d1/kernel"] = distribution.TensorLayout([None, "model"])
    layout_map["d1/bias"] = distribution.TensorLayout(["model"])
    layout_map["d2/output"] = distribution.TensorLayout(["data", None])
    figures = {}
    for name, dist in (
        ("data_parallel", distribution.DataParallel(devices=devices)),
        ("model_parallel", distribution.ModelParallel(layout_map=layout_map, batch_dim_name="data")),
    ):
        figures[name] = _compare(_guide_model, x, y, dist)
    distribution.set_distribution(distribution.ModelParallel(layout_map=layout_map, batch_dim_name="data"))
    model = _guide_model()
    model.fit(x, y, batch_size=64, epochs=1, verbose=0)
    path = os.path.join(tempfile.mkdtemp(), "guide.keras")
    model.save(path)
    expected = model.predict(x[:64], verbose=0)
    distribution.set_distribution(None)
    figures["loaded_on_one_device"] = float(
        np.max(np.abs(tfkit.saving.load_model(path).predict(x[:64], verbose=0) - expected))
    )
    return figures


class _StopAfterEpoch(tfkit.callbacks.Callback):
    """Interrupts fit after ``epoch``, as a killed job would stop."""

    def __init__(self, epoch: int) -> None:
        super().__init__()
        self.epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.epoch:
            raise KeyboardInterrupt


def checkpoints() -> dict:
    """BackupAndRestore and ModelCheckpoint under ModelParallel write ordinary files that resume anywhere."""
    mesh = distribution.DeviceMesh((2, 4), ["batch", "model"])
    x, y = RNG.normal(size=(64, 16)).astype("float32"), RNG.normal(size=(64, 8)).astype("float32")
    folder = tempfile.mkdtemp()
    backup = os.path.join(folder, "backup")

    def fit(model, *callbacks):
        return model.fit(x, y, batch_size=16, epochs=4, shuffle=True, verbose=0, callbacks=list(callbacks)).history

    distribution.set_distribution(None)
    uninterrupted = _mlp()
    fit(uninterrupted)
    distribution.set_distribution(distribution.ModelParallel(layout_map=_mlp_map(mesh)))
    try:
        fit(
            _mlp(),
            tfkit.callbacks.BackupAndRestore(backup),
            tfkit.callbacks.ModelCheckpoint(os.path.join(folder, "epoch.weights.h5"), save_weights_only=True),
            _StopAfterEpoch(1),
        )
    except KeyboardInterrupt:
        pass
    files = sorted(f for f in os.listdir(backup) if not f.startswith("."))
    backup_copy = os.path.join(folder, "backup_copy")
    shutil.copytree(backup, backup_copy)
    resumed = _mlp()
    epochs_run = len(fit(resumed, tfkit.callbacks.BackupAndRestore(backup))["loss"])
    figures = {
        "backup_files": files,
        "epochs_after_resume": epochs_run,
        "resumed_on_mesh": max(
            float(np.max(np.abs(a - b))) for a, b in zip(resumed.get_weights(), uninterrupted.get_weights())
        ),
    }
    distribution.set_distribution(None)  # the same backup resumes on one device
    on_one_device = _mlp()
    fit(on_one_device, tfkit.callbacks.BackupAndRestore(backup_copy))
    figures["resumed_on_one_device"] = max(
        float(np.max(np.abs(a - b))) for a, b in zip(on_one_device.get_weights(), uninterrupted.get_weights())
    )
    checkpoint = _mlp()
    checkpoint.load_weights(os.path.join(folder, "epoch.weights.h5"))
    figures["model_checkpoint_loads_on_one_device"] = True
    return figures


class _BatchEnds(tfkit.callbacks.Callback):
    """Records the batch index of every ``on_train_batch_end``."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def on_train_batch_end(self, batch, logs=None):
        self.seen.append(batch)


def compiled_chunks() -> dict:
    """``steps_per_execution`` on a mesh as on one device: several steps per compiled call, one batch hook each."""
    x, y = RNG.normal(size=(64, 16)).astype("float32"), RNG.normal(size=(64, 8)).astype("float32")
    hooks = {}
    for where, dist in (("one_device", None), ("mesh", distribution.DataParallel())):
        distribution.set_distribution(dist)
        try:
            model = _mlp()
            model.compile(optimizer=tfkit.optimizers.Adam(1e-2), loss="mse", steps_per_execution=2)
            ends = _BatchEnds()
            model.fit(x, y, batch_size=16, epochs=2, verbose=0, callbacks=[ends])
            hooks[where] = ends.seen
            plain = _mlp()
            plain.compile(optimizer=tfkit.optimizers.Adam(1e-2), loss="mse", steps_per_execution=2)
            plain.fit(x, y, batch_size=16, epochs=1, verbose=0)  # no batch hooks: nothing to call per batch
            if dist is not None:
                loops = mesh_loop.mesh_loops(plain, plain._compiled, dist)
                array_loops = [key for key in loops._cache if key[0] == "array"]
        finally:
            distribution.set_distribution(None)
    return {"batch_ends": hooks, "array_loops_on_mesh": [list(key[:3]) for key in array_loops]}


class _OwnStep(tfkit.Model):
    """A subclassed model with its own ``train_step`` (the guide's "customizing fit" pattern)."""

    def __init__(self):
        super().__init__()
        self.d1 = layers.Dense(32, activation="relu", name="d1")
        self.d2 = layers.Dense(8, name="d2")
        self.tracker = tfkit.metrics.Mean(name="loss")

    def call(self, x):
        return self.d2(self.d1(x))

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
        self.optimizer.apply_gradients(zip(tape.gradient(loss, self.trainable_weights), self.trainable_weights))
        self.tracker.update_state(loss)
        return {"loss": self.tracker.result()}

    @property
    def metrics(self):
        return [self.tracker]


def own_train_step() -> dict:
    """A model's own ``train_step`` on a mesh, with ``steps_per_execution``: the one-device losses."""
    x, y = RNG.normal(size=(64, 16)).astype("float32"), RNG.normal(size=(64, 8)).astype("float32")
    losses = {}
    for where, dist in (("one_device", None), ("mesh", distribution.DataParallel())):
        distribution.set_distribution(dist)
        try:
            tfkit.utils.set_random_seed(0)
            model = _OwnStep()
            model.compile(optimizer=tfkit.optimizers.Adam(1e-2), steps_per_execution=2)
            losses[where] = model.fit(x, y, batch_size=16, epochs=3, verbose=0).history["loss"]
        finally:
            distribution.set_distribution(None)
    return {
        "loss_diff": float(np.max(np.abs(np.subtract(losses["mesh"], losses["one_device"])))),
        "loss_fell": bool(losses["mesh"][-1] < losses["mesh"][0]),
    }


def step_per_batch() -> dict:
    """Data too large to copy to every device trains from batches read in Python, as one device trains."""
    previous, mesh_loop.MAX_WHOLE_BYTES = mesh_loop.MAX_WHOLE_BYTES, 0
    try:
        x, y = RNG.normal(size=(64, 16)).astype("float32"), RNG.normal(size=(64, 8)).astype("float32")
        return _compare(_mlp, x, y, distribution.DataParallel())
    finally:
        mesh_loop.MAX_WHOLE_BYTES = previous


def _fit_dataset(dist, dataset, epochs: int = 2, steps_per_epoch: int | None = None) -> tuple:
    """A seeded ``_mlp`` trained on ``dataset`` under ``dist``: (model, losses, evaluate's loss)."""
    distribution.set_distribution(dist)
    try:
        tfkit.utils.set_random_seed(0)
        model = _mlp()
        model.compile(optimizer=tfkit.optimizers.Adam(1e-2), loss="mse")
        losses = model.fit(dataset, epochs=epochs, steps_per_epoch=steps_per_epoch, verbose=0).history["loss"]
        evaluated = model.evaluate(dataset, steps=steps_per_epoch, verbose=0, return_dict=True)["loss"]
    finally:
        distribution.set_distribution(None)
    return model, losses, evaluated


def _differences(one: tuple, mesh: tuple) -> dict:
    return {
        "loss_diff": float(np.max(np.abs(np.subtract(mesh[1], one[1])))),
        "loss_fell": bool(mesh[1][-1] < mesh[1][0]),
        "weight_diff": max(float(np.max(np.abs(a - b))) for a, b in zip(mesh[0].get_weights(), one[0].get_weights())),
        "evaluate_diff": float(abs(mesh[2] - one[2])),
    }


def dataset_chunks() -> dict:
    """A dataset on a mesh trains in compiled chunks of stacked batches, as one device trains on it.

    104 rows in batches of 16: six full batches and a short one of 8 (each its own stacked loop); then a
    dataset of six batch sizes, more than ``MAX_SHAPES``: the batches of the shapes past it run a step each.
    With ``steps_per_epoch`` each epoch goes on where the last one stopped.
    """
    x, y = RNG.normal(size=(104, 16)).astype("float32"), RNG.normal(size=(104, 8)).astype("float32")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
    one = _fit_dataset(None, dataset)
    dist = distribution.DataParallel()
    mesh = _fit_dataset(dist, dataset)
    loops = mesh_loop.mesh_loops(mesh[0], mesh[0]._compiled, dist)
    figures = {
        **_differences(one, mesh),
        "sharded": all(values.is_sharded(w) for w in mesh[0].weights),
        "stacked_shapes": {
            mode: [[list(s.shape) for s in spec] for spec in specs] for mode, specs in loops.stacked_batch_specs.items()
        },
        "step_per_batch_traced": sorted(key[0] for key in mesh[0]._compiled.mesh_steps if key[0] in ("train", "test")),
    }
    # steps_per_epoch of a repeated dataset: each epoch goes on where the last one stopped, as on one device
    repeated = dataset.repeat()
    figures["continued"] = _differences(
        _fit_dataset(None, repeated, epochs=3, steps_per_epoch=5), _fit_dataset(dist, repeated, 3, 5)
    )
    sizes = [8, 16, 24, 32, 40, 48]
    starts = np.cumsum([0, *sizes])
    rows_x, rows_y = RNG.normal(size=(starts[-1], 16)).astype("float32"), RNG.normal(size=(starts[-1], 8))
    varied = None
    for start, end in zip(starts[:-1], starts[1:]):
        part = tf.data.Dataset.from_tensors((rows_x[start:end], rows_y[start:end].astype("float32")))
        varied = part if varied is None else varied.concatenate(part)
    one, mesh = _fit_dataset(None, varied), _fit_dataset(dist, varied)
    loops = mesh_loop.mesh_loops(mesh[0], mesh[0]._compiled, dist)
    figures["varied"] = {
        **_differences(one, mesh),
        "stacked_sizes": [spec[0].shape[0] for spec in loops.stacked_batch_specs["train"]],
        "step_per_batch_traced": sorted(key[0] for key in mesh[0]._compiled.mesh_steps if key[0] in ("train", "test")),
    }
    return figures


def _stateful_recurrent() -> tfkit.Model:
    tfkit.utils.set_random_seed(0)
    inputs = tfkit.Input((5, 4), batch_size=16)
    x = layers.LSTM(8, stateful=True, return_sequences=True, name="lstm")(inputs)
    outputs = layers.Dense(8, name="head")(layers.GRU(8, name="gru")(x))
    model = tfkit.Model(inputs, outputs)
    model.compile(optimizer=tfkit.optimizers.Adam(1e-2), loss="mse")
    return model


def recurrent() -> dict:
    """A stateful LSTM and a GRU under ModelParallel: kernels split over "model", the carried states over "batch"."""
    mesh = distribution.DeviceMesh((2, 4), ["batch", "model"])
    layout_map = distribution.LayoutMap(mesh)
    layout_map["(lstm|gru)/.*kernel"] = (None, "model")
    layout_map["rnn_state"] = ("batch", None)
    x, y = RNG.normal(size=(64, 5, 4)).astype("float32"), RNG.normal(size=(64, 8)).astype("float32")
    models: dict = {}
    figures = _compare(
        _stateful_recurrent,
        x,
        y,
        distribution.ModelParallel(layout_map=layout_map, batch_dim_name="batch"),
        models=models,
    )
    states = {name: model.get_layer("lstm").rnn_states.values for name, model in models.items()}
    figures["state_layouts"] = [list(v.layout.sharding_specs) for v in states["mesh"] if values.is_sharded(v)]
    figures["state_diff"] = max(
        float(np.max(np.abs(a.numpy() - b.numpy()))) for a, b in zip(states["mesh"], states["one_device"])
    )
    return figures


def tf_idf_lookup() -> dict:
    """StringLookup's idf weights adapted under a distribution live on its mesh and weigh as on one device."""
    documents = tf.constant(
        [["a", "b", "a"], ["a", "c", ""], ["d", "b", "b"], ["e", "a", "d"]] * 2
    )  # 8 rows: 8 devices
    outputs, idf = {}, {}
    for name, dist in (("one_device", None), ("mesh", distribution.DataParallel())):
        distribution.set_distribution(dist)
        try:
            lookup = layers.StringLookup(output_mode="tf_idf")
            lookup.adapt(documents)
            idf[name] = lookup.idf_weights
            outputs[name] = values.gather(lookup(documents))
            numbers = layers.IntegerLookup(output_mode="multi_hot")  # integer inputs too stay on the host
            numbers.adapt(np.array([[1, 2, 1], [1, 3, 0], [4, 2, 2], [5, 1, 4]] * 2))
            outputs[name + "_integers"] = values.gather(numbers(np.array([[1, 2, 9], [4, 4, 5]] * 4)))
            mapped = tf.data.Dataset.from_tensor_slices(documents).batch(4).map(lookup)  # the input pipeline
            outputs[name + "_mapped"] = np.concatenate([values.gather(batch) for batch in mapped])
            if dist is not None:
                inputs = tfkit.Input((3,), dtype="string")
                model = tfkit.Model(inputs, layers.Dense(1)(lookup(inputs)))
                model.compile(optimizer="sgd", loss="mse")
                try:
                    model.fit(documents, np.ones((8, 1), "float32"), batch_size=8, verbose=0)
                    in_step_error = ""
                except ValueError as error:
                    in_step_error = str(error)
        finally:
            distribution.set_distribution(None)
    return {
        "idf_on_mesh": values.is_sharded(idf["mesh"]) and not values.is_sharded(idf["one_device"]),
        "idf_diff": float(np.max(np.abs(idf["mesh"].numpy() - idf["one_device"].numpy()))),
        "output_diff": float(np.max(np.abs(outputs["mesh"] - outputs["one_device"]))),
        "mapped_diff": float(np.max(np.abs(outputs["mesh_mapped"] - outputs["one_device"]))),
        "integer_diff": float(np.max(np.abs(outputs["mesh_integers"] - outputs["one_device_integers"]))),
        "integer_sum": float(np.sum(outputs["one_device_integers"])),
        "output_sum": float(np.sum(outputs["one_device"])),
        "in_step_error": in_step_error,
    }


SERVE_WITHOUT_TFKIT = """
import json, sys
import numpy as np
import tensorflow as tf
assert "tfkit" not in sys.modules
served = tf.saved_model.load(sys.argv[1])
out = served.signatures["serving_default"](tf.constant(np.load(sys.argv[2])))
assert "tfkit" not in sys.modules
print(json.dumps(next(iter(out.values())).numpy().tolist()))
"""

SCENARIOS = {
    f.__name__: f
    for f in (
        data_parallel_8,
        model_parallel_2x4,
        model_parallel_4x2,
        transformer_block,
        sharded_embedding,
        files,
        checkpoints,
        keras_io_guide,
        compiled_chunks,
        own_train_step,
        step_per_batch,
        dataset_chunks,
        recurrent,
        tf_idf_lookup,
    )
}


# Scenarios only the long mode runs (tests/long_checks.py marks their tests): the other mesh shape repeats
# model_parallel_2x4's checks, the recurrent layers' states and the Megatron transformer block repeat the layout
# map's rules on other layer kinds (the block's attention and MLP split is also what tools/distribution_memory.py
# measures).
LONG_SCENARIOS = ("model_parallel_4x2", "recurrent", "transformer_block")


def default_names() -> list[str]:
    """Every scenario with ``TFKIT_LONG_TESTS=1``, else all but ``LONG_SCENARIOS``."""
    return [name for name in SCENARIOS if LONG_RUN or name not in LONG_SCENARIOS]


def run(names: list[str]) -> dict:
    """Each named scenario's figures, or the traceback it ended with."""
    results = {}
    for name in names:
        try:
            results[name] = SCENARIOS[name]()
        except Exception:  # the test shows it; the other scenarios still run
            results[name] = {"traceback": traceback.format_exc()}
        finally:
            distribution.set_distribution(None)
    return results


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1:] or default_names())))
