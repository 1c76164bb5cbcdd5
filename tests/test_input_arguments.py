"""Keras 3's Input(tensor=, optional=), InputLayer(input_tensor=, optional=), InputSpec(optional=),
KerasTensor(sparse=, ragged=, record_history=) and EinsumDense's quantization arguments."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import Input, Model, layers


class AddIfGiven(layers.Layer):
    def call(self, x, y=None):
        return x if y is None else x + y

    def compute_output_shape(self, x_shape):
        return x_shape


def test_an_optional_input_may_be_none():
    first, second = Input((2,)), Input((2,), optional=True)
    model = Model([first, second], AddIfGiven()(first, second))
    np.testing.assert_array_equal(model([np.ones((2, 2)), None]), np.ones((2, 2)))
    np.testing.assert_array_equal(model([np.ones((2, 2)), np.ones((2, 2))]), 2 * np.ones((2, 2)))
    assert second.node.layer.get_config()["optional"] is True


def test_optional_dict_inputs_and_a_required_none_is_refused():
    a, b = Input((2,), name="a"), Input((2,), name="b", optional=True)
    model = Model({"a": a, "b": b}, AddIfGiven()(a, b))
    np.testing.assert_array_equal(model({"a": np.ones((1, 2)), "b": None}), np.ones((1, 2)))
    c, d = Input((2,), name="c"), Input((2,), name="d")
    strict = Model({"c": c, "d": d}, AddIfGiven()(c, d))
    with pytest.raises(ValueError, match="'d' .* is None but it is not optional"):
        strict({"c": np.ones((1, 2)), "d": None})


def test_input_tensor_becomes_the_input():
    tensor = Input((3,))
    again = Input(tensor=tensor)
    assert again is tensor and isinstance(tensor.node.layer, layers.InputLayer)
    assert Model(again, layers.Dense(2)(again))(np.ones((1, 3))).shape == (1, 2)
    with pytest.raises(ValueError, match="must be a symbolic tensor"):
        layers.InputLayer(input_tensor=np.ones((1, 3)))
    with pytest.raises(ValueError, match="must match the shape"):
        Input((4,), tensor=Input((3,)))


def test_input_spec_and_keras_tensor_arguments():
    spec = tfkit.InputSpec(ndim=2, optional=True)
    assert spec.optional and spec.get_config()["optional"] is True
    spec.check(None, "layer 'x'")  # None is never checked
    tensor = tfkit.KerasTensor((None, 3), record_history=False)
    assert tensor.record_history is False and tensor.sparse is False
    with pytest.raises(ValueError, match="dense"):
        tfkit.KerasTensor((None, 3), sparse=True)


def test_einsum_dense_takes_keras_quantization_arguments_and_refuses_gptq():
    layer = layers.EinsumDense("ab,bc->ac", 4, quantization_config=None, gptq_unpacked_column_size=None)
    assert layer.get_config()["quantization_config"] is None
    built = layers.EinsumDense("ab,bc->ac", 4, dtype="int8_from_float32")
    built.build((None, 3))
    assert (built.kernel.dtype, tuple(built.kernel_scale.shape)) == (tf.int8, (1, 4))
    with pytest.raises(NotImplementedError, match="GPTQ"):
        layers.EinsumDense("ab,bc->ac", 4, gptq_unpacked_column_size=8)
