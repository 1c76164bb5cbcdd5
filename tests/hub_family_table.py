"""Every tfkit.hub family against KerasHub, from one table: presets both ways, checkpoints, greedy ids, training.

    python -m pytest tests/test_hub_families*.py -k mistral      # one family's row

The table and its five tests are here; ``tests/test_hub_families.py``, ``test_hub_families_encoders.py`` and
``test_hub_families_experts.py`` each run them on one group of rows (``GROUPS``), so that workers share them.

Each row names a family's tiny preset, made by KerasHub itself (``hub_presets*``), its task, the inputs its
backbone takes and the writer of a Transformers-layout checkpoint of the same weights (where tfkit.hub has a
converter). For every row tfkit must load the preset with KerasHub's float32 numbers and weight paths,
generate KerasHub's greedy ids and texts (decoders, and encoder-decoders from token ids and from text
pairs), save a preset KerasHub loads with the same numbers, read the Transformers checkpoint with the same
numbers, and take one training step on raw strings (images for the vision rows, text pairs for the
encoder-decoders) from KerasHub's loss. What only one family has (sliding windows, soft caps, images beside
text, special tokens...) is tested in that family's own file. Each family's preset and models are built once per
module; KerasHub runs eagerly, which is faster here than tracing its small models. The default run checks the
rows of ``EVERY_RUN``, one of each mechanism; ``TFKIT_LONG_TESTS=1`` checks every row (the other rows are marked
``long``: most of their families' own files check them against KerasHub in the default run too).

    TFKIT_LONG_TESTS=1 python -m pytest tests/test_hub_families*.py      # every check of every row
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from typing import Callable

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, gpt2_preset, keras, keras_hub
from hub_presets_bart import bart_preset, bart_transformers_checkpoint
from hub_presets_bert import bert_presets, transformers_checkpoint
from hub_presets_deberta_smollm3 import (
    DEBERTA_V3_INPUTS,
    deberta_v3_presets,
    deberta_v3_transformers_checkpoint,
    smollm3_preset,
    smollm3_transformers_checkpoint,
)
from hub_presets_decoders2 import (
    bloom_preset,
    bloom_transformers_checkpoint,
    falcon_preset,
    falcon_transformers_checkpoint,
    gpt_neo_x_preset,
    gpt_neo_x_transformers_checkpoint,
    opt_preset,
    opt_transformers_checkpoint,
)
from hub_presets_encoders import (
    distil_bert_presets,
    distil_bert_transformers_checkpoint,
    roberta_presets,
    roberta_transformers_checkpoint,
    xlm_roberta_presets,
    xlm_roberta_transformers_checkpoint,
)
from hub_presets_encoders2 import albert_presets, albert_transformers_checkpoint, f_net_presets
from hub_presets_gemma import gemma3_preset, gemma_preset, transformers_tensors
from hub_presets_gpt_oss import gpt_oss_preset, gpt_oss_transformers_checkpoint
from hub_presets_llama3 import llama3_preset
from hub_presets_mistral import llama_preset, mistral_preset
from hub_presets_mixtral import mixtral_preset, mixtral_transformers_checkpoint
from hub_presets_phi3 import phi3_preset, phi3_transformers_checkpoint
from hub_presets_qwen import WINDOW, qwen3_preset, qwen3_transformers_checkpoint, qwen_preset
from hub_presets_qwen3_moe import (
    qwen3_moe_preset,
    qwen3_moe_transformers_checkpoint,
    qwen_moe_preset,
    qwen_moe_transformers_checkpoint,
)
from hub_presets_t5 import t5_preset, t5_proto, t5_transformers_checkpoint
from hub_presets_t5gemma import t5gemma_preset, t5gemma_transformers_checkpoint
from hub_presets_vision1 import deit_preset, deit_transformers_checkpoint
from hub_presets_vision2 import mobilenet_preset, resnet_preset
from hub_presets_vision3 import efficientnet_preset, swin_preset, swin_transformers_checkpoint
from hub_presets_vit import vit_preset, vit_transformers_checkpoint

import tfkit
import tfkit.hub as tk_hub

# two prompts of 5 and 2 tokens, 12 long: greedy decoding runs past every preset's sliding window (3 to 6)
PROMPTS = {
    "token_ids": np.array([[5, 9, 30, 2, 17] + [0] * 7, [7, 8] + [0] * 10], "int32"),
    "padding_mask": np.array([[1] * 5 + [0] * 7, [1] * 2 + [0] * 10], "int32"),
}
BERT_INPUTS = {
    "token_ids": np.array([[2, 45, 31, 9, 3, 60, 3, 0], [2, 22, 36, 3, 0, 0, 0, 0]], "int32"),
    "segment_ids": np.array([[0, 0, 0, 0, 0, 1, 1, 0], [0, 0, 0, 0, 0, 0, 0, 0]], "int32"),
    "padding_mask": np.array([[1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 0, 0, 0, 0]], "int32"),
}
# RoBERTa, DistilBERT and XLM-RoBERTa: ids within every one's vocabulary (<s>/[CLS] first, padding last)
ENCODER_INPUTS = {
    "token_ids": np.array([[0, 45, 31, 9, 2, 2, 50, 2, 1, 1], [0, 22, 36, 2, 1, 1, 1, 1, 1, 1]], "int32"),
    "padding_mask": np.array([[1] * 8 + [0] * 2, [1] * 4 + [0] * 6], "int32"),
}
# ALBERT and FNet: ids within their SentencePiece vocabulary (42 pieces; [CLS] 2, [SEP] 3, <pad> 0)
SENTENCE_PIECE_ENCODER_INPUTS = {
    "token_ids": np.array([[2, 25, 31, 9, 3, 40, 3, 0], [2, 22, 36, 3, 0, 0, 0, 0]], "int32"),
    "segment_ids": BERT_INPUTS["segment_ids"],
    "padding_mask": BERT_INPUTS["padding_mask"],
}
# the seq2seq rows: encoder ids and decoder prompts of 3 and 2 tokens, 10 long (room to generate past index 7)
T5_INPUTS = {  # T5: </s> 1 ends the encoder's text, the decoder starts at <pad> 0
    "encoder_token_ids": np.array([[5, 9, 21, 7, 30, 1, 0], [11, 4, 1, 0, 0, 0, 0]], "int32"),
    "encoder_padding_mask": np.array([[1] * 6 + [0], [1] * 3 + [0] * 4], "int32"),
    "decoder_token_ids": np.array([[0, 12, 8] + [0] * 7, [0, 6] + [0] * 8], "int32"),
    "decoder_padding_mask": np.array([[1] * 3 + [0] * 7, [1] * 2 + [0] * 8], "int32"),
}
BART_INPUTS = {  # BART: <s> 0 ... </s> 2, <pad> 1; the decoder starts at </s> <s>
    "encoder_token_ids": np.array([[0, 45, 31, 9, 30, 2, 1], [0, 22, 36, 2, 1, 1, 1]], "int32"),
    "encoder_padding_mask": np.array([[1] * 6 + [0], [1] * 4 + [0] * 3], "int32"),
    "decoder_token_ids": np.array([[2, 0, 33] + [1] * 7, [2, 0] + [1] * 8], "int32"),
    "decoder_padding_mask": T5_INPUTS["decoder_padding_mask"],
}
T5GEMMA_INPUTS = {  # T5Gemma: <eos> 1 ends the encoder's text, <pad> 0; the decoder starts at <bos> 2
    "encoder_token_ids": T5_INPUTS["encoder_token_ids"],
    "encoder_padding_mask": T5_INPUTS["encoder_padding_mask"],
    "decoder_token_ids": np.array([[2, 12, 8] + [0] * 7, [2, 6] + [0] * 8], "int32"),
    "decoder_padding_mask": T5_INPUTS["decoder_padding_mask"],
}
PAIRS = {"encoder_text": TEXTS, "decoder_text": ["a lazy", "", "the", "hello world"]}  # decoder prompts, one empty
SEQUENCE_LENGTHS = {"encoder_sequence_length": 12, "decoder_sequence_length": 10}
F_NET_INPUTS = {key: SENTENCE_PIECE_ENCODER_INPUTS[key] for key in ("token_ids", "segment_ids")}  # no padding mask
_RANDOM = np.random.RandomState(0)
IMAGES = _RANDOM.uniform(-1, 1, size=(3, 16, 16, 3)).astype("float32")  # what the ViT backbone takes
IMAGES_32 = _RANDOM.uniform(-1, 1, size=(3, 32, 32, 3)).astype("float32")  # the CNN presets' size
RAW_IMAGES = _RANDOM.randint(0, 256, size=(4, 20, 28, 3)).astype("float32")  # what its preprocessor takes
LABELS = np.array([0, 2, 1, 2])


def _exported(preset: str, theirs, folder: str) -> str:
    """The Transformers checkpoint KerasHub's own exporter writes of ``theirs`` (the preset's task)."""
    theirs.export_to_transformers(folder)
    return folder


def _qwen_exported(preset: str, theirs, folder: str) -> str:
    """KerasHub's Qwen 2 export, with the sliding window it leaves out put back as Transformers writes it."""
    theirs.export_to_transformers(folder)
    path = os.path.join(folder, "config.json")
    config = json.loads(open(path).read())
    config.update(use_sliding_window=True, sliding_window=WINDOW, max_window_layers=0)
    with open(path, "w") as handle:
        json.dump(config, handle)
    return folder


