"""The devices a distribution spans: ``list_devices``, ``get_device_count``, ``initialize``.

    tfkit.distribution.list_devices()          # ["cpu:0"], or ["gpu:0", "gpu:1", ...]
    tfkit.distribution.get_device_count("cpu")
    tfkit.distribution.initialize(["10.0.0.1:1234", "10.0.0.2:1234"], 2, process_id)

Devices are named as Keras names them (``"gpu:1"``); ``tensorflow_name`` turns
such a name into TensorFlow's full device name, which DTensor's meshes take.
"""

from __future__ import annotations

import os
from typing import Sequence

import tensorflow as tf
from tensorflow.experimental import dtensor

_ACCELERATORS = ("GPU", "TPU")


def _logical_devices(device_type: str | None) -> list:
    if device_type is not None:
        return tf.config.list_logical_devices(device_type.upper())
    for kind in _ACCELERATORS:
        found = tf.config.list_logical_devices(kind)
        if found:
            return found
    return tf.config.list_logical_devices("CPU")


def list_devices(device_type: str | None = None) -> list[str]:
    """Returns the devices a distribution can use, named as Keras names them.

    With no `device_type`, the accelerators (GPUs, else TPUs) are listed when
    there are any, else the CPUs. To test a distribution on one machine,
    split its CPU into logical devices before TensorFlow starts:
    `tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 8)`.
    After `initialize` in several processes, each process lists its own
    devices; the mesh names every process's devices in the same order.

    Args:
        device_type: `"cpu"`, `"gpu"` or `"tpu"` (any case), or `None` for
            the accelerators if there are any, else the CPUs. Defaults to
            `None`.

    Returns:
        A list of device names such as `["cpu:0", "cpu:1"]`.

    Example:
        >>> tfkit.distribution.list_devices("cpu")[0]
        'cpu:0'
    """
    local = _logical_devices(device_type)
    if dtensor.num_clients() > 1 and local:  # after initialize(): every process's devices, by global index
        kind = local[0].device_type
        return [f"{kind.lower()}:{i}" for i in range(dtensor.num_global_devices(kind))]
    return [f"{d.device_type.lower()}:{d.name.split(':')[-1]}" for d in local]


def get_device_count(device_type: str | None = None) -> int:
    """Returns how many devices `list_devices(device_type)` lists.

    Args:
        device_type: `"cpu"`, `"gpu"` or `"tpu"`, or `None` for the
            accelerators if there are any, else the CPUs. Defaults to `None`.

    Returns:
        The number of devices (an int).

    Example:
        >>> tfkit.distribution.get_device_count("cpu") >= 1
        True
    """
    return len(list_devices(device_type))


def tensorflow_name(device: str) -> str:
    """``"cpu:3"`` -> ``"/device:CPU:3"``; a name TensorFlow already spells is kept."""
    if device.startswith("/"):
        return device
    kind, _, index = device.rpartition(":")
    return f"/device:{kind.upper()}:{index}"


def initialize(
    job_addresses: str | Sequence[str] | None = None, num_processes: int | None = None, process_id: int | None = None
) -> None:
    """Starts a distribution that spans several processes (one mesh over all their devices).

    Call it in every process, before any model is built, with the same
    `job_addresses` and `num_processes` and each process's own `process_id`.
    It starts DTensor's multi-client runtime: afterwards a `DeviceMesh` built
    from every process's devices (process 0's first) is one mesh, and each
    process feeds its own part of every batch. With one process it does
    nothing. Arguments left `None` are read from the environment variables
    `KERAS_DISTRIBUTION_JOB_ADDRESSES` (comma-separated),
    `KERAS_DISTRIBUTION_NUM_PROCESSES` and `KERAS_DISTRIBUTION_PROCESS_ID`,
    as Keras reads them.

    Args:
        job_addresses: The `host:port` of every process, in process order,
            as a list or a comma-separated string. Defaults to `None` (from
            the environment).
        num_processes: How many processes take part. Defaults to `None`
            (from the environment, else the number of addresses).
        process_id: This process's index, from 0. Defaults to `None` (from
            the environment).

    Returns:
        None.

    Raises:
        ValueError: If the addresses, the number of processes and the
            process id do not agree.

    Example:
        >>> tfkit.distribution.initialize(num_processes=1, process_id=0)   # one process: nothing to start
    """
    if job_addresses is None:
        job_addresses = os.environ.get("KERAS_DISTRIBUTION_JOB_ADDRESSES")
    if num_processes is None and "KERAS_DISTRIBUTION_NUM_PROCESSES" in os.environ:
        num_processes = int(os.environ["KERAS_DISTRIBUTION_NUM_PROCESSES"])
    if process_id is None and "KERAS_DISTRIBUTION_PROCESS_ID" in os.environ:
        process_id = int(os.environ["KERAS_DISTRIBUTION_PROCESS_ID"])
    addresses = (
        [a.strip() for a in job_addresses.split(",")] if isinstance(job_addresses, str) else list(job_addresses or [])
    )
    count = num_processes if num_processes is not None else max(len(addresses), 1)
    if count <= 1:
        return
    if len(addresses) != count:
        raise ValueError(
            f"initialize: num_processes={count} but {len(addresses)} job_addresses were given "
            f"({addresses}); give one 'host:port' per process"
        )
    if process_id is None or not 0 <= int(process_id) < count:
        raise ValueError(f"initialize: process_id must be in [0, {count}), got {process_id!r}")
    os.environ["DTENSOR_JOBS"] = ",".join(addresses)
    os.environ["DTENSOR_NUM_CLIENTS"] = str(count)
    os.environ["DTENSOR_CLIENT_ID"] = str(int(process_id))
    os.environ.setdefault("DTENSOR_JOB_NAME", "worker")
    device_type = "GPU" if tf.config.list_physical_devices("GPU") else "CPU"
    dtensor.initialize_accelerator_system(device_type)
