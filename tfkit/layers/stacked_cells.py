"""``StackedRNNCells``: several RNN cells that step together as one cell.

    cells = [tfkit.layers.LSTMCell(16), tfkit.layers.GRUCell(8)]
    rnn = tfkit.layers.RNN(cells, return_state=True)       # a list is stacked for you
    y, [h1, c1], [h2] = rnn(tf.ones((4, 10, 3)))

At every timestep the first cell reads the inputs, each next cell reads the
output of the one before, and the last cell's output is the stack's output.
``state_size`` is the list of the cells' state sizes, so the states of a
stack are a list with one entry per cell (a list for a cell with a list
``state_size``, a single tensor for a cell with an int one), in order.
"""

from __future__ import annotations

import contextlib
import inspect
from typing import Any, Callable, Iterator

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config
from tfkit.layers.rnn_cells import _RecurrentCell
from tfkit.layers.rnn_structure import as_state_list, flat_shapes, is_size, zeros_for

__all__ = ["StackedRNNCells"]


def _is_nested(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict))


def _cell_output_size(cell: Any) -> Any:
    size = getattr(cell, "output_size", None)
    if size is not None:
        return size
    state_size = cell.state_size
    return state_size[0] if isinstance(state_size, (list, tuple)) else state_size


def call_cell(cell: Any, inputs: Any, states: Any, training: Any) -> tuple:
    """One step of ``cell``, with ``training`` passed only to a cell whose ``call`` takes it."""
    kwargs = {"training": training} if accepts_training(cell) else {}
    return cell(inputs, states, **kwargs)


def accepts_training(cell: Any) -> bool:
    """Whether ``cell.call`` takes a ``training`` argument."""
    call = getattr(type(cell), "call", None) or cell
    try:
        return "training" in inspect.signature(call).parameters
    except (TypeError, ValueError):
        return False


