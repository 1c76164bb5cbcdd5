"""Tiny random ALBERT, ELECTRA and FNet presets for tfkit.hub's tests, made by KerasHub itself.

    classifier_folder, masked_lm_folder = albert_presets(tmp_path)   # one backbone, two task presets
    reference = keras_hub.models.TextClassifier.from_preset(classifier_folder)

ALBERT's and FNet's SentencePiece models are trained on the test texts with their
special pieces at the real models' ids (``<pad>`` 0, ``<unk>`` 1, ``[CLS]`` 2,
``[SEP]`` 3, ``[MASK]`` 4); ELECTRA uses BERT's test WordPiece vocabulary. The
Transformers-layout writer gives the same weights under Transformers' tensor names
and layouts, with the tokenizer files Transformers writes.
"""

from __future__ import annotations

import os

import numpy as np
from hub_presets import keras, keras_hub
from hub_presets_bert import bert_vocabulary
from hub_presets_encoders import _save_tensors, _write_json
from hub_presets_gemma import TRAINING_TEXT
from tiny_sentence_piece import train_sentence_piece


def bert_style_proto(vocab_size: int = 60) -> bytes:
    """A unigram SentencePiece model with ALBERT's (and FNet's) layout: ``<pad>`` 0, ``<unk>`` 1, ``[CLS]`` 2,
    ``[SEP]`` 3, ``[MASK]`` 4."""
    return train_sentence_piece(
        TRAINING_TEXT * 20,
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        pad_id=0,
        unk_id=1,
        bos_id=2,
        eos_id=3,
        pad_piece="<pad>",
        unk_piece="<unk>",
        bos_piece="[CLS]",
        eos_piece="[SEP]",
        user_defined_symbols="[MASK]",
    )


def task_presets(folder: str, classifier, masked_lm, num_classes: int) -> tuple[str, str]:
    """Random visible biases on both heads and the backbone's pooler, then both tasks saved by KerasHub under
    ``folder``; returns their folders."""
    backbone = masked_lm.backbone
    masked_lm.masked_lm_head._bias.assign(keras.random.normal((backbone.vocabulary_size,), seed=1))
    classifier.output_dense.bias.assign(keras.random.normal((num_classes,), seed=2))
    backbone.pooled_dense.bias.assign(keras.random.normal(backbone.pooled_dense.bias.shape, seed=3))
    classifier_folder, masked_lm_folder = os.path.join(folder, "classifier"), os.path.join(folder, "masked_lm")
    classifier.save_to_preset(classifier_folder)
    masked_lm.save_to_preset(masked_lm_folder)
    return classifier_folder, masked_lm_folder


