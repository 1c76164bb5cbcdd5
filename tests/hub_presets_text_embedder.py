"""Tiny random KerasHub text embedder presets (BERT, XLM-RoBERTa, Qwen 3) for tfkit.hub's tests, made by KerasHub.

    folder = bert_text_embedder_preset(tmp_path)         # a BertTextEmbedder preset (mean pooling, normalized)
    reference = keras_hub.models.TextEmbedder.from_preset(folder)

The vocabularies are the families' test ones (``hub_presets_bert``, ``hub_presets_encoders``,
``hub_presets_qwen``); each backbone has 2 layers and hidden size 16, random weights from a fixed seed.
"""

from __future__ import annotations

import os

from hub_presets import keras, keras_hub
from hub_presets_bert import bert_vocabulary
from hub_presets_encoders import xlm_roberta_proto
from hub_presets_qwen import qwen_vocabulary, randomize_weights

SEQUENCE_LENGTH = 12


def _saved(folder: str, embedder) -> str:
    folder = os.path.join(folder, type(embedder).__name__)
    embedder.save_to_preset(folder)
    return folder


def bert_text_embedder_preset(folder: str, **task_arguments) -> str:
    """A random BertTextEmbedder preset saved by KerasHub under ``folder``; returns its folder."""
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
    preprocessor = keras_hub.models.BertTextEmbedderPreprocessor(tokenizer, sequence_length=SEQUENCE_LENGTH)
    return _saved(folder, keras_hub.models.BertTextEmbedder(backbone, preprocessor=preprocessor, **task_arguments))


def xlm_roberta_text_embedder_preset(folder: str, **task_arguments) -> str:
    """A random XLMRobertaTextEmbedder preset saved by KerasHub under ``folder``; returns its folder."""
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
    preprocessor = keras_hub.models.XLMRobertaTextEmbedderPreprocessor(tokenizer, sequence_length=SEQUENCE_LENGTH)
    embedder = keras_hub.models.XLMRobertaTextEmbedder(backbone, preprocessor=preprocessor, **task_arguments)
    return _saved(folder, embedder)


def qwen3_text_embedder_preset(folder: str, **task_arguments) -> str:
    """A random Qwen3TextEmbedder preset (4 query heads of size 8, 2 key/value heads) saved by KerasHub under
    ``folder``; returns its folder."""
    keras.utils.set_random_seed(1)
    vocabulary, merges = qwen_vocabulary("<|im_end|>")
    tokenizer = keras_hub.models.Qwen3Tokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.Qwen3Backbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_query_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        hidden_dim=16,
        intermediate_dim=32,
        layer_norm_epsilon=1e-5,
    )
    randomize_weights(backbone)
    preprocessor = keras_hub.models.Qwen3TextEmbedderPreprocessor(tokenizer, sequence_length=SEQUENCE_LENGTH)
    embedder = keras_hub.models.Qwen3TextEmbedder(backbone, preprocessor=preprocessor, **task_arguments)
    return _saved(folder, embedder)


def sentence_transformers_checkpoint(
    embedder, folder: str, pooling: str, normalize: bool, max_seq_length: int | None = None
) -> str:
    """KerasHub ``embedder``'s backbone as a sentence-transformers folder in ``folder``: the family's Transformers
    checkpoint (``hub_presets_bert``, ``hub_presets_encoders``, ``hub_presets_qwen`` writers) with ``modules.json``
    (a ``Normalize`` module when ``normalize``), ``1_Pooling/config.json`` (``pooling``: ``"cls"``, ``"max"``,
    ``"mean"`` or ``"lasttoken"``) and, with ``max_seq_length``, ``sentence_bert_config.json``, as
    sentence-transformers writes them."""
    import json

    from hub_presets_bert import transformers_checkpoint
    from hub_presets_encoders import xlm_roberta_transformers_checkpoint
    from hub_presets_qwen import qwen3_transformers_checkpoint

    backbone = embedder.backbone
    if isinstance(backbone, keras_hub.models.BertBackbone):
        transformers_checkpoint(backbone, folder)
    elif isinstance(backbone, keras_hub.models.XLMRobertaBackbone):
        xlm_roberta_transformers_checkpoint(backbone, folder)
    else:
        qwen3_transformers_checkpoint(backbone, embedder.preprocessor.tokenizer, folder)
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
    modes = ("cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens", "lasttoken")
    pooling_config = {"word_embedding_dimension": backbone.hidden_dim}
    pooling_config.update({f"pooling_mode_{mode}": mode.startswith(pooling) for mode in modes})
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    files = {"modules.json": modules, "1_Pooling/config.json": pooling_config}
    if max_seq_length is not None:
        files["sentence_bert_config.json"] = {"max_seq_length": max_seq_length, "do_lower_case": False}
    for name, value in files.items():
        with open(os.path.join(folder, name), "w") as handle:
            json.dump(value, handle, indent=2)
    return folder
