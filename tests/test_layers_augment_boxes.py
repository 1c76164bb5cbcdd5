"""Dict inputs of the image augmentation layers: bounding boxes (formats, shear, padding to a count),
segmentation masks that move with the pixels, and labels through the older random layers."""

import numpy as np
import pytest
import tensorflow as tf

from tfkit import layers
from tfkit.ops import image_boxes

IMAGES = np.random.default_rng(2).uniform(0, 255, (4, 8, 8, 1)).astype("float32")


@pytest.mark.parametrize("fmt", image_boxes.FORMATS)
def test_every_box_format_round_trips_through_absolute_xyxy(fmt):
    xyxy = tf.constant([[[1.0, 2.0, 5.0, 6.0], [0.0, 0.0, 8.0, 4.0]]])
    there = image_boxes.from_xyxy(xyxy, fmt, 8, 10)
    np.testing.assert_allclose(image_boxes.to_xyxy(there, fmt, 8, 10).numpy(), xyxy.numpy(), rtol=1e-6)
    expected = {"xywh": [1, 2, 4, 4], "center_yxhw": [4, 3, 4, 4], "rel_yxyx": [0.25, 0.1, 0.75, 0.5]}
    if fmt in expected:
        np.testing.assert_allclose(there.numpy()[0, 0], expected[fmt], rtol=1e-6)


def test_shear_moves_boxes_with_the_pixels_and_drops_boxes_pushed_out():
    layer = layers.RandomShear(x_factor=(0.5, 0.5), fill_mode="constant", bounding_box_format="xyxy", seed=1)
    boxes = {
        "boxes": np.tile([[[2.0, 2.0, 4.0, 4.0], [6.0, 6.0, 8.0, 8.0]]], (4, 1, 1)).astype("float32"),
        "labels": np.tile([[3, 4]], (4, 1)),
    }
    out = layer({"images": IMAGES, "bounding_boxes": boxes}, training=True)
    moved = out["bounding_boxes"]["boxes"].numpy()
    for first, second, label in zip(moved[:, 0], moved[:, 1], out["bounding_boxes"]["labels"].numpy()):
        # output x = input x - s * y for a shear of s = +-0.5
        assert np.allclose(first, [0, 2, 3, 4]) or np.allclose(first, [3, 2, 6, 4]), first
        if np.allclose(first, [0, 2, 3, 4]):
            np.testing.assert_allclose(second, [2, 6, 5, 8])
        else:  # pushed right: x from 9 to 12, outside the 8-wide image
            np.testing.assert_allclose(second, [8, 6, 8, 8])
            assert label[1] == -1
        assert label[0] == 3
    assert len({tuple(b) for b in moved[:, 0]}) == 2  # both directions drawn over the batch
    kept = layer({"images": IMAGES, "bounding_boxes": boxes}, training=False)
    np.testing.assert_array_equal(kept["bounding_boxes"]["boxes"].numpy(), boxes["boxes"])


def test_relative_boxes_and_unbatched_ragged_lists():
    layer = layers.RandomShear(x_factor=(0.5, 0.5), bounding_box_format="rel_xyxy", seed=2)
    out = layer({"images": IMAGES[0], "bounding_boxes": {"boxes": [[0.25, 0.25, 0.5, 0.5]], "labels": [7]}})
    box = out["bounding_boxes"]["boxes"].numpy()
    assert box.shape == (1, 4)
    assert np.allclose(box[0], [0, 0.25, 3 / 8, 0.5]) or np.allclose(box[0], [3 / 8, 0.25, 0.75, 0.5])


def test_boxes_need_a_format_where_pixels_move():
    with pytest.raises(ValueError, match="bounding_box_format"):
        layers.RandomShear(0.2)(
            {"images": IMAGES, "bounding_boxes": {"boxes": np.zeros((4, 1, 4)), "labels": np.zeros((4, 1))}}
        )
    with pytest.raises(ValueError, match="'boxes' and 'labels'"):
        layers.RandomHue(0.2)({"images": IMAGES, "bounding_boxes": np.zeros((4, 1, 4))})


