"""tfkit.ops.image: Keras 3's ``keras.ops.image``, checked by hand, against numpy/scipy and against Keras."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import ops
from tfkit.layers import op_names

RNG = np.random.default_rng(0)
X = RNG.uniform(0, 1, (2, 7, 9, 3)).astype("float32")
T = np.array([[1.0, 0.1, 0.5, 0.05, 1.0, -0.5, 0.01, 0.0], [0.9, -0.2, 1.5, 0.3, 1.1, -1.5, 0.0, 0.02]], "float32")
START = np.array([[[0, 0], [8, 0], [0, 6], [8, 6]]] * 2, "float32")
END = START + RNG.uniform(-1, 1, START.shape).astype("float32")
COORDS = np.stack(np.meshgrid(np.linspace(-2.3, 8.6, 5), np.linspace(-3.1, 10.7, 6), indexing="ij")).astype("float32")
VOLUMES = RNG.uniform(0, 1, (2, 4, 6, 6, 2)).astype("float32")


def _grid(*shape):
    return np.arange(np.prod(shape), dtype="float32").reshape(shape)


# -------------------------------------------------------------- the Keras table
# (case id, op name, positional args, keyword args); the same call goes to keras.ops.image.

CASES = [
    ("rgb_to_grayscale", "rgb_to_grayscale", (X,), {}),
    ("rgb_to_grayscale_first", "rgb_to_grayscale", (X.transpose(0, 3, 1, 2),), dict(data_format="channels_first")),
    ("rgb_to_hsv", "rgb_to_hsv", (X,), {}),
    ("hsv_to_rgb", "hsv_to_rgb", (X[0],), {}),
    ("resize", "resize", (X, (4, 5)), {}),
    ("resize_crop", "resize", (X, (4, 4)), dict(crop_to_aspect_ratio=True, interpolation="nearest")),
    ("resize_pad", "resize", (X, (5, 4)), dict(pad_to_aspect_ratio=True, fill_value=2.0)),
    ("resize_bicubic_antialias", "resize", (X[0], (3, 4)), dict(interpolation="bicubic", antialias=True)),
    ("resize_first", "resize", (X.transpose(0, 3, 1, 2), (5, 3)), dict(data_format="channels_first")),
    ("affine_transform", "affine_transform", (X, T), {}),
    ("affine_transform_reflect", "affine_transform", (X, T[0]), dict(fill_mode="reflect", interpolation="nearest")),
    ("affine_transform_wrap", "affine_transform", (X[0], T[1]), dict(fill_mode="wrap", fill_value=0.5)),
    ("extract_patches", "extract_patches", (X, 2), {}),
    ("extract_patches_same", "extract_patches", (X, (3, 2)), dict(strides=(2, 1), padding="same")),
    ("extract_patches_dilated", "extract_patches", (X[0], (2, 2)), dict(strides=1, dilation_rate=2)),
    ("extract_patches_volume", "extract_patches", (VOLUMES, (2, 3, 3)), {}),
    ("extract_patches_3d", "extract_patches_3d", (VOLUMES, 2), dict(strides=(1, 2, 2), padding="same")),
    ("extract_patches_3d_dilated", "extract_patches_3d", (VOLUMES[0], 2), dict(strides=1, dilation_rate=(1, 2, 2))),
    ("pad_images", "pad_images", (X, 1, 2, 3, 0), {}),
    ("pad_images_target", "pad_images", (X,), dict(top_padding=1, target_height=10, left_padding=0, right_padding=2)),
    ("crop_images", "crop_images", (X, 1, 2, 3, 0), {}),
    (
        "crop_images_target",
        "crop_images",
        (X[0],),
        dict(top_cropping=1, target_height=4, right_cropping=2, target_width=3),
    ),
    ("perspective_transform", "perspective_transform", (X, START, END), {}),
    (
        "perspective_transform_nearest",
        "perspective_transform",
        (X[0], START[0], END[0]),
        dict(interpolation="nearest", fill_value=1.0),
    ),
    ("gaussian_blur", "gaussian_blur", (X,), {}),
    ("gaussian_blur_sigmas", "gaussian_blur", (X,), dict(kernel_size=(5, 5), sigma=(0.7, 2.0))),
    (
        "map_coordinates_linear",
        "map_coordinates",
        (X[0, :, :, 0], COORDS, 1),
        dict(fill_mode="constant", fill_value=0.5),
    ),
    ("map_coordinates_nearest", "map_coordinates", (X[0, :, :, 0], COORDS, 0), dict(fill_mode="nearest")),
    ("map_coordinates_wrap", "map_coordinates", (X[0, :, :, 0], COORDS, 1), dict(fill_mode="wrap")),
    ("scale_and_translate", "scale_and_translate", (X, (2, 4, 6, 3), (0.5, 0.7), (0.0, 0.2), (1, 2), "linear"), {}),
    (
        "scale_and_translate_cubic",
        "scale_and_translate",
        (X[0], (12, 14, 3), (1.7, 1.5), (0.3, -0.2), (0, 1), "bicubic"),
        {},
    ),
    (
        "scale_and_translate_lanczos",
        "scale_and_translate",
        (X, (2, 5, 5, 3), (0.7, 0.6), (0.3, -0.2), (1, 2), "lanczos3"),
        dict(antialias=False),
    ),
    ("sobel_edges", "sobel_edges", (X,), {}),
    ("ssim", "ssim", (X, X * 0.8 + 0.1), dict(filter_size=3)),
    ("ssim_single", "ssim", (X[0], X[1]), dict(filter_size=5, max_val=2.0)),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_keras(case):
    keras = pytest.importorskip("keras")
    _, name, args, kwargs = case
    ours = getattr(ops.image, name)(*args, **kwargs)
    theirs = np.asarray(getattr(keras.ops.image, name)(*args, **kwargs))
    assert ours.shape == theirs.shape and ours.dtype == tf.as_dtype(theirs.dtype)
    np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-5, atol=1e-5)


DTYPE_CASES = [
    ("rgb_to_grayscale", lambda x: (x,), {}),
    ("resize", lambda x: (x, (4, 6)), {}),
    ("affine_transform", lambda x: (x, T), dict(interpolation="nearest")),
    ("extract_patches", lambda x: (x, 2), {}),
    ("pad_images", lambda x: (x, 1, 1, 1, 1), {}),
    ("crop_images", lambda x: (x, 1, 1, 1, 1), {}),
    ("perspective_transform", lambda x: (x, START, END), {}),
    ("map_coordinates", lambda x: (x[0, :, :, 0], COORDS, 1), {}),
    ("gaussian_blur", lambda x: (x,), {}),
    ("ssim", lambda x: (x, x), dict(filter_size=3)),
]


@pytest.mark.parametrize("dtype", ["float16", "float64", "int32", "uint8"])
@pytest.mark.parametrize("case", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_result_dtypes_follow_keras(case, dtype):
    """Each op keeps the input's dtype (integers rounded back); where Keras fails on a dtype, tfkit still works."""
    keras = pytest.importorskip("keras")
    name, make_args, kwargs = case
    x = (X * 255).astype(dtype) if dtype in ("int32", "uint8") else X.astype(dtype)
    ours = getattr(ops.image, name)(*make_args(x), **kwargs)
    assert ours.dtype == tf.as_dtype(dtype)
    try:
        theirs = np.asarray(getattr(keras.ops.image, name)(*make_args(x), **kwargs))
    except Exception:  # Keras's TensorFlow backend refuses e.g. blurring integers; tfkit blurs in float32
        return
    tolerance = 1 if dtype in ("int32", "uint8") else 2e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(ours.numpy().astype("float64"), theirs.astype("float64"), atol=tolerance)


