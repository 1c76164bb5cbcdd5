"""``LlamaBackbone``: Meta's Llama decoder stack (rotary embeddings, grouped-query attention, RMSNorm, gated MLP).

backbone = LlamaBackbone(vocabulary_size=32000, num_layers=32, num_query_heads=32, hidden_dim=4096,
                         intermediate_dim=11008, num_key_value_heads=32)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit.distribution import DeviceMesh, LayoutMap
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.decoder_backbone import decoder_blocks, decoder_graph, token_embedding
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
        self.token_embedding = token_embedding(vocabulary_size, hidden_dim, tie_word_embeddings, dtype)
        self.transformer_layers = decoder_blocks(
            LlamaTransformerDecoder,
            num_layers,
            dtype,
            intermediate_dim=intermediate_dim,
            num_query_heads=num_query_heads,
            num_key_value_heads=num_key_value_heads,
            rope_max_wavelength=rope_max_wavelength,
            rope_scaling_factor=rope_position_scaling_factor,
            rope_frequency_adjustment_factor=rope_frequency_adjustment_factor,
            rope_low_freq_factor=rope_low_freq_factor,
            rope_high_freq_factor=rope_high_freq_factor,
            rope_pretraining_sequence_length=rope_pretraining_sequence_length,
            layer_norm_epsilon=layer_norm_epsilon,
            dropout=dropout,
        )
        self.layer_norm = LlamaLayerNorm(epsilon=layer_norm_epsilon, dtype=dtype, name="sequence_output_layernorm")
        super().__init__(**decoder_graph(self), dtype=dtype, **kwargs)

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
