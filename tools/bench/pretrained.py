"""The ``pretrained`` workload: tfkit.hub against KerasHub on TensorFlow and on JAX (plain data, no TF).

    from bench import pretrained
    pretrained.CASES["gen_gpt2_b8"].model          # 'gpt2_124m'
    pretrained.MODELS["gpt2_124m"].config          # GPT2Backbone's arguments
    pretrained.preset_dir(data_dir, "gpt2_124m")   # <data_dir>/presets/gpt2_124m

Every model is random and downloaded from nowhere: before the jobs run, KerasHub
builds each model the plan needs once (``bench.pretrained_presets``, weights seeded)
and saves it as a preset under the run's data folder; every peer then loads that
same preset with ``from_preset`` (tfkit with ``tfkit.hub.models.X``, KerasHub with
``keras_hub.models.X``), so the weights are identical. The columns are the peers
``tfkit`` (tfkit.hub), ``keras3`` (KerasHub on TensorFlow), ``keras3_jax`` (KerasHub
on JAX) and ``transformers_torch`` (Hugging Face Transformers on PyTorch, under the
interpreter ``--torch-python`` names; ``bench.peer_transformers`` converts the same
preset by hand), each in its own process, with its framework's defaults.

Cases (``bench.peer_hub`` runs them):

- generation, one case per model and batch size (1 and 8): a 32-token prompt and
  64 new tokens (``generate`` on token ids, no preprocessor, ``stop_token_ids=None``
  so every row generates all 64), greedy and top-k (k=5, seeded) in the same
  process. Time to first token is one ``generate`` to prompt + 1 tokens (the
  prompt's forward pass that fills the cache, then one new token); tokens per
  second is batch x 64 over one ``generate`` to prompt + 64. Each is the median of
  ``TIMED_CALLS`` calls after a first call per program, whose extra time over the
  median is the warm-up (tracing and compiling). The greedy ids go into the
  record, and the report checks that every peer generated the same ones;
- encoder-decoder generation (greedy only): a T5-small-sized ``T5Seq2SeqLM``
  (encoder prompt of 32 random ids, the decoder started from T5's start id 0), a
  Whisper-tiny-sized ``WhisperAudioToText`` (30 s of random log-mel features:
  3000 frames of 80 bins, the decoder started from <|startoftranscript|>) and a
  Moonshine-tiny-sized ``MoonshineAudioToText`` (10 s of seeded random audio at
  16 kHz: the raw samples, ``(batch, 160000, 1)`` float32 with an all-true
  ``encoder_padding_mask``, which its convolutional stem turns into 415 encoder
  positions; the decoder started from its start id <s> = 1), each decoding 64 new
  tokens; time to first token is the encoder pass plus one decoder step. KerasHub
  0.32 has no Whisper task (only its backbone), so the Whisper cases run in
  tfkit.hub alone: a decoding loop written here for KerasHub would time that loop,
  not KerasHub. T5 and Moonshine run in all three hub peers; none of the three has
  a Transformers peer;
- fine-tuning: a BERT-base-sized ``BertTextClassifier`` (2 classes) and the
  Llama-style ``Llama3CausalLM`` with ``backbone.enable_lora(4)``, batch 8 of
  128 tokens, ``fit`` with the task's default ``compile()`` on fixed random ids.
  A steady step is the median epoch of epochs 2.. over its steps; the warm-up
  is the first epoch less that many steady steps.

Loading is measured in every case's process before anything else runs (the rows
appear once per model): ``from_preset``'s seconds, and its peak resident memory
above the resident memory after the imports, over the weights' bytes (the GPT-2
preset is the issue's 500 MB checkpoint: 124M float32 weights, 497 MB).
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Any

PEERS: tuple[str, ...] = ("tfkit", "keras3", "keras3_jax", "transformers_torch")
TITLES: dict[str, str] = {
    "tfkit": "tfkit.hub",
    "keras3": "KerasHub on TF",
    "keras3_jax": "KerasHub on JAX",
    "transformers_torch": "Transformers on PyTorch",
}

PROMPT_LENGTH = 32
NEW_TOKENS = 64
GENERATE_BATCH_SIZES: tuple[int, ...] = (1, 8)
SAMPLERS: tuple[str, ...] = ("greedy", "top_k")
SAMPLER_WORDS = {"greedy": "greedy", "top_k": "top-k"}
TOP_K = 5
SAMPLER_SEED = 1
PROMPT_SEED = 2
DATA_SEED = 3
WEIGHTS_SEED = 0
TIMED_CALLS = 3  # timed generate calls of each length, after the first (--quick: 1)
QUICK_TIMED_CALLS = 1
FINE_TUNE_BATCH = 8
FINE_TUNE_SEQUENCE = 128
FINE_TUNE_STEPS = 4  # steps an epoch (--quick: 2)
FINE_TUNE_EPOCHS = 3  # (--quick: 2); the first is the warm-up, the others the steady state
QUICK_FINE_TUNE_STEPS = 2
QUICK_FINE_TUNE_EPOCHS = 2
LORA_RANK = 4
NUM_CLASSES = 2
PRESETS_FOLDER = "presets"


@dataclasses.dataclass(frozen=True)
class Model:
    """A random model the section builds with KerasHub: its backbone's arguments, full size and tiny."""

    name: str
    label: str
    backbone: str  # the class name, the same in keras_hub.models and tfkit.hub.models
    task: str
    config: dict[str, Any]
    tiny: dict[str, Any]  # the same family at a few thousand parameters (tests/test_bench_pretrained.py)


