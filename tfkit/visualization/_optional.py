"""Pillow and matplotlib, imported when a drawing or plotting function first needs them.

    Image, ImageDraw, ImageFont = pillow("draw_bounding_boxes()")
    plt = pyplot("plot_image_gallery()")
    patches = matplotlib_patches("plot_bounding_box_gallery()")

Neither is a dependency of tfkit; a missing one is an ``ImportError`` that names the function and the pip command.
"""

from __future__ import annotations

import importlib
from typing import Any


def pillow(who: str) -> tuple[Any, Any, Any]:
    """``PIL.Image``, ``PIL.ImageDraw``, ``PIL.ImageFont``, or an ImportError naming ``pip install pillow``."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as error:
        raise ImportError(
            f"{who} draws with Pillow, which is not installed. Install it with `pip install pillow`."
        ) from error
    return Image, ImageDraw, ImageFont


def _matplotlib(who: str, module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"{who} plots with matplotlib, which is not installed. Install it with `pip install matplotlib`."
        ) from error


def pyplot(who: str) -> Any:
    """``matplotlib.pyplot``, or an ImportError naming ``pip install matplotlib``."""
    return _matplotlib(who, "matplotlib.pyplot")


def matplotlib_patches(who: str) -> Any:
    """``matplotlib.patches`` (legend handles), or an ImportError naming ``pip install matplotlib``."""
    return _matplotlib(who, "matplotlib.patches")
