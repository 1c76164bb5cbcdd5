"""tfkit.layers.preprocessing.image: rescaling, resizing, crops and random augmentations, checked by hand."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers

RNG = np.random.default_rng(0)


def _images(*shape):
    return RNG.uniform(0, 255, shape).astype("float32")


def _roundtrip(layer):
    config = json.loads(json.dumps(layer.get_config()))
    clone = type(layer).from_config(config)
    assert clone.get_config() == layer.get_config()
    return clone


def _grid(h, w, c=1):
    """Distinct values 1..h*w*c, so every pixel can be recognised after a move."""
    return np.arange(1, h * w * c + 1, dtype="float32").reshape(h, w, c)


# ------------------------------------------------------------ deterministic


def test_rescaling_matches_numpy_for_floats_ints_and_per_channel_scales():
    x = _images(2, 3, 3, 3)
    np.testing.assert_allclose(layers.Rescaling(1 / 127.5, offset=-1)(x).numpy(), x / 127.5 - 1, rtol=1e-5, atol=1e-6)
    pixels = RNG.integers(0, 256, (2, 3, 3, 3)).astype("uint8")
    y = _roundtrip(layers.Rescaling(1 / 255))(pixels)
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), pixels / 255, rtol=1e-6)
    per_channel = layers.Rescaling([1.0, 0.5, 0.25], offset=[0.0, 1.0, 2.0])
    np.testing.assert_allclose(_roundtrip(per_channel)(x).numpy(), x * [1, 0.5, 0.25] + [0, 1, 2], rtol=1e-6)
    with pytest.raises(ValueError, match="Rescaling layer 'rescaling.*' expected scale"):
        layers.Rescaling("big")


def test_resizing_bilinear_and_nearest_by_hand():
    x = _images(2, 4, 4, 3)
    halves = x.reshape(2, 2, 2, 2, 2, 3).mean(axis=(2, 4))  # bilinear 4 -> 2 averages each 2x2 block
    np.testing.assert_allclose(layers.Resizing(2, 2)(x).numpy(), halves, rtol=1e-5)
    doubled = np.repeat(np.repeat(x, 2, axis=1), 2, axis=2)
    np.testing.assert_array_equal(layers.Resizing(8, 8, interpolation="nearest")(x).numpy(), doubled)
    np.testing.assert_allclose(layers.Resizing(2, 2)(x[0]).numpy(), halves[0], rtol=1e-5)
    assert layers.Resizing(5, 7).compute_output_shape((None, 4, 4, 3)) == (None, 5, 7, 3)
    pixels = np.full((1, 4, 4, 1), 250, "uint8")
    out = layers.Resizing(2, 2)(pixels)
    assert out.dtype == tf.uint8 and (out.numpy() == 250).all()  # integer images keep their dtype, as in Keras


def test_resizing_crop_and_pad_to_aspect_ratio():
    x = _grid(6, 4)[None]
    crop = layers.Resizing(2, 2, interpolation="nearest", crop_to_aspect_ratio=True)
    np.testing.assert_array_equal(crop(x).numpy(), layers.Resizing(2, 2, interpolation="nearest")(x[:, 1:5]).numpy())
    pad = layers.Resizing(4, 4, interpolation="nearest", pad_to_aspect_ratio=True, fill_value=-1.0)
    wide = _grid(2, 4)[None]
    expected = np.concatenate([np.full((1, 1, 4, 1), -1.0), wide, np.full((1, 1, 4, 1), -1.0)], axis=1)
    np.testing.assert_array_equal(_roundtrip(pad)(wide).numpy(), expected)
    with pytest.raises(ValueError, match="only one of"):
        layers.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="interpolation"):
        layers.Resizing(2, 2, interpolation="cubic")


def test_center_crop_slices_the_middle_and_resizes_small_images():
    x = _images(2, 7, 6, 3)
    layer = _roundtrip(layers.CenterCrop(3, 4))
    np.testing.assert_array_equal(layer(x).numpy(), x[:, 2:5, 1:5])
    np.testing.assert_array_equal(layer(x[0]).numpy(), x[0, 2:5, 1:5])
    big = layers.CenterCrop(8, 4)  # taller than the input: aspect crop + bilinear resize
    np.testing.assert_allclose(big(x).numpy(), layers.Resizing(8, 4, crop_to_aspect_ratio=True)(x).numpy(), rtol=1e-6)
    dynamic = tf.function(lambda t: layer(t), input_signature=[tf.TensorSpec((None, None, None, 3))])
    np.testing.assert_array_equal(dynamic(x).numpy(), x[:, 2:5, 1:5])
    dynamic_big = tf.function(lambda t: big(t), input_signature=[tf.TensorSpec((None, None, None, 3))])
    np.testing.assert_allclose(dynamic_big(x).numpy(), big(x).numpy(), rtol=1e-6)
    pixels = RNG.integers(0, 256, (1, 5, 5, 1)).astype("uint8")
    assert layers.CenterCrop(3, 3)(pixels).dtype == tf.float32
    with pytest.raises(ValueError, match="rank 3 .* or 4"):
        layer(np.ones((7, 6), "float32"))


def test_channels_first_equals_transposed_channels_last():
    x = _images(2, 7, 6, 3)
    first = np.transpose(x, (0, 3, 1, 2))
    for make in (
        lambda f: layers.CenterCrop(3, 4, data_format=f),
        lambda f: layers.Resizing(3, 4, data_format=f),
        lambda f: layers.RandomRotation(0.2, seed=3, data_format=f),
        lambda f: layers.RandomCrop(3, 4, seed=3, data_format=f),
    ):
        last = make("channels_last")(x, training=True).numpy()
        np.testing.assert_allclose(
            make("channels_first")(first, training=True).numpy(), np.transpose(last, (0, 3, 1, 2)), rtol=1e-5, atol=1e-4
        )
    crop = layers.CenterCrop(3, 4, data_format="channels_first")
    assert crop.compute_output_shape((None, 3, 7, 6)) == (None, 3, 3, 4)


# ------------------------------------------------------------------ random


def test_random_flip_mirrors_whole_images():
    x = _images(16, 4, 5, 2)
    for mode, flipped in [
        ("horizontal", x[:, :, ::-1]),
        ("vertical", x[:, ::-1]),
        ("horizontal_and_vertical", x[:, ::-1, ::-1]),
    ]:
        layer = _roundtrip(layers.RandomFlip(mode, seed=1))
        y = layer(x, training=True).numpy()
        same = (y == x).all(axis=(1, 2, 3))
        mirrored = (y == flipped).all(axis=(1, 2, 3))
        assert (same | mirrored).all() and same.any() and mirrored.any(), mode
        np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
    single = layers.RandomFlip("horizontal", seed=2)
    outs = [single(x[0], training=True).numpy() for _ in range(8)]
    assert all((o == x[0]).all() or (o == x[0][:, ::-1]).all() for o in outs)
    with pytest.raises(ValueError, match="mode"):
        layers.RandomFlip("diagonal")


def test_random_contrast_formula_per_image():
    x = _images(6, 5, 5, 3)
    layer = _roundtrip(layers.RandomContrast((0.4, 0.5), seed=4, value_range=(-1000, 1000)))
    y = layer(x, training=True).numpy()
    mean = x.mean(axis=(1, 2), keepdims=True)
    factor = ((y - mean) / (x - mean)).reshape(6, -1)
    np.testing.assert_allclose(factor, factor[:, :1] * np.ones_like(factor), rtol=1e-3)  # one factor per image
    assert ((factor >= 0.6) & (factor <= 1.5)).all()
    np.testing.assert_allclose(y, (x - mean) * factor[:, :1, None, None] + mean, rtol=1e-4, atol=1e-2)
    clipped = layers.RandomContrast(0.9, seed=5)(x, training=True).numpy()
    assert clipped.min() >= 0 and clipped.max() <= 255
    rising = layers.RandomContrast(0.5, seed=6)  # Keras 3: a single number f draws the factor from [1, 1 + f]
    y = rising(x, training=True).numpy()
    spread = (y - mean).std(axis=(1, 2, 3)) / (x - mean).std(axis=(1, 2, 3))
    assert (spread >= 1 - 1e-4).all() and (spread <= 1.5 + 1e-4).all()
    np.testing.assert_array_equal(rising(x, training=False).numpy(), x)
    with pytest.raises(ValueError, match="factor"):
        layers.RandomContrast(1.5)


def test_random_rotation_by_a_quarter_turn_is_rot90():
    for size in (4, 5):
        x = np.stack([_grid(size, size, 2), -_grid(size, size, 2)])
        layer = _roundtrip(layers.RandomRotation((0.25, 0.25), interpolation="nearest", seed=0))
        np.testing.assert_array_equal(layer(x, training=True).numpy(), np.rot90(x, k=1, axes=(1, 2)))
        half = layers.RandomRotation((0.5, 0.5), interpolation="nearest")
        np.testing.assert_array_equal(half(x[0], training=True).numpy(), x[0, ::-1, ::-1])
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)


def test_random_zoom_out_and_in_by_hand():
    x = _grid(5, 5)[None]
    out = layers.RandomZoom((1.0, 1.0), fill_mode="constant", fill_value=-1.0, interpolation="nearest")
    expected = np.full((5, 5), -1.0, "float32")
    expected[1:4, 1:4] = x[0, ::2, ::2, 0]  # output (x, y) samples input (2x - 2, 2y - 2)
    np.testing.assert_array_equal(_roundtrip(out)(x, training=True).numpy()[0, :, :, 0], expected)
    width_only = layers.RandomZoom((0.0, 0.0), width_factor=(1.0, 1.0), fill_mode="constant", interpolation="nearest")
    expected = np.zeros((5, 5), "float32")
    expected[:, 1:4] = x[0, :, ::2, 0]
    np.testing.assert_array_equal(width_only(x, training=True).numpy()[0, :, :, 0], expected)
    zoom_in = layers.RandomZoom((-0.5, -0.5), interpolation="nearest")  # output (x, y) samples (x/2 + 2, y/2 + 2)
    x9 = _grid(9, 9)[None]
    np.testing.assert_array_equal(zoom_in(x9, training=True).numpy()[0, ::2, ::2], x9[0, 2:7, 2:7])
    with pytest.raises(ValueError, match="height_factor"):
        layers.RandomZoom(-1.0)


def test_random_translation_shifts_with_each_fill_mode():
    x = _grid(4, 4)[None]

    def shift(fill_mode, **kw):
        layer = layers.RandomTranslation((0.25, 0.25), (-0.5, -0.5), fill_mode=fill_mode, interpolation="nearest", **kw)
        return _roundtrip(layer)(x, training=True).numpy()[0, :, :, 0]

    img = x[0, :, :, 0]
    np.testing.assert_array_equal(shift("wrap"), np.roll(np.roll(img, 1, axis=0), -2, axis=1))
    expected = np.full((4, 4), 7.0, "float32")
    expected[1:, :2] = img[:3, 2:]  # down by 1 row, left by 2 columns
    np.testing.assert_array_equal(shift("constant", fill_value=7.0), expected)
    nearest = shift("nearest")
    np.testing.assert_array_equal(nearest[1:, :2], img[:3, 2:])
    np.testing.assert_array_equal(nearest[0, :2], img[0, 2:])  # row -1 repeats row 0
    np.testing.assert_array_equal(nearest[:, 2:], nearest[:, 1:2].repeat(2, axis=1))  # columns 4, 5 repeat 3
    reflect = shift("reflect")
    np.testing.assert_array_equal(reflect[0, :2], img[0, 2:])  # row -1 mirrors row 0
    np.testing.assert_array_equal(reflect[1:, 2:], img[:3, ::-1][:, :2])  # columns 4, 5 mirror 3, 2
    with pytest.raises(ValueError, match="fill_mode"):
        layers.RandomTranslation(0.1, 0.1, fill_mode="mirror")


def test_random_crop_windows_and_inference_center():
    x = _images(2, 10, 9, 3)
    layer = _roundtrip(layers.RandomCrop(3, 4, seed=7))
    starts = set()
    for _ in range(6):
        y = layer(x, training=True).numpy()
        found = [(i, j) for i in range(8) for j in range(6) if np.array_equal(x[:, i : i + 3, j : j + 4], y)]
        assert len(found) == 1  # one window, shared by the whole batch (as in Keras)
        starts.add(found[0])
    assert len(starts) > 1
    expected = layers.Resizing(3, 4, crop_to_aspect_ratio=True)(x).numpy()
    np.testing.assert_allclose(layer(x, training=False).numpy(), expected, rtol=1e-6)
    small = layers.RandomCrop(12, 9)  # not larger in both directions: the center path, also while training
    np.testing.assert_allclose(
        small(x, training=True).numpy(), layers.Resizing(12, 9, crop_to_aspect_ratio=True)(x).numpy(), rtol=1e-6
    )
    assert layer.compute_output_shape((None, 10, 9, 3)) == (None, 3, 4, 3)
    assert layer(x[0], training=True).shape == (3, 4, 3)


RANDOM_LAYERS = {
    "flip": lambda seed: layers.RandomFlip(seed=seed),
    "rotation": lambda seed: layers.RandomRotation(0.3, seed=seed),
    "zoom": lambda seed: layers.RandomZoom(0.3, 0.2, seed=seed),
    "translation": lambda seed: layers.RandomTranslation(0.3, 0.3, seed=seed),
    "contrast": lambda seed: layers.RandomContrast((0.5, 0.5), seed=seed),
    "crop": lambda seed: layers.RandomCrop(5, 5, seed=seed),
}


@pytest.mark.parametrize("name", sorted(RANDOM_LAYERS))
def test_random_layers_vary_per_call_replay_by_seed_and_pass_through_at_inference(name):
    x = _images(8, 8, 8, 2)
    layer = RANDOM_LAYERS[name](11)
    first, second = layer(x, training=True).numpy(), layer(x, training=True).numpy()
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(RANDOM_LAYERS[name](11)(x, training=True).numpy(), first)
    if name != "crop":
        np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
    assert layer.weights == []
    for jit in (False, True):
        step = tf.function(lambda t: layer(t, training=True), jit_compile=jit)
        a, b = step(x).numpy(), step(x).numpy()
        assert not np.array_equal(a, b) and step.experimental_get_tracing_count() == 1
    flag = tf.function(lambda t, f: layer(t, training=f))
    if name != "crop":
        np.testing.assert_array_equal(flag(x, tf.constant(False)).numpy(), x)
    assert flag(x, tf.constant(True)).shape == first.shape


def test_random_layers_in_tf_data_map():
    x = _images(6, 8, 8, 3)
    augment = tfkit.Sequential(
        [
            layers.RandomFlip(seed=1),
            layers.RandomRotation(0.2, seed=2),
            layers.RandomZoom(0.1, seed=3),
            layers.RandomTranslation(0.1, 0.1, seed=4),
            layers.RandomContrast(0.2, seed=5),
            layers.RandomCrop(6, 6, seed=6),
        ]
    )
    dataset = tf.data.Dataset.from_tensor_slices(x).batch(3).map(lambda t: augment(t, training=True))
    batches = [b.numpy() for b in dataset]
    assert [b.shape for b in batches] == [(3, 6, 6, 3), (3, 6, 6, 3)]
    again = [b.numpy() for b in dataset]
    assert not np.array_equal(batches[0], again[0])  # a new draw on every pass over the data
    rotate = layers.RandomRotation(0.2, seed=1)
    unbatched = tf.data.Dataset.from_tensor_slices(x).map(lambda t: rotate(t, training=True))
    assert next(iter(unbatched)).shape == (8, 8, 3)


def test_model_with_preprocessing_exports_and_matches_predict(tmp_path):
    inputs = tfkit.Input((10, 10, 3), name="pixels")
    h = layers.Rescaling(1 / 255)(inputs)
    h = layers.RandomFlip(seed=1)(h)
    h = layers.RandomRotation(0.1, seed=2)(h)
    h = layers.RandomZoom(0.1, seed=3)(h)
    h = layers.RandomTranslation(0.1, 0.1, seed=4)(h)
    h = layers.RandomContrast(0.2, value_range=(0, 1), seed=5)(h)
    h = layers.RandomCrop(8, 8, seed=6)(h)
    h = layers.Resizing(6, 6)(layers.CenterCrop(7, 7)(h))
    outputs = layers.Dense(2)(layers.Flatten()(h))
    model = tfkit.Model(inputs, outputs)
    model.compile("adam", "mse")
    x = _images(4, 10, 10, 3)
    model.fit(x, np.zeros((4, 2), "float32"), epochs=1, verbose=0)  # the augmentations run inside fit
    expected = model.predict(x, verbose=0)
    serve = tf.saved_model.load(model.export(str(tmp_path / "m"))).signatures["serving_default"]
    got = list(serve(pixels=tf.constant(x)).values())[0].numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    reloaded = tfkit.Model.from_config(json.loads(json.dumps(model.get_config())))
    reloaded.set_weights(model.get_weights())
    np.testing.assert_allclose(reloaded.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fill_mode", ["reflect", "wrap", "constant", "nearest"])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_xla_gather_resampling_matches_the_projective_transform_kernel(fill_mode, interpolation):
    from tfkit.layers.preprocessing import image_utils
    from tfkit.ops.image_warp import _gather_transform

    x = tf.constant(_images(3, 6, 5, 2))
    transforms = tf.constant(
        [
            [0.8, -0.6, 2.0, 0.6, 0.8, -1.5, 0.0, 0.0],  # a turn about a point off the image
            [2.5, 0.0, -4.0, 0.0, 1.7, -3.0, 0.0, 0.0],  # zoom far out: many folds of the border
            [1.0, 0.3, -7.3, -0.2, 1.0, 9.6, 0.01, -0.02],  # shear, shift and a little perspective
        ]
    )
    kernel = image_utils.affine_transform(x, transforms, interpolation, fill_mode, 3.0)
    gathered = _gather_transform(x, transforms, interpolation, fill_mode, 3.0)
    np.testing.assert_allclose(gathered.numpy(), kernel.numpy(), rtol=1e-4, atol=1e-3)
    compiled = tf.function(
        lambda t: image_utils.affine_transform(t, transforms, interpolation, fill_mode, 3.0), jit_compile=True
    )
    np.testing.assert_allclose(compiled(x).numpy(), kernel.numpy(), rtol=1e-4, atol=1e-3)


# ------------------------------------------------------- Keras cross-check


def test_keras_crosscheck_deterministic_layers_and_pinned_transforms():
    keras = pytest.importorskip("keras")
    x = _images(2, 9, 7, 3)
    pairs = [
        ("Rescaling", dict(scale=1 / 127.5, offset=-1)),
        ("Resizing", dict(height=5, width=4)),
        ("Resizing", dict(height=4, width=6, interpolation="bicubic", crop_to_aspect_ratio=True)),
        ("Resizing", dict(height=6, width=6, interpolation="nearest", pad_to_aspect_ratio=True, fill_value=3.0)),
        ("CenterCrop", dict(height=5, width=4)),
        ("CenterCrop", dict(height=12, width=5)),
    ]
    for name, kwargs in pairs:
        ours, theirs = getattr(layers, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
        np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-5, atol=1e-3, err_msg=name)
        assert set(ours.get_config()) - {"dtype"} == set(theirs.get_config()) - {"dtype"}, name
    pinned = [
        ("RandomRotation", dict(factor=(0.1, 0.1))),
        ("RandomRotation", dict(factor=(-0.3, -0.3), fill_mode="constant", fill_value=5.0, interpolation="nearest")),
        ("RandomZoom", dict(height_factor=(0.3, 0.3), width_factor=(-0.2, -0.2), fill_mode="wrap")),
        ("RandomTranslation", dict(height_factor=(0.2, 0.2), width_factor=(-0.3, -0.3), fill_mode="nearest")),
        ("RandomContrast", dict(factor=(0.0, 0.0))),
    ]
    for name, kwargs in pinned:
        ours, theirs = getattr(layers, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
        np.testing.assert_allclose(
            ours(x, training=True).numpy(), np.asarray(theirs(x, training=True)), rtol=1e-4, atol=1e-2, err_msg=name
        )
        assert set(ours.get_config()) - {"dtype"} == set(theirs.get_config()) - {"dtype"}, name
    for name in ("RandomFlip", "RandomCrop"):
        args = (3, 3) if name == "RandomCrop" else ()
        assert set(getattr(layers, name)(*args).get_config()) - {"dtype"} == set(
            getattr(keras.layers, name)(*args).get_config()
        ) - {"dtype"}, name
