"""Convolution layers against numpy convolutions written out as loops over tiny inputs."""

import json

import numpy as np
import pytest
import tensorflow as tf

from tfkit import layers, regularizers
from tfkit.base import registry
from tfkit.engine import masking

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape)


# ---------------------------------------------------------------- references
# All references take channels-last float64 arrays and loop over every output
# position and every kernel tap.


def same_pads(length, window, stride):
    """TensorFlow's SAME padding: keep ceil(length / stride) outputs, odd padding after."""
    out = -(-length // stride)
    total = max((out - 1) * stride + window - length, 0)
    return total // 2, total - total // 2


def np_pad_input(x, windows, strides, padding):
    if padding == "same":
        pads = [same_pads(n, w, s) for n, w, s in zip(x.shape[1:-1], windows, strides)]
    elif padding == "causal":
        pads = [(windows[0] - 1, 0)]
    else:
        pads = [(0, 0)] * len(windows)
    return np.pad(x, [(0, 0), *pads, (0, 0)])


def np_conv(x, w, strides, padding, dilation=None, groups=1):
    """Direct N-D convolution; w is (*k, in // groups, filters)."""
    rank = x.ndim - 2
    dilation = dilation or (1,) * rank
    ksize = w.shape[:rank]
    windows = [(k - 1) * d + 1 for k, d in zip(ksize, dilation)]
    x = np_pad_input(x, windows, strides, padding)
    out = [(n - win) // s + 1 for n, win, s in zip(x.shape[1:-1], windows, strides)]
    cin, filters = w.shape[-2], w.shape[-1]
    per_group = filters // groups
    y = np.zeros((x.shape[0], *out, filters))
    for b in range(x.shape[0]):
        for pos in np.ndindex(*out):
            for f in range(filters):
                g = f // per_group
                total = 0.0
                for tap in np.ndindex(*ksize):
                    idx = tuple(p * s + t * d for p, s, t, d in zip(pos, strides, tap, dilation))
                    for c in range(cin):
                        total += x[(b, *idx, g * cin + c)] * w[(*tap, c, f)]
                y[(b, *pos, f)] = total
    return y


def keras_transpose_length(n, k, s, padding, output_padding, d=1):
    """The output length formula Keras documents for transposed convolutions."""
    k = (k - 1) * d + 1
    if padding == "valid":
        extra = max(k, s) - k if output_padding is None else output_padding
        return (n - 1) * s + k + extra
    return n * s if output_padding is None else (n - 1) * s + k % 2 + output_padding


def np_conv_transpose(x, w, strides, padding, output_padding=None, dilation=None):
    """Scatter every input value through the kernel, then crop like TF's SAME/VALID; w is (*k, filters, in)."""
    rank = x.ndim - 2
    dilation = dilation or (1,) * rank
    ksize = w.shape[:rank]
    filters = w.shape[-2]
    full = [(n - 1) * s + (k - 1) * d + 1 for n, s, k, d in zip(x.shape[1:-1], strides, ksize, dilation)]
    y_full = np.zeros((x.shape[0], *full, filters))
    for b in range(x.shape[0]):
        for pos in np.ndindex(*x.shape[1:-1]):
            for tap in np.ndindex(*ksize):
                idx = tuple(p * s + t * d for p, s, t, d in zip(pos, strides, tap, dilation))
                for f in range(filters):
                    for c in range(x.shape[-1]):
                        y_full[(b, *idx, f)] += x[(b, *pos, c)] * w[(*tap, f, c)]
    ops = output_padding or (None,) * rank
    out = [
        keras_transpose_length(n, k, s, padding, op, d)
        for n, k, s, op, d in zip(x.shape[1:-1], ksize, strides, ops, dilation)
    ]
    y = np.zeros((x.shape[0], *out, filters))
    slices = []
    for n, o, s, k, d, f in zip(x.shape[1:-1], out, strides, ksize, dilation, full):
        before = 0 if padding == "valid" else max((n - 1) * s + (k - 1) * d + 1 - o, 0) // 2
        slices.append((before, min(f, before + o)))
    src = y_full[(slice(None), *[slice(a, b) for a, b in slices])]
    y[(slice(None), *[slice(0, b - a) for a, b in slices])] = src
    return y


def np_depthwise(x, w, strides, padding, dilation=(1, 1)):
    """Channel c, multiplier m -> output channel c * M + m; w is (kh, kw, in, M)."""
    kh, kw, cin, mult = w.shape
    windows = [(kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1]
    x = np_pad_input(x, windows, strides, padding)
    oh = (x.shape[1] - windows[0]) // strides[0] + 1
    ow = (x.shape[2] - windows[1]) // strides[1] + 1
    y = np.zeros((x.shape[0], oh, ow, cin * mult))
    for b, i, j, c, m in np.ndindex(x.shape[0], oh, ow, cin, mult):
        for a, e in np.ndindex(kh, kw):
            y[b, i, j, c * mult + m] += (
                x[b, i * strides[0] + a * dilation[0], j * strides[1] + e * dilation[1], c] * w[a, e, c, m]
            )
    return y


def built(layer, shape, dtype="float32"):
    layer(tf.zeros(shape, dtype))
    return layer


def set_random_weights(layer):
    values = [rand(*w.shape) for w in layer.weights]
    layer.set_weights(values)
    return values


# ---------------------------------------------------------- forward numbers


@pytest.mark.parametrize(
    "rank, kwargs, in_shape",
    [
        (1, dict(filters=3, kernel_size=3), (2, 7, 2)),
        (1, dict(filters=2, kernel_size=2, strides=2, padding="same"), (1, 7, 3)),
        (1, dict(filters=2, kernel_size=3, padding="causal", dilation_rate=2), (1, 8, 2)),
        (2, dict(filters=3, kernel_size=3), (2, 5, 6, 2)),
        (2, dict(filters=2, kernel_size=(2, 3), strides=(2, 1), padding="same"), (1, 5, 6, 3)),
        (2, dict(filters=2, kernel_size=3, strides=2, padding="same"), (1, 6, 6, 1)),
        (2, dict(filters=2, kernel_size=2, dilation_rate=(2, 1), padding="same"), (1, 5, 5, 2)),
        (2, dict(filters=4, kernel_size=2, groups=2), (1, 4, 4, 4)),
        (3, dict(filters=2, kernel_size=2, strides=(1, 2, 1)), (1, 3, 4, 3, 2)),
        (3, dict(filters=2, kernel_size=2, padding="same"), (1, 3, 3, 3, 1)),
    ],
)
def test_conv_matches_numpy_loops(rank, kwargs, in_shape):
    cls = {1: layers.Conv1D, 2: layers.Conv2D, 3: layers.Conv3D}[rank]
    layer = built(cls(**kwargs), in_shape)
    kernel, bias = set_random_weights(layer)
    x = rand(*in_shape)
    y = layer(x.astype("float32")).numpy()
    strides = layer.strides
    expected = np_conv(x, kernel, strides, layer.padding, layer.dilation_rate, layer.groups) + bias
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
    assert layer.compute_output_shape((None, *in_shape[1:])) == (None, *y.shape[1:])
    assert layer.compute_output_shape(in_shape) == y.shape


def test_causal_conv_only_looks_back():
    layer = built(layers.Conv1D(1, 3, padding="causal", use_bias=False), (1, 6, 1))
    layer.set_weights([np.ones((3, 1, 1))])
    x = np.zeros((1, 6, 1), "float32")
    x[0, 3, 0] = 1.0
    y = layer(x).numpy()[0, :, 0]
    np.testing.assert_allclose(y, [0, 0, 0, 1, 1, 1])


@pytest.mark.parametrize(
    "rank, kwargs, in_shape",
    [
        (2, dict(filters=2, kernel_size=3, strides=2), (1, 3, 3, 2)),
        (2, dict(filters=2, kernel_size=3, strides=2, padding="same"), (1, 3, 3, 2)),
        (2, dict(filters=2, kernel_size=3, strides=2, padding="same", output_padding=0), (1, 3, 2, 1)),
        (2, dict(filters=2, kernel_size=(2, 3), strides=(2, 3), output_padding=(1, 2)), (2, 2, 3, 2)),
        (2, dict(filters=1, kernel_size=3, strides=(2, 1), padding="same", output_padding=(1, 0)), (1, 3, 3, 2)),
        (2, dict(filters=2, kernel_size=2, strides=1, padding="same"), (1, 3, 4, 1)),
        (2, dict(filters=2, kernel_size=2, dilation_rate=2), (1, 3, 3, 2)),
        (2, dict(filters=2, kernel_size=3, dilation_rate=(1, 2), padding="same"), (1, 3, 4, 1)),
        (2, dict(filters=2, kernel_size=2, strides=3), (1, 2, 2, 1)),
        (1, dict(filters=2, kernel_size=3, strides=2, padding="same"), (2, 4, 3)),
        (3, dict(filters=2, kernel_size=2, strides=2), (1, 2, 2, 1, 2)),
    ],
)
def test_conv_transpose_matches_numpy_scatter(rank, kwargs, in_shape):
    cls = {1: layers.Conv1DTranspose, 2: layers.Conv2DTranspose, 3: layers.Conv3DTranspose}[rank]
    layer = built(cls(**kwargs), in_shape)
    kernel, bias = set_random_weights(layer)
    assert kernel.shape == (*layer.kernel_size, kwargs["filters"], in_shape[-1])
    x = rand(*in_shape)
    y = layer(x.astype("float32")).numpy()
    expected = np_conv_transpose(x, kernel, layer.strides, layer.padding, layer.output_padding, layer.dilation_rate)
    np.testing.assert_allclose(y, expected + bias, rtol=1e-4, atol=1e-4)
    assert layer.compute_output_shape(in_shape) == y.shape
    assert layer.compute_output_shape((None,) * (rank + 1) + in_shape[-1:]) == (None,) * (rank + 1) + (y.shape[-1],)


def test_conv_transpose_known_shapes():
    x = tf.zeros((1, 3, 3, 2))
    assert layers.Conv2DTranspose(4, 3, strides=2)(x).shape == (1, 7, 7, 4)
    assert layers.Conv2DTranspose(4, 3, strides=2, padding="same")(x).shape == (1, 6, 6, 4)
    assert layers.Conv2DTranspose(4, 3, strides=2, output_padding=1)(x).shape == (1, 8, 8, 4)
    assert layers.Conv2DTranspose(4, 1, strides=2)(x).shape == (1, 6, 6, 4)


@pytest.mark.parametrize(
    "layer, out_shape",
    [
        (layers.Conv2DTranspose(2, 3, strides=2, padding="same"), (2, 8, 10, 2)),
        (layers.DepthwiseConv2D(3, strides=(2, 1), padding="same"), (2, 2, 5, 1)),
        (layers.Conv1D(2, 3, padding="causal", data_format="channels_first"), None),
    ],
)
def test_unknown_spatial_dims_in_tf_function(layer, out_shape):
    x = tf.random.normal((2, 4, 5, 1)) if out_shape else tf.random.normal((2, 4, 5))
    spec = tf.TensorSpec((None, None, None, 1)) if out_shape else tf.TensorSpec((None, 4, None))
    f = tf.function(layer, input_signature=[spec])
    np.testing.assert_allclose(f(x).numpy(), layer(x).numpy(), rtol=1e-5, atol=1e-5)
    assert f(x).shape == (out_shape or (2, 2, 5))


@pytest.mark.parametrize(
    "kwargs, in_shape",
    [
        (dict(kernel_size=3), (2, 5, 5, 2)),
        (dict(kernel_size=2, depth_multiplier=2, strides=2, padding="same"), (1, 5, 5, 3)),
        (dict(kernel_size=(2, 3), strides=(1, 2), padding="same"), (1, 5, 6, 2)),
        (dict(kernel_size=3, strides=(2, 1), depth_multiplier=2), (1, 7, 5, 1)),
        (dict(kernel_size=2, dilation_rate=2, padding="same"), (1, 5, 5, 2)),
    ],
)
def test_depthwise_conv_matches_numpy(kwargs, in_shape):
    layer = built(layers.DepthwiseConv2D(**kwargs), in_shape)
    kernel, bias = set_random_weights(layer)
    assert layer.depthwise_kernel is layer.kernel
    x = rand(*in_shape)
    y = layer(x.astype("float32")).numpy()
    expected = np_depthwise(x, kernel, layer.strides, layer.padding, layer.dilation_rate) + bias
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
    assert layer.compute_output_shape(in_shape) == y.shape


@pytest.mark.parametrize(
    "kwargs, in_shape",
    [
        (dict(filters=3, kernel_size=3), (2, 5, 5, 2)),
        (dict(filters=2, kernel_size=2, depth_multiplier=2, strides=2, padding="same"), (1, 5, 5, 3)),
        (dict(filters=2, kernel_size=3, strides=(1, 2)), (1, 5, 6, 2)),
    ],
)
def test_separable_conv_is_depthwise_then_pointwise(kwargs, in_shape):
    layer = built(layers.SeparableConv2D(**kwargs), in_shape)
    assert [w.name.split(":")[0].split("/")[-1] for w in layer.weights] == [
        "depthwise_kernel",
        "pointwise_kernel",
        "bias",
    ]
    depthwise, pointwise, bias = set_random_weights(layer)
    x = rand(*in_shape)
    y = layer(x.astype("float32")).numpy()
    mid = np_depthwise(x, depthwise, layer.strides, layer.padding, layer.dilation_rate)
    expected = np_conv(mid, pointwise, (1, 1), "valid") + bias
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
    assert layer.compute_output_shape(in_shape) == y.shape


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda df: layers.Conv2D(3, 2, strides=(2, 1), padding="same", data_format=df), (2, 3, 5, 4)),
        (lambda df: layers.Conv1D(2, 2, padding="causal", data_format=df), (1, 2, 5)),
        (lambda df: layers.Conv2DTranspose(2, 3, strides=2, data_format=df), (1, 2, 3, 3)),
        (lambda df: layers.DepthwiseConv2D(2, depth_multiplier=2, data_format=df), (1, 2, 4, 4)),
        (lambda df: layers.SeparableConv2D(3, 2, data_format=df), (1, 2, 4, 4)),
    ],
)
def test_channels_first_equals_transposed_channels_last(make, shape):
    first, last = make("channels_first"), make("channels_last")
    perm = [0, *range(2, len(shape)), 1]
    back = [0, len(shape) - 1, *range(1, len(shape) - 1)]
    x = rand(*shape).astype("float32")
    y_first = first(x)
    built(last, tuple(np.array(shape)[perm]))
    last.set_weights(first.get_weights())
    np.testing.assert_allclose(y_first.numpy(), np.transpose(last(np.transpose(x, perm)).numpy(), back), atol=1e-5)
    assert first.compute_output_shape(shape) == y_first.shape