def _gemma2_checkpoint(preset: str, theirs, folder: str) -> str:
    """The Gemma 2 preset's weights in Transformers' ``Gemma2ForCausalLM`` layout (KerasHub exports Gemma 1 only)."""
    from safetensors.numpy import save_file

    backbone = theirs.backbone
    config = {
        "model_type": "gemma2",
        "architectures": ["Gemma2ForCausalLM"],
        "vocab_size": backbone.vocabulary_size,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_query_heads,
        "num_key_value_heads": backbone.num_key_value_heads,
        "hidden_size": backbone.hidden_dim,
        "intermediate_size": backbone.intermediate_dim // 2,
        "head_dim": backbone.head_dim,
        "query_pre_attn_scalar": backbone.head_dim,
        "attn_logit_softcapping": 5.0,
        "final_logit_softcapping": 3.0,
        "sliding_window": 3,
        "rms_norm_eps": 1e-6,
    }
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    save_file(transformers_tensors(backbone), os.path.join(folder, "model.safetensors"))
    return folder


def _bert_checkpoint(preset: str, theirs, folder: str) -> str:
    """BERT's weights as a Transformers ``BertModel`` folder (KerasHub has no BERT exporter)."""
    return transformers_checkpoint(theirs.backbone, folder)


def _roberta_checkpoint(preset: str, theirs, folder: str) -> str:
    """RoBERTa's weights and tokenizer files as a Transformers ``RobertaForMaskedLM``-style folder."""
    return roberta_transformers_checkpoint(theirs.backbone, folder)


