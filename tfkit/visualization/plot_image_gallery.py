"""``plot_image_gallery``: a grid of images, with optional true/predicted class names, via matplotlib.

    plot_image_gallery(images, value_range=(0, 1))                       # shows the figure
    plot_image_gallery(images, y_true=labels, label_map={0: "cat", 1: "dog"}, path="gallery.png")
    plot_image_gallery(images, rows=2, cols=4, scale=3, dpi=100, path="grid.png")

matplotlib is imported on the first call (``pip install matplotlib`` if it is missing).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfkit.config import image_data_format
from tfkit.visualization import _optional
from tfkit.visualization.draw_bounding_boxes import to_numpy


def to_display_range(images: np.ndarray, value_range: Any) -> np.ndarray:
    """Images in ``value_range`` rescaled to 0-255 (float32), as Keras's galleries do; unchanged if already so."""
    low, high = value_range
    if low == 0 and high == 255:
        return images
    images = images.astype("float32")
    return (images - np.float32(low)) / (np.float32(high) - np.float32(low)) * np.float32(255)


def plot_image_gallery(
    images: Any,
    y_true: Any = None,
    y_pred: Any = None,
    label_map: dict | None = None,
    rows: int | None = None,
    cols: int | None = None,
    value_range: Any = (0, 255),
    scale: float = 2,
    path: str | None = None,
    show: bool | None = None,
    transparent: bool = True,
    dpi: int = 60,
    legend_handles: list | None = None,
    data_format: str | None = None,
) -> None:
    """Plots a batch of images in a grid, optionally titled with their classes.

    matplotlib is imported on the first call; a missing matplotlib is an `ImportError` naming
    `pip install matplotlib`. Only the first `rows * cols` images are shown. The figure is saved
    to `path`, or shown with `matplotlib.pyplot.show`.

    Args:
        images: A batch of images, a 4D tensor or array `(batch, height, width, channels)` (or
            channels first, see `data_format`); one-channel images are shown in gray.
        y_true: Optional true class indices, one per image; each image is titled
            `"Label: <name>"`. Defaults to `None`.
        y_pred: Optional predicted class indices, one per image; titled `"Pred: <name>"`.
            Defaults to `None`.
        label_map: A dict mapping class indices to names, required with `y_true` or `y_pred`
            (unknown indices show `"Unknown"`). Defaults to `None`.
        rows: The number of rows. Defaults to `None`, for `ceil(sqrt(batch))`.
        cols: The number of columns. Defaults to `None`, for `batch // rows` (at least 1).
        value_range: The `(low, high)` range of the image values, rescaled to `[0, 255]` for
            display. Defaults to `(0, 255)`.
        scale: The size of each image in the figure, in inches. Defaults to `2`.
        path: Optional file to save the figure to (the figure is then closed). Defaults to
            `None`.
        show: Whether to show the figure. Defaults to `None`, for `path is None`.
        transparent: Whether the saved figure has a transparent background. Defaults to `True`.
        dpi: The resolution of the saved figure, in dots per inch. Defaults to `60`.
        legend_handles: Optional matplotlib legend handles shown at the bottom of the figure.
            Defaults to `None`.
        data_format: `"channels_last"` or `"channels_first"`. Defaults to `None`, for
            `tfkit.config.image_data_format()`.

    Raises:
        ValueError: If both `path` and `show=True` are given, if `y_true` or `y_pred` is given
            without `label_map`, or if `images` is not 4D.
        ImportError: If matplotlib is not installed.

    Example:
        >>> import importlib.util
        >>> images = np.random.randint(0, 256, (4, 8, 8, 3))
        >>> if importlib.util.find_spec("matplotlib"):  # matplotlib is an optional dependency
        ...     tfkit.visualization.plot_image_gallery(images, rows=2, cols=2, path="gallery.png")
    """
    who = "plot_image_gallery()"
    plt = _optional.pyplot(who)
    if path is not None and show:
        raise ValueError(
            f"{who} expects either `path` (save the figure) or `show=True` (display it), not both; "
            f"got path={path!r} and show={show!r}"
        )
    if (y_true is not None or y_pred is not None) and label_map is None:
        raise ValueError(f"{who}: `label_map` (class index -> name) is required when `y_true` or `y_pred` is given")
    show = show if show is not None else path is None
    data_format = data_format or image_data_format()
    images = to_numpy(images)
    if images.ndim != 4:
        raise ValueError(
            f"{who} needs the images batched together in a 4D array (batch, height, width, "
            f"channels); got shape {images.shape}"
        )
    batch_size = images.shape[0]
    rows = rows or int(math.ceil(math.sqrt(batch_size)))
    cols = cols or max(int(batch_size // rows), 1)
    images = images[: rows * cols]
    if data_format == "channels_first":
        images = images.transpose(0, 2, 3, 1)
    images = to_display_range(images, value_range)
    y_true = None if y_true is None else to_numpy(y_true)
    y_pred = None if y_pred is None else to_numpy(y_pred)

    fig, axes = plt.subplots(
        nrows=rows,
        ncols=cols,
        figsize=(cols * scale, rows * scale),
        frameon=False,
        layout="tight",
        squeeze=False,
        sharex="row",
        sharey="col",
    )
    fig.subplots_adjust(wspace=0, hspace=0)
    if legend_handles is not None:
        fig.legend(handles=legend_handles, loc="lower center")
    for index, axis in enumerate(axes.reshape(-1)):
        axis.axis("off")
        if index >= len(images):
            continue
        image = images[index].astype("uint8")
        axis.imshow(image[..., 0] if image.shape[-1] == 1 else image, cmap="gray" if image.shape[-1] == 1 else None)
        axis.margins(x=0, y=0)
        title = []
        if y_true is not None and index < len(y_true):
            title.append(f"Label: {label_map.get(_key(y_true[index]), 'Unknown')}")
        if y_pred is not None and index < len(y_pred):
            title.append(f"Pred: {label_map.get(_key(y_pred[index]), 'Unknown')}")
        if title:
            axis.set_title("  ".join(title), fontsize=8)
    if path is not None:
        plt.savefig(fname=path, pad_inches=0, bbox_inches="tight", transparent=transparent, dpi=dpi)
        plt.close(fig)
    elif show:
        plt.show()
        plt.close(fig)


def _key(value: Any) -> Any:
    """A numpy scalar label as the Python value ``label_map``'s keys are."""
    return value.item() if isinstance(value, np.generic) else value
