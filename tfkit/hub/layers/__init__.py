"""``tfkit.hub.layers``: the blocks KerasHub's model families share, under KerasHub's names.

    import tfkit.hub as keras_hub
    embedding = keras_hub.layers.TokenAndPositionEmbedding(vocabulary_size=100, sequence_length=16, embedding_dim=8)
    decoder = keras_hub.layers.TransformerDecoder(intermediate_dim=32, num_heads=2)
    packer = keras_hub.layers.StartEndPacker(sequence_length=16, start_value=1, end_value=2)

Modeling layers (embeddings, rotary and sine position encodings, ALiBi biases,
RMS normalization, attention with a key/value cache, transformer and FNet
encoders, transformer decoder, the masked-LM head)
have KerasHub 0.32's arguments, configs (registered as ``keras_hub>Name``) and
weight layout, so a ``.weights.h5`` written by Keras for KerasHub's layer loads
into tfkit's and back. Preprocessing layers (the packers, the masked-LM mask
generator, the random deletion and swap augmentations) are TensorFlow ops: they run eagerly, in ``tf.data`` and in exported
SavedModels.
"""

from tfkit.hub.layers.alibi_bias import AlibiBias
from tfkit.hub.layers.audio_converter import AudioConverter
from tfkit.hub.layers.cached_multi_head_attention import CachedMultiHeadAttention
from tfkit.hub.layers.f_net_encoder import FNetEncoder
from tfkit.hub.layers.image_converter import ImageConverter
from tfkit.hub.layers.masked_lm_head import MaskedLMHead
from tfkit.hub.layers.masked_lm_mask_generator import MaskedLMMaskGenerator
from tfkit.hub.layers.multi_segment_packer import MultiSegmentPacker
from tfkit.hub.layers.position_embedding import PositionEmbedding
from tfkit.hub.layers.random_deletion import RandomDeletion
from tfkit.hub.layers.random_swap import RandomSwap
from tfkit.hub.layers.reversible_embedding import ReversibleEmbedding
from tfkit.hub.layers.rms_normalization import RMSNormalization
from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.hub.layers.sine_position_encoding import SinePositionEncoding
from tfkit.hub.layers.start_end_packer import StartEndPacker
from tfkit.hub.layers.token_and_position_embedding import TokenAndPositionEmbedding
from tfkit.hub.layers.transformer_decoder import TransformerDecoder
from tfkit.hub.layers.transformer_encoder import TransformerEncoder

# The families' image converters are KerasHub's layers too (keras_hub.layers.ViTImageConverter); imported last,
# once every shared layer above is defined, since the families' modules import those.
from tfkit.hub.models.clip.clip_image_converter import CLIPImageConverter  # noqa: E402
from tfkit.hub.models.deit.deit_image_converter import DeiTImageConverter  # noqa: E402
from tfkit.hub.models.dinov2.dinov2_image_converter import DINOV2ImageConverter  # noqa: E402
from tfkit.hub.models.efficientnet.efficientnet_image_converter import EfficientNetImageConverter  # noqa: E402
from tfkit.hub.models.gemma3.gemma3_image_converter import Gemma3ImageConverter  # noqa: E402
from tfkit.hub.models.mobilenet.mobilenet_image_converter import MobileNetImageConverter  # noqa: E402
from tfkit.hub.models.moonshine.moonshine_audio_converter import MoonshineAudioConverter  # noqa: E402
from tfkit.hub.models.pali_gemma.pali_gemma_image_converter import PaliGemmaImageConverter  # noqa: E402
from tfkit.hub.models.resnet.resnet_image_converter import ResNetImageConverter  # noqa: E402
from tfkit.hub.models.siglip.siglip_image_converter import SigLIPImageConverter  # noqa: E402
from tfkit.hub.models.swin_transformer.swin_transformer_image_converter import SwinTransformerImageConverter  # noqa: E402
from tfkit.hub.models.vit.vit_image_converter import ViTImageConverter  # noqa: E402
from tfkit.hub.models.whisper.whisper_audio_converter import WhisperAudioConverter  # noqa: E402

__all__ = [
    "AlibiBias",
    "AudioConverter",
    "CachedMultiHeadAttention",
    "FNetEncoder",
    "ImageConverter",
    "MaskedLMHead",
    "MaskedLMMaskGenerator",
    "MultiSegmentPacker",
    "PositionEmbedding",
    "RandomDeletion",
    "RandomSwap",
    "ReversibleEmbedding",
    "RMSNormalization",
    "RotaryEmbedding",
    "SinePositionEncoding",
    "StartEndPacker",
    "TokenAndPositionEmbedding",
    "TransformerDecoder",
    "TransformerEncoder",
    "ViTImageConverter",
    "DeiTImageConverter",
    "DINOV2ImageConverter",
    "MobileNetImageConverter",
    "ResNetImageConverter",
    "SwinTransformerImageConverter",
    "EfficientNetImageConverter",
    "CLIPImageConverter",
    "SigLIPImageConverter",
    "WhisperAudioConverter",
    "MoonshineAudioConverter",
    "PaliGemmaImageConverter",
    "Gemma3ImageConverter",
]