def _distil_bert_checkpoint(preset: str, theirs, folder: str) -> str:
    """DistilBERT's weights and tokenizer files as a Transformers ``DistilBertForMaskedLM``-style folder."""
    return distil_bert_transformers_checkpoint(theirs.backbone, folder)


def _xlm_roberta_checkpoint(preset: str, theirs, folder: str) -> str:
    """XLM-RoBERTa's weights and SentencePiece model as a Transformers ``XLMRobertaForMaskedLM``-style folder."""
    return xlm_roberta_transformers_checkpoint(theirs.backbone, folder)


def _opt_checkpoint(preset: str, theirs, folder: str) -> str:
    """OPT's weights and tokenizer files as a Transformers ``OPTForCausalLM`` folder (KerasHub exports none)."""
    return opt_transformers_checkpoint(theirs, folder)


def _gpt_neo_x_checkpoint(preset: str, theirs, folder: str) -> str:
    """GPT-NeoX's weights and tokenizer.json as a Transformers ``GPTNeoXForCausalLM`` folder."""
    return gpt_neo_x_transformers_checkpoint(theirs, folder)


def _bloom_checkpoint(preset: str, theirs, folder: str) -> str:
    """Bloom's weights and tokenizer.json as a Transformers ``BloomForCausalLM`` folder."""
    return bloom_transformers_checkpoint(theirs, folder)


def _falcon_checkpoint(preset: str, theirs, folder: str) -> str:
    """Falcon-RW's weights and tokenizer.json as a Transformers ``FalconForCausalLM`` folder."""
    return falcon_transformers_checkpoint(theirs, folder)


def _albert_checkpoint(preset: str, theirs, folder: str) -> str:
    """ALBERT's weights and SentencePiece model as a Transformers ``AlbertForPreTraining``-style folder."""
    return albert_transformers_checkpoint(theirs.backbone, folder)


def _deit_checkpoint(preset: str, theirs, folder: str) -> str:
    """DeiT's weights as a Transformers ``DeiTForImageClassificationWithTeacher`` folder (KerasHub exports none)."""
    return deit_transformers_checkpoint(theirs, folder)


