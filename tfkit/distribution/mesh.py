"""``DeviceMesh`` and ``TensorLayout``: Keras 3's description of devices and shardings, as DTensor meshes and layouts.

    mesh = DeviceMesh(shape=(2, 4), axis_names=("batch", "model"))
    layout = TensorLayout((None, "model"), mesh)    # columns split over the 4 "model" devices
    layout.backend_layout                           # the tf.experimental.dtensor.Layout

A mesh is a grid of devices with named axes; a layout says, for each axis of a
tensor, which mesh axis splits it (``None``: every device holds all of it).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from tensorflow.experimental import dtensor

from tfkit.distribution import devices as devices_module


class DeviceMesh:
    """A grid of devices with a name for each axis: the devices a distribution runs on.

    A 1-D mesh `(8,)` with the axis `"batch"` is data parallelism over 8
    devices; a 2-D mesh `(2, 4)` with axes `("batch", "model")` splits each
    batch in 2 and each sharded weight in 4. tfkit builds a DTensor `Mesh`
    from it (`backend_mesh`).

    Args:
        shape: Tuple of ints, the size of each mesh axis; their product is
            the number of devices.
        axis_names: Tuple of strings, one name per axis of `shape`.
        devices: Optional list of device names (`"gpu:0"`, ...), or an array
            of them shaped as `shape`. Defaults to `None`:
            `tfkit.distribution.list_devices()`.

    Raises:
        ValueError: If `shape` or `axis_names` is empty, their lengths
            differ, or the number of devices is not the product of `shape`.

    Example:
        >>> mesh = tfkit.distribution.DeviceMesh((1,), ["batch"], devices=["cpu:0"])
        >>> mesh.shape, mesh.axis_names
        ((1,), ['batch'])
        >>> mesh.devices
        array(['cpu:0'], dtype='<U5')
    """

    def __init__(self, shape: Sequence[int], axis_names: Sequence[str], devices: Any = None) -> None:
        if not shape or not axis_names:
            raise ValueError(
                f"DeviceMesh: shape and axis_names cannot be empty, got shape={shape!r} and axis_names={axis_names!r}"
            )
        if len(shape) != len(axis_names):
            raise ValueError(
                f"DeviceMesh: shape and axis_names must have the same length, got shape={shape!r} "
                f"and axis_names={axis_names!r}"
            )
        devices = np.array(devices_module.list_devices() if devices is None else devices)
        if int(np.prod(shape)) != devices.size:
            raise ValueError(
                f"DeviceMesh: shape {tuple(shape)} needs {int(np.prod(shape))} devices, but "
                f"{devices.size} were given ({devices.flatten().tolist()}). To test on one machine, "
                f"split the CPU into logical devices with tf.config.set_logical_device_configuration "
                f"before TensorFlow starts"
            )
        self._shape = tuple(int(s) for s in shape)
        self._axis_names = list(axis_names)
        self._devices = np.reshape(devices, self._shape)
        self._backend_mesh: Any = None

    @property
    def shape(self) -> tuple[int, ...]:
        """The size of each axis."""
        return self._shape

    @property
    def axis_names(self) -> list[str]:
        """The name of each axis."""
        return self._axis_names

    @property
    def devices(self) -> np.ndarray:
        """The device names, as an array shaped as the mesh."""
        return self._devices

    @property
    def backend_mesh(self) -> dtensor.Mesh:
        """The DTensor `Mesh` of these devices (made once)."""
        if self._backend_mesh is None:
            dims = list(zip(self._axis_names, self._shape))
            if dtensor.num_clients() > 1:  # several processes: each names its local devices
                kind = str(self._devices.flat[0]).split(":")[0].upper()
                self._backend_mesh = dtensor.create_distributed_mesh(dims, device_type=kind)
            else:
                names = [devices_module.tensorflow_name(str(d)) for d in self._devices.flatten()]
                self._backend_mesh = dtensor.create_mesh(dims, devices=names)
        return self._backend_mesh

    def axis_size(self, name: str) -> int:
        """The size of the axis called ``name``."""
        return self._shape[self._axis_names.index(name)]

    def __repr__(self) -> str:
        return f"<DeviceMesh shape={self._shape}, axis_names={self._axis_names}>"


class TensorLayout:
    """How a tensor is split over a `DeviceMesh`: a mesh axis name (or `None`) per tensor axis.

    `TensorLayout((None, "model"))` splits a kernel's columns over the mesh
    axis `"model"` and keeps its rows whole; `None` on every axis replicates
    the tensor on every device. The mesh may be given later: a `LayoutMap`
    sets its own mesh on the layouts stored in it.

    Args:
        axes: Tuple of mesh axis names or `None`, one per tensor axis.
        device_mesh: The `DeviceMesh` the names refer to. Defaults to `None`
            (set later, once).

    Raises:
        ValueError: If an axis name is not one of the mesh's axes, or a mesh
            is set twice.

    Example:
        >>> mesh = tfkit.distribution.DeviceMesh((1,), ["model"], devices=["cpu:0"])
        >>> layout = tfkit.distribution.TensorLayout((None, "model"), mesh)
        >>> layout.axes
        (None, 'model')
    """

    def __init__(self, axes: Sequence[str | None], device_mesh: DeviceMesh | None = None) -> None:
        self._axes = tuple(axes)
        self._device_mesh: DeviceMesh | None = None
        if device_mesh is not None:
            self.device_mesh = device_mesh

    @property
    def axes(self) -> tuple[str | None, ...]:
        """The mesh axis name (or `None`) of each tensor axis."""
        return self._axes

    @property
    def device_mesh(self) -> DeviceMesh | None:
        """The mesh the axis names refer to."""
        return self._device_mesh

    @device_mesh.setter
    def device_mesh(self, mesh: DeviceMesh) -> None:
        if self._device_mesh is not None and self._device_mesh is not mesh:
            raise ValueError("TensorLayout: its device_mesh is already set; a layout belongs to one mesh")
        unknown = [a for a in self._axes if a is not None and a not in mesh.axis_names]
        if unknown:
            raise ValueError(
                f"TensorLayout{self._axes}: axis names {unknown} are not axes of the mesh "
                f"(its axes are {mesh.axis_names})"
            )
        self._device_mesh = mesh

    @property
    def backend_layout(self) -> dtensor.Layout:
        """The DTensor `Layout` of this layout."""
        if self._device_mesh is None:
            raise ValueError(
                f"TensorLayout{self._axes} has no device_mesh: give one, or store the layout in a "
                f"LayoutMap, which gives it the map's mesh"
            )
        specs = [dtensor.UNSHARDED if a is None else a for a in self._axes]
        return dtensor.Layout(specs, self._device_mesh.backend_mesh)

    def check_shape(self, shape: Sequence[int], what: str) -> None:
        """Raise a ValueError naming ``what`` unless this layout fits a tensor of ``shape``."""
        shape = tuple(None if s is None else int(s) for s in shape)
        if len(shape) != len(self._axes):
            raise ValueError(
                f"{what} has shape {shape} ({len(shape)} axes), but its layout {self._axes} has {len(self._axes)} axes"
            )
        for dim, (size, axis) in enumerate(zip(shape, self._axes)):
            if (
                axis is not None
                and size is not None
                and self._device_mesh is not None
                and size % self._device_mesh.axis_size(axis)
            ):
                raise ValueError(
                    f"{what} has shape {shape}: axis {dim} ({size}) is split over mesh axis "
                    f"'{axis}' of size {self._device_mesh.axis_size(axis)}, which does not divide it"
                )

    def __repr__(self) -> str:
        return f"<TensorLayout axes={self._axes}, device_mesh={self._device_mesh}>"
