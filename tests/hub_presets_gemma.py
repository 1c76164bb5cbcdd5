"""Tiny random Gemma 2 and Gemma 3 (text) presets for tfkit.hub's tests, made by KerasHub itself (no downloads).

    folder = gemma_preset(tmp_path)           # a GemmaCausalLM preset: Gemma 2's post-norms, soft caps, windows
    folder = gemma3_preset(tmp_path)          # a Gemma3CausalLM preset: q/k norms, 5 local layers and 1 global

The SentencePiece model is a byte-fallback BPE trained on the test texts, with
Gemma's special tokens at Gemma's ids (``<pad>`` 0, ``<eos>`` 1, ``<bos>`` 2,
``<unk>`` 3) and its turn and image tokens.
"""

from __future__ import annotations

import numpy as np
from hub_presets import TEXTS, keras, keras_hub
from tiny_sentence_piece import train_sentence_piece

TRAINING_TEXT = TEXTS + [
    "the lazy fox talks to the quick dog",
    "models jump over the brown world",
    "hello tiny quick lazy models",
]
SPECIAL_TOKENS = ["<start_of_turn>", "<end_of_turn>", "<start_of_image>", "<img>", "<end_of_image>"]


def gemma_proto() -> bytes:
    """A byte-fallback BPE SentencePiece model (about 330 pieces) with Gemma's special tokens."""
    return train_sentence_piece(
        TRAINING_TEXT * 20,
        model_type="bpe",
        vocab_size=330,
        hard_vocab_limit=False,
        byte_fallback=True,
        pad_id=0,
        eos_id=1,
        bos_id=2,
        unk_id=3,
        pad_piece="<pad>",
        eos_piece="<eos>",
        bos_piece="<bos>",
        unk_piece="<unk>",
        user_defined_symbols=SPECIAL_TOKENS,
    )


def gemma_preset(folder: str, sequence_length: int = 16) -> str:
    """A random Gemma 2-style GemmaCausalLM preset (2 layers, hidden 16, grouped queries, post-norms, attention
    and final soft caps, a sliding window of 3 on layer 0) saved by KerasHub in ``folder``."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.GemmaTokenizer(proto=gemma_proto())
    backbone = keras_hub.models.GemmaBackbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=2,
        num_query_heads=4,
        num_key_value_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        head_dim=8,
        use_post_ffw_norm=True,
        use_post_attention_norm=True,
        attention_logit_soft_cap=5.0,
        final_logit_soft_cap=3.0,
        use_sliding_window_attention=True,
        sliding_window_size=3,
    )
    randomize_norms(backbone)
    preprocessor = keras_hub.models.GemmaCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.GemmaCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def gemma3_preset(folder: str, sequence_length: int = 16) -> str:
    """A random text-only Gemma3CausalLM preset (6 layers: 5 local with a window of 3, then 1 global; hidden 16,
    query/key norms, rotary scaling 2 on the global layer) saved by KerasHub in ``folder``."""
    keras.utils.set_random_seed(1)
    tokenizer = keras_hub.models.Gemma3Tokenizer(proto=gemma_proto())
    backbone = keras_hub.models.Gemma3Backbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        image_size=None,
        num_layers=6,
        num_query_heads=4,
        num_key_value_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        head_dim=8,
        use_post_ffw_norm=True,
        use_post_attention_norm=True,
        use_sliding_window_attention=True,
        sliding_window_size=3,
        global_rope_scaling_factor=2.0,
    )
    randomize_norms(backbone)
    preprocessor = keras_hub.models.Gemma3CausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.Gemma3CausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def randomize_norms(backbone) -> None:
    """Random RMS norm scales (they start at zero): a weight loaded into the wrong norm changes the outputs."""
    rng = keras.random.SeedGenerator(2)
    for weight in backbone.weights:
        if weight.path.endswith("/scale"):
            weight.assign(keras.random.normal(weight.shape, stddev=0.5, seed=rng))


def transformers_tensors(backbone, prefix: str = "model.") -> dict:
    """A Gemma 2 or Gemma 3 KerasHub backbone's weights under Transformers' names and layouts (``(out, in)``
    projections, four norms a layer, Gemma 3's ``q_norm``/``k_norm``), as ``Gemma2ForCausalLM`` and
    ``Gemma3ForCausalLM`` store them: what ``safetensors.numpy.save_file`` writes for a checkpoint."""
    tensors = {f"{prefix}embed_tokens.weight": backbone.token_embedding.embeddings.numpy()}
    for i, block in enumerate(backbone.transformer_layers):
        key = f"{prefix}layers.{i}."
        attention = block.attention
        hidden = backbone.hidden_dim
        for name, dense in (("q", attention.query_dense), ("k", attention.key_dense), ("v", attention.value_dense)):
            kernel = dense.kernel.numpy()  # (heads, hidden, head_dim)
            tensors[f"{key}self_attn.{name}_proj.weight"] = np.transpose(kernel, (0, 2, 1)).reshape(-1, hidden)
        output = attention.output_dense.kernel.numpy()  # (heads, head_dim, hidden)
        tensors[f"{key}self_attn.o_proj.weight"] = np.transpose(output, (2, 0, 1)).reshape(hidden, -1)
        if getattr(attention, "use_query_key_norm", False):
            tensors[f"{key}self_attn.q_norm.weight"] = attention.query_norm.scale.numpy()
            tensors[f"{key}self_attn.k_norm.weight"] = attention.key_norm.scale.numpy()
        for name, dense in (("gate", block.gating_ffw), ("up", block.gating_ffw_2), ("down", block.ffw_linear)):
            tensors[f"{key}mlp.{name}_proj.weight"] = np.transpose(dense.kernel.numpy())
        tensors[f"{key}input_layernorm.weight"] = block.pre_attention_norm.scale.numpy()
        tensors[f"{key}post_attention_layernorm.weight"] = block.post_attention_norm.scale.numpy()
        tensors[f"{key}pre_feedforward_layernorm.weight"] = block.pre_ffw_norm.scale.numpy()
        tensors[f"{key}post_feedforward_layernorm.weight"] = block.post_ffw_norm.scale.numpy()
    tensors[f"{prefix}norm.weight"] = backbone.layer_norm.scale.numpy()
    return {key: np.ascontiguousarray(value) for key, value in tensors.items()}  # safetensors writes raw buffers


def gemma1_causal_lm(tokenizer: object, sequence_length: int = 16) -> object:
    """A random Gemma 1 GemmaCausalLM around ``tokenizer`` (2 layers, hidden 16, no post-norms or soft caps: what
    KerasHub's Transformers exporter writes), not saved."""
    backbone = keras_hub.models.GemmaBackbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=2,
        num_query_heads=2,
        num_key_value_heads=1,
        hidden_dim=16,
        intermediate_dim=32,
        head_dim=8,
    )
    preprocessor = keras_hub.models.GemmaCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    return keras_hub.models.GemmaCausalLM(backbone=backbone, preprocessor=preprocessor)
