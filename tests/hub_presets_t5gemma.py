"""A tiny random T5Gemma preset for tfkit.hub's tests, made by KerasHub itself (no downloads).

    folder = t5gemma_preset(tmp_path)                    # a T5GemmaSeq2SeqLM preset
    reference = keras_hub.models.Seq2SeqLM.from_preset(folder)
    folder = t5gemma_transformers_checkpoint(preset, theirs, tmp_path)   # the same weights as Transformers names them

The SentencePiece model is trained on the test texts with Gemma's special pieces at the real models' ids
(``<pad>`` 0, ``<eos>`` 1, ``<bos>`` 2, ``<unk>`` 3), about 60 pieces.
"""

from __future__ import annotations

import functools
import json
import os

import numpy as np
from hub_presets import keras, keras_hub
from hub_presets_gemma import TRAINING_TEXT, randomize_norms
from tiny_sentence_piece import train_sentence_piece

WINDOW = 3  # the sliding window of the first encoder and decoder layers: the tests' decoders run past it


@functools.cache
def t5gemma_proto(vocab_size: int = 60) -> bytes:
    """A unigram SentencePiece model with Gemma's special pieces (trained once per process)."""
    return train_sentence_piece(
        TRAINING_TEXT * 20,
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        pad_id=0,
        eos_id=1,
        bos_id=2,
        unk_id=3,
        pad_piece="<pad>",
        eos_piece="<eos>",
        bos_piece="<bos>",
        unk_piece="<unk>",
    )


def t5gemma_seq_2_seq_lm(folder: str, sequence_length: int = 10) -> tuple:
    """A random T5GemmaSeq2SeqLM saved by KerasHub in ``folder``: an encoder of width 16 and a decoder of width 12
    (cross-attention from 16 to 12), 2 layers each (the first with a sliding window of ``WINDOW``), 4 query heads
    over 2 key/value heads of 8, a query scale of its own (``query_pre_attn_scalar`` 6), attention and final soft
    caps, random norm scales. Returns the folder and KerasHub's task."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.T5GemmaTokenizer(proto=t5gemma_proto())
    layer_types = ["sliding_attention", "full_attention"]
    backbone = keras_hub.models.T5GemmaBackbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        encoder_hidden_dim=16,
        encoder_intermediate_dim=32,
        encoder_num_layers=2,
        encoder_num_attention_heads=4,
        encoder_num_key_value_heads=2,
        encoder_head_dim=8,
        encoder_layer_types=layer_types,
        decoder_hidden_dim=12,
        decoder_intermediate_dim=24,
        decoder_num_layers=2,
        decoder_num_attention_heads=4,
        decoder_num_key_value_heads=2,
        decoder_head_dim=8,
        decoder_layer_types=layer_types,
        query_pre_attn_scalar=6.0,
        sliding_window=WINDOW,
        attn_logit_softcapping=5.0,
        final_logit_softcapping=3.0,
    )
    randomize_norms(backbone)
    preprocessor = keras_hub.models.T5GemmaSeq2SeqLMPreprocessor(
        tokenizer, encoder_sequence_length=sequence_length, decoder_sequence_length=sequence_length
    )
    task = keras_hub.models.T5GemmaSeq2SeqLM(backbone, preprocessor=preprocessor)
    task.save_to_preset(folder)
    return folder, task


def t5gemma_preset(folder: str) -> str:
    """``t5gemma_seq_2_seq_lm``'s preset folder alone."""
    return t5gemma_seq_2_seq_lm(folder)[0]


def _side_config(backbone, side: str) -> dict:
    """One side's ``T5GemmaModuleConfig`` as Transformers writes it in ``config.json``."""
    return {
        "model_type": "t5_gemma_module",
        "vocab_size": backbone.vocabulary_size,
        "hidden_size": getattr(backbone, f"{side}_hidden_dim"),
        "intermediate_size": getattr(backbone, f"{side}_intermediate_dim"),
        "num_hidden_layers": getattr(backbone, f"{side}_num_layers"),
        "num_attention_heads": getattr(backbone, f"{side}_num_attention_heads"),
        "num_key_value_heads": getattr(backbone, f"{side}_num_key_value_heads"),
        "head_dim": getattr(backbone, f"{side}_head_dim"),
        "layer_types": list(getattr(backbone, f"{side}_layer_types")),
        "hidden_activation": "gelu_pytorch_tanh",
        "rms_norm_eps": backbone.rms_norm_eps,
        "query_pre_attn_scalar": backbone.query_pre_attn_scalar,
        "attention_bias": backbone.attention_bias,
        "attention_dropout": backbone.attention_dropout,
        "dropout_rate": backbone.dropout_rate,
        "initializer_range": backbone.initializer_range,
        "sliding_window": backbone.sliding_window,
        "attn_logit_softcapping": backbone.attn_logit_softcapping,
        "final_logit_softcapping": backbone.final_logit_softcapping,
        "rope_theta": backbone.rope_max_wavelength,
        "is_decoder": side == "decoder",
    }