def albert_presets(folder: str, num_classes: int = 3, sequence_length: int = 12) -> tuple[str, str]:
    """A random AlbertTextClassifier preset and an AlbertMaskedLM preset of the same backbone (4 layers run by
    2 groups of 2 shared blocks, embeddings 8 wide projected to 16), saved by KerasHub under ``folder``."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.AlbertTokenizer(proto=bert_style_proto())
    backbone = keras_hub.models.AlbertBackbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=4,
        num_heads=2,
        embedding_dim=8,
        hidden_dim=16,
        intermediate_dim=32,
        num_groups=2,
        num_inner_repetitions=2,
        max_sequence_length=32,
    )
    classifier = keras_hub.models.AlbertTextClassifier(
        backbone,
        num_classes=num_classes,
        preprocessor=keras_hub.models.AlbertTextClassifierPreprocessor(tokenizer, sequence_length=sequence_length),
    )
    masked_lm = keras_hub.models.AlbertMaskedLM(
        backbone,
        preprocessor=keras_hub.models.AlbertMaskedLMPreprocessor(
            tokenizer, sequence_length=sequence_length, mask_selection_length=4
        ),
    )
    return task_presets(folder, classifier, masked_lm, num_classes)


def albert_transformers_checkpoint(backbone, folder: str, prefix: str = "albert.") -> str:
    """KerasHub ``backbone``'s weights as a Transformers ``AlbertForPreTraining``-style checkpoint in ``folder``
    (``prefix`` ``""`` for an ``AlbertModel``'s): ``config.json``, ``model.safetensors``, ``spiece.model``,
    ``tokenizer_config.json`` and ``special_tokens_map.json``."""
    os.makedirs(folder, exist_ok=True)
    hidden = backbone.hidden_dim
    norms = {"embeddings.LayerNorm": backbone.embeddings_layer_norm}
    tensors = {
        "embeddings.word_embeddings.weight": backbone.token_embedding.embeddings,
        "embeddings.position_embeddings.weight": backbone.position_embedding.position_embeddings,
        "embeddings.token_type_embeddings.weight": backbone.segment_embedding.embeddings,
        "encoder.embedding_hidden_mapping_in.weight": np.asarray(backbone.embeddings_projection.kernel).T,
        "encoder.embedding_hidden_mapping_in.bias": backbone.embeddings_projection.bias,
        "pooler.weight": np.asarray(backbone.pooled_dense.kernel).T,
        "pooler.bias": backbone.pooled_dense.bias,
    }
    for g, group in enumerate(backbone.transformer_layers):
        for i, block in enumerate(group):
            layer = f"encoder.albert_layer_groups.{g}.albert_layers.{i}."
            attention = block._self_attention_layer
            for name, dense in (
                ("query", attention.query_dense),
                ("key", attention.key_dense),
                ("value", attention.value_dense),
                ("dense", attention.output_dense),
            ):
                tensors[f"{layer}attention.{name}.weight"] = np.reshape(np.asarray(dense.kernel), (hidden, hidden)).T
                tensors[f"{layer}attention.{name}.bias"] = np.reshape(np.asarray(dense.bias), (hidden,))
            for name, dense in (
                ("ffn", block._feedforward_intermediate_dense),
                ("ffn_output", block._feedforward_output_dense),
            ):
                tensors[f"{layer}{name}.weight"] = np.asarray(dense.kernel).T
                tensors[f"{layer}{name}.bias"] = dense.bias
            norms[f"{layer}attention.LayerNorm"] = block._self_attention_layer_norm
            norms[f"{layer}full_layer_layer_norm"] = block._feedforward_layer_norm
    for name, norm in norms.items():
        tensors[f"{name}.weight"], tensors[f"{name}.bias"] = norm.gamma, norm.beta
    tensors = {prefix + key: value for key, value in tensors.items()}
    if prefix:  # AlbertForPreTraining's heads, which the backbone has no place for
        tensors["predictions.bias"] = np.zeros((backbone.vocabulary_size,))
        tensors["sop_classifier.classifier.weight"] = np.zeros((2, hidden))
    _save_tensors(tensors, folder)
    config = {
        "model_type": "albert",
        "architectures": ["AlbertForPreTraining"],
        "vocab_size": backbone.vocabulary_size,
        "embedding_size": backbone.embedding_dim,
        "hidden_size": hidden,
        "num_hidden_layers": backbone.num_layers,
        "num_hidden_groups": backbone.num_groups,
        "inner_group_num": backbone.num_inner_repetitions,
        "num_attention_heads": backbone.num_heads,
        "intermediate_size": backbone.intermediate_dim,
        "hidden_act": "gelu_new",
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
        "max_position_embeddings": backbone.max_sequence_length,
        "type_vocab_size": backbone.num_segments,
        "layer_norm_eps": 1e-12,
        "position_embedding_type": "absolute",
        "pad_token_id": 0,
        "bos_token_id": 2,
        "eos_token_id": 3,
    }
    _write_json(folder, "config.json", config)
    with open(os.path.join(folder, "spiece.model"), "wb") as handle:
        handle.write(bert_style_proto())
    specials = {
        "bos_token": "[CLS]",
        "eos_token": "[SEP]",
        "unk_token": "<unk>",
        "sep_token": "[SEP]",
        "pad_token": "<pad>",
        "cls_token": "[CLS]",
        "mask_token": "[MASK]",
    }
    _write_json(folder, "special_tokens_map.json", specials)
    _write_json(
        folder,
        "tokenizer_config.json",
        {
            "tokenizer_class": "AlbertTokenizer",
            "do_lower_case": True,
            "remove_space": True,
            "keep_accents": False,
            **specials,
        },
    )
    return folder


def electra_preset(folder: str, embedding_dim: int = 8) -> str:
    """A random ElectraBackbone preset (2 layers, hidden 16; embeddings ``embedding_dim`` wide, projected when
    narrower) with an ElectraTokenizer of BERT's test vocabulary, saved by KerasHub in ``folder`` (KerasHub 0.32
    has no ELECTRA task)."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.ElectraTokenizer(vocabulary=bert_vocabulary(), lowercase=True)
    backbone = keras_hub.models.ElectraBackbone(
        vocab_size=tokenizer.vocabulary_size(),
        num_layers=2,
        num_heads=2,
        hidden_dim=16,
        embedding_dim=embedding_dim,
        intermediate_dim=32,
        max_sequence_length=32,
    )
    backbone.pooled_dense.bias.assign(keras.random.normal((16,), seed=3))
    backbone.save_to_preset(folder)
    tokenizer.save_to_preset(folder)
    return folder


def f_net_presets(folder: str, num_classes: int = 3, sequence_length: int = 12) -> tuple[str, str]:
    """A random FNetTextClassifier preset and an FNetMaskedLM preset of the same backbone (2 layers, hidden 16),
    saved by KerasHub under ``folder``; returns their folders."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.FNetTokenizer(proto=bert_style_proto())
    backbone = keras_hub.models.FNetBackbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=2,
        hidden_dim=16,
        intermediate_dim=32,
        max_sequence_length=32,
    )
    classifier = keras_hub.models.FNetTextClassifier(
        backbone,
        num_classes=num_classes,
        preprocessor=keras_hub.models.FNetTextClassifierPreprocessor(tokenizer, sequence_length=sequence_length),
    )
    masked_lm = keras_hub.models.FNetMaskedLM(
        backbone,
        preprocessor=keras_hub.models.FNetMaskedLMPreprocessor(
            tokenizer, sequence_length=sequence_length, mask_selection_length=4
        ),
    )
    return task_presets(folder, classifier, masked_lm, num_classes)
