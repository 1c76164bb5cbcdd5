"""int8 and int4 weights for ``EinsumDense``, stored and computed as Keras 3 stores and computes them.

    layer = tfkit.layers.EinsumDense("btd,dnh->btnh", output_shape=(None, 2, 4)); layer.build((None, 5, 8))
    layer.quantize("int8")  # kernel: int8 (8, 2, 4); kernel_scale (1, 1, 2, 4), shaped to divide the outputs
    layer.quantize("int4")  # kernel: (8, 4), the (contracted, other) matrix packed in pairs; scale (8,) or groups

The kernel's contracted letters (those the output lacks) are reduced for its scale: one scale per
output channel, laid out along the output's letters (1 where the kernel has none) so that it divides
the einsum's result directly. int8 also quantizes the inputs by default (W8A8, Keras's
``Int8QuantizationConfig``), along their contracted letters; the integer product is exact (int32).
int4 packs the kernel as Keras does, flattened to (contracted, other) rows and columns, and computes
with the de-quantized kernel. An equation with ``...`` quantizes too: its ellipsis is spelled out for
the built input rank (Keras 3.15 raises a ``TypeError`` on such a layer).
"""

from __future__ import annotations

import math
import string
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import quantizers
from tfkit.layers import quantized_int4 as int4
from tfkit.layers.quantized import Int8Quantization


def einsum_letters(equation: str, input_rank: int) -> tuple[str, str, str]:
    """The input, kernel and output letters of an ``EinsumDense`` equation, ``...`` spelled out.

    ``einsum_letters("...b,bc->...c", 3)`` is ``("Ab", "bc", "Ac")`` with a letter the equation does not use.
    """
    inputs, _, rest = equation.replace(" ", "").partition(",")
    kernel, _, outputs = rest.partition("->")
    if "..." not in inputs:
        return inputs, kernel, outputs
    free = [c for c in string.ascii_letters if c not in equation]
    elided = "".join(free[: input_rank - len(inputs.replace("...", ""))])
    return inputs.replace("...", elided), kernel, outputs.replace("...", elided)


def _aligned(sizes: dict[str, int], letters: str) -> list[int]:
    """A shape along ``letters``: each letter's size where ``sizes`` has it, else 1 (broadcast)."""
    return [sizes.get(letter, 1) for letter in letters]


def _move(tensor: tf.Tensor, have: str, want: str) -> tf.Tensor:
    """``tensor`` laid out along the letters ``have`` (a subset of ``want``), moved to ``want``'s order with a
    size-1 axis for each letter of ``want`` it lacks."""
    present = [letter for letter in want if letter in have]
    tensor = tf.transpose(tensor, [have.index(letter) for letter in present])
    for axis, letter in enumerate(want):
        if letter not in have:
            tensor = tf.expand_dims(tensor, axis)
    return tensor


