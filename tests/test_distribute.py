"""fit / evaluate / predict under tf.distribute.MirroredStrategy on two logical CPUs.

Logical devices must be configured before TensorFlow starts, so the
comparison runs in a fresh subprocess and prints its numbers as JSON.
"""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import time_limits

SCRIPT = textwrap.dedent(
    """
    import json, os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import numpy as np, tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    import tfkit
    from tfkit import layers

    class ActivityPenalty(tfkit.Layer):
        def call(self, x):
            self.add_loss(0.01 * tf.reduce_mean(tf.square(x)))
            return x

    def build():
        model = tfkit.Sequential([
            tfkit.Input((8,)),
            layers.Dense(16, activation="relu", kernel_initializer=tfkit.initializers.GlorotUniform(seed=1),
                         kernel_regularizer=tfkit.regularizers.l2(1e-3)),
            ActivityPenalty(),
            layers.Dense(1, kernel_initializer=tfkit.initializers.GlorotUniform(seed=2)),
        ])
        model.compile(tfkit.optimizers.SGD(0.01), loss="mse", metrics=["mae"])
        return model

    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 8)).astype("float32")
    y = (x @ rng.normal(size=(8, 1))).astype("float32")
    out = {}
    single = build()
    out["single"] = single.fit(x, y, batch_size=32, epochs=3, shuffle=False, verbose=0).history
    out["single_eval"] = single.evaluate(x, y, verbose=0)
    out["single_pred"] = single.predict(x[:5], verbose=0).tolist()
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        mirrored = build()
    out["replicas"] = strategy.num_replicas_in_sync
    out["mirrored"] = mirrored.fit(x, y, batch_size=32, epochs=3, shuffle=False, verbose=0).history
    out["mirrored_eval"] = mirrored.evaluate(x, y, verbose=0)
    out["mirrored_pred"] = mirrored.predict(x[:5], verbose=0).tolist()
    out["kernel_is_mirrored"] = type(mirrored.layers[0].kernel).__name__

    # mixed_float16 with a loss scale so large that the first steps overflow: same skips on one device and two
    tfkit.mixed_precision.set_global_policy("mixed_float16")
    def build_mixed():
        model = build()
        model.compile(tfkit.mixed_precision.LossScaleOptimizer(tfkit.optimizers.SGD(0.01), initial_scale=2.0**30),
                      loss="mse")
        return model
    for key, scope in (("single_mixed", None), ("mirrored_mixed", strategy)):
        if scope is None:
            model = build_mixed()
        else:
            with scope.scope():
                model = build_mixed()
        history = model.fit(x, y, batch_size=32, epochs=3, shuffle=False, verbose=0).history
        out[key] = {"loss": history["loss"], "scale": float(model.optimizer.dynamic_scale.numpy()),
                    "iterations": int(model.optimizer.iterations.numpy()),
                    "output_dtype": model.predict(x[:2], verbose=0).dtype.name}
    print("RESULT" + json.dumps(out))
    """
)


@pytest.mark.slow
def test_mirrored_strategy_matches_single_device():
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=time_limits.seconds(600)
    )
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT")]
    assert lines, proc.stderr[-3000:]
    out = json.loads(lines[0][len("RESULT") :])
    assert out["replicas"] == 2
    assert out["kernel_is_mirrored"] == "MirroredVariable"
    np.testing.assert_allclose(out["mirrored"]["loss"], out["single"]["loss"], rtol=1e-5)
    np.testing.assert_allclose(out["mirrored"]["mae"], out["single"]["mae"], rtol=1e-5)
    np.testing.assert_allclose(out["mirrored_eval"], out["single_eval"], rtol=1e-5)
    np.testing.assert_allclose(out["mirrored_pred"], out["single_pred"], rtol=1e-5, atol=1e-6)
    single, mirrored = out["single_mixed"], out["mirrored_mixed"]
    assert single["scale"] < 2.0**30 and 0 < single["iterations"] < 24  # overflowing steps were skipped
    # Each replica differentiates its own half of the batch, so float16 overflows at a scale up to 2x apart:
    # the two runs may skip one step apart, no more.
    assert abs(np.log2(mirrored["scale"] / single["scale"])) <= 1
    assert abs(mirrored["iterations"] - single["iterations"]) <= 1 and mirrored["iterations"] > 0
    assert single["output_dtype"] == mirrored["output_dtype"] == "float16"
    assert np.isfinite(mirrored["loss"][-1]) and mirrored["loss"][-1] < mirrored["loss"][0]
