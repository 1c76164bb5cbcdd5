"""Keras 3's distribution API on TensorFlow, built on DTensor.

    mesh = tfkit.distribution.DeviceMesh((2, 4), ["batch", "model"])
    layout_map = tfkit.distribution.LayoutMap(mesh)
    layout_map["dense.*kernel"] = (None, "model")
    tfkit.distribution.set_distribution(tfkit.distribution.ModelParallel(layout_map=layout_map))

Variables are created as DTensor variables laid out as the distribution says;
``fit``/``evaluate``/``predict`` split each batch on the batch axis; files hold
the gathered values, so they load on one device.
"""

from tfkit.distribution.devices import get_device_count, initialize, list_devices
from tfkit.distribution.distributions import DataParallel, Distribution, ModelParallel, distribution, set_distribution
from tfkit.distribution.layout_map import LayoutMap
from tfkit.distribution.mesh import DeviceMesh, TensorLayout
from tfkit.distribution.values import distribute_tensor

__all__ = [
    "DataParallel",
    "DeviceMesh",
    "Distribution",
    "LayoutMap",
    "ModelParallel",
    "TensorLayout",
    "distribute_tensor",
    "distribution",
    "get_device_count",
    "initialize",
    "list_devices",
    "set_distribution",
]
