"""``project_heads``: the query, key and value projections of one input as one product under XLA, where it can.

    query, key, value = project_heads([query_dense, key_dense, value_dense], hidden_states)

A decoding step projects one token three times, each a one-row product.
Compiled by XLA on a CPU, one product of the three kernels side by side runs
at more than twice the bytes per second of three separate ones (the figures
are in ``docs/benchmarks.md``, "Joined projections"). The kernels are joined
inside the compiled program; they are variables read before ``generate``'s
loop, so XLA joins them once a call, not once a step (``stream_generate``,
which calls its loop in parts, joins them in its first part only:
``joined_kernels``). The joined copy lives
while the call runs: the projections' weights once more.

Only where it pays and changes nothing else: inside XLA compilation, for built
``EinsumDense`` layers of kernels ``(dim, heads, head_dim)`` (axes in any one
order, as Gemma's ``(heads, dim, head_dim)``) that differ at most in ``heads``,
with an equation ``btm,mnh->btnh`` (any letters), biases of
``(heads, head_dim)`` on all or none, no activation, no LoRA, and variables of
the compute dtype. Otherwise it returns ``None`` and the caller calls each layer.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import tensorflow as tf

from tfkit import activations
from tfkit.base.xla_context import in_xla_compilation
from tfkit.hub.layers.joined_kernels import joined_kernel, key_of

# (batch, length, model dim) x a kernel of (model dim, heads, head dim) in any order -> (batch, length, heads, head dim)
_HEADS_EQUATION = re.compile(r"^(\w)(\w)(\w),(\w)(\w)(\w)->\1\2(\w)(\w)$")


def _kernel_layout(dense: Any, inputs: tf.Tensor) -> tuple[int, int, int] | None:
    """The kernel axes of (model dim, heads, head dim) of a plain heads projection ``project_heads_together``
    may compute with others, or None for any other layer."""
    match = _HEADS_EQUATION.match(getattr(dense, "equation", "").replace(" ", ""))
    if match is None:
        return None
    model, heads, head = match.group(3), match.group(7), match.group(8)
    kernel = "".join(match.group(4, 5, 6))
    if sorted(kernel) != sorted(model + heads + head) or len({model, heads, head}) != 3:
        return None
    plain = (
        getattr(dense, "built", False)
        and not getattr(dense, "lora_enabled", False)
        and getattr(dense, "activation", None) is activations.linear
        and getattr(dense, "bias_axes", "") in (None, heads + head)
        and dense.kernel.dtype == inputs.dtype
    )
    return (kernel.index(model), kernel.index(heads), kernel.index(head)) if plain else None


def project_heads_together(denses: Sequence[Any], inputs: tf.Tensor) -> list[tf.Tensor] | None:
    """Each of ``denses`` applied to ``inputs``, computed as one einsum of their kernels joined on the heads axis.

    Args:
        denses: `EinsumDense` layers projecting `(batch, length, dim)` to
            `(batch, length, heads, head_dim)`, the same `dim` and
            `head_dim` (such as an attention layer's query, key and value).
        inputs: Their common input, `(batch, length, dim)`.

    Returns:
        Each layer's output, in order, or `None` when they cannot be joined
        (outside XLA compilation, or layers of another kind): the caller
        then calls the layers one by one.

    Example:
        >>> from tfkit.layers import EinsumDense
        >>> from tfkit.hub.layers.fused_projections import project_heads_together
        >>> denses = [EinsumDense("btm,mnh->btnh", (None, n, 4), bias_axes="nh") for n in (2, 1)]
        >>> x = tf.random.normal((1, 3, 8))
        >>> for dense in denses:
        ...     dense.build(x.shape)
        >>> project_heads_together(denses, x) is None  # eager: each layer is called as usual
        True
        >>> joined = tf.function(lambda x: project_heads_together(denses, x), jit_compile=True)(x)
        >>> [tuple(part.shape) for part in joined]
        [(1, 3, 2, 4), (1, 3, 1, 4)]
        >>> bool(np.allclose(joined[0], denses[0](x), atol=1e-5))
        True
    """
    if not in_xla_compilation() or len(denses) < 2 or inputs.shape.rank != 3:
        return None
    layouts = {_kernel_layout(dense, inputs) for dense in denses}
    if len(layouts) != 1 or None in layouts or len({dense.bias is None for dense in denses}) != 1:
        return None
    (model_axis, heads_axis, head_axis) = layouts.pop()
    if len({(int(d.kernel.shape[model_axis]), int(d.kernel.shape[head_axis])) for d in denses}) != 1:
        return None
    heads = [int(dense.kernel.shape[heads_axis]) for dense in denses]
    if model_axis == 0:  # (dim, heads, head_dim) kernels side by side as one (dim, all heads x head_dim) matrix
        kernel = joined_kernel(
            key_of(denses), lambda: tf.concat([tf.reshape(d.kernel, [d.kernel.shape[0], -1]) for d in denses], axis=1)
        )
        outputs = tf.matmul(tf.reshape(inputs, [-1, inputs.shape[-1]]), kernel)
    else:
        kernel = joined_kernel(
            key_of(denses), lambda: tf.concat([tf.convert_to_tensor(d.kernel) for d in denses], axis=heads_axis)
        )
        outputs = tf.einsum(denses[0].equation, inputs, kernel)
    head_dim = int(denses[0].kernel.shape[head_axis])
    outputs = tf.reshape(outputs, tf.concat([tf.shape(inputs)[:2], [sum(heads), head_dim]], axis=0))
    if denses[0].bias is not None:
        outputs = outputs + tf.concat([tf.convert_to_tensor(dense.bias) for dense in denses], axis=0)
    return tf.split(outputs, heads, axis=2)


def project_heads(denses: Sequence[Any], inputs: tf.Tensor) -> list[tf.Tensor]:
    """Each of ``denses`` applied to ``inputs``: joined as `project_heads_together` where it can, else one by one.

    Args:
        denses: `EinsumDense` layers taking `inputs` (an attention layer's
            query, key and value projections).
        inputs: Their common input, `(batch, length, dim)`.

    Returns:
        Each layer's output, in order.

    Example:
        >>> from tfkit.layers import EinsumDense
        >>> from tfkit.hub.layers.fused_projections import project_heads
        >>> denses = [EinsumDense("btm,mnh->btnh", (None, n, 4)) for n in (2, 1)]
        >>> [tuple(part.shape) for part in project_heads(denses, tf.ones((1, 3, 8)))]
        [(1, 3, 2, 4), (1, 3, 1, 4)]
    """
    joined = project_heads_together(denses, inputs)
    return joined if joined is not None else [dense(inputs) for dense in denses]
