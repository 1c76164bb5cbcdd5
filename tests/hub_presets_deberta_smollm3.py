"""Tiny random KerasHub DeBERTa-v3 and SmolLM3 presets for tfkit.hub's tests, made by KerasHub itself (no downloads).

    classifier_folder, masked_lm_folder = deberta_v3_presets(tmp_path)   # one backbone, two task presets
    folder = smollm3_preset(tmp_path)                   # a SmolLM3CausalLM preset (layer 1 without rotary, "NoPE")
    hf_folder = smollm3_transformers_checkpoint(keras_hub_backbone, tokenizer, tmp_path)
    hf_folder = deberta_v3_transformers_checkpoint(keras_hub_backbone, tokenizer, tmp_path)

DeBERTa-v3's SentencePiece model is trained on the test texts with its special pieces at the real model's ids
(``[PAD]`` 0, ``[CLS]`` 1, ``[SEP]`` 2, ``[UNK]`` 3) and, like the real one, no ``[MASK]``: the tokenizer gives it
the id after the last piece. Its relative position buckets are 4 a side, so the test sequences reach the
logarithmic buckets. KerasHub 0.32 has no DeBERTa converter; ``deberta_v3_transformers_checkpoint`` writes Transformers'
``DebertaV2ForMaskedLM`` layout (``deberta.`` prefix) with its ``spm.model``. SmolLM3 uses GPT-2's byte-level test vocabulary with SmolLM3's special tokens. KerasHub 0.32 has a SmolLM3
converter but no exporter, so ``smollm3_transformers_checkpoint`` writes a checkpoint by Transformers' documented
``SmolLM3ForCausalLM`` layout.
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import keras, keras_hub
from hub_presets_encoders import _save_tensors, _write_json
from hub_presets_gemma import TRAINING_TEXT
from hub_presets_qwen import qwen_vocabulary, randomize_weights, write_bpe_tokenizer_json
from tiny_sentence_piece import train_sentence_piece

# ids within the DeBERTa-v3 test vocabulary ([CLS] 1, [SEP] 2, [PAD] 0): row 0 longer than the buckets' reach
DEBERTA_V3_INPUTS = {
    "token_ids": np.array([[1, 25, 31, 9, 2, 40, 17, 2, 0, 0], [1, 22, 36, 2, 0, 0, 0, 0, 0, 0]], "int32"),
    "padding_mask": np.array([[1] * 8 + [0] * 2, [1] * 4 + [0] * 6], "int32"),
}
SMOLLM3_SPECIAL = ("<|begin_of_text|>", "<|end_of_text|>", "<think>", "</think>")
NO_ROPE = [True, False]  # layer 1 attends without position embeddings


def deberta_v3_proto(vocab_size: int = 60) -> bytes:
    """A unigram SentencePiece model with DeBERTa-v3's layout: ``[PAD]`` 0, ``[CLS]`` 1, ``[SEP]`` 2, ``[UNK]`` 3,
    and no ``[MASK]``."""
    return train_sentence_piece(
        TRAINING_TEXT * 20,
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        pad_id=0,
        bos_id=1,
        eos_id=2,
        unk_id=3,
        pad_piece="[PAD]",
        bos_piece="[CLS]",
        eos_piece="[SEP]",
        unk_piece="[UNK]",
    )


def deberta_v3_presets(folder: str, num_classes: int = 3, sequence_length: int = 12) -> tuple[str, str]:
    """A random DebertaV3TextClassifier preset and a DebertaV3MaskedLM preset of the same backbone (2 layers,
    hidden 16, 4 relative buckets a side reaching distance 16), saved by KerasHub under ``folder``."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.DebertaV3Tokenizer(proto=deberta_v3_proto())
    backbone = keras_hub.models.DebertaV3Backbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=2,
        num_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        max_sequence_length=16,
        bucket_size=4,
    )
    classifier = keras_hub.models.DebertaV3TextClassifier(
        backbone,
        num_classes=num_classes,
        preprocessor=keras_hub.models.DebertaV3TextClassifierPreprocessor(tokenizer, sequence_length=sequence_length),
    )
    masked_lm = keras_hub.models.DebertaV3MaskedLM(
        backbone,
        preprocessor=keras_hub.models.DebertaV3MaskedLMPreprocessor(
            tokenizer, sequence_length=sequence_length, mask_selection_length=4
        ),
    )
    # visible biases (KerasHub starts them at zero) and a relative table that matters to the outputs
    for variable, seed in ((masked_lm.masked_lm_head._bias, 1), (classifier.output_dense.bias, 2)):
        variable.assign(keras.random.normal(tuple(variable.shape), seed=seed))
    for block in backbone.transformer_layers:
        for dense in (block._self_attention_layer._query_dense, block._self_attention_layer._key_dense):
            dense.bias.assign(keras.random.normal(tuple(dense.bias.shape), stddev=0.5, seed=3))
    table = backbone.relative_embeddings.rel_embeddings
    table.assign(keras.random.normal(tuple(table.shape), seed=4))
    classifier_folder, masked_lm_folder = os.path.join(folder, "classifier"), os.path.join(folder, "masked_lm")
    classifier.save_to_preset(classifier_folder)
    masked_lm.save_to_preset(masked_lm_folder)
    return classifier_folder, masked_lm_folder


