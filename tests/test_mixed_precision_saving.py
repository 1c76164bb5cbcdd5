"""Mixed-precision models save, reload and export with their policies; Keras 3 cross-checks."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers, mixed_precision, optimizers


@pytest.fixture(autouse=True)
def restore_policy():
    yield
    mixed_precision.set_global_policy("float32")


def _mixed_model(policy="mixed_float16"):
    mixed_precision.set_global_policy(policy)
    tfkit.utils.set_random_seed(11)
    x = tfkit.Input((6,), name="features")
    h = layers.Dense(8, activation="relu")(x)
    h = layers.BatchNormalization()(h)
    out = layers.Activation("softmax", dtype="float32", name="probs")(layers.Dense(3)(h))
    model = tfkit.Model(x, out)
    model.compile(optimizers.Adam(1e-3), "sparse_categorical_crossentropy")
    rng = np.random.RandomState(0)
    model.fit(rng.rand(32, 6).astype("float32"), rng.randint(0, 3, 32), epochs=1, verbose=0)
    mixed_precision.set_global_policy("float32")  # reloading must not depend on the global policy
    return model


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_save_and_reload_keeps_policies_predictions_and_loss_scale(tmp_path, suffix):
    model = _mixed_model()
    path = str(tmp_path / f"model{suffix}")
    model.save(path)
    loaded = tfkit.load_model(path)
    assert [l.dtype_policy.name for l in loaded.layers] == [l.dtype_policy.name for l in model.layers]
    assert loaded.layers[1].compute_dtype == "float16" and loaded.layers[-1].compute_dtype == "float32"
    assert all(w.dtype == tf.float32 for w in loaded.weights)
    x = np.random.RandomState(1).rand(5, 6).astype("float32")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert isinstance(loaded.optimizer, optimizers.LossScaleOptimizer)
    assert float(loaded.optimizer.dynamic_scale) == float(model.optimizer.dynamic_scale)
    assert int(loaded.optimizer.iterations) == int(model.optimizer.iterations)


def test_config_accepts_keras_policy_dicts_and_rejects_unknown_names():
    config = layers.Dense(2, dtype="mixed_bfloat16").get_config()
    assert layers.Dense.from_config(config).dtype_policy.name == "mixed_bfloat16"
    config["dtype"] = {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": {"name": "mixed_float64"},
        "registered_name": None,
    }
    with pytest.raises(ValueError, match="mixed_float16"):
        layers.Dense.from_config(config)


def test_export_signature_states_input_and_output_dtypes(tmp_path):
    model = _mixed_model("mixed_bfloat16")
    path = model.export(str(tmp_path / "served" / "1"))
    serving = tf.saved_model.load(path).signatures["serving_default"]
    (spec,) = serving.structured_input_signature[1].values()
    assert spec.dtype == tf.float32  # float32 inputs stay float32
    assert {s.dtype for s in serving.structured_outputs.values()} == {tf.float32}
    x = np.random.RandomState(2).rand(3, 6).astype("float32")
    got = list(serving(features=tf.constant(x)).values())[0]
    np.testing.assert_allclose(got.numpy(), model.predict(x, verbose=0), rtol=1e-6, atol=1e-6)


def test_subclassed_mixed_model_exports_float32_inputs(tmp_path):
    class Small(tfkit.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    mixed_precision.set_global_policy("mixed_float16")  # sub-layers take the global policy, as in Keras
    model = Small()
    model(np.ones((1, 3), np.float32))
    mixed_precision.set_global_policy("float32")
    serving = tf.saved_model.load(model.export(str(tmp_path / "sub" / "1"))).signatures["serving_default"]
    (spec,) = serving.structured_input_signature[1].values()
    assert spec.dtype == tf.float32
    assert {s.dtype for s in serving.structured_outputs.values()} == {tf.float16}


# ------------------------------------------------------------- Keras 3 cross-checks


def test_dense_mixed_float16_output_matches_keras():
    keras = pytest.importorskip("keras")
    x = np.random.RandomState(3).uniform(-1, 1, (4, 5)).astype("float32")
    ours = layers.Dense(3, dtype="mixed_float16", activation="relu")
    theirs = keras.layers.Dense(3, dtype="mixed_float16", activation="relu")
    ours(x)
    theirs(x)
    theirs.set_weights(ours.get_weights())
    a, b = ours(x), theirs(x)
    assert a.dtype == tf.float16 and b.dtype == tf.float16
    np.testing.assert_allclose(a.numpy().astype("float32"), np.asarray(b).astype("float32"), rtol=1e-3, atol=1e-3)
    assert theirs.get_config()["dtype"] == ours.get_config()["dtype"]


def test_loss_scale_optimizer_steps_match_keras():
    keras = pytest.importorskip("keras")
    grads = [
        np.array([4.0, 8.0], "float32"),
        np.array([np.inf, 1.0], "float32"),
        np.array([2.0, -6.0], "float32"),
        np.array([1.0, 1.0], "float32"),
    ]
    ours_w = tf.Variable([1.0, 2.0])
    theirs_w = keras.Variable(np.array([1.0, 2.0], "float32"))
    ours = optimizers.LossScaleOptimizer(optimizers.SGD(0.1), initial_scale=8.0, dynamic_growth_steps=2)
    theirs = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1), initial_scale=8.0, dynamic_growth_steps=2)
    for g in grads:
        ours.apply([tf.constant(g)], [ours_w])
        theirs.apply([tf.constant(g)], [theirs_w])
        np.testing.assert_allclose(ours_w.numpy(), np.asarray(theirs_w), rtol=1e-6)
        assert float(ours.dynamic_scale) == float(np.asarray(theirs.dynamic_scale))
        assert int(ours.iterations) == int(np.asarray(theirs.iterations))
