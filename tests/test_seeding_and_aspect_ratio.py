"""set_random_seed reseeds tfkit's default generator every time (the first included); the aspect-ratio
options of image_dataset_from_directory, smart_resize and load_img crop / pad as Keras does."""

import os
import random

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import random as tfkit_random

PIL = pytest.importorskip("PIL.Image")

# ------------------------------------------------------------ set_random_seed


def _unseeded_draws():
    return [tfkit.random.normal((3,)).numpy(), tfkit.random.uniform((2,)).numpy(), tfkit.random.normal((3,)).numpy()]


@pytest.fixture
def fresh_default_generator(monkeypatch):
    """As in a new process: no module-wide generator yet, no global seed set."""
    monkeypatch.setattr(tfkit_random, "_default_generator", None)
    monkeypatch.setattr(tfkit_random, "_global_seed", None)


def test_first_set_random_seed_makes_unseeded_draws_repeatable(fresh_default_generator):
    tfkit.utils.set_random_seed(1337)  # the first call: the generator does not exist yet
    first = _unseeded_draws()
    np.testing.assert_array_equal(tfkit_random.default_seed_generator().state.numpy(), [1337, 3])
    tfkit.utils.set_random_seed(1337)
    second = _unseeded_draws()
    tfkit.utils.set_random_seed(1337)
    third = _unseeded_draws()
    for a, b, c in zip(first, second, third):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    assert not np.array_equal(first[0], first[2])  # the sequence still advances
    np.testing.assert_array_equal(first[0], tf.random.stateless_normal((3,), [1337, 0]).numpy())
    tfkit.utils.set_random_seed(1338)
    other = _unseeded_draws()
    assert not any(np.array_equal(a, b) for a, b in zip(first, other))


def test_generator_created_before_set_random_seed_is_reset(fresh_default_generator):
    tfkit.random.normal((2,))  # created with a random seed
    tfkit.utils.set_random_seed(5)
    a = tfkit.random.normal((2,)).numpy()
    np.testing.assert_array_equal(a, tf.random.stateless_normal((2,), [5, 0]).numpy())


def test_set_random_seed_still_seeds_python_numpy_and_tensorflow():
    tfkit.utils.set_random_seed(42)
    values = random.random(), np.random.rand(), tf.random.uniform(()).numpy()
    tfkit.utils.set_random_seed(42)
    assert values == (random.random(), np.random.rand(), tf.random.uniform(()).numpy())


def test_seeded_draws_are_unchanged(fresh_default_generator):
    expected = tf.random.stateless_normal((4,), [7, 0]).numpy()
    gen_expected = [tf.random.stateless_normal((4,), [9, i]).numpy() for i in range(2)]
    for seed in (None, 0, 123):
        if seed is not None:
            tfkit.utils.set_random_seed(seed)
        np.testing.assert_array_equal(tfkit.random.normal((4,), seed=7).numpy(), expected)
        gen = tfkit.random.SeedGenerator(9)
        for want in gen_expected:
            np.testing.assert_array_equal(tfkit.random.normal((4,), seed=gen).numpy(), want)


def _fit_with_dropout():
    tfkit.utils.set_random_seed(0)
    model = tfkit.models.Sequential(
        [
            tfkit.layers.Input((6,)),
            tfkit.layers.Dense(16, activation="relu"),
            tfkit.layers.Dropout(0.5),
            tfkit.layers.Dense(1),
        ]
    )
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.rand(64, 6).astype("float32")
    y = np.random.rand(64, 1).astype("float32")
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    return model.get_weights()


def test_two_fits_with_dropout_after_set_random_seed_end_with_the_same_weights():
    first = _fit_with_dropout()
    second = _fit_with_dropout()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


def test_dropout_masks_after_set_random_seed_are_repeatable():
    x = np.ones((4, 32), "float32")
    tfkit.utils.set_random_seed(3)
    layer = tfkit.layers.Dropout(0.5)
    masks = [layer(x, training=True).numpy() for _ in range(2)]
    assert not np.array_equal(masks[0], masks[1])
    tfkit.utils.set_random_seed(3)
    layer = tfkit.layers.Dropout(0.5)
    again = [layer(x, training=True).numpy() for _ in range(2)]
    for a, b in zip(masks, again):
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------ crop / pad to aspect ratio


