"""Convolutions, pooling and patch ops of tfkit.ops.nn against keras.ops and direct numpy loops."""

import numpy as np
import pytest
import tensorflow as tf
from ops_crosscheck import check_op, check_saved_op, keras_op

from tfkit import ops

RNG = np.random.default_rng(1)
IMG = RNG.normal(size=(2, 6, 6, 3)).astype("float32")  # channels last
IMG_CF = IMG.transpose(0, 3, 1, 2).copy()  # channels first
SEQ = RNG.normal(size=(2, 7, 3)).astype("float32")
VOL = RNG.normal(size=(1, 4, 5, 4, 2)).astype("float32")
K2 = RNG.normal(size=(3, 3, 3, 4)).astype("float32")
K1 = RNG.normal(size=(3, 3, 4)).astype("float32")
K3 = RNG.normal(size=(2, 2, 2, 2, 3)).astype("float32")
DW2 = RNG.normal(size=(3, 3, 3, 2)).astype("float32")
DW1 = RNG.normal(size=(3, 3, 2)).astype("float32")
PW2 = RNG.normal(size=(1, 1, 6, 5)).astype("float32")
PW1 = RNG.normal(size=(1, 6, 5)).astype("float32")
KT2 = RNG.normal(size=(3, 3, 4, 3)).astype("float32")  # (*spatial, out, in)
KT1 = RNG.normal(size=(3, 4, 3)).astype("float32")
NCHW = RNG.normal(size=(2, 3, 5, 6)).astype("float32")


def _conv2d_reference(x, k, stride=1, dilation=1):
    """A plain 'valid' 2-D convolution by loops (channels last)."""
    kh, kw = (k.shape[0] - 1) * dilation + 1, (k.shape[1] - 1) * dilation + 1
    oh, ow = (x.shape[1] - kh) // stride + 1, (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, k.shape[-1]))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride : i * stride + kh : dilation, j * stride : j * stride + kw : dilation]
            out[:, i, j] = np.einsum("bhwc,hwco->bo", patch, k)
    return out


def _adaptive_reference(x, out, kind):
    """Adaptive pooling of a channels-last input with any number of spatial axes, window by window (PyTorch's rule)."""
    spatial = x.shape[1:-1]
    y = np.zeros((x.shape[0], *out, x.shape[-1]))
    reduce = np.max if kind == "max" else np.mean
    for index in np.ndindex(*out):
        window = tuple(
            slice(int(np.floor(i * n / o)), int(np.ceil((i + 1) * n / o))) for i, n, o in zip(index, spatial, out)
        )
        y[(slice(None), *index)] = reduce(x[(slice(None), *window)], axis=tuple(range(1, len(out) + 1)))
    return y


def _unfold_reference(x, k, d=1, p=0, s=1):
    n, c, h, w = x.shape
    x = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    nh, nw = (h + 2 * p - d * (k - 1) - 1) // s + 1, (w + 2 * p - d * (k - 1) - 1) // s + 1
    cols = np.zeros((n, c * k * k, nh * nw))
    for a in range(nh):
        for b in range(nw):
            block = x[:, :, a * s : a * s + d * (k - 1) + 1 : d, b * s : b * s + d * (k - 1) + 1 : d]
            cols[:, :, a * nw + b] = block.reshape(n, -1)
    return cols


def _fold_reference(cols, out, k, p=0, s=1):
    n, ckk, _ = cols.shape
    c = ckk // (k * k)
    image = np.zeros((n, c, out[0] + 2 * p, out[1] + 2 * p))
    nw = (out[1] + 2 * p - k) // s + 1
    for index in range(cols.shape[2]):
        a, b = divmod(index, nw)
        image[:, :, a * s : a * s + k, b * s : b * s + k] += cols[:, :, index].reshape(n, c, k, k)
    return image[:, :, p : p + out[0], p : p + out[1]]


def _first(channels_last):
    """A reference for a channels-first case: the channels-last answer (checked against keras) moved."""
    return lambda: np.moveaxis(np.asarray(channels_last()), -1, 1)


