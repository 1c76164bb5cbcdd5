"""Generate text with a Llama 3 model: greedy, top-k and top-p sampling, then a LoRA fine-tune (KerasHub's way, in tfkit).

    python examples/llama_generation.py            # the full run: downloads KerasHub's Llama 3.2 1B preset
    python examples/llama_generation.py --preset path/or/handle
    python examples/llama_generation.py --small    # a quick check: a tiny RANDOM Llama 3 made here, taught three
                                                   # sentences by heart (what the test suite runs)

The code is what a KerasHub user writes, with two imports changed:
``import tfkit as keras`` and ``import tfkit.hub as keras_hub``.
``Llama3CausalLM.from_preset`` loads the backbone, the byte-level byte-pair
tokenizer and the preprocessor; ``generate`` takes a batch of raw prompts of
different lengths and returns text, with the sampler chosen in
``compile(sampler=...)``, a ``max_length`` and ``stop_token_ids``. Then
``backbone.enable_lora(4)`` freezes the model and trains low-rank adapters
only, for a few steps of ``fit`` on raw strings, and the model generates again.

By default ``--preset`` is KerasHub's Llama 3.2 1B on Kaggle
(``kaggle://keras/llama3/keras/llama3.2_1b/1``, 2.5 GB): ``kagglehub``
downloads it (``pip install kagglehub``), and Meta's license must first be
accepted on Kaggle with your account (``kaggle.json`` or ``KAGGLE_USERNAME``/
``KAGGLE_KEY``). A Hugging Face checkpoint (``hf://meta-llama/Llama-3.2-1B``,
after accepting the license there and ``huggingface-cli login``) or a local
preset folder works too. The full run was not measured here (no internet).

``--small`` downloads nothing. It writes a byte-pair vocabulary and merges
from the example's own sentences, makes a tiny RANDOM Llama 3 (2 layers,
hidden 32, grouped-query attention), saves it as a preset with
``save_to_preset`` in the working folder and loads it back with
``from_preset``. Random weights write random bytes, so the model first learns
three sentences by heart (a few hundred steps of ``fit``): greedy generation
from the start of each sentence must then reproduce the rest, which the
script checks and reports (``memorized``, the fraction of prompts whose
continuation came out exactly).
"""

from __future__ import annotations

import argparse
import collections
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

import tfkit as keras  # noqa: E402
import tfkit.hub as keras_hub  # noqa: E402

DEFAULT_PRESET = "kaggle://keras/llama3/keras/llama3.2_1b/1"
SENTENCES = [
    "the quick brown fox jumps over the lazy dog.",
    "a small cat sleeps on the warm mat.",
    "once upon a time there was a tiny model.",
]
PROMPTS = ["the quick brown", "a small", "once upon a time there"]  # three lengths in one batch
LORA_TEXTS = ["the lazy dog sleeps on the warm mat."]
SPECIAL_TOKENS = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]


def byte_characters() -> list[str]:
    """The character byte-level BPE writes for each of the 256 bytes (printable ones as themselves)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    characters, shifted = [], 0
    for byte in range(256):
        if byte in printable:
            characters.append(chr(byte))
        else:
            characters.append(chr(256 + shifted))
            shifted += 1
    return characters


def byte_pair_vocabulary(texts: list[str], num_merges: int = 80) -> tuple[dict[str, int], list[str]]:
    """A byte-level vocabulary with ``num_merges`` merges learnt from ``texts`` (the most frequent pair of
    each round, within words; "Ġ" stands for the space before a word), then Llama 3's special tokens."""
    words = collections.Counter()
    for text in texts:
        for k, word in enumerate(text.split(" ")):
            words[tuple(("Ġ" if k else "") + word.rstrip("."))] += 1  # "dog." splits as "dog" and "."
    vocabulary = {character: i for i, character in enumerate(byte_characters())}
    merges = []
    for _ in range(num_merges):
        pairs = collections.Counter()
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += count
        if not pairs:
            break
        (left, right), _ = max(pairs.items(), key=lambda item: (item[1], item[0]))  # ties: a fixed order
        merges.append(f"{left} {right}")
        vocabulary.setdefault(left + right, len(vocabulary))
        merged = collections.Counter()
        for word, count in words.items():
            parts, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == (left, right):
                    parts.append(left + right)
                    i += 2
                else:
                    parts.append(word[i])
                    i += 1
            merged[tuple(parts)] += count
        words = merged
    for token in SPECIAL_TOKENS:
        vocabulary[token] = len(vocabulary)
    return vocabulary, merges


def tiny_random_preset(folder: str) -> str:
    """A random Llama3CausalLM preset (2 layers, hidden 32) saved in ``folder``, as KerasHub would."""
    vocabulary, merges = byte_pair_vocabulary(SENTENCES + LORA_TEXTS)
    tokenizer = keras_hub.models.Llama3Tokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.Llama3Backbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_query_heads=4,
        num_key_value_heads=2,
        hidden_dim=32,
        intermediate_dim=64,
        rope_max_wavelength=500000,
        layer_norm_epsilon=1e-5,
    )
    preprocessor = keras_hub.models.Llama3CausalLMPreprocessor(tokenizer, sequence_length=16)
    keras_hub.models.Llama3CausalLM(backbone, preprocessor).save_to_preset(folder)
    print(f"saved a random Llama 3 preset to {folder}: {len(vocabulary)} tokens, {len(merges)} merges")
    return folder


