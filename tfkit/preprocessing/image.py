"""``tfkit.preprocessing.image``: image files and arrays (see ``tfkit.utils.images``)."""

from tfkit.utils.images import array_to_img, img_to_array, load_img, save_img, smart_resize  # noqa: F401