def _swin_checkpoint(preset: str, theirs, folder: str) -> str:
    """Swin's weights as a Transformers ``SwinForImageClassification`` folder (KerasHub has no Swin exporter)."""
    return swin_transformers_checkpoint(theirs, folder)


def _vit_checkpoint(preset: str, theirs, folder: str) -> str:
    """ViT's weights as a Transformers ``ViTForImageClassification`` folder (KerasHub has no ViT exporter)."""
    return vit_transformers_checkpoint(theirs, folder)


def _qwen3_checkpoint(preset: str, theirs, folder: str) -> str:
    """Qwen 3's weights and tokenizer as a Transformers ``Qwen3ForCausalLM`` folder (KerasHub exports none)."""
    return qwen3_transformers_checkpoint(theirs.backbone, theirs.preprocessor.tokenizer, folder)


def _deberta_v3_checkpoint(preset: str, theirs, folder: str) -> str:
    """DeBERTa-v3's weights as a Transformers ``DebertaV2ForMaskedLM`` folder (KerasHub has no DeBERTa converter)."""
    return deberta_v3_transformers_checkpoint(theirs.backbone, theirs.preprocessor.tokenizer, folder)


def _t5_checkpoint(preset: str, theirs, folder: str) -> str:
    """T5's weights and spiece.model as a Transformers ``T5ForConditionalGeneration`` folder (KerasHub reads none)."""
    return t5_transformers_checkpoint(theirs.backbone, t5_proto(), folder)


def _bart_checkpoint(preset: str, theirs, folder: str) -> str:
    """BART's weights and tokenizer files as a Transformers ``BartForConditionalGeneration`` folder."""
    return bart_transformers_checkpoint(theirs.backbone, folder)


def _smollm3_checkpoint(preset: str, theirs, folder: str) -> str:
    """SmolLM3's weights and tokenizer as a Transformers ``SmolLM3ForCausalLM`` folder (KerasHub exports none)."""
    return smollm3_transformers_checkpoint(theirs.backbone, theirs.preprocessor.tokenizer, folder)


@dataclasses.dataclass(frozen=True)
class Family:
    """One row: a family's preset maker, class-name prefix, task and inputs, and its checkpoint writer."""

    name: str
    make: Callable[[str], str]
    prefix: str
    task: str  # the tfkit.hub.models / keras_hub.models task class the preset holds
    inputs: dict | np.ndarray
    checkpoint: Callable | None  # (preset, KerasHub's task, folder) -> a Transformers checkpoint folder
    task_atol: float = 1e-5  # the tightest that holds for the task's outputs (the backbone's is 1e-5)

    @property
    def decoder(self) -> bool:
        """Whether the task generates (a decoder-only CausalLM or an encoder-decoder Seq2SeqLM)."""
        return self.task in ("CausalLM", "Seq2SeqLM")

    @property
    def seq2seq(self) -> bool:
        return self.task == "Seq2SeqLM"

    @property
    def generated(self) -> tuple[str, str]:
        """The keys of the ids generation extends and of their padding mask."""
        return ("decoder_token_ids", "decoder_padding_mask") if self.seq2seq else ("token_ids", "padding_mask")


