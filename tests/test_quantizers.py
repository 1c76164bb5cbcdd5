"""tfkit.quantizers: the quantization math against numpy and hand values, configs, and Keras side by side."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import quantizers as q

RNG = np.random.default_rng(7)


def test_abs_max_quantize_equals_numpy_and_round_trips():
    x = RNG.normal(size=(6, 5)).astype("float32")
    quantized, scale = q.abs_max_quantize(x, axis=0)
    expected_scale = 127 / (np.abs(x).max(axis=0, keepdims=True) + 1e-7)
    np.testing.assert_allclose(scale, expected_scale, rtol=1e-6)
    np.testing.assert_array_equal(quantized, np.clip(np.round(x * scale.numpy()), -127, 127).astype("int8"))
    assert quantized.dtype == tf.int8 and scale.shape == (1, 5)
    np.testing.assert_allclose(quantized.numpy() / scale.numpy(), x, atol=np.abs(x).max() / 127)
    host_q, host_scale = q.abs_max_quantize(x, axis=0, to_numpy=True)
    np.testing.assert_array_equal(host_q, quantized)
    np.testing.assert_allclose(host_scale, scale, rtol=1e-6)


def test_abs_max_quantizer_defaults_to_the_last_axis_and_checks_the_range():
    x = np.array([[1.0, -2.0], [0.5, 0.25]], "float32")
    quantized, scale = q.AbsMaxQuantizer()(x)
    # scales 127 / (2 + 1e-7) and 127 / (0.5 + 1e-7): 1.0 * 63.4999.. is 63.5 in float32 (half to even: 64),
    # 0.25 * 253.99.. stays below 63.5 (63)
    np.testing.assert_array_equal(quantized, [[64, -127], [127, 63]])
    np.testing.assert_allclose(scale, [[63.5], [254.0]], rtol=1e-6)
    with pytest.raises(ValueError, match=r"value_range within \[-128, 127\]"):
        q.AbsMaxQuantizer(value_range=(-200, 200))


def test_grouped_quantization_with_zero_point_reconstructs_each_group():
    kernel = np.abs(RNG.normal(size=(10, 3))).astype("float32")
    kernel[1::2] *= -1  # every group spans zero (a one-signed group clips at its zero point, as in Keras)
    quantized, scale, zero = q.abs_max_quantize_grouped_with_zero_point(kernel, block_size=4)
    assert quantized.shape == (10, 3) and scale.shape == (3, 3) and zero.shape == (3, 3)
    rows = np.repeat(np.arange(3), 4)[:10]
    restored = (quantized.numpy().astype("float32") - zero.numpy()[rows]) * scale.numpy()[rows]
    np.testing.assert_allclose(restored, kernel, atol=scale.numpy().max())
    assert quantized.numpy().min() >= -8 and quantized.numpy().max() <= 7
    with pytest.raises(ValueError, match="block_size to be a positive integer"):
        q.abs_max_quantize_grouped_with_zero_point(kernel, block_size=0)


def test_pack_int4_matches_the_documented_nibbles_and_unpacks():
    original = np.array([[-3, 7], [2, -8], [1, 0]], np.int8)
    packed, shape, length = q.pack_int4(original, axis=0)
    # low nibble: first row (-3 -> 0xD), high nibble: second row (2 -> 0x2): 0x2D = 45
    np.testing.assert_array_equal(packed, [[45, -121], [1, 0]])
    assert shape == (2, 2) and length == 3
    np.testing.assert_array_equal(q.unpack_int4(packed, length, axis=0), original)
    wide = RNG.integers(-8, 8, size=(2, 5, 3)).astype("int8")
    for axis in (0, 1, 2, -1):
        packed, _, length = q.pack_int4(wide, axis=axis)
        np.testing.assert_array_equal(q.unpack_int4(packed, length, axis=axis), wide)
    with pytest.raises(TypeError, match="Expected int8 tensor"):
        q.pack_int4(wide.astype("int32"))


def test_fake_quant_per_tensor_and_per_channel_round_to_the_grid():
    x = np.array([[-1.5, -0.3, 0.2, 0.9, 2.0]], "float32")
    out = q.fake_quant_with_min_max_vars(x, -1.0, 1.0, num_bits=2)
    # 4 levels on [-1, 1] nudged so 0 is exact: scale 2/3, zero point round(1.5) = 2 -> grid [-4/3, -2/3, 0, 2/3]
    np.testing.assert_allclose(out, [[-4 / 3, 0.0, 0.0, 2 / 3, 2 / 3]], atol=1e-6)
    channels = RNG.normal(size=(4, 3)).astype("float32")
    per_channel = q.fake_quant_with_min_max_vars(channels, [-1.0, -2.0, -0.5, -1.0], [1.0, 2.0, 0.5, 1.0], axis=0)
    for row in range(4):
        np.testing.assert_allclose(
            per_channel[row],
            q.fake_quant_with_min_max_vars(channels[row], [-1.0, -2.0, -0.5, -1.0][row], [1.0, 2.0, 0.5, 1.0][row]),
            atol=1e-6,
        )


def test_float8_scale_history_and_quantize_and_dequantize():
    scale = q.compute_float8_scale(
        np.array([2.0, 0.0, np.inf], "float32"), np.array([0.5, 0.25, 2.0], "float32"), 448.0, margin=1
    )
    np.testing.assert_allclose(scale, [2.0 * 2 / 448.0, 0.25, 2.0], rtol=1e-6)
    history = q.compute_float8_amax_history(np.array([-3.0, 1.0], "float32"), np.array([1.0, 2.0, 3.0], "float32"))
    np.testing.assert_array_equal(history, [3.0, 3.0, 1.0])
    out = q.quantize_and_dequantize(np.array([1000.0, 0.3], "float32"), 1.0, "float8_e4m3fn", "float32")
    np.testing.assert_allclose(out, [448.0, 0.3125])  # clipped to e4m3's max; 0.3 -> nearest e4m3 value


def test_configs_check_their_arguments_and_round_trip():
    config = q.Int8QuantizationConfig(weight_quantizer=q.AbsMaxQuantizer(axis=0))
    again = q.deserialize(q.serialize(config))
    assert isinstance(again, q.Int8QuantizationConfig) and again.weight_quantizer.axis == (0,)
    assert isinstance(again.activation_quantizer, q.AbsMaxQuantizer)
    assert q.Int4QuantizationConfig().activation_quantizer is None
    assert q.deserialize(q.serialize(q.Int4QuantizationConfig(block_size=64))).block_size == 64
    with pytest.raises(ValueError, match="does not support custom quantizers"):
        q.Int4QuantizationConfig(weight_quantizer=q.AbsMaxQuantizer(value_range=(-8, 7)))
    with pytest.raises(ValueError, match="Supported values are 2, 3, 4, and 8"):
        q.GPTQConfig(None, None, weight_bits=5)
    assert q.GPTQConfig([1], None).get_config()["dataset"] is None
    assert q.AWQConfig(None, None, group_size=-1).dtype_policy_string() == "awq/4/-1"
    with pytest.raises(ValueError, match="must pass a `GPTQConfig`"):
        q.validate_and_resolve_config("gptq", None)
    with pytest.raises(ValueError, match="Contradictory arguments"):
        q.validate_and_resolve_config("int4", q.Int8QuantizationConfig())
    assert q.get("abs_max_quantizer", value_range=(-8, 7)).value_range == (-8, 7)
    assert tfkit.Quantizer is q.Quantizer


def test_quantized_dtype_policies_parse_names_and_configs():
    policy = tfkit.dtype_policies.get("int4/64_from_mixed_bfloat16")
    assert isinstance(policy, tfkit.dtype_policies.Int4DTypePolicy) and policy.block_size == 64
    assert (policy.compute_dtype, policy.variable_dtype, policy.quantization_mode) == ("bfloat16", "float32", "int4")
    assert tfkit.dtype_policies.get(tfkit.dtype_policies.serialize(policy)) == policy
    with pytest.raises(ValueError, match="doesn't work well with compute_dtype='float16'"):
        tfkit.dtype_policies.get("int8_from_float16")
    with pytest.raises(ValueError, match="AWQ only supports 4-bit"):
        tfkit.dtype_policies.AWQDTypePolicy("awq/8/128", "float32")
    policies = tfkit.dtype_policies.DTypePolicyMap("float32")
    policies["encoder/.*"] = "bfloat16"
    policies["encoder/attention/.*"] = "int8_from_float32"
    assert policies["decoder/dense"].name == "float32" and policies["encoder/dense"].name == "bfloat16"
    with pytest.raises(ValueError, match="matches multiple dtype policy"):
        policies["encoder/attention/query"]
    again = tfkit.dtype_policies.get(tfkit.dtype_policies.serialize(policies))
    assert again == policies and again.name == "map_float32"


@pytest.fixture(scope="module")
def keras():
    return pytest.importorskip("keras")


def test_same_numbers_as_keras(keras):
    kq = keras.quantizers
    x = RNG.normal(size=(64, 6)).astype("float32")
    for axis in (0, -1):
        for mine, theirs in zip(q.abs_max_quantize(x, axis), kq.abs_max_quantize(x, axis)):
            np.testing.assert_array_equal(mine, theirs)
    for to_numpy in (True, False):
        for mine, theirs in zip(
            q.abs_max_quantize_grouped_with_zero_point(x, 16, to_numpy=to_numpy),
            kq.abs_max_quantize_grouped_with_zero_point(x, 16, to_numpy=to_numpy),
        ):
            np.testing.assert_array_equal(mine, theirs)
    small = RNG.integers(-8, 8, size=(5, 3)).astype("int8")
    for axis in (0, 1):
        np.testing.assert_array_equal(q.pack_int4(small, axis)[0], kq.pack_int4(small, axis)[0])
    np.testing.assert_allclose(
        q.fake_quant_with_min_max_vars(x, -1.0, 1.5, num_bits=4, narrow_range=True),
        kq.fake_quant_with_min_max_vars(x, -1.0, 1.5, num_bits=4, narrow_range=True),
    )
    np.testing.assert_allclose(
        q.quantize_and_dequantize(x * 300, 0.5, "float8_e5m2", "float32"),
        kq.quantize_and_dequantize(x * 300, 0.5, "float8_e5m2", "float32"),
    )


def test_keras_configs_and_policies_read_back(keras):
    config = keras.quantizers.serialize(
        keras.quantizers.Int8QuantizationConfig(weight_quantizer=keras.quantizers.AbsMaxQuantizer(axis=0))
    )
    mine = q.deserialize(config)
    assert mine.weight_quantizer.axis == (0,) and mine.mode == "int8"
    policies = keras.dtype_policies.DTypePolicyMap("float32")
    policies["a/.*"] = "int4/32_from_float32"
    for policy in (
        policies,
        keras.dtype_policies.get("gptq/4/128_from_float32"),
        keras.dtype_policies.QuantizedFloat8DTypePolicy("float8", "float32", 16),
    ):
        serialized = keras.dtype_policies.serialize(policy)
        assert tfkit.dtype_policies.serialize(tfkit.dtype_policies.get(serialized)) == serialized