# ---------------------------------------------------------------- by hand


def test_grayscale_hsv_and_resize_by_hand():
    pixels = np.array([[[[162, 68, 10], [4, 207, 232]]]], "uint8")
    gray = ops.image.rgb_to_grayscale(pixels)
    weights = np.array([0.2989, 0.587, 0.114])
    np.testing.assert_array_equal(gray.numpy()[..., 0], np.trunc(pixels @ weights).astype("uint8"))  # [[89, 149]]
    hsv = ops.image.rgb_to_hsv(np.array([[[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]], "float32")).numpy()
    np.testing.assert_allclose(hsv, [[[0.0, 1.0, 1.0], [0.5, 1.0, 0.5]]], atol=1e-6)  # red; half-bright cyan
    x = _grid(1, 4, 4, 2)
    np.testing.assert_array_equal(
        ops.image.resize(x, (8, 8), interpolation="nearest").numpy(), x.repeat(2, axis=1).repeat(2, axis=2)
    )
    np.testing.assert_allclose(ops.image.resize(x, (2, 2)).numpy(), x.reshape(1, 2, 2, 2, 2, 2).mean(axis=(2, 4)))
    big = ops.image.resize(np.full((1, 3, 3, 1), 250, "uint8"), (5, 5), interpolation="bicubic")
    assert big.dtype == tf.uint8 and big.numpy().max() == 250  # bicubic overshoot is rounded and saturated


def test_patches_crop_pad_by_numpy():
    x = _grid(2, 6, 8, 3)
    patches = ops.image.extract_patches(x, (2, 4)).numpy()
    expected = x.reshape(2, 3, 2, 2, 4, 3).transpose(0, 1, 3, 2, 4, 5).reshape(2, 3, 2, 24)  # row, column, channel
    np.testing.assert_array_equal(patches, expected)
    first = ops.image.extract_patches(x.transpose(0, 3, 1, 2), (2, 4), data_format="channels_first").numpy()
    np.testing.assert_array_equal(first, expected.transpose(0, 3, 1, 2))
    v = _grid(1, 4, 4, 4, 1)
    cubes = ops.image.extract_patches_3d(v, 2, dilation_rate=2, strides=1).numpy()  # the conv fallback path
    assert cubes.shape == (1, 2, 2, 2, 8)
    np.testing.assert_array_equal(cubes[0, 1, 0, 1], v[0, 1::2, 0::2, 1::2, 0].reshape(-1))
    np.testing.assert_array_equal(
        ops.image.pad_images(x, 1, 2, 0, 3).numpy(), np.pad(x, [(0, 0), (1, 0), (2, 3), (0, 0)])
    )
    np.testing.assert_array_equal(
        ops.image.crop_images(x, top_cropping=1, left_cropping=2, target_height=3, target_width=4).numpy(),
        x[:, 1:4, 2:6],
    )
    dynamic = tf.function(
        lambda t: ops.image.crop_images(t, 1, 2, 1, 2), input_signature=[tf.TensorSpec((None, None, None, 3))]
    )
    np.testing.assert_array_equal(dynamic(x).numpy(), x[:, 1:5, 2:6])


def test_affine_and_perspective_shift_by_hand():
    x = _grid(1, 4, 5, 1)
    shift = [1, 0, -1, 0, 1, 0, 0, 0]  # output column x reads input column x - 1
    out = ops.image.affine_transform(x, shift, interpolation="nearest", fill_value=-1.0).numpy()
    expected = np.concatenate([np.full((1, 4, 1, 1), -1.0), x[:, :, :-1]], axis=2)
    np.testing.assert_array_equal(out, expected)
    corners = np.array([[0, 0], [4, 0], [0, 3], [4, 3]], "float32")
    np.testing.assert_array_equal(ops.image.perspective_transform(x, corners, corners).numpy(), x)
    moved = ops.image.perspective_transform(x, corners, corners + [1, 0], interpolation="nearest", fill_value=-1.0)
    np.testing.assert_array_equal(moved.numpy(), expected)


def test_gaussian_blur_sobel_and_ssim_by_hand():
    x = RNG.uniform(0, 1, (1, 5, 6, 1)).astype("float32")
    taps = np.exp(-0.5 * np.array([-1.0, 0.0, 1.0]) ** 2)
    kernel = np.outer(taps, taps) / taps.sum() ** 2
    padded = np.pad(x[0, :, :, 0], 1)
    expected = np.array([[(padded[i : i + 3, j : j + 3] * kernel).sum() for j in range(6)] for i in range(5)])
    np.testing.assert_allclose(ops.image.gaussian_blur(x).numpy()[0, :, :, 0], expected, rtol=1e-5)
    ramp = np.tile(np.arange(6, dtype="float32"), (5, 1))[None, :, :, None]
    edges = ops.image.sobel_edges(ramp).numpy()
    assert edges.shape == (1, 5, 6, 1, 2)
    np.testing.assert_allclose(edges[0, 1:-1, 1:-1, 0, 1], 8.0)  # d/dx of slope 1 through [1 2 1] x [-1 0 1]
    np.testing.assert_allclose(edges[0, 1:-1, 1:-1, 0, 0], 0.0)
    assert ops.image.sobel_edges(ramp.astype("int32")).dtype == tf.float32
    np.testing.assert_allclose(ops.image.ssim(X, X, filter_size=5).numpy(), [1.0, 1.0], rtol=1e-5)
    assert ops.image.ssim(X[0], X[0] * 0.5, filter_size=3).shape == ()


MAP_MODES = [
    ("constant", "grid-constant"),
    ("nearest", "nearest"),
    ("wrap", "grid-wrap"),
    ("mirror", "mirror"),
    ("reflect", "reflect"),
]


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("mode", MAP_MODES, ids=[m[0] for m in MAP_MODES])
def test_map_coordinates_matches_scipy(mode, order):
    ndimage = pytest.importorskip("scipy.ndimage")
    inputs = X[0, :, :, 1]
    coords = np.stack([RNG.uniform(-9, 15, (4, 5)), RNG.uniform(-11, 19, (4, 5))]).astype("float32")
    if order == 0:
        coords = np.round(coords) + 0.2  # away from halves, where numpy and TF round differently
    ours = ops.image.map_coordinates(inputs, coords, order, fill_mode=mode[0], fill_value=0.25).numpy()
    expected = ndimage.map_coordinates(inputs, coords, order=order, mode=mode[1], cval=0.25)
    np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-5)


