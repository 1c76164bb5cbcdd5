"""einsum_one_row (tfkit/layers/einsum_one_row.py): tf.einsum's values, and under XLA a program that calls the
matrix-vector routine instead of a loop-emitted dot for an input of one row (a decoding step)."""

import re

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit.layers.einsum_one_row import _doubled_axes, einsum_one_row

RNG = np.random.default_rng(0)

CASES = [
    ("btd,dnh->btnh", (1, 1, 16), (16, 2, 8)),  # a query projection, one token
    ("btnh,nhd->btd", (1, 1, 2, 8), (2, 8, 16)),  # an attention output projection
    ("abc,cd->abd", (1, 1, 16), (16, 4)),
    ("btd,dnh->btnh", (3, 2, 16), (16, 2, 8)),  # six rows: tf.einsum as it is
    ("...b,bc->...c", (1, 16), (16, 4)),  # an ellipsis: tf.einsum as it is
    ("d,dn->n", (16,), (16, 4)),  # no free input axis: tf.einsum as it is
]


@pytest.mark.parametrize("equation, input_shape, kernel_shape", CASES)
def test_values_equal_tf_einsum_eagerly_and_under_xla(equation, input_shape, kernel_shape):
    x = tf.constant(RNG.normal(size=input_shape).astype("float32"))
    k = tf.constant(RNG.normal(size=kernel_shape).astype("float32"))
    expected = np.einsum(equation, x.numpy(), k.numpy())
    np.testing.assert_allclose(einsum_one_row(equation, x, k), expected, rtol=1e-5, atol=1e-5)
    compiled = tf.function(lambda x, k: einsum_one_row(equation, x, k), jit_compile=True)(x, k)
    assert compiled.shape == expected.shape
    np.testing.assert_allclose(compiled, expected, rtol=1e-5, atol=1e-5)


def test_the_axis_doubled_is_a_free_input_axis_kept_in_the_output():
    one = tf.zeros((1, 1, 16))
    assert _doubled_axes("btd,dnh->btnh", one) == (0, 0)
    assert _doubled_axes("tbd,dn->btn", one) == (0, 1)
    assert _doubled_axes("btd,dnh->btnh", tf.zeros((2, 1, 16))) is None
    assert _doubled_axes("...d,dn->...n", tf.zeros((1, 16))) is None


def _dots_emitted_as_loops(hlo: str) -> int:
    """How many fused computations of kLoop fusions hold a dot (XLA's loop-emitted products)."""
    computations = dict(re.findall(r"^(%\S+) .*?\{\n(.*?)\n\}", hlo, re.S | re.M))
    return sum(" dot(" in computations.get(name, "") for name in re.findall(r"kind=kLoop, calls=(%[\w.\-]+)", hlo))


def test_under_xla_a_one_row_product_is_not_a_loop_emitted_dot():
    kernel = tf.Variable(RNG.normal(size=(64, 4, 16)).astype("float32"))

    def project(x):  # a layer norm's kind of elementwise producer, then the projection
        return einsum_one_row("btd,dnh->btnh", tf.nn.l2_normalize(x, -1) * 2.0, kernel)

    hlo = tf.function(project, jit_compile=True).experimental_get_compiler_ir(tf.ones((1, 1, 64)))(
        stage="optimized_hlo"
    )
    assert _dots_emitted_as_loops(hlo) == 0


def test_einsum_dense_at_batch_one_under_xla_equals_its_eager_call():
    layer = tfkit.layers.EinsumDense("btd,dnh->btnh", output_shape=(None, 2, 8), bias_axes="nh")
    x = tf.constant(RNG.normal(size=(1, 1, 16)).astype("float32"))
    eager = layer(x)
    np.testing.assert_allclose(tf.function(layer, jit_compile=True)(x), eager, rtol=1e-5, atol=1e-6)