CASES = [
    ("conv", (IMG, K2), {"padding": "same"}, None),
    ("conv", (IMG, K2), {}, lambda: _conv2d_reference(IMG, K2)),
    ("conv", (IMG, K2), {"strides": 2}, lambda: _conv2d_reference(IMG, K2, stride=2)),
    ("conv", (IMG, K2), {"dilation_rate": 2}, lambda: _conv2d_reference(IMG, K2, dilation=2)),
    (
        "conv",
        (IMG_CF, K2),
        {"padding": "same", "data_format": "channels_first"},
        _first(lambda: tf.nn.conv2d(IMG, K2, 1, "SAME")),
    ),
    ("conv", (SEQ, K1), {"strides": 2, "padding": "same"}, None),
    (
        "conv",
        (SEQ.transpose(0, 2, 1), K1),
        {"data_format": "channels_first"},
        _first(lambda: tf.nn.conv1d(SEQ, K1, 1, "VALID")),
    ),
    ("conv", (VOL, K3), {"padding": "same"}, None),
    ("depthwise_conv", (IMG, DW2), {"padding": "same"}, None),
    ("depthwise_conv", (IMG, DW2), {"strides": 2}, None),
    (
        "depthwise_conv",
        (IMG_CF, DW2),
        {"data_format": "channels_first"},
        _first(lambda: tf.nn.depthwise_conv2d(IMG, DW2, [1, 1, 1, 1], "VALID")),
    ),
    ("depthwise_conv", (SEQ, DW1), {"padding": "same", "dilation_rate": 2}, None),
    ("depthwise_conv", (IMG, DW2), {"strides": 2, "dilation_rate": 2, "padding": "same"}, None),
    ("separable_conv", (IMG, DW2, PW2), {"padding": "same"}, None),
    (
        "separable_conv",
        (IMG_CF, DW2, PW2),
        {"data_format": "channels_first", "strides": 2},
        _first(lambda: tf.nn.separable_conv2d(IMG, DW2, PW2, [1, 2, 2, 1], "VALID")),
    ),
    ("separable_conv", (SEQ, DW1, PW1), {}, None),
    ("conv_transpose", (IMG, KT2), {}, None),
    ("conv_transpose", (IMG, KT2), {"strides": 2, "padding": "same"}, None),
    ("conv_transpose", (IMG, KT2), {"strides": 2, "output_padding": 1}, None),
    (
        "conv_transpose",
        (IMG_CF, KT2),
        {"strides": 2, "data_format": "channels_first"},
        _first(lambda: tf.nn.conv2d_transpose(IMG, KT2, (2, 13, 13, 4), 2, "VALID")),
    ),
    ("conv_transpose", (SEQ, KT1), {"strides": 3, "padding": "same"}, None),
    ("max_pool", (IMG, 2), {}, None),
    (
        "max_pool",
        (IMG_CF, 3),
        {"strides": 1, "padding": "same", "data_format": "channels_first"},
        _first(lambda: tf.nn.max_pool2d(IMG, 3, 1, "SAME")),
    ),
    ("max_pool", (SEQ, 2), {"strides": 1}, None),
    ("average_pool", (IMG, (2, 3)), {"padding": "same"}, None),
    (
        "average_pool",
        (IMG_CF, 2),
        {"data_format": "channels_first"},
        _first(lambda: tf.nn.avg_pool2d(IMG, 2, 2, "VALID")),
    ),
    ("average_pool", (VOL, 2), {"padding": "same"}, None),
    ("adaptive_average_pool", (IMG, (4, 4)), {}, lambda: _adaptive_reference(IMG, (4, 4), "mean")),
    ("adaptive_average_pool", (IMG, 4), {}, lambda: _adaptive_reference(IMG, (4, 4), "mean")),
    ("adaptive_max_pool", (IMG, (4, 5)), {}, lambda: _adaptive_reference(IMG, (4, 5), "max")),
    (
        "adaptive_max_pool",
        (IMG_CF, (3, 2)),
        {"data_format": "channels_first"},
        lambda: _adaptive_reference(IMG, (3, 2), "max").transpose(0, 3, 1, 2),
    ),
    ("adaptive_average_pool", (SEQ, 3), {}, lambda: _adaptive_reference(SEQ, (3,), "mean")),
    ("adaptive_max_pool", (VOL, (2, 3, 3)), {}, lambda: _adaptive_reference(VOL, (2, 3, 3), "max")),
    ("depth_to_space", (RNG.normal(size=(1, 2, 3, 8)).astype("float32"), 2), {}, None),
    ("depth_to_space", (RNG.normal(size=(1, 8, 2, 3)).astype("float32"), 2), {"data_format": "channels_first"}, None),
    ("space_to_depth", (IMG, 2), {}, None),
    ("space_to_depth", (IMG_CF, 3), {"data_format": "channels_first"}, None),
    ("space_to_depth", (np.arange(16).reshape(1, 4, 4, 1), 2), {}, None),
    ("unfold", (NCHW, 2), {}, lambda: _unfold_reference(NCHW, 2)),
    ("unfold", (NCHW, 3), {"padding": 1, "stride": 2}, lambda: _unfold_reference(NCHW, 3, p=1, s=2)),
    ("unfold", (NCHW, 2), {"dilation": 2}, lambda: _unfold_reference(NCHW, 2, d=2)),
]
COLS = RNG.normal(size=(2, 27, 9)).astype("float32")
# Keras's fold takes several seconds a call (a Python loop of scatters per kernel tap): numpy is the reference
NUMPY_ONLY = [
    (
        "fold",
        (_unfold_reference(NCHW, 2).astype("float32"), (5, 6), 2),
        {},
        lambda: _fold_reference(_unfold_reference(NCHW, 2), (5, 6), 2),
    ),
    ("fold", (COLS, (5, 6), 3), {"padding": 1, "stride": 2}, lambda: _fold_reference(COLS, (5, 6), 3, p=1, s=2)),
]


