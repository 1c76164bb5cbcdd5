"""tfkit.visualization: pixels checked by hand (Pillow drawing), masks against Keras, galleries saved with Agg."""

import sys

import numpy as np
import pytest

import tfkit
from tfkit import visualization as vis

pytest.importorskip("PIL")


def _blank(batch=1, h=20, w=30, c=3, value=0):
    return np.full((batch, h, w, c), value, "uint8")


def test_reachable_as_in_keras():
    for name in [
        "draw_bounding_boxes",
        "draw_segmentation_masks",
        "plot_bounding_box_gallery",
        "plot_image_gallery",
        "plot_segmentation_mask_gallery",
    ]:
        assert callable(getattr(tfkit.visualization, name))


def test_box_edges_carry_the_colour_and_inside_stays():
    images = _blank()
    out = vis.draw_bounding_boxes(
        images,
        {"boxes": np.array([[[5, 4, 20, 15]]]), "labels": np.array([[0]])},
        "xyxy",
        color=(255, 0, 0),
        line_thickness=1,
    )
    assert out.shape == images.shape and out.dtype == np.uint8
    red = np.all(out[0] == [255, 0, 0], axis=-1)
    assert red[4, 5:21].all() and red[15, 5:21].all()  # top and bottom edges
    assert red[4:16, 5].all() and red[4:16, 20].all()  # left and right edges
    assert not red[5:15, 6:20].any()  # inside untouched
    assert red.sum() == 2 * 16 + 2 * 10  # nothing else drawn
    assert not images.any()  # the input is not modified


def test_thickness_covers_the_edge_and_negative_fills():
    thick = vis.draw_bounding_boxes(
        _blank(), {"boxes": [[[5, 4, 20, 15]]], "labels": [[1]]}, "xyxy", color=(0, 255, 0), line_thickness=3
    )
    green = np.all(thick[0] == [0, 255, 0], axis=-1)
    assert green[3:6, 10].all() and green[10, 4:7].all() and green[10, 19:22].all() and green[14:17, 10].all()
    assert not green[8, 10]
    filled = vis.draw_bounding_boxes(
        _blank(), {"boxes": [[[5, 4, 20, 15]]], "labels": [[1]]}, "xyxy", color=(9, 9, 9), line_thickness=-1
    )
    assert (filled[0, 4:16, 5:21] == 9).all() and filled[0, :4].sum() == 0


def test_formats_skipped_labels_float_images_and_channels_first():
    images = np.zeros((2, 10, 10, 3), "float32")
    boxes = {"boxes": np.array([[[0.2, 0.1, 0.6, 0.5]], [[0.2, 0.1, 0.6, 0.5]]]), "labels": np.array([[3], [-1]])}
    out = vis.draw_bounding_boxes(images, boxes, "rel_xyxy", color=(10, 20, 30), line_thickness=1)
    assert out.dtype == np.uint8 and out.shape == (2, 10, 10, 3)
    assert (out[0, 1, 2] == [10, 20, 30]).all() and (out[0, 5, 6] == [10, 20, 30]).all()
    assert out[1].sum() == 0  # label -1: not drawn
    bright = vis.draw_bounding_boxes(
        np.full((1, 4, 4, 3), 0.5, "float32"), {"boxes": [[[9, 9, 9, 9]]], "labels": [[-1]]}, "xyxy"
    )
    assert (bright == 127).all()  # floats <= 1 are scaled by 255
    chw = vis.draw_bounding_boxes(
        np.zeros((1, 3, 10, 12), "uint8"),
        {"boxes": [[[1, 2, 8, 6]]], "labels": [[0]]},
        "xyxy",
        color=(1, 2, 3),
        line_thickness=1,
        data_format="channels_first",
    )
    assert chw.shape == (1, 3, 10, 12) and list(chw[0, :, 2, 1]) == [1, 2, 3]


def test_labels_are_written_in_the_colour():
    out = vis.draw_bounding_boxes(
        _blank(h=80, w=120),
        {"boxes": [[[10, 50, 100, 70]]], "labels": [[7]], "confidences": [[0.9]]},
        "xyxy",
        class_mapping={7: "cat"},
        color=(0, 0, 255),
        line_thickness=1,
    )
    blue = np.all(out[0] == [0, 0, 255], axis=-1)
    assert blue[:48].any()  # text above the box (baseline at y - 8)
    assert not blue[:48, :8].any()  # starting at the box's left edge


def test_draw_bounding_boxes_errors():
    with pytest.raises(ValueError, match="4D"):
        vis.draw_bounding_boxes(np.zeros((4, 4, 3)), {"boxes": [], "labels": []}, "xyxy")
    with pytest.raises(TypeError, match="dict"):
        vis.draw_bounding_boxes(_blank(), [[1, 2, 3, 4]], "xyxy")
    with pytest.raises(ValueError, match="labels"):
        vis.draw_bounding_boxes(_blank(), {"boxes": np.zeros((1, 1, 4))}, "xyxy")


def test_missing_pillow_and_matplotlib_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="pip install pillow"):
        vis.draw_bounding_boxes(_blank(), {"boxes": np.zeros((1, 1, 4)), "labels": np.zeros((1, 1))}, "xyxy")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        vis.plot_image_gallery(_blank(), path="x.png")