# Moonshine-tiny's arguments that its full-size and tiny presets share: GELU encoder, SwiGLU decoder, 90% of each
# head rotated, no attention biases.
MOONSHINE_SHARED: dict[str, Any] = {
    "encoder_use_swiglu_activation": False,
    "decoder_use_swiglu_activation": True,
    "max_position_embeddings": 194,
    "partial_rotary_factor": 0.9,
    "rope_theta": 10000.0,
    "attention_bias": False,
}

MODELS: dict[str, Model] = {
    # GPT-2 small's shape (124M parameters).
    "gpt2_124m": Model(
        "gpt2_124m",
        "GPT-2 124M",
        "GPT2Backbone",
        "GPT2CausalLM",
        {
            "vocabulary_size": 50257,
            "num_layers": 12,
            "num_heads": 12,
            "hidden_dim": 768,
            "intermediate_dim": 3072,
            "max_sequence_length": 1024,
        },
        {
            "vocabulary_size": 300,
            "num_layers": 2,
            "num_heads": 2,
            "hidden_dim": 16,
            "intermediate_dim": 32,
            "max_sequence_length": 128,
        },
    ),
    # A Llama-3-style decoder of about 100M parameters (99.5M): grouped-query attention (12 query heads, 4 key/value
    # heads), RMSNorm, gated MLP, rotary embeddings; a 32,000-token vocabulary (Llama 3's 128,256 would put 197M
    # in the embeddings alone), untied input and output embeddings (Llama3Backbone's default).
    "llama_100m": Model(
        "llama_100m",
        "Llama-style 100M",
        "Llama3Backbone",
        "Llama3CausalLM",
        {
            "vocabulary_size": 32000,
            "num_layers": 8,
            "num_query_heads": 12,
            "num_key_value_heads": 4,
            "hidden_dim": 768,
            "intermediate_dim": 2048,
        },
        {
            "vocabulary_size": 300,
            "num_layers": 2,
            "num_query_heads": 4,
            "num_key_value_heads": 2,
            "hidden_dim": 16,
            "intermediate_dim": 32,
        },
    ),
    # A Mixtral-style mixture of experts of about 113M parameters (8 experts, 2 a token: about 47M active a token):
    # grouped-query attention (8 query heads, 4 key/value heads), RMSNorm, sparse gated experts, rotary embeddings,
    # a 32,000-token vocabulary, untied embeddings (MixtralBackbone's).
    "mixtral_moe": Model(
        "mixtral_moe",
        "Mixtral-style MoE 113M",
        "MixtralBackbone",
        "MixtralCausalLM",
        {
            "vocabulary_size": 32000,
            "num_layers": 6,
            "num_query_heads": 8,
            "num_key_value_heads": 4,
            "hidden_dim": 512,
            "intermediate_dim": 1024,
            "num_experts": 8,
            "top_k": 2,
        },
        {
            "vocabulary_size": 300,
            "num_layers": 2,
            "num_query_heads": 4,
            "num_key_value_heads": 2,
            "hidden_dim": 16,
            "intermediate_dim": 32,
            "num_experts": 4,
            "top_k": 2,
        },
    ),
    # T5-small's shape (60.5M parameters): relative position buckets, ReLU feed-forward, tied embeddings.
    "t5_small": Model(
        "t5_small",
        "T5-small 60M",
        "T5Backbone",
        "T5Seq2SeqLM",
        {
            "vocabulary_size": 32128,
            "num_layers": 6,
            "num_heads": 8,
            "hidden_dim": 512,
            "intermediate_dim": 2048,
            "key_value_dim": 64,
            "activation": "relu",
            "use_gated_activation": False,
            "tie_embedding_weights": True,
        },
        {
            "vocabulary_size": 300,
            "num_layers": 2,
            "num_heads": 2,
            "hidden_dim": 16,
            "intermediate_dim": 32,
            "key_value_dim": 8,
            "activation": "relu",
            "use_gated_activation": False,
            "tie_embedding_weights": True,
        },
    ),
    # Whisper-tiny's shape (37.8M parameters): 4 encoder and 4 decoder layers. KerasHub's max_encoder_sequence_length
    # counts log-mel frames (3000 = 30 s at 100 frames/s); the convolutional stem halves them to 1500 positions.
    "whisper_tiny": Model(
        "whisper_tiny",
        "Whisper-tiny 39M",
        "WhisperBackbone",
        "WhisperAudioToText",
        {
            "vocabulary_size": 51865,
            "num_layers": 4,
            "num_heads": 6,
            "hidden_dim": 384,
            "intermediate_dim": 1536,
            "num_mels": 80,
            "max_encoder_sequence_length": 3000,
            "max_decoder_sequence_length": 448,
        },
        {
            "vocabulary_size": 300,
            "num_layers": 2,
            "num_heads": 2,
            "hidden_dim": 16,
            "intermediate_dim": 32,
            "num_mels": 8,
            "max_encoder_sequence_length": 32,
            "max_decoder_sequence_length": 96,
        },
    ),
    # Moonshine-tiny's shape (27.1M parameters): 6 encoder and 6 decoder layers of width 288 and 8 heads (head
    # dimension 36, 90% of it rotated), a 1152-wide feed-forward (hidden_dim x feedforward_expansion_factor 4; GELU in
    # the encoder, SwiGLU in the decoder), a 32,768-token vocabulary, the convolutional audio stem 288 filters wide.
    # KerasHub 0.32's moonshine_tiny_en metadata has the parameter count only (27,092,736: this config's trainable
    # weights, exactly; the two rotary inv_freq vectors add 32 untrained ones), not the config. The numbers are the
    # published Moonshine-tiny config: Transformers' MoonshineConfig defaults (its docstring: UsefulSensors/
    # moonshine-tiny's configuration), with max_position_embeddings 194 as moonshine-tiny's config.json has it (512
    # in the defaults; a stored number that bounds nothing here: KerasHub and tfkit.hub compute the rotary angles per
    # position), mapped to MoonshineBackbone's arguments as KerasHub's convert_moonshine_checkpoints.py maps them.
    "moonshine_tiny": Model(
        "moonshine_tiny",
        "Moonshine-tiny 27M",
        "MoonshineBackbone",
        "MoonshineAudioToText",
        {
            "vocabulary_size": 32768,
            "filter_dim": 288,
            "encoder_num_layers": 6,
            "decoder_num_layers": 6,
            "hidden_dim": 288,
            "intermediate_dim": 1152,
            "encoder_num_heads": 8,
            "decoder_num_heads": 8,
            "feedforward_expansion_factor": 4,
            **MOONSHINE_SHARED,
        },
        {
            "vocabulary_size": 300,
            "filter_dim": 16,
            "encoder_num_layers": 2,
            "decoder_num_layers": 2,
            "hidden_dim": 16,
            "intermediate_dim": 32,
            "encoder_num_heads": 2,
            "decoder_num_heads": 2,
            "feedforward_expansion_factor": 2,
            **MOONSHINE_SHARED,
            # large weights: at KerasHub's 0.02 (and at 0.3) every tiny row greedily repeats one token, which checks
            # little; at 0.7 the rows of the b8 case pick 23 to 40 different tokens each
            "initializer_range": 0.7,
        },
    ),
    # BERT-base's shape (109M parameters in the backbone).
    "bert_base": Model(
        "bert_base",
        "BERT-base",
        "BertBackbone",
        "BertTextClassifier",
        {
            "vocabulary_size": 30522,
            "num_layers": 12,
            "num_heads": 12,
            "hidden_dim": 768,
            "intermediate_dim": 3072,
            "max_sequence_length": 512,
        },
        {
            "vocabulary_size": 300,
            "num_layers": 2,
            "num_heads": 2,
            "hidden_dim": 16,
            "intermediate_dim": 32,
            "max_sequence_length": 128,
        },
    ),
}


