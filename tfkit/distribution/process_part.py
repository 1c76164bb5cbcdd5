"""Each process of a multi-process mesh reads only its part of every batch (``auto_shard_dataset``).

    part = process_part(dist)            # None: one process, or auto_shard_dataset=False
    dataset = read_own_rows(dataset, part)           # each batch cut to this process's rows
    batch = assemble(local_batch, layout, part)      # the global DTensor, from this process's rows

A batch split over the mesh axis ``batch`` of size ``n`` gives device ``d`` the
rows of shard ``coordinate(d)``: ``[c * B/n, (c + 1) * B/n)``. A process whose
devices hold the shards ``first .. first + count - 1`` needs only those rows,
one block of the global batch, and packs them onto its own devices; no process
copies the global batch (Keras 3 on JAX does the same with
``jax.make_array_from_process_local_data``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import tensorflow as tf
from tensorflow.experimental import dtensor

__all__: list[str] = []


class ProcessPart(NamedTuple):
    """This process's shards of a batch: ``count`` consecutive shards from ``first``, of ``shards``."""

    first: int
    count: int
    shards: int


def process_part(dist: Any) -> ProcessPart | None:
    """The part of each batch this process reads under ``dist``, or ``None`` to read whole batches.

    ``None`` with one process, with ``auto_shard_dataset=False``, or when this process's devices hold
    shards that are not one block (a mesh whose devices are not in process order).
    """
    if dtensor.num_clients() <= 1 or not dist.auto_shard_dataset:
        return None
    mesh = dist.device_mesh.backend_mesh
    axis = dist.batch_dim_name
    coordinates = sorted({location[axis] for location in mesh.local_device_locations()})
    first, count = coordinates[0], len(coordinates)
    if coordinates != list(range(first, first + count)):
        return None
    return ProcessPart(first, count, mesh.dim_size(axis))


def read_own_rows(dataset: tf.data.Dataset, part: ProcessPart) -> tf.data.Dataset:
    """``dataset`` of global batches as this process reads it: each batch cut to ``part``'s rows.

    A batch whose size ``part.shards`` does not divide stops the iteration with an error that says so.
    """

    def own_rows(*batch: Any) -> Any:
        def cut(t: Any) -> Any:
            if not isinstance(t, tf.Tensor) or t.shape.rank == 0:
                return t
            rows = tf.shape(t)[0]
            tf.debugging.assert_equal(
                rows % part.shards,
                0,
                message=f"auto_shard_dataset: a batch's size must be a multiple of the {part.shards} shards of "
                f"the mesh's batch axis (use drop_remainder=True, or a batch size that is)",
            )
            shard = rows // part.shards
            return t[part.first * shard : (part.first + part.count) * shard]

        cut_batch = tf.nest.map_structure(cut, batch)
        return cut_batch[0] if len(cut_batch) == 1 else cut_batch

    return dataset.map(own_rows, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)


def assemble(local: Any, layout: dtensor.Layout, part: ProcessPart, axis: int = 0) -> Any:
    """The global batch as a DTensor of ``layout``, from ``local``: this process's rows (``read_own_rows``).

    ``axis``: where the batch axis is in ``local`` (1 for batches stacked on a first axis of steps);
    ``layout.sharding_specs[axis]`` names the mesh axis it is split on.
    """
    local = tf.convert_to_tensor(local)
    if local.shape.rank == 0:
        return dtensor.copy_to_mesh(local, dtensor.Layout.replicated(layout.mesh, 0))
    mesh_axis = layout.sharding_specs[axis]
    rows = tf.shape(local)[axis] // part.count
    before = (slice(None),) * axis
    components = []
    for location in layout.mesh.local_device_locations():
        if mesh_axis in location:  # the device's shard of the batch axis, counted from this process's first
            index = location[mesh_axis] - part.first
            components.append(local[before + (slice(index * rows, (index + 1) * rows),)])
        else:  # a layout that does not split the batch: every device holds all of it
            components.append(local)
    return dtensor.pack(components, layout)
