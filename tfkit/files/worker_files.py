"""Where each worker of a multi-worker cluster writes: the chief the real path, the others a copy they delete.

    with worker_files.chief_or_scratch_path("ckpt/model.h5", model.distribute_strategy) as path:
        save_to(path)      # the chief: "ckpt/model.h5"; worker 1: "ckpt/workertemp_1-<random>/model.h5", removed after

Under ``MultiWorkerMirroredStrategy`` every worker runs the same program and
must take part in a save (reading synchronized variables can need a
collective), but only one file may come out of it, or the workers race for
the same name. As in tf-keras, the chief (task ``chief``, or ``worker`` 0
when the cluster has no chief) writes the real file or folder; every other
worker writes the same bytes under a ``workertemp_<task id>-<random>``
folder beside it, one per save (so two savers never share one), deleted as
soon as the save is over. Being beside, not inside, the real folder, it never
shows up in a listing the chief makes of that folder. One process, or any
strategy without a cluster, is its own chief.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from typing import Any, Iterator

import tensorflow as tf


def strategy_of(model: Any) -> Any:
    """The strategy ``model`` was built under (its ``distribute_strategy``), or None for an object without one."""
    return getattr(model, "distribute_strategy", None)


def cluster_task(strategy: Any = None) -> tuple[str | None, int | None]:
    """``(task_type, task_id)`` of this process in ``strategy``'s cluster; ``(None, None)`` without one."""
    strategy = strategy if strategy is not None else tf.distribute.get_strategy()
    resolver = getattr(strategy, "cluster_resolver", None)
    if resolver is None:
        return None, None
    try:
        cluster = resolver.cluster_spec().as_dict()
    except (AttributeError, ValueError):
        return None, None
    if not cluster or sum(len(tasks) for tasks in cluster.values()) < 2:
        return None, None
    return resolver.task_type, resolver.task_id


def is_chief(strategy: Any = None) -> bool:
    """True for the process that writes the real files (and for any process outside a cluster)."""
    task_type, task_id = cluster_task(strategy)
    if task_type is None or task_type == "chief":
        return True
    if task_type != "worker":
        return False  # ps and evaluator tasks never write training files
    strategy = strategy if strategy is not None else tf.distribute.get_strategy()
    cluster = strategy.cluster_resolver.cluster_spec().as_dict()
    return task_id == 0 and "chief" not in cluster


def path_for_this_worker(path: str | os.PathLike, strategy: Any = None) -> str:
    """``path`` (a file, folder or checkpoint prefix) for the chief; for another worker
    ``<its folder>/workertemp_<id>-<random>/<its name>``, a place no other save uses."""
    path = os.fspath(path)
    if is_chief(strategy):
        return path
    _, task_id = cluster_task(strategy)
    folder, name = os.path.split(os.path.abspath(path))
    _remove_stale_copies(folder, task_id)
    return os.path.join(folder, f"workertemp_{task_id}-{secrets.token_hex(4)}", name)


def _remove_stale_copies(folder: str, task_id: Any) -> None:
    """Delete this task's ``workertemp_<id>-<hex>`` folders that a killed run left beside ``folder``'s files.

    A task id belongs to one process of the cluster at a time and this process removes its
    own copy after every save, so any such folder found before a save is a leftover of an
    earlier incarnation of this task (a worker killed mid-save). Only names tfkit makes match.
    """
    prefix = f"workertemp_{task_id}-"
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for entry in entries:
        suffix = entry[len(prefix) :]
        if entry.startswith(prefix) and len(suffix) == 8 and all(c in "0123456789abcdef" for c in suffix):
            candidate = os.path.join(folder, entry)
            if os.path.isdir(candidate) and not os.path.islink(candidate):
                shutil.rmtree(candidate, ignore_errors=True)


def remove_worker_copy(written: str, real: str | os.PathLike) -> None:
    """Delete the ``workertemp_*`` folder holding ``written`` (nothing when ``written`` is the real path)."""
    if os.path.abspath(written) == os.path.abspath(os.fspath(real)):
        return
    folder = os.path.dirname(written)
    if os.path.basename(folder).startswith("workertemp_") and os.path.isdir(folder):
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def chief_or_scratch_path(path: str | os.PathLike, strategy: Any = None) -> Iterator[str]:
    """The path this worker writes ``path`` to: ``path`` itself for the chief (and any process outside a cluster),
    a scratch copy beside it for another worker, deleted on exit."""
    written = path_for_this_worker(path, strategy)
    try:
        yield written
    finally:
        remove_worker_copy(written, path)
