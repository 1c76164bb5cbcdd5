"""Tiny random RoBERTa, DistilBERT and XLM-RoBERTa presets for tfkit.hub's tests, made by KerasHub itself.

    classifier_folder, masked_lm_folder = roberta_presets(tmp_path)   # one backbone, two task presets
    reference = keras_hub.models.TextClassifier.from_preset(classifier_folder)

Each family's vocabulary covers every test text (RoBERTa's every byte), so the
tokenizers see real text. The Transformers-layout writers give the same
weights under Transformers' tensor names and layouts, with the tokenizer files
Transformers writes (KerasHub has no exporter for these families).
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import TEXTS, byte_level_alphabet, keras, keras_hub
from hub_presets_bert import bert_vocabulary
from tiny_sentence_piece import train_sentence_piece

ROBERTA_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
ROBERTA_MERGES = ["Ġ t", "h e", "Ġt he", "o r", "Ġ a", "e r", "Ġ o", "v er", "Ġo ver", "Ġ f", "o x", "Ġf ox"]
# Transformers' RoBERTa keeps `padding_idx + 1` position rows before the first position
ROBERTA_POSITION_OFFSET = 2


def roberta_vocabulary() -> tuple[dict[str, int], list[str]]:
    """RoBERTa's layout: ``<s> <pad> </s> <unk>``, every byte-level character, a few merges, ``<mask>`` last."""
    vocabulary = {token: i for i, token in enumerate(ROBERTA_SPECIALS)}
    for character in byte_level_alphabet():
        vocabulary.setdefault(character, len(vocabulary))
    for merge in ROBERTA_MERGES:
        vocabulary.setdefault(merge.replace(" ", ""), len(vocabulary))
    vocabulary["<mask>"] = len(vocabulary)
    return vocabulary, list(ROBERTA_MERGES)


def _task_presets(folder, classifier, masked_lm, num_classes):
    """Random visible biases on both heads, then both tasks saved by KerasHub under ``folder``."""
    vocabulary_size = masked_lm.backbone.vocabulary_size
    masked_lm.masked_lm_head._bias.assign(keras.random.normal((vocabulary_size,), seed=1))
    classifier.output_dense.bias.assign(keras.random.normal((num_classes,), seed=2))
    classifier.pooled_dense.bias.assign(keras.random.normal(classifier.pooled_dense.bias.shape, seed=3))
    classifier_folder, masked_lm_folder = os.path.join(folder, "classifier"), os.path.join(folder, "masked_lm")
    classifier.save_to_preset(classifier_folder)
    masked_lm.save_to_preset(masked_lm_folder)
    return classifier_folder, masked_lm_folder


def roberta_presets(folder: str, num_classes: int = 3, sequence_length: int = 12) -> tuple[str, str]:
    """A random RobertaTextClassifier preset and a RobertaMaskedLM preset of the same backbone (2 layers,
    hidden 16), saved by KerasHub under ``folder``; returns their folders."""
    keras.utils.set_random_seed(0)
    vocabulary, merges = roberta_vocabulary()
    tokenizer = keras_hub.models.RobertaTokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.RobertaBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        max_sequence_length=32,
    )
    classifier = keras_hub.models.RobertaTextClassifier(
        backbone,
        num_classes=num_classes,
        preprocessor=keras_hub.models.RobertaTextClassifierPreprocessor(tokenizer, sequence_length=sequence_length),
    )
    masked_lm = keras_hub.models.RobertaMaskedLM(
        backbone,
        preprocessor=keras_hub.models.RobertaMaskedLMPreprocessor(
            tokenizer, sequence_length=sequence_length, mask_selection_length=4
        ),
    )
    return _task_presets(folder, classifier, masked_lm, num_classes)


def _save_tensors(tensors: dict, folder: str) -> None:
    from safetensors.numpy import save_file

    arrays = {key: np.ascontiguousarray(np.asarray(value, dtype="float32")) for key, value in tensors.items()}
    save_file(arrays, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})


def _write_json(folder: str, name: str, value) -> None:
    with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
        json.dump(value, handle, ensure_ascii=False)