def timed_generate(causal_lm, prompts: list[str], max_length: int) -> tuple[list[str], float]:
    """``generate`` once to compile, then once timed; returns the texts and the new tokens a second."""
    causal_lm.generate(prompts, max_length=max_length, stop_token_ids=None)
    start = time.perf_counter()
    texts = causal_lm.generate(prompts, max_length=max_length, stop_token_ids=None)
    seconds = time.perf_counter() - start
    prompt_tokens = sum(int(np.size(causal_lm.preprocessor.tokenizer(p))) + 1 for p in prompts)  # + the start
    return texts, (len(prompts) * max_length - prompt_tokens) / seconds


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a tiny random Llama 3 made here, no download")
    parser.add_argument("--preset", default=None, help=f"a preset folder or handle (default {DEFAULT_PRESET})")
    parser.add_argument("--max-length", type=int, default=None, help="prompt plus completion, in tokens")
    parser.add_argument("--lora-steps", type=int, default=None)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(0)
    max_length = args.max_length or (16 if args.small else 48)
    preset = args.preset or (tiny_random_preset("tiny_llama3_preset") if args.small else DEFAULT_PRESET)

    causal_lm = keras_hub.models.Llama3CausalLM.from_preset(preset)
    # Generation runs as one XLA-compiled loop by default; for a model this tiny the compile (about 3 s
    # each time the sampler or the stop tokens change) costs more than it saves, so --small runs without.
    jit_compile = False if args.small else "auto"
    figures = {}
    if args.small:  # random weights: first learn the sentences by heart, so that generating means something
        causal_lm.compile(optimizer=keras.optimizers.Adam(1e-2), jit_compile=jit_compile)
        history = causal_lm.fit(SENTENCES * 40, batch_size=3, epochs=2, verbose=0)  # 40 steps an epoch
        figures["memorize_loss"] = float(history.history["loss"][-1])
        print(f"memorizing: loss {history.history['loss'][0]:.3f} -> {figures['memorize_loss']:.4f}")

    causal_lm.compile(sampler="greedy", jit_compile=jit_compile)
    greedy, figures["tokens_per_second"] = timed_generate(causal_lm, PROMPTS, max_length)
    print(f"greedy, to max_length={max_length} ({figures['tokens_per_second']:.0f} new tokens/s):")
    for text in greedy:
        print(f"  {text!r}")
    completions = causal_lm.generate(PROMPTS, max_length=max_length)  # stops at the end token ("auto")
    print("greedy, stopping at the end token:", completions)
    if args.small:
        figures["memorized"] = float(np.mean([c in SENTENCES for c in completions]))
        print(f"memorized continuations: {figures['memorized']:.0%} of {len(PROMPTS)}")
    period = causal_lm.preprocessor.tokenizer.token_to_id(".")
    print("greedy, stopping at '.':", causal_lm.generate(PROMPTS, max_length=max_length, stop_token_ids=[period]))

    for sampler in (keras_hub.samplers.TopKSampler(k=5, seed=1), keras_hub.samplers.TopPSampler(p=0.9, seed=1)):
        causal_lm.compile(sampler=sampler, jit_compile=jit_compile)
        print(f"{type(sampler).__name__}:", causal_lm.generate(PROMPTS, max_length=max_length))

    # LoRA: every weight frozen, low-rank adapters on the attention's query and value projections train.
    causal_lm.backbone.enable_lora(4)
    trainable = sum(int(np.prod(w.shape)) for w in causal_lm.backbone.trainable_weights)
    print(f"LoRA: {trainable} trainable of {causal_lm.backbone.count_params()} weights")
    causal_lm.preprocessor.sequence_length = 16 if args.small else 64
    learning_rate = 3e-2 if args.small else 1e-4
    causal_lm.compile(optimizer=keras.optimizers.Adam(learning_rate), sampler="greedy", jit_compile=jit_compile)
    steps = args.lora_steps or (30 if args.small else 6)
    history = causal_lm.fit(LORA_TEXTS * (steps // 2), batch_size=1, epochs=2, verbose=0)  # steps // 2 an epoch
    figures["lora_loss_first"], figures["lora_loss"] = (float(history.history["loss"][i]) for i in (0, -1))
    after = causal_lm.generate(["the lazy"], max_length=max_length)
    print(f"LoRA fit on {LORA_TEXTS}: loss {figures['lora_loss']:.4f}; 'the lazy' ->", after)
    figures["lora_learned"] = float(after == LORA_TEXTS)  # the adapter's sentence came out
    figures["lora_trainable_weights"] = float(trainable)
    return figures


if __name__ == "__main__":
    main()
