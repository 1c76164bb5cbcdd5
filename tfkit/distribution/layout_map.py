"""``LayoutMap``: which layout each variable (or layer output) gets, by a regex on its path.

layout_map = LayoutMap(mesh)
layout_map["dense.*kernel"] = (None, "model")     # a tuple becomes a TensorLayout on the map's mesh
layout_map["d2/output"] = ("batch", None)         # constrains a layer's output
layout_map["dense_1/kernel"]                      # the one layout whose key matches, else None
"""

from __future__ import annotations

import collections.abc
import re
from typing import Any, Iterator

from tfkit.distribution.mesh import DeviceMesh, TensorLayout


class LayoutMap(collections.abc.MutableMapping):
    """A dict from path patterns to `TensorLayout`s, read by `ModelParallel`.

    Keys are regular expressions matched (`re.search`) against variable
    paths such as `"d1/kernel"` (the layer name, then the weight name) and
    against `"<layer name>/output"` for layer outputs. A lookup returns the
    layout of the key equal to the path, else of the one key that matches;
    a path that matches several keys is an error, one that matches none
    gets `None` (the variable is replicated).

    Args:
        device_mesh: The `DeviceMesh` of every layout stored; a tuple stored
            becomes a `TensorLayout` on it.

    Raises:
        ValueError: When a key is set twice, a value is neither a tuple nor a
            `TensorLayout`, or a lookup matches several keys.

    Example:
        >>> mesh = tfkit.distribution.DeviceMesh((1, 1), ["batch", "model"], devices=["cpu:0"])
        >>> layout_map = tfkit.distribution.LayoutMap(mesh)
        >>> layout_map["dense.*kernel"] = (None, "model")
        >>> layout_map["dense_1/kernel"].axes
        (None, 'model')
        >>> layout_map["dense_1/bias"] is None
        True
    """

    def __init__(self, device_mesh: DeviceMesh) -> None:
        self._layouts: dict[str, TensorLayout] = {}
        self._device_mesh = device_mesh

    def __getitem__(self, key: str) -> TensorLayout | None:
        if key in self._layouts:
            return self._layouts[key]
        matching = [k for k in self._layouts if re.search(k, key)]
        if len(matching) > 1:
            raise ValueError(
                f"Path '{key}' matches several LayoutMap keys: {matching}. Make each variable or "
                f"output path match at most one key"
            )
        return self._layouts[matching[0]] if matching else None

    def __setitem__(self, key: str, layout: Any) -> None:
        if key in self._layouts:
            raise ValueError(f"LayoutMap: '{key}' is already set to {self._layouts[key]}; keys are set once")
        if isinstance(layout, tuple):
            layout = TensorLayout(axes=layout, device_mesh=None)
        if not isinstance(layout, TensorLayout):
            raise ValueError(
                f"LayoutMap['{key}']: expected a TensorLayout or a tuple of mesh axis names, got "
                f"{layout!r} ({type(layout).__name__})"
            )
        if layout.device_mesh is None:
            layout.device_mesh = self._device_mesh
        self._layouts[key] = layout

    def __delitem__(self, key: str) -> None:
        del self._layouts[key]

    def __len__(self) -> int:
        return len(self._layouts)

    def __iter__(self) -> Iterator[str]:
        return iter(self._layouts)

    @property
    def device_mesh(self) -> DeviceMesh:
        """The mesh of the layouts in this map."""
        return self._device_mesh
