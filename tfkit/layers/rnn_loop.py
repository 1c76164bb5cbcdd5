"""The loop over time that every recurrent layer runs: :func:`run`.

    step = lambda x_t, states: cell.step(x_t, states)          # -> (output, new_states)
    last, outputs, states = rnn_loop.run(step, x_time_major, [h0, c0], output_like=h0)
    # outputs: (time, batch, units), time-major

A ``tf.while_loop`` over ``TensorArray``s (or a Python loop with
``unroll=True``), so it runs eagerly, in ``tf.function`` and under XLA, and
its gradient costs O(time); over a known number of timesteps each iteration
runs up to four of them outside XLA (``steps_per_iteration``). Inputs, outputs and states may each be a nest
(tuples, lists, dicts of tensors, as a cell with nested inputs or a stack
of cells has): the loop carries them flat and hands ``step`` their
structure. Masks follow Keras 3's ``rnn`` backend: at a masked timestep the
states keep their previous values and the output repeats the previous
output (zeros before the first step), or is zero when
``zero_output_for_mask=True``.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Callable, Iterator, Sequence

import tensorflow as tf

from tfkit.base.xla_context import in_xla_compilation

__all__: list[str] = []

StepFn = Callable[[Any, Any], tuple]


def _broadcast_mask(mask_t: tf.Tensor, like: tf.Tensor) -> tf.Tensor:
    """A ``(batch, 1)`` mask reshaped to ``(batch, 1, ..., 1)`` to select rows of ``like``.

    The mask arrives as ``(batch, 1)`` (expanded once, before the loop), which
    already fits the usual ``(batch, units)`` outputs and states: no op per step.
    """
    if like.shape.rank == mask_t.shape.rank:
        return mask_t
    return tf.reshape(mask_t, [-1] + [1] * (like.shape.rank - 1))


def _select(mask_t: tf.Tensor, new: Sequence[tf.Tensor], old: Sequence[tf.Tensor]) -> list[tf.Tensor]:
    return [tf.where(_broadcast_mask(mask_t, n), n, o) for n, o in zip(new, old)]


class _Flat:
    """``step`` seen through flat lists: the loop carries flat outputs and states."""

    def __init__(self, step: StepFn, inputs: Any, states: Any, outputs: Any) -> None:
        self.step = step
        self.inputs = inputs
        self.states = states
        self.outputs = outputs
        self.n_states = len(tf.nest.flatten(states))

    def __call__(self, flat_x: list[tf.Tensor], flat_states: list[tf.Tensor]) -> tuple[list, list]:
        x_t = tf.nest.pack_sequence_as(self.inputs, flat_x)
        output, new_states = self.step(x_t, tf.nest.pack_sequence_as(self.states, flat_states))
        flat_new = tf.nest.flatten(new_states)
        if len(flat_new) != self.n_states:
            raise ValueError(
                f"The RNN cell returned {len(flat_new)} state tensor(s) from a step, expected {self.n_states} "
                f"(the structure of its state_size / initial states)"
            )
        flat_output = tf.nest.flatten(output)
        if len(flat_output) != len(tf.nest.flatten(self.outputs)):
            raise ValueError(
                f"The RNN cell returned {len(flat_output)} output tensor(s) from a step, expected "
                f"{len(tf.nest.flatten(self.outputs))} (the structure of its output_size)"
            )
        return flat_output, flat_new


@tf.autograph.experimental.do_not_convert
def run(
    step: StepFn,
    inputs: Any,
    initial_states: Any,
    output_like: Any,
    mask: tf.Tensor | None = None,
    go_backwards: bool = False,
    unroll: bool = False,
    zero_output_for_mask: bool = False,
    return_sequences: bool = True,
    output_is_first_state: bool = False,
) -> tuple[Any, Any, Any]:
    """Apply ``step`` along axis 0 of the time-major ``inputs``.

    Args:
        step: ``step(inputs_t, states) -> (output_t, new_states)``.
        inputs: a ``(time, batch, ...)`` tensor or a nest of them.
        initial_states: the states before the first step (a list, possibly nested).
        output_like: a tensor (or nest) with the shape and dtype of one step's
            output; it is the "previous output" at the first masked step.
        mask: ``(time, batch)`` booleans, ``False`` where a step is skipped.
        go_backwards: walk from the last timestep to the first; the
            returned sequence is then in that reversed order (as Keras).
        unroll: a Python loop instead of ``tf.while_loop`` (static time only).
        zero_output_for_mask: zeros instead of the previous output at masked steps.
        return_sequences: collect every step's output (else only the last).
        output_is_first_state: the caller's promise that each step's output is its first new state
            and the first state starts at zeros (the built-in cells from zero states): the loop then
            carries no separate previous output, whose masked selection would repeat the state's.

    Returns:
        ``(last_output, outputs, final_states)`` in the structures of
        ``output_like`` and ``initial_states``; ``outputs`` is time-major
        ``(time, batch, ...)``, or ``None`` when ``return_sequences`` is false.
    """
    flat_inputs = tf.nest.flatten(inputs)
    if go_backwards:
        flat_inputs = [tf.reverse(x, [0]) for x in flat_inputs]
        if mask is not None:
            mask = tf.reverse(mask, [0])
    if mask is not None and mask.dtype != tf.bool:
        mask = tf.cast(mask, tf.bool)
    if mask is not None:
        mask = tf.expand_dims(mask, -1)  # (time, batch, 1): selects rows of (batch, units) tensors as is
    flat_step = _Flat(step, inputs, initial_states, output_like)
    states = tf.nest.flatten(initial_states)
    zeros = [tf.zeros_like(o) for o in tf.nest.flatten(output_like)]
    if unroll:
        last, outputs, final = _unrolled(
            flat_step, flat_inputs, states, zeros, mask, zero_output_for_mask, return_sequences
        )
    else:
        share = output_is_first_state and not zero_output_for_mask and len(zeros) == 1
        last, outputs, final = _while(
            flat_step, flat_inputs, states, zeros, mask, zero_output_for_mask, return_sequences, share
        )
    last = tf.nest.pack_sequence_as(output_like, last)
    outputs = tf.nest.pack_sequence_as(output_like, outputs) if return_sequences else None
    return last, outputs, tf.nest.pack_sequence_as(initial_states, final)


def _masked_step(
    step: _Flat,
    x_t: list[tf.Tensor],
    states: list[tf.Tensor],
    prev_output: list[tf.Tensor],
    zeros: list[tf.Tensor],
    mask_t: tf.Tensor | None,
    zero_output_for_mask: bool,
) -> tuple[list[tf.Tensor], list[tf.Tensor]]:
    output, new_states = step(x_t, states)
    if mask_t is None:
        return output, new_states
    fallback = zeros if zero_output_for_mask else prev_output
    return _select(mask_t, output, fallback), _select(mask_t, new_states, states)


def _unrolled(
    step: _Flat,
    flat_inputs: list[tf.Tensor],
    states: list[tf.Tensor],
    zeros: list[tf.Tensor],
    mask: tf.Tensor | None,
    zero_output_for_mask: bool,
    return_sequences: bool,
) -> tuple[list[tf.Tensor], list[tf.Tensor], list[tf.Tensor]]:
    time_steps = flat_inputs[0].shape[0]
    if time_steps is None:
        raise ValueError("unroll=True needs a known number of timesteps; got inputs with an unknown time axis")
    slices = [tf.unstack(x, num=time_steps) for x in flat_inputs]
    masks = tf.unstack(mask, num=time_steps) if mask is not None else [None] * time_steps
    output, outputs = zeros, []
    for t in range(time_steps):
        output, states = _masked_step(
            step, [s[t] for s in slices], states, output, zeros, masks[t], zero_output_for_mask
        )
        if return_sequences:
            outputs.append(output)
    stacked = [tf.stack(per_output) for per_output in zip(*outputs)] if return_sequences else []
    return output, stacked, states


def _shaped_like(new: Sequence[tf.Tensor], old: Sequence[tf.Tensor]) -> list[tf.Tensor]:
    """``new`` with the static shapes of ``old`` (a loop variable keeps its shape across iterations)."""
    return [tf.ensure_shape(n, o.shape) if n.shape != o.shape else n for n, o in zip(new, old)]


def _while(
    step: _Flat,
    flat_inputs: list[tf.Tensor],
    states: list[tf.Tensor],
    zeros: list[tf.Tensor],
    mask: tf.Tensor | None,
    zero_output_for_mask: bool,
    return_sequences: bool,
    output_is_first_state: bool = False,
) -> tuple[list[tf.Tensor], list[tf.Tensor], list[tf.Tensor]]:
    static_steps = flat_inputs[0].shape[0]
    time_steps = static_steps if static_steps is not None else tf.shape(flat_inputs[0])[0]
    input_arrays = [tf.TensorArray(x.dtype, size=time_steps, element_shape=x.shape[1:]).unstack(x) for x in flat_inputs]
    mask_array = (
        tf.TensorArray(tf.bool, size=time_steps, element_shape=mask.shape[1:]).unstack(mask)
        if mask is not None
        else None
    )
    output_arrays = [
        tf.TensorArray(z.dtype, size=time_steps if return_sequences else 0, element_shape=z.shape) for z in zeros
    ]

    def read(t: tf.Tensor) -> tuple[list[tf.Tensor], tf.Tensor | None]:
        return [a.read(t) for a in input_arrays], mask_array.read(t) if mask_array is not None else None

    def advance(t: tf.Tensor, out_arrays: list, prev_output: list, states: list) -> tuple:
        x_t, mask_t = read(t)
        output, new_states = _masked_step(
            step, x_t, list(states), list(prev_output), zeros, mask_t, zero_output_for_mask
        )
        output, new_states = _shaped_like(output, zeros), _shaped_like(new_states, states)
        if return_sequences:
            out_arrays = [a.write(t, o) for a, o in zip(out_arrays, output)]
        return t + 1, out_arrays, output, new_states

    if output_is_first_state:  # the previous output is states[0]: one select and one loop variable less

        def body(t: tf.Tensor, out_arrays: list, states: list) -> tuple:
            x_t, mask_t = read(t)
            _, new_states = step(x_t, list(states))
            if mask_t is not None:
                new_states = _select(mask_t, new_states, states)
            new_states = _shaped_like(new_states, states)
            if return_sequences:
                out_arrays = [a.write(t, new_states[0]) for a in out_arrays]
            return t + 1, out_arrays, new_states

        _, output_arrays, final_states = _loop(
            body, (tf.constant(0, tf.int32), output_arrays, states), static_steps, time_steps
        )
        outputs = [a.stack() for a in output_arrays] if return_sequences else []
        return [final_states[0]], outputs, list(final_states)

    _, output_arrays, last_output, final_states = _loop(
        advance, (tf.constant(0, tf.int32), output_arrays, zeros, states), static_steps, time_steps
    )
    outputs = [a.stack() for a in output_arrays] if return_sequences else []
    return list(last_output), outputs, list(final_states)


# Timesteps per iteration of the loop over a known number of timesteps, at most, outside XLA. Each iteration
# has a fixed cost (the executor's frame and its scheduling of the body's ops), which several steps share.
# The bench's LSTM (80 steps of 64 units, batch 64, masked, 2-core CPU) without XLA: an epoch at 1 step per
# iteration took 1.03x the time of one at 4 (median of 6 epochs alternated in one process; 2.13 s against
# 1.91 s in separate processes). Under XLA one step per iteration is best: its epochs took 0.93x the time
# of 4 steps' and 0.95x 2 steps' (8 and 6 alternated epochs), and XLA compiled its step in 1.75 s, against
# 2.1 s at 2 and 3.0 s at 4 (TensorFlow 2.21).
_STEPS_PER_ITERATION = 4
_ONE_STEP: contextvars.ContextVar[bool] = contextvars.ContextVar("tfkit_rnn_one_step_per_iteration", default=False)


@contextlib.contextmanager
def one_step_per_iteration() -> Iterator[None]:
    """Loops traced in this block run one timestep per iteration (what tf2onnx can convert).

        with rnn_loop.one_step_per_iteration():
            concrete = tf.function(model).get_concrete_function(spec)

    With several timesteps per iteration, tf2onnx 1.17 writes an ONNX Loop that onnxruntime
    rejects (int32 against int64 in the loop's counter arithmetic).
    """
    token = _ONE_STEP.set(True)
    try:
        yield
    finally:
        _ONE_STEP.reset(token)


def steps_per_iteration(static_steps: int | None) -> int:
    """How many timesteps one iteration runs: the largest of 4, 3, 2 that divides the number of
    timesteps into at least two iterations, else 1 (and 1 for an unknown number, in a graph that
    XLA compiles, or inside ``one_step_per_iteration``). No step runs outside the loop.
    """
    if static_steps is None or _ONE_STEP.get() or in_xla_compilation():
        return 1
    for size in range(_STEPS_PER_ITERATION, 1, -1):
        if static_steps % size == 0 and static_steps // size >= 2:
            return size
    return 1


def _loop(body: Callable, loop_vars: tuple, static_steps: int | None, time_steps: Any) -> tuple:
    """``body`` (one timestep, ``t`` first in its loop variables) run over every timestep,
    ``steps_per_iteration`` of them per iteration of a ``tf.while_loop``."""
    per_iteration = steps_per_iteration(static_steps)
    iterations = time_steps if per_iteration == 1 else static_steps // per_iteration

    def several(*loop_vars: Any) -> tuple:
        for _ in range(per_iteration):
            loop_vars = body(*loop_vars)
        return loop_vars

    return tf.while_loop(lambda t, *_: t < time_steps, several, loop_vars, maximum_iterations=iterations)