def test_map_coordinates_dtypes_and_integer_coordinates():
    grid = _grid(3, 4)
    ints = np.array([[0, 2, 2], [3, 1, 0]])
    np.testing.assert_array_equal(ops.image.map_coordinates(grid, ints, 1).numpy(), grid[ints[0], ints[1]])
    pixels = ops.image.map_coordinates(grid.astype("uint8"), [[0.4, 1.6], [0.5, 2.5]], 1)
    assert pixels.dtype == tf.uint8
    np.testing.assert_array_equal(pixels.numpy(), np.round([0.4 * 4 + 0.5, 1.6 * 4 + 2.5]))  # rounded back
    mask = ops.image.map_coordinates(grid > 5, [[1.0, 2.0], [3.0, 0.0]], 0)
    assert mask.dtype == tf.bool and mask.numpy().tolist() == [True, True]


def test_scale_and_translate_by_hand():
    x = _grid(1, 6, 4, 1)
    same = ops.image.scale_and_translate(x, (1, 6, 4, 1), (1.0, 1.0), (0.0, 0.0), (1, 2), "cubic")
    np.testing.assert_allclose(same.numpy(), x, atol=1e-5)
    half = ops.image.scale_and_translate(x, (1, 3, 2, 1), (0.5, 0.5), (0.0, 0.0), (1, 2), "linear", antialias=False)
    np.testing.assert_allclose(half.numpy(), x.reshape(1, 3, 2, 2, 2, 1).mean(axis=(2, 4)), atol=1e-5)
    shifted = ops.image.scale_and_translate(x, (1, 6, 4, 1), (1.0, 1.0), (2.0, 0.0), (1, 2), "linear")
    np.testing.assert_allclose(shifted.numpy()[0, 2:], x[0, :4], atol=1e-5)  # rows moved down by two
    np.testing.assert_allclose(shifted.numpy()[0, :2], 0.0)  # uncovered rows are zero
    ints = ops.image.scale_and_translate(x.astype("int32"), (1, 3, 2, 1), (0.5, 0.5), (0.0, 0.0), (1, 2), "bicubic")
    assert ints.dtype == tf.int32 and ints.numpy().min() >= 0 and ints.numpy().max() <= 23


