"""int8 and int4 weight quantization for ``Dense`` and ``Embedding`` (and, through
``einsum_quantized``, ``EinsumDense``), as Keras 3's ``layer.quantize``.

    layer = tfkit.layers.Dense(64); layer.build((None, 32))
    layer.quantize("int8")          # kernel: int8 (32, 64) + kernel_scale (64,); policy "int8_from_float32"
    y = layer(x)                    # x quantized per row, int8 x int8 -> int32 matmul, then de-scaled

int8: the float weight is replaced by an int8 weight of the same path plus a float
``<weight>_scale``. int4 (``quantized_int4``): two values per byte, per channel or (Keras's default,
``Int4QuantizationConfig(block_size=128)``) per group with ``<weight>_zero`` and ``g_idx``. Names,
shapes and numbers are Keras's, so Keras's quantized files import by path. A layer built under a
quantized policy (a quantized model read back from its config) builds these weights directly.
The quantized weight is not trainable; the bias, LoRA factors and inputs keep their gradients
(the kernel is read de-quantized for the inputs' gradient, as in Keras).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import quantizers
from tfkit.base import registry
from tfkit.layers import quantized_int4 as int4

SUPPORTED_MODES = ("int8", "int4")


class Int8Quantization:
    """Mixed into a layer with a float ``kernel`` (``_quantized_target``) it can replace by int8 or int4 values."""

    _quantized_target = "kernel"
    _scale_axis = 0  # the axis the absolute maximum runs over (Dense: the input axis)
    _default_activation_quantizer = True

    def _init_quantization(self, quantization_config: Any) -> None:
        if isinstance(quantization_config, dict):
            quantization_config = quantizers.deserialize(quantization_config)
        if quantization_config is not None and not isinstance(quantization_config, quantizers.QuantizationConfig):
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}': quantization_config must be a "
                f"tfkit.quantizers.QuantizationConfig or None, got {quantization_config!r}"
            )
        self.quantization_config = quantization_config

    def _quantized_config(self) -> dict[str, Any]:
        return {"quantization_config": quantizers.serialize(self.quantization_config)}

    def _who(self) -> str:
        return f"{type(self).__name__} layer '{self.path}'"

    def _int4_block_size(self) -> int | None:
        """The group size of an int4 layer: from its config, else its policy (``"int4/64_from_..."``)."""
        if isinstance(self.quantization_config, quantizers.Int4QuantizationConfig):
            block = self.quantization_config.block_size
        else:
            block = getattr(self._own_policy(), "block_size", None)
        return None if block is None or block == -1 else block

    def _add_int(self, name: str, shape: tuple, dtype: str, initializer: Any = "zeros") -> tf.Variable:
        variable = self.add_weight(
            shape=shape, initializer=initializer, dtype=dtype, trainable=False, name=name, autocast=False
        )
        setattr(self, name, variable)
        return variable

    def _build_quantized(self, shape: tuple[int, ...]) -> None:
        """The quantized weights (in place of ``add_weight(<target>)``), for a quantized policy."""
        mode = self.quantization_mode
        if mode not in SUPPORTED_MODES:
            raise NotImplementedError(
                f"{self._who()}: tfkit quantizes weights to {list(SUPPORTED_MODES)}; the dtype "
                f"policy {self._own_policy().name!r} asks for {mode!r}"
            )
        target, config = self._quantized_target, self.quantization_config
        default = quantizers.AbsMaxQuantizer() if self._default_activation_quantizer and mode == "int8" else None
        self.inputs_quantizer = quantizers.QuantizationConfig.activation_quantizer_or_default(config, default)
        if mode == "int8":
            self._add_int(target, shape, "int8")
            scale_shape = self._int8_scale_shape(shape)
            scale = self.add_weight(shape=scale_shape, initializer="ones", trainable=False, name=f"{target}_scale")
            setattr(self, f"{target}_scale", scale)
            return
        block = self._int4_block_size()
        matrix = self._int4_matrix_shape(shape)
        shapes = int4.int4_shapes(matrix, self._scale_axis, block)
        self._int4_columns = matrix[1]
        self._add_int(target, shapes["packed"], "int8")
        scale = self.add_weight(shape=shapes["scale"], initializer="ones", trainable=False, name=f"{target}_scale")
        setattr(self, f"{target}_scale", scale)
        if int4.grouped(block):
            self._add_int(f"{target}_zero", shapes["zero"], "int8")
            length = shapes["g_idx"][0]
            self._add_int(
                "g_idx",
                shapes["g_idx"],
                "float32",
                initializer=lambda *_, **__: tf.constant(int4.group_index(length, block)),
            )

    def quantize(self, mode: str | None = None, type_check: bool = True, config: Any = None) -> None:
        """Replace the float weight by int8 values and a per-channel scale (Keras's ``quantize``)."""
        config = quantizers.validate_and_resolve_config(mode, config)
        mode = config.mode
        if type_check and not registry.is_builtin("layers", type(self)):
            raise NotImplementedError(
                f"Layer {type(self).__name__} does not have a `quantize()` method "
                "implemented (a subclass of a quantizable layer must implement its own)"
            )
        if not self.built:
            raise ValueError(
                f"Cannot quantize a layer that isn't yet built. Layer '{self.name}' "
                f"(of type '{type(self).__name__}') is not built yet."
            )
        if self.quantization_mode is not None:
            raise ValueError(
                f"Layer '{self.name}' is already quantized with dtype_policy="
                f"'{self._own_policy().name}'. Received: mode={mode}"
            )
        if mode not in SUPPORTED_MODES:
            raise NotImplementedError(
                f"{self._who()}: tfkit quantizes to 'int8' and 'int4'; mode {mode!r} "
                "(Keras's float8, GPTQ and AWQ paths) is not built yet"
            )
        if mode == "int8" and self.compute_dtype == "float16":
            raise ValueError(
                f"Quantization mode='{mode}' doesn't work well with compute_dtype='float16'. "
                "Consider loading model/layer with another dtype policy such as "
                "'mixed_bfloat16' before calling `quantize()`."
            )
        self._check_quantizable(mode)
        target = self._quantized_target
        float_weight = getattr(self, target)
        stored = {target + suffix: value for suffix, value in self._quantized_values(float_weight, config).items()}
        stored.update(self._more_quantized_values(config))
        block = config.block_size if mode == "int4" and config.block_size not in (None, -1) else None
        policy = (
            f"int8_from_{self._own_policy().name}"
            if mode == "int8"
            else f"int4/{block or -1}_from_{self._own_policy().name}"
        )
        for replaced in self._float_weights_quantized():
            self._st.forget_weight(replaced)
        self.quantization_config = config
        self.dtype_policy = policy
        self._build_quantized(tuple(float_weight.shape))
        for name, value in stored.items():
            getattr(self, name).assign(value)

    def _int8_scale_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """One scale per output column (``_scale_axis`` 0) or per row."""
        return (shape[1] if self._scale_axis == 0 else shape[0],)

    def _int4_matrix_shape(self, shape: tuple[int, ...]) -> tuple[int, int]:
        """The ``(rows, columns)`` matrix the int4 values are packed as (a 2-D weight is its own)."""
        return shape[0], shape[1]

    def _lora_shape(self) -> tuple[int, ...]:
        """LoRA's factors take the float weight's shape: an int4 weight is stored with its columns packed in pairs."""
        shape = tuple(getattr(self, self._quantized_target).shape)
        return (shape[0], self._int4_columns) if self.quantization_mode == "int4" else shape

    def _dequantized_target(self) -> tf.Tensor:
        """The float weight the quantized target stands for (float32, the target's own layout)."""
        target = self._quantized_target
        scale, zero = getattr(self, f"{target}_scale"), getattr(self, f"{target}_zero", None)
        values = getattr(self, target)
        if self.quantization_mode == "int4":
            return int4.dequantized(
                values, scale, zero, getattr(self, "g_idx", None), self._int4_columns, self._scale_axis, tf.float32
            )
        scale = tf.cast(scale, tf.float32)
        return tf.cast(values, tf.float32) / (scale if self._scale_axis == 0 else tf.expand_dims(scale, -1))

    def merged_quantized_values(self) -> dict[str, np.ndarray]:
        """The quantized target with LoRA's update merged in and quantized again, by weight name (Keras's save).

        As Keras 3 saves a quantized layer with LoRA enabled: the target weight de-quantized, plus
        `lora_alpha / lora_rank * A @ B`, quantized again in the same mode (and int4 group size).

        Returns:
            A dict of the target's values, scale and (int4 groups) zero point, by attribute name.

        Example:
            >>> layer = tfkit.layers.Dense(2)
            >>> layer.build((None, 3))
            >>> layer.quantize("int8")
            >>> layer.enable_lora(1)
            >>> {name: (value.dtype.name, value.shape) for name, value in layer.merged_quantized_values().items()}
            {'kernel': ('int8', (3, 2)), 'kernel_scale': ('float32', (2,))}
        """
        target = self._quantized_target
        factor_a = getattr(self, f"lora_{target}_a")
        factor_b = getattr(self, f"lora_{target}_b")
        merged = self._dequantized_target() + (self.lora_alpha / self.lora_rank) * tf.matmul(factor_a, factor_b)
        block = self._int4_block_size() if self.quantization_mode == "int4" else None
        config = (
            quantizers.Int8QuantizationConfig()
            if self.quantization_mode == "int8"
            else quantizers.Int4QuantizationConfig(block_size=block or -1)
        )
        values = self._quantized_values(merged, config)
        return {target + suffix: np.asarray(value) for suffix, value in values.items()}

    def _more_quantized_values(self, config: Any) -> dict[str, Any]:
        """Values of other weights the layer quantizes with its target, by attribute name (none here)."""
        return {}

    def _float_weights_quantized(self) -> list[tf.Variable]:
        """The float weights ``quantize`` replaces by integer ones: the target weight."""
        return [getattr(self, self._quantized_target)]

    def _check_quantizable(self, mode: str) -> None:
        """Raise ``NotImplementedError`` naming the layer where its shape has no quantized path (none here)."""

    def _quantized_values(self, float_weight: Any, config: Any) -> dict[str, Any]:
        """The stored values of the quantized weight by suffix (``""``, ``"_scale"``, ``"_zero"``)."""
        if config.mode == "int8":
            quantizer = quantizers.QuantizationConfig.weight_quantizer_or_default(
                config, quantizers.AbsMaxQuantizer(axis=self._scale_axis)
            )
            values, scale = quantizer(float_weight, to_numpy=True)
            return {"": values, "_scale": np.squeeze(np.asarray(scale), axis=self._scale_axis)}
        block = config.block_size if config.block_size not in (None, -1) else None
        packed, scale, zero = int4.int4_values(float_weight, self._scale_axis, block, config.weight_quantizer)
        return {"": packed, "_scale": scale, **({"_zero": zero} if zero is not None else {})}

    def _int8_matmul(self, inputs: tf.Tensor) -> tf.Tensor:
        """``inputs @ kernel`` with an int8 kernel: outputs in the compute dtype, inputs' gradient kept."""
        compute = tf.as_dtype(self.compute_dtype)
        quantizer = self.inputs_quantizer

        @tf.custom_gradient
        def matmul(x: tf.Tensor, kernel: tf.Tensor, kernel_scale: tf.Tensor) -> Any:
            kernel_scale = tf.cast(kernel_scale, compute)
            if quantizer is None:
                y = tf.linalg.matmul(x, tf.cast(kernel, compute)) / kernel_scale
            else:
                x_q, x_scale = quantizer(x, axis=-1)
                product = (
                    tf.linalg.matmul(x_q, kernel, output_type=tf.int32)
                    if x_q.dtype == tf.int8
                    else tf.linalg.matmul(tf.cast(x_q, compute), tf.cast(kernel, compute))
                )
                y = tf.cast(product, compute) / (kernel_scale * tf.cast(x_scale, compute))

            def grad(upstream: tf.Tensor) -> tuple[tf.Tensor, None, None]:
                float_kernel = tf.cast(kernel, compute) / kernel_scale
                return tf.linalg.matmul(upstream, float_kernel, transpose_b=True), None, None

            return y, grad

        units = self.kernel.shape[-1]
        flat = tf.reshape(inputs, [-1, tf.shape(inputs)[-1]]) if inputs.shape.rank != 2 else inputs
        outputs = matmul(
            tf.cast(flat, compute), tf.convert_to_tensor(self.kernel), tf.convert_to_tensor(self.kernel_scale)
        )
        if inputs.shape.rank != 2:
            outputs = tf.reshape(outputs, tf.concat([tf.shape(inputs)[:-1], [units]], 0))
            outputs.set_shape(inputs.shape[:-1].concatenate([units]))
        return outputs

    def _int4_matmul(self, inputs: tf.Tensor) -> tf.Tensor:
        """``inputs @ kernel`` with an int4 kernel (Keras's order of operations); inputs' gradient kept."""
        compute = tf.as_dtype(self.compute_dtype)
        zero = getattr(self, "kernel_zero", None)
        float_kernel = tf.stop_gradient(
            int4.dequantized(
                self.kernel, self.kernel_scale, zero, getattr(self, "g_idx", None), self._int4_columns, 0, compute
            )
        )
        quantizer = self.inputs_quantizer

        @tf.custom_gradient
        def matmul(x: tf.Tensor, weight: tf.Tensor) -> Any:
            if zero is not None:  # groups: the de-quantized kernel, as Keras
                y = tf.linalg.matmul(x, weight)
            else:  # per channel: int4 values first, then the scales (Keras's order)
                values = tf.cast(quantizers.unpack_int4(self.kernel, self._int4_columns, axis=-1), compute)
                scale = tf.cast(self.kernel_scale, compute)
                if quantizer is not None:
                    x, x_scale = quantizer(x, axis=-1)
                    scale = scale * tf.cast(x_scale, compute)
                y = tf.linalg.matmul(tf.cast(x, compute), values) / scale

            def grad(upstream: tf.Tensor) -> tuple[tf.Tensor, None]:
                return tf.linalg.matmul(upstream, weight, transpose_b=True), None

            return y, grad

        flat = tf.reshape(inputs, [-1, tf.shape(inputs)[-1]]) if inputs.shape.rank != 2 else inputs
        outputs = matmul(tf.cast(flat, compute), float_kernel)
        if inputs.shape.rank != 2:
            units = self._int4_columns
            outputs = tf.reshape(outputs, tf.concat([tf.shape(inputs)[:-1], [units]], 0))
            outputs.set_shape(inputs.shape[:-1].concatenate([units]))
        return outputs

    def _quantized_matmul(self, inputs: tf.Tensor) -> tf.Tensor:
        return self._int8_matmul(inputs) if self.quantization_mode == "int8" else self._int4_matmul(inputs)

    def _int8_gather(self, indices: tf.Tensor) -> tf.Tensor:
        """Rows of a quantized table, de-scaled to the compute dtype (Embedding)."""
        compute = tf.as_dtype(self.compute_dtype)
        if self.quantization_mode == "int4":
            rows = tf.cast(
                tf.gather(quantizers.unpack_int4(self.embeddings, self._int4_columns, axis=-1), indices), compute
            )
            scale = tf.cast(tf.gather(self.embeddings_scale, indices), compute)
            if getattr(self, "embeddings_zero", None) is None:
                return rows / tf.expand_dims(scale, -1)
            zero = tf.cast(tf.gather(self.embeddings_zero, indices), compute)
            groups = tf.cast(self.g_idx, tf.int32)
            return (rows - tf.gather(zero, groups, axis=-1)) * tf.gather(scale, groups, axis=-1)
        rows = tf.cast(tf.gather(self.embeddings, indices), compute)
        return rows / tf.expand_dims(tf.cast(tf.gather(self.embeddings_scale, indices), compute), -1)

    def _lora_delta_outputs(self, inputs: tf.Tensor, lookup: bool) -> tf.Tensor:
        """What the LoRA factors add to a quantized layer's outputs (``alpha / rank * x @ A @ B``)."""
        factor_a = getattr(self, f"lora_{self._quantized_target}_a")
        factor_b = getattr(self, f"lora_{self._quantized_target}_b")
        compute = tf.as_dtype(self.compute_dtype)
        first = (
            tf.gather(factor_a, inputs)
            if lookup
            else tf.tensordot(tf.cast(inputs, factor_a.dtype), factor_a, [[inputs.shape.rank - 1], [0]])
        )
        delta = tf.tensordot(first, factor_b, [[first.shape.rank - 1], [0]])
        return tf.cast(self.lora_alpha / self.lora_rank * delta, compute)