def test_segmentation_masks_by_hand():
    images = np.full((1, 2, 2, 3), 100, "uint8")
    masks = np.array([[[0, 1], [2, -1]]])[..., None]
    colors = {0: (0, 0, 0), 1: (200, 0, 0), 2: (0, 200, 0)}
    out = vis.draw_segmentation_masks(images, masks, num_classes=3, color_mapping=colors, alpha=0.5)
    assert out.dtype == np.uint8 and out.shape == (1, 2, 2, 3)
    np.testing.assert_array_equal(out[0, 0, 0], [50, 50, 50])
    np.testing.assert_array_equal(out[0, 0, 1], [150, 50, 50])
    np.testing.assert_array_equal(out[0, 1, 0], [50, 150, 50])
    np.testing.assert_array_equal(out[0, 1, 1], [100, 100, 100])  # ignore_index=-1: untouched
    flat = vis.draw_segmentation_masks(images, masks[..., 0], num_classes=3, color_mapping=colors, blend=False)
    assert flat.dtype == np.float32
    np.testing.assert_array_equal(flat[0, 0, 1], [200, 0, 0])
    with pytest.raises(TypeError, match="integer"):
        vis.draw_segmentation_masks(images, masks.astype("float32"))


def test_segmentation_masks_match_keras():
    keras = pytest.importorskip("keras")
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (2, 6, 7, 3)).astype("uint8")
    masks = rng.integers(-1, 4, (2, 6, 7, 1)).astype("int32")
    for kwargs in [{}, {"num_classes": 5, "alpha": 0.3}, {"blend": False}, {"ignore_index": 0}]:
        ours = vis.draw_segmentation_masks(images, masks, **kwargs)
        theirs = np.asarray(keras.visualization.draw_segmentation_masks(images, masks, **kwargs))
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        np.testing.assert_array_equal(ours, theirs)


@pytest.fixture
def agg():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from PIL import Image

    return Image


def test_plot_image_gallery_saves_a_picture(tmp_path, agg):
    images = np.random.default_rng(1).random((4, 16, 16, 3)).astype("float32")
    path = tmp_path / "gallery.png"
    assert (
        vis.plot_image_gallery(
            images, y_true=np.array([0, 1, 0, 1]), label_map={0: "a", 1: "b"}, value_range=(0, 1), path=str(path)
        )
        is None
    )
    picture = np.asarray(agg.open(path))
    assert picture.ndim == 3 and picture.shape[0] > 50 and picture.shape[1] > 50
    with pytest.raises(ValueError, match="show"):
        vis.plot_image_gallery(images, path=str(path), show=True)
    with pytest.raises(ValueError, match="label_map"):
        vis.plot_image_gallery(images, y_pred=[0, 1, 0, 1], path=str(path))
    vis.plot_image_gallery(images[:, :, :, :1] * 255, rows=1, cols=5, path=str(tmp_path / "gray.png"))


def test_plot_image_gallery_same_picture_as_keras(tmp_path, agg):
    keras = pytest.importorskip("keras")
    images = np.random.default_rng(2).integers(0, 256, (5, 12, 12, 3)).astype("uint8")
    vis.plot_image_gallery(images, path=str(tmp_path / "ours.png"))
    keras.visualization.plot_image_gallery(images, path=str(tmp_path / "theirs.png"))
    ours, theirs = np.asarray(agg.open(tmp_path / "ours.png")), np.asarray(agg.open(tmp_path / "theirs.png"))
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)


def test_box_and_mask_galleries(tmp_path, agg):
    images = np.zeros((2, 32, 32, 3), "uint8")
    boxes = {"boxes": np.array([[[2, 2, 20, 20]], [[4, 4, 30, 30]]], "float32"), "labels": np.array([[0], [1]])}
    vis.plot_bounding_box_gallery(
        images,
        "xyxy",
        y_true=boxes,
        y_pred=boxes,
        class_mapping={0: "a", 1: "b"},
        legend=True,
        path=str(tmp_path / "boxes.png"),
    )
    assert (tmp_path / "boxes.png").stat().st_size > 0
    with pytest.raises(ValueError, match="legend"):
        vis.plot_bounding_box_gallery(
            images, "xyxy", y_true=boxes, legend=True, legend_handles=["x"], path=str(tmp_path / "b.png")
        )
    masks = np.zeros((2, 32, 32), "int64")
    masks[:, 8:16, 8:16] = 2
    vis.plot_segmentation_mask_gallery(
        images, num_classes=3, y_true=masks, y_pred=masks, path=str(tmp_path / "masks.png")
    )
    picture = np.asarray(agg.open(tmp_path / "masks.png"))
    assert picture.shape[1] > picture.shape[0]  # 3 columns, 2 rows


def test_draw_bounding_boxes_shape_and_dtype_as_keras():
    keras = pytest.importorskip("keras")
    pytest.importorskip("cv2")  # Keras draws with OpenCV
    images = np.random.default_rng(3).random((2, 16, 20, 3)).astype("float32")
    boxes = {"boxes": np.array([[[1, 2, 10, 12]], [[3, 3, 8, 9]]], "float32"), "labels": np.array([[0], [1]])}
    ours = vis.draw_bounding_boxes(images, boxes, "xyxy", class_mapping={0: "a"})
    theirs = keras.visualization.draw_bounding_boxes(images, boxes, "xyxy", class_mapping={0: "a"})
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert np.all(ours[0, 2, 1:11] == 128) and np.all(theirs[0, 2, 1:11] == 128)  # both draw the top edge grey