@dataclasses.dataclass(frozen=True)
class PretrainedCase:
    """One job of the section: a model, what is done with it, at one batch size."""

    name: str
    model: str
    kind: str  # "generate", "classifier" (full fine-tuning) or "lora"
    batch_size: int
    label: str
    peers: tuple[str, ...] = PEERS
    samplers: tuple[str, ...] = SAMPLERS


# The encoder-decoder models' decoder start token: T5's is its padding id 0, Whisper's <|startoftranscript|>
# (50258 in Whisper-tiny's vocabulary; the tiny vocabulary's last id), Moonshine's <s> = 1 (KerasHub's
# MoonshineTokenizer is a LlamaTokenizer, whose start_token_id the preprocessor puts first; Moonshine-tiny's
# config.json has decoder_start_token_id 1).
DECODER_START: dict[str, int] = {"t5_small": 0, "whisper_tiny": 50258, "moonshine_tiny": 1}
# Encoder-decoder cases: KerasHub 0.32 has T5Seq2SeqLM and MoonshineAudioToText, but no Whisper task (only
# WhisperBackbone), so only tfkit.hub runs the Whisper cases: a decoding loop written in the peer would time that loop,
# not KerasHub. Greedy only.
ENCODER_DECODER_PEERS: dict[str, tuple[str, ...]] = {
    "t5": ("tfkit", "keras3", "keras3_jax"),
    "whisper": ("tfkit",),
    "moonshine": ("tfkit", "keras3", "keras3_jax"),
}
# Moonshine's encoder reads raw 16 kHz samples and its compute grows with the clip (no 30 s window to pad to, unlike
# Whisper): 10 s is an utterance-length clip, and Moonshine's model card bounds decoding at 6.5 tokens a second of
# audio (65 for 10 s), about the NEW_TOKENS every case decodes.
AUDIO_SECONDS = 10
SAMPLING_RATE = 16000