def t5gemma_transformers_tensors(backbone) -> dict:
    """A KerasHub T5Gemma backbone's weights under Transformers' ``T5GemmaForConditionalGeneration`` names and
    layouts (``model.`` first; ``(out, in)`` projections; the LM head ``lm_head.out_proj``)."""
    tensors = {
        "model.encoder.embed_tokens.weight": backbone.token_embedding.embeddings,
        "model.encoder.norm.weight": backbone.encoder_norm.scale,
        "model.decoder.embed_tokens.weight": backbone.decoder_token_embedding.embeddings,
        "model.decoder.norm.weight": backbone.decoder_norm.scale,
    }
    for side in ("encoder", "decoder"):
        for i, layer in enumerate(getattr(backbone, f"{side}_layers")):
            prefix = f"model.{side}.layers.{i}."
            attentions = [("self_attn", layer.self_attn)]
            norms = ["pre_self_attn_layernorm", "post_self_attn_layernorm"]
            if side == "decoder":
                attentions.append(("cross_attn", layer.cross_attn))
                norms += ["pre_cross_attn_layernorm", "post_cross_attn_layernorm"]
            for name, attention in attentions:
                for projection, dense in (
                    ("q_proj", attention.query_dense),
                    ("k_proj", attention.key_dense),
                    ("v_proj", attention.value_dense),
                ):
                    kernel = np.asarray(dense.kernel)  # (in, heads, head_dim)
                    tensors[f"{prefix}{name}.{projection}.weight"] = kernel.reshape(kernel.shape[0], -1).T
                kernel = np.asarray(attention.output_dense.kernel)  # (heads, head_dim, out)
                tensors[f"{prefix}{name}.o_proj.weight"] = kernel.reshape(-1, kernel.shape[-1]).T
                if backbone.attention_bias:
                    for projection, dense in (
                        ("q_proj", attention.query_dense),
                        ("k_proj", attention.key_dense),
                        ("v_proj", attention.value_dense),
                        ("o_proj", attention.output_dense),
                    ):
                        tensors[f"{prefix}{name}.{projection}.bias"] = np.asarray(dense.bias).reshape(-1)
            for name in ("gate_proj", "up_proj", "down_proj"):
                tensors[f"{prefix}mlp.{name}.weight"] = np.asarray(getattr(layer.mlp, name).kernel).T
            for name in norms + ["pre_feedforward_layernorm", "post_feedforward_layernorm"]:
                tensors[f"{prefix}{name}.weight"] = getattr(layer, name).scale
    if backbone.tie_word_embeddings:  # Transformers writes the tied head once, as the decoder's embedding
        tensors["lm_head.out_proj.weight"] = tensors["model.decoder.embed_tokens.weight"]
    else:
        tensors["lm_head.out_proj.weight"] = np.asarray(backbone.decoder_token_embedding.reverse_embeddings).T
    return {key: np.ascontiguousarray(np.asarray(value, "float32")) for key, value in tensors.items()}


def t5gemma_transformers_checkpoint(preset: str, theirs, folder: str) -> str:
    """KerasHub's task ``theirs`` as a Transformers ``T5GemmaForConditionalGeneration`` folder: ``config.json``
    (``model_type`` ``t5gemma``, an ``encoder`` and a ``decoder`` config), ``model.safetensors``, the SentencePiece
    ``tokenizer.model`` and ``tokenizer_config.json``. KerasHub 0.32 has a T5Gemma converter but no exporter."""
    from safetensors.numpy import save_file

    backbone = theirs.backbone
    os.makedirs(folder, exist_ok=True)
    save_file(t5gemma_transformers_tensors(backbone), os.path.join(folder, "model.safetensors"), {"format": "pt"})
    config = {
        "model_type": "t5gemma",
        "architectures": ["T5GemmaForConditionalGeneration"],
        "encoder": _side_config(backbone, "encoder"),
        "decoder": _side_config(backbone, "decoder"),
        "is_encoder_decoder": True,
        "tie_word_embeddings": backbone.tie_word_embeddings,
        "vocab_size": backbone.vocabulary_size,
        "dropout_rate": backbone.dropout_rate,
        "attention_dropout": backbone.attention_dropout,
        "classifier_dropout_rate": 0.0,
        "pad_token_id": 0,
        "eos_token_id": 1,
        "bos_token_id": 2,
    }
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    with open(os.path.join(folder, "tokenizer.model"), "wb") as handle:
        handle.write(t5gemma_proto())
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as handle:
        json.dump(
            {"tokenizer_class": "GemmaTokenizer", "bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>"},
            handle,
        )
    return folder
