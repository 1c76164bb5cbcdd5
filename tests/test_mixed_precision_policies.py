"""Dtype policies and layers under mixed precision: float32 variables, low-precision compute."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers, mixed_precision


@pytest.fixture(autouse=True)
def restore_policy():
    yield
    mixed_precision.set_global_policy("float32")


def test_policy_attributes_and_config():
    policy = mixed_precision.Policy("mixed_float16")
    assert (policy.name, policy.compute_dtype, policy.variable_dtype) == ("mixed_float16", "float16", "float32")
    bf = tfkit.dtype_policies.DTypePolicy("mixed_bfloat16")
    assert (bf.compute_dtype, bf.variable_dtype) == ("bfloat16", "float32")
    assert tfkit.dtype_policies.DTypePolicy.from_config(bf.get_config()) == bf
    assert mixed_precision.DTypePolicy("float64").compute_dtype == "float64"
    assert tfkit.dtype_policies.serialize(policy) == {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": {"name": "mixed_float16"},
        "registered_name": None,
    }
    assert tfkit.dtype_policies.deserialize("mixed_bfloat16") == bf


def test_bad_policy_name_is_a_value_error_listing_names():
    with pytest.raises(ValueError, match="policy.*mixed_float16.*mixed_bfloat16"):
        mixed_precision.set_global_policy("mixed_float17")
    with pytest.raises(ValueError, match="dtype.*mixed_bfloat16"):
        layers.Dense(2, dtype="float8_nope")
    with pytest.raises(ValueError, match="class_name"):
        layers.Dense(2, dtype={"class_name": "QuantizedDTypePolicy", "config": {"name": "int8_from_float32"}})


def test_global_policy_is_taken_by_new_layers_only():
    before = layers.Dense(2)
    mixed_precision.set_global_policy("mixed_float16")
    assert mixed_precision.global_policy().name == "mixed_float16"
    after = layers.Dense(2)
    assert before.dtype_policy.name == "float32"
    assert after.dtype_policy.name == "mixed_float16"
    assert tfkit.Input((3,)).dtype == tf.float32  # inputs stay float32


def test_dense_keeps_float32_kernel_and_computes_in_float16():
    layer = layers.Dense(4, dtype="mixed_float16")
    y = layer(np.ones((2, 3), np.float32))
    assert (layer.dtype, layer.compute_dtype, layer.variable_dtype) == ("float32", "float16", "float32")
    assert layer.kernel.dtype == tf.float32 and layer.bias.dtype == tf.float32
    assert y.dtype == tf.float16
    expected = np.ones((2, 3), np.float16) @ layer.kernel.numpy().astype(np.float16)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-3)


def test_floating_inputs_autocast_integers_untouched():
    class Echo(tfkit.Layer):
        def call(self, x, ids):
            return x, ids

    x, ids = Echo(dtype="mixed_bfloat16")(tf.ones((2, 2), tf.float64), tf.constant([1, 2]))
    assert x.dtype == tf.bfloat16 and ids.dtype == tf.int32


def test_last_layer_float32_override_gives_float32_outputs():
    mixed_precision.set_global_policy("mixed_float16")
    model = tfkit.Sequential(
        [
            tfkit.Input((5,)),
            layers.Dense(8, activation="relu"),
            layers.Dense(3),
            layers.Activation("softmax", dtype="float32"),
        ]
    )
    assert model.layers[1].output.dtype == tf.float16
    out = model(np.random.rand(4, 5).astype("float32"))
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy().sum(axis=-1), 1.0, rtol=1e-5)


def test_float32_layer_inside_mixed_model_reads_float32_weights():
    mixed_precision.set_global_policy("mixed_bfloat16")
    inner = layers.Dense(3, dtype="float32")
    model = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(4), inner])
    assert model(np.ones((2, 4), np.float32)).dtype == tf.float32
    assert inner.compute_dtype == "float32" and model.layers[0].compute_dtype == "bfloat16"


def test_gradients_are_float32_for_float32_variables():
    layer = layers.Dense(2, dtype="mixed_float16")
    x = tf.ones((3, 4))
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_sum(tf.cast(y, tf.float32))
    grads = tape.gradient(loss, layer.trainable_weights)
    assert [g.dtype for g in grads] == [tf.float32, tf.float32]
    np.testing.assert_allclose(grads[1].numpy(), [3.0, 3.0])


def test_layer_config_writes_keras_policy_dict_and_reads_plain_strings():
    mixed = layers.Dense(2, dtype="mixed_bfloat16")
    config = mixed.get_config()
    assert config["dtype"] == {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": {"name": "mixed_bfloat16"},
        "registered_name": None,
    }
    assert layers.Dense.from_config(config).dtype_policy.name == "mixed_bfloat16"
    assert layers.Dense(2).get_config()["dtype"] == "float32"  # plain policies stay a name
    config["dtype"] = "mixed_float16"
    assert layers.Dense.from_config(config).compute_dtype == "float16"


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
def test_conv_and_attention_layers_run_eagerly_in_low_precision(policy):
    mixed_precision.set_global_policy(policy)
    image = np.random.rand(2, 6, 6, 3).astype("float32")
    seq = np.random.rand(2, 4, 6).astype("float32")
    for layer, x in [
        (layers.Conv2D(4, 3), image),
        (layers.SeparableConv2D(4, 3), image),
        (layers.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="c"), seq[:, 0]),
        (layers.BatchNormalization(), image),
        (layers.LayerNormalization(), seq),
    ]:
        assert layer(x, training=True).dtype == tf.as_dtype(policy.split("_")[1]), layer.name
        assert all(w.dtype == tf.float32 for w in layer.weights), layer.name
    out = layers.MultiHeadAttention(num_heads=2, key_dim=3)(seq, seq)
    assert out.dtype == tf.as_dtype(policy.split("_")[1])
