"""``tfkit.hub.models``: KerasHub's base classes and families, under KerasHub's names.

    causal_lm = tfkit.hub.models.CausalLM.from_preset("./gpt2_tiny")     # GPT2CausalLM
    backbone = tfkit.hub.models.Backbone.from_preset("./gpt2_tiny")      # GPT2Backbone

Base classes: ``Backbone``, ``Task``, ``Preprocessor``, ``Tokenizer`` (also ``tfkit.hub.tokenizers.Tokenizer``), ``CausalLM``,
``CausalLMPreprocessor``, ``TextClassifier``, ``TextClassifierPreprocessor``, ``TextEmbedder``, ``TextEmbedderPreprocessor``, ``MaskedLM``,
``MaskedLMPreprocessor``, ``Seq2SeqLM``, ``Seq2SeqLMPreprocessor``, ``ImageClassifier``, ``ImageClassifierPreprocessor``. Families, one folder each (backbone, tokenizer,
preprocessor, tasks, Hugging Face checkpoint converter): ``gpt2``, ``llama`` (Llama 2), ``llama3``, ``bert``, ``albert``, ``electra``,
``f_net``, ``roberta``, ``deberta_v3``, ``distil_bert``, ``xlm_roberta``, ``vit``, ``deit``, ``dinov2`` (backbone), ``resnet`` (ResNet, ResNetV2, ResNet_vd), ``mobilenet``, ``swin_transformer``, ``efficientnet``, ``clip``, ``siglip``,
``gemma`` (Gemma and Gemma 2), ``gemma3`` (Gemma 3, with its vision encoder), ``mistral``, ``mixtral``, ``gpt_oss`` (GPT-OSS), ``opt``, ``gpt_neo_x``, ``bloom``, ``falcon``, ``phi3`` (Phi-3), ``qwen`` (Qwen 2), ``qwen3``, ``qwen_moe``, ``qwen3_moe``, ``smollm3``, ``pali_gemma`` (PaliGemma: SigLIP ViT and Gemma, prefix-LM), ``bart``, ``t5`` (T5 1.0 and 1.1), ``t5gemma``, ``whisper`` (backbone, tokenizer, audio converter; its speech-to-text task is tfkit's),
``moonshine``. Speech: ``AudioToText``, ``AudioToTextPreprocessor``.
"""