def bert_style_layer_tensors(backbone) -> dict:
    """A KerasHub ``TransformerEncoder`` stack's weights under Transformers' BERT-style names
    (``encoder.layer.N.``; RoBERTa's and XLM-RoBERTa's too), ``nn.Linear`` weights output by input."""
    hidden = backbone.hidden_dim
    tensors = {}
    for i, block in enumerate(backbone.transformer_layers):
        layer = f"encoder.layer.{i}."
        attention = block._self_attention_layer
        for name, dense in (
            ("self.query", attention.query_dense),
            ("self.key", attention.key_dense),
            ("self.value", attention.value_dense),
            ("output.dense", attention.output_dense),
        ):
            tensors[f"{layer}attention.{name}.weight"] = np.reshape(np.asarray(dense.kernel), (hidden, hidden)).T
            tensors[f"{layer}attention.{name}.bias"] = np.reshape(np.asarray(dense.bias), (hidden,))
        for name, norm in (
            ("attention.output.LayerNorm", block._self_attention_layer_norm),
            ("output.LayerNorm", block._feedforward_layer_norm),
        ):
            tensors[f"{layer}{name}.weight"] = norm.gamma
            tensors[f"{layer}{name}.bias"] = norm.beta
        for name, dense in (
            ("intermediate.dense", block._feedforward_intermediate_dense),
            ("output.dense", block._feedforward_output_dense),
        ):
            tensors[f"{layer}{name}.weight"] = np.asarray(dense.kernel).T
            tensors[f"{layer}{name}.bias"] = dense.bias
    return tensors


def roberta_style_tensors(backbone, token_type_row=None, prefix: str = "roberta.") -> dict:
    """A KerasHub ``RobertaBackbone``'s (or ``XLMRobertaBackbone``'s) weights as Transformers' ``RobertaModel``
    stores them: two unused position rows first, and a token type embedding of one row, zeros unless
    ``token_type_row`` is given (then taken off every position row, so the sums stay the backbone's)."""
    hidden = backbone.hidden_dim
    positions = np.asarray(backbone.embeddings.position_embedding.position_embeddings)
    row = np.zeros((hidden,), "float32") if token_type_row is None else np.asarray(token_type_row, "float32")
    padded = np.concatenate([np.full((ROBERTA_POSITION_OFFSET, hidden), 7.0, "float32"), positions - row])
    tensors = {
        "embeddings.word_embeddings.weight": backbone.token_embedding.embeddings,
        "embeddings.position_embeddings.weight": padded,
        "embeddings.token_type_embeddings.weight": row[None, :],
        "embeddings.LayerNorm.weight": backbone.embeddings_layer_norm.gamma,
        "embeddings.LayerNorm.bias": backbone.embeddings_layer_norm.beta,
        **bert_style_layer_tensors(backbone),
    }
    return {prefix + key: value for key, value in tensors.items()}


def roberta_style_config(backbone, model_type: str, **fields) -> dict:
    """Transformers' ``config.json`` of a RoBERTa-style backbone."""
    return {
        "model_type": model_type,
        "vocab_size": backbone.vocabulary_size,
        "hidden_size": backbone.hidden_dim,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_heads,
        "intermediate_size": backbone.intermediate_dim,
        "max_position_embeddings": backbone.max_sequence_length + ROBERTA_POSITION_OFFSET,
        "type_vocab_size": 1,
        "pad_token_id": 1,
        "bos_token_id": 0,
        "eos_token_id": 2,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "layer_norm_eps": 1e-5,
        "position_embedding_type": "absolute",
        **fields,
    }


