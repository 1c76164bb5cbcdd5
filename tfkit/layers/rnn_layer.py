"""The generic recurrent layer ``RNN(cell)``: runs any cell over the timesteps of a sequence.

    rnn = tfkit.layers.RNN(tfkit.layers.LSTMCell(32), return_sequences=True)
    y = rnn(tf.ones((4, 10, 8)))            # (4, 10, 32)

``RNN`` takes any cell: a built-in one, a list of cells (run as
``StackedRNNCells``), or your own, whose inputs, states and outputs may be
nests (``state_size = [tf.TensorShape([4]), tf.TensorShape([2, 3])]`` and
tuple inputs, as in the Keras RNN guide's ``NestedCell``).
For the built-in cells on a GPU the input projection of every timestep is
one matmul before the loop, which then (``rnn_loop.run``) only does the
recurrent part; on a CPU the projection stays inside the loop, where it is
faster (see ``RNN._precompute_projection``). Masks (from ``Embedding(mask_zero=True)``, ``Masking`` or ``mask=``)
make masked timesteps keep the previous state and repeat the previous output.
``stateful=True`` keeps the final states in non-trainable variables (not
listed in ``weights``, saved in checkpoints) and starts the next call from
them until ``reset_states()``. The built-in layers over it (``SimpleRNN``,
``LSTM``, ``GRU``) are in ``tfkit.layers.recurrent``.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any

import tensorflow as tf

from tfkit.base import load_budget, registry
from tfkit.base.argument_validation import is_shape
from tfkit.distribution import values as distribution_values
from tfkit.engine import shape_inference
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers import rnn_loop
from tfkit.layers.core import base_config
from tfkit.layers.rnn_cells import _RecurrentCell, outputs_first_state
from tfkit.layers.rnn_cudnn import refuse_cudnn
from tfkit.layers.rnn_structure import (
    RNNStates,
    as_state_list,
    flat_shapes,
    is_size,
    map_shapes,
    map_sizes,
    size_dims,
    zeros_for,
)
from tfkit.layers.stacked_cells import StackedRNNCells, call_cell

__all__ = ["RNN"]


def _nest_like(structure: Any) -> Any:
    """``structure`` with lists for tuples, so two nests compare by layout only."""
    if isinstance(structure, dict):
        return {k: _nest_like(v) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return [_nest_like(v) for v in structure]
    return None


@registry.builtin("layers")
@shape_inference.always_trace  # call charges unroll=True to a load's budget: symbolic calls trace it
class RNN(Layer):
    """Base class for recurrent layers: runs a cell over the time axis.

    `cell` is a layer with `state_size` (an int, a `tf.TensorShape` or a
    list of them), optionally `output_size`, and
    `call(inputs_t, states, training=None)` returning
    `(output_t, new_states)`; a list of cells is wrapped in
    `StackedRNNCells`. Inputs may be a nest of sequences (a tuple of
    `(batch, time, ...)` tensors) that the cell receives one timestep at a
    time, in the same nest. tfkit's built-in cells run faster through their
    `project_inputs` / `step` split: on a GPU the input projection of every
    timestep is one matmul before the loop; on a CPU it stays inside the
    loop, where it is faster.

    Masks (from `Embedding(mask_zero=True)`, `Masking` or `mask=`) make
    masked timesteps keep the previous states and repeat the previous output
    (or output zeros with `zero_output_for_mask=True`). The output keeps the
    mask only with `return_sequences=True`.

    Args:
        cell: An RNN cell instance (or a list of them, or a config dict or
            registered name of one), as described above.
        return_sequences: Boolean. Whether to return the last output in the
            output sequence (`False`, the default) or the full sequence
            `(batch, timesteps, units)`.
        return_state: Boolean. Whether to return the final states in addition
            to the output: the call then returns `[output, *states]`.
            Defaults to `False`.
        go_backwards: Boolean. If `True`, process the input sequence backwards
            (from the last timestep to the first) and, with
            `return_sequences=True`, return the outputs in that reversed
            order. Defaults to `False`.
        stateful: Boolean. If `True`, the last state for each sample at index
            `i` in a batch is used as the initial state for the sample of
            index `i` in the following batch. The states live in
            non-trainable variables (saved in checkpoints, not listed in
            `weights`) until `reset_states()`; the layer then needs a fixed
            batch size (`Input(batch_shape=...)`). Defaults to `False`.
        unroll: Boolean. If `True`, the network is unrolled (a Python loop
            over the timesteps, which needs a known number of timesteps);
            else a symbolic `tf.while_loop` is used, which runs up to four
            timesteps per iteration when the length is known (one under
            XLA, which compiles that faster and runs it faster). Unrolling can
            speed up an RNN on short sequences, at the cost of memory and
            graph size. Defaults to `False`.
        zero_output_for_mask: Boolean. Whether masked timesteps output zeros
            (`True`) or repeat the previous output (`False`, the default).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        sequences: A 3D tensor with shape `(batch, timesteps, features)`.
        initial_state: List of initial state tensors to be passed to the
            first call of the cell (a list with one entry per state). If not given, zero-filled states are
            used (or a stateful layer's stored states).
        mask: Binary tensor of shape `(batch, timesteps)` indicating whether
            a given timestep should be masked: an entry of `True` means the
            timestep is used, `False` that it is skipped (the states keep
            their previous values and the output repeats the previous
            output). It comes automatically from an upstream
            `Embedding(mask_zero=True)` or `Masking` layer.
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode. Only relevant when
            the cell uses dropout.

    Input shape:
        A tensor (or a nest of tensors) of shape
        `(batch_size, timesteps, ...)`.

    Output shape:
        With `return_sequences=True`: `(batch_size, timesteps, *output_size)`,
        else `(batch_size, *output_size)`. With `return_state=True`, followed
        by the final states, `(batch_size, *state_size)` each.

    Raises:
        ValueError: If `cell` has no `state_size` or is not callable, the
            inputs are not of rank 3 or more, `unroll=True` meets an unknown
            number of timesteps, a stateful layer has no static batch size,
            or `initial_state` has the wrong number of tensors.

    Example:
        >>> layer = tfkit.layers.RNN(tfkit.layers.SimpleRNNCell(4), return_sequences=True)
        >>> layer(np.ones((2, 10, 8))).shape
        TensorShape([2, 10, 4])
        >>> stacked = tfkit.layers.RNN([tfkit.layers.LSTMCell(16), tfkit.layers.GRUCell(8)], return_state=True)
        >>> output, [h1, c1], [h2] = stacked(np.ones((2, 10, 3)))
        >>> output.shape, c1.shape, h2.shape
        (TensorShape([2, 8]), TensorShape([2, 16]), TensorShape([2, 8]))
    """

    _tfkit_share_output: bool | None = None  # rnn_loop.run's output_is_first_state; None: chosen in call

    def __init__(
        self,
        cell: Any,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if isinstance(cell, (dict, str)):
            cell = registry.resolve("layers", cell)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(list(cell))
        if getattr(cell, "state_size", None) is None or not callable(cell):
            raise ValueError(
                f"RNN layer '{self.name}' expected a cell: a layer with a `state_size` attribute and "
                f"call(inputs, states), got {cell!r}"
            )
        map_sizes(lambda s: s, cell.state_size)  # an unusable state_size fails here, naming what came
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.rnn_states: RNNStates | None = None
        self.supports_masking = True

    # ----------------------------------------------------------- structure

    @property
    def state_size(self) -> list[Any]:
        """The cell's ``state_size`` as a list: one entry per state (per cell for a stack)."""
        size = self.cell.state_size
        return list(size) if isinstance(size, (list, tuple)) and not hasattr(size, "_fields") else [size]

    @property
    def output_size(self) -> Any:
        size = getattr(self.cell, "output_size", None)
        if size is not None:
            return size
        return tf.nest.flatten(self.state_size[0])[0]  # as Keras: the (first) state's size

    @property
    def states(self) -> Any:
        """A stateful layer's state variables, in the nest of its states (``None`` before it is built)."""
        return self.rnn_states.structure if self.rnn_states is not None else None

    def get_initial_state(self, batch_size: Any) -> list[Any]:
        """Zero states for ``batch_size`` sequences (or the cell's own ``get_initial_state``)."""
        own = getattr(self.cell, "get_initial_state", None)
        if own is not None:
            return as_state_list(own(batch_size=batch_size))
        return zeros_for(self.state_size, batch_size, self.compute_dtype)

    def reset_states(self, states: Any = None) -> None:
        """Zero a stateful layer's states, or set them to ``states`` (arrays in the nest of ``states``).

        As in Keras 3, resetting a layer that is not stateful (or not built yet) does nothing.
        """
        if self.rnn_states is None:
            if states is not None:
                raise ValueError(
                    f"RNN layer '{self.name}' has no states to set: it is "
                    f"{'not built yet' if self.stateful else 'not stateful (pass stateful=True)'}"
                )
            return
        if states is None:
            self.rnn_states.reset()
            return
        values = tf.nest.flatten(states)
        variables = self.rnn_states.values
        if len(values) != len(variables):
            raise ValueError(f"RNN layer '{self.name}' has {len(variables)} state tensor(s), got {len(values)} values")
        for variable, value in zip(variables, values):
            value = tf.convert_to_tensor(value, variable.dtype)
            if tuple(value.shape) != tuple(variable.shape):
                raise ValueError(
                    f"RNN layer '{self.name}': a state has shape {tuple(variable.shape)}, got a value of shape "
                    f"{tuple(value.shape)}"
                )
            variable.assign(value)

    reset_state = reset_states

    # --------------------------------------------------------------- build

    def build(self, sequences_shape: Any, initial_state_shape: Any = None) -> None:
        for shape in flat_shapes(sequences_shape):
            if len(shape) < 3:
                raise ValueError(
                    f"RNN layer '{self.name}' expects inputs of shape (batch, time, features), got shape {shape}"
                )
        step_shape = map_shapes(lambda s: (s[0], *s[2:]), sequences_shape)
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.build(step_shape)
            self.cell.built = True
        batch = flat_shapes(sequences_shape)[0][0]
        if self.stateful:
            if batch is None:
                raise ValueError(
                    f"RNN layer '{self.name}' is stateful and needs a static batch size; got inputs of shape "
                    f"{sequences_shape}. Give the Input a batch size: Input(batch_shape=(batch, time, features)) "
                    f"or Input(shape, batch_size=batch)"
                )
            if self.rnn_states is None:
                self.rnn_states = RNNStates(self.get_initial_state(batch))
            else:
                self.rnn_states.reset()
        if is_shape(sequences_shape):
            self.input_spec = InputSpec(min_ndim=3, axes={-1: sequences_shape[-1]})

    # ---------------------------------------------------------------- call

    def _initial_states(self, first: tf.Tensor, initial_state: Any) -> list[Any]:
        if initial_state is not None:
            given = as_state_list(initial_state)
            template = self._state_template(first)
            flat_given = tf.nest.flatten(given)
            flat_template = tf.nest.flatten(template)
            if len(flat_given) != len(flat_template):
                raise ValueError(
                    f"RNN layer '{self.name}' expects {len(flat_template)} initial state tensor(s), "
                    f"got {len(flat_given)}"
                )
            flat_given = [
                tf.cast(s, t.dtype) if s.dtype != t.dtype else s
                for s, t in zip(map(tf.convert_to_tensor, flat_given), flat_template)
            ]
            if _nest_like(given) != _nest_like(template):  # e.g. [h1, c1, h2] for a stack: the cells' nest
                return tf.nest.pack_sequence_as(template, flat_given)
            return tf.nest.pack_sequence_as(given, flat_given)
        if self.stateful:
            batch = first.shape[0]
            expected_batch = self.rnn_states.values[0].shape[0]
            if batch is not None and batch != expected_batch:
                raise ValueError(
                    f"RNN layer '{self.name}' is stateful with batch size {expected_batch}, "
                    f"got inputs with batch size {batch}"
                )
            return self.rnn_states.read()
        return self.get_initial_state(tf.shape(first)[0])

    def _state_template(self, first: tf.Tensor) -> Any:
        if self.rnn_states is not None:
            return self.rnn_states.structure
        return self.get_initial_state(tf.shape(first)[0])

    def _precompute_projection(self, sequences: tf.Tensor) -> bool:
        """Whether to multiply all timesteps by ``kernel`` in one matmul before the loop.

        On a GPU that one large matmul beats a small one per step (fewer
        kernel launches, as cuDNN does). On a CPU the per-step matmul is
        faster: its inputs stay in cache, while the precomputed
        ``(time, batch, gates * units)`` tensor must be written out and read
        back (measured 1.2-2.4x slower for LSTM(128) forward on CPU, under XLA
        too). ``_tfkit_precompute_inputs`` (True/False) overrides the choice.
        """
        forced = getattr(self, "_tfkit_precompute_inputs", None)
        if forced is not None:
            return bool(forced)
        device = getattr(sequences, "device", "") or ""
        if "GPU" in device.upper():
            return True
        if "CPU" in device.upper():
            return False
        return _gpu_visible()

    def _output_like(self, first: tf.Tensor, states: Any) -> Any:
        dtype = tf.nest.flatten(states)[0].dtype
        if getattr(self.cell, "output_size", None) is None and not isinstance(self.cell, StackedRNNCells):
            return tf.zeros_like(tf.nest.flatten(states)[0])
        zeros = zeros_for(self.output_size, tf.shape(first)[0], dtype)
        for tensor in tf.nest.flatten(zeros):
            tensor.set_shape((first.shape[0], *tensor.shape[1:]))
        return zeros

    def _step_function(self, sequences: Any, states: Any, training: Any) -> tuple[Any, Any]:
        """``(step, loop_inputs)`` for the cell: built-in cells split their work, others are called."""
        cell = self.cell
        first = tf.nest.flatten(sequences)[0]
        if isinstance(cell, _RecurrentCell):
            if first.dtype != cell.compute_dtype:  # what the cell's __call__ would autocast
                first = tf.cast(first, cell.compute_dtype)
            input_mask, recurrent_mask = cell.dropout_masks(first[:, 0], states[0], training)
            loop_inputs = tf.transpose(first, [1, 0, *range(2, first.shape.rank)])
            if self._precompute_projection(first):
                loop_inputs = cell.project_inputs(loop_inputs, None if input_mask is None else input_mask[None])

                def step(x_t: tf.Tensor, step_states: list) -> tuple:
                    return cell.step(x_t, step_states, recurrent_mask)
            else:

                def step(x_t: tf.Tensor, step_states: list) -> tuple:
                    return cell.step(cell.project_inputs(x_t, input_mask), step_states, recurrent_mask)

            return step, loop_inputs
        if isinstance(cell, StackedRNNCells):
            return cell.make_step(tf.nest.map_structure(lambda x: x[:, 0], sequences), states, training), None

        def generic(x_t: Any, step_states: list) -> tuple:
            # As in Keras 3, a cell always receives its states as a list (even a single one).
            return call_cell(cell, x_t, list(step_states), training)

        return generic, None

    @tf.autograph.experimental.do_not_convert
    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None, training: Any = None) -> Any:
        refuse_cudnn(self)
        first = tf.nest.flatten(sequences)[0]
        # On a tfkit.distribution mesh the loop over time is unrolled: the gradient of a tf.while_loop keeps
        # its intermediates in TensorLists, which DTensor cannot lay out (TF 2.21: "'tf.EmptyTensorList' op
        # does not implement layout propagation").
        unroll = self.unroll or distribution_values.on_mesh()
        if unroll and first.shape[1] is None:
            raise ValueError(
                f"RNN layer '{self.name}' cannot unroll over an unknown number of timesteps "
                f"(input shape {tuple(first.shape)}); give the Input a fixed time length"
                + (
                    ""
                    if self.unroll
                    else ": on a tfkit.distribution mesh the loop over time is unrolled, as DTensor cannot run "
                    "the gradient of a tf.while_loop"
                )
            )
        if unroll:  # while a model file is loaded: its unrolled steps count against the file's budget
            cells = len(getattr(self.cell, "cells", None) or [self.cell])
            load_budget.charge(
                load_budget.UNROLLED_STEPS,
                first.shape[1] * cells,
                f"{type(self).__name__} layer '{self.name}'",
                f"unroll=True over {first.shape[1]} timesteps" + (f" of {cells} stacked cells" if cells > 1 else ""),
            )
        if isinstance(mask, (list, tuple)):
            mask = tf.nest.flatten(mask)[0]
        states = self._initial_states(first, initial_state)
        time_major_mask = None
        if mask is not None:
            mask = tf.convert_to_tensor(mask)
            if mask.shape.rank == 3:  # (batch, time, 1) masks
                mask = tf.squeeze(mask, -1)
            time_major_mask = tf.transpose(tf.cast(mask, tf.bool))

        step, loop_inputs = self._step_function(sequences, states, training)
        if loop_inputs is None:
            loop_inputs = tf.nest.map_structure(lambda x: tf.transpose(x, [1, 0, *range(2, x.shape.rank)]), sequences)
        reading = getattr(self.cell, "weights_read_once", None)
        with reading() if reading is not None else contextlib.nullcontext():
            last_output, outputs, final_states = rnn_loop.run(
                step,
                loop_inputs,
                states,
                output_like=self._output_like(first, states),
                mask=time_major_mask,
                go_backwards=self.go_backwards,
                unroll=unroll,
                zero_output_for_mask=self.zero_output_for_mask,
                return_sequences=self.return_sequences,
                output_is_first_state=self._tfkit_share_output
                if self._tfkit_share_output is not None
                else (outputs_first_state(self.cell) and initial_state is None and self.rnn_states is None),  # h0 = 0
            )
        if self.stateful:
            self.rnn_states.assign(final_states)
        dtype = tf.as_dtype(self.compute_dtype)
        if dtype.is_floating:  # as Keras: a cell of another dtype still gives the layer's dtype
            last_output, outputs, final_states = tf.nest.map_structure(
                lambda t: tf.cast(t, dtype) if t is not None and t.dtype.is_floating and t.dtype != dtype else t,
                (last_output, outputs, final_states),
            )
        if self.return_sequences:
            output = tf.nest.map_structure(lambda o: tf.transpose(o, [1, 0, *range(2, o.shape.rank)]), outputs)
        else:
            output = last_output
        if self.return_state:
            return (output, *final_states)
        return output

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = tf.nest.flatten(mask)[0]
        output_mask = mask if self.return_sequences else None
        if isinstance(output_mask, tf.Tensor) and not is_size(getattr(self.cell, "output_size", None)):
            output_mask = map_sizes(lambda _: mask, self.output_size)
        if self.return_state:
            return (output_mask, *[None] * len(self.state_size))
        return output_mask

    def compute_output_shape(self, sequences_shape: Any, initial_state_shape: Any = None) -> Any:
        batch, length = flat_shapes(sequences_shape)[0][:2]

        def output_shape(size: Any) -> tuple:
            dims = size_dims(size)
            return (batch, length, *dims) if self.return_sequences else (batch, *dims)

        outputs = map_sizes(output_shape, self.output_size)
        if not self.return_state:
            return outputs
        states = [map_sizes(lambda s: (batch, *size_dims(s)), size) for size in self.state_size]
        return (outputs, *states)

    # -------------------------------------------------------------- config

    def _loop_config(self) -> dict[str, Any]:
        return {
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
        }

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(self._loop_config())
        config["cell"] = registry.to_config("layers", self.cell)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "RNN":
        config = dict(config)
        if "cell" in config:
            config["cell"] = registry.resolve("layers", config["cell"])
        return super().from_config(config)


@functools.lru_cache(maxsize=None)
def _gpu_visible() -> bool:
    return bool(tf.config.list_logical_devices("GPU"))
