"""Token embeddings and padding masks: ``Embedding`` and ``Masking``.

embed = tfkit.layers.Embedding(input_dim=1000, output_dim=16, mask_zero=True)
x = embed(tf.constant([[5, 7, 0]]))      # (1, 3, 16) floats
tfkit.engine.masking.get_mask(x)                # [[True, True, False]]: later layers skip the padding
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import constraints, initializers, regularizers
from tfkit.base import registry
from tfkit.base.argument_validation import positive_int
from tfkit.distribution import values as distribution_values
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config
from tfkit.layers.lora import LoRA
from tfkit.layers.quantized import Int8Quantization

__all__ = ["Embedding", "Masking"]


@registry.builtin("layers")
class Embedding(Int8Quantization, LoRA, Layer):
    """Turns nonnegative integers (indexes) into dense vectors of fixed size.

    The layer looks up row `i` of its `(input_dim, output_dim)` table
    `embeddings` for every integer `i` of the input, so integer inputs of any
    shape `s` give outputs of shape `(*s, output_dim)`. Non-integer inputs are
    cast to `int32`. With `mask_zero=True` index 0 is padding: the output
    carries the mask `inputs != 0` (so `input_dim` should count the padding
    index too).

    Args:
        input_dim: Positive integer, the size of the vocabulary (maximum
            integer index + 1).
        output_dim: Positive integer, the dimension of the dense embedding.
        embeddings_initializer: Initializer for the `embeddings` matrix.
            Defaults to `"uniform"`.
        embeddings_regularizer: Regularizer applied to the `embeddings`
            matrix. Defaults to `None`.
        embeddings_constraint: Constraint applied to the `embeddings` matrix.
            Defaults to `None`.
        mask_zero: Whether the input value 0 is a special "padding" value that
            should be masked out, which is useful for recurrent layers that
            take variable-length input. Defaults to `False`.
        weights: Optional initial table: an array of shape
            `(input_dim, output_dim)` (or a one-element list holding it),
            assigned when the layer is built. Defaults to `None`.
        lora_rank: Optional positive integer: enable LoRA with this rank when
            the layer is built, freezing `embeddings` and adding the trainable
            factors `lora_embeddings_a` and `lora_embeddings_b`. Defaults to
            `None`.
        lora_alpha: Optional scale of the LoRA update (the factor product is
            multiplied by `lora_alpha / lora_rank`). `None` (the default) uses
            `lora_rank`.
        quantization_config: Optional `tfkit.quantizers.QuantizationConfig`
            (or its config dict) used when the layer is quantized. Defaults
            to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: An integer tensor of indexes in `[0, input_dim)`.

    Input shape:
        N-D tensor with shape `(batch_size, ...)`, any rank.

    Output shape:
        (N+1)-D tensor with shape `(batch_size, ..., output_dim)`.

    Raises:
        ValueError: If `input_dim` or `output_dim` is not a positive integer,
            or `weights` does not have shape `(input_dim, output_dim)`.

    Example:
        >>> layer = tfkit.layers.Embedding(input_dim=10, output_dim=3, mask_zero=True)
        >>> layer(tf.constant([[5, 7, 0]])).shape
        TensorShape([1, 3, 3])
        >>> layer.compute_mask(tf.constant([[5, 7, 0]])).numpy()
        array([[ True,  True, False]])
        >>> table = tfkit.layers.Embedding(3, 2, weights=[np.arange(6.0).reshape(3, 2)])
        >>> table(tf.constant([2, 0])).numpy()
        array([[4., 5.],
               [0., 1.]], dtype=float32)
    """

    _lora_target = "embeddings"
    _quantized_target = "embeddings"
    _scale_axis = -1  # one scale per row (token), as Keras
    _default_activation_quantizer = False  # a lookup has no activations to quantize

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        weights: Any = None,
        lora_rank: int | None = None,
        lora_alpha: float | None = None,
        quantization_config: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        who = f"Embedding layer '{self.name}'"
        self._init_lora(lora_rank, lora_alpha)
        self._init_quantization(quantization_config)
        self.input_dim = positive_int(input_dim, "input_dim", who)
        self.output_dim = positive_int(output_dim, "output_dim", who)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.input_spec = InputSpec()  # any integer shape: no rank or last-axis check
        self._tfkit_initial_weights = None
        if weights is not None:
            table = np.asarray(weights[0] if isinstance(weights, (list, tuple)) else weights)
            if table.shape != (self.input_dim, self.output_dim):
                raise ValueError(
                    f"{who} expected weights of shape ({self.input_dim}, {self.output_dim}), got {table.shape}"
                )
            self._tfkit_initial_weights = table

    def build(self, input_shape: Any = None) -> None:
        if self.quantization_mode:
            self._build_quantized((self.input_dim, self.output_dim))
        else:
            self.embeddings = self.add_weight(
                shape=(self.input_dim, self.output_dim),
                initializer=self.embeddings_initializer,
                regularizer=self.embeddings_regularizer,
                constraint=self.embeddings_constraint,
                name="embeddings",
            )
        if self._tfkit_initial_weights is not None:
            self.embeddings.assign(self._tfkit_initial_weights)
            self._tfkit_initial_weights = None
        self.built = True
        self._lora_after_build()

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        inputs = tf.convert_to_tensor(inputs)
        if inputs.dtype not in (tf.int32, tf.int64):
            inputs = tf.cast(inputs, tf.int32)
        # the rows in the compute dtype, as Keras casts them: bfloat16 under "mixed_bfloat16"
        return tf.cast(self._lookup(inputs), self.compute_dtype)

    def _lookup(self, inputs: tf.Tensor) -> tf.Tensor:
        if self.quantization_mode:
            outputs = self._int8_gather(inputs)
            return outputs + self._lora_delta_outputs(inputs, lookup=True) if self.lora_enabled else outputs
        table = self.merged_kernel() if self.lora_enabled else self.embeddings
        if distribution_values.is_sharded(table):
            # DTensor cannot gather from a variable whose rows are split over the mesh; from its value it can
            table = table.read_value()
        elif isinstance(table, tf.__internal__.distribute.ShardedVariable):
            # split by a ParameterServerStrategy variable_partitioner: each server looks up its own rows
            return tf.nn.embedding_lookup(table, inputs)
        return tf.gather(table, inputs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if not self.mask_zero:
            return None
        return tf.not_equal(inputs, tf.zeros((), dtype=tf.convert_to_tensor(inputs).dtype))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (*tuple(input_shape), self.output_dim)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(
            input_dim=self.input_dim,
            output_dim=self.output_dim,
            embeddings_initializer=initializers.serialize(self.embeddings_initializer),
            embeddings_regularizer=regularizers.serialize(self.embeddings_regularizer),
            embeddings_constraint=constraints.serialize(self.embeddings_constraint),
            mask_zero=self.mask_zero,
            **self._quantized_config(),
            **self._lora_config(),
        )
        return config


@registry.builtin("layers")
class Masking(Layer):
    """Masks a sequence by using a mask value to skip timesteps.

    For each timestep of the input (axis 1 of a `(batch, timesteps,
    features)` tensor), if all values along the last axis equal `mask_value`,
    the timestep is masked (skipped) in all downstream layers that support
    masking, and its values are set to zero in the output.

    Args:
        mask_value: The number marking a timestep to skip. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 2 or more (usually `(batch, timesteps,
            features)`).

    Input shape:
        Arbitrary; the last axis is the one compared with `mask_value`.

    Output shape:
        Same shape as the input. The output mask has the input's shape
        without its last axis.

    Raises:
        ValueError: If `mask_value` is not a number.

    Example:
        >>> x = tf.constant([[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]])
        >>> layer = tfkit.layers.Masking(mask_value=0.0)
        >>> layer.compute_mask(x).numpy()
        array([[ True, False,  True]])
        >>> layer(x).shape
        TensorShape([1, 3, 2])
    """

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(mask_value, bool) or not isinstance(mask_value, (int, float, np.number)):
            raise ValueError(f"Masking layer '{self.name}' expected mask_value to be a number, got {mask_value!r}")
        self.mask_value = float(mask_value)
        self.supports_masking = True

    def _keep(self, inputs: tf.Tensor, keepdims: bool) -> tf.Tensor:
        return tf.reduce_any(tf.not_equal(inputs, tf.cast(self.mask_value, inputs.dtype)), axis=-1, keepdims=keepdims)

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return inputs * tf.cast(self._keep(inputs, keepdims=True), inputs.dtype)

    def compute_mask(self, inputs: Any, mask: Any = None) -> tf.Tensor:
        return self._keep(tf.convert_to_tensor(inputs), keepdims=False)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["mask_value"] = self.mask_value
        return config
