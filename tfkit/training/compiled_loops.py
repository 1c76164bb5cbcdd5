"""Compiled multi-step loops: many ``train_step``s per ``tf.function`` call.

    loops = StepLoops(model, jit_compile=False)
    template, unique = data.layout()
    logs = loops.array_loop("train", 64, data.element_spec(), template)(unique, order, first_row, count)
    steps_done, logs = loops.iterator_loop("train")(iterator, count)

An in-memory epoch never leaves the graph between batches: batches are cut
from tensors by index inside a ``tf.while_loop``, so the Python cost of a
step is paid once per chunk, not once per batch. Chunks return the logs of
their last step (for the built-in steps, the running metric results).

On a ``tfkit.distribution`` mesh (``StepLoops(model, False, mesh=distribution)``)
the same loops run: the data tensors are whole on every device of the mesh
(``distributed_loops/mesh_loop.py`` places them), each batch cut from them is
relaid out to the distribution's data layout (split on the batch axis: a local
slice, no communication), and the step is traced for the mesh.
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit.distribution import values as distribution_values
from tfkit.engine import autograph
from tfkit.training.distributed_loops import replica_outputs
from tfkit.utils.data_tuples import pack_x_y_sample_weight


def compiled(fn: Callable, **options: Any) -> Any:
    """``tf.function(fn, **options)`` without TensorFlow's "frequent retracing" warning.

    Every model gets its own loop functions, each traced once per input signature. TensorFlow
    counts traces per source function, so a script that builds several models (a transfer-learning
    guide, a test suite) would be told that it retraces too often, which it does not.
    """
    function = tf.function(fn, **options)
    function._omit_frequent_tracing_warning = True  # TensorFlow's own switch; without it, only a warning
    return function


class StepLoops:
    """Builds and caches the compiled loop functions of one model."""

    def __init__(self, model: Any, jit_compile: bool, strategy: Any = None, mesh: Any = None) -> None:
        self.model = model
        self.jit_compile = jit_compile
        self.strategy = strategy
        self.mesh = mesh  # the tfkit.distribution the loops run on, or None
        self.stacked_batch_specs: dict[str, list] = {}  # by mode: the batch specs read with a stacked_loop
        self._cache: dict[tuple, Callable] = {}

    # ------------------------------------------------------------ the steps

    def _step(self, mode: str) -> Callable:
        model = self.model
        step = {"train": model.train_step, "test": model.test_step, "predict": model.predict_step}[mode]
        if self.mesh is not None:
            step = self._on_mesh(step)
        if self.jit_compile:
            if not self._overridden(mode):  # tfkit's own step: traced as written (a user's is converted)
                own = step
                step = autograph.written_in_tensorflow(lambda data: own(data))
            step = compiled(step, jit_compile=True, reduce_retracing=True)
        return step

    def _on_mesh(self, step: Callable) -> Callable:
        """``step`` traced for the mesh: layers' ``"<path>/output"`` layouts apply inside it."""
        mesh = self.mesh

        def step_on_mesh(data: Any) -> Any:
            with distribution_values.tracing_step_on(mesh):
                return step(data)

        return step_on_mesh

    def _laid_out(self, batch: Any) -> Any:
        """A batch cut from whole tensors, split on the mesh's batch axis (unchanged off a mesh)."""
        if self.mesh is None:
            return batch
        return distribution_values.distribute_batch(batch, self.mesh)

    def _overridden(self, mode: str) -> bool:
        """Whether the model's class (not tfkit's ``Model``) defines ``<mode>_step``."""
        return self.model._defines_own_step(mode)

    def _run(self, step: Callable, batch: Any) -> Any:
        if self.strategy is None:
            return step(batch)
        outputs = self.strategy.run(step, args=(batch,))
        return outputs

    def _concrete_step(self, mode: str, spec: Any) -> Any:
        """The model's ``mode`` step traced once for ``spec`` (the loops call this trace)."""
        step = self._step(mode)
        traced = step if isinstance(step, tf.types.experimental.GenericFunction) else compiled(step)
        concrete = traced.get_concrete_function(spec)
        self.model._clear_losses()  # add_loss values of the trace belong to its graph only
        return concrete

    def _traced_step(self, mode: str, spec: Any) -> tuple[Any, Any]:
        """A custom step for the loops to call, and the specs of its logs (None when they vary).

        The step is traced once for ``spec`` first, to learn the structure of its logs: they are
        loop variables. Logs whose shapes are not fully known cannot be; their specs are None, and
        the loop runs one step per call, calling that trace. A loop with fixed logs traces the step
        once more, inside its body, rather than call the first trace on every step: inlined, the
        keras-io VAE's own ``train_step`` ran a steady epoch 17% faster (median of 7 in-process
        pairs, 2 cores), and its first epoch, one trace longer, was no slower within the noise.
        An XLA-compiled step stays a call: XLA compiles it as a function of its own.
        """
        concrete = self._concrete_step(mode, spec)
        specs = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), concrete.structured_outputs)
        if not all(s.shape.is_fully_defined() for s in tf.nest.flatten(specs)):
            return concrete, None
        if self.jit_compile:
            return concrete, specs
        return autograph.convert_user_call(self._step(mode)), specs

    def _metric_logs(self) -> Any:
        return self.model.get_metrics_result()

    def _steps_then_metrics(self, step: Callable, count: tf.Tensor, batch_at: Callable) -> Any:
        """``step(batch_at(i))`` for ``i < count`` in a ``tf.while_loop``, then the metrics' results.

        The loop's only variable is ``i``: on a mesh a DTensor may not be a loop variable (TensorFlow 2.21
        crashes running such a loop), so each iteration takes its own batch and the logs are read after.
        """

        def body(i):
            step(batch_at(i))
            return (i + 1,)

        tf.while_loop(lambda i: i < count, body, [tf.constant(0)])
        return self._metric_logs()

    # ------------------------------------------------------ in-memory loops

    @staticmethod
    def _array_key(mode: str, batch_size: int, template: Any) -> tuple:
        return ("array", mode, batch_size, repr(template))

    def has_array_loop(self, mode: str, batch_size: int, template: Any) -> bool:
        """Whether ``array_loop`` for these arguments exists already (is traced or being traced)."""
        return self._array_key(mode, batch_size, template) in self._cache

    def array_loop(self, mode: str, batch_size: int, batch_spec: Any, template: Any) -> Callable:
        """``fn(unique, order, first_row, count)`` -> logs after ``count`` batches of ``batch_size``.

        ``unique`` holds each distinct data tensor once and ``template`` says
        where each goes in the batch structure (``ArrayData.layout``). Batch
        ``k`` takes rows ``order[first_row + k*batch_size:][:batch_size]``. The
        batch size is static inside the graph, so gradients of same-shape ops
        need no broadcasting bookkeeping; a short last batch gets its own
        function (one more trace). Each iteration gathers the next batch's rows
        while the step trains on the batch gathered before it.
        """
        key = self._array_key(mode, batch_size, template)
        if key in self._cache:
            return self._cache[key]
        custom = self._overridden(mode)
        if custom:  # traced for this static batch size
            static = tf.nest.map_structure(lambda s: tf.TensorSpec((batch_size, *s.shape[1:]), s.dtype), batch_spec)
            step, log_specs = self._traced_step(mode, static)
        else:
            step, log_specs = self._step(mode), None

        def cut(unique: Any, order: tf.Tensor, first_row: tf.Tensor, index: tf.Tensor) -> list[tf.Tensor]:
            rows = tf.slice(order, [first_row + index * batch_size], [batch_size])
            return [tf.gather(t, rows) for t in unique]

        def batch(rows: list[tf.Tensor]) -> Any:
            return self._laid_out(tf.nest.map_structure(lambda position: rows[position], template))

        def cut_next(tensors, order, first_row, i, count, rows):
            """Batch ``i + 1``, gathered while step ``i`` runs (the last step's is the one it has)."""
            return tf.cond(i + 1 < count, lambda: cut(tensors, order, first_row, i + 1), lambda: rows)

        # Software pipelining: each iteration gathers the next batch's rows while its step trains on the
        # batch gathered one iteration before (the gather reads no variable, so it runs beside the step).
        # On a mesh a DTensor may not be a loop variable (TensorFlow 2.21 crashes running such a loop):
        # each iteration cuts its own batch there, and a custom step, whose logs would be loop variables,
        # runs one step per call.
        if self.mesh is not None and not custom:

            def loop(tensors, order, first_row, count):
                return self._steps_then_metrics(step, count, lambda i: batch(cut(tensors, order, first_row, i)))

        elif not custom:

            def loop(tensors, order, first_row, count):
                def body(i, rows):
                    following = cut_next(tensors, order, first_row, i, count, rows)
                    step(batch(rows))
                    return i + 1, following

                tf.while_loop(lambda i, _: i < count, body, [tf.constant(0), cut(tensors, order, first_row, 0)])
                return self._metric_logs()
        elif log_specs is not None and self.mesh is None:

            def loop(tensors, order, first_row, count):
                def body(i, rows, logs):
                    following = cut_next(tensors, order, first_row, i, count, rows)
                    return i + 1, following, step(batch(rows))

                zeros = tf.nest.map_structure(lambda s: tf.zeros(s.shape, s.dtype), log_specs)
                first = cut(tensors, order, first_row, 0)
                return tf.while_loop(lambda i, *_: i < count, body, [tf.constant(0), first, zeros])[2]
        else:  # logs of varying shape cannot be loop variables: one step per call

            def loop(tensors, order, first_row, count):
                return step(batch(cut(tensors, order, first_row, 0)))

        fn = compiled(autograph.written_in_tensorflow(loop), reduce_retracing=True)  # see iterator_loop
        fn.max_count = 1 if custom and (log_specs is None or self.mesh is not None) else None
        self._cache[key] = fn
        return fn

    def array_predict_loop(self, batch_size: int, x: Any) -> Callable:
        """``fn(x, start, count)`` -> predictions of ``count`` batches, concatenated.

        The predict step is traced once, on its own (which also gives the output
        dtypes the loop's TensorArrays need), and the loop calls that trace:
        a subclassed model's forward pass is traced once per ``predict``, not twice.
        """
        x_spec = tf.nest.map_structure(lambda t: tf.TensorSpec((None, *t.shape[1:]), t.dtype), x)
        key = ("array_predict", batch_size, repr(x_spec))
        if key in self._cache:
            return self._cache[key]
        step_fn = self._concrete_step("predict", pack_x_y_sample_weight(x_spec))
        out_structure = step_fn.structured_outputs
        dtypes = [t.dtype for t in tf.nest.flatten(out_structure)]

        def loop(x, start, count):
            def body(i, *arrays):
                begin = (start + i) * batch_size
                batch = tf.nest.map_structure(lambda t: t[begin : begin + batch_size], x)
                outs = tf.nest.flatten(step_fn(pack_x_y_sample_weight(batch)))
                return (i + 1, *[a.write(i, o) for a, o in zip(arrays, outs)])

            arrays = [
                tf.TensorArray(dtype, size=count, infer_shape=False, element_shape=tf.TensorShape(None))
                for dtype in dtypes
            ]
            _, *arrays = tf.while_loop(lambda i, *_: i < count, body, (tf.constant(0), *arrays))
            return tf.nest.pack_sequence_as(out_structure, [a.concat() for a in arrays])

        fn = compiled(loop, autograph=False, reduce_retracing=True)
        self._cache[key] = fn
        return fn

    # ------------------------------------------------- stacked batches (mesh)

    def stacked_loop(self, mode: str, batch_spec: Any) -> Callable:
        """``fn(batches, count)`` -> logs after ``count`` steps, step ``i`` on ``batches``' entry ``i``.

        ``batches``: tensors ``[steps, *batch]`` (on a mesh, ``distribution_values.distribute_batches``
        leaves the steps axis whole, so taking entry ``i`` is a local slice on every device); ``batch_spec``
        gives one batch's shapes, static: one trace per distinct batch shape (the short last batch has its
        own). For the built-in steps: their logs, the metrics, are read after the loop, which therefore has
        no tensor of the mesh among its loop variables (TensorFlow 2.21 crashes running such a loop).
        """
        key = ("stacked", mode, repr(batch_spec))
        if key in self._cache:
            return self._cache[key]
        step = self._step(mode)

        def loop(batches, count):
            return self._steps_then_metrics(
                step, count, lambda i: self._laid_out(tf.nest.map_structure(lambda t: tf.gather(t, i), batches))
            )

        stacked_spec = tf.nest.map_structure(lambda s: tf.TensorSpec((None, *s.shape), s.dtype), batch_spec)
        fn = compiled(
            autograph.written_in_tensorflow(loop), input_signature=[stacked_spec, tf.TensorSpec((), tf.int32)]
        )
        self._cache[key] = fn
        return fn

    # ------------------------------------------------------- iterator loops

    def iterator_loop(self, mode: str, batch_spec: Any) -> Callable:
        """``fn(iterator, count)`` -> (steps run, logs); stops early when data ends."""
        key = ("iterator", mode)
        if key in self._cache:
            return self._cache[key]
        custom = self._overridden(mode)
        if custom and self.strategy is None:
            step, log_specs = self._traced_step(mode, batch_spec)
        else:
            step, log_specs = self._step(mode), None

        def loop(iterator, count):
            def body(done, ended, logs):
                optional = iterator.get_next_as_optional()

                def run():
                    out = self._run(step, optional.get_value())
                    return done + 1, tf.constant(False), out if log_specs is not None else logs

                return tf.cond(optional.has_value(), run, lambda: (done, tf.constant(True), logs))

            logs = {} if log_specs is None else tf.nest.map_structure(lambda s: tf.zeros(s.shape, s.dtype), log_specs)
            done, _, logs = tf.while_loop(
                lambda done, ended, _: tf.logical_and(done < count, tf.logical_not(ended)),
                body,
                [tf.constant(0), tf.constant(False), logs],
            )
            return done, self._metric_logs() if log_specs is None else logs

        # Written with TensorFlow's control flow and traced as written: AutoGraph took 0.2-0.3 s to convert
        # this loop at the first trace of every fit. A user's call and train_step are still converted.
        fn = compiled(autograph.written_in_tensorflow(loop))
        self._cache[key] = fn
        return fn

    def predict_batch_fn(self) -> Callable:
        """``fn(batch)`` -> predictions of one batch (under a strategy, every replica's rows in the batch's order)."""
        key = ("predict_batch",)
        if key in self._cache:
            return self._cache[key]
        step = self._step("predict")

        def run(batch):
            out = self._run(step, batch)
            if self.strategy is not None:  # every replica's rows (every worker's: collectives), in order
                out = replica_outputs.join_replicas(self.strategy, out)
            return out

        fn = compiled(autograph.written_in_tensorflow(run), reduce_retracing=True)
        self._cache[key] = fn
        return fn