def deberta_v3_transformers_checkpoint(backbone, tokenizer, folder: str, prefix: str = "deberta.") -> str:
    """KerasHub DeBERTa-v3 ``backbone``'s weights as a Transformers ``DebertaV2ForMaskedLM``-style checkpoint in
    ``folder`` (``prefix`` ``""`` for a ``DebertaV2Model``'s): ``config.json`` (``model_type`` ``deberta-v2``, as
    DeBERTa-v3's own), ``model.safetensors``, ``spm.model`` (``tokenizer``'s model) and ``tokenizer_config.json``."""
    os.makedirs(folder, exist_ok=True)

    def value(variable):
        return np.asarray(keras.ops.convert_to_numpy(variable))

    def linear(dense):  # a kernel (in, ...) as nn.Linear's (out, in), its bias flat
        kernel = value(dense.kernel)
        return np.ascontiguousarray(kernel.reshape(kernel.shape[0], -1).T), value(dense.bias).reshape(-1)

    def norm(key, layer):
        tensors[key + ".weight"], tensors[key + ".bias"] = value(layer.gamma), value(layer.beta)

    tensors = {"embeddings.word_embeddings.weight": value(backbone.token_embedding.embeddings)}
    norm("embeddings.LayerNorm", backbone.embeddings_layer_norm)
    tensors["encoder.rel_embeddings.weight"] = value(backbone.relative_embeddings.rel_embeddings)
    norm("encoder.LayerNorm", backbone.relative_embeddings.layer_norm)
    for i, block in enumerate(backbone.transformer_layers):
        layer, attention = f"encoder.layer.{i}.", block._self_attention_layer
        for dense, name in (
            (attention._query_dense, "attention.self.query_proj"),
            (attention._key_dense, "attention.self.key_proj"),
            (attention._value_dense, "attention.self.value_proj"),
            (attention._output_dense, "attention.output.dense"),
            (block._feedforward_intermediate_dense, "intermediate.dense"),
            (block._feedforward_output_dense, "output.dense"),
        ):
            tensors[layer + name + ".weight"], tensors[layer + name + ".bias"] = linear(dense)
        norm(layer + "attention.output.LayerNorm", block._self_attention_layer_norm)
        norm(layer + "output.LayerNorm", block._feedforward_layer_norm)
    _save_tensors({prefix + key: tensor for key, tensor in tensors.items()}, folder)
    config = {
        "architectures": ["DebertaV2ForMaskedLM"],
        "model_type": "deberta-v2",
        "vocab_size": backbone.vocabulary_size,
        "hidden_size": backbone.hidden_dim,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_heads,
        "intermediate_size": backbone.intermediate_dim,
        "hidden_act": "gelu",
        "hidden_dropout_prob": backbone.dropout,
        "attention_probs_dropout_prob": backbone.dropout,
        "max_position_embeddings": backbone.max_sequence_length,
        "max_relative_positions": -1,
        "position_buckets": backbone.bucket_size,
        "relative_attention": True,
        "position_biased_input": False,
        "pos_att_type": ["p2c", "c2p"],
        "share_att_key": True,
        "norm_rel_ebd": "layer_norm",
        "type_vocab_size": 0,  # as DeBERTa-v3's own configs say: no segment embeddings
        "layer_norm_eps": 1e-7,
        "pad_token_id": 0,
    }
    _write_json(folder, "config.json", config)
    with open(os.path.join(folder, "spm.model"), "wb") as handle:
        handle.write(tokenizer.proto)
    specials = {"bos_token": "[CLS]", "eos_token": "[SEP]", "unk_token": "[UNK]", "sep_token": "[SEP]"}
    specials.update({"pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]"})
    _write_json(
        folder, "tokenizer_config.json", {"tokenizer_class": "DebertaV2Tokenizer", "do_lower_case": False, **specials}
    )
    return folder


