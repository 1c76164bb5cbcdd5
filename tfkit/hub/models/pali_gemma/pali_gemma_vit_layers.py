"""The layers of PaliGemma's ViT (SigLIP's): patch embeddings, biased multi-head attention, the encoder layer.

    embeddings = PaliGemmaVitEmbeddings(image_size=224, patch_size=14, hidden_dim=1152)   # (b, 256, 1152)
    block = PaliGemmaVitEncoderBlock(num_heads=16, intermediate_dim=4304)                 # pre-norm layer

Sub-layers keep KerasHub's attribute names (``patch_embedding``,
``position_embedding``, ``attn``, ``query_proj`` ..., ``layer_norm_1``,
``mlp_dense_1``): Keras's weight files key a sub-layer by its attribute.
KerasHub does not register these layers, so neither does tfkit. Their computation is Gemma 3's
vision encoder's too: it is ``tfkit.hub.layers.siglip_style_vit``'s, under these names.
"""

from __future__ import annotations

from tfkit.hub.layers.siglip_style_vit import SigLIPStyleAttention, SigLIPStyleEncoderLayer, SigLIPStylePatchEmbedding


class PaliGemmaVitEmbeddings(SigLIPStylePatchEmbedding):
    """PaliGemma's patch embedding: `SigLIPStylePatchEmbedding` (its arguments) under KerasHub's class name.

    Example:
        >>> from tfkit.hub.models.pali_gemma.pali_gemma_vit_layers import PaliGemmaVitEmbeddings
        >>> PaliGemmaVitEmbeddings(image_size=8, patch_size=4, hidden_dim=6)(np.ones((1, 8, 8, 3))).shape
        TensorShape([1, 4, 6])
    """


class PaliGemmaVitAttention(SigLIPStyleAttention):
    """PaliGemma's ViT attention: `SigLIPStyleAttention` (its arguments) under KerasHub's class name.

    Example:
        >>> from tfkit.hub.models.pali_gemma.pali_gemma_vit_layers import PaliGemmaVitAttention
        >>> PaliGemmaVitAttention(hidden_dim=4, num_heads=2)(np.ones((2, 3, 4)))[0].shape
        TensorShape([2, 3, 4])
    """


class PaliGemmaVitEncoderBlock(SigLIPStyleEncoderLayer):
    """PaliGemma's ViT encoder layer: `SigLIPStyleEncoderLayer` (its arguments) under KerasHub's class name.

    Example:
        >>> from tfkit.hub.models.pali_gemma.pali_gemma_vit_layers import PaliGemmaVitEncoderBlock
        >>> PaliGemmaVitEncoderBlock(num_heads=2, intermediate_dim=8)(np.ones((2, 5, 4))).shape
        TensorShape([2, 5, 4])
    """

    attention_class = PaliGemmaVitAttention