FAMILIES = [
    Family("gpt2", gpt2_preset, "GPT2", "CausalLM", PROMPTS, _exported),
    Family("bert", lambda folder: bert_presets(folder)[0], "Bert", "TextClassifier", BERT_INPUTS, _bert_checkpoint),
    Family(
        "roberta", lambda f: roberta_presets(f)[0], "Roberta", "TextClassifier", ENCODER_INPUTS, _roberta_checkpoint
    ),
    Family(
        "distil_bert",
        lambda f: distil_bert_presets(f)[0],
        "DistilBert",
        "TextClassifier",
        ENCODER_INPUTS,
        _distil_bert_checkpoint,
    ),
    Family(
        "xlm_roberta",
        lambda f: xlm_roberta_presets(f)[0],
        "XLMRoberta",
        "TextClassifier",
        ENCODER_INPUTS,
        _xlm_roberta_checkpoint,
    ),
    Family(
        "albert",
        lambda f: albert_presets(f)[0],
        "Albert",
        "TextClassifier",
        SENTENCE_PIECE_ENCODER_INPUTS,
        _albert_checkpoint,
    ),
    Family("f_net", lambda f: f_net_presets(f)[0], "FNet", "TextClassifier", F_NET_INPUTS, None),  # no converter
    Family(
        "deberta_v3",
        lambda f: deberta_v3_presets(f)[0],
        "DebertaV3",
        "TextClassifier",
        DEBERTA_V3_INPUTS,
        _deberta_v3_checkpoint,
    ),
    Family("vit", vit_preset, "ViT", "ImageClassifier", IMAGES, _vit_checkpoint),
    Family("deit", deit_preset, "DeiT", "ImageClassifier", IMAGES, _deit_checkpoint),
    # no Transformers converter in KerasHub 0.32 for either (its ResNet and MobileNet converters read timm's)
    Family(
        "resnet", lambda folder: resnet_preset(folder, "v2_bottleneck"), "ResNet", "ImageClassifier", IMAGES_32, None
    ),
    Family("mobilenet", mobilenet_preset, "MobileNet", "ImageClassifier", IMAGES_32, None),
    Family("swin_transformer", swin_preset, "SwinTransformer", "ImageClassifier", IMAGES, _swin_checkpoint),
    Family("efficientnet", efficientnet_preset, "EfficientNet", "ImageClassifier", IMAGES_32, None),  # no converter
    Family("gemma", gemma_preset, "Gemma", "CausalLM", PROMPTS, _gemma2_checkpoint),
    Family("gemma3", gemma3_preset, "Gemma3", "CausalLM", PROMPTS, _exported),
    Family("llama", llama_preset, "Llama", "CausalLM", PROMPTS, None),  # KerasHub exports no Llama 2
    Family("llama3", llama3_preset, "Llama3", "CausalLM", PROMPTS, _exported),
    Family("mistral", mistral_preset, "Mistral", "CausalLM", PROMPTS, _exported),
    Family("opt", opt_preset, "OPT", "CausalLM", PROMPTS, _opt_checkpoint),
    Family("gpt_neo_x", gpt_neo_x_preset, "GPTNeoX", "CausalLM", PROMPTS, _gpt_neo_x_checkpoint),
    Family("bloom", bloom_preset, "Bloom", "CausalLM", PROMPTS, _bloom_checkpoint),
    Family("falcon", falcon_preset, "Falcon", "CausalLM", PROMPTS, _falcon_checkpoint),
    Family("phi3", phi3_preset, "Phi3", "CausalLM", PROMPTS, phi3_transformers_checkpoint),
    Family("mixtral", mixtral_preset, "Mixtral", "CausalLM", PROMPTS, mixtral_transformers_checkpoint),
    Family("gpt_oss", gpt_oss_preset, "GptOss", "CausalLM", PROMPTS, gpt_oss_transformers_checkpoint),
    Family("qwen", qwen_preset, "Qwen", "CausalLM", PROMPTS, _qwen_exported),
    Family("qwen3", qwen3_preset, "Qwen3", "CausalLM", PROMPTS, _qwen3_checkpoint),
    Family("smollm3", smollm3_preset, "SmolLM3", "CausalLM", PROMPTS, _smollm3_checkpoint),
    Family("qwen_moe", qwen_moe_preset, "QwenMoe", "CausalLM", PROMPTS, qwen_moe_transformers_checkpoint),
    Family("qwen3_moe", qwen3_moe_preset, "Qwen3Moe", "CausalLM", PROMPTS, qwen3_moe_transformers_checkpoint),
    Family("t5", t5_preset, "T5", "Seq2SeqLM", T5_INPUTS, _t5_checkpoint),  # T5 1.1's gated feedforward, tied
    Family("bart", bart_preset, "Bart", "Seq2SeqLM", BART_INPUTS, _bart_checkpoint),
    Family("t5gemma", t5gemma_preset, "T5Gemma", "Seq2SeqLM", T5GEMMA_INPUTS, t5gemma_transformers_checkpoint),
]


@dataclasses.dataclass
class Built:
    """A row's preset folder and its task loaded by tfkit (``ours``) and by KerasHub (``theirs``)."""

    family: Family
    preset: str
    ours: object
    theirs: object


def _loaded(models, family: Family, preset: str):
    """``family``'s task from ``preset`` by ``models`` (tfkit's or KerasHub's), with the test's sequence lengths."""
    task = getattr(models, family.task).from_preset(preset)
    if family.seq2seq and task.preprocessor is not None:
        # KerasHub 0.32's Seq2SeqLMPreprocessor writes no lengths in its config: its presets reload with 1024
        for key, length in SEQUENCE_LENGTHS.items():
            setattr(task.preprocessor, key, length)
    return task