@pytest.mark.parametrize("name, args, kwargs, reference", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_conv_pool_patches_match_keras(name, args, kwargs, reference):
    check_op(getattr(ops, name), keras_op(name), args, kwargs, reference, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "name, args, kwargs, reference", NUMPY_ONLY, ids=[f"{c[0]}-{i}" for i, c in enumerate(NUMPY_ONLY)]
)
def test_fold_matches_numpy(name, args, kwargs, reference):
    check_op(getattr(ops, name), None, args, kwargs, reference, rtol=1e-4, atol=1e-4)


def test_fold_sums_what_unfold_spread():
    """fold(unfold(x)) counts each pixel once per block that covers it."""
    cols = ops.unfold(NCHW, 3, padding=1)
    ones = ops.fold(ops.unfold(np.ones_like(NCHW), 3, padding=1), (5, 6), 3, padding=1)
    np.testing.assert_allclose(ops.fold(cols, (5, 6), 3, padding=1).numpy(), NCHW * ones.numpy(), rtol=1e-5)


def test_conv_with_strides_and_dilation_where_tensorflow_refuses():
    """tf.nn.convolution refuses strides > 1 with dilation > 1; tfkit spreads the kernel instead."""
    got = ops.conv(IMG, K2, strides=2, dilation_rate=2).numpy()
    np.testing.assert_allclose(got, _conv2d_reference(IMG, K2, stride=2, dilation=2), rtol=1e-4, atol=1e-4)


def test_conv_transpose_with_dilation_on_cpu():
    """TensorFlow's CPU kernels reject dilated transposed convolutions: it is the gradient of a dilated conv."""
    x = tf.constant(RNG.normal(size=(1, 9, 9, 4)).astype("float32"))
    kernel = tf.constant(RNG.normal(size=(3, 3, 4, 2)).astype("float32"))  # conv kernel: (3, 3, in=4, out=2)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = ops.conv(x, kernel, dilation_rate=2)
    upstream = tf.constant(RNG.normal(size=y.shape).astype("float32"))
    expected = tape.gradient(y, x, output_gradients=upstream)
    got = ops.conv_transpose(upstream, kernel, dilation_rate=2)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-4, atol=1e-4)


def test_grouped_conv():
    """Input channels a multiple of the kernel's: a grouped convolution, one group at a time."""
    x = RNG.normal(size=(1, 5, 5, 4)).astype("float32")
    kernel = RNG.normal(size=(3, 3, 2, 6)).astype("float32")
    got = ops.conv(x, kernel, padding="same").numpy()
    first = ops.conv(x[..., :2], kernel[..., :3], padding="same").numpy()
    second = ops.conv(x[..., 2:], kernel[..., 3:], padding="same").numpy()
    np.testing.assert_allclose(got, np.concatenate([first, second], -1), rtol=1e-5)