def _save_classes(root, image):
    for name in ("a", "b"):
        os.makedirs(root / name)
        PIL.fromarray(image).save(root / name / "x.png")


def _first_batch(root, **kwargs):
    ds = tfkit.utils.image_dataset_from_directory(str(root), shuffle=False, verbose=False, **kwargs)
    return next(iter(ds))[0].numpy()


def test_crop_to_aspect_ratio_crops_the_centre_then_resizes(tmp_path):
    image = np.zeros((20, 40, 3), "uint8")
    image[:, 10:30] = 255  # the centred 20x20 window is white, the rest black
    _save_classes(tmp_path, image)
    out = _first_batch(tmp_path, image_size=(10, 10), crop_to_aspect_ratio=True)
    assert out.shape == (2, 10, 10, 3)
    np.testing.assert_array_equal(out, np.full((2, 10, 10, 3), 255.0, "float32"))


def test_crop_to_aspect_ratio_of_an_all_white_image_is_all_white(tmp_path):
    _save_classes(tmp_path, np.full((20, 40, 3), 255, "uint8"))
    out = _first_batch(tmp_path, image_size=(10, 10), crop_to_aspect_ratio=True)
    np.testing.assert_array_equal(out, np.full((2, 10, 10, 3), 255.0, "float32"))


def test_pad_to_aspect_ratio_pads_with_zero_bands(tmp_path):
    _save_classes(tmp_path, np.full((20, 40, 3), 255, "uint8"))
    # 20x40 fits (10, 10) as 5x10, padded with (10 - 5) // 2 = 2 rows above and 3 below.
    out = _first_batch(tmp_path, image_size=(10, 10), pad_to_aspect_ratio=True)
    expected = np.zeros((10, 10, 3), "float32")
    expected[2:7] = 255
    np.testing.assert_array_equal(out, np.stack([expected, expected]))
    # 20x40 fits (10, 30) as 10x20, padded with (30 - 20) // 2 = 5 columns on each side.
    out = _first_batch(tmp_path, image_size=(10, 30), pad_to_aspect_ratio=True, data_format="channels_first")
    expected = np.zeros((3, 10, 30), "float32")
    expected[:, :, 5:25] = 255
    np.testing.assert_array_equal(out, np.stack([expected, expected]))


def test_crop_and_pad_together_are_refused(tmp_path):
    _save_classes(tmp_path, np.full((4, 4, 3), 255, "uint8"))
    with pytest.raises(ValueError, match="Only one of"):
        tfkit.utils.image_dataset_from_directory(str(tmp_path), crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)


def _gradient():
    # A 10x20 image to (3, 2): the window is 10 x (10 * 2 // 3 = 6) columns, from (20 - 6) // 2 = 7, as Keras
    # rounds the window's side down (rounding it to 7 columns would start the window at column 6).
    return np.tile((np.arange(20) * 12).astype("uint8")[None, :, None], (10, 1, 3))


def test_smart_resize_window_is_rounded_down_as_resizing():
    image = _gradient().astype("float32")
    out = tfkit.preprocessing.image.smart_resize(image, (3, 2)).numpy()
    np.testing.assert_array_equal(out, tf.image.resize(image[:, 7:13], (3, 2)).numpy())
    layer = tfkit.layers.Resizing(3, 2, crop_to_aspect_ratio=True)
    np.testing.assert_array_equal(layer(image[None]).numpy()[0], out)


def test_load_img_keep_aspect_ratio_window_is_rounded_down(tmp_path):
    PIL.fromarray(_gradient()).save(tmp_path / "x.png")
    img = tfkit.utils.load_img(tmp_path / "x.png", target_size=(3, 2), keep_aspect_ratio=True)
    expected = PIL.fromarray(_gradient()[:, 7:13]).resize((2, 3), PIL.Resampling.NEAREST)
    np.testing.assert_array_equal(np.asarray(img), np.asarray(expected))
