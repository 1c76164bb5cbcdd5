"""Mixed precision: dtype policies, autocast in call, LossScaleOptimizer, fit, saving and export."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.mixed_precision import DTypePolicy, LossScaleOptimizer, set_global_policy


@pytest.fixture(autouse=True)
def float32_afterwards():
    yield
    set_global_policy("float32")


def test_policies_name_their_two_dtypes():
    assert (DTypePolicy("mixed_float16").variable_dtype, DTypePolicy("mixed_float16").compute_dtype) == (
        "float32",
        "float16",
    )
    assert DTypePolicy("mixed_bfloat16").compute_dtype == "bfloat16"
    assert (DTypePolicy("float64").variable_dtype, DTypePolicy("float64").compute_dtype) == ("float64", "float64")
    assert tfkit.mixed_precision.Policy is DTypePolicy
    keras_form = {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": {"name": "mixed_float16"},
        "registered_name": None,
    }
    assert tfkit.dtype_policies.get(keras_form) == DTypePolicy("mixed_float16")
    assert tfkit.dtype_policies.serialize(DTypePolicy("mixed_float16")) == keras_form
    with pytest.raises(ValueError, match="Unknown dtype policy 'mixed_float8'.*mixed_bfloat16"):
        DTypePolicy("mixed_float8")
    with pytest.raises(ValueError, match="Dense 'bad'.*Unknown dtype policy 'half_and_half'"):
        layers.Dense(2, dtype="half_and_half", name="bad")


def test_a_global_policy_gives_float32_variables_and_16_bit_computation():
    set_global_policy("mixed_float16")
    assert tfkit.mixed_precision.global_policy().name == "mixed_float16"
    dense = layers.Dense(3)
    head = layers.Activation("softmax", dtype="float32")  # the guide's advice for the last layer
    out = dense(np.ones((2, 4), "float32"))
    assert out.dtype == tf.float16 and dense.kernel.dtype == tf.float32
    assert (dense.dtype, dense.compute_dtype, dense.variable_dtype) == ("float32", "float16", "float32")
    assert dense.dtype_policy.name == "mixed_float16"
    assert head(out).dtype == tf.float32
    assert dense.get_config()["dtype"]["config"] == {"name": "mixed_float16"}  # Keras 3's serialized policy
    assert layers.Dense.from_config(dense.get_config()).compute_dtype == "float16"
    set_global_policy("float32")
    assert layers.Dense(3).compute_dtype == "float32"


def test_a_guide_style_custom_layer_computes_in_float16_and_trains_float32_weights():
    class Linear(layers.Layer):
        def __init__(self, units=4, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal")
            self.b = self.add_weight(shape=(self.units,), initializer="zeros")

        def call(self, inputs):
            return tf.matmul(inputs, self.w) + self.b

    layer = Linear(dtype="mixed_float16")
    x = tf.constant(np.random.default_rng(0).random((5, 3)), tf.float32)
    with tf.GradientTape() as tape:
        out = layer(x)
        loss = tf.reduce_sum(tf.cast(out, tf.float32))
    grads = tape.gradient(loss, layer.trainable_weights)
    assert out.dtype == tf.float16 and isinstance(layer.w, tf.Variable) and layer.w.dtype == tf.float32
    expected = x.numpy().astype(np.float16) @ layer.w.numpy().astype(np.float16)
    np.testing.assert_allclose(out.numpy(), expected, rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(grads[1].numpy(), [5.0] * 4)  # d(sum)/db = batch size, in float32
    assert [g.dtype for g in grads] == [tf.float32, tf.float32]


def test_loss_scale_optimizer_steps_match_hand_derived_values():
    variable = tf.Variable([1.0, 2.0])
    optimizer = LossScaleOptimizer(tfkit.optimizers.SGD(0.1), initial_scale=8.0, dynamic_growth_steps=2)
    assert float(optimizer.scale_loss(tf.constant(2.0))) == 16.0
    optimizer.apply([tf.constant([4.0, 8.0])], [variable])  # unscaled: [0.5, 1.0]
    np.testing.assert_allclose(variable.numpy(), [0.95, 1.9])
    assert (float(optimizer.dynamic_scale), int(optimizer.step_counter)) == (8.0, 1)
    optimizer.apply([tf.constant([4.0, 8.0])], [variable])  # the second finite step: the scale doubles
    np.testing.assert_allclose(variable.numpy(), [0.9, 1.8])
    assert (float(optimizer.dynamic_scale), int(optimizer.step_counter)) == (16.0, 0)
    optimizer.apply([tf.constant([np.inf, 1.0])], [variable])  # not finite: skipped, scale halved
    np.testing.assert_allclose(variable.numpy(), [0.9, 1.8])
    assert (float(optimizer.dynamic_scale), int(optimizer.iterations)) == (8.0, 2)
    config = optimizer.get_config()
    again = LossScaleOptimizer.from_config(config)
    assert again.get_config() == config and isinstance(again.inner_optimizer, tfkit.optimizers.SGD)


def _small_data(n=64):
    rng = np.random.default_rng(0)
    x = rng.random((n, 8)).astype("float32")
    return x, (x[:, :1] * 2 - x[:, 1:2]).astype("float32")


def test_fit_under_mixed_float16_scales_the_loss_and_survives_an_overflow():
    tfkit.utils.set_random_seed(1)
    set_global_policy("mixed_float16")
    model = tfkit.Sequential([tfkit.Input((8,)), layers.Dense(16, activation="relu"), layers.Dense(1, dtype="float32")])
    model.compile(LossScaleOptimizer(tfkit.optimizers.SGD(0.05), initial_scale=2.0**30), "mse")
    before = [w.numpy() for w in model.weights]
    x, y = _small_data()
    model.fit(x, y, batch_size=8, epochs=3, verbose=0)
    optimizer = model.optimizer
    # 2**30 times the loss gradient overflows float16 (max 65504): those steps were skipped, the scale came down.
    assert float(optimizer.dynamic_scale) < 2.0**30
    assert 0 < int(optimizer.iterations) < 24
    after = [w.numpy() for w in model.weights]
    assert all(np.isfinite(w).all() for w in after)
    assert any(not np.array_equal(a, b) for a, b in zip(before, after))
    compiled_default = tfkit.Sequential([tfkit.Input((8,)), layers.Dense(1)])
    compiled_default.compile("adam", "mse")
    assert isinstance(compiled_default.optimizer, LossScaleOptimizer)  # wrapped automatically, as in Keras


def test_a_mixed_model_saves_reloads_and_exports_with_its_dtypes(tmp_path):
    set_global_policy("mixed_float16")
    model = tfkit.Sequential(
        [tfkit.Input((8,)), layers.Dense(4, activation="relu", name="hidden"), layers.Dense(2, name="out")]
    )
    model.compile("adam", "mse")
    x, y = _small_data(16)
    model.fit(x, np.repeat(y, 2, axis=1), epochs=1, verbose=0)
    expected = model.predict(x, verbose=0)
    assert expected.dtype == np.float16
    model.save(tmp_path / "mixed.h5")
    set_global_policy("float32")  # the file, not the process, decides the policies
    loaded = tfkit.load_model(tmp_path / "mixed.h5")
    assert [layer.dtype_policy.name for layer in loaded.layers] == ["mixed_float16", "mixed_float16"]
    assert isinstance(loaded.optimizer, LossScaleOptimizer)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), expected)
    model.export(str(tmp_path / "export"), version=1)
    served = tf.saved_model.load(str(tmp_path / "export" / "1")).signatures["serving_default"]
    (spec,) = served.structured_input_signature[1].values()
    assert spec.dtype == tf.float32  # it takes float32, as the model's Input says
    (output,) = served.structured_outputs.values()
    assert output.dtype == tf.float16  # and returns what the last layer computes
    np.testing.assert_array_equal(list(served(tf.constant(x)).values())[0].numpy(), expected)


def test_dense_under_mixed_float16_matches_keras():
    keras = pytest.importorskip("keras")
    x = np.random.default_rng(2).random((4, 5)).astype("float32")
    ours = layers.Dense(3, dtype="mixed_float16")
    theirs = keras.layers.Dense(3, dtype="mixed_float16")
    ours.build((None, 5))
    theirs.build((None, 5))
    theirs.set_weights([w.numpy() for w in ours.weights])
    got, want = ours(x).numpy(), np.asarray(theirs(x))
    assert got.dtype == want.dtype == np.float16
    np.testing.assert_array_equal(got, want)
    assert (ours.dtype, ours.compute_dtype) == (theirs.dtype, theirs.compute_dtype)
