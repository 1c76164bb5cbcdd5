"""The new nn, linalg, core and signal ops inside an XLA-compiled tf.function give their eager answers."""

import numpy as np
import pytest
import tensorflow as tf

from tfkit import ops

X = tf.constant(np.random.default_rng(5).normal(size=(2, 6, 6, 4)).astype("float32"))


def _spd(x):
    square = x[..., :4, :4]
    return tf.matmul(square, square, transpose_b=True) + tf.eye(4)


COMPILED = {
    "activations": lambda x: (
        ops.celu(x)
        + ops.glu(x)[..., :1]
        + ops.sparsemax(x)
        + ops.hard_silu(x)
        + ops.squareplus(x)
        + ops.threshold(x, 0.0, 1.0)
        + ops.soft_shrink(x)
        + ops.sparse_plus(x)
    ),
    "conv": lambda x: ops.conv_transpose(
        ops.separable_conv(x, tf.ones((3, 3, 4, 1)), tf.ones((1, 1, 4, 2)), padding="same"),
        tf.ones((3, 3, 4, 2)),
        strides=2,
    ),
    "pool": lambda x: ops.adaptive_max_pool(x, 4) + ops.adaptive_average_pool(x, 4),
    "patches": lambda x: ops.fold(ops.unfold(x, 2), (6, 4), 2) + ops.depth_to_space(ops.space_to_depth(x, 2), 2),
    "norm": lambda x: ops.layer_normalization(x) + ops.rms_normalization(x) + ops.normalize(x),
    "attention": lambda x: ops.dot_product_attention(x, x, x, is_causal=True),
    "segments": lambda x: (
        ops.segment_max(x, tf.constant([0, 1]), num_segments=2)
        + ops.segment_prod(x, tf.constant([1, 1]), num_segments=2)
    ),
    "rearrange": lambda x: ops.rearrange(x, "b h w c -> b (h w) c"),
    "fft": lambda x: ops.rfft(x)[0] + ops.fft2((x, x))[1][..., :3],
    "stft": lambda x: ops.istft(ops.stft(tf.reshape(x, (2, -1)), 16, 8, 16), 16, 8, 16),
    "linalg": lambda x: ops.inv(_spd(x)) + ops.cholesky(_spd(x)) + ops.solve(_spd(x), x[..., :4, :4]),
    "logdet": lambda x: ops.logdet(_spd(x)),
    "cdist": lambda x: ops.cdist(x[0], x[1]),
    "associative_scan": lambda x: ops.associative_scan(lambda a, b: a + b, x, axis=1),
    "saturate_cast": lambda x: ops.saturate_cast(x * 1e3, "int8"),
    "slice_update": lambda x: ops.slice_update(x, (0, 1, 1, 0), tf.ones((1, 2, 2, 4))),
    "scatter_update": lambda x: ops.scatter_update(x, [[0, 0, 0, 0], [0, 0, 0, 0]], [2.0, 3.0], reduction="mul"),
}


@pytest.mark.parametrize("name", sorted(COMPILED))
def test_op_compiles_with_xla(name):
    function = COMPILED[name]
    compiled = tf.function(function, jit_compile=True, autograph=False)(X)
    for got, want in zip(tf.nest.flatten(compiled), tf.nest.flatten(function(X))):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