class EinsumQuantization(Int8Quantization):
    """``Int8Quantization`` for a kernel of any rank that an einsum equation multiplies (``EinsumDense``)."""

    def _letters(self) -> tuple[str, str, str]:
        return einsum_letters(self.equation, self._input_rank)

    def _reduced_kernel_axes(self) -> tuple[int, ...]:
        _, kernel, outputs = self._letters()
        return tuple(axis for axis, letter in enumerate(kernel) if letter not in outputs)

    def _int8_scale_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        _, kernel, outputs = self._letters()
        kept = {letter: size for letter, size in zip(kernel, shape) if letter in outputs}
        return tuple(_aligned(kept, outputs))

    def _check_quantizable(self, mode: str) -> None:
        inputs, kernel, outputs = self._letters()
        lost = [letter for letter in inputs if letter not in kernel and letter not in outputs]
        if lost:
            raise NotImplementedError(
                f"{self._who()}: equation {self.equation!r} sums the input over {''.join(lost)!r} without the "
                "kernel; tfkit quantizes EinsumDense equations whose input letters are in the kernel or the output"
            )

    def _int4_matrix_shape(self, shape: tuple[int, ...]) -> tuple[int, int]:
        """As Keras: the kernel reshaped, in its own axis order, to (contracted sizes, other sizes); when the
        contracted letters do not come first the matrix's columns are not output channels, and de-quantizing
        reshapes back, so the numbers stay Keras's."""
        reduced = self._reduced_kernel_axes()
        rows = math.prod(size for axis, size in enumerate(shape) if axis in reduced)
        return rows, math.prod(shape) // rows

    def _lora_shape(self) -> tuple[int, ...]:
        """An int4 kernel is stored packed as a matrix: LoRA's factors take the kernel's own shape (Keras's)."""
        return self._kernel_shape if self.quantization_mode == "int4" else tuple(self.kernel.shape)

    def _build_quantized(self, shape: tuple[int, ...]) -> None:
        self._kernel_shape = tuple(shape)
        super()._build_quantized(shape)

    def _quantized_values(self, float_weight: Any, config: Any) -> dict[str, Any]:
        shape = tuple(float_weight.shape)
        if config.mode == "int4":
            rows, columns = self._int4_matrix_shape(shape)
            flat = np.reshape(np.asarray(float_weight.numpy()), (rows, columns))
            return super()._quantized_values(tf.constant(flat), config)
        reduced = self._reduced_kernel_axes()
        quantizer = quantizers.QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=reduced)
        )
        values, scale = quantizer(float_weight, to_numpy=True)
        _, kernel, outputs = self._letters()
        kept = "".join(letter for letter in kernel if letter in outputs)
        scale = tf.squeeze(tf.convert_to_tensor(scale), axis=reduced) if reduced else tf.convert_to_tensor(scale)
        return {"": values, "_scale": _move(scale, kept, outputs)}

    def _float_kernel(self, weights: list[tf.Tensor], compute: tf.DType) -> tf.Tensor:
        """The kernel the quantized ``weights`` (values, scale, and int4 groups' zero and g_idx) stand for,
        in the kernel's own layout and ``compute``."""
        if self.quantization_mode == "int4":
            zero, g_idx = (weights[2], weights[3]) if len(weights) == 4 else (None, None)
            matrix = int4.dequantized(weights[0], weights[1], zero, g_idx, self._int4_columns, 0, compute)
            return tf.reshape(matrix, self._kernel_shape)
        _, kernel, outputs = self._letters()
        kept = "".join(letter for letter in outputs if letter in kernel)
        scale = tf.cast(weights[1], compute)
        if kept != outputs:
            scale = tf.squeeze(scale, [axis for axis, letter in enumerate(outputs) if letter not in kernel])
        return tf.cast(weights[0], compute) / _move(scale, kept, kernel)

    def _dequantized_target(self) -> tf.Tensor:
        weights = [self.kernel, self.kernel_scale]
        if getattr(self, "kernel_zero", None) is not None:
            weights += [self.kernel_zero, self.g_idx]
        return self._float_kernel([tf.convert_to_tensor(weight) for weight in weights], tf.float32)

    def _quantized_matmul(self, inputs: tf.Tensor) -> tf.Tensor:
        """``einsum(equation, inputs, kernel)`` with the quantized kernel; the inputs' gradient kept."""
        compute = tf.as_dtype(self.compute_dtype)
        letters, kernel_letters, outputs = self._letters()
        equation = f"{letters},{kernel_letters}->{outputs}"
        backward = f"{outputs},{kernel_letters}->{letters}"
        quantizer = self.inputs_quantizer
        reduced = tuple(axis for axis, letter in enumerate(letters) if letter not in outputs)
        kept = "".join(letter for letter in letters if letter in outputs)
        grouped = getattr(self, "kernel_zero", None) is not None

        def inputs_scale(scale: tf.Tensor) -> tf.Tensor:
            return _move(tf.squeeze(scale, reduced) if reduced else scale, kept, outputs)

        @tf.custom_gradient
        def product(x: tf.Tensor, *weights: tf.Tensor) -> Any:
            float_kernel = self._float_kernel(list(weights), compute)
            if self.quantization_mode == "int8":
                kernel, scale = weights[0], tf.cast(weights[1], compute)
                if quantizer is None:
                    y = tf.einsum(equation, x, tf.cast(kernel, compute)) / scale
                else:
                    x_q, x_scale = quantizer(x, axis=reduced)
                    whole = tf.einsum(equation, tf.cast(x_q, tf.int32), tf.cast(kernel, tf.int32))  # exact
                    y = tf.cast(whole, compute) / (tf.cast(inputs_scale(x_scale), compute) * scale)
            elif quantizer is not None and not grouped:  # int4 per channel, inputs quantized as Keras does
                x_q, x_scale = quantizer(x, axis=reduced)
                y = tf.einsum(equation, tf.cast(x_q, compute), float_kernel) / tf.cast(inputs_scale(x_scale), compute)
            else:
                y = tf.einsum(equation, x, float_kernel)

            def grad(upstream: tf.Tensor) -> tuple:
                return (tf.einsum(backward, upstream, float_kernel), *[None] * len(weights))

            return y, grad

        weights = [self.kernel, self.kernel_scale]
        if grouped:
            weights += [self.kernel_zero, self.g_idx]
        weights = [tf.convert_to_tensor(weight) for weight in weights]
        outputs_tensor = product(tf.cast(inputs, compute), *weights)
        if self.lora_enabled:
            delta = tf.einsum(equation, tf.cast(inputs, compute), tf.cast(self.lora_kernel_a, compute))
            delta = tf.tensordot(delta, tf.cast(self.lora_kernel_b, compute), [[delta.shape.rank - 1], [0]])
            outputs_tensor += tf.cast(self.lora_alpha / self.lora_rank, compute) * delta
        return outputs_tensor