@registry.builtin("layers")
class StackedRNNCells(Layer):
    """Wrapper allowing a stack of RNN cells to behave as a single cell.

    Used to implement efficient stacked RNNs: `RNN` runs every cell at each
    timestep. The first cell reads the inputs, each next cell reads the
    output of the one before, and the last cell's output is the stack's
    output. `state_size` is the list of the cells' state sizes, so the
    states of a stack are a list with one entry per cell (itself a list for
    a cell with several states), in order. `RNN` wraps a list of cells in
    a `StackedRNNCells` for you.

    Args:
        cells: List of RNN cell instances (or their config dicts or
            registered names), first to last; each has `state_size` and
            `call(inputs, states)` returning `(output, new_states)`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: The inputs of one timestep, `(batch, features)`.
        states: The previous states: one entry per cell, in order.
        training: Python boolean indicating whether the cells should behave
            in training mode, passed to the cells whose `call` takes it.

    Input shape:
        `(batch_size, features)`, one timestep.

    Output shape:
        `(output, new_states)`: the last cell's output and the list of every
        cell's new states.

    Raises:
        ValueError: If `cells` is empty, or a cell has no `call` method or no
            `state_size`.

    Example:
        >>> cells = tfkit.layers.StackedRNNCells([tfkit.layers.LSTMCell(16), tfkit.layers.GRUCell(8)])
        >>> cells.state_size, cells.output_size
        ([[16, 16], 8], 8)
        >>> tfkit.layers.RNN(cells)(np.ones((2, 10, 3))).shape
        TensorShape([2, 8])
    """

    def __init__(self, cells: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        cells = [registry.resolve("layers", c) if isinstance(c, (dict, str)) else c for c in cells]
        if not cells:
            raise ValueError(f"StackedRNNCells '{self.name}' needs at least one cell, got an empty list")
        for cell in cells:
            if not callable(cell) or not hasattr(cell, "call"):
                raise ValueError(f"StackedRNNCells '{self.name}': every cell needs a `call` method, got {cell!r}")
            if getattr(cell, "state_size", None) is None:
                raise ValueError(
                    f"StackedRNNCells '{self.name}': every cell needs a `state_size` attribute, got {cell!r}"
                )
        self.cells = cells

    # ----------------------------------------------------------- structure

    @property
    def state_size(self) -> list[Any]:
        return [cell.state_size for cell in self.cells]

    @property
    def output_size(self) -> Any:
        return _cell_output_size(self.cells[-1])

    def get_initial_state(self, batch_size: Any = None) -> list[Any]:
        states = []
        for cell in self.cells:
            own = getattr(cell, "get_initial_state", None)
            if own is not None:
                states.append(own(batch_size=batch_size))
            elif is_size(cell.state_size):
                states.append(zeros_for(cell.state_size, batch_size, self.compute_dtype))
            else:
                states.append(zeros_for(list(cell.state_size), batch_size, self.compute_dtype))
        return states

    # --------------------------------------------------------------- build

    def build(self, input_shape: Any) -> None:
        batch = flat_shapes(input_shape)[0][0]
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                cell.build(input_shape)
                cell.built = True
            size = _cell_output_size(cell)
            dims = tuple(size.as_list()) if isinstance(size, tf.TensorShape) else (size,)
            input_shape = (batch, *dims)

    # ---------------------------------------------------------------- call

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs: Any, states: Any, training: Any = None) -> tuple:
        output, new_states = self.make_step(training=training)(inputs, states)
        if len(new_states) == 1:  # as Keras: a stack of one cell returns that cell's states
            new_states = new_states[0]
        return output, new_states

    def make_step(self, first_inputs: Any = None, states: Any = None, training: Any = None) -> Callable:
        """``step(inputs, states) -> (output, new_states)`` through every cell.

        Given one timestep's ``first_inputs`` and ``states``, the built-in
        cells draw their dropout masks here, once, and every step reuses them
        (Keras's per-sequence "variational" dropout).
        """
        masks: list[Any] = [None] * len(self.cells)
        if first_inputs is not None and states is not None:
            x = first_inputs
            for index, (cell, cell_states) in enumerate(zip(self.cells, states)):
                if isinstance(cell, _RecurrentCell):
                    x = tf.cast(x, cell.compute_dtype) if x.dtype != cell.compute_dtype else x
                    masks[index] = cell.dropout_masks(x, as_state_list(cell_states)[0], training)
                like = tf.nest.flatten(x)[0]
                x = zeros_for(_cell_output_size(cell), tf.shape(like)[0], like.dtype)

        def step(inputs: Any, step_states: Any) -> tuple:
            step_states = as_state_list(step_states)
            if len(step_states) != len(self.cells):
                raise ValueError(
                    f"StackedRNNCells '{self.name}' has {len(self.cells)} cells and expects one state entry per "
                    f"cell, got {len(step_states)}"
                )
            new_states = []
            for cell, cell_states, mask in zip(self.cells, step_states, masks):
                was_list = _is_nested(cell_states)
                cell_states = as_state_list(cell_states)
                if mask is not None:
                    if inputs.dtype != cell.compute_dtype:  # what the cell's __call__ would autocast
                        inputs = tf.cast(inputs, cell.compute_dtype)
                    inputs, cell_states = cell.step(cell.project_inputs(inputs, mask[0]), cell_states, mask[1])
                else:
                    inputs, cell_states = call_cell(cell, inputs, cell_states, training)
                if _is_nested(cell_states):
                    cell_states = list(cell_states)
                    if len(cell_states) == 1 and not was_list:
                        cell_states = cell_states[0]
                new_states.append(cell_states)
            return inputs, new_states

        return step

    @contextlib.contextmanager
    def weights_read_once(self) -> Iterator[None]:
        """Every built-in cell's weights read once for a whole loop (see ``_RecurrentCell``)."""
        with contextlib.ExitStack() as stack:
            for cell in self.cells:
                if isinstance(cell, _RecurrentCell):
                    stack.enter_context(cell.weights_read_once())
            yield

    # -------------------------------------------------------------- config

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["cells"] = [registry.to_config("layers", cell) for cell in self.cells]
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "StackedRNNCells":
        config = dict(config)
        config["cells"] = [registry.resolve("layers", c) for c in config.get("cells", [])]
        return super().from_config(config)
