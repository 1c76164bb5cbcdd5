"""Resizing and CenterCrop take Keras's dict of data (images, labels, segmentation masks), as Keras 3's do.

KerasHub's image guides hand ``{"images": ..., "labels": ...}`` to a preprocessing pipeline;
the images (and masks) are transformed, labels pass through, with Keras's numbers.
"""

import numpy as np
import pytest

import tfkit


@pytest.mark.parametrize("name, args", [("Resizing", (4, 6)), ("CenterCrop", (4, 4))])
def test_dict_inputs_as_keras(name, args):
    keras = pytest.importorskip("keras")
    rng = np.random.default_rng(0)
    data = {
        "images": rng.random((2, 8, 8, 3)).astype("float32"),
        "labels": np.array([[0.0, 1.0], [1.0, 0.0]], "float32"),
        "segmentation_masks": rng.integers(0, 4, (2, 8, 8, 1)).astype("float32"),
    }
    ours = getattr(tfkit.layers, name)(*args)(data)
    theirs = getattr(keras.layers, name)(*args)(data)
    assert sorted(ours) == sorted(theirs) == sorted(data)
    for key in data:
        np.testing.assert_allclose(np.asarray(ours[key]), np.asarray(theirs[key]), atol=1e-6)
    assert set(np.unique(np.asarray(ours["segmentation_masks"]))) <= {0.0, 1.0, 2.0, 3.0}  # nearest: no blends


def test_resizing_a_dict_keeps_labels_and_refuses_what_it_cannot_transform():
    out = tfkit.layers.Resizing(2, 2)({"images": np.ones((1, 4, 4, 3)), "labels": np.array([3])})
    assert out["images"].shape == (1, 2, 2, 3) and np.asarray(out["labels"]).tolist() == [3]
    with pytest.raises(ValueError, match="Resizing layer 'resizing.*bounding_boxes.*not transformed"):
        tfkit.layers.Resizing(2, 2, name="resizing_boxes")(
            {"images": np.ones((1, 4, 4, 3)), "bounding_boxes": {"boxes": np.zeros((1, 1, 4))}}
        )
    with pytest.raises(ValueError, match="CenterCrop layer .* got keys \\['labels'\\]"):
        tfkit.layers.CenterCrop(2, 2)({"labels": np.array([3])})