def test_activation_and_no_bias():
    layer = built(layers.Conv2D(2, 2, activation="relu", use_bias=False), (1, 3, 3, 1))
    assert layer.bias is None and len(layer.weights) == 1
    (kernel,) = set_random_weights(layer)
    x = rand(1, 3, 3, 1)
    np.testing.assert_allclose(
        layer(x.astype("float32")).numpy(), np.maximum(np_conv(x, kernel, (1, 1), "valid"), 0), atol=1e-5
    )


def test_weight_names_shapes_and_paths():
    conv = built(layers.Conv2D(4, (3, 2), groups=2), (1, 5, 5, 6))
    assert conv.kernel.shape == (3, 2, 3, 4) and conv.bias.shape == (4,)
    assert list(conv.weight_paths()) == ["kernel", "bias"]
    transpose = built(layers.Conv2DTranspose(5, 3), (1, 4, 4, 2))
    assert transpose.kernel.shape == (3, 3, 5, 2)
    depthwise = built(layers.DepthwiseConv2D(3, depth_multiplier=2), (1, 4, 4, 3))
    assert list(depthwise.weight_paths()) == ["kernel", "bias"] and depthwise.kernel.shape == (3, 3, 3, 2)
    assert depthwise.bias.shape == (6,)
    separable = built(layers.SeparableConv2D(4, 3, depth_multiplier=2), (1, 4, 4, 3))
    assert separable.pointwise_kernel.shape == (1, 1, 6, 4)
    assert layers.Conv2D(1, 1).name.startswith("conv2d")
    assert layers.Conv2DTranspose(1, 1).name.startswith("conv2d_transpose")


