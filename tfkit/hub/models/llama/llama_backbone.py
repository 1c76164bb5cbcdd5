"""``LlamaBackbone``: Meta's Llama decoder stack (rotary embeddings, grouped-query attention, RMSNorm, gated MLP).

backbone = LlamaBackbone(vocabulary_size=32000, num_layers=32, num_query_heads=32, hidden_dim=4096,
                         intermediate_dim=11008, num_key_value_heads=32)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers, layers
from tfkit.distribution import DeviceMesh, LayoutMap
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.llama.llama_decoder import LlamaTransformerDecoder
from tfkit.hub.models.llama.llama_layernorm import LlamaLayerNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class LlamaBackbone(Backbone):
    """The Llama Transformer core architecture with hyperparameters.

    Token embeddings (no position embedding: positions enter as rotations of
    queries and keys) feed `num_layers` `LlamaTransformerDecoder` blocks,
    then a final RMS norm; the output is the last hidden states.
    `LlamaCausalLM` turns them into logits with the embedding's reverse
    projection (`tie_word_embeddings=True`: the transposed embeddings; else
    a separate `reverse_embeddings` weight). Layer names and weights are
    KerasHub's, so its Llama presets load.

    The config holds `tie_word_embeddings` too; KerasHub's leaves it out, so
    a tied KerasHub preset is rebuilt untied there (and its weights then do
    not load); both read this config.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of transformer blocks.
        num_query_heads: The number of query heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The hidden size of each block's feedforward
            network.
        num_key_value_heads: The number of key and value heads of each block
            (grouped-query attention; it divides `num_query_heads`).
        rope_max_wavelength: The rotary embedding's longest wavelength
            (theta). Defaults to `10000`.
        rope_position_scaling_factor: The rotary embedding's position
            scaling. Defaults to `1.0`.
        rope_frequency_adjustment_factor: Llama 3.1's rotary frequency
            factor. Defaults to `None`.
        rope_low_freq_factor: Llama 3.1's low frequency factor. Defaults to
            `None`.
        rope_high_freq_factor: Llama 3.1's high frequency factor. Defaults
            to `None`.
        rope_pretraining_sequence_length: Llama 3.1's pretraining context
            length. Defaults to `None`.
        layer_norm_epsilon: The RMS norms' epsilon. Defaults to `1e-6`.
        dropout: The dropout rate after attention. Defaults to `0`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        tie_word_embeddings: Whether the output projection is the transposed
            token embedding. Defaults to `False`.
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.LlamaBackbone(vocabulary_size=10, num_layers=1, num_query_heads=4,
        ...     hidden_dim=8, intermediate_dim=16, num_key_value_heads=2)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_query_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        num_key_value_heads: int,
        rope_max_wavelength: int = 10000,
        rope_position_scaling_factor: float = 1.0,
        rope_frequency_adjustment_factor: float | None = None,
        rope_low_freq_factor: float | None = None,
        rope_high_freq_factor: float | None = None,
        rope_pretraining_sequence_length: int | None = None,
        layer_norm_epsilon: float = 1e-6,
        dropout: float = 0,
        dtype: Any = None,
        tie_word_embeddings: bool = False,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = layers.ReversibleEmbedding(
            input_dim=vocabulary_size,
            output_dim=hidden_dim,
            tie_weights=tie_word_embeddings,
            embeddings_initializer=initializers.RandomNormal(stddev=0.01),
            dtype=dtype,
            name="token_embedding",
        )
        self.transformer_layers = [
            LlamaTransformerDecoder(
                intermediate_dim=intermediate_dim,
                num_query_heads=num_query_heads,
                num_key_value_heads=num_key_value_heads,
                rope_max_wavelength=rope_max_wavelength,
                rope_position_scaling_factor=rope_position_scaling_factor,
                rope_frequency_adjustment_factor=rope_frequency_adjustment_factor,
                rope_low_freq_factor=rope_low_freq_factor,
                rope_high_freq_factor=rope_high_freq_factor,
                rope_pretraining_sequence_length=rope_pretraining_sequence_length,
                layer_norm_epsilon=layer_norm_epsilon,
                activation="silu",
                kernel_initializer=initializers.RandomNormal(stddev=0.02),
                dropout=dropout,
                dtype=dtype,
                name=f"transformer_layer_{i}",
            )
            for i in range(num_layers)
        ]
        self.layer_norm = LlamaLayerNorm(epsilon=layer_norm_epsilon, dtype=dtype, name="sequence_output_layernorm")

        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.token_embedding(token_ids)
        for block in self.transformer_layers:
            x = block(x, decoder_padding_mask=padding_mask)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask},
            outputs=self.layer_norm(x),
            dtype=dtype,
            **kwargs,
        )
        self.vocabulary_size = vocabulary_size
        self.num_layers = num_layers
        self.num_query_heads = num_query_heads
        self.hidden_dim = hidden_dim
        self.intermediate_dim = intermediate_dim
        self.num_key_value_heads = num_key_value_heads
        self.rope_max_wavelength = rope_max_wavelength
        self.rope_position_scaling_factor = rope_position_scaling_factor
        self.rope_frequency_adjustment_factor = rope_frequency_adjustment_factor
        self.rope_low_freq_factor = rope_low_freq_factor
        self.rope_high_freq_factor = rope_high_freq_factor
        self.rope_pretraining_sequence_length = rope_pretraining_sequence_length
        self.layer_norm_epsilon = layer_norm_epsilon
        self.dropout = dropout
        self.tie_word_embeddings = tie_word_embeddings

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            vocabulary_size=self.vocabulary_size,
            num_layers=self.num_layers,
            num_query_heads=self.num_query_heads,
            hidden_dim=self.hidden_dim,
            intermediate_dim=self.intermediate_dim,
            rope_max_wavelength=self.rope_max_wavelength,
            rope_position_scaling_factor=self.rope_position_scaling_factor,
            rope_frequency_adjustment_factor=self.rope_frequency_adjustment_factor,
            rope_low_freq_factor=self.rope_low_freq_factor,
            rope_high_freq_factor=self.rope_high_freq_factor,
            rope_pretraining_sequence_length=self.rope_pretraining_sequence_length,
            num_key_value_heads=self.num_key_value_heads,
            layer_norm_epsilon=self.layer_norm_epsilon,
            dropout=self.dropout,
            tie_word_embeddings=self.tie_word_embeddings,
        )
        return config

    @staticmethod
    def get_layout_map(
        device_mesh: DeviceMesh, model_parallel_dim_name: str = "model", data_parallel_dim_name: str = "batch"
    ) -> LayoutMap:
        """A `tfkit.distribution.LayoutMap` sharding the backbone's weights for model parallelism (KerasHub's).

        The embedding, the attention projections and the feedforward kernels
        are split over the `model_parallel_dim_name` axis of the mesh (and
        their other axis over `data_parallel_dim_name`), as in Gemma's
        training setup; norms stay replicated.

        Args:
            device_mesh: The `tfkit.distribution.DeviceMesh` to shard over.
            model_parallel_dim_name: The mesh axis the weights are split
                over. Defaults to `"model"`.
            data_parallel_dim_name: The mesh axis of the data. Defaults to
                `"batch"`.

        Returns:
            The `LayoutMap`, for `tfkit.distribution.ModelParallel`.

        Raises:
            ValueError: If `device_mesh` is not a `DeviceMesh` or lacks one
                of the two axis names.

        Example:
            >>> import tfkit.hub as keras_hub
            >>> mesh = tfkit.distribution.DeviceMesh((1, 1), ["batch", "model"], tfkit.distribution.list_devices()[:1])
            >>> layout_map = keras_hub.models.LlamaBackbone.get_layout_map(mesh)
            >>> layout_map["transformer_layer_0/feedforward_gate_dense/kernel"].axes
            ('batch', 'model')
        """
        if not isinstance(device_mesh, DeviceMesh):
            raise ValueError(
                f"LlamaBackbone.get_layout_map: device_mesh must be a tfkit.distribution.DeviceMesh, "
                f"got {type(device_mesh).__name__}"
            )
        for name in (model_parallel_dim_name, data_parallel_dim_name):
            if name not in device_mesh.axis_names:
                raise ValueError(
                    f"LlamaBackbone.get_layout_map: {name!r} is not an axis of the device mesh "
                    f"(its axis_names: {list(device_mesh.axis_names)})"
                )
        model, data = model_parallel_dim_name, data_parallel_dim_name
        layout_map = LayoutMap(device_mesh)
        layout_map["token_embedding/embeddings"] = (model, data)
        layout_map["transformer_layer.*self_attention.*(query|key|value).kernel"] = (model, data, None)
        layout_map["transformer_layer.*attention_output.kernel"] = (model, None, data)
        layout_map["transformer_layer.*feedforward_intermediate_dense.kernel"] = (data, model)
        layout_map["transformer_layer.*feedforward_gate_dense.kernel"] = (data, model)
        layout_map["transformer_layer.*feedforward_output_dense.kernel"] = (model, data)
        return layout_map
