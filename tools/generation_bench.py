"""What streaming and speculative decoding cost and gain in tfkit.hub, measured in one process.

    python tools/generation_bench.py --part streaming     # GPT-2 124M's shape: stream_generate against generate
    python tools/generation_bench.py --part speculative   # prompt lookup and a draft model against greedy decoding

Streaming: ``generate`` and ``stream_generate`` on the same prompts, their runs
interleaved, at batch 1 and 8 (GPT-2 124M's shape, random weights: the speed
does not depend on the values), as tokens per second and the time to the first
piece.

Speculative decoding: GPT-2 124M's shape at batch 1, random weights (seeded),
against greedy decoding of the same model in the same run, the ids checked
identical. A random model's greedy text falls into loops, which prompt lookup
then copies, so its rows say what a round of checked guesses gains and costs
at GPT-2 124M's size, not what a trained model gains on real text: "tokens a
round" replays prompt lookup in NumPy on the ids greedy decoding wrote, and
"round cost" is the time of a round in greedy steps (tokens a round divided by
the speed-up). Text where every round's guesses fail runs at 1 / round cost of
greedy's speed, text where prompt lookup finds no n-gram at greedy's. The
draft is GPT-2's shape at 2 blocks, random too: it guesses nothing right (the
worst case for a draft model: its steps are paid for nothing).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any, Callable

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

import tfkit  # noqa: E402
import tfkit.hub as tk_hub  # noqa: E402
from tfkit.hub.models.streaming import STREAM_INTERVAL  # noqa: E402

GPT2_124M = dict(
    vocabulary_size=50257, num_layers=12, num_heads=12, hidden_dim=768, intermediate_dim=3072, max_sequence_length=1024
)


def gpt2(seed: int = 0, **config: Any) -> Any:
    """A GPT2CausalLM of `config`, compiled for greedy decoding."""
    tfkit.utils.set_random_seed(seed)  # the same random model in every run
    causal_lm = tk_hub.models.GPT2CausalLM(tk_hub.models.GPT2Backbone(**config))
    causal_lm.compile(sampler="greedy")
    return causal_lm


def interleaved(runs: dict[str, Callable[[], Any]], repeats: int) -> dict[str, float]:
    """The median seconds of each run, the runs taken in turn `repeats` times after one warm-up each."""
    for run in runs.values():
        run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            began = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - began)
    return {name: statistics.median(values) for name, values in times.items()}


def prompts(batch: int, prompt_length: int, length: int, vocabulary: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    mask = np.arange(length)[None, :].repeat(batch, 0) < prompt_length
    return {"token_ids": np.where(mask, rng.integers(1, vocabulary, (batch, length)), 0), "padding_mask": mask}


def streaming(repeats: int, interval: float) -> None:
    causal_lm = gpt2(**GPT2_124M)
    print("| batch | generate tok/s | stream_generate tok/s | ratio | first piece | generate's whole call |")
    print("|---:|---:|---:|---:|---:|---:|")
    for batch in (1, 8):
        prompt = prompts(batch, 32, 160, 50257)
        first: list[float] = []

        def stream() -> None:
            began = time.perf_counter()
            for i, _ in enumerate(causal_lm.stream_generate(dict(prompt), stop_token_ids=None, interval=interval)):
                if i == 0:
                    first.append(time.perf_counter() - began)

        seconds = interleaved(
            {"generate": lambda: causal_lm.generate(dict(prompt), stop_token_ids=None), "stream": stream}, repeats
        )
        tokens = batch * 128
        print(
            f"| {batch} | {tokens / seconds['generate']:.1f} | {tokens / seconds['stream']:.1f} | "
            f"{seconds['generate'] / seconds['stream']:.3f} | {statistics.median(first) * 1000:.0f} ms | "
            f"{seconds['generate'] * 1000:.0f} ms |"
        )


def lookup_rounds(ids: np.ndarray, start: int, num_tokens: int, max_ngram_size: int = 2) -> int:
    """The rounds prompt lookup takes to write `ids[start:]` (one row), replayed in NumPy from the final ids.

    Each round guesses what followed an earlier match of the longest n-gram
    ending at the current position (the latest followed by as many known
    tokens as it guesses, else the earliest, as `PromptLookupProposer`), keeps
    the guesses that equal the ids, and adds one token: an independent count
    of how many tokens a round writes.
    """
    rounds, index = 0, start
    while index < len(ids):
        guesses: list[int] = []
        for n in range(max_ngram_size, 1 if max_ngram_size > 1 else 0, -1):
            tail = list(ids[index - n : index])
            starts = [j for j in range(index - n) if list(ids[j : j + n]) == tail]
            if index >= n and starts:
                whole = [j for j in starts if j + n + num_tokens <= index]
                source = (whole[-1] if whole else starts[0]) + n
                guesses = list(ids[source : min(source + num_tokens, index)])
                break
        kept = 0
        while kept < len(guesses) and index + kept < len(ids) and guesses[kept] == ids[index + kept]:
            kept += 1
        index += kept + 1
        rounds += 1
    return rounds


def speculative_rows(target: Any, draft: Any, prompt: dict[str, np.ndarray], repeats: int) -> dict[str, tuple]:
    """Seconds of greedy, prompt lookup and draft decoding, and whether each gave greedy's ids."""
    kinds = {
        "greedy": {},
        "prompt lookup (4)": {"prompt_lookup_num_tokens": 4},
        "prompt lookup (8)": {"prompt_lookup_num_tokens": 8},
        "draft model (4)": {"assistant_model": draft, "num_assistant_tokens": 4},
    }
    outputs = {
        name: target.generate(dict(prompt), stop_token_ids=None, **kw)["token_ids"] for name, kw in kinds.items()
    }
    seconds = interleaved(
        {name: (lambda kw=kw: target.generate(dict(prompt), stop_token_ids=None, **kw)) for name, kw in kinds.items()},
        repeats,
    )
    return {name: (seconds[name], bool((outputs[name] == outputs["greedy"]).all())) for name in kinds}


