"""Distribution helpers for the training loops: ``ParameterServerStrategy`` through a ``ClusterCoordinator``.

    with strategy.scope():                       # strategy = tf.distribute.ParameterServerStrategy(resolver)
        model = make_model(); model.compile("adam", "mse")
    model.fit(x, y, batch_size=64, epochs=3, steps_per_epoch=100)
"""

from tfkit.training.distribute.coordinator_loop import CoordinatedLoops  # noqa: F401
from tfkit.training.distribute.per_worker_data import (
    PerWorkerData,
    array_data_on_workers,
    fit_data_on_workers,
    per_worker_data,
)
from tfkit.training.distribute.strategy_kind import (
    SYNCHRONIZED_CHUNK,
    coordinator_for,
    is_parameter_server,
    num_workers,
    spans_workers,
    verbosity,
)