# The table's rows in three groups of about equal cost, one test file each (test_hub_families*.py): the suite runs
# whole files per worker, so one file of every row would keep one worker busy for minutes after the others end.
GROUPS = {
    "encoders_and_vision": (
        "bert", "roberta", "distil_bert", "xlm_roberta", "albert", "f_net", "deberta_v3",
        "vit", "deit", "resnet", "mobilenet", "swin_transformer", "efficientnet",
    ),
    "decoders": (
        "gpt2", "gemma", "gemma3", "llama", "llama3", "mistral", "opt", "gpt_neo_x", "bloom", "falcon", "phi3",
        "t5gemma",
    ),
    "experts_qwen_and_seq2seq": (
        "mixtral", "gpt_oss", "qwen", "qwen3", "smollm3", "qwen_moe", "qwen3_moe", "t5", "bart",
    ),
}  # fmt: skip
_GROUPED = sorted(name for names in GROUPS.values() for name in names)
assert _GROUPED == sorted(family.name for family in FAMILIES), "every row of the table is in exactly one group"


# The rows checked in every run of the suite: one a mechanism (absolute positions and byte-level BPE; rotary with
# grouped queries, a sliding window and experts; an encoder's classifier; an image classifier; sequence to
# sequence). Llama 3's and Gemma 3's rows wait for the long mode: their own files (test_hub_llama3.py,
# test_hub_gemma3.py) check the same against KerasHub in every run (generation, a preset both ways, a Transformers
# checkpoint, evaluate's loss), and Mixtral's row runs rotary grouped-query attention.
# Every row runs with TFKIT_LONG_TESTS=1 (docs/contributing.md: before a release, and after changing a family or
# the shared decoding).
EVERY_RUN = ("gpt2", "mixtral", "bert", "vit", "t5")
LONG_ROW = pytest.mark.long(
    reason="a conformance row whose mechanisms an EVERY_RUN row or the family's own file checks"
)


def built_fixture(group: str):
    """The module-scoped `built` fixture of one group's rows: each row's preset made once, loaded by both."""
    rows = [
        pytest.param(family, id=family.name, marks=() if family.name in EVERY_RUN else LONG_ROW)
        for family in FAMILIES
        if family.name in GROUPS[group]
    ]

    @pytest.fixture(scope="module", params=rows)
    def built(request, tmp_path_factory) -> Built:
        family = request.param
        preset = family.make(str(tmp_path_factory.mktemp(family.name)))
        ours = _loaded(tk_hub.models, family, preset)
        theirs = _loaded(keras_hub.models, family, preset)
        if family.decoder:
            ours.compile(sampler="greedy", run_eagerly=True)
            theirs.compile(sampler="greedy", run_eagerly=True)
        return Built(family, preset, ours, theirs)

    return built


def _close(ours, theirs, atol: float) -> None:
    """Every output of ``ours`` (a tensor or a dict of them) within ``atol`` of ``theirs``."""
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs)
        for key in theirs:
            np.testing.assert_allclose(np.asarray(ours[key]), np.asarray(theirs[key]), atol=atol, err_msg=key)
    else:
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), atol=atol)


def _paths(model) -> list[str]:
    # KerasHub leaves the MoE families' feedforward blocks unnamed, so Keras numbers them by how many the process
    # has made (mixtral_sparse_moe_block_3); tfkit names each block's one "mixtral_sparse_moe_block". T5's norms
    # too, and T5Gemma's backbone's two final norms.
    pattern = r"(_sparse_moe_block|_moe_mlp|t5_layer_norm|rms_normalization)_\d+/"
    return [re.sub(pattern, r"\1/", weight.path) for weight in model.weights]


def test_a_keras_hub_preset_loads_as_its_family_with_keras_hubs_numbers_and_weight_paths(built):
    family, ours, theirs = built.family, built.ours, built.theirs
    backbone = tk_hub.models.Backbone.from_preset(built.preset)
    assert type(backbone).__name__ == f"{family.prefix}Backbone"
    assert isinstance(backbone, getattr(tk_hub.models, f"{family.prefix}Backbone"))
    assert (
        type(ours).__name__ == type(theirs).__name__
        and type(ours.preprocessor).__name__ == type(theirs.preprocessor).__name__
    )
    their_config = theirs.backbone.get_config()
    ours_config = json.loads(json.dumps(backbone.get_config()))  # tuples as lists, as in a config.json
    their_config = json.loads(json.dumps({k: v for k, v in their_config.items() if k not in ("name", "dtype")}))
    assert {k: v for k, v in ours_config.items() if k in their_config} == their_config
    _close(backbone(family.inputs), theirs.backbone(family.inputs), atol=1e-5)
    _close(ours(family.inputs), theirs(family.inputs), atol=family.task_atol)
    assert _paths(backbone) == _paths(theirs.backbone)
    assert [tuple(w.shape) for w in backbone.weights] == [tuple(w.shape) for w in theirs.backbone.weights]
    assert _paths(ours) == _paths(theirs)