from tfkit.hub.models.albert import albert_converter  # noqa: F401  (registers the albert checkpoint converter)
from tfkit.hub.models.albert.albert_backbone import AlbertBackbone
from tfkit.hub.models.albert.albert_masked_lm import AlbertMaskedLM
from tfkit.hub.models.albert.albert_masked_lm_preprocessor import AlbertMaskedLMPreprocessor
from tfkit.hub.models.albert.albert_text_classifier import AlbertClassifier, AlbertTextClassifier
from tfkit.hub.models.albert.albert_text_classifier_preprocessor import (
    AlbertPreprocessor,
    AlbertTextClassifierPreprocessor,
)
from tfkit.hub.models.albert.albert_tokenizer import AlbertTokenizer
from tfkit.hub.models.audio_to_text import AudioToText
from tfkit.hub.models.audio_to_text_preprocessor import AudioToTextPreprocessor
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.bart import bart_converter  # noqa: F401  (registers the bart checkpoint converter)
from tfkit.hub.models.bart.bart_backbone import BartBackbone
from tfkit.hub.models.bart.bart_seq_2_seq_lm import BartSeq2SeqLM
from tfkit.hub.models.bart.bart_seq_2_seq_lm_preprocessor import BartSeq2SeqLMPreprocessor
from tfkit.hub.models.bart.bart_tokenizer import BartTokenizer
from tfkit.hub.models.bert import bert_converter  # noqa: F401  (registers the bert checkpoint converter)
from tfkit.hub.models.bert.bert_backbone import BertBackbone
from tfkit.hub.models.bert.bert_masked_lm import BertMaskedLM
from tfkit.hub.models.bert.bert_masked_lm_preprocessor import BertMaskedLMPreprocessor
from tfkit.hub.models.bert.bert_text_classifier import BertTextClassifier
from tfkit.hub.models.bert.bert_text_classifier_preprocessor import BertTextClassifierPreprocessor
from tfkit.hub.models.bert.bert_text_embedder import BertTextEmbedder
from tfkit.hub.models.bert.bert_text_embedder_preprocessor import BertTextEmbedderPreprocessor
from tfkit.hub.models.bert.bert_tokenizer import BertTokenizer
from tfkit.hub.models.bloom import bloom_converter  # noqa: F401  (registers the bloom checkpoint converter)
from tfkit.hub.models.bloom.bloom_backbone import BloomBackbone
from tfkit.hub.models.bloom.bloom_causal_lm import BloomCausalLM
from tfkit.hub.models.bloom.bloom_causal_lm_preprocessor import BloomCausalLMPreprocessor
from tfkit.hub.models.bloom.bloom_tokenizer import BloomTokenizer
from tfkit.hub.models.causal_lm import CausalLM
from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.clip.clip_backbone import CLIPBackbone
from tfkit.hub.models.clip.clip_preprocessor import CLIPPreprocessor
from tfkit.hub.models.clip.clip_text_encoder import CLIPTextEncoder
from tfkit.hub.models.clip.clip_tokenizer import CLIPTokenizer
from tfkit.hub.models.clip.clip_vision_encoder import CLIPVisionEncoder
from tfkit.hub.models.deberta_v3 import deberta_v3_converter  # noqa: F401  (registers the deberta-v2 converter)
from tfkit.hub.models.deberta_v3.deberta_v3_backbone import DebertaV3Backbone
from tfkit.hub.models.deberta_v3.deberta_v3_masked_lm import DebertaV3MaskedLM
from tfkit.hub.models.deberta_v3.deberta_v3_masked_lm_preprocessor import DebertaV3MaskedLMPreprocessor
from tfkit.hub.models.deberta_v3.deberta_v3_text_classifier import DebertaV3Classifier, DebertaV3TextClassifier
from tfkit.hub.models.deberta_v3.deberta_v3_text_classifier_preprocessor import (
    DebertaV3Preprocessor,
    DebertaV3TextClassifierPreprocessor,
)
from tfkit.hub.models.deberta_v3.deberta_v3_tokenizer import DebertaV3Tokenizer
from tfkit.hub.models.deit import deit_converter  # noqa: F401  (registers the deit checkpoint converter)
from tfkit.hub.models.deit.deit_backbone import DeiTBackbone
from tfkit.hub.models.deit.deit_image_classifier import DeiTImageClassifier
from tfkit.hub.models.deit.deit_image_classifier_preprocessor import DeiTImageClassifierPreprocessor
from tfkit.hub.models.dinov2 import dinov2_converter  # noqa: F401  (registers the dinov2 checkpoint converter)
from tfkit.hub.models.dinov2.dinov2_backbone import DINOV2Backbone
from tfkit.hub.models.distil_bert import distil_bert_converter  # noqa: F401  (registers the distilbert converter)
from tfkit.hub.models.distil_bert.distil_bert_backbone import DistilBertBackbone
from tfkit.hub.models.distil_bert.distil_bert_masked_lm import DistilBertMaskedLM
from tfkit.hub.models.distil_bert.distil_bert_masked_lm_preprocessor import DistilBertMaskedLMPreprocessor
from tfkit.hub.models.distil_bert.distil_bert_text_classifier import DistilBertClassifier, DistilBertTextClassifier
from tfkit.hub.models.distil_bert.distil_bert_text_classifier_preprocessor import (
    DistilBertPreprocessor,
    DistilBertTextClassifierPreprocessor,
)
from tfkit.hub.models.distil_bert.distil_bert_tokenizer import DistilBertTokenizer
from tfkit.hub.models.efficientnet.efficientnet_backbone import EfficientNetBackbone
from tfkit.hub.models.efficientnet.efficientnet_image_classifier import EfficientNetImageClassifier
from tfkit.hub.models.efficientnet.efficientnet_image_classifier_preprocessor import (
    EfficientNetImageClassifierPreprocessor,
)
from tfkit.hub.models.electra.electra_backbone import ElectraBackbone
from tfkit.hub.models.electra.electra_tokenizer import ElectraTokenizer
from tfkit.hub.models.f_net.f_net_backbone import FNetBackbone
from tfkit.hub.models.f_net.f_net_masked_lm import FNetMaskedLM
from tfkit.hub.models.f_net.f_net_masked_lm_preprocessor import FNetMaskedLMPreprocessor
from tfkit.hub.models.f_net.f_net_text_classifier import FNetClassifier, FNetTextClassifier
from tfkit.hub.models.f_net.f_net_text_classifier_preprocessor import FNetPreprocessor, FNetTextClassifierPreprocessor
from tfkit.hub.models.f_net.f_net_tokenizer import FNetTokenizer
from tfkit.hub.models.falcon import falcon_converter  # noqa: F401  (registers the falcon checkpoint converter)
from tfkit.hub.models.falcon.falcon_backbone import FalconBackbone
from tfkit.hub.models.falcon.falcon_causal_lm import FalconCausalLM
from tfkit.hub.models.falcon.falcon_causal_lm_preprocessor import FalconCausalLMPreprocessor
from tfkit.hub.models.falcon.falcon_tokenizer import FalconTokenizer
from tfkit.hub.models.gemma import gemma_converter  # noqa: F401  (registers the gemma and gemma2 converters)
from tfkit.hub.models.gemma.gemma_backbone import GemmaBackbone
from tfkit.hub.models.gemma.gemma_causal_lm import GemmaCausalLM
from tfkit.hub.models.gemma.gemma_causal_lm_preprocessor import GemmaCausalLMPreprocessor
from tfkit.hub.models.gemma.gemma_tokenizer import GemmaTokenizer
from tfkit.hub.models.gemma3 import gemma3_converter  # noqa: F401  (registers the gemma3 and gemma3_text converters)
from tfkit.hub.models.gemma3.gemma3_backbone import Gemma3Backbone
from tfkit.hub.models.gemma3.gemma3_causal_lm import Gemma3CausalLM
from tfkit.hub.models.gemma3.gemma3_causal_lm_preprocessor import Gemma3CausalLMPreprocessor
from tfkit.hub.models.gemma3.gemma3_text_embedder import Gemma3TextEmbedder
from tfkit.hub.models.gemma3.gemma3_text_embedder_preprocessor import Gemma3TextEmbedderPreprocessor
from tfkit.hub.models.gemma3.gemma3_tokenizer import Gemma3Tokenizer
from tfkit.hub.models.gemma3.gemma3_vision_encoder import Gemma3VisionEncoder
from tfkit.hub.models.gpt2 import gpt2_converter  # noqa: F401  (registers the gpt2 checkpoint converter)
from tfkit.hub.models.gpt2.gpt2_backbone import GPT2Backbone
from tfkit.hub.models.gpt2.gpt2_causal_lm import GPT2CausalLM
from tfkit.hub.models.gpt2.gpt2_causal_lm_preprocessor import GPT2CausalLMPreprocessor
from tfkit.hub.models.gpt2.gpt2_preprocessor import GPT2Preprocessor
from tfkit.hub.models.gpt2.gpt2_tokenizer import GPT2Tokenizer
from tfkit.hub.models.gpt_neo_x import gpt_neo_x_converter  # noqa: F401  (registers the gpt_neox converter)
from tfkit.hub.models.gpt_neo_x.gpt_neo_x_backbone import GPTNeoXBackbone
from tfkit.hub.models.gpt_neo_x.gpt_neo_x_causal_lm import GPTNeoXCausalLM
from tfkit.hub.models.gpt_neo_x.gpt_neo_x_causal_lm_preprocessor import GPTNeoXCausalLMPreprocessor
from tfkit.hub.models.gpt_neo_x.gpt_neo_x_tokenizer import GPTNeoXTokenizer
from tfkit.hub.models.gpt_oss import gpt_oss_converter  # noqa: F401  (registers the gpt_oss checkpoint converter)
from tfkit.hub.models.gpt_oss.gpt_oss_backbone import GptOssBackbone
from tfkit.hub.models.gpt_oss.gpt_oss_causal_lm import GptOssCausalLM
from tfkit.hub.models.gpt_oss.gpt_oss_causal_lm_preprocessor import GptOssCausalLMPreprocessor
from tfkit.hub.models.gpt_oss.gpt_oss_tokenizer import GptOssTokenizer
from tfkit.hub.models.image_classifier import ImageClassifier
from tfkit.hub.models.image_classifier_preprocessor import ImageClassifierPreprocessor
from tfkit.hub.models.llama.llama_backbone import LlamaBackbone
from tfkit.hub.models.llama.llama_causal_lm import LlamaCausalLM
from tfkit.hub.models.llama.llama_causal_lm_preprocessor import LlamaCausalLMPreprocessor
from tfkit.hub.models.llama.llama_tokenizer import LlamaTokenizer
from tfkit.hub.models.llama3 import llama3_converter  # noqa: F401  (registers the llama checkpoint converter)
from tfkit.hub.models.llama3.llama3_backbone import Llama3Backbone
from tfkit.hub.models.llama3.llama3_causal_lm import Llama3CausalLM
from tfkit.hub.models.llama3.llama3_causal_lm_preprocessor import Llama3CausalLMPreprocessor
from tfkit.hub.models.llama3.llama3_tokenizer import Llama3Tokenizer
from tfkit.hub.models.masked_lm import MaskedLM
from tfkit.hub.models.masked_lm_preprocessor import MaskedLMPreprocessor
from tfkit.hub.models.mistral import mistral_converter  # noqa: F401  (registers the mistral checkpoint converter)
from tfkit.hub.models.mistral.mistral_backbone import MistralBackbone
from tfkit.hub.models.mistral.mistral_causal_lm import MistralCausalLM
from tfkit.hub.models.mistral.mistral_causal_lm_preprocessor import MistralCausalLMPreprocessor
from tfkit.hub.models.mistral.mistral_tokenizer import MistralTokenizer
from tfkit.hub.models.mixtral import mixtral_converter  # noqa: F401  (registers the mixtral checkpoint converter)
from tfkit.hub.models.mixtral.mixtral_backbone import MixtralBackbone
from tfkit.hub.models.mixtral.mixtral_causal_lm import MixtralCausalLM
from tfkit.hub.models.mixtral.mixtral_causal_lm_preprocessor import MixtralCausalLMPreprocessor
from tfkit.hub.models.mixtral.mixtral_tokenizer import MixtralTokenizer
from tfkit.hub.models.mobilenet.mobilenet_backbone import MobileNetBackbone
from tfkit.hub.models.mobilenet.mobilenet_image_classifier import MobileNetImageClassifier
from tfkit.hub.models.mobilenet.mobilenet_image_classifier_preprocessor import MobileNetImageClassifierPreprocessor
from tfkit.hub.models.moonshine.moonshine_audio_to_text import MoonshineAudioToText
from tfkit.hub.models.moonshine.moonshine_audio_to_text_preprocessor import MoonshineAudioToTextPreprocessor
from tfkit.hub.models.moonshine.moonshine_backbone import MoonshineBackbone
from tfkit.hub.models.moonshine.moonshine_tokenizer import MoonshineTokenizer
from tfkit.hub.models.opt import opt_converter  # noqa: F401  (registers the opt checkpoint converter)
from tfkit.hub.models.opt.opt_backbone import OPTBackbone
from tfkit.hub.models.opt.opt_causal_lm import OPTCausalLM
from tfkit.hub.models.opt.opt_causal_lm_preprocessor import OPTCausalLMPreprocessor
from tfkit.hub.models.opt.opt_tokenizer import OPTTokenizer
from tfkit.hub.models.pali_gemma import pali_gemma_converter  # noqa: F401  (registers the paligemma converter)
from tfkit.hub.models.pali_gemma.pali_gemma_backbone import PaliGemmaBackbone
from tfkit.hub.models.pali_gemma.pali_gemma_causal_lm import PaliGemmaCausalLM
from tfkit.hub.models.pali_gemma.pali_gemma_causal_lm_preprocessor import PaliGemmaCausalLMPreprocessor
from tfkit.hub.models.pali_gemma.pali_gemma_tokenizer import PaliGemmaTokenizer
from tfkit.hub.models.phi3 import phi3_converter  # noqa: F401  (registers the phi3 checkpoint converter)
from tfkit.hub.models.phi3.phi3_backbone import Phi3Backbone
from tfkit.hub.models.phi3.phi3_causal_lm import Phi3CausalLM
from tfkit.hub.models.phi3.phi3_causal_lm_preprocessor import Phi3CausalLMPreprocessor
from tfkit.hub.models.phi3.phi3_tokenizer import Phi3Tokenizer
from tfkit.hub.models.preprocessor import Preprocessor
from tfkit.hub.models.qwen import qwen_converter  # noqa: F401  (registers the qwen2 checkpoint converter)
from tfkit.hub.models.qwen.qwen_backbone import QwenBackbone
from tfkit.hub.models.qwen.qwen_causal_lm import QwenCausalLM
from tfkit.hub.models.qwen.qwen_causal_lm_preprocessor import QwenCausalLMPreprocessor
from tfkit.hub.models.qwen.qwen_tokenizer import QwenTokenizer
from tfkit.hub.models.qwen3 import qwen3_converter  # noqa: F401  (registers the qwen3 checkpoint converter)
from tfkit.hub.models.qwen3.qwen3_backbone import Qwen3Backbone
from tfkit.hub.models.qwen3.qwen3_causal_lm import Qwen3CausalLM
from tfkit.hub.models.qwen3.qwen3_causal_lm_preprocessor import Qwen3CausalLMPreprocessor
from tfkit.hub.models.qwen3.qwen3_text_embedder import Qwen3TextEmbedder
from tfkit.hub.models.qwen3.qwen3_text_embedder_preprocessor import Qwen3TextEmbedderPreprocessor
from tfkit.hub.models.qwen3.qwen3_tokenizer import Qwen3Tokenizer
from tfkit.hub.models.qwen3_moe import qwen3_moe_converter  # noqa: F401  (registers the qwen3_moe converter)
from tfkit.hub.models.qwen3_moe.qwen3_moe_backbone import Qwen3MoeBackbone
from tfkit.hub.models.qwen3_moe.qwen3_moe_causal_lm import Qwen3MoeCausalLM
from tfkit.hub.models.qwen3_moe.qwen3_moe_causal_lm_preprocessor import Qwen3MoeCausalLMPreprocessor
from tfkit.hub.models.qwen3_moe.qwen3_moe_tokenizer import Qwen3MoeTokenizer
from tfkit.hub.models.qwen_moe import qwen_moe_converter  # noqa: F401  (registers the qwen2_moe converter)
from tfkit.hub.models.qwen_moe.qwen_moe_backbone import QwenMoeBackbone
from tfkit.hub.models.qwen_moe.qwen_moe_causal_lm import QwenMoeCausalLM
from tfkit.hub.models.qwen_moe.qwen_moe_causal_lm_preprocessor import QwenMoeCausalLMPreprocessor
from tfkit.hub.models.qwen_moe.qwen_moe_tokenizer import QwenMoeTokenizer
from tfkit.hub.models.resnet.resnet_backbone import ResNetBackbone
from tfkit.hub.models.resnet.resnet_image_classifier import ResNetImageClassifier
from tfkit.hub.models.resnet.resnet_image_classifier_preprocessor import ResNetImageClassifierPreprocessor
from tfkit.hub.models.roberta import roberta_converter  # noqa: F401  (registers the roberta checkpoint converter)
from tfkit.hub.models.roberta.roberta_backbone import RobertaBackbone
from tfkit.hub.models.roberta.roberta_masked_lm import RobertaMaskedLM
from tfkit.hub.models.roberta.roberta_masked_lm_preprocessor import RobertaMaskedLMPreprocessor
from tfkit.hub.models.roberta.roberta_text_classifier import RobertaClassifier, RobertaTextClassifier
from tfkit.hub.models.roberta.roberta_text_classifier_preprocessor import (
    RobertaPreprocessor,
    RobertaTextClassifierPreprocessor,
)
from tfkit.hub.models.roberta.roberta_tokenizer import RobertaTokenizer
from tfkit.hub.models.seq_2_seq_lm import Seq2SeqLM
from tfkit.hub.models.seq_2_seq_lm_preprocessor import Seq2SeqLMPreprocessor
from tfkit.hub.models.siglip.siglip_backbone import SigLIPBackbone
from tfkit.hub.models.siglip.siglip_preprocessor import SigLIPPreprocessor
from tfkit.hub.models.siglip.siglip_text_encoder import SigLIPTextEncoder
from tfkit.hub.models.siglip.siglip_tokenizer import SigLIPTokenizer
from tfkit.hub.models.siglip.siglip_vision_encoder import SigLIPVisionEncoder
from tfkit.hub.models.smollm3 import smollm3_converter  # noqa: F401  (registers the smollm3 checkpoint converter)
from tfkit.hub.models.smollm3.smollm3_backbone import SmolLM3Backbone, SmolLMBackbone
from tfkit.hub.models.smollm3.smollm3_causal_lm import SmolLM3CausalLM, SmolLMCausalLM
from tfkit.hub.models.smollm3.smollm3_causal_lm_preprocessor import (
    SmolLM3CausalLMPreprocessor,
    SmolLMCausalLMPreprocessor,
)
from tfkit.hub.models.smollm3.smollm3_tokenizer import SmolLM3Tokenizer, SmolLMTokenizer
from tfkit.hub.models.swin_transformer import swin_transformer_converter  # noqa: F401  (registers the swin converter)
from tfkit.hub.models.swin_transformer.swin_transformer_backbone import SwinTransformerBackbone
from tfkit.hub.models.swin_transformer.swin_transformer_image_classifier import SwinTransformerImageClassifier
from tfkit.hub.models.swin_transformer.swin_transformer_image_classifier_preprocessor import (
    SwinTransformerImageClassifierPreprocessor,
)
from tfkit.hub.models.t5 import t5_converter  # noqa: F401  (registers the t5 checkpoint converter)
from tfkit.hub.models.t5.t5_backbone import T5Backbone
from tfkit.hub.models.t5.t5_preprocessor import T5Preprocessor
from tfkit.hub.models.t5.t5_seq_2_seq_lm import T5Seq2SeqLM
from tfkit.hub.models.t5.t5_seq_2_seq_lm_preprocessor import T5Seq2SeqLMPreprocessor
from tfkit.hub.models.t5.t5_tokenizer import T5Tokenizer
from tfkit.hub.models.t5gemma import t5gemma_converter  # noqa: F401  (registers the t5gemma checkpoint converter)
from tfkit.hub.models.t5gemma.t5gemma_backbone import T5GemmaBackbone
from tfkit.hub.models.t5gemma.t5gemma_seq_2_seq_lm import T5GemmaSeq2SeqLM
from tfkit.hub.models.t5gemma.t5gemma_seq_2_seq_lm_preprocessor import T5GemmaSeq2SeqLMPreprocessor
from tfkit.hub.models.t5gemma.t5gemma_tokenizer import T5GemmaTokenizer
from tfkit.hub.models.task import Task
from tfkit.hub.models.text_classifier import TextClassifier
from tfkit.hub.models.text_classifier_preprocessor import TextClassifierPreprocessor
from tfkit.hub.models.text_embedder import TextEmbedder
from tfkit.hub.models.text_embedder_preprocessor import TextEmbedderPreprocessor
from tfkit.hub.models.vit import vit_converter  # noqa: F401  (registers the vit checkpoint converter)
from tfkit.hub.models.vit.vit_backbone import ViTBackbone
from tfkit.hub.models.vit.vit_image_classifier import ViTImageClassifier
from tfkit.hub.models.vit.vit_image_classifier_preprocessor import ViTImageClassifierPreprocessor
from tfkit.hub.models.whisper.whisper_audio_to_text import WhisperAudioToText
from tfkit.hub.models.whisper.whisper_audio_to_text_preprocessor import WhisperAudioToTextPreprocessor
from tfkit.hub.models.whisper.whisper_backbone import WhisperBackbone
from tfkit.hub.models.whisper.whisper_tokenizer import WhisperTokenizer
from tfkit.hub.models.xlm_roberta import xlm_roberta_converter  # noqa: F401  (registers the xlm-roberta converter)
from tfkit.hub.models.xlm_roberta.xlm_roberta_backbone import XLMRobertaBackbone
from tfkit.hub.models.xlm_roberta.xlm_roberta_masked_lm import XLMRobertaMaskedLM
from tfkit.hub.models.xlm_roberta.xlm_roberta_masked_lm_preprocessor import XLMRobertaMaskedLMPreprocessor
from tfkit.hub.models.xlm_roberta.xlm_roberta_text_classifier import XLMRobertaClassifier, XLMRobertaTextClassifier
from tfkit.hub.models.xlm_roberta.xlm_roberta_text_classifier_preprocessor import (
    XLMRobertaPreprocessor,
    XLMRobertaTextClassifierPreprocessor,
)
from tfkit.hub.models.xlm_roberta.xlm_roberta_text_embedder import XLMRobertaTextEmbedder
from tfkit.hub.models.xlm_roberta.xlm_roberta_text_embedder_preprocessor import XLMRobertaTextEmbedderPreprocessor
from tfkit.hub.models.xlm_roberta.xlm_roberta_tokenizer import XLMRobertaTokenizer
from tfkit.hub.tokenizers.tokenizer import Tokenizer

