"""The image augmentation layers' numbers: hand-computed numpy on small images, and Keras 3 side by side
wherever Keras's output is fixed by the arguments (a factor pair ``(f, f)``, a probability of 1)."""

import numpy as np
import pytest

from tfkit import layers

RNG = np.random.default_rng(1)
IMAGES = RNG.uniform(0, 255, (2, 6, 5, 3)).astype("float32")
LUMA = np.array([0.2989, 0.5870, 0.1140], "float32")


def gray(x):
    return np.repeat((x @ LUMA)[..., None], 3, axis=-1)


def test_auto_contrast_stretches_each_channel_and_applies_at_inference():
    x = np.stack(
        [np.linspace(50, 150, 12).reshape(3, 4), np.full((3, 4), 7.0), np.linspace(0, 255, 12).reshape(3, 4)], -1
    ).astype("float32")
    want = x.copy()
    want[..., 0] = (x[..., 0] - 50) * 255 / 100  # stretched; the flat channel is kept
    for training in (True, False):
        np.testing.assert_allclose(layers.AutoContrast()(x, training=training).numpy(), want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(
        layers.AutoContrast(value_range=(0, 1))(x[None] / 255)[0].numpy(), want / 255, rtol=1e-5, atol=1e-6
    )


def numpy_equalize(channel, bins=256):
    index = np.clip((channel * (bins - 1) / 255).astype(int), 0, bins - 1)
    hist = np.bincount(index.ravel(), minlength=bins)
    if np.count_nonzero(hist) <= 1:
        return channel
    cdf = np.cumsum(hist)
    cdf_min = cdf[np.nonzero(cdf)[0][0]]
    table = np.clip(np.round((cdf - cdf_min) * 255 / (cdf[-1] - cdf_min)), 0, 255)
    return table[index]


@pytest.mark.parametrize("bins", [256, 16])
def test_equalization_per_image_and_channel_matches_numpy(bins):
    x = np.round(IMAGES.copy())
    x[1, ..., 2] = 9.0  # a flat channel stays as it is
    want = np.stack([np.stack([numpy_equalize(x[b, ..., c], bins) for c in range(3)], -1) for b in range(2)])
    layer = layers.Equalization(bins=bins)
    np.testing.assert_allclose(layer(x, training=True).numpy(), want)
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)  # Keras: training only


def test_solarization_inverts_above_the_threshold():
    np.testing.assert_allclose(layers.Solarization()(IMAGES).numpy(), 255 - IMAGES, rtol=1e-6)
    layer = layers.Solarization(threshold_factor=(0.5, 0.5), addition_factor=(0.1, 0.1))
    shifted = np.clip(IMAGES + 25.5, 0, 255)
    np.testing.assert_allclose(layer(IMAGES).numpy(), np.where(shifted < 127.5, shifted, 255 - shifted), rtol=1e-5)
    unit = layers.Solarization(value_range=(0, 1))(IMAGES / 255).numpy()
    np.testing.assert_allclose(unit, 1 - IMAGES / 255, atol=1e-6)
    np.testing.assert_array_equal(layers.Solarization()(IMAGES, training=False).numpy(), IMAGES)


def test_invert_posterize_grayscale_brightness_degeneration_by_hand():
    np.testing.assert_allclose(layers.RandomInvert((1.0, 1.0))(IMAGES).numpy(), 255 - IMAGES)
    np.testing.assert_allclose(
        layers.RandomInvert((1.0, 1.0), value_range=(-1, 1))(IMAGES / 255).numpy(), -IMAGES / 255, atol=1e-6
    )  # low + high - x (Keras: high - x)
    np.testing.assert_array_equal(layers.RandomInvert(factor=0.0)(IMAGES).numpy(), IMAGES)
    posterized = (IMAGES.astype("uint8") >> 5 << 5).astype("float32")
    np.testing.assert_array_equal(layers.RandomPosterization((3, 3))(IMAGES).numpy(), posterized)
    np.testing.assert_allclose(layers.RandomGrayscale(1.0)(IMAGES).numpy(), gray(IMAGES), rtol=1e-5)
    np.testing.assert_array_equal(layers.RandomGrayscale(0.0)(IMAGES).numpy(), IMAGES)
    np.testing.assert_allclose(
        layers.RandomBrightness((0.2, 0.2))(IMAGES).numpy(), np.clip(IMAGES + 51, 0, 255), rtol=1e-6
    )
    degenerated = np.clip(IMAGES + 0.5 * (gray(IMAGES)[..., :1] - IMAGES), 0, 255)
    np.testing.assert_allclose(
        layers.RandomColorDegeneration((0.5, 0.5))(IMAGES).numpy(), degenerated, rtol=1e-5, atol=1e-3
    )


def test_hue_turns_red_a_quarter_either_way_and_saturation_zero_is_gray():
    red = np.zeros((1, 2, 2, 3), "float32")
    red[..., 0] = 255
    out = layers.RandomHue((0.5, 0.5), seed=3)(np.repeat(red, 8, 0)).numpy()
    chartreuse, violet = [127.5, 255, 0], [127.5, 0, 255]  # hue 0.25 and 0.75 of a turn
    for image in out:
        assert np.allclose(image, chartreuse, atol=0.05) or np.allclose(image, violet, atol=0.05)
    assert not np.allclose(out, out[:1])  # both directions occur (one sign per image)
    desaturated = layers.RandomSaturation((0.0, 0.0))(IMAGES).numpy()
    np.testing.assert_allclose(desaturated, np.repeat(IMAGES.max(-1, keepdims=True), 3, -1), rtol=1e-5)
    np.testing.assert_allclose(layers.RandomSaturation((0.5, 0.5))(IMAGES).numpy(), IMAGES, rtol=1e-4, atol=1e-2)