def test_elastic_transform_seeds_identity_and_independent_axes():
    x = RNG.uniform(0, 255, (2, 12, 10, 3)).astype("float32")
    a = ops.image.elastic_transform(x, alpha=4.0, sigma=2.0, seed=3).numpy()
    np.testing.assert_array_equal(ops.image.elastic_transform(x, alpha=4.0, sigma=2.0, seed=3).numpy(), a)
    assert not np.allclose(ops.image.elastic_transform(x, alpha=4.0, sigma=2.0, seed=4).numpy(), a)
    np.testing.assert_allclose(ops.image.elastic_transform(x, alpha=0.0, sigma=2.0, seed=3).numpy(), x, rtol=1e-6)
    generator = tfkit.random.SeedGenerator(1)
    first = ops.image.elastic_transform(x, 4.0, 2.0, seed=generator).numpy()
    assert not np.allclose(ops.image.elastic_transform(x, 4.0, 2.0, seed=generator).numpy(), first)
    rows, cols = np.meshgrid(np.arange(30.0), np.arange(30.0), indexing="ij")
    coordinates = np.stack([rows, cols], -1)[None].astype("float32")
    moved = ops.image.elastic_transform(coordinates, alpha=30.0, sigma=3.0, fill_mode="nearest", seed=5).numpy()[0]
    dy, dx = (moved - coordinates[0])[8:-8, 8:-8].transpose(2, 0, 1)
    assert np.abs(dy).mean() > 0.1 and np.abs(dx).mean() > 0.1
    assert np.corrcoef(dy.ravel(), dx.ravel())[0, 1] < 0.9  # x and y move independently (Keras reuses one draw)
    pixels = ops.image.elastic_transform(x.astype("uint8"), seed=1)
    assert pixels.dtype == tf.uint8