SAVED = [
    ("conv", [(6, 6, 3)], lambda x: ops.conv(x, K2, strides=2, padding="same")),
    ("depthwise_conv", [(6, 6, 3)], lambda x: ops.depthwise_conv(x, DW2, padding="same")),
    ("separable_conv", [(6, 6, 3)], lambda x: ops.separable_conv(x, DW2, PW2)),
    ("conv_transpose", [(6, 6, 3)], lambda x: ops.conv_transpose(x, KT2, strides=2, padding="same")),
    ("conv_transpose-dilated", [(6, 6, 3)], lambda x: ops.conv_transpose(x, KT2, dilation_rate=2)),
    ("max_pool", [(3, 6, 6)], lambda x: ops.max_pool(x, 2, data_format="channels_first")),
    ("average_pool", [(6, 6, 3)], lambda x: ops.average_pool(x, 3, strides=2, padding="same")),
    ("adaptive_average_pool", [(6, 6, 3)], lambda x: ops.adaptive_average_pool(x, (4, 4))),
    ("adaptive_max_pool", [(6, 6, 3)], lambda x: ops.adaptive_max_pool(x, 5)),
    ("space_to_depth", [(6, 6, 3)], lambda x: ops.space_to_depth(x, 2)),
    ("depth_to_space", [(6, 6, 3)], lambda x: ops.depth_to_space(ops.space_to_depth(x, 3), 3)),
    ("unfold", [(6, 6, 3)], lambda x: ops.unfold(x, 2, stride=2)),
    ("fold", [(6, 6, 3)], lambda x: ops.fold(ops.unfold(x, 2), (6, 3), 2)),
]


@pytest.mark.parametrize("name, shapes, build", SAVED, ids=[s[0] for s in SAVED])
def test_conv_op_in_a_saved_functional_model(tmp_path, name, shapes, build):
    data = [IMG if shape == (6, 6, 3) else IMG_CF[:, :, :6, :6] for shape in shapes]
    check_saved_op(tmp_path, build, shapes, data, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ops.conv(IMG, K2, padding="full"), "padding must be 'valid' or 'same'"),
        (lambda: ops.conv(IMG, K2, data_format="nhwc"), "data_format must be"),
        (lambda: ops.conv(IMG[0, 0], K2), "inputs must have rank 3 or 4 or 5"),
        (lambda: ops.conv(IMG, K2, strides=0), "strides must be a positive int"),
        (lambda: ops.conv(IMG, K2[:, :, :2]), "not a multiple of the kernel's input channels"),
        (lambda: ops.depthwise_conv(IMG, DW2[:, :, :2]), "inputs have 3 channels but kernel"),
        (lambda: ops.depthwise_conv(VOL, DW2), "inputs must have rank 3 or 4"),
        (lambda: ops.conv_transpose(IMG, KT2[..., :2]), "inputs have 3 channels"),
        (lambda: ops.max_pool(IMG, (2, 2, 2)), "pool_size must be a positive int or 2"),
        (lambda: ops.adaptive_max_pool(IMG, 0), "output_size must be a positive int"),
        (lambda: ops.depth_to_space(IMG, 2), "not divisible by block_size"),
        (lambda: ops.depth_to_space(IMG, 1), "block_size must be an int >= 2"),
        (lambda: ops.space_to_depth(IMG[:, :5], 2), "height 5 is not divisible"),
        (lambda: ops.unfold(IMG[0], 2), "x must have rank 4"),
        (lambda: ops.fold(np.ones((1, 8, 4), "float32"), (5, 5), 2), "gives 16 blocks"),
        (lambda: ops.fold(np.ones((1, 7, 4), "float32"), (3, 3), 2), "not divisible by kernel_size product"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_adaptive_pool_needs_static_spatial_sizes():
    @tf.function(input_signature=[tf.TensorSpec((None, None, None, 3))])
    def pool(x):
        return ops.adaptive_average_pool(x, 2)

    with pytest.raises(ValueError, match="no static size"):
        pool.get_concrete_function()
