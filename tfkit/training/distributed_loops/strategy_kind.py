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
    return isinstance(strategy, tf.distribute.ParameterServerStrategy) or bool(
        getattr(strategy, "_should_use_with_coordinator", False)
    )


# Steps per compiled call under a strategy that spans several workers (MultiWorkerMirroredStrategy) when
# steps_per_execution="auto": a fixed count, never one sized from this worker's own timings. Every step
# all-reduces across the workers inside the compiled call, and collectives only pair up when all workers make
# the same sequence of calls: chunks sized by each worker's clock (or its verbose setting) differ, and the
# cluster waits for ever. On loopback, 4, 16 and 64 steps per call gave the same epoch time (the all-reduce
# dominates a step).
SYNCHRONIZED_CHUNK = 16


def spans_workers(strategy: Any) -> bool:
    """Whether ``strategy`` runs every step in lockstep on several worker processes (MultiWorkerMirroredStrategy)."""
    if strategy is None or is_parameter_server(strategy):
        return False
    if int(getattr(strategy.extended, "_num_workers", 1) or 1) > 1:
        return True
    resolver = getattr(strategy, "cluster_resolver", None)
    try:
        spec = resolver.cluster_spec()
        return spec.num_tasks("worker") + (spec.num_tasks("chief") if "chief" in spec.jobs else 0) > 1
    except (AttributeError, ValueError):
        return False


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