def _stop_masked(ours: dict, theirs: dict, ids_key: str, mask_key: str) -> None:
    """The same padding masks, and the same ids where KerasHub's are meaningful (before each row's stop)."""
    mask = np.asarray(theirs[mask_key], bool)
    np.testing.assert_array_equal(np.asarray(ours[mask_key], bool), mask)
    np.testing.assert_array_equal(np.where(mask, ours[ids_key], -1), np.where(mask, theirs[ids_key], -1))


def test_greedy_generation_gives_keras_hubs_ids_and_texts(built):
    family, ours, theirs = built.family, built.ours, built.theirs
    if not family.decoder:
        pytest.skip(f"{family.name} does not generate")
    ids_key, mask_key = family.generated  # the (decoder's) prompts: padded rows, room to generate past index 7
    prompts = tf.nest.map_structure(tf.convert_to_tensor, family.inputs)
    preprocessor, ours.preprocessor = ours.preprocessor, None  # token ids in, token ids out
    try:
        generated = ours.generate(dict(family.inputs), stop_token_ids=None)
        # KerasHub's generate_step itself (its Gemma 3 generate needs a preprocessor for token ids)
        reference = theirs.make_generate_function()(prompts, None)
        np.testing.assert_array_equal(generated[ids_key], reference[ids_key])
        stop = (int(reference[ids_key][0, 7]),)  # a token row 0 does generate: it stops there
        stopped = ours.generate(dict(family.inputs), stop_token_ids=stop)
        _stop_masked(stopped, theirs.make_generate_function()(prompts, stop), ids_key, mask_key)
        assert not np.asarray(stopped[mask_key], bool)[0, 8:].any()
    finally:
        ours.preprocessor = preprocessor
    ids = generated[ids_key]  # the cache's steps equal the full pass: each new token its argmax
    logits = np.asarray(ours({**family.inputs, ids_key: ids, mask_key: np.ones_like(ids)}))
    for row, start in enumerate(family.inputs[mask_key].sum(axis=1)):
        np.testing.assert_array_equal(ids[row, start:], logits[row, start - 1 : -1].argmax(-1))

    for text in TEXTS:
        np.testing.assert_array_equal(ours.preprocessor.tokenizer(text), theirs.preprocessor.tokenizer(text))
    if family.seq2seq:  # strings in: decoder prompts, one empty (the decoder starts from its start ids alone)
        texts = ours.generate(PAIRS, max_length=12, stop_token_ids=None)
        assert texts == theirs.generate(PAIRS, max_length=12, stop_token_ids=None)
        # strip_prompt strips the decoder's prompt (KerasHub 0.32 raises KeyError there)
        completions = ours.generate(PAIRS, max_length=12, stop_token_ids=None, strip_prompt=True)
        assert all(text.endswith(completion) for text, completion in zip(texts, completions))
        assert all(len(c) < len(t) for c, t, prompt in zip(completions, texts, PAIRS["decoder_text"]) if prompt)
        return
    strip = {} if family.name == "phi3" else {"strip_prompt": True}  # KerasHub 0.32's Phi-3 has no strip_prompt
    texts = ours.generate(TEXTS, max_length=12, stop_token_ids=None, **strip)
    assert texts == theirs.generate(TEXTS, max_length=12, stop_token_ids=None, **strip)