# KerasHub's other names of the same classes (keras_hub.models.Qwen2Backbone is QwenBackbone, and so on)
Qwen2Backbone = QwenBackbone
Qwen2Tokenizer = QwenTokenizer
Qwen2CausalLMPreprocessor = QwenCausalLMPreprocessor
Qwen2CausalLM = QwenCausalLM
BertClassifier = BertTextClassifier
BertPreprocessor = BertTextClassifierPreprocessor
Classifier = TextClassifier

__all__ = [
    "Backbone",
    "Task",
    "Preprocessor",
    "Tokenizer",
    "CausalLM",
    "CausalLMPreprocessor",
    "Seq2SeqLM",
    "Seq2SeqLMPreprocessor",
    "GPT2Backbone",
    "GPT2Tokenizer",
    "GPT2CausalLMPreprocessor",
    "GPT2Preprocessor",
    "GPT2CausalLM",
    "MistralBackbone",
    "MistralTokenizer",
    "MistralCausalLMPreprocessor",
    "MistralCausalLM",
    "MixtralBackbone",
    "MixtralTokenizer",
    "MixtralCausalLMPreprocessor",
    "MixtralCausalLM",
    "GptOssBackbone",
    "GptOssTokenizer",
    "GptOssCausalLMPreprocessor",
    "GptOssCausalLM",
    "Phi3Backbone",
    "Phi3Tokenizer",
    "Phi3CausalLMPreprocessor",
    "Phi3CausalLM",
    "QwenBackbone",
    "QwenTokenizer",
    "QwenCausalLMPreprocessor",
    "QwenCausalLM",
    "Qwen2Backbone",
    "Qwen2Tokenizer",
    "Qwen2CausalLMPreprocessor",
    "Qwen2CausalLM",
    "Qwen3Backbone",
    "Qwen3Tokenizer",
    "Qwen3CausalLMPreprocessor",
    "Qwen3CausalLM",
    "Qwen3TextEmbedderPreprocessor",
    "Qwen3TextEmbedder",
    "QwenMoeBackbone",
    "QwenMoeTokenizer",
    "QwenMoeCausalLMPreprocessor",
    "QwenMoeCausalLM",
    "Qwen3MoeBackbone",
    "Qwen3MoeTokenizer",
    "Qwen3MoeCausalLMPreprocessor",
    "Qwen3MoeCausalLM",
    "SmolLM3Backbone",
    "SmolLM3Tokenizer",
    "SmolLM3CausalLMPreprocessor",
    "SmolLM3CausalLM",
    "SmolLMBackbone",
    "SmolLMTokenizer",
    "SmolLMCausalLMPreprocessor",
    "SmolLMCausalLM",
    "LlamaBackbone",
    "LlamaTokenizer",
    "LlamaCausalLMPreprocessor",
    "LlamaCausalLM",
    "Llama3Backbone",
    "Llama3Tokenizer",
    "Llama3CausalLMPreprocessor",
    "Llama3CausalLM",
    "GemmaBackbone",
    "GemmaTokenizer",
    "GemmaCausalLMPreprocessor",
    "GemmaCausalLM",
    "Gemma3Backbone",
    "Gemma3Tokenizer",
    "Gemma3CausalLMPreprocessor",
    "Gemma3CausalLM",
    "Gemma3TextEmbedderPreprocessor",
    "Gemma3TextEmbedder",
    "Gemma3VisionEncoder",
    "OPTBackbone",
    "OPTTokenizer",
    "OPTCausalLMPreprocessor",
    "OPTCausalLM",
    "PaliGemmaBackbone",
    "PaliGemmaTokenizer",
    "PaliGemmaCausalLMPreprocessor",
    "PaliGemmaCausalLM",
    "GPTNeoXBackbone",
    "GPTNeoXTokenizer",
    "GPTNeoXCausalLMPreprocessor",
    "GPTNeoXCausalLM",
    "BloomBackbone",
    "BloomTokenizer",
    "BloomCausalLMPreprocessor",
    "BloomCausalLM",
    "FalconBackbone",
    "FalconTokenizer",
    "FalconCausalLMPreprocessor",
    "FalconCausalLM",
    "TextClassifier",
    "Classifier",
    "TextClassifierPreprocessor",
    "TextEmbedder",
    "TextEmbedderPreprocessor",
    "MaskedLM",
    "MaskedLMPreprocessor",
    "BertBackbone",
    "BertTokenizer",
    "BertTextClassifierPreprocessor",
    "BertTextClassifier",
    "BertTextEmbedderPreprocessor",
    "BertTextEmbedder",
    "BertMaskedLMPreprocessor",
    "BertMaskedLM",
    "BertClassifier",
    "BertPreprocessor",
    "RobertaBackbone",
    "RobertaTokenizer",
    "RobertaTextClassifierPreprocessor",
    "RobertaTextClassifier",
    "RobertaMaskedLMPreprocessor",
    "RobertaMaskedLM",
    "RobertaClassifier",
    "RobertaPreprocessor",
    "DistilBertBackbone",
    "DistilBertTokenizer",
    "DistilBertTextClassifierPreprocessor",
    "DistilBertTextClassifier",
    "DistilBertMaskedLMPreprocessor",
    "DistilBertMaskedLM",
    "DistilBertClassifier",
    "DistilBertPreprocessor",
    "XLMRobertaBackbone",
    "XLMRobertaTokenizer",
    "XLMRobertaTextClassifierPreprocessor",
    "XLMRobertaTextClassifier",
    "XLMRobertaMaskedLMPreprocessor",
    "XLMRobertaMaskedLM",
    "XLMRobertaClassifier",
    "XLMRobertaPreprocessor",
    "XLMRobertaTextEmbedderPreprocessor",
    "XLMRobertaTextEmbedder",
    "AlbertBackbone",
    "AlbertTokenizer",
    "AlbertTextClassifierPreprocessor",
    "AlbertTextClassifier",
    "AlbertMaskedLMPreprocessor",
    "AlbertMaskedLM",
    "AlbertClassifier",
    "AlbertPreprocessor",
    "ElectraBackbone",
    "ElectraTokenizer",
    "FNetBackbone",
    "FNetTokenizer",
    "FNetTextClassifierPreprocessor",
    "FNetTextClassifier",
    "FNetMaskedLMPreprocessor",
    "FNetMaskedLM",
    "FNetClassifier",
    "FNetPreprocessor",
    "ImageClassifier",
    "ImageClassifierPreprocessor",
    "ViTBackbone",
    "ViTImageClassifierPreprocessor",
    "ViTImageClassifier",
    "CLIPBackbone",
    "CLIPVisionEncoder",
    "CLIPTextEncoder",
    "CLIPTokenizer",
    "CLIPPreprocessor",
    "SigLIPBackbone",
    "SigLIPVisionEncoder",
    "SigLIPTextEncoder",
    "SigLIPTokenizer",
    "SigLIPPreprocessor",
    "DebertaV3Backbone",
    "DebertaV3Tokenizer",
    "DebertaV3TextClassifierPreprocessor",
    "DebertaV3TextClassifier",
    "DebertaV3Preprocessor",
    "DebertaV3Classifier",
    "DebertaV3MaskedLMPreprocessor",
    "DebertaV3MaskedLM",
    "DeiTBackbone",
    "DeiTImageClassifierPreprocessor",
    "DeiTImageClassifier",
    "DINOV2Backbone",
    "ResNetBackbone",
    "ResNetImageClassifierPreprocessor",
    "ResNetImageClassifier",
    "MobileNetBackbone",
    "MobileNetImageClassifierPreprocessor",
    "MobileNetImageClassifier",
    "SwinTransformerBackbone",
    "SwinTransformerImageClassifierPreprocessor",
    "SwinTransformerImageClassifier",
    "EfficientNetBackbone",
    "EfficientNetImageClassifierPreprocessor",
    "EfficientNetImageClassifier",
    "T5Backbone",
    "T5Tokenizer",
    "T5Preprocessor",
    "T5Seq2SeqLMPreprocessor",
    "T5Seq2SeqLM",
    "T5GemmaBackbone",
    "T5GemmaTokenizer",
    "T5GemmaSeq2SeqLMPreprocessor",
    "T5GemmaSeq2SeqLM",
    "BartBackbone",
    "BartTokenizer",
    "BartSeq2SeqLMPreprocessor",
    "BartSeq2SeqLM",
    "AudioToText",
    "AudioToTextPreprocessor",
    "WhisperBackbone",
    "WhisperTokenizer",
    "WhisperAudioToTextPreprocessor",
    "WhisperAudioToText",
    "MoonshineBackbone",
    "MoonshineTokenizer",
    "MoonshineAudioToTextPreprocessor",
    "MoonshineAudioToText",
]
