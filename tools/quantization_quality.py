"""What quantizing costs in quality: perplexity and greedy ids of a small GPT-2 this tool trains itself.

    python tools/quantization_quality.py               # trains about 3 minutes on 2 cores, then evaluates
    python tools/quantization_quality.py --steps 200   # shorter

No download: the corpus is this repository's own documentation (``docs/``,
Markdown prose and code), read as bytes (a 256-token vocabulary), its last
tenth held out. A GPT-2 of 4 blocks, 256 wide, learns it with Adam; then the
same weights are quantized as Keras 3 does (`quantize("int8")`: weights and
activations; `"int4"`: weights per output channel) and each version is
scored on the held-out bytes: perplexity (``exp`` of the mean next-byte
loss) and, from 8 held-out prompts of 64 bytes, how many of 32 greedy bytes
equal float32's.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

import tfkit  # noqa: E402
import tfkit.hub as tk_hub  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
WINDOW = 128
CONFIG = dict(
    vocabulary_size=256, num_layers=4, num_heads=4, hidden_dim=256, intermediate_dim=1024, max_sequence_length=WINDOW
)


def corpus() -> tuple[np.ndarray, np.ndarray]:
    """The documentation's bytes: (training part, held-out last tenth)."""
    text = b"\n\n".join(path.read_bytes() for path in sorted((ROOT / "docs").rglob("*.md")))
    data = np.frombuffer(text, np.uint8).astype("int32")
    cut = int(len(data) * 0.9)
    return data[:cut], data[cut:]


def model() -> tfkit.Model:
    causal_lm = tk_hub.models.GPT2CausalLM(tk_hub.models.GPT2Backbone(**CONFIG))
    causal_lm.compile(optimizer=tfkit.optimizers.Adam(1e-3), sampler="greedy")
    return causal_lm


def train(data: np.ndarray, steps: int, batch: int = 32) -> tfkit.Model:
    tfkit.utils.set_random_seed(0)
    causal_lm = model()
    rng = np.random.default_rng(0)
    began = time.perf_counter()
    for step in range(steps):
        starts = rng.integers(0, len(data) - WINDOW - 1, batch)
        windows = np.stack([data[s : s + WINDOW + 1] for s in starts])
        inputs = {"token_ids": windows[:, :-1], "padding_mask": np.ones((batch, WINDOW), bool)}
        loss = causal_lm.train_on_batch(inputs, windows[:, 1:])
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step}: loss {float(np.ravel(loss)[0]):.3f} ({time.perf_counter() - began:.0f} s)")
    return causal_lm


def perplexity(causal_lm: tfkit.Model, data: np.ndarray) -> float:
    count = (len(data) - 1) // WINDOW
    windows = np.stack([data[i * WINDOW : i * WINDOW + WINDOW + 1] for i in range(count)])
    losses = []
    for chunk in np.array_split(windows, max(1, count // 32)):
        losses.append(causal_lm.score(chunk[:, :-1], scoring_mode="loss", target_ids=chunk[:, 1:]).numpy())
    return float(np.exp(np.concatenate(losses).mean()))


def greedy_bytes(causal_lm: tfkit.Model, data: np.ndarray) -> np.ndarray:
    starts = np.linspace(0, len(data) - 200, 8).astype(int)
    ids = np.zeros((8, 96), "int32")
    for row, start in enumerate(starts):
        ids[row, :64] = data[start : start + 64]
    prompt = {"token_ids": ids, "padding_mask": np.arange(96)[None, :].repeat(8, 0) < 64}
    return causal_lm.generate(prompt, stop_token_ids=None)["token_ids"][:, 64:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=800, help="training steps (batches of 32 windows)")
    args = parser.parse_args()
    training, held_out = corpus()
    print(f"corpus: {len(training):,} training bytes, {len(held_out):,} held out")
    trained = train(training, args.steps)
    weights = trained.get_weights()
    reference = greedy_bytes(trained, held_out)
    print("| weights | held-out perplexity | against float32 | greedy bytes equal to float32's |")
    print("| --- | ---: | ---: | ---: |")
    base = perplexity(trained, held_out)
    for mode in (None, "int8", "int4"):
        causal_lm = model()
        causal_lm.set_weights(weights)
        if mode is not None:
            causal_lm.quantize(mode)
        value = base if mode is None else perplexity(causal_lm, held_out)
        same = (greedy_bytes(causal_lm, held_out) == reference).mean()
        print(f"| {mode or 'float32'} | {value:.3f} | {value / base - 1:+.2%} | {same:.1%} |")


if __name__ == "__main__":
    main()