# ---------------------------------------------------------------- errors

ERRORS = [
    (lambda: ops.image.resize(X, (4,)), ValueError, "size must be a pair"),
    (lambda: ops.image.resize(X, (0, 4)), ValueError, "positive height and width"),
    (lambda: ops.image.resize(X, (4, 4), interpolation="cubic"), ValueError, "interpolation must be one of"),
    (lambda: ops.image.resize(X, (4, 4), fill_mode="reflect"), ValueError, "fill_mode='constant'"),
    (lambda: ops.image.resize(X, (4, 4), crop_to_aspect_ratio=True, pad_to_aspect_ratio=True), ValueError, "only one"),
    (lambda: ops.image.resize(X[0, 0], (4, 4)), ValueError, r"images of rank 3 .* got shape \(9, 3\)"),
    (lambda: ops.image.resize(X, (4, 4), data_format="NHWC"), ValueError, "data_format"),
    (lambda: ops.image.resize(X > 0.5, (4, 4)), TypeError, "integer or floating dtype, got bool"),
    (lambda: ops.image.rgb_to_grayscale(np.ones((2, 4, 4, 4))), ValueError, "3 .RGB. or 1 .grayscale. channels"),
    (lambda: ops.image.rgb_to_hsv(np.ones((4, 4, 3), "uint8")), ValueError, "floating dtype"),
    (lambda: ops.image.hsv_to_rgb(np.ones((4, 4, 2), "float32")), ValueError, "expected 3 channels"),
    (lambda: ops.image.extract_patches(X, "2"), TypeError, "size must be an int"),
    (lambda: ops.image.extract_patches(X, (1, 2, 2, 1)), ValueError, "size must have length 2"),
    (lambda: ops.image.extract_patches(X, 2, padding="full"), ValueError, "padding must be 'valid' or 'same'"),
    (lambda: ops.image.extract_patches_3d(X[0], 2), ValueError, "volumes of rank 4"),
    (lambda: ops.image.pad_images(X, top_padding=1), ValueError, "exactly two of top_padding, bottom_padding"),
    (lambda: ops.image.pad_images(X, 1, 1, None, None, 5, 12), ValueError, "bottom_padding must be >= 0"),
    (lambda: ops.image.crop_images(X, -1, 0, 0, 0), ValueError, "top_cropping must be >= 0"),
    (lambda: ops.image.crop_images(X, 3, 0, None, 0, 6), ValueError, "needs images at least 9 high"),
    (lambda: ops.image.affine_transform(X, np.ones(7)), ValueError, r"transform must have shape \(8,\)"),
    (lambda: ops.image.affine_transform(X, T, fill_mode="mirror"), ValueError, "fill_mode must be one of"),
    (lambda: ops.image.perspective_transform(X, np.ones((3, 2)), np.ones((3, 2))), ValueError, "start_points"),
    (lambda: ops.image.perspective_transform(X, START, END[0]), ValueError, "the same shape"),
    (lambda: ops.image.map_coordinates(X[0, :, :, 0], COORDS[:1], 1), ValueError, "one row per axis of inputs"),
    (lambda: ops.image.map_coordinates(X[0, :, :, 0], COORDS, 3), NotImplementedError, "order must be 0"),
    (lambda: ops.image.map_coordinates(X[0, :, :, 0], COORDS, 1, "edge"), ValueError, "fill_mode must be one of"),
    (lambda: ops.image.gaussian_blur(X, kernel_size=(0, 3)), ValueError, "kernel_size must hold positive"),
    (lambda: ops.image.gaussian_blur(X, sigma=-1.0), ValueError, "sigma must be positive"),
    (lambda: ops.image.scale_and_translate(X, X.shape, (1, 1), (0, 0), (1, 2), "box"), ValueError, "method"),
    (lambda: ops.image.scale_and_translate(X, X.shape, (1,), (0, 0), (1, 2), "linear"), ValueError, "scale needs"),
    (lambda: ops.image.sobel_edges(X[0]), ValueError, "rank 4"),
    (lambda: ops.image.ssim(X, X[:, :5], filter_size=3), ValueError, "the same shape"),
    (lambda: ops.image.ssim(X, X), ValueError, "at least filter_size=11 high and wide"),
    (lambda: ops.image.elastic_transform(X, interpolation="bicubic"), ValueError, "interpolation"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_bad_arguments_name_the_argument(index):
    call, error, message = ERRORS[index]
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------- graphs, XLA and saved models


@pytest.mark.parametrize("jit", [False, True])
def test_warps_compile_under_tf_function_and_xla(jit):
    step = tf.function(
        lambda x: (
            ops.image.affine_transform(x, T, fill_mode="reflect"),
            ops.image.perspective_transform(x, START, END),
            ops.image.gaussian_blur(x),
            ops.image.rgb_to_grayscale(x),
        ),
        jit_compile=jit,
    )
    for got, expected in zip(
        step(tf.constant(X)),
        (
            ops.image.affine_transform(X, T, fill_mode="reflect"),
            ops.image.perspective_transform(X, START, END),
            ops.image.gaussian_blur(X),
            ops.image.rgb_to_grayscale(X),
        ),
    ):
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-4, atol=1e-4)


SYMBOLIC = {
    "rgb_to_grayscale": lambda x: ops.image.rgb_to_grayscale(x),
    "rgb_to_hsv": lambda x: ops.image.rgb_to_hsv(x),
    "hsv_to_rgb": lambda x: ops.image.hsv_to_rgb(x),
    "resize": lambda x: ops.image.resize(x, (4, 5), crop_to_aspect_ratio=True),
    "affine_transform": lambda x: ops.image.affine_transform(x, T[0], fill_mode="wrap"),
    "extract_patches": lambda x: ops.image.extract_patches(x, (2, 3), padding="same"),
    "extract_patches_3d": lambda x: ops.image.extract_patches_3d(ops.numpy.expand_dims(x, 1), (1, 2, 2)),
    "pad_images": lambda x: ops.image.pad_images(x, 1, 2, 0, 1),
    "crop_images": lambda x: ops.image.crop_images(x, 1, 2, 1, 2),
    "perspective_transform": lambda x: ops.image.perspective_transform(x, START[0], END[0]),
    "gaussian_blur": lambda x: ops.image.gaussian_blur(x, (5, 3), (1.5, 0.5)),
    "map_coordinates": lambda x: ops.image.map_coordinates(
        x,
        np.stack(
            [np.zeros((4, 4))]
            + list(np.meshgrid(np.linspace(0, 6, 4), np.linspace(0, 8, 4), indexing="ij"))
            + [np.ones((4, 4))]
        ),
        1,
    ),
    "elastic_transform": lambda x: ops.image.elastic_transform(x, 3.0, 1.0, seed=2),
    "scale_and_translate": lambda x: ops.image.scale_and_translate(
        x, (2, 5, 6, 3), (0.7, 0.7), (0.0, 0.5), (1, 2), "lanczos3"
    ),
    "sobel_edges": lambda x: ops.image.sobel_edges(x),
    "ssim": lambda x: ops.image.ssim(x, ops.image.gaussian_blur(x), filter_size=3),
}


def test_every_keras_image_op_is_here():
    keras = pytest.importorskip("keras")
    names = {n for n in dir(keras.ops.image) if not n.startswith("_")}
    assert names == set(ops.image.__all__) == set(SYMBOLIC)


@pytest.mark.parametrize("name", sorted(SYMBOLIC))
def test_symbolic_call_records_a_node_whose_config_rebuilds_it(name):
    inputs = tfkit.Input((7, 9, 3), batch_size=2)  # scale_and_translate's output shape names the batch
    model = tfkit.Model(inputs, SYMBOLIC[name](inputs))
    recorded = [l.get_config()["function"] for l in model.layers if isinstance(l, tfkit.layers.TFOpLambda)]
    recorded_as = {"extract_patches_3d": "extract_patches"}.get(name, name)  # as Keras 3 records it (ExtractPatches)
    assert f"tfkit.ops.image.{recorded_as}" in recorded
    expected = SYMBOLIC[name](X).numpy()
    np.testing.assert_allclose(model(X).numpy(), expected, rtol=1e-5, atol=1e-5)
    rebuilt = tfkit.Model.from_config(json.loads(json.dumps(model.get_config())))
    np.testing.assert_allclose(rebuilt(X).numpy(), expected, rtol=1e-5, atol=1e-5)


def test_a_model_of_every_image_op_saves_and_reloads(tmp_path):
    inputs = tfkit.Input((7, 9, 3), batch_size=2)
    names = sorted(SYMBOLIC)
    model = tfkit.Model(inputs, [SYMBOLIC[name](inputs) for name in names])
    model.save(tmp_path / "image_ops.h5")
    loaded = tfkit.load_model(tmp_path / "image_ops.h5")
    for name, got in zip(names, loaded(X)):
        np.testing.assert_allclose(got.numpy(), SYMBOLIC[name](X).numpy(), rtol=1e-5, atol=1e-5, err_msg=name)


def test_op_names_resolve_submodules_and_refuse_unknown_ones():
    assert op_names.resolve("tfkit.ops.image.resize") is ops.image.resize
    assert op_names.resolve("tfkit.ops.mean") is ops.mean
    with pytest.raises(ValueError, match="no submodule 'nothing'"):
        op_names.resolve("tfkit.ops.nothing.resize")
    with pytest.raises(ValueError, match="no submodule 'tf'"):
        op_names.resolve("tfkit.ops.tf.io.read_file")
    with pytest.raises(ValueError, match="Unknown tfkit operation"):
        op_names.resolve("tfkit.ops.image.image_common")


# ------------------------------------------------------- keras-io style use


class Patches(tfkit.layers.Layer):
    """keras-io vision/image_classification_with_vision_transformer, ported with keras -> tfkit."""

    def __init__(self, patch_size, **kwargs):
        super().__init__(**kwargs)
        self.patch_size = patch_size

    def call(self, images):
        shape = ops.shape(images)
        patches = ops.image.extract_patches(images, size=self.patch_size)
        n = (shape[1] // self.patch_size) * (shape[2] // self.patch_size)
        return ops.reshape(patches, (shape[0], n, self.patch_size * self.patch_size * shape[3]))


def test_vit_patches_and_resize_in_a_trained_model(tmp_path):
    images = RNG.uniform(0, 1, (8, 12, 12, 3)).astype("float32")
    inputs = tfkit.Input((12, 12, 3))
    resized = ops.image.resize(inputs, (16, 16))
    tokens = Patches(4)(resized)
    outputs = tfkit.layers.Dense(1)(tfkit.layers.GlobalAveragePooling1D()(tokens))
    model = tfkit.Model(inputs, outputs)
    model.compile("adam", "mse")
    model.fit(images, np.ones((8, 1), "float32"), epochs=1, verbose=0)
    direct = Patches(4)(ops.image.resize(images, (16, 16))).numpy()
    np.testing.assert_array_equal(direct[0, 1], ops.image.resize(images, (16, 16)).numpy()[0, :4, 4:8].reshape(-1))
    config = json.loads(json.dumps(model.get_config()))
    assert "tfkit.ops.image.resize" in json.dumps(config)
