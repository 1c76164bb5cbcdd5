"""Which loops a strategy needs: ``ParameterServerStrategy`` trains through a ``ClusterCoordinator``.

    if is_parameter_server(strategy):
        coordinator = coordinator_for(strategy)      # one per strategy, shared by every model
        coordinator.schedule(step_fn, args=(iterator,))
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf


def is_parameter_server(strategy: Any) -> bool:
    """Whether ``strategy`` runs steps on remote workers scheduled by a coordinator (parameter-server training)."""
    if strategy is None:
        return False
    return isinstance(strategy, tf.distribute.ParameterServerStrategy) or \
        bool(getattr(strategy, "_should_use_with_coordinator", False))


def coordinator_for(strategy: Any) -> Any:
    """The strategy's ``tf.distribute.coordinator.ClusterCoordinator`` (TensorFlow keeps one per strategy)."""
    return tf.distribute.coordinator.ClusterCoordinator(strategy)


def num_workers(strategy: Any) -> int:
    """How many workers the cluster has (1 when the resolver does not say)."""
    # ParameterServerStrategy keeps its resolver privately (its public ``cluster_resolver`` is None).
    resolver = getattr(strategy, "cluster_resolver", None) or getattr(strategy, "_cluster_resolver", None)
    try:
        return max(1, resolver.cluster_spec().num_tasks("worker"))
    except (AttributeError, ValueError):
        return max(1, int(getattr(strategy.extended, "_num_workers", 1)))


def verbosity(verbose: Any) -> int:
    """``verbose`` under parameter-server training: 'auto' is 2 (a line per epoch); 1 (a bar per step) is refused."""
    if verbose == "auto":
        return 2
    if int(verbose) == 1:
        raise ValueError(
            "verbose=1 (a progress bar updated every step) is not supported under ParameterServerStrategy: the "
            "steps run asynchronously on the workers and their results arrive at the end of the epoch. "
            "Pass verbose=2 (one line per epoch) or verbose=0."
        )
    return int(verbose)
