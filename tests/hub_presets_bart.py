"""A tiny random BART preset for tfkit.hub's tests, made by KerasHub itself (no downloads), and the same weights
as a Transformers checkpoint.

    folder = bart_preset(tmp_path)                                   # a BartSeq2SeqLM preset, saved by KerasHub
    reference = keras_hub.models.Seq2SeqLM.from_preset(folder)
    checkpoint = bart_transformers_checkpoint(reference.backbone, tmp_path / "hf")

The vocabulary is RoBERTa's test vocabulary (every byte-level character, a few merges), so every text
tokenizes.
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import keras, keras_hub
from hub_presets_encoders import roberta_vocabulary

# Transformers' BART keeps 2 position rows before the first position
BART_POSITION_OFFSET = 2


def bart_preset(folder: str, encoder_sequence_length: int = 12, decoder_sequence_length: int = 10) -> str:
    """A random BartSeq2SeqLM preset (2 layers, hidden 16) saved by KerasHub in ``folder``."""
    keras.utils.set_random_seed(0)
    vocabulary, merges = roberta_vocabulary()
    tokenizer = keras_hub.models.BartTokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.BartBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        max_sequence_length=32,
    )
    # layer norms away from their (1, 0) start, so the converter's mapping of each one shows
    for weight in backbone.weights:
        if "layer_norm" in weight.path:
            weight.assign(weight + keras.random.normal(weight.shape, stddev=0.1, seed=len(weight.path)))
    preprocessor = keras_hub.models.BartSeq2SeqLMPreprocessor(
        tokenizer, encoder_sequence_length=encoder_sequence_length, decoder_sequence_length=decoder_sequence_length
    )
    keras_hub.models.BartSeq2SeqLM(backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def _linear(tensors: dict, key: str, dense) -> None:
    """A Keras dense (or per-head einsum) layer as Transformers' ``nn.Linear``: weight output by input."""
    kernel = np.asarray(dense.kernel)
    if kernel.ndim == 3 and "out_proj" in key:  # (heads, head_dim, hidden) -> (hidden, heads * head_dim)
        weight = kernel.reshape(-1, kernel.shape[-1]).T
    else:  # (hidden, [heads, head_dim]) -> (heads * head_dim, hidden)
        weight = kernel.reshape(kernel.shape[0], -1).T
    tensors[key + ".weight"] = weight
    tensors[key + ".bias"] = np.asarray(dense.bias).reshape(-1)


def _norm(tensors: dict, key: str, norm) -> None:
    tensors[key + ".weight"] = np.asarray(norm.gamma)
    tensors[key + ".bias"] = np.asarray(norm.beta)


def bart_tensors(backbone, prefix: str = "model.") -> dict:
    """KerasHub ``backbone``'s weights under Transformers' ``BartForConditionalGeneration`` names."""
    tensors = {}
    embeddings = np.asarray(backbone.token_embedding.embeddings)
    tensors["shared.weight"] = embeddings
    for side in ("encoder", "decoder"):
        tensors[f"{side}.embed_tokens.weight"] = embeddings
        positions = np.asarray(getattr(backbone, f"{side}_position_embedding").position_embeddings)
        # the two rows Transformers keeps first are never read; random ones show a converter that reads them
        offset_rows = np.random.default_rng(1).normal(size=(BART_POSITION_OFFSET, positions.shape[1]))
        tensors[f"{side}.embed_positions.weight"] = np.concatenate([offset_rows, positions])
        _norm(tensors, f"{side}.layernorm_embedding", getattr(backbone, f"{side}_embeddings_layer_norm"))
        for i, block in enumerate(getattr(backbone, f"{side}_transformer_layers")):
            layer = f"{side}.layers.{i}."
            attentions = [("self_attn", block._self_attention_layer, block._self_attention_layer_norm)]
            if side == "decoder":
                attentions.append(("encoder_attn", block._cross_attention_layer, block._cross_attention_layer_norm))
            for name, attention, norm in attentions:
                for dense, projection in (
                    (attention.query_dense, "q_proj"),
                    (attention.key_dense, "k_proj"),
                    (attention.value_dense, "v_proj"),
                    (attention.output_dense, "out_proj"),
                ):
                    _linear(tensors, f"{layer}{name}.{projection}", dense)
                _norm(tensors, f"{layer}{name}_layer_norm", norm)
            _linear(tensors, layer + "fc1", block._feedforward_intermediate_dense)
            _linear(tensors, layer + "fc2", block._feedforward_output_dense)
            _norm(tensors, layer + "final_layer_norm", block._feedforward_layer_norm)
    tensors = {prefix + key: value for key, value in tensors.items()}
    tensors["lm_head.weight"] = embeddings
    tensors["final_logits_bias"] = np.zeros((1, embeddings.shape[0]))
    return {key: np.ascontiguousarray(value, dtype="float32") for key, value in tensors.items()}


def _write_json(folder: str, name: str, value) -> None:
    with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
        json.dump(value, handle, indent=2)


def bart_transformers_checkpoint(backbone, folder: str, prefix: str = "model.") -> str:
    """KerasHub ``backbone``'s weights as a Transformers ``BartForConditionalGeneration`` checkpoint in ``folder``
    (``prefix`` ``""`` for a ``BartModel``'s): ``config.json``, ``model.safetensors`` and the tokenizer files
    Transformers writes (``vocab.json``, ``merges.txt`` with its version line, ``tokenizer_config.json``,
    ``special_tokens_map.json``)."""
    from safetensors.numpy import save_file

    os.makedirs(folder, exist_ok=True)
    tensors = bart_tensors(backbone, prefix)
    if not prefix:
        tensors = {key: value for key, value in tensors.items() if key not in ("lm_head.weight", "final_logits_bias")}
    save_file(tensors, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
    config = {
        "architectures": ["BartForConditionalGeneration" if prefix else "BartModel"],
        "model_type": "bart",
        "vocab_size": backbone.vocabulary_size,
        "d_model": backbone.hidden_dim,
        "encoder_layers": backbone.num_layers,
        "decoder_layers": backbone.num_layers,
        "num_hidden_layers": backbone.num_layers,
        "encoder_attention_heads": backbone.num_heads,
        "decoder_attention_heads": backbone.num_heads,
        "encoder_ffn_dim": backbone.intermediate_dim,
        "decoder_ffn_dim": backbone.intermediate_dim,
        "activation_function": "gelu",
        "dropout": backbone.dropout,
        "attention_dropout": 0.0,
        "activation_dropout": 0.0,
        "max_position_embeddings": backbone.max_sequence_length,
        "scale_embedding": False,
        "normalize_before": False,
        "add_final_layer_norm": False,
        "is_encoder_decoder": True,
        "bos_token_id": 0,
        "pad_token_id": 1,
        "eos_token_id": 2,
        "decoder_start_token_id": 2,
        "forced_eos_token_id": 2,
        "tie_word_embeddings": True,
        "torch_dtype": "float32",
    }
    _write_json(folder, "config.json", config)
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
        {"tokenizer_class": "BartTokenizer", "add_prefix_space": False, "model_max_length": 1024, **specials},
    )
    return folder
