"""``EinsumDense``: a dense layer whose product is any ``tf.einsum`` equation.

    layer = tfkit.layers.EinsumDense("abc,cde->abde", output_shape=(None, 4, 8), bias_axes="de")
    y = layer(tf.ones((2, 5, 16)))   # (2, 5, 4, 8); kernel (16, 4, 8), bias (4, 8)
    einsum_shapes("ab,bc->ac", "c", (None, 16), (4,))  # ([16, 4], [4], (None, 4), [0])

Exported from ``tfkit.layers.core`` (and so ``tfkit.layers``).
"""

from __future__ import annotations

import re
from typing import Any

import tensorflow as tf

from tfkit import activations, constraints, initializers, regularizers
from tfkit.base import registry
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers import assigned_activation
from tfkit.layers.einsum_one_row import einsum_one_row
from tfkit.layers.einsum_quantized import EinsumQuantization
from tfkit.layers.lora import LoRA

__all__ = ["EinsumDense", "einsum_shapes"]


_EINSUM_FORMS = (
    (re.compile(r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)"), None),
    (re.compile(r"\.\.\.([a-zA-Z]+),([a-zA-Z]+)->\.\.\.([a-zA-Z]+)"), "left"),
    (re.compile(r"([a-zA-Z]{2,})\.\.\.,([a-zA-Z]+)->([a-zA-Z]+)\.\.\."), "right"),
)


def einsum_shapes(
    equation: str, bias_axes: str | None, input_shape: tuple, partial_output_shape: tuple, who: str = "EinsumDense"
) -> tuple[list, list | None, tuple, list[int]]:
    """``(kernel_shape, bias_shape, full_output_shape, kernel_input_axes)`` of an ``EinsumDense`` equation.

    ``kernel_input_axes`` are the kernel axes contracted with the input (the
    fan-in axes); the other kernel axes are output axes.

    ``partial_output_shape`` leaves out the batch axis and the axes ``...``
    stands for; they are copied from ``input_shape``.
    """
    compact = equation.replace(" ", "")
    for pattern, elided_side in _EINSUM_FORMS:
        match = pattern.fullmatch(compact)
        if match:
            break
    else:
        raise ValueError(
            f"{who}: invalid equation {equation!r}; expected one of the forms 'ab,bc->ac', "
            f"'...b,bc->...c' or 'ab...,bc->ac...'"
        )
    input_spec, weight_spec, output_spec = match.groups()
    input_shape = list(input_shape)
    elided = len(input_shape) - len(input_spec)
    if elided < 0 or (elided_side is None and elided != 0):
        raise ValueError(
            f"{who}: equation {equation!r} expects inputs of rank "
            f"{len(input_spec) if elided_side is None else f'>= {len(input_spec)}'}, "
            f"got input shape {tuple(input_shape)}"
        )
    output_shape = [input_shape[0], *partial_output_shape]
    if elided_side == "left":
        output_shape[1:1] = input_shape[1:elided]
        input_index = {dim: i + elided for i, dim in enumerate(input_spec)}
        output_index = {dim: i + elided for i, dim in enumerate(output_spec)}
    else:
        if elided_side == "right":
            output_shape.extend(input_shape[len(input_shape) - elided :])
        input_index = {dim: i for i, dim in enumerate(input_spec)}
        output_index = {dim: i for i, dim in enumerate(output_spec)}
    expected_rank = len(output_spec) + (elided if elided_side else 0)
    if len(output_shape) != expected_rank:
        raise ValueError(
            f"{who}: output_shape {tuple(partial_output_shape)} does not fit equation {equation!r}: "
            f"it should give the {len(output_spec) - 1} output dimension(s) after the batch axis"
            f"{' (not counting the ... axes)' if elided_side else ''}"
        )
    for dim in input_spec:
        if dim in output_index:
            got_in, got_out = input_shape[input_index[dim]], output_shape[output_index[dim]]
            if got_out is None:
                output_shape[output_index[dim]] = got_in
            elif got_in is not None and got_in != got_out:
                raise ValueError(
                    f"{who}: input and output shape disagree on shared dimension '{dim}' of "
                    f"{equation!r}: input has {got_in}, output_shape has {got_out}"
                )
    for dim in output_spec:
        if dim not in input_spec and dim not in weight_spec:
            raise ValueError(
                f"{who}: output dimension '{dim}' of {equation!r} appears in neither the input "
                f"spec '{input_spec}' nor the weight spec '{weight_spec}'"
            )
    kernel_shape, kernel_input_axes = [], []
    for axis, dim in enumerate(weight_spec):
        if dim in output_index:
            kernel_shape.append(output_shape[output_index[dim]])
        elif dim in input_index:
            kernel_shape.append(input_shape[input_index[dim]])
            kernel_input_axes.append(axis)
        else:
            raise ValueError(
                f"{who}: weight dimension '{dim}' of {equation!r} appears in neither the input "
                f"spec '{input_spec}' nor the output spec '{output_spec}'"
            )
    if any(d is None for d in kernel_shape):
        raise ValueError(
            f"{who}: the kernel shape of {equation!r} is not fully known ({tuple(kernel_shape)}); "
            f"give every output dimension in output_shape and a known input shape, got input shape "
            f"{tuple(input_shape)}"
        )
    bias_shape = None
    if bias_axes:
        for char in bias_axes:
            if char not in output_spec:
                raise ValueError(
                    f"{who}: bias axis '{char}' is not part of the output spec '{output_spec}' of {equation!r}"
                )
        first = min(output_spec.find(char) for char in bias_axes)
        offset = elided if elided_side == "left" else 0
        bias_shape = [
            output_shape[i + offset] if char in bias_axes else 1 for i, char in enumerate(output_spec) if i >= first
        ]
        if elided_side == "right":
            bias_shape.extend([1] * elided)
    return kernel_shape, bias_shape, tuple(output_shape), kernel_input_axes


def _with_einsum_fans(initializer: Any, kernel_shape: list, input_axes: list[int]) -> Any:
    """A ``VarianceScaling`` initializer sees the kernel as ``(fan_in, fan_out)``, as in Keras.

    Its entries are independent, so drawing a ``(fan_in, fan_out)`` matrix and
    reshaping it gives the kernel the variance Keras gives it; other
    initializers are used as they are.
    """
    if not isinstance(initializer, initializers.VarianceScaling):
        return initializer
    fan_in = 1
    for axis in input_axes:
        fan_in *= kernel_shape[axis]
    fan_out = 1
    for axis, size in enumerate(kernel_shape):
        if axis not in input_axes:
            fan_out *= size

    def init(shape: Any, dtype: Any = None) -> tf.Tensor:
        return tf.reshape(initializer((fan_in, fan_out), dtype=dtype), shape)

    return init


def _contracted_axes(equation: str, rank: int) -> set[int]:
    """The input axes whose letter the kernel has (their sizes are the kernel's): ``{2}`` for ``"abc,cd->abd"``."""
    inputs, _, rest = equation.replace(" ", "").partition(",")
    weights = rest.partition("->")[0]
    letters = inputs.replace("...", "")
    offset = rank - len(letters) if inputs.startswith("...") else 0
    return {offset + i for i, letter in enumerate(letters) if letter in weights}


@registry.builtin("layers")
class EinsumDense(EinsumQuantization, LoRA, Layer):
    """A layer that uses `einsum` as the backing computation.

    This layer can perform einsum calculations of arbitrary dimensionality:
    it computes `activation(einsum(equation, inputs, kernel) + bias)`, where
    the kernel's shape is read from the equation, the input shape and
    `output_shape`. The equation has one of the forms `"ab,bc->ac"`,
    `"...b,bc->...c"` or `"ab...,bc->ac..."`, where the first term names the
    input axes, the second the kernel axes and the third the output axes.

    A `VarianceScaling` initializer (such as the default `"glorot_uniform"`)
    sees the kernel as `(fan_in, fan_out)`, the contracted axes against the
    others, as in Keras. `quantize("int8")` and `quantize("int4")` replace
    the kernel by integer values with Keras's names, shapes and numbers (one
    scale per output channel, laid out along the output's letters; int4
    packed as the (contracted, other) matrix, per channel or in groups);
    GPTQ, AWQ and float8 are not implemented in tfkit.

    Args:
        equation: An equation describing the einsum to perform, e.g.
            `"ab,bc->ac"`.
        output_shape: The expected shape of the output tensor, excluding the
            batch dimension and any dimensions represented by ellipses: an
            integer (for a single output axis) or a tuple. `None` entries are
            taken from the matching input axis.
        activation: Activation function to use. `None` (the default) applies
            none.
        bias_axes: A string of the output axes (letters of the output term)
            along which a bias is added, e.g. `"de"`. `None` (the default)
            adds no bias.
        kernel_initializer: Initializer for the `kernel` weights. Defaults to
            `"glorot_uniform"`.
        bias_initializer: Initializer for the bias. Defaults to `"zeros"`.
        kernel_regularizer: Regularizer applied to the `kernel`. Defaults to
            `None`.
        bias_regularizer: Regularizer applied to the bias. Defaults to `None`.
        kernel_constraint: Constraint applied to the `kernel`. Defaults to
            `None`.
        bias_constraint: Constraint applied to the bias. Defaults to `None`.
        lora_rank: Optional positive integer: enable LoRA with this rank when
            the layer is built, freezing the kernel and adding the trainable
            factors `lora_kernel_a` and `lora_kernel_b`. Defaults to `None`.
        lora_alpha: Optional scale of the LoRA update (the factor product is
            multiplied by `lora_alpha / lora_rank`). `None` (the default) uses
            `lora_rank`.
        gptq_unpacked_column_size: Keras's GPTQ setting; must be `None` in
            tfkit (any other value raises `NotImplementedError`).
        quantization_config: A `tfkit.quantizers.QuantizationConfig` the
            layer was quantized with (read back from a config), or `None`
            (the default).
        **kwargs: Base layer keyword arguments, such as `name`, `dtype` and
            `activity_regularizer`.

    Call arguments:
        inputs: A tensor whose shape matches the input term of `equation`.

    Input shape:
        A tensor whose rank matches the input term of `equation` (or is
        larger, for equations with `...`).

    Output shape:
        `(batch_size, *output_shape)`, with the ellipsis axes copied from the
        input where the equation has `...`.

    Raises:
        ValueError: If `equation`, `bias_axes` or `output_shape` is malformed,
            or (when building) the equation does not fit the input shape.
        NotImplementedError: If `gptq_unpacked_column_size` is given.

    Example:
        >>> layer = tfkit.layers.EinsumDense("abc,cde->abde", output_shape=(None, 4, 8), bias_axes="de")
        >>> layer(np.ones((2, 5, 16))).shape
        TensorShape([2, 5, 4, 8])
        >>> layer.kernel.shape, layer.bias.shape
        (TensorShape([16, 4, 8]), TensorShape([4, 8]))
        >>> dense = tfkit.layers.EinsumDense("...b,bc->...c", output_shape=3)
        >>> dense(np.ones((2, 5, 4))).shape
        TensorShape([2, 5, 3])
        >>> layer.quantize("int8")
        >>> layer.kernel.dtype.name, layer.kernel_scale.shape
        ('int8', TensorShape([1, 1, 4, 8]))
    """

    def __init__(
        self,
        equation: str,
        output_shape: int | tuple,
        activation: Any = None,
        bias_axes: str | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        lora_rank: int | None = None,
        lora_alpha: float | None = None,
        gptq_unpacked_column_size: int | None = None,
        quantization_config: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        who = f"EinsumDense layer '{self.name}'"
        self._init_lora(lora_rank, lora_alpha)
        if gptq_unpacked_column_size is not None:
            raise NotImplementedError(
                f"EinsumDense layer '{self.name}': GPTQ (gptq_unpacked_column_size) is not implemented in "
                "tfkit; EinsumDense quantizes to int8 and int4"
            )
        self._init_quantization(quantization_config)
        if not isinstance(equation, str):
            raise ValueError(f"{who} expected equation to be a string such as 'ab,bc->ac', got {equation!r}")
        if bias_axes is not None and not isinstance(bias_axes, str):
            raise ValueError(f"{who} expected bias_axes to be a string of output axes or None, got {bias_axes!r}")
        if isinstance(output_shape, int) and not isinstance(output_shape, bool):
            output_shape = (output_shape,)
        if not isinstance(output_shape, (tuple, list)) or not all(
            d is None or isinstance(d, int) and not isinstance(d, bool) for d in output_shape
        ):
            raise ValueError(f"{who} expected output_shape to be an int or a tuple of ints/None, got {output_shape!r}")
        self.equation = equation
        self.partial_output_shape = tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def _shapes(self, input_shape: tuple) -> tuple[list, list | None, tuple, list[int]]:
        return einsum_shapes(
            self.equation,
            self.bias_axes,
            tuple(input_shape),
            self.partial_output_shape,
            who=f"EinsumDense layer '{self.name}'",
        )

    def build(self, input_shape: tuple) -> None:
        kernel_shape, bias_shape, _, input_axes = self._shapes(input_shape)
        self._input_rank = len(input_shape)
        if self.quantization_mode:
            self._build_quantized(tuple(kernel_shape))
        else:
            self.kernel = self.add_weight(
                shape=kernel_shape,
                initializer=_with_einsum_fans(self.kernel_initializer, kernel_shape, input_axes),
                regularizer=self.kernel_regularizer,
                constraint=self.kernel_constraint,
                name="kernel",
            )
        if bias_shape is not None:
            self.bias = self.add_weight(
                shape=bias_shape,
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        else:
            self.bias = None
        contracted = _contracted_axes(self.equation, len(input_shape))  # other axes may vary, as in Keras
        self.input_spec = InputSpec(
            ndim=len(input_shape), axes={i: d for i, d in enumerate(input_shape) if i in contracted and d is not None}
        )
        self.built = True  # also when build() is called directly, as in Keras
        self._lora_after_build()

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        if self.quantization_mode:
            outputs = self._quantized_matmul(inputs)
            if self.bias is not None:
                outputs = outputs + tf.cast(self.bias, outputs.dtype)
            return assigned_activation.apply(self, outputs)
        kernel = self.merged_kernel() if self.lora_enabled else self.kernel
        if inputs.dtype != kernel.dtype:
            inputs = tf.cast(inputs, kernel.dtype)
        outputs = einsum_one_row(self.equation, inputs, kernel)  # faster under XLA for one row
        if self.bias is not None:
            outputs = outputs + self.bias
        return assigned_activation.apply(self, outputs)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        return self._shapes(input_shape)[2]

    def get_config(self) -> dict[str, Any]:
        config = Layer.get_config(self)
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        config.update(
            equation=self.equation,
            output_shape=list(self.partial_output_shape),
            activation=activations.serialize(self.activation),
            bias_axes=self.bias_axes,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer),
            kernel_constraint=constraints.serialize(self.kernel_constraint),
            bias_constraint=constraints.serialize(self.bias_constraint),
            **self._quantized_config(),
            **self._lora_config(),
        )
        return config