def speculative(repeats: int) -> None:
    print("| prompt | decoding | tok/s | against greedy | tokens a round | round cost | greedy's ids |")
    print("|---|---|---:|---:|---:|---:|:---:|")
    target = gpt2(0, **GPT2_124M)
    draft = gpt2(1, **{**GPT2_124M, "num_layers": 2})
    random_prompt = prompts(1, 32, 160, 50257)
    repeated = {
        "token_ids": np.where(random_prompt["padding_mask"], 5504, 0),
        "padding_mask": random_prompt["padding_mask"],
    }
    for text, prompt in (("32 random ids", random_prompt), ("one id 32 times", repeated)):
        rows = speculative_rows(target, draft, prompt, repeats)
        ids = target.generate(dict(prompt), stop_token_ids=None)["token_ids"][0]
        greedy = rows["greedy"][0]
        for name, (seconds, same) in rows.items():
            per_round, cost = "1", "1"
            if name.startswith("prompt lookup"):
                tokens = 128 / lookup_rounds(ids, 32, int(name.split("(")[1].rstrip(")")))
                per_round, cost = f"{tokens:.2f}", f"{tokens * seconds / greedy:.2f}"
            elif name.startswith("draft"):
                per_round, cost = "-", "-"
            print(
                f"| {text} | {name} | {128 / seconds:.1f} | {greedy / seconds:.2f}x | {per_round} | {cost} | "
                f"{'yes' if same else 'NO'} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["streaming", "speculative"], required=True)
    parser.add_argument("--repeats", type=int, default=5, help="interleaved timed runs of each kind")
    parser.add_argument("--interval", type=float, default=STREAM_INTERVAL, help="stream_generate's interval")
    args = parser.parse_args()
    if args.part == "streaming":
        streaming(args.repeats, args.interval)
    else:
        speculative(args.repeats)


if __name__ == "__main__":
    main()