def _cases() -> dict[str, PretrainedCase]:
    cases = {}
    for short, model in (("gpt2", "gpt2_124m"), ("llama", "llama_100m"), ("moe", "mixtral_moe")):
        # the Transformers peer's mapping (transformers_config.py, transformers_weights.py) has no Mixtral yet
        peers = PEERS if short != "moe" else tuple(peer for peer in PEERS if peer != "transformers_torch")
        for batch in GENERATE_BATCH_SIZES:
            name = f"gen_{short}_b{batch}"
            label = f"{MODELS[model].label} generate b{batch}"
            cases[name] = PretrainedCase(name, model, "generate", batch, label, peers)
    for short, model in (("t5", "t5_small"), ("whisper", "whisper_tiny"), ("moonshine", "moonshine_tiny")):
        for batch in GENERATE_BATCH_SIZES:
            name = f"gen_{short}_b{batch}"
            label = f"{MODELS[model].label} generate b{batch}"
            peers = ENCODER_DECODER_PEERS[short]
            cases[name] = PretrainedCase(name, model, "generate", batch, label, peers, ("greedy",))
    size = f"b{FINE_TUNE_BATCH} x {FINE_TUNE_SEQUENCE}"
    cases["ft_bert"] = PretrainedCase(
        "ft_bert", "bert_base", "classifier", FINE_TUNE_BATCH, f"BERT-base classifier fine-tuning {size}"
    )
    cases["ft_llama_lora"] = PretrainedCase(
        "ft_llama_lora", "llama_100m", "lora", FINE_TUNE_BATCH, f"Llama-style 100M LoRA r{LORA_RANK} {size}"
    )
    return cases


