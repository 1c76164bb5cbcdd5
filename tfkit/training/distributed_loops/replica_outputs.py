"""``predict`` under a ``tf.distribute`` strategy: every replica's rows joined back into the batch, in order.

    dataset = distribute_for_predict(strategy, data.as_dataset())    # whole data on every worker, split by batch
    outputs = strategy.run(model.predict_step, args=(batch,))
    rows = join_replicas(strategy, outputs)                           # inside the compiled predict function

Under ``MirroredStrategy`` a batch is split over this process's replicas, and
joining their outputs is a concatenation. Under ``MultiWorkerMirroredStrategy``
it is split over every worker's replicas, so each worker holds only its part:
``join_replicas`` gathers the parts of all workers (one all-gather of the rows
and one of their counts, since the parts may differ by a row) and puts them back
in the batch's order. Every worker then returns the whole batch, as tf-keras
and Keras 3 on TensorFlow do (their ``_multi_worker_concat``).

The order comes from how ``tf.distribute`` splits a batch when a dataset is
sharded by data (``AutoShardPolicy.DATA``): the global batch is cut into
``workers * replicas_per_worker`` consecutive pieces (their sizes differ by at
most one), worker ``w`` takes pieces ``w, w + workers, ...`` and gives them to
its replicas in turn, while an all-gather lists the pieces worker by worker.
``distribute_for_predict`` therefore sets that policy on the data, as tf-keras
does for arrays and for the datasets given to ``predict``: any other policy
(``FILE``, ``OFF``) would give the workers other pieces, or all of them.
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit.training.distributed_loops.strategy_kind import spans_workers


def sharded_by_data(dataset: tf.data.Dataset) -> tf.data.Dataset:
    """``dataset`` with ``AutoShardPolicy.DATA``: every worker reads all of it and keeps its pieces of each batch."""
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    return dataset.with_options(options)  # a later option wins: overrides a policy the caller set


def distribute_for_predict(strategy: Any, dataset: tf.data.Dataset) -> Any:
    """``strategy``'s distributed dataset of ``predict``'s batches (sharded by data when it spans workers)."""
    if spans_workers(strategy):
        dataset = sharded_by_data(dataset)
    return strategy.experimental_distribute_dataset(dataset)


def replica_order(num_workers: int, replicas_per_worker: int) -> list[int]:
    """Where each piece of a batch sits in an all-gather: the all-gather's indices in the batch's order.

    An all-gather lists worker 0's replicas, then worker 1's, ...; the batch's piece ``p`` is on
    worker ``p % num_workers``, replica ``p // num_workers``.
    """
    return [
        worker * replicas_per_worker + replica
        for replica in range(replicas_per_worker)
        for worker in range(num_workers)
    ]


def join_replicas(strategy: Any, outputs: Any) -> Any:
    """``outputs`` of ``strategy.run`` (a structure of per-replica values) as tensors of the whole batch, in order.

    Called in the strategy's cross-replica context (in or out of a ``tf.function``). Across
    workers it runs collectives: every worker must call it for the same batches.
    """
    if not spans_workers(strategy):
        return tf.nest.map_structure(lambda v: tf.concat(strategy.experimental_local_results(v), axis=0), outputs)
    return tf.nest.map_structure(lambda v: _gathered_in_order(strategy, v), outputs)


def _gathered_in_order(strategy: Any, value: Any) -> tf.Tensor:
    # The row counts as per-replica values, one per replica: a plain tensor (tf-keras gathers one) would enter
    # the all-gather from one of a worker's several replicas only.
    counts = strategy.run(lambda part: tf.shape(part, out_type=tf.int32)[:1], args=(value,))
    rows = strategy.gather(value, axis=0)  # every replica's rows, worker by worker; counts may differ by one
    counts = strategy.gather(counts, axis=0)
    replicas = strategy.num_replicas_in_sync
    per_worker = len(strategy.extended.worker_devices)
    pieces = tf.split(rows, counts, num=replicas)
    return tf.concat([pieces[i] for i in replica_order(replicas // per_worker, per_worker)], axis=0)


def eager_predict(strategy: Any, step: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``predict_step`` run on every replica without compiling (``run_eagerly=True``), the batch joined."""

    def predict_batch(batch: Any) -> Any:
        return join_replicas(strategy, strategy.run(step, args=(batch,)))

    return predict_batch
