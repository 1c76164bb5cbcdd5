"""``einsum_one_row``: ``tf.einsum`` of an input with one row and a kernel, compiled by XLA at its best speed.

    outputs = einsum_one_row("btd,dnh->btnh", inputs, kernel)   # == tf.einsum(...), faster under XLA on a CPU

A decoding step projects one token's hidden state: a matrix-vector product.
XLA compiles the einsum into a reshape of the kernel and a dot; on a CPU,
when the dot's output is a single row, XLA fuses that reshape (and the ops
that made the vector, a layer norm) into the dot and emits it as a plain
loop, about 3x slower than the matrix-vector routine it otherwise calls
(36 projections of 768 x 12 x 64 kernels, as GPT-2-124M's query, key and
value: 17.2 ms against 5.2 ms a step, measured on a 2-core CPU). Two rows
are not fused that way: the input is doubled along one of its free axes,
multiplied, and the first row is kept. Outside XLA compilation, for more
than one row, or for an equation with ``...``, it is ``tf.einsum``.
"""

from __future__ import annotations

import re

import tensorflow as tf

from tfkit.base.xla_context import in_xla_compilation

_EXPLICIT = re.compile(r"^([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$")


def einsum_one_row(equation: str, inputs: tf.Tensor, kernel: tf.Tensor) -> tf.Tensor:
    """``tf.einsum(equation, inputs, kernel)``, computed on two rows under XLA when the input has one.

    Args:
        equation: An einsum equation of two explicit terms (`"btd,dnh->btnh"`).
        inputs: The input tensor.
        kernel: The kernel tensor.

    Returns:
        The einsum's result.

    Example:
        >>> import tensorflow as tf
        >>> from tfkit.layers.einsum_one_row import einsum_one_row
        >>> x, k = tf.ones((1, 1, 4)), tf.ones((4, 2, 3))
        >>> compiled = tf.function(lambda x, k: einsum_one_row("btd,dnh->btnh", x, k), jit_compile=True)
        >>> compiled(x, k).shape, float(compiled(x, k)[0, 0, 1, 2])
        (TensorShape([1, 1, 2, 3]), 4.0)
    """
    doubled_axes = _doubled_axes(equation, inputs) if in_xla_compilation() else None
    if doubled_axes is None:
        return tf.einsum(equation, inputs, kernel)
    input_axis, output_axis = doubled_axes
    outputs = tf.einsum(equation, tf.concat([inputs, inputs], axis=input_axis), kernel)
    return tf.gather(outputs, [0], axis=output_axis)


def _doubled_axes(equation: str, inputs: tf.Tensor) -> tuple[int, int] | None:
    """The input axis to double and the output axis it becomes, when the input has one row; else None."""
    match = _EXPLICIT.match(equation.replace(" ", ""))
    if match is None or not inputs.shape.is_fully_defined():
        return None
    input_spec, kernel_spec, output_spec = match.groups()
    free = [(axis, letter) for axis, letter in enumerate(input_spec) if letter not in kernel_spec]
    if any(inputs.shape[axis] != 1 for axis, _ in free):
        return None  # more than one row: XLA calls its matrix routines
    for axis, letter in free:
        if letter in output_spec:
            return axis, output_spec.index(letter)
    return None