# ----------------------------------------------------------------- gradients


def finite_difference(f, value, eps=1e-6):
    grad = np.zeros_like(value)
    for idx in np.ndindex(*value.shape):
        plus, minus = value.copy(), value.copy()
        plus[idx] += eps
        minus[idx] -= eps
        grad[idx] = (f(plus) - f(minus)) / (2 * eps)
    return grad


@pytest.mark.parametrize(
    "make, shape, reference",
    [
        (
            lambda: layers.Conv2D(2, 2, strides=2, padding="same", dtype="float64"),
            (1, 3, 3, 2),
            lambda x, k, layer: np_conv(x, k, layer.strides, layer.padding),
        ),
        (
            lambda: layers.Conv2D(2, 2, groups=2, dtype="float64"),
            (1, 3, 3, 2),
            lambda x, k, layer: np_conv(x, k, (1, 1), "valid", groups=2),
        ),
        (
            lambda: layers.Conv2DTranspose(2, 2, strides=2, padding="same", output_padding=1, dtype="float64"),
            (1, 2, 2, 2),
            lambda x, k, layer: np_conv_transpose(x, k, layer.strides, layer.padding, layer.output_padding),
        ),
        (
            lambda: layers.Conv2DTranspose(1, 2, dilation_rate=2, dtype="float64"),
            (1, 2, 2, 2),
            lambda x, k, layer: np_conv_transpose(x, k, (1, 1), "valid", dilation=(2, 2)),
        ),
        (
            lambda: layers.DepthwiseConv2D(2, strides=(1, 2), padding="same", dtype="float64"),
            (1, 3, 3, 2),
            lambda x, k, layer: np_depthwise(x, k, layer.strides, layer.padding),
        ),
    ],
)
def test_gradients_match_finite_differences_of_numpy_reference(make, shape, reference):
    layer = built(make(), shape, "float64")
    kernel, bias = set_random_weights(layer)
    x = rand(*shape)
    with tf.GradientTape() as tape:
        xt = tf.constant(x)
        tape.watch(xt)
        y = layer(xt)
        weights = tf.constant(rand(*y.shape))
        loss = tf.reduce_sum(y * weights)
    gx, gk, gb = tape.gradient(loss, [xt, layer.kernel, layer.bias])
    w = weights.numpy()

    def loss_of(x_, k_):
        return float(np.sum((reference(x_, k_, layer) + bias) * w))

    np.testing.assert_allclose(gx.numpy(), finite_difference(lambda v: loss_of(v, kernel), x), atol=1e-6)
    np.testing.assert_allclose(gk.numpy(), finite_difference(lambda v: loss_of(x, v), kernel), atol=1e-6)
    np.testing.assert_allclose(gb.numpy(), w.sum(axis=tuple(range(w.ndim - 1))), atol=1e-9)


