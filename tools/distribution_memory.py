"""How much of a transformer block each device holds under DataParallel and ModelParallel.

    python tools/distribution_memory.py            # 8 logical CPU devices; prints one line per distribution

The block: multi-head attention (16 heads of 64 over 1,024 features) and an
MLP of 4,096 hidden units, trained one step with Adam. Its attention heads and
MLP units are split on the mesh axis "model" (Megatron's split). The figure is
the bytes of the weights and Adam's slots that each device's parts of the
variables hold (their DTensor components), not the process's memory: logical
CPU devices share one process.
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tfkit  # noqa: E402
from tfkit import distribution  # noqa: E402
from tfkit.distribution import values  # noqa: E402

layers = tfkit.layers


def transformer_block() -> tfkit.Model:
    tfkit.utils.set_random_seed(0)
    inputs = tfkit.Input((128, 1024))
    attention = layers.MultiHeadAttention(num_heads=16, key_dim=64, name="mha")(inputs, inputs)
    x = layers.LayerNormalization(name="ln1")(inputs + attention)
    hidden = layers.Dense(4096, activation="gelu", name="mlp_up")(x)
    x = layers.LayerNormalization(name="ln2")(x + layers.Dense(1024, name="mlp_down")(hidden))
    model = tfkit.Model(inputs, x)
    model.compile(tfkit.optimizers.Adam(), "mse")
    return model


def megatron_map(mesh: distribution.DeviceMesh) -> distribution.LayoutMap:
    """Megatron's split of a block's layers "mha", "mlp_up" and "mlp_down" over the mesh axis "model"."""
    layout_map = distribution.LayoutMap(mesh)
    layout_map["mha/(query|key|value)/kernel"] = (None, "model", None)
    layout_map["mha/(query|key|value)/bias"] = ("model", None)
    layout_map["mha/attention_output/kernel"] = ("model", None, None)
    layout_map["mlp_up/kernel"] = (None, "model")
    layout_map["mlp_up/bias"] = ("model",)
    layout_map["mlp_down/kernel"] = ("model", None)
    return layout_map


def bytes_per_device(model: tfkit.Model) -> np.ndarray:
    """Bytes of every device's parts of the model's weights and the optimizer's variables."""
    held = np.zeros(8)
    for variable in list(model.weights) + list(model.optimizer.variables):
        parts = tf.experimental.dtensor.unpack(variable.read_value())
        for device, part in enumerate(parts):
            held[device] += part.shape.num_elements() * part.dtype.size
    return held


def main() -> None:
    # Eight logical CPU devices, before TensorFlow starts (importing tfkit does not start it).
    tf.config.set_logical_device_configuration(
        tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 8
    )
    x = np.random.default_rng(0).normal(size=(8, 128, 1024)).astype("float32")
    for name, make in (
        ("DataParallel (8,)", distribution.DataParallel),
        (
            "ModelParallel (2, 4)",
            lambda: distribution.ModelParallel(
                layout_map=megatron_map(distribution.DeviceMesh((2, 4), ["batch", "model"]))
            ),
        ),
        (
            "ModelParallel (1, 8)",
            lambda: distribution.ModelParallel(
                layout_map=megatron_map(distribution.DeviceMesh((1, 8), ["batch", "model"]))
            ),
        ),
    ):
        distribution.set_distribution(make())
        model = transformer_block()
        model.fit(x, x, batch_size=8, epochs=1, verbose=0)
        assert all(values.is_sharded(w) for w in model.weights)
        held = bytes_per_device(model)
        parameters = sum(w.shape.num_elements() * w.dtype.size for w in model.weights)
        print(
            f"{name:22s} parameters {parameters / 2**20:5.1f} MiB; weights + Adam slots per device "
            f"{held.max() / 2**20:6.1f} MiB"
        )
        distribution.set_distribution(None)


if __name__ == "__main__":
    main()