CASES: dict[str, PretrainedCase] = _cases()
CASE_NAMES: tuple[str, ...] = tuple(CASES)


def models_for(cases: Any) -> list[str]:
    """The models (preset names) the given case names need, in ``MODELS`` order; other cases need none."""
    wanted = {CASES[case].model for case in cases if case in CASES}
    return [name for name in MODELS if name in wanted]


def preset_dir(data_dir: str | pathlib.Path, model: str) -> pathlib.Path:
    """Where the run keeps ``model``'s preset: ``<data_dir>/presets/<model>``."""
    return pathlib.Path(data_dir) / PRESETS_FOLDER / model


def row_fields() -> list[tuple[str, str, str, str, str | None, int]]:
    """The table rows of the section as ``spec.Row``'s fields: (case, metric, label, unit, better, digits)."""
    rows: list[tuple[str, str, str, str, str | None, int]] = []
    for case in CASES.values():
        label = case.label
        if case.kind == "generate":
            for sampler in case.samplers:
                words = SAMPLER_WORDS[sampler]
                rows.append((case.name, f"ttft_{sampler}_s", f"{label}, {words}: time to first token", "s", "lower", 3))
                rows.append(
                    (case.name, f"tokens_per_s_{sampler}", f"{label}, {words}: tokens/s", "tokens/s", "higher", 1)
                )
            for sampler in case.samplers:
                words = SAMPLER_WORDS[sampler]
                rows.append(
                    (
                        case.name,
                        f"warmup_{sampler}_s",
                        f"{label}, {words}: warm-up (tracing/compiling)",
                        "s",
                        "lower",
                        1,
                    )
                )
        else:
            rows.append((case.name, "step_steady_s", f"{label}: train step, steady", "s", "lower", 3))
            rows.append((case.name, "warmup_s", f"{label}: warm-up (tracing/compiling)", "s", "lower", 1))
        if case.kind != "generate" or case.batch_size == GENERATE_BATCH_SIZES[0]:
            rows.append((case.name, "load_s", f"{label}: from_preset", "s", "lower", 2))
            rows.append(
                (case.name, "load_rss_over_weights", f"{label}: from_preset peak RSS / weights' size", "x", "lower", 2)
            )
            rows.append((case.name, "peak_rss_mib", f"{label}: peak RSS", "MiB", "lower", 0))
        if case.kind != "generate":
            rows.append((case.name, "loss_epoch2", f"{label}: loss after epoch 2 (sanity)", "", None, 4))
    return rows


def target_fields() -> list[tuple[str, str, str, str | None, float, bool]]:
    """The section's targets against KerasHub on JAX as ``report.Target``'s fields:
    (description, case, metric, peer, bound, higher_is_better)."""
    targets: list[tuple[str, str, str, str | None, float, bool]] = []
    for case in CASES.values():
        if "keras3_jax" not in case.peers:
            continue  # nothing to hold tfkit.hub against (Whisper: KerasHub has no task)
        if case.kind == "generate":
            for sampler in case.samplers:
                words = SAMPLER_WORDS[sampler]
                targets.append(
                    (
                        f"{case.label}, {words}: tokens/s, tfkit.hub >= 1.20x KerasHub on JAX",
                        case.name,
                        f"tokens_per_s_{sampler}",
                        "keras3_jax",
                        1.2,
                        True,
                    )
                )
                targets.append(
                    (
                        f"{case.label}, {words}: time to first token, tfkit.hub <= KerasHub on JAX",
                        case.name,
                        f"ttft_{sampler}_s",
                        "keras3_jax",
                        1.0,
                        False,
                    )
                )
        if case.kind != "generate" or case.batch_size == GENERATE_BATCH_SIZES[0]:
            for peer, words in (("keras3", "KerasHub on TF"), ("keras3_jax", "KerasHub on JAX")):
                targets.append(
                    (f"{case.label}: from_preset, tfkit.hub <= {words}", case.name, "load_s", peer, 1.0, False)
                )
            targets.append(
                (
                    f"{case.label}: from_preset peak RSS <= 1.3x the weights' size",
                    case.name,
                    "load_rss_over_weights",
                    None,
                    1.3,
                    False,
                )
            )
        if case.kind != "generate":
            targets.append(
                (
                    f"{case.label}: train step, tfkit.hub <= 0.90x KerasHub on JAX",
                    case.name,
                    "step_steady_s",
                    "keras3_jax",
                    0.9,
                    False,
                )
            )
    return targets