def roberta_transformers_checkpoint(
    backbone, folder: str, token_type_row=None, prefix: str = "roberta.", tokenizer_json: bool = False
) -> str:
    """KerasHub ``backbone``'s weights as a Transformers ``RobertaForMaskedLM``-style checkpoint in ``folder``
    (``prefix`` ``""`` for a ``RobertaModel``'s): ``config.json``, ``model.safetensors``, and the tokenizer files
    Transformers writes (``vocab.json``, ``merges.txt`` with its version line, ``tokenizer_config.json``,
    ``special_tokens_map.json``; ``tokenizer.json`` too, written by the ``tokenizers`` library, when
    ``tokenizer_json``)."""
    os.makedirs(folder, exist_ok=True)
    _save_tensors(roberta_style_tensors(backbone, token_type_row, prefix), folder)
    _write_json(folder, "config.json", roberta_style_config(backbone, "roberta", architectures=["RobertaForMaskedLM"]))
    vocabulary, merges = roberta_vocabulary()
    _write_json(folder, "vocab.json", vocabulary)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as handle:
        handle.write("#version: 0.2\n" + "\n".join(merges) + "\n")
    specials = {
        "bos_token": "<s>",
        "eos_token": "</s>",
        "sep_token": "</s>",
        "cls_token": "<s>",
        "unk_token": "<unk>",
        "pad_token": "<pad>",
        "mask_token": "<mask>",
    }
    _write_json(folder, "special_tokens_map.json", specials)
    _write_json(
        folder,
        "tokenizer_config.json",
        {
            "tokenizer_class": "RobertaTokenizer",
            "add_prefix_space": False,
            "model_max_length": backbone.max_sequence_length,
            **specials,
        },
    )
    if tokenizer_json:
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

        tokenizer = Tokenizer(models.BPE(vocabulary, [tuple(m.split(" ")) for m in merges], unk_token=None))
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tokenizer.decoder = decoders.ByteLevel()
        tokenizer.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
        tokenizer.add_special_tokens(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
        tokenizer.save(os.path.join(folder, "tokenizer.json"))
    return folder


def distil_bert_presets(folder: str, num_classes: int = 3, sequence_length: int = 12) -> tuple[str, str]:
    """A random DistilBertTextClassifier preset and a DistilBertMaskedLM preset of the same backbone (2 layers,
    hidden 16, BERT's test vocabulary), saved by KerasHub under ``folder``; returns their folders."""
    keras.utils.set_random_seed(0)
    vocabulary = bert_vocabulary()
    tokenizer = keras_hub.models.DistilBertTokenizer(vocabulary=vocabulary, lowercase=True)
    backbone = keras_hub.models.DistilBertBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        max_sequence_length=32,
    )
    classifier = keras_hub.models.DistilBertTextClassifier(
        backbone,
        num_classes=num_classes,
        preprocessor=keras_hub.models.DistilBertTextClassifierPreprocessor(tokenizer, sequence_length=sequence_length),
    )
    masked_lm = keras_hub.models.DistilBertMaskedLM(
        backbone,
        preprocessor=keras_hub.models.DistilBertMaskedLMPreprocessor(
            tokenizer, sequence_length=sequence_length, mask_selection_length=4
        ),
    )
    return _task_presets(folder, classifier, masked_lm, num_classes)


def distil_bert_transformers_checkpoint(
    backbone, folder: str, prefix: str = "distilbert.", lowercase: bool = True
) -> str:
    """KerasHub ``backbone``'s weights as a Transformers ``DistilBertForMaskedLM``-style checkpoint in ``folder``
    (``prefix`` ``""`` for a ``DistilBertModel``'s): ``config.json``, ``model.safetensors``, ``vocab.txt`` and
    ``tokenizer_config.json`` (``do_lower_case`` from ``lowercase``)."""
    os.makedirs(folder, exist_ok=True)
    hidden = backbone.hidden_dim
    embeddings = backbone.embeddings
    tensors = {
        "embeddings.word_embeddings.weight": embeddings.token_embedding.embeddings,
        "embeddings.position_embeddings.weight": embeddings.position_embedding.position_embeddings,
        "embeddings.LayerNorm.weight": backbone.embeddings_layer_norm.gamma,
        "embeddings.LayerNorm.bias": backbone.embeddings_layer_norm.beta,
    }
    for i, block in enumerate(backbone.transformer_layers):
        layer = f"transformer.layer.{i}."
        attention = block._self_attention_layer
        for name, dense in (
            ("q_lin", attention.query_dense),
            ("k_lin", attention.key_dense),
            ("v_lin", attention.value_dense),
            ("out_lin", attention.output_dense),
        ):
            tensors[f"{layer}attention.{name}.weight"] = np.reshape(np.asarray(dense.kernel), (hidden, hidden)).T
            tensors[f"{layer}attention.{name}.bias"] = np.reshape(np.asarray(dense.bias), (hidden,))
        for name, dense in (("lin1", block._feedforward_intermediate_dense), ("lin2", block._feedforward_output_dense)):
            tensors[f"{layer}ffn.{name}.weight"] = np.asarray(dense.kernel).T
            tensors[f"{layer}ffn.{name}.bias"] = dense.bias
        for name, norm in (
            ("sa_layer_norm", block._self_attention_layer_norm),
            ("output_layer_norm", block._feedforward_layer_norm),
        ):
            tensors[f"{layer}{name}.weight"] = norm.gamma
            tensors[f"{layer}{name}.bias"] = norm.beta
    _save_tensors({prefix + key: value for key, value in tensors.items()}, folder)
    config = {
        "model_type": "distilbert",
        "architectures": ["DistilBertForMaskedLM"],
        "vocab_size": backbone.vocabulary_size,
        "dim": hidden,
        "n_layers": backbone.num_layers,
        "n_heads": backbone.num_heads,
        "hidden_dim": backbone.intermediate_dim,
        "max_position_embeddings": backbone.max_sequence_length,
        "dropout": 0.1,
        "attention_dropout": 0.1,
        "activation": "gelu",
        "sinusoidal_pos_embds": False,
        "pad_token_id": 0,
    }
    _write_json(folder, "config.json", config)
    _write_json(folder, "tokenizer_config.json", {"do_lower_case": lowercase, "tokenizer_class": "DistilBertTokenizer"})
    with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(bert_vocabulary()) + "\n")
    return folder