def test_max_num_bounding_boxes_pads_and_truncates_in_both_modes():
    layer = layers.MaxNumBoundingBoxes(3)
    boxes = {"boxes": np.arange(16, dtype="float32").reshape(2, 2, 4), "labels": np.array([[1, 2], [3, 4]])}
    for training in (True, False):
        out = layer({"images": IMAGES[:2], "bounding_boxes": boxes}, training=training)
        np.testing.assert_array_equal(out["images"].numpy(), IMAGES[:2])
        np.testing.assert_array_equal(out["bounding_boxes"]["boxes"].numpy()[:, 2], -np.ones((2, 4)))
        np.testing.assert_array_equal(out["bounding_boxes"]["labels"].numpy(), [[1, 2, -1], [3, 4, -1]])
    short = layers.MaxNumBoundingBoxes(1)({"images": IMAGES[:2], "bounding_boxes": boxes})
    np.testing.assert_array_equal(short["bounding_boxes"]["boxes"].numpy(), boxes["boxes"][:, :1])


def test_mixup_keeps_the_boxes_of_both_images():
    boxes = {"boxes": np.ones((4, 2, 4), "float32"), "labels": np.ones((4, 2), "int32")}
    out = layers.MixUp(seed=1)({"images": IMAGES, "bounding_boxes": boxes})
    assert out["bounding_boxes"]["boxes"].shape == (4, 4, 4) and out["bounding_boxes"]["labels"].shape == (4, 4)


@pytest.mark.parametrize(
    "layer",
    [
        lambda: layers.RandomShear(0.4, 0.3, interpolation="nearest", fill_mode="constant", seed=3),
        lambda: layers.RandomPerspective(scale=0.6, interpolation="nearest", seed=3),
        lambda: layers.RandomElasticTransform(interpolation="nearest", seed=3),
        lambda: layers.CutMix(seed=3),
    ],
    ids=["shear", "perspective", "elastic", "cutmix"],
)
def test_segmentation_masks_move_with_the_pixels(layer):
    out = layer()({"images": IMAGES, "segmentation_masks": IMAGES}, training=True)
    assert not np.allclose(out["images"].numpy(), IMAGES)
    np.testing.assert_allclose(out["segmentation_masks"].numpy(), out["images"].numpy(), rtol=1e-6)


def test_colour_layers_pass_masks_and_boxes_through():
    boxes = {"boxes": np.ones((4, 1, 4), "float32"), "labels": np.ones((4, 1), "int32")}
    out = layers.RandomBrightness(0.3, seed=1)(
        {"images": IMAGES, "segmentation_masks": IMAGES, "bounding_boxes": boxes}
    )
    np.testing.assert_array_equal(out["segmentation_masks"].numpy(), IMAGES)
    np.testing.assert_array_equal(out["bounding_boxes"]["boxes"].numpy(), boxes["boxes"])


def test_older_random_layers_take_keras_dict_inputs():
    labels = np.eye(4, dtype="float32")
    out = layers.RandomFlip("horizontal", seed=1)({"images": IMAGES, "labels": labels}, training=True)
    assert set(out) == {"images", "labels"}
    np.testing.assert_array_equal(out["labels"], labels)
    flipped = out["images"].numpy()
    for image, original in zip(flipped, IMAGES):
        assert np.array_equal(image, original) or np.array_equal(image, original[:, ::-1])
    contrast = layers.RandomContrast(0.5, seed=1)({"images": IMAGES, "segmentation_masks": IMAGES})
    np.testing.assert_array_equal(contrast["segmentation_masks"], IMAGES)
    with pytest.raises(ValueError, match="RandomRotation layer .* does not transform 'segmentation_masks'"):
        layers.RandomRotation(0.2)({"images": IMAGES, "segmentation_masks": IMAGES})
    pipeline = layers.Pipeline(
        [layers.RandomFlip("horizontal", seed=1), layers.RandomZoom(0.2, seed=2), layers.MixUp(seed=3)]
    )
    batches = tf.data.Dataset.from_tensor_slices({"images": IMAGES, "labels": labels}).batch(2).map(pipeline)
    for batch in batches:
        np.testing.assert_allclose(batch["labels"].numpy().sum(-1), 1.0, rtol=1e-6)
