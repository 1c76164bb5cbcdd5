"""tfkit.utils.bounding_boxes: numbers by hand / numpy, then side by side with Keras 3."""

import math

import numpy as np
import pytest

import tfkit
from tfkit.utils import bounding_boxes as bb

FORMATS = ["xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx", "rel_xywh", "rel_center_xywh"]
XYXY = np.array([[10.0, 20.0, 30.0, 60.0], [50.0, 60.0, 70.0, 80.0]], "float32")


def _np_from_xyxy(b, fmt, h, w):
    x1, y1, x2, y2 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    rel = fmt.startswith("rel_")
    fmt = fmt[4:] if rel else fmt
    sx, sy = (w, h) if rel else (1.0, 1.0)
    x1, x2, y1, y2 = x1 / sx, x2 / sx, y1 / sy, y2 / sy
    return np.stack(
        {
            "xyxy": (x1, y1, x2, y2),
            "yxyx": (y1, x1, y2, x2),
            "xywh": (x1, y1, x2 - x1, y2 - y1),
            "center_xywh": ((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1),
            "center_yxhw": ((y1 + y2) / 2, (x1 + x2) / 2, y2 - y1, x2 - x1),
        }[fmt],
        -1,
    )


def test_reachable_as_in_keras():
    assert tfkit.utils.bounding_boxes.convert_format is bb.convert_format
    for name in [
        "affine_transform",
        "clip_to_image_size",
        "compute_ciou",
        "compute_iou",
        "convert_format",
        "crop",
        "decode_deltas_to_boxes",
        "encode_box_to_deltas",
        "pad",
    ]:
        assert callable(getattr(tfkit.utils.bounding_boxes, name))


def test_convert_format_docstring_example():
    out = bb.convert_format(np.array([[10, 20, 30, 40], [50, 60, 70, 80]]), source="xyxy", target="xywh")
    assert out.dtype.name == "float32"
    np.testing.assert_array_equal(out.numpy(), [[10, 20, 20, 20], [50, 60, 20, 20]])
    rel = bb.convert_format(np.array([[10, 20, 30, 40]]), source="XYXY", target="rel_xyxy", height=200, width=300)
    np.testing.assert_allclose(rel.numpy(), [[10 / 300, 20 / 200, 30 / 300, 40 / 200]], rtol=1e-6)


@pytest.mark.parametrize("source", FORMATS)
@pytest.mark.parametrize("target", FORMATS)
def test_convert_format_against_numpy(source, target):
    src = _np_from_xyxy(XYXY, source, 100.0, 120.0)
    out = bb.convert_format(src, source=source, target=target, height=100, width=120)
    np.testing.assert_allclose(out.numpy(), _np_from_xyxy(XYXY, target, 100.0, 120.0), rtol=1e-5, atol=1e-5)


def test_convert_format_dict_dtype_and_errors():
    d = {"boxes": XYXY, "labels": np.array([1, 2])}
    out = bb.convert_format(d, source="xyxy", target="yxyx", dtype="float64")
    assert out is d and out["boxes"].dtype.name == "float64"
    np.testing.assert_array_equal(out["boxes"].numpy()[0], [20, 10, 60, 30])
    with pytest.raises(ValueError, match="last dimension of 4"):
        bb.convert_format(np.zeros((2, 3)), "xyxy", "xywh")
    with pytest.raises(ValueError, match="`target` must be one of"):
        bb.convert_format(XYXY, "xyxy", "corners")
    with pytest.raises(ValueError, match="height.*width"):
        bb.convert_format(XYXY, "xyxy", "rel_xyxy")


def test_clip_to_image_size():
    boxes = {
        "boxes": np.array([[-10.0, -20.0, 150.0, 160.0], [50.0, 40.0, 70.0, 80.0], [130.0, 0.0, 140.0, 9.0]]),
        "labels": np.array([0, 1, 2]),
    }
    out = bb.clip_to_image_size(boxes, height=100, width=120)
    np.testing.assert_array_equal(out["boxes"].numpy(), [[0, 0, 120, 100], [50, 40, 70, 80], [120, 0, 120, 9]])
    np.testing.assert_array_equal(out["labels"].numpy(), [0, 1, -1])  # no area left -> -1
    rel = bb.clip_to_image_size({"boxes": np.array([[-0.5, 0.2, 1.5, 0.4]], "float32")}, bounding_box_format="rel_xyxy")
    np.testing.assert_allclose(rel["boxes"].numpy(), [[0.0, 0.2, 1.0, 0.4]])
    assert "labels" not in rel
    with pytest.raises(NotImplementedError, match="xywh"):
        bb.clip_to_image_size(boxes, 10, 10, bounding_box_format="xywh")
    with pytest.raises(ValueError, match="height"):
        bb.clip_to_image_size(boxes)


def test_crop_and_pad_docstring_numbers():
    boxes = np.array([[10, 20, 50, 60], [70, 80, 100, 120]], "float32")
    out = bb.crop(boxes, top=10, left=20, height=40, width=30)
    np.testing.assert_array_equal(out.numpy(), [[0, 10, 30, 40], [30, 40, 30, 40]])
    np.testing.assert_array_equal(bb.pad(boxes, top=10, left=20).numpy(), [[30, 30, 70, 70], [90, 90, 120, 130]])
    with pytest.raises(NotImplementedError):
        bb.pad(boxes, 1, 1, bounding_box_format="yxyx")


def test_affine_transform_identity_and_rotation():
    boxes = np.array([[[2.0, 2.0, 4.0, 6.0]]], "float32")
    same = bb.affine_transform(
        boxes, np.zeros(1), np.zeros(1), np.zeros(1), np.ones(1), np.zeros(1), np.zeros(1), height=11, width=11
    )
    np.testing.assert_allclose(same.numpy(), boxes, atol=1e-5)
    shifted = bb.affine_transform(boxes[0], 0.0, 0.1, 0.2, 1.0, 0.0, 0.0, height=11, width=11)  # unbatched
    np.testing.assert_allclose(shifted.numpy(), [[3.0, 4.0, 5.0, 8.0]], atol=1e-5)
    # 90 degrees about the centre (5, 5): corners (x, y) -> (y, 10 - x) or its mirror; the box is transposed.
    turned = bb.affine_transform(boxes, np.array([90.0]), 0.0, 0.0, 1.0, 0.0, 0.0, height=11, width=11)
    box = turned.numpy()[0, 0]
    np.testing.assert_allclose(box[2] - box[0], 4.0, atol=1e-4)
    np.testing.assert_allclose(box[3] - box[1], 2.0, atol=1e-4)


def test_deltas_by_hand_and_round_trip():
    anchors = np.array([[0.0, 0.0, 10.0, 10.0]], "float32")
    boxes = np.array([[2.0, 4.0, 12.0, 24.0]], "float32")  # centre (7, 14), size 10 x 20
    deltas = bb.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy")  # center_yxhw: (dy, dx, log h, log w)
    np.testing.assert_allclose(deltas.numpy(), [[0.9, 0.2, math.log(2.0), 0.0]], rtol=1e-5, atol=1e-6)
    var = [0.1, 0.1, 0.2, 0.2]
    d2 = bb.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy", encoding_format="center_xywh", variance=var)
    np.testing.assert_allclose(d2.numpy(), [[2.0, 9.0, 0.0, 5 * math.log(2.0)]], rtol=1e-5, atol=1e-6)
    back = bb.decode_deltas_to_boxes(anchors, d2, "xyxy", "xyxy", encoded_format="center_xywh", variance=var)
    np.testing.assert_allclose(back.numpy(), boxes, rtol=1e-5)
    levels = bb.decode_deltas_to_boxes({"p3": anchors}, {"p3": deltas[None]}, "xyxy", "xywh")
    np.testing.assert_allclose(levels["p3"].numpy(), [[[2.0, 4.0, 10.0, 20.0]]], rtol=1e-5)
    with pytest.raises(ValueError, match="variance"):
        bb.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy", variance=[1.0, 1.0])
    with pytest.raises(ValueError, match="encoded_format"):
        bb.decode_deltas_to_boxes(anchors, deltas, "xyxy", "xyxy", encoded_format="xyxy")


def test_compute_iou_by_hand_shapes_and_masking():
    a = np.array([[0.0, 0.0, 10.0, 10.0], [-1.0, -1.0, -1.0, -1.0]], "float32")
    b = np.array([[5.0, 5.0, 15.0, 15.0], [0.0, 0.0, 10.0, 10.0], [20.0, 20.0, 30.0, 30.0]], "float32")
    iou = bb.compute_iou(a, b, "xyxy").numpy()
    assert iou.shape == (2, 3)
    np.testing.assert_allclose(iou[0], [25 / 175, 1.0, 0.0], rtol=1e-5)
    masked = bb.compute_iou(a, b, "xyxy", use_masking=True, mask_val=-7).numpy()
    np.testing.assert_array_equal(masked[1], [-7, -7, -7])
    assert bb.compute_iou(a[None], b, "xyxy").shape == (1, 2, 3)
    assert bb.compute_iou(a, np.stack([b, b]), "xyxy", use_masking=True).shape == (2, 2, 3)
    rel = bb.compute_iou(a[:1] / 20, b / 20, "rel_xyxy", image_shape=(20, 20, 3)).numpy()
    np.testing.assert_allclose(rel[0], iou[0], rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="image_shape"):
        bb.compute_iou(a, b, "rel_xyxy")
    with pytest.raises(ValueError, match="rank"):
        bb.compute_iou(a[0], b, "xyxy")


def test_compute_ciou_by_hand():
    a = np.array([[0.0, 0.0, 10.0, 10.0]], "float32")
    np.testing.assert_allclose(bb.compute_ciou(a, a, "xyxy").numpy(), [1.0], atol=1e-5)
    b = np.array([[10.0, 0.0, 20.0, 10.0]], "float32")  # touching: IoU 0, centres 10 apart, enclosing 20 x 10
    np.testing.assert_allclose(bb.compute_ciou(a, b, "xyxy").numpy(), [-100 / 500], rtol=1e-4)


def _random_boxes(rng, shape):
    xy = rng.uniform(0, 50, shape + (2,))
    wh = rng.uniform(1, 40, shape + (2,))
    return np.concatenate([xy, xy + wh], -1).astype("float32")


class TestAgainstKeras:
    @pytest.fixture(autouse=True)
    def _keras(self):
        self.keras = pytest.importorskip("keras")
        self.kb = self.keras.utils.bounding_boxes

    @pytest.mark.parametrize(
        "source,target",
        [("xyxy", "center_yxhw"), ("rel_xywh", "yxyx"), ("center_xywh", "rel_center_xywh"), ("rel_yxyx", "rel_xywh")],
    )
    def test_convert_format(self, source, target):
        boxes = _random_boxes(np.random.default_rng(0), (3, 5))
        ours = bb.convert_format(boxes, source, target, height=90, width=70)
        theirs = self.kb.convert_format(boxes, source, target, height=90, width=70)
        np.testing.assert_allclose(ours.numpy(), np.asarray(theirs), rtol=1e-5, atol=1e-5)

    def test_clip_crop_pad(self):
        boxes = _random_boxes(np.random.default_rng(1), (2, 6)) - 10
        labels = np.arange(12).reshape(2, 6)
        ours = bb.clip_to_image_size({"boxes": boxes, "labels": labels}, height=30, width=40)
        theirs = self.kb.clip_to_image_size({"boxes": boxes, "labels": labels}, height=30, width=40)
        np.testing.assert_allclose(ours["boxes"].numpy(), np.asarray(theirs["boxes"]))
        np.testing.assert_array_equal(ours["labels"].numpy(), np.asarray(theirs["labels"]))
        np.testing.assert_allclose(bb.crop(boxes, 3, 4, 20, 25).numpy(), np.asarray(self.kb.crop(boxes, 3, 4, 20, 25)))
        np.testing.assert_allclose(bb.pad(boxes, 3, 4).numpy(), np.asarray(self.kb.pad(boxes, 3, 4)))

    def test_affine_transform(self):
        rng = np.random.default_rng(2)
        boxes = _random_boxes(rng, (3, 4))
        args = [
            rng.uniform(-30, 30, 3).astype("float32"),
            rng.uniform(-0.2, 0.2, 3).astype("float32"),
            rng.uniform(-0.2, 0.2, 3).astype("float32"),
            rng.uniform(0.8, 1.2, 3).astype("float32"),
            rng.uniform(-10, 10, 3).astype("float32"),
            rng.uniform(-10, 10, 3).astype("float32"),
        ]
        ours = bb.affine_transform(boxes, *args, height=60, width=80, center_x=0.4, center_y=0.6)
        theirs = self.kb.affine_transform(
            boxes, *[self.keras.ops.convert_to_tensor(a) for a in args], height=60, width=80, center_x=0.4, center_y=0.6
        )
        np.testing.assert_allclose(ours.numpy(), np.asarray(theirs), rtol=1e-4, atol=1e-3)

    def test_deltas(self):
        rng = np.random.default_rng(3)
        anchors, boxes = _random_boxes(rng, (6,)), _random_boxes(rng, (2, 6))
        for fmt in ("center_yxhw", "center_xywh"):
            ours = bb.encode_box_to_deltas(anchors, boxes, "xyxy", "xywh", fmt, [0.1, 0.1, 0.2, 0.2])
            theirs = self.kb.encode_box_to_deltas(anchors, boxes, "xyxy", "xywh", fmt, [0.1, 0.1, 0.2, 0.2])
            np.testing.assert_allclose(ours.numpy(), np.asarray(theirs), rtol=1e-5, atol=1e-5)
            back = bb.decode_deltas_to_boxes(
                anchors, ours, "xyxy", "rel_xyxy", fmt, [0.1, 0.1, 0.2, 0.2], image_shape=(100, 90, 3)
            )
            keras_back = self.kb.decode_deltas_to_boxes(
                anchors, np.asarray(theirs), "xyxy", "rel_xyxy", fmt, [0.1, 0.1, 0.2, 0.2], image_shape=(100, 90, 3)
            )
            np.testing.assert_allclose(back.numpy(), np.asarray(keras_back), rtol=1e-5, atol=1e-5)

    def test_iou_and_ciou(self):
        rng = np.random.default_rng(4)
        a, b = _random_boxes(rng, (2, 5)), _random_boxes(rng, (2, 7))
        b[0, -1] = -1.0
        for x, y in [(a, b), (a[0], b[1]), (a, b[0]), (a[1], b)]:
            masking = x.ndim == y.ndim  # Keras's masking fails on mixed ranks; tfkit's broadcasts
            ours = bb.compute_iou(x, y, "xyxy", use_masking=masking)
            theirs = self.kb.compute_iou(x, y, "xyxy", use_masking=masking)
            np.testing.assert_allclose(ours.numpy(), np.asarray(theirs), rtol=1e-5, atol=1e-6)
        c = _random_boxes(rng, (2, 5))
        theirs = self.kb.compute_ciou(a, c, "xywh")
        np.testing.assert_allclose(bb.compute_ciou(a, c, "xywh").numpy(), np.asarray(theirs), rtol=1e-5, atol=1e-6)


def test_functions_work_inside_tf_data_and_tf_function():
    import tensorflow as tf

    boxes = np.array([[[10.0, 20.0, 30.0, 60.0]], [[0.0, 0.0, 5.0, 5.0]]], "float32")
    ds = tf.data.Dataset.from_tensor_slices({"boxes": boxes, "labels": np.array([[1], [2]])}).map(
        lambda d: bb.clip_to_image_size(
            bb.convert_format(d, "xyxy", "rel_xyxy", height=40, width=40), bounding_box_format="rel_xyxy"
        )
    )
    first = next(iter(ds))
    np.testing.assert_allclose(first["boxes"].numpy(), [[0.25, 0.5, 0.75, 1.0]])

    @tf.function
    def pipeline(b):
        moved = bb.affine_transform(b, tf.zeros([2]), 0.0, 0.0, 1.0, 0.0, 0.0, height=64, width=64)
        deltas = bb.encode_box_to_deltas(b[0], moved, "xyxy", "xyxy")
        return bb.compute_iou(moved, b, "xyxy"), deltas, bb.compute_ciou(moved, b, "xyxy")

    iou, deltas, ciou = pipeline(tf.constant(boxes))
    np.testing.assert_allclose(iou.numpy()[:, 0, 0], [1.0, 1.0], rtol=1e-5)
    assert deltas.shape == (2, 1, 4) and ciou.shape == (2, 1)