XLM_ROBERTA_TRAINING_TEXT = TEXTS + ["the lazy fox talks to the quick dog", "models jump over the brown world"]


def xlm_roberta_proto() -> bytes:
    """A BPE SentencePiece model of about 60 pieces with XLM-RoBERTa's layout: ``<unk>`` 0, ``<s>`` 1, ``</s>`` 2,
    no padding piece (fairseq's ids are built around it by the tokenizer)."""
    return train_sentence_piece(
        XLM_ROBERTA_TRAINING_TEXT * 20,
        model_type="bpe",
        vocab_size=60,
        hard_vocab_limit=False,
        unk_id=0,
        bos_id=1,
        eos_id=2,
        pad_id=-1,
    )


def xlm_roberta_presets(folder: str, num_classes: int = 3, sequence_length: int = 12) -> tuple[str, str]:
    """A random XLMRobertaTextClassifier preset and an XLMRobertaMaskedLM preset of the same backbone (2 layers,
    hidden 16), saved by KerasHub under ``folder``; returns their folders."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.XLMRobertaTokenizer(proto=xlm_roberta_proto())
    backbone = keras_hub.models.XLMRobertaBackbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=2,
        num_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        max_sequence_length=32,
    )
    classifier = keras_hub.models.XLMRobertaTextClassifier(
        backbone,
        num_classes=num_classes,
        preprocessor=keras_hub.models.XLMRobertaTextClassifierPreprocessor(tokenizer, sequence_length=sequence_length),
    )
    masked_lm = keras_hub.models.XLMRobertaMaskedLM(
        backbone,
        preprocessor=keras_hub.models.XLMRobertaMaskedLMPreprocessor(
            tokenizer, sequence_length=sequence_length, mask_selection_length=4
        ),
    )
    return _task_presets(folder, classifier, masked_lm, num_classes)


def xlm_roberta_transformers_checkpoint(backbone, folder: str, token_type_row=None, prefix: str = "roberta.") -> str:
    """KerasHub ``backbone``'s weights as a Transformers ``XLMRobertaForMaskedLM``-style checkpoint in ``folder``
    (``prefix`` ``""`` for an ``XLMRobertaModel``'s; ``token_type_row`` as for RoBERTa): ``config.json``,
    ``model.safetensors``, ``sentencepiece.bpe.model``, ``tokenizer_config.json`` and
    ``special_tokens_map.json``."""
    os.makedirs(folder, exist_ok=True)
    _save_tensors(roberta_style_tensors(backbone, token_type_row, prefix), folder)
    config = roberta_style_config(backbone, "xlm-roberta", architectures=["XLMRobertaForMaskedLM"])
    _write_json(folder, "config.json", config)
    with open(os.path.join(folder, "sentencepiece.bpe.model"), "wb") as handle:
        handle.write(xlm_roberta_proto())
    specials = {
        "bos_token": "<s>",
        "eos_token": "</s>",
        "sep_token": "</s>",
        "cls_token": "<s>",
        "unk_token": "<unk>",
        "pad_token": "<pad>",
        "mask_token": "<mask>",
    }
    _write_json(folder, "special_tokens_map.json", specials)
    _write_json(folder, "tokenizer_config.json", {"tokenizer_class": "XLMRobertaTokenizer", **specials})
    return folder
