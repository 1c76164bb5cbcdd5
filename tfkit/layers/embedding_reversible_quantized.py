"""int8 and int4 for ``ReversibleEmbedding``'s reverse projection (the language models' output head), as Keras 3.

    head = tfkit.layers.ReversibleEmbedding(1000, 64); head.build()
    head.quantize("int8")                 # embeddings int8, one scale a token; the tied head reads them too
    logits = head(hidden, reverse=True)   # hidden quantized per row, an int32 product, then both scales

Tied, the head reads the quantized table transposed. Untied, its own ``reverse_embeddings``
``(output_dim, input_dim)`` is quantized along ``output_dim`` (one scale a token): int8, or int4 packed
in pairs along ``output_dim``, per token or in groups of ``output_dim`` with float zero points. The
reverse call quantizes the hidden states per row (``AbsMaxQuantizer(axis=-1)``, in int8 and int4 as
in Keras); grouped int4 multiplies them by the de-quantized head. The file layout is Keras's:
``embeddings`` and its scale (zero point, ``g_idx``), then the head's weights.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import quantizers
from tfkit.layers import quantized_int4 as int4

REVERSE = "reverse_embeddings"


class ReverseQuantization:
    """Mixed into ``ReversibleEmbedding`` (before ``Embedding``): its head quantized with its table."""

    _quantized_trailing = (REVERSE, f"{REVERSE}_scale", f"{REVERSE}_zero")

    def _float_weights_quantized(self) -> list[tf.Variable]:
        return super()._float_weights_quantized() + ([] if self.tie_weights else [getattr(self, REVERSE)])

    def _more_quantized_values(self, config: Any) -> dict[str, Any]:
        if self.tie_weights:
            return {}
        head = np.asarray(getattr(self, REVERSE).numpy())
        if config.mode == "int8":
            quantizer = quantizers.QuantizationConfig.weight_quantizer_or_default(
                config, quantizers.AbsMaxQuantizer(axis=0)
            )
            values, scale = quantizer(head, to_numpy=True)
            return {REVERSE: values, f"{REVERSE}_scale": np.squeeze(np.asarray(scale), axis=0)}
        block = self._int4_block_size_of(config)
        if int4.grouped(block):
            values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
                head, block_size=block, value_range=(-8, 7), dtype="int8", to_numpy=True
            )
            more = {f"{REVERSE}_scale": scale, f"{REVERSE}_zero": np.asarray(zero).astype("float32")}  # float, as Keras
        else:
            quantizer = quantizers.QuantizationConfig.weight_quantizer_or_default(
                config, quantizers.AbsMaxQuantizer(axis=0, value_range=(-8, 7), output_dtype="int8")
            )
            values, scale = quantizer(head, to_numpy=True)
            more = {f"{REVERSE}_scale": np.squeeze(np.asarray(scale), axis=0)}
        packed, _, _ = quantizers.pack_int4(values, axis=0)
        return {REVERSE: packed, **more}

    @staticmethod
    def _int4_block_size_of(config: Any) -> int | None:
        block = getattr(config, "block_size", None)
        return None if block in (None, -1) else block

    def _build_quantized(self, shape: tuple[int, ...]) -> None:
        super()._build_quantized(shape)
        self.inputs_quantizer = quantizers.QuantizationConfig.activation_quantizer_or_default(
            self.quantization_config, quantizers.AbsMaxQuantizer(axis=-1)
        )
        if self.tie_weights:
            return
        if self.quantization_mode == "int8":
            self._add_int(REVERSE, (self.output_dim, self.input_dim), "int8")
            scale_shape = (self.input_dim,)
        else:
            self._add_int(REVERSE, ((self.output_dim + 1) // 2, self.input_dim), "int8")
            block = self._int4_block_size()
            scale_shape = (math.ceil(self.output_dim / block), self.input_dim) if block else (self.input_dim,)
            if block:
                zero = self.add_weight(shape=scale_shape, initializer="zeros", trainable=False, name=f"{REVERSE}_zero")
                setattr(self, f"{REVERSE}_zero", zero)
        scale = self.add_weight(shape=scale_shape, initializer="ones", trainable=False, name=f"{REVERSE}_scale")
        setattr(self, f"{REVERSE}_scale", scale)

    def _quantized_logits(self, inputs: tf.Tensor) -> tf.Tensor:
        """``inputs @ head`` with the quantized head, as Keras computes it (without the soft cap)."""
        compute = tf.as_dtype(self.compute_dtype)
        inputs = tf.cast(inputs, compute)
        if self.inputs_quantizer is not None:
            inputs, inputs_scale = self.inputs_quantizer(inputs)
            inputs_scale = tf.cast(inputs_scale, compute)
        else:
            inputs_scale = tf.ones((1,), compute)
        if self.tie_weights:
            head, scale = tf.transpose(self.embeddings), tf.convert_to_tensor(self.embeddings_scale)
            zero = getattr(self, "embeddings_zero", None)
        else:
            head, scale = (
                tf.convert_to_tensor(getattr(self, REVERSE)),
                tf.convert_to_tensor(self.reverse_embeddings_scale),
            )
            zero = getattr(self, f"{REVERSE}_zero", None)
        if self.quantization_mode == "int4":
            head = quantizers.unpack_int4(head, self.output_dim, axis=0)
        if zero is not None:  # int4 groups along output_dim: the de-quantized head, then the inputs' scale
            if self.tie_weights:
                scale, zero = tf.transpose(scale), tf.transpose(zero)
            groups = tf.cast(self.g_idx, tf.int32)
            float_head = (tf.cast(head, compute) - tf.cast(tf.gather(zero, groups), compute)) * tf.cast(
                tf.gather(scale, groups), compute
            )
            return _matmul(tf.cast(inputs, compute), float_head) / inputs_scale
        if inputs.dtype == tf.int8:
            logits = tf.cast(_matmul(inputs, head, tf.int32), compute)
        else:
            logits = _matmul(inputs, tf.cast(head, compute))
        return logits / (inputs_scale * tf.cast(scale, compute))


def _matmul(inputs: tf.Tensor, weight: tf.Tensor, output_type: tf.DType | None = None) -> tf.Tensor:
    """``inputs @ weight`` over the last axis of inputs of any rank (int8 x int8 to ``output_type``)."""
    flat = tf.reshape(inputs, [-1, tf.shape(inputs)[-1]])
    product = tf.linalg.matmul(flat, weight, output_type=output_type) if output_type else tf.linalg.matmul(flat, weight)
    outputs = tf.reshape(product, tf.concat([tf.shape(inputs)[:-1], tf.shape(weight)[-1:]], 0))
    outputs.set_shape(inputs.shape[:-1].concatenate(weight.shape[-1:]))
    return outputs
