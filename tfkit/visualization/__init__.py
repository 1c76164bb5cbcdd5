"""``tfkit.visualization``: Keras's box and mask drawing and image galleries (Pillow and matplotlib).

    drawn = tfkit.visualization.draw_bounding_boxes(images, {"boxes": b, "labels": l}, "xyxy")
    painted = tfkit.visualization.draw_segmentation_masks(images, masks)
    tfkit.visualization.plot_image_gallery(images, value_range=(0, 1), path="gallery.png")

Pillow and matplotlib are optional: each function imports what it needs on its
first call and says which ``pip install`` is missing.
"""

from tfkit.visualization.draw_bounding_boxes import draw_bounding_boxes  # noqa: F401
from tfkit.visualization.draw_segmentation_masks import draw_segmentation_masks  # noqa: F401
from tfkit.visualization.plot_bounding_box_gallery import plot_bounding_box_gallery  # noqa: F401
from tfkit.visualization.plot_image_gallery import plot_image_gallery  # noqa: F401
from tfkit.visualization.plot_segmentation_mask_gallery import plot_segmentation_mask_gallery  # noqa: F401
