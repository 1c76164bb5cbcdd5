"""The training loops for several devices or workers: ``ParameterServerStrategy`` and ``tfkit.distribution``.

    with strategy.scope():                       # strategy = tf.distribute.ParameterServerStrategy(resolver)
        model = make_model(); model.compile("adam", "mse")
    model.fit(x, y, batch_size=64, epochs=3, steps_per_epoch=100)

``coordinator_loop`` and ``per_worker_data`` run epochs through a
``ClusterCoordinator``, ``strategy_kind`` says which loops a strategy needs,
``replica_outputs`` joins ``predict``'s rows from every replica (every
worker's under ``MultiWorkerMirroredStrategy``) back into the batch,
and ``mesh_loop`` runs steps with each batch laid out on a
``tfkit.distribution`` mesh. The distribution API itself (meshes, layouts)
is ``tfkit/distribution/``, below every layer.
"""

from tfkit.training.distributed_loops.coordinator_loop import CoordinatedLoops
from tfkit.training.distributed_loops.per_worker_data import (
    PerWorkerData,
    array_data_on_workers,
    fit_data_on_workers,
    per_worker_data,
)
from tfkit.training.distributed_loops.replica_outputs import distribute_for_predict, eager_predict, join_replicas
from tfkit.training.distributed_loops.strategy_kind import (
    SYNCHRONIZED_CHUNK,
    coordinator_for,
    is_parameter_server,
    num_workers,
    spans_workers,
    verbosity,
)

__all__ = [
    "CoordinatedLoops",
    "PerWorkerData",
    "array_data_on_workers",
    "fit_data_on_workers",
    "per_worker_data",
    "distribute_for_predict",
    "eager_predict",
    "join_replicas",
    "SYNCHRONIZED_CHUNK",
    "coordinator_for",
    "is_parameter_server",
    "num_workers",
    "spans_workers",
    "verbosity",
]
