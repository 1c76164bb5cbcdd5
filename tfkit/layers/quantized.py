"""int8 weight quantization for ``Dense`` and ``Embedding``, as Keras 3's ``layer.quantize("int8")``.

    layer = tfkit.layers.Dense(64); layer.build((None, 32))
    layer.quantize("int8")          # kernel: int8 (32, 64) + kernel_scale (64,); policy "int8_from_float32"
    y = layer(x)                    # x quantized per row, int8 x int8 -> int32 matmul, then de-scaled

The float weight is replaced by an int8 weight of the same path plus a float ``<weight>_scale``
(Keras's names and shapes, so Keras's quantized files import by path). A layer built under an
``"int8_from_..."`` policy (a quantized model read back from its config) builds these weights
directly. The quantized weight is not trainable; the bias, LoRA factors and inputs keep their
gradients (the kernel is read de-quantized for the inputs' gradient, as in Keras).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import quantizers
from tfkit.base import registry

SUPPORTED_MODES = ("int8",)


class Int8Quantization:
    """Mixed into a layer with a float ``kernel`` (``_quantized_target``) it can replace by int8 values."""

    _quantized_target = "kernel"
    _scale_axis = 0                 # the axis the absolute maximum runs over (Dense: the input axis)
    _default_activation_quantizer = True

    @property
    def quantization_mode(self) -> str | None:
        return self.dtype_policy.quantization_mode

    def _init_quantization(self, quantization_config: Any) -> None:
        if isinstance(quantization_config, dict):
            quantization_config = quantizers.deserialize(quantization_config)
        if quantization_config is not None and not isinstance(quantization_config, quantizers.QuantizationConfig):
            raise ValueError(f"{type(self).__name__} layer '{self.name}': quantization_config must be a "
                             f"tfkit.quantizers.QuantizationConfig or None, got {quantization_config!r}")
        self.quantization_config = quantization_config

    def _quantized_config(self) -> dict[str, Any]:
        return {"quantization_config": quantizers.serialize(self.quantization_config)}

    def _who(self) -> str:
        return f"{type(self).__name__} layer '{self.path}'"

    def _build_quantized(self, shape: tuple[int, ...]) -> None:
        """The int8 weight and its scale (in place of ``add_weight(<target>)``), for an int8 policy."""
        mode = self.quantization_mode
        if mode not in SUPPORTED_MODES:
            raise NotImplementedError(f"{self._who()}: tfkit quantizes weights to int8 only; the dtype policy "
                                      f"{self.dtype_policy.name!r} asks for {mode!r}")
        config = self.quantization_config
        self.inputs_quantizer = quantizers.QuantizationConfig.activation_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer() if self._default_activation_quantizer else None)
        target = self.add_weight(shape=shape, initializer="zeros", dtype="int8", trainable=False,
                                 name=self._quantized_target, autocast=False)
        setattr(self, self._quantized_target, target)
        channels = shape[1] if self._scale_axis == 0 else shape[0]     # one scale per output column / per row
        scale = self.add_weight(shape=(channels,), initializer="ones", trainable=False,
                                name=f"{self._quantized_target}_scale")
        setattr(self, f"{self._quantized_target}_scale", scale)

    def quantize(self, mode: str | None = None, type_check: bool = True, config: Any = None) -> None:
        """Replace the float weight by int8 values and a per-channel scale (Keras's ``quantize``)."""
        config = quantizers.validate_and_resolve_config(mode, config)
        mode = config.mode
        if type_check and not registry.is_builtin("layers", type(self)):
            raise NotImplementedError(f"Layer {type(self).__name__} does not have a `quantize()` method "
                                      "implemented (a subclass of a quantizable layer must implement its own)")
        if not self.built:
            raise ValueError(f"Cannot quantize a layer that isn't yet built. Layer '{self.name}' "
                             f"(of type '{type(self).__name__}') is not built yet.")
        if self.quantization_mode is not None:
            raise ValueError(f"Layer '{self.name}' is already quantized with dtype_policy="
                             f"'{self.dtype_policy.name}'. Received: mode={mode}")
        if mode not in SUPPORTED_MODES:
            raise NotImplementedError(f"{self._who()}: tfkit quantizes to 'int8' only; mode {mode!r} "
                                      "(Keras's int4, float8, GPTQ and AWQ paths) is not built yet")
        if mode == "int8" and self.compute_dtype == "float16":
            raise ValueError(f"Quantization mode='{mode}' doesn't work well with compute_dtype='float16'. "
                             "Consider loading model/layer with another dtype policy such as "
                             "'mixed_bfloat16' before calling `quantize()`.")
        float_weight = getattr(self, self._quantized_target)
        quantizer = quantizers.QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=self._scale_axis))
        values, scale = quantizer(float_weight, to_numpy=True)
        scale = np.squeeze(np.asarray(scale), axis=self._scale_axis)
        self._st.forget_weight(float_weight)
        self.quantization_config = config
        self.dtype_policy = f"{mode}_from_{self.dtype_policy.name}"
        self._build_quantized(tuple(float_weight.shape))
        getattr(self, self._quantized_target).assign(values)
        getattr(self, f"{self._quantized_target}_scale").assign(scale)

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
                product = tf.linalg.matmul(x_q, kernel, output_type=tf.int32) if x_q.dtype == tf.int8 \
                    else tf.linalg.matmul(tf.cast(x_q, compute), tf.cast(kernel, compute))
                y = tf.cast(product, compute) / (kernel_scale * tf.cast(x_scale, compute))

            def grad(upstream: tf.Tensor) -> tuple[tf.Tensor, None, None]:
                float_kernel = tf.cast(kernel, compute) / kernel_scale
                return tf.linalg.matmul(upstream, float_kernel, transpose_b=True), None, None

            return y, grad

        units = self.kernel.shape[-1]
        flat = tf.reshape(inputs, [-1, tf.shape(inputs)[-1]]) if inputs.shape.rank != 2 else inputs
        outputs = matmul(tf.cast(flat, compute), tf.convert_to_tensor(self.kernel),
                         tf.convert_to_tensor(self.kernel_scale))
        if inputs.shape.rank != 2:
            outputs = tf.reshape(outputs, tf.concat([tf.shape(inputs)[:-1], [units]], 0))
            outputs.set_shape(inputs.shape[:-1].concatenate([units]))
        return outputs

    def _int8_gather(self, indices: tf.Tensor) -> tf.Tensor:
        """Rows of an int8 table, de-scaled to the compute dtype (Embedding)."""
        compute = tf.as_dtype(self.compute_dtype)
        rows = tf.cast(tf.gather(self.embeddings, indices), compute)
        return rows / tf.expand_dims(tf.cast(tf.gather(self.embeddings_scale, indices), compute), -1)

    def _lora_delta_outputs(self, inputs: tf.Tensor, lookup: bool) -> tf.Tensor:
        """What the LoRA factors add to a quantized layer's outputs (``alpha / rank * x @ A @ B``)."""
        factor_a = getattr(self, f"lora_{self._quantized_target}_a")
        factor_b = getattr(self, f"lora_{self._quantized_target}_b")
        compute = tf.as_dtype(self.compute_dtype)
        first = tf.gather(factor_a, inputs) if lookup \
            else tf.tensordot(tf.cast(inputs, factor_a.dtype), factor_a, [[inputs.shape.rank - 1], [0]])
        delta = tf.tensordot(first, factor_b, [[first.shape.rank - 1], [0]])
        return tf.cast(self.lora_alpha / self.lora_rank * delta, compute)
