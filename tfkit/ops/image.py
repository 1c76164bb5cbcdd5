"""``tfkit.ops.image``: Keras 3's ``keras.ops.image`` on TensorFlow (same names, arguments and dtypes).

    from tfkit import ops
    patches = ops.image.extract_patches(images, 16)               # ViT patches, as keras-io writes them
    small = ops.image.resize(images, (32, 32)); gray = ops.image.rgb_to_grayscale(small)

``data_format=None`` means ``tfkit.backend.image_data_format()``. Results
keep the input's dtype (integer images are rounded back where Keras rounds).
Called on ``tfkit.Input``-derived tensors each op records a functional-graph
node named ``tfkit.ops.image.<name>``, which saves and reloads by name.
"""

from __future__ import annotations

from typing import Any

from tfkit.base.symbolic import traceable
from tfkit.ops.image_color import hsv_to_rgb, rgb_to_grayscale, rgb_to_hsv
from tfkit.ops.image_filter import gaussian_blur, sobel_edges, ssim
from tfkit.ops.image_patches import extract_patches, extract_patches_3d
from tfkit.ops.image_resize import crop_images, pad_images, resize, scale_and_translate
from tfkit.ops.image_sample import elastic_transform, map_coordinates
from tfkit.ops.image_warp import affine_transform, perspective_transform

__all__ = [
    "affine_transform",
    "crop_images",
    "elastic_transform",
    "extract_patches",
    "extract_patches_3d",
    "gaussian_blur",
    "hsv_to_rgb",
    "map_coordinates",
    "pad_images",
    "perspective_transform",
    "resize",
    "rgb_to_grayscale",
    "rgb_to_hsv",
    "scale_and_translate",
    "sobel_edges",
    "ssim",
]

for _name in __all__:
    if _name != "extract_patches_3d":
        globals()[_name] = traceable("tfkit.ops.image")(globals()[_name])
del _name


def _volume_patches(volumes: Any, size: Any, strides: Any = None, *args: Any, **kwargs: Any) -> Any:
    """``extract_patches_3d`` on symbolic tensors: ``extract_patches`` with a 3-tuple size, as Keras 3 records it
    (its ``ExtractPatches`` operation; Keras has no operation of the 3-D name)."""
    size = (size,) * 3 if isinstance(size, int) and not isinstance(size, bool) else size
    return extract_patches(volumes, size, strides, *args, **kwargs)


extract_patches_3d = traceable("tfkit.ops.image", decompose=_volume_patches)(extract_patches_3d)