def test_a_preset_tfkit_saves_loads_in_keras_hub_with_the_same_numbers(built, tmp_path):
    family, ours = built.family, built.ours
    ours.save_to_preset(str(tmp_path))
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["registered_name"] == f"keras_hub>{family.prefix}Backbone" and "build_config" not in config
    assert {"config.json", "metadata.json", "model.weights.h5", "preprocessor.json", "task.json"} <= set(
        os.listdir(tmp_path)
    )
    theirs = getattr(keras_hub.models, family.task).from_preset(str(tmp_path))
    assert type(theirs).__name__ == type(ours).__name__
    if family.seq2seq:  # tfkit writes the sequence lengths (KerasHub 0.32 does not) and KerasHub reads them
        lengths = {key: getattr(theirs.preprocessor, key) for key in SEQUENCE_LENGTHS}
        assert lengths == SEQUENCE_LENGTHS
    _close(theirs.backbone(family.inputs), ours.backbone(family.inputs), atol=1e-5)
    _close(theirs(family.inputs), ours(family.inputs), atol=family.task_atol)
    if family.task != "ImageClassifier":  # the tokenizer came through too
        tokenizer = json.loads((tmp_path / "tokenizer.json").read_text())
        assert tokenizer["registered_name"] == f"keras_hub>{family.prefix}Tokenizer"
        for text in TEXTS:
            np.testing.assert_array_equal(theirs.preprocessor.tokenizer(text), ours.preprocessor.tokenizer(text))
    again = getattr(tk_hub.models, family.task).from_preset(str(tmp_path))  # and tfkit reads its own preset back
    _close(again(family.inputs), ours(family.inputs), atol=0)
    assert again.preprocessor.get_config() == ours.preprocessor.get_config()


def test_a_transformers_checkpoint_of_the_same_weights_loads_with_the_same_numbers(built, tmp_path):
    family, theirs = built.family, built.theirs
    if family.checkpoint is None:
        pytest.skip(f"no Transformers checkpoint writer for {family.name}")
    pytest.importorskip("safetensors")
    folder = family.checkpoint(built.preset, theirs, str(tmp_path / "checkpoint"))
    backbone = tk_hub.models.Backbone.from_preset(folder)
    assert type(backbone).__name__ == f"{family.prefix}Backbone"
    _close(backbone(family.inputs), theirs.backbone(family.inputs), atol=1e-5)
    if family.task == "TextClassifier":  # a BertModel, or an encoder's ...ForMaskedLM: no classification head
        return
    tokenizer_files = {"tokenizer.json", "tokenizer.model", "spiece.model", "vocab.json"} & set(os.listdir(folder))
    preprocessor = {} if tokenizer_files or not family.decoder else {"preprocessor": None}
    ours = getattr(tk_hub.models, family.task).from_preset(folder, **preprocessor)
    assert type(ours).__name__ == type(theirs).__name__
    _close(ours(family.inputs), theirs(family.inputs), atol=family.task_atol)
    if family.decoder and tokenizer_files:  # the tokenizer from the checkpoint's own files
        for text in TEXTS:
            np.testing.assert_array_equal(ours.preprocessor.tokenizer(text), theirs.preprocessor.tokenizer(text))


def _training_data(family: Family) -> tuple:
    if family.task == "ImageClassifier":
        return (RAW_IMAGES, LABELS)
    if family.task == "TextClassifier":
        return (TEXTS, LABELS)
    if family.seq2seq:
        return (PAIRS,)
    return (TEXTS,)


def test_evaluate_gives_keras_hubs_loss_and_one_fit_step_on_raw_data_changes_the_weights(built):
    family, theirs = built.family, built.theirs
    data = _training_data(family)
    if family.name == "gemma3":  # KerasHub's Gemma 3 takes strings as responses with empty prompts
        packed = theirs.preprocessor({"prompts": [""] * len(TEXTS), "responses": TEXTS})
    else:
        packed = theirs.preprocessor(*data)
    x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(packed)
    expected = float(theirs.loss(y, theirs(x), sample_weight=sample_weight))

    trained = _loaded(tk_hub.models, family, built.preset)  # a copy: the fixture's stay as loaded
    trained.compile(optimizer=tfkit.optimizers.Adam(1e-2), run_eagerly=True)
    loss = trained.evaluate(*data, batch_size=len(LABELS), verbose=0, return_dict=True)["loss"]
    np.testing.assert_allclose(loss, expected, rtol=1e-5)
    before = [np.array(w) for w in trained.trainable_weights]
    history = trained.fit(*data, batch_size=len(LABELS), epochs=1, verbose=0)
    assert list(history.history) == ["loss", "sparse_categorical_accuracy"]  # Keras's names for the metrics
    assert np.isfinite(history.history["loss"][0])
    changed = [not np.array_equal(np.asarray(w), b) for w, b in zip(trained.trainable_weights, before)]
    assert sum(changed) > len(changed) // 2, f"{sum(changed)} of {len(changed)} weights changed"