# --------------------------------------------------------- compiled variants


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda: layers.Conv2D(3, 3, strides=2, padding="same", activation="relu"), (2, 5, 5, 2)),
        (lambda: layers.Conv2D(4, 2, groups=2, data_format="channels_first"), (1, 4, 4, 4)),
        (lambda: layers.Conv2DTranspose(2, 3, strides=2, padding="same", output_padding=1), (1, 3, 3, 2)),
        (lambda: layers.DepthwiseConv2D(3, strides=(2, 1), padding="same"), (1, 5, 5, 2)),
    ],
)
def test_eager_equals_tf_function_equals_jit(make, shape):
    layer = make()
    x = tf.constant(rand(*shape), tf.float32)
    eager = layer(x).numpy()
    graph = tf.function(layer)
    jit = tf.function(layer, jit_compile=True)
    np.testing.assert_allclose(graph(x).numpy(), eager, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(jit(x).numpy(), eager, rtol=1e-4, atol=1e-4)
    graph(x + 1.0)
    jit(x + 1.0)
    assert graph.experimental_get_tracing_count() == 1
    assert jit.experimental_get_tracing_count() == 1


# -------------------------------------------------------------- config, regs


@pytest.mark.parametrize(
    "layer, shape",
    [
        (layers.Conv1D(2, 3, padding="causal", dilation_rate=2, kernel_regularizer="l2", name="c1"), (1, 6, 2)),
        (
            layers.Conv2D(
                4,
                (2, 3),
                strides=(1, 2),
                groups=2,
                activation="tanh",
                use_bias=False,
                kernel_initializer="he_normal",
                kernel_constraint="non_neg",
                activity_regularizer=regularizers.L1(0.1),
            ),
            (1, 4, 5, 2),
        ),
        (layers.Conv3D(2, 2, data_format="channels_first"), (1, 1, 3, 3, 3)),
        (
            layers.Conv2DTranspose(3, 3, strides=2, output_padding=1, padding="same", bias_initializer="ones"),
            (1, 2, 2, 2),
        ),
        (layers.DepthwiseConv2D(2, depth_multiplier=3, depthwise_regularizer=regularizers.L2(0.5)), (1, 3, 3, 2)),
        (layers.SeparableConv2D(2, 2, depth_multiplier=2, pointwise_constraint="max_norm"), (1, 3, 3, 2)),
    ],
)
def test_config_round_trip(layer, shape):
    x = tf.constant(rand(*shape), tf.float32)
    y = layer(x)
    config = layer.get_config()
    as_json = json.loads(json.dumps(config))
    clone = type(layer).from_config(as_json)
    assert json.loads(json.dumps(clone.get_config())) == as_json
    built(clone, shape)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(clone(x).numpy(), y.numpy(), rtol=1e-6)
    assert len(clone.losses) == len(layer.losses)
    assert registry.resolve("layers", {"class_name": type(layer).__name__, "config": config}).name == layer.name


def test_config_lists_keras_arguments():
    config = layers.Conv2D(8, 3, strides=2, padding="SAME").get_config()
    assert config["filters"] == 8 and config["kernel_size"] == (3, 3) and config["strides"] == (2, 2)
    assert config["padding"] == "same" and config["data_format"] == "channels_last"
    assert config["dilation_rate"] == (1, 1) and config["groups"] == 1 and config["activation"] == "linear"
    assert config["kernel_initializer"]["class_name"] == "GlorotUniform"
    assert layers.Conv2DTranspose(2, 3).get_config()["output_padding"] is None
    assert layers.DepthwiseConv2D(3).get_config()["depth_multiplier"] == 1
    assert registry.lookup("layers", "Convolution2D") is layers.Conv2D


def test_kernel_regularizer_adds_loss():
    layer = built(layers.Conv2D(2, 2, kernel_regularizer=regularizers.L2(0.5)), (1, 3, 3, 1))
    expected = 0.5 * np.sum(layer.kernel.numpy() ** 2)
    assert len(layer.losses) == 1
    np.testing.assert_allclose(float(layer.losses[0]), expected, rtol=1e-5)


def test_masks_are_not_passed_on_by_convolutions():
    x = tf.ones((1, 4, 2))
    masking.set_mask(x, tf.constant([[True, True, False, False]]))
    assert masking.get_mask(layers.Conv1D(2, 2)(x)) is None


# -------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: layers.Conv2D(0, 3), "filters"),
        (lambda: layers.Conv2D(2, 0), "kernel_size"),
        (lambda: layers.Conv2D(2, (3, 3, 3)), "kernel_size"),
        (lambda: layers.Conv2D(2, 3, strides=0), "strides"),
        (lambda: layers.Conv2D(2, 3, padding="full"), "padding"),
        (lambda: layers.Conv2D(2, 3, padding="causal"), "padding"),
        (lambda: layers.Conv2D(2, 3, data_format="NHWC"), "data_format"),
        (lambda: layers.Conv2D(2, 3, strides=2, dilation_rate=2), "dilation_rate"),
        (lambda: layers.Conv2D(3, 3, groups=2), "groups"),
        (lambda: layers.Conv2D(3, 3, groups=0), "groups"),
        (lambda: layers.Conv2DTranspose(2, 3, strides=2, output_padding=2), "output_padding"),
        (lambda: layers.DepthwiseConv2D(3, depth_multiplier=0), "depth_multiplier"),
        (lambda: layers.SeparableConv2D(None, 3), "filters"),
    ],
)
def test_bad_constructor_arguments_raise_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_wrong_inputs_raise_errors_naming_the_layer():
    conv = layers.Conv2D(2, 3, name="edge_detector")
    conv(tf.zeros((1, 5, 5, 3)))
    with pytest.raises(ValueError, match="edge_detector.*axis -1.*3"):
        conv(tf.zeros((1, 5, 5, 4)))
    with pytest.raises(ValueError, match="edge_detector.*rank 4"):
        conv(tf.zeros((1, 5, 3)))
    with pytest.raises(ValueError, match="fresh.*rank 4.*rank 3"):  # checked before the first build
        layers.Conv2D(2, 3, name="fresh")(tf.zeros((5, 5, 3)))
    with pytest.raises(ValueError, match="divisible by groups"):
        layers.Conv2D(4, 3, groups=2)(tf.zeros((1, 5, 5, 3)))
    with pytest.raises(ValueError, match="window does not fit"):
        layers.Conv2D(2, 4)(tf.zeros((1, 3, 5, 1)))
    with pytest.raises(ValueError, match="output_padding"):
        layers.Conv2DTranspose(2, 2, strides=2, padding="same", output_padding=0)(tf.zeros((1, 3, 3, 1)))
    first = layers.DepthwiseConv2D(3, data_format="channels_first", name="dw")
    first(tf.zeros((1, 2, 5, 5)))
    with pytest.raises(ValueError, match="dw.*axis 1"):
        first(tf.zeros((1, 3, 5, 5)))