def section_lines(summary: dict[tuple[str, str], Any]) -> list[str]:
    """The report's check of the section: do the peers' greedy ids agree, and how each peer compiled.

    Args:
        summary: ``report.aggregate``'s cells by (case, runner); a cell's ``info["hub"]`` holds what
            ``bench.peer_hub`` recorded (``greedy_ids``, ``generate`` or ``fit``, parameters).

    Returns:
        Markdown lines (a heading, then one line per case that ran), or none when no case of the section ran.
    """
    lines: list[str] = []
    for case in CASES.values():
        hubs = {peer: summary[(case.name, peer)].info.get("hub", {}) for peer in PEERS if (case.name, peer) in summary}
        hubs = {peer: hub for peer, hub in hubs.items() if hub}
        if not hubs:
            continue
        forms = ", ".join(
            f"{TITLES[peer]}: {hub.get('generate') or hub.get('fit', '?')} ({hub.get('params', 0):,} parameters"
            + (f", {hub['trainable_params']:,} trainable" if "trainable_params" in hub else "")
            + ")"
            for peer, hub in hubs.items()
        )
        check = ""
        if case.kind == "generate":
            check = " " + greedy_agreement({peer: hub.get("greedy_ids") for peer, hub in hubs.items()})
        lines.append(f"- {case.label}: {forms}.{check}")
    if not lines:
        return []
    return [
        "",
        "## Pretrained models: correctness and compilation",
        "",
        "Greedy ids of the 64 new tokens (a correctness line, not a timing; an encoder-decoder's new decoder "
        "tokens after its start token): every peer loads the same "
        "preset and prompts, so they should agree; random weights make near-ties, where float rounding "
        "between backends may pick another token and the rest of the row follows it. In the tables, "
        "the tfkit column is tfkit.hub, Keras 3 is KerasHub on TensorFlow, Keras 3 on JAX is KerasHub on JAX and "
        "Transformers on PyTorch is Hugging Face Transformers with the preset's weights copied in (its from_preset "
        "rows time building the model from the config and filling it from the preset's .h5). The Whisper rows have "
        "tfkit.hub alone: KerasHub 0.32 has a WhisperBackbone but no Whisper task to generate with.",
        "",
    ] + lines


def greedy_agreement(ids: dict[str, Any]) -> str:
    """One sentence: do the peers' greedy ids equal tfkit.hub's (or the first peer's), and where they part."""
    present = {peer: value for peer, value in ids.items() if value is not None}
    if len(present) < 2:
        return "Greedy ids: fewer than two peers generated, nothing to compare."
    reference_peer = "tfkit" if "tfkit" in present else next(iter(present))
    reference = present[reference_peer]
    parts = []
    for peer, value in present.items():
        if peer == reference_peer:
            continue
        if value == reference:
            parts.append(f"{TITLES[peer]} identical")
            continue
        rows = [index for index, (a, b) in enumerate(zip(reference, value)) if a != b]
        if len(reference) != len(value) or not rows:
            parts.append(f"{TITLES[peer]} differs in shape")
            continue
        row = rows[0]
        column = next(index for index, (a, b) in enumerate(zip(reference[row], value[row])) if a != b)
        parts.append(
            f"{TITLES[peer]} **differs** in {len(rows)} of {len(reference)} rows (first at row {row}, new token {column})"
        )
    return f"Greedy ids against {TITLES[reference_peer]}: " + "; ".join(parts) + "."
