"""``DataParallel`` and ``ModelParallel``: where a model's variables, batches and activations live.

    set_distribution(DataParallel())                            # every device holds the model, the batch is split
    set_distribution(ModelParallel(layout_map=layout_map))      # variables split as the map says
    with ModelParallel(layout_map=layout_map).scope(): ...      # for a block of code only

A distribution only answers questions (which layout for this variable, this
batch, this output); ``tfkit.distribution.values`` makes the DTensors.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator, Sequence

from tfkit.distribution import devices as devices_module
from tfkit.distribution import process_part
from tfkit.distribution.layout_map import LayoutMap
from tfkit.distribution.mesh import DeviceMesh, TensorLayout

_current: list[Any] = [None]  # process-wide, as Keras's: threads that trace steps ahead see it too


class Distribution:
    """Base class of distributions: a device mesh and the layouts of data, variables and tensors.

    Subclasses answer three questions: `get_data_layout` (how a batch is
    split), `get_variable_layout` (where a variable's values live) and
    `get_tensor_layout` (a layout an intermediate tensor is constrained to,
    or `None`). Set one for the whole program with `set_distribution`, or for
    a block with `scope()`.

    Args:
        device_mesh: The `DeviceMesh` the distribution spans.
        batch_dim_name: The mesh axis that splits batches. Defaults to
            `None` (the mesh's first axis).
        auto_shard_dataset: Whether each process reads its own part of a
            dataset when several processes share the mesh. Defaults to
            `True`.

    Example:
        >>> mesh = tfkit.distribution.DeviceMesh((1,), ["batch"], devices=["cpu:0"])
        >>> tfkit.distribution.DataParallel(device_mesh=mesh).batch_dim_name
        'batch'
    """

    def __init__(
        self, device_mesh: DeviceMesh, batch_dim_name: str | None = None, auto_shard_dataset: bool = True
    ) -> None:
        self._device_mesh = device_mesh
        self._batch_dim_name = batch_dim_name or device_mesh.axis_names[0]
        if self._batch_dim_name not in device_mesh.axis_names:
            raise ValueError(
                f"{type(self).__name__}: batch_dim_name '{self._batch_dim_name}' is not an axis of the "
                f"mesh (its axes are {device_mesh.axis_names})"
            )
        self.auto_shard_dataset = auto_shard_dataset

    @property
    def device_mesh(self) -> DeviceMesh:
        """The mesh this distribution spans."""
        return self._device_mesh

    @property
    def batch_dim_name(self) -> str:
        """The mesh axis that splits each batch."""
        return self._batch_dim_name

    def get_data_layout(self, data_shape: Sequence[int]) -> TensorLayout:
        """Returns the layout of a batch of `data_shape`: its first axis split over `batch_dim_name`.

        Args:
            data_shape: The batch's shape (its first axis is the batch).

        Returns:
            A `TensorLayout`.
        """
        return TensorLayout([self._batch_dim_name] + [None] * (len(data_shape) - 1), self._device_mesh)

    def get_variable_layout(self, variable: Any) -> TensorLayout:
        """Returns the layout of a variable (anything with `path` and `shape`): replicated here.

        Args:
            variable: The variable, or an object with its `path` and `shape`.

        Returns:
            A `TensorLayout`.
        """
        return TensorLayout([None] * len(variable.shape), self._device_mesh)

    def get_tensor_layout(self, path: str) -> TensorLayout | None:
        """Returns the layout an intermediate tensor such as `"d2/output"` is constrained to, or `None`.

        Args:
            path: The tensor's path (a layer's name and `/output`).

        Returns:
            A `TensorLayout` or `None` (no constraint).
        """
        return None

    @contextlib.contextmanager
    def scope(self) -> Iterator[None]:
        """Makes this the current distribution inside a `with` block, then restores the previous one.

        Yields:
            None.
        """
        previous = _current[0]
        set_distribution(self)
        try:
            yield
        finally:
            set_distribution(previous)

    def distribute_dataset(self, dataset: Any) -> Any:
        """Returns `dataset` as this process should read it (the same dataset with one process).

        When several processes share the mesh and `auto_shard_dataset` is
        `True`, each batch is cut to the rows this process's devices hold (a
        global batch of 64 on a `DataParallel` mesh of 2 processes: 32 rows
        each); `fit`, `evaluate` and `predict` assemble the global batch on the
        mesh from every process's part.

        Args:
            dataset: A `tf.data.Dataset` of global batches.

        Returns:
            The dataset.
        """
        part = process_part.process_part(self)
        return dataset if part is None else process_part.read_own_rows(dataset, part)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} mesh={self._device_mesh}, batch_dim_name='{self._batch_dim_name}'>"


class DataParallel(Distribution):
    """Data parallelism: every device holds all variables, each batch is split across the devices.

    Gradients are summed across devices inside each compiled step, so
    training follows the single-device run (the same weights after N steps,
    within float tolerance). Give a mesh, or devices, or neither (every
    device `list_devices()` finds, on a 1-D mesh with the axis `"batch"`).

    Args:
        device_mesh: A 1-D `DeviceMesh`. Defaults to `None`.
        devices: Device names for a 1-D mesh when `device_mesh` is `None`.
            Defaults to `None` (`list_devices()`).
        auto_shard_dataset: Whether each process reads its own part of a
            dataset when several processes share the mesh. Defaults to
            `True`.

    Raises:
        ValueError: If `device_mesh` is not 1-D.

    Example:
        >>> dp = tfkit.distribution.DataParallel(devices=["cpu:0"])
        >>> dp.device_mesh.shape, dp.batch_dim_name
        ((1,), 'batch')
        >>> dp.get_data_layout((32, 10)).axes
        ('batch', None)
    """

    def __init__(
        self,
        device_mesh: DeviceMesh | None = None,
        devices: Sequence[str] | None = None,
        auto_shard_dataset: bool = True,
    ) -> None:
        if device_mesh is None:
            devices = list(devices) if devices is not None else devices_module.list_devices()
            device_mesh = DeviceMesh((len(devices),), ["batch"], devices)
        elif len(device_mesh.shape) != 1:
            raise ValueError(
                f"DataParallel needs a 1-D mesh, got shape {device_mesh.shape}; use ModelParallel "
                f"with a LayoutMap for a mesh with a model axis"
            )
        super().__init__(device_mesh, device_mesh.axis_names[0], auto_shard_dataset)


class ModelParallel(Distribution):
    """Model parallelism: variables split over the mesh as a `LayoutMap` says, batches split on one axis.

    A variable whose path matches a key of `layout_map` gets that layout
    (its optimizer slots get the same); every other variable is
    replicated. Keys ending in `/output` constrain the output of the layer
    they name. Combined with a batch axis, a 2-D mesh `("batch", "model")`
    gives data and model parallelism at once.

    Args:
        layout_map: The `LayoutMap`; its mesh is the distribution's mesh.
        batch_dim_name: The mesh axis that splits batches. Defaults to
            `None` (the mesh's first axis).
        auto_shard_dataset: Whether each process reads its own part of a
            dataset when several processes share the mesh. Defaults to
            `True`.
        **kwargs: `device_mesh=` is accepted for code written for Keras
            3.0-3.2 (deprecated there) and must be the map's mesh.

    Raises:
        ValueError: If `layout_map` is missing, or `device_mesh` differs from
            its mesh.
        TypeError: For another keyword argument.

    Example:
        >>> mesh = tfkit.distribution.DeviceMesh((1, 1), ["batch", "model"], devices=["cpu:0"])
        >>> layout_map = tfkit.distribution.LayoutMap(mesh)
        >>> layout_map["d1/kernel"] = (None, "model")
        >>> mp = tfkit.distribution.ModelParallel(layout_map=layout_map, batch_dim_name="batch")
        >>> mp.get_tensor_layout("d1/kernel").axes
        (None, 'model')
    """

    def __init__(
        self,
        *,
        layout_map: LayoutMap | None = None,
        batch_dim_name: str | None = None,
        auto_shard_dataset: bool = True,
        **kwargs: Any,
    ) -> None:
        mesh = kwargs.pop("device_mesh", None)
        if kwargs:
            raise TypeError(f"ModelParallel got unexpected keyword argument(s) {sorted(kwargs)}")
        if layout_map is None:
            raise ValueError("ModelParallel needs layout_map=LayoutMap(mesh) saying how variables are split")
        if mesh is not None:
            warnings.warn(
                "ModelParallel(device_mesh=...) is deprecated in Keras; the LayoutMap's mesh is used",
                DeprecationWarning,
                stacklevel=2,
            )
            if mesh is not layout_map.device_mesh:
                raise ValueError("ModelParallel: device_mesh differs from layout_map.device_mesh")
        super().__init__(layout_map.device_mesh, batch_dim_name, auto_shard_dataset)
        self._layout_map = layout_map

    def get_variable_layout(self, variable: Any) -> TensorLayout:
        layout = self._layout_map[variable.path]
        return layout if layout is not None else super().get_variable_layout(variable)

    def get_tensor_layout(self, path: str) -> TensorLayout | None:
        return self._layout_map[path]


def distribution() -> Distribution | None:
    """Returns the current distribution, or `None` (one device).

    Returns:
        The `Distribution` set by `set_distribution` or the innermost
        `scope()`, or `None`.

    Example:
        >>> tfkit.distribution.distribution() is None
        True
    """
    return _current[0]


def set_distribution(value: Distribution | None) -> None:
    """Sets the distribution of every model built, trained or run from now on (`None`: one device).

    Variables are created where the distribution says at creation, so set it
    before building the model. `fit`, `evaluate` and `predict` split each
    batch as the distribution says.

    Args:
        value: A `Distribution` (`DataParallel`, `ModelParallel`) or `None`.

    Returns:
        None.

    Raises:
        ValueError: If `value` is neither a `Distribution` nor `None`.

    Example:
        >>> dp = tfkit.distribution.DataParallel(devices=["cpu:0"])
        >>> tfkit.distribution.set_distribution(dp)
        >>> tfkit.distribution.distribution() is dp
        True
        >>> tfkit.distribution.set_distribution(None)
    """
    if value is not None and not isinstance(value, Distribution):
        raise ValueError(f"set_distribution: expected a Distribution or None, got {value!r}")
    _current[0] = value
