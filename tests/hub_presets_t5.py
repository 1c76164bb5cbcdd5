"""Tiny random T5 presets for tfkit.hub's tests, made by KerasHub itself (no downloads).

    folder = t5_preset(tmp_path)                       # a T5Seq2SeqLM preset: gated, tied (T5 1.1's layout but tied)
    reference = keras_hub.models.Seq2SeqLM.from_preset(folder)
    folder = t5_preset(tmp_path, gated=False, tied=False)   # T5 1.0's feedforward, an untied head

The SentencePiece model is trained on the test texts with T5's special pieces at
the real models' ids (``<pad>`` 0, ``</s>`` 1, ``<unk>`` 2, no ``<s>``).
"""

from __future__ import annotations

import functools
import os

from hub_presets import keras, keras_hub
from hub_presets_gemma import TRAINING_TEXT
from tiny_sentence_piece import train_sentence_piece


@functools.cache
def t5_proto(vocab_size: int = 60) -> bytes:
    """A unigram SentencePiece model with T5's layout: ``<pad>`` 0, ``</s>`` 1, ``<unk>`` 2, no start piece
    (trained once per process)."""
    return train_sentence_piece(
        TRAINING_TEXT * 20,
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        pad_piece="<pad>",
        eos_piece="</s>",
        unk_piece="<unk>",
    )


def t5_seq_2_seq_lm(folder: str, gated: bool = True, tied: bool = True, sequence_length: int = 10) -> tuple:
    """A random T5Seq2SeqLM (2 layers, hidden 16, 2 heads of 4: ``key_value_dim`` apart from
    ``hidden_dim // num_heads``; gated: T5 1.1's tanh GELU, Transformers' ``gated-gelu``, else ReLU), saved by KerasHub in ``folder``; returns
    the folder and KerasHub's task."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.T5Tokenizer(proto=t5_proto())
    backbone = keras_hub.models.T5Backbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=2,
        num_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        key_value_dim=4,
        activation=keras.saving.get_registered_object("keras_hub>gelu_approximate") if gated else "relu",
        use_gated_activation=gated,
        tie_embedding_weights=tied,
    )
    preprocessor = keras_hub.models.T5Seq2SeqLMPreprocessor(
        tokenizer, encoder_sequence_length=sequence_length, decoder_sequence_length=sequence_length
    )
    task = keras_hub.models.T5Seq2SeqLM(backbone, preprocessor=preprocessor)
    task.save_to_preset(folder)
    return folder, task


def t5_preset(folder: str, gated: bool = True, tied: bool = True) -> str:
    """``t5_seq_2_seq_lm``'s preset folder alone."""
    return t5_seq_2_seq_lm(folder, gated=gated, tied=tied)[0]


def t5_transformers_checkpoint(backbone, proto: bytes, folder: str) -> str:
    """KerasHub ``backbone``'s weights as a Hugging Face Transformers T5 checkpoint in ``folder``, written from
    Transformers' documented ``T5ForConditionalGeneration`` layout (``nn.Linear`` weights output by input; the
    tied embedding as ``shared``, an untied head as ``lm_head``): ``config.json``, ``model.safetensors``,
    ``spiece.model`` and ``tokenizer_config.json``. KerasHub 0.32 has no T5 exporter or converter."""
    import json

    import numpy as np
    from safetensors.numpy import save_file

    os.makedirs(folder, exist_ok=True)
    tensors = {}

    def put(key, value, transpose=False):
        value = np.asarray(value, dtype="float32")
        tensors[key] = np.ascontiguousarray(value.T if transpose else value)

    def put_attention(prefix, attention):
        for name, dense in (
            ("q", attention.query_projector),
            ("k", attention.key_projector),
            ("v", attention.value_projector),
            ("o", attention.output_projector),
        ):
            put(f"{prefix}.{name}.weight", dense.kernel, transpose=True)
        if attention.use_relative_attention_bias:
            put(f"{prefix}.relative_attention_bias.weight", attention.relative_attention_bias)

    def put_layer(prefix, layer, is_decoder):
        put_attention(f"{prefix}.layer.0.SelfAttention", layer.self_attention)
        put(f"{prefix}.layer.0.layer_norm.weight", layer.self_attention_layer_norm.weight)
        feedforward = 1
        if is_decoder:
            put_attention(f"{prefix}.layer.1.EncDecAttention", layer.cross_attention)
            put(f"{prefix}.layer.1.layer_norm.weight", layer.cross_attention_layer_norm.weight)
            feedforward = 2
        dense = f"{prefix}.layer.{feedforward}.DenseReluDense"
        if backbone.use_gated_activation:
            put(f"{dense}.wi_0.weight", layer.input_projector.kernel, transpose=True)
            put(f"{dense}.wi_1.weight", layer.gate_projector.kernel, transpose=True)
        else:
            put(f"{dense}.wi.weight", layer.input_projector.kernel, transpose=True)
        put(f"{dense}.wo.weight", layer.output_projector.kernel, transpose=True)
        put(f"{prefix}.layer.{feedforward}.layer_norm.weight", layer.layer_norm.weight)

    put("shared.weight", backbone.token_embedding.embeddings)
    for i, layer in enumerate(backbone.encoder_transformer_layers):
        put_layer(f"encoder.block.{i}", layer, is_decoder=False)
    put("encoder.final_layer_norm.weight", backbone.encoder_layer_norm.weight)
    for i, layer in enumerate(backbone.decoder_transformer_layers):
        put_layer(f"decoder.block.{i}", layer, is_decoder=True)
    put("decoder.final_layer_norm.weight", backbone.decoder_layer_norm.weight)
    if not backbone.tie_embedding_weights:
        put("lm_head.weight", backbone.token_embedding.reverse_embeddings, transpose=True)
    save_file(tensors, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
    gated, activation = backbone.use_gated_activation, backbone.activation.__name__
    config = {
        "model_type": "t5",
        "architectures": ["T5ForConditionalGeneration"],
        "vocab_size": backbone.vocabulary_size,
        "d_model": backbone.hidden_dim,
        "d_kv": backbone.key_value_dim or backbone.hidden_dim // backbone.num_heads,
        "d_ff": backbone.intermediate_dim,
        "num_layers": backbone.num_layers,
        "num_decoder_layers": backbone.num_layers,
        "num_heads": backbone.num_heads,
        "relative_attention_num_buckets": 32,
        "relative_attention_max_distance": 128,
        "dropout_rate": backbone.dropout,
        "layer_norm_epsilon": backbone.layer_norm_epsilon,
        "feed_forward_proj": ("gated-gelu" if activation == "gelu_approximate" else f"gated-{activation}")
        if gated
        else activation,
        "tie_word_embeddings": backbone.tie_embedding_weights,
        "is_encoder_decoder": True,
        "pad_token_id": 0,
        "eos_token_id": 1,
        "decoder_start_token_id": 0,
    }
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    with open(os.path.join(folder, "spiece.model"), "wb") as handle:
        handle.write(proto)
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as handle:
        json.dump({"tokenizer_class": "T5Tokenizer", "eos_token": "</s>", "pad_token": "<pad>", "extra_ids": 0}, handle)
    return folder