def smollm3_preset(folder: str, sequence_length: int = 16) -> str:
    """A random SmolLM3CausalLM preset (2 layers, hidden 16, 4 query heads and 2 key/value heads, the second
    layer without rotary embeddings) saved by KerasHub in ``folder``."""
    keras.utils.set_random_seed(2)
    vocabulary, merges = qwen_vocabulary(*SMOLLM3_SPECIAL)
    tokenizer = keras_hub.models.SmolLM3Tokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.SmolLM3Backbone(
        vocabulary_size=len(vocabulary),
        hidden_dim=16,
        intermediate_dim=32,
        num_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        attention_bias=False,
        attention_dropout=0.0,
        rope_layer_enabled_list=NO_ROPE,
        layer_types=["attention"] * 2,
        mlp_bias=False,
        layer_norm_epsilon=1e-6,
        max_position_embeddings=64,
        rope_theta=10000.0,
        partial_rotary_factor=1.0,
    )
    randomize_weights(backbone)
    preprocessor = keras_hub.models.SmolLM3CausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.SmolLM3CausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def smollm3_transformers_checkpoint(backbone, tokenizer, folder: str) -> str:
    """Writes KerasHub SmolLM3 ``backbone``'s weights and ``tokenizer`` as a Transformers checkpoint
    (``config.json``, ``model.safetensors``, ``tokenizer.json``) in ``folder``, by Transformers' SmolLM3 layout
    (``no_rope_layers``: 1 where a layer uses rotary embeddings)."""
    from safetensors.numpy import save_file

    def value(variable):
        return np.asarray(keras.ops.convert_to_numpy(variable))

    def linear(variable):  # a Dense kernel (in, out) as nn.Linear's (out, in)
        kernel = value(variable)
        return np.ascontiguousarray(kernel.reshape(-1, kernel.shape[-1]).T)

    tensors = {"model.embed_tokens.weight": value(backbone.token_embedding.embeddings)}
    for i, block in enumerate(backbone.transformer_layers):
        prefix, attention = f"model.layers.{i}.", block.self_attn
        tensors[prefix + "input_layernorm.weight"] = value(block.input_layernorm.scale)
        tensors[prefix + "post_attention_layernorm.weight"] = value(block.post_attention_layernorm.scale)
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            tensors[f"{prefix}self_attn.{name}.weight"] = linear(getattr(attention, name).kernel)
        for name in ("gate_proj", "up_proj", "down_proj"):
            tensors[f"{prefix}mlp.{name}.weight"] = linear(getattr(block.mlp, name).kernel)
    tensors["model.norm.weight"] = value(backbone.norm.scale)
    os.makedirs(folder, exist_ok=True)
    save_file(tensors, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
    config = {
        "architectures": ["SmolLM3ForCausalLM"],
        "model_type": "smollm3",
        "vocab_size": backbone.vocabulary_size,
        "hidden_size": backbone.hidden_dim,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_attention_heads,
        "num_key_value_heads": backbone.num_key_value_heads,
        "intermediate_size": backbone.intermediate_dim,
        "rms_norm_eps": backbone.layer_norm_epsilon,
        "rope_theta": backbone.rope_theta,
        "max_position_embeddings": backbone.max_position_embeddings,
        "attention_bias": backbone.attention_bias,
        "attention_dropout": backbone.attention_dropout,
        "mlp_bias": backbone.mlp_bias,
        "no_rope_layers": [int(enabled) for enabled in backbone.rope_layer_enabled_list],
        "layer_types": backbone.layer_types,
        "tie_word_embeddings": True,
        "hidden_act": "silu",
    }
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    write_bpe_tokenizer_json(tokenizer, folder)
    return folder
