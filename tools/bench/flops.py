"""FLOPs of a training step, counted from its traced graph, and the machine's large-matmul rate.

    counts = step_flops(model, batch_spec)     # {"MatMul": 34_471_936, "BiasAdd": ..., ...} for one step
    rate = matmul_rate()                       # GFLOP/s of tf.matmul on 2048x2048 float32
    vae_hand_count()                           # 538_624 FLOPs per sample, forward and backward

The count uses TensorFlow's own per-op statistics (``RegisterStatistics("flops")``:
MatMul, Conv2D and their gradients, elementwise ops) on ``model.train_step``
traced for a static batch, following the functions it calls and while-loop bodies
(an RNN's loop counts once per iteration when the caller passes the trip count: ``rnn_iterations``).
TensorFlow has no statistics for ``Einsum`` (MultiHeadAttention's projections and
attention, forward and backward), so ``einsum_flops`` counts it from the equation.
Fused optimizer kernels have no statistics and are
left out (Adam's update is about ten FLOPs per weight, under 1% of the VAE's
step). For the guide's VAE the MatMul count equals the hand count exactly.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import func_graph, ops

_LOOPS = ("While", "StatelessWhile")
_CALLS = ("PartitionedCall", "StatefulPartitionedCall")


def rnn_iterations(timesteps: int) -> int:
    """Iterations of tfkit's loop over ``timesteps`` (each runs ``rnn_loop.steps_per_iteration`` of them)."""
    from tfkit.layers import rnn_loop

    return timesteps // rnn_loop.steps_per_iteration(timesteps)


def graph_flops(graph: tf.Graph, loop_trips: int | None = None) -> dict[str, int]:
    """FLOPs by op type in ``graph`` and the functions it calls (ops TensorFlow has no statistics for count 0).

    A while loop's body counts ``loop_trips`` times (an RNN's iterations, ``rnn_iterations``; TensorFlow
    cannot know the trip count from the graph), or once when ``loop_trips`` is None.
    """
    counts: dict[str, int] = {}
    _add_graph(graph, counts, 1, loop_trips, dict(getattr(graph, "_functions", {})))
    return counts


def _add_graph(
    graph: Any, counts: dict[str, int], times: int, loop_trips: int | None, functions: dict[str, Any]
) -> None:
    functions.update(getattr(graph, "_functions", {}))
    live = _live_ops(graph)
    for op in graph.get_operations():
        if live is not None and op.name not in live:
            continue  # a result nothing uses: TensorFlow prunes it before running
        try:
            value = ops.get_stats_for_node_def(graph, op.node_def, "flops").value
        except (ValueError, TypeError):  # an unknown shape: nothing to count
            value = None
        if value is None and op.type == "Einsum":  # TensorFlow registers no statistics for it
            value = einsum_flops(op)
        if value:
            counts[op.type] = counts.get(op.type, 0) + times * int(value)
        if op.type in _LOOPS:
            _add_function(op.get_attr("body").name, counts, times * (loop_trips or 1), loop_trips, functions)
        elif op.type in _CALLS:
            _add_function(op.get_attr("f").name, counts, times, loop_trips, functions)


def _live_ops(graph: Any) -> set[str] | None:
    """Names of the ops the graph's outputs and side effects depend on (None: not a function's graph).

    A gradient may build results nobody asks for (``Einsum``'s gradient makes both operands'
    gradients, even for the model's input); TensorFlow prunes them before running, so they do not count.
    """
    if not isinstance(graph, func_graph.FuncGraph):
        return None
    live: set[str] = set()
    pending = [tensor.op for tensor in graph.outputs] + list(graph.control_outputs)
    while pending:
        op = pending.pop()
        if op.name in live:
            continue
        live.add(op.name)
        pending.extend(tensor.op for tensor in op.inputs)
        pending.extend(op.control_inputs)
    return live


def _add_function(
    name: str, counts: dict[str, int], times: int, loop_trips: int | None, functions: dict[str, Any]
) -> None:
    function = functions.get(name)
    if function is not None:
        _add_graph(function.graph, counts, times, loop_trips, functions)


def einsum_flops(op: Any) -> int | None:
    """FLOPs of an ``Einsum`` op from its equation and static input shapes (None when a shape is unknown).

    Two operands: one multiply per combination of all their labels, plus one add when a label is
    summed away (``2 * M * N * K`` for a matmul, as TensorFlow counts ``MatMul``). One operand:
    one add per input element when a label is summed away, else none (a transpose).
    """
    equation = op.get_attr("equation").decode().replace(" ", "")
    inputs, output = equation.split("->")
    shapes = [tensor.shape for tensor in op.inputs]
    if any(not shape.is_fully_defined() for shape in shapes):
        return None
    sizes: dict[str, int] = {}
    ellipsis: list[tuple[int, ...]] = []
    for labels, shape in zip(inputs.split(","), shapes):
        dims = shape.as_list()
        if "..." in labels:
            before, after = labels.split("...")
            covered = len(dims) - len(before) - len(after)
            ellipsis.append(tuple(dims[len(before) : len(before) + covered]))
            dims = dims[: len(before)] + dims[len(before) + covered :]
            labels = before + after
        for label, dim in zip(labels, dims):
            sizes[label] = max(sizes.get(label, 1), dim)  # a label of size 1 may broadcast
    combinations = int(np.prod(list(sizes.values()), dtype=np.int64))
    if ellipsis:
        combinations *= int(np.prod(np.broadcast_shapes(*ellipsis), dtype=np.int64))
    summed = any(label not in output for label in sizes)  # TensorFlow keeps "..." in the output
    if len(shapes) == 1:
        return combinations if summed else 0
    return combinations * (2 if summed else 1)


def step_flops(model: Any, batch_spec: Any, loop_trips: int | None = None) -> dict[str, int]:
    """FLOPs of one ``model.train_step`` on a batch of ``batch_spec`` (static shapes), by op type."""
    concrete = tf.function(model.train_step).get_concrete_function(batch_spec)
    return graph_flops(concrete.graph, loop_trips)


def matmul_rate(size: int = 2048, repeats: int = 10) -> float:
    """GFLOP/s of ``tf.matmul`` on ``size x size`` float32 matrices (best of ``repeats``)."""
    a = tf.random.stateless_uniform((size, size), seed=(1, 2))
    b = tf.random.stateless_uniform((size, size), seed=(3, 4))
    matmul = tf.function(lambda x, y: tf.reduce_sum(tf.matmul(x, y)))
    matmul(a, b).numpy()  # trace and warm up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        matmul(a, b).numpy()
        best = min(best, time.perf_counter() - start)
    return 2.0 * size**3 / best / 1e9


def vae_hand_count(input_dim: int = 784, intermediate: int = 64, latent: int = 32) -> int:
    """Matmul FLOPs per sample of the guide's VAE, forward plus backward, counted by hand.

    Forward: 2 FLOPs per multiply-add of each Dense (784x64, 64x32 twice, 32x64, 64x784).
    Backward: the weight gradients cost the forward again; the input gradients too, except
    for the first layer, whose input (the data) needs none.
    """
    layers = [
        (input_dim, intermediate),
        (intermediate, latent),
        (intermediate, latent),
        (latent, intermediate),
        (intermediate, input_dim),
    ]
    forward = sum(2 * n_in * n_out for n_in, n_out in layers)
    first = 2 * input_dim * intermediate
    return forward + forward + (forward - first)
