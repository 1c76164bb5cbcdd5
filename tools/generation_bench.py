"""What streaming and speculative decoding cost and gain in tfkit.hub, measured in one process.

    python tools/generation_bench.py --part streaming     # GPT-2 124M's shape: stream_generate against generate
    python tools/generation_bench.py --part speculative   # prompt lookup and a draft model against greedy decoding

Streaming: ``generate`` and ``stream_generate`` on the same prompts, their runs
interleaved, at batch 1 and 8 (GPT-2 124M's shape, random weights: the speed
does not depend on the values), as tokens per second and the time to the first
piece.

Speculative decoding: a copying task, where the text to write is in the prompt,
and open text, where it is not; every figure beside greedy decoding of the same
model in the same run, and the ids checked identical.

- GPT-2 124M's shape, random weights, open text: a prompt of random ids. The
  cost side: how much slower prompt lookup and a draft model (GPT-2's shape at
  2 layers) are when few guesses are right.
- A copying task needs a model that copies, which random weights are not, so
  the bench trains one (a GPT-2 of 4 blocks, 256 wide, on sequences "x SEP x":
  some minutes on two cores) and a 1-block draft the same way; the prompt is a
  new x, the separator and x's first token. These models are small, so the
  speed-ups are those of a small model, where a step costs less than its
  fixed work; the open-text rows say what a large model pays.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any, Callable

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tfkit  # noqa: E402
import tfkit.hub as tk_hub  # noqa: E402
from tfkit.hub.models.streaming import STREAM_INTERVAL  # noqa: E402

GPT2_124M = dict(
    vocabulary_size=50257, num_layers=12, num_heads=12, hidden_dim=768, intermediate_dim=3072, max_sequence_length=1024
)
COPY_VOCABULARY, COPY_LENGTH = 512, 48  # the copying task's ids and the length of the text to copy
SEPARATOR = COPY_VOCABULARY - 1


def gpt2(seed: int = 0, **config: Any) -> Any:
    """A GPT2CausalLM of `config`, compiled for greedy decoding."""
    tf.random.set_seed(seed)
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


def copy_batches(batch: int, seed: int) -> Callable[[], tuple[dict[str, np.ndarray], np.ndarray]]:
    """A function giving a new batch of "x SEP x" (x random ids) each call, as (inputs, next-token targets)."""
    rng = np.random.default_rng(seed)

    def one() -> tuple[dict[str, np.ndarray], np.ndarray]:
        text = rng.integers(1, SEPARATOR, (batch, COPY_LENGTH))
        sequence = np.concatenate([text, np.full((batch, 1), SEPARATOR), text], axis=1).astype("int32")
        inputs = {"token_ids": sequence[:, :-1], "padding_mask": np.ones_like(sequence[:, :-1], bool)}
        return inputs, sequence[:, 1:]

    return one


def trained_copier(num_layers: int, hidden_dim: int, steps: int, seed: int) -> Any:
    """A GPT-2 trained to copy: `steps` Adam steps on "x SEP x" batches of 32."""
    causal_lm = gpt2(
        seed,
        vocabulary_size=COPY_VOCABULARY,
        num_layers=num_layers,
        num_heads=4,
        hidden_dim=hidden_dim,
        intermediate_dim=4 * hidden_dim,
        max_sequence_length=2 * COPY_LENGTH + 8,
    )
    causal_lm.preprocessor = None
    causal_lm.compile(optimizer=tfkit.optimizers.Adam(1e-3), sampler="greedy")
    next_batch = copy_batches(32, seed)
    began = time.perf_counter()
    for _ in range(steps):
        inputs, targets = next_batch()
        loss = causal_lm.train_on_batch(inputs, targets)
    print(
        f"trained a {num_layers}-block, {hidden_dim}-wide copier: {steps} steps in {time.perf_counter() - began:.0f} s, "
        f"last loss {float(np.ravel(loss)[0]):.3f}"
    )
    causal_lm.compile(sampler="greedy")
    return causal_lm


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


def print_rows(task: str, rows: dict[str, tuple], tokens: int) -> None:
    greedy = rows["greedy"][0]
    for name, (seconds, same) in rows.items():
        print(f"| {task} | {name} | {tokens / seconds:.1f} | {greedy / seconds:.2f}x | {'yes' if same else 'NO'} |")


def speculative(repeats: int, steps: int) -> None:
    print("| task | decoding | tok/s | against greedy | greedy's ids |")
    print("|---|---|---:|---:|:---:|")
    target = gpt2(0, **GPT2_124M)
    draft = gpt2(1, **{**GPT2_124M, "num_layers": 2})
    print_rows(
        "open text, GPT-2 124M, batch 1", speculative_rows(target, draft, prompts(1, 32, 160, 50257), repeats), 128
    )
    copier = trained_copier(4, 256, steps, seed=0)
    small = trained_copier(1, 128, steps, seed=1)
    text = np.random.default_rng(99).integers(1, SEPARATOR, (1, COPY_LENGTH))
    length = 2 * COPY_LENGTH + 1
    token_ids = np.zeros((1, length), "int32")
    token_ids[0, : COPY_LENGTH + 2] = np.concatenate([text[0], [SEPARATOR], text[0, :1]])
    copying = {"token_ids": token_ids, "padding_mask": np.arange(length)[None, :] < COPY_LENGTH + 2}
    rows = speculative_rows(copier, small, copying, repeats)
    copied = copier.generate(dict(copying), stop_token_ids=None)["token_ids"][0, COPY_LENGTH + 1 :]
    print_rows("copying, 4-block copier, batch 1", rows, COPY_LENGTH - 1)
    print(f"(the copier reproduced {int((copied == text[0]).sum())} of {COPY_LENGTH} tokens)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["streaming", "speculative"], required=True)
    parser.add_argument("--repeats", type=int, default=5, help="interleaved timed runs of each kind")
    parser.add_argument("--interval", type=float, default=STREAM_INTERVAL, help="stream_generate's interval")
    parser.add_argument("--train-steps", type=int, default=600, help="training steps of each copier")
    args = parser.parse_args()
    if args.part == "streaming":
        streaming(args.repeats, args.interval)
    else:
        speculative(args.repeats, args.train_steps)


if __name__ == "__main__":
    main()
