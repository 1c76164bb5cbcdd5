"""Tiny random BERT presets for tfkit.hub's tests, made by KerasHub itself (no downloads).

    classifier_folder, masked_lm_folder = bert_presets(tmp_path)   # one backbone, two task presets
    reference = keras_hub.models.TextClassifier.from_preset(classifier_folder)

The WordPiece vocabulary holds BERT's special tokens, every letter (as a word
start and as a ``##`` continuation) and the words of ``hub_presets.TEXTS``, so
every test text tokenizes without ``[UNK]`` except where a test wants one.
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import keras, keras_hub

SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = ["the", "quick", "brown", "fox", "lazy", "dog", "jump", "over", "hello", "world", "tiny", "model", "talk"]


def bert_vocabulary() -> list[str]:
    """BERT's special tokens, letters, ``##`` letters, a few words and punctuation (lowercase)."""
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    return SPECIAL_TOKENS + letters + ["##" + letter for letter in letters] + WORDS + ["!", "?", ".", ","]


def bert_presets(folder: str, num_classes: int = 3, sequence_length: int = 12) -> tuple[str, str]:
    """A random BertTextClassifier preset and a BertMaskedLM preset of the same backbone (2 layers, hidden 16),
    saved by KerasHub under ``folder``; returns their folders."""
    keras.utils.set_random_seed(0)
    vocabulary = bert_vocabulary()
    tokenizer = keras_hub.models.BertTokenizer(vocabulary=vocabulary, lowercase=True)
    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        max_sequence_length=32,
    )
    classifier = keras_hub.models.BertTextClassifier(
        backbone,
        num_classes=num_classes,
        preprocessor=keras_hub.models.BertTextClassifierPreprocessor(tokenizer, sequence_length=sequence_length),
    )
    masked_lm = keras_hub.models.BertMaskedLM(
        backbone,
        preprocessor=keras_hub.models.BertMaskedLMPreprocessor(
            tokenizer, sequence_length=sequence_length, mask_selection_length=4
        ),
    )
    masked_lm.masked_lm_head._bias.assign(keras.random.normal((len(vocabulary),), seed=1))  # biases that show
    classifier.output_dense.bias.assign(keras.random.normal((num_classes,), seed=2))
    classifier_folder, masked_lm_folder = os.path.join(folder, "classifier"), os.path.join(folder, "masked_lm")
    classifier.save_to_preset(classifier_folder)
    masked_lm.save_to_preset(masked_lm_folder)
    return classifier_folder, masked_lm_folder


def transformers_checkpoint(backbone, folder: str, prefix: str = "", layer_norm: tuple = ("weight", "bias")) -> str:
    """KerasHub ``backbone``'s weights as a Hugging Face Transformers BERT checkpoint in ``folder``, written from
    Transformers' documented ``BertModel`` layout (``nn.Linear`` weights output by input; ``prefix`` ``"bert."``
    as ``BertFor...`` models save it; ``layer_norm`` ``("gamma", "beta")`` as TensorFlow-converted ones do):
    ``config.json``, ``model.safetensors``, ``vocab.txt`` and ``tokenizer_config.json``. KerasHub has no BERT
    exporter."""
    from safetensors.numpy import save_file

    os.makedirs(folder, exist_ok=True)
    hidden = backbone.hidden_dim
    tensors = {}

    def put(key, value):
        tensors[prefix + key] = np.ascontiguousarray(np.asarray(value, dtype="float32"))

    def put_norm(key, norm):
        put(f"{key}.{layer_norm[0]}", norm.gamma)
        put(f"{key}.{layer_norm[1]}", norm.beta)

    put("embeddings.word_embeddings.weight", backbone.token_embedding.embeddings)
    put("embeddings.position_embeddings.weight", backbone.position_embedding.position_embeddings)
    put("embeddings.token_type_embeddings.weight", backbone.segment_embedding.embeddings)
    put_norm("embeddings.LayerNorm", backbone.embeddings_layer_norm)
    for i, block in enumerate(backbone.transformer_layers):
        layer = f"encoder.layer.{i}."
        attention = block._self_attention_layer
        for name, dense in (
            ("query", attention.query_dense),
            ("key", attention.key_dense),
            ("value", attention.value_dense),
        ):
            put(f"{layer}attention.self.{name}.weight", np.reshape(np.asarray(dense.kernel), (hidden, hidden)).T)
            put(f"{layer}attention.self.{name}.bias", np.reshape(np.asarray(dense.bias), (hidden,)))
        output = attention.output_dense
        put(f"{layer}attention.output.dense.weight", np.reshape(np.asarray(output.kernel), (hidden, hidden)).T)
        put(f"{layer}attention.output.dense.bias", output.bias)
        put_norm(f"{layer}attention.output.LayerNorm", block._self_attention_layer_norm)
        put(f"{layer}intermediate.dense.weight", np.asarray(block._feedforward_intermediate_dense.kernel).T)
        put(f"{layer}intermediate.dense.bias", block._feedforward_intermediate_dense.bias)
        put(f"{layer}output.dense.weight", np.asarray(block._feedforward_output_dense.kernel).T)
        put(f"{layer}output.dense.bias", block._feedforward_output_dense.bias)
        put_norm(f"{layer}output.LayerNorm", block._feedforward_layer_norm)
    put("pooler.dense.weight", np.asarray(backbone.pooled_dense.kernel).T)
    put("pooler.dense.bias", backbone.pooled_dense.bias)
    save_file(tensors, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
    config = {
        "model_type": "bert",
        "architectures": ["BertModel"],
        "vocab_size": backbone.vocabulary_size,
        "hidden_size": hidden,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_heads,
        "intermediate_size": backbone.intermediate_dim,
        "max_position_embeddings": backbone.max_sequence_length,
        "type_vocab_size": backbone.num_segments,
        "hidden_act": "gelu",
        "layer_norm_eps": 1e-12,
    }
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as handle:
        json.dump({"do_lower_case": True, "tokenizer_class": "BertTokenizer"}, handle)
    with open(os.path.join(folder, "vocab.txt"), "w") as handle:
        handle.write("\n".join(bert_vocabulary()) + "\n")
    return folder