# ------------------------------------------------------- optional Keras check


def test_matches_keras_3_when_installed():
    keras = pytest.importorskip("keras")
    cases = [
        (
            layers.Conv2D(3, 3, strides=2, padding="same"),
            keras.layers.Conv2D(3, 3, strides=2, padding="same"),
            (1, 5, 6, 2),
        ),
        (
            layers.Conv1D(2, 3, padding="causal", dilation_rate=2),
            keras.layers.Conv1D(2, 3, padding="causal", dilation_rate=2),
            (1, 7, 2),
        ),
        (
            layers.Conv2DTranspose(2, 3, strides=2, padding="same", output_padding=1),
            keras.layers.Conv2DTranspose(2, 3, strides=2, padding="same", output_padding=1),
            (1, 3, 3, 2),
        ),
        (
            layers.Conv2DTranspose(2, 2, strides=2, padding="same"),
            keras.layers.Conv2DTranspose(2, 2, strides=2, padding="same"),
            (1, 3, 3, 2),
        ),
        (
            layers.DepthwiseConv2D(2, depth_multiplier=2, padding="same"),
            keras.layers.DepthwiseConv2D(2, depth_multiplier=2, padding="same"),
            (1, 4, 4, 2),
        ),
        (layers.SeparableConv2D(3, 2, strides=2), keras.layers.SeparableConv2D(3, 2, strides=2), (1, 5, 5, 2)),
    ]
    for ours, theirs, shape in cases:
        x = rand(*shape).astype("float32")
        y = ours(x)
        theirs.build(shape)
        theirs.set_weights(ours.get_weights())
        expected = keras.ops.convert_to_numpy(theirs(x))
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-4, atol=1e-4)
        assert ours.compute_output_shape((None, *shape[1:])) == tuple(theirs.compute_output_shape((None, *shape[1:])))


def test_convolution_op_is_the_override_point():
    class StandardizedConv2D(layers.Conv2D):
        def convolution_op(self, inputs, kernel):
            mean, var = tf.nn.moments(kernel, axes=[0, 1, 2], keepdims=True)
            return super().convolution_op(inputs, (kernel - mean) / tf.sqrt(var + 1e-10))

    images = np.random.default_rng(0).random((2, 5, 5, 3)).astype("float32")
    layer = StandardizedConv2D(4, 3, padding="same", use_bias=False)
    got = layer(images).numpy()
    kernel = layer.kernel.numpy()
    standardized = (kernel - kernel.mean(axis=(0, 1, 2), keepdims=True)) / np.sqrt(
        kernel.var(axis=(0, 1, 2), keepdims=True) + 1e-10
    )
    np.testing.assert_allclose(got, tf.nn.conv2d(images, standardized, 1, "SAME").numpy(), rtol=1e-4, atol=1e-5)
    assert not np.allclose(got, tf.nn.conv2d(images, kernel, 1, "SAME").numpy())
