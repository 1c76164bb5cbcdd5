"""Epochs under ``ParameterServerStrategy``: chunks of steps scheduled on the workers, results read after ``join``.

    loops = CoordinatedLoops(model, strategy, jit_compile=False)
    logs = loops.run_epoch("train", data, steps=100, iterator=data.iterator(), steps_per_execution="auto")

The chief (this process) never runs a step. It schedules compiled chunks of
``count`` steps with ``ClusterCoordinator.schedule``; a free worker takes the
next chunk, reads batches from its own copy of the data, and updates the
variables on the parameter servers. At the end of the epoch the chief waits
for every chunk (``join``) and reads the metrics, which live on the
parameter servers too and so count every worker's steps. Batch callbacks are
called as chunks are scheduled, with empty logs: the values exist only once
the chunk has run.
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit.training.distributed_loops.strategy_kind import coordinator_for, num_workers

_CHUNKS_PER_WORKER = 4  # per epoch with steps_per_execution="auto": enough to keep every worker busy
_MAX_AUTO_CHUNK = 100


class CoordinatedLoops:
    """Builds the scheduled step functions of one model and runs epochs with them."""

    def __init__(self, model: Any, strategy: Any, jit_compile: bool, to_logs: Callable[[Any], dict] = dict) -> None:
        self.model = model
        self.strategy = strategy
        self.jit_compile = jit_compile
        self.to_logs = to_logs
        self._functions: dict[str, Callable] = {}

    @property
    def coordinator(self) -> Any:
        return coordinator_for(self.strategy)

    def function(self, mode: str) -> Callable:
        """``fn(iterator, count)``: ``count`` steps on one worker; returns the last step's outputs."""
        if mode in self._functions:
            return self._functions[mode]
        step = {"train": self.model.train_step, "test": self.model.test_step}[mode]
        if self.jit_compile:
            step = tf.function(step, jit_compile=True, reduce_retracing=True)
        strategy = self.strategy

        def one_step(iterator: Any) -> Any:
            outputs = strategy.run(step, args=(next(iterator),))
            return tf.nest.map_structure(lambda v: strategy.experimental_local_results(v)[0], outputs)

        def chunk(iterator: Any, count: tf.Tensor) -> Any:
            outputs = one_step(iterator)
            for _ in tf.range(count - 1):
                outputs = one_step(iterator)
            return outputs

        self._functions[mode] = tf.function(chunk)
        return self._functions[mode]

    def chunk_size(self, steps_per_execution: Any, total: int, per_batch: bool) -> int:
        if per_batch:
            return 1
        if steps_per_execution != "auto":
            return int(steps_per_execution)
        return max(1, min(_MAX_AUTO_CHUNK, total // (_CHUNKS_PER_WORKER * num_workers(self.strategy))))

    def run_epoch(
        self,
        mode: str,
        data: Any,
        steps: int | None,
        iterator: Any = None,
        steps_per_execution: Any = "auto",
        begin_hook: Callable[..., Any] | None = None,
        end_hook: Callable[..., Any] | None = None,
        per_batch: bool = False,
    ) -> dict:
        """Schedule ``steps`` steps in chunks, wait for all of them, return the logs (metrics read on the chief)."""
        self._check_built(mode)
        iterator = iterator if iterator is not None else data.iterator()
        total = int(steps or data.steps_per_epoch)
        size = self.chunk_size(steps_per_execution, total, per_batch)
        fn = self.function(mode)
        coordinator = self.coordinator
        last = None
        step = 0
        while step < total:
            count = min(size, total - step)
            if per_batch and begin_hook is not None:
                begin_hook(step)
            last = coordinator.schedule(fn, args=(iterator, tf.constant(count, tf.int32)))
            step += count
            if per_batch and end_hook is not None:
                end_hook(step - 1, {})
            if mode == "train" and self.model.stop_training:
                break
        coordinator.join()
        logs = self._logs(last)
        if not per_batch and end_hook is not None:
            end_hook(step - 1, logs)
        return logs

    def _logs(self, last: Any) -> dict:
        """The metrics (exact over all workers); keys only a custom step returns come from the last chunk."""
        metric_logs = self.to_logs(self.model.get_metrics_result())
        step_logs = self.to_logs(last.fetch()) if last is not None else {}
        if not step_logs:
            return metric_logs
        return {key: metric_logs.get(key, value) for key, value in step_logs.items()}

    def _check_built(self, mode: str) -> None:
        """Every variable exists before a step is scheduled: workers cannot create variables."""
        if mode != "train":
            return
        weights = self.model.trainable_weights
        if not weights:
            raise ValueError(
                f"Model '{self.model.name}' has no weights yet. Under ParameterServerStrategy the weights must "
                f"exist before fit, because the workers cannot create variables: build the model under "
                f"strategy.scope() (call it once on a batch, or call model.build(input_shape)) before fit."
            )
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and not getattr(optimizer, "built", True):
            with self.strategy.scope():  # a model trained through train_step only: its optimizer slots, on the ps
                optimizer.build(weights)