def test_sharpness_and_blur_by_hand():
    kernel = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]], "float32") / 13
    padded = np.pad(IMAGES, [(0, 0), (1, 1), (1, 1), (0, 0)])
    smooth = sum(kernel[i, j] * padded[:, i : i + 6, j : j + 5] for i in range(3) for j in range(3))
    sharpened = layers.RandomSharpness((0.25, 0.25))(IMAGES).numpy()
    np.testing.assert_allclose(sharpened, np.clip(IMAGES + 0.5 * (smooth - IMAGES), 0, 255), rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(layers.RandomSharpness((0.5, 0.5))(IMAGES).numpy(), IMAGES, rtol=1e-6)
    taps = np.exp(-0.5 * np.arange(-1, 2) ** 2)
    taps /= taps.sum()
    blur2d = np.outer(taps, taps)
    blurred = sum(blur2d[i, j] * padded[:, i : i + 6, j : j + 5] for i in range(3) for j in range(3))
    out = layers.RandomGaussianBlur(factor=(1.0, 1.0), sigma=(1.0, 1.0))(IMAGES).numpy()
    np.testing.assert_allclose(out, blurred, rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(layers.RandomGaussianBlur(factor=0.0)(IMAGES).numpy(), IMAGES)


def test_erasing_fills_a_rectangle_of_the_drawn_size():
    x = IMAGES.copy() + 1.0  # no zero pixel before erasing
    x = np.concatenate([x, x], axis=1)[:, :, :4]  # 12 x 4 images
    out = layers.RandomErasing(factor=(1.0, 1.0), scale=(0.25, 0.25), fill_value=0.0, seed=4)(x).numpy()
    erased = (out == 0).all(-1)
    assert erased.sum(axis=(1, 2)).tolist() == [6 * 2, 6 * 2]  # sides sqrt(0.25) of 12 and 4
    rows, cols = np.nonzero(erased[0])
    assert rows.max() - rows.min() == 5 and cols.max() - cols.min() == 1
    np.testing.assert_array_equal(out[~erased], x[~erased])


@pytest.mark.parametrize(
    "layer",
    [
        lambda: layers.RandomShear(),
        lambda: layers.RandomPerspective(factor=0.0),
        lambda: layers.RandomPerspective(scale=0.0),
        lambda: layers.RandomElasticTransform(factor=0.0),
        lambda: layers.RandomElasticTransform(scale=0.0),
        lambda: layers.RandomBrightness(0.0),
        lambda: layers.RandomColorJitter(),
        lambda: layers.RandomErasing(factor=0.0),
        lambda: layers.RandomSaturation((0.5, 0.5)),
        lambda: layers.RandomHue(0.0),
        lambda: layers.RandomGrayscale(0.0),
        lambda: layers.RandomInvert(0.0),
    ],
    ids=lambda f: "",
)
def test_zero_strength_is_identity(layer):
    np.testing.assert_allclose(layer()(IMAGES, training=True).numpy(), IMAGES, rtol=1e-4, atol=1e-2)


def test_mixup_and_cutmix_mix_labels_as_they_mix_pixels():
    images = np.repeat(np.arange(8, dtype="float32"), 4 * 4 * 3).reshape(8, 4, 4, 3)  # image i is all i
    labels = np.eye(8, dtype="float32")
    for layer in (layers.MixUp(alpha=0.5, seed=1), layers.CutMix(seed=2)):
        out = layer({"images": images, "labels": labels}, training=True)
        mean_pixel = out["images"].numpy().mean(axis=(1, 2, 3))
        np.testing.assert_allclose(mean_pixel, out["labels"].numpy() @ np.arange(8), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(out["labels"].numpy().sum(-1), 1.0, rtol=1e-6)
        assert not np.allclose(out["labels"].numpy(), labels)
        inferred = layer({"images": images, "labels": labels.astype("int32")}, training=False)
        assert inferred["labels"].dtype == "float32"  # same dtype in both branches


SIDE_BY_SIDE = [
    ("AutoContrast", (), {}, 255),
    ("AutoContrast", (), dict(value_range=(0, 1)), 1),
    ("Equalization", (), {}, 255),
    ("Equalization", (), dict(bins=64), 255),
    ("ContrastLimitedAdaptiveHistogramEqualization", (), dict(tile_grid_size=(2, 2)), 255),
    ("ContrastLimitedAdaptiveHistogramEqualization", (), dict(tile_grid_size=(3, 2), clip_limit=2.0), 255),
    ("Solarization", (), {}, 255),
    ("RandomInvert", ((1.0, 1.0),), {}, 255),
    ("RandomPosterization", ((4, 4),), {}, 255),
    ("RandomGrayscale", (), dict(factor=1.0), 255),
    ("RandomBrightness", ((0.2, 0.2),), {}, 255),
    ("RandomColorDegeneration", ((0.5, 0.5),), {}, 255),
    ("RandomSaturation", ((0.8, 0.8),), dict(value_range=(0, 1)), 1),
    ("RandomSharpness", ((0.8, 0.8),), {}, 255),
    ("RandomGaussianBlur", (), dict(factor=(1.0, 1.0), sigma=(0.7, 0.7), kernel_size=5), 255),
]


@pytest.mark.parametrize("name, args, kwargs, scale", SIDE_BY_SIDE, ids=[c[0] for c in SIDE_BY_SIDE])
def test_keras_side_by_side_where_its_output_is_fixed(name, args, kwargs, scale):
    keras = pytest.importorskip("keras")
    x = IMAGES[:1] * (scale / 255)  # one image: Keras's Equalization pools the histogram over the batch
    want = np.asarray(getattr(keras.layers, name)(*args, **kwargs)(x, training=True))
    got = getattr(layers, name)(*args, **kwargs)(x, training=True).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4 * scale)
