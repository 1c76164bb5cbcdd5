"""Fine-tuning steps under XLA and ``mixed_bfloat16``: the bench's two fine-tuning cases, variant by variant.

    python tools/finetune_variants.py --presets DIR                      # every variant, tfkit.hub and KerasHub on JAX
    python tools/finetune_variants.py --presets DIR --cases ft_bert --variants float32,bf16 --repeats 3

``tools/bench.py --workloads pretrained`` fine-tunes the BERT-base classifier
and the Llama-style LoRA model with each framework's defaults (tfkit.hub's
``jit_compile="auto"``, float32). This runs the same cases (``bench.peer_hub``'s
data, steps and epochs) under the variants the defaults leave out:

- ``float32``: the defaults;
- ``xla``: ``compile(jit_compile=True)`` (KerasHub on JAX always compiles with XLA);
- ``bf16``: ``dtype="mixed_bfloat16"`` given to ``from_preset`` (bfloat16 compute, float32 variables);
- ``bf16_xla``: both.

Each (case, variant, peer) runs in its own process, the peers alternating
within a repeat; the table gives the median steady step in seconds and the
ratio to KerasHub on JAX's in the same variant. ``DIR`` holds the bench's presets
(``bert_base`` and ``llama_100m``, as ``tools/bench.py`` writes them under its data
folder's ``presets``). Whether the CPU has bfloat16 instructions (``avx512_bf16``,
``amx_bf16``) is printed with the table: without them bfloat16 is emulated and slower.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench import pretrained  # noqa: E402

VARIANTS: dict[str, dict[str, Any]] = {
    "float32": {"dtype": None, "jit_compile": None},
    "xla": {"dtype": None, "jit_compile": True},
    "bf16": {"dtype": "mixed_bfloat16", "jit_compile": None},
    "bf16_xla": {"dtype": "mixed_bfloat16", "jit_compile": True},
}
CASES: tuple[str, ...] = ("ft_bert", "ft_llama_lora")
PEERS: tuple[str, ...] = ("tfkit", "keras3_jax")


def run_one(case_name: str, variant: str, peer: str, presets: str, quick: bool) -> dict[str, Any]:
    """One fine-tuning in this process: ``{"step_steady_s", "loss_epoch2", "fit", ...}``."""
    from bench import peer_hub

    peer_hub.load(peer)
    case = pretrained.CASES[case_name]
    settings = VARIANTS[variant]
    preset = pathlib.Path(presets) / case.model
    kwargs: dict[str, Any] = {"preprocessor": None}
    if case.kind == "classifier":
        kwargs["num_classes"] = pretrained.NUM_CLASSES
    if settings["dtype"]:
        kwargs["dtype"] = settings["dtype"]
    model = peer_hub.task_class(pretrained.MODELS[case.model].task).from_preset(str(preset), **kwargs)
    if settings["jit_compile"] is not None:
        compile_method = model.compile

        def compile_with_xla(*args: Any, **kwargs: Any) -> Any:
            return compile_method(*args, jit_compile=settings["jit_compile"], **kwargs)

        model.compile = compile_with_xla
    metrics, info = peer_hub.run_fine_tune(case, model, peer_hub.vocabulary_size(preset), quick)
    compute = getattr(model.backbone, "compute_dtype", None)
    return {**metrics, **info, "compute_dtype": str(getattr(compute, "name", compute))}


def measure(case: str, variant: str, peer: str, presets: str, quick: bool) -> dict[str, Any]:
    """``run_one`` in a fresh process; ``{"error": ...}`` when it fails."""
    payload = json.dumps({"case": case, "variant": variant, "peer": peer, "presets": presets, "quick": quick})
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, __file__, "--one", payload], capture_output=True, text=True, env=env, timeout=1800
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(lines[-1])


def bf16_instructions(cpuinfo: str = "/proc/cpuinfo") -> str:
    """The CPU's bfloat16 instruction sets named in ``cpuinfo``'s flags, or "none found"."""
    try:
        flags = pathlib.Path(cpuinfo).read_text().split()
    except OSError:
        return f"unknown (no {cpuinfo})"
    found = sorted({flag for flag in flags if flag in ("avx512_bf16", "amx_bf16")})
    return ", ".join(found) or "none found"


def table(results: dict[tuple[str, str, str], list[dict[str, Any]]], cases: list[str], variants: list[str]) -> str:
    """A Markdown table: per case and variant, each peer's median steady step and tfkit.hub's ratio."""
    lines = [
        "| case | variant | tfkit.hub step [s] | KerasHub on JAX step [s] | ratio | tfkit.hub fit | loss after epoch 2 |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for case in cases:
        for variant in variants:
            cells, ratios = {}, []
            runs = {peer: results.get((case, variant, peer), []) for peer in PEERS}
            for peer, records in runs.items():
                steps = [r["step_steady_s"] for r in records if "step_steady_s" in r]
                errors = [r["error"] for r in records if "error" in r]
                cells[peer] = f"{statistics.median(steps):.3f}" if steps else f"failed: {errors[:1]}"
            for mine, theirs in zip(runs["tfkit"], runs["keras3_jax"]):
                if "step_steady_s" in mine and "step_steady_s" in theirs:
                    ratios.append(mine["step_steady_s"] / theirs["step_steady_s"])
            ratio = f"{statistics.median(ratios):.2f}x" if ratios else "-"
            mine = next((r for r in runs["tfkit"] if "fit" in r), {})
            losses = " / ".join(
                f"{records[0].get('loss_epoch2', float('nan')):.4f}" for records in runs.values() if records
            )
            fit = f"{mine.get('fit', '?')}, {mine.get('compute_dtype', '?')}"
            lines.append(
                f"| {pretrained.CASES[case].label} | {variant} | {cells['tfkit']} | {cells['keras3_jax']} | "
                f"{ratio} | {fit} | {losses} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", help="the folder holding the bench's presets (bert_base, llama_100m)")
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated subset of {','.join(CASES)}")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"subset of {','.join(VARIANTS)}")
    parser.add_argument("--repeats", type=int, default=1, help="processes per (case, variant, peer)")
    parser.add_argument("--quick", action="store_true", help="the bench's --quick steps and epochs")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        job = json.loads(args.one)
        print(json.dumps(run_one(job["case"], job["variant"], job["peer"], job["presets"], job["quick"])))
        return 0
    if not args.presets:
        parser.error("--presets is required")
    cases, variants = args.cases.split(","), args.variants.split(",")
    unknown = [name for name in cases if name not in CASES] + [name for name in variants if name not in VARIANTS]
    if unknown:
        parser.error(f"unknown case or variant: {', '.join(unknown)}")
    results: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for repeat in range(args.repeats):
        for case in cases:
            for variant in variants:
                peers = PEERS[repeat % 2 :] + PEERS[: repeat % 2]
                for peer in peers:
                    record = measure(case, variant, peer, args.presets, args.quick)
                    results.setdefault((case, variant, peer), []).append(record)
                    print(f"{case} {variant} {peer}: {record}", file=sys.stderr, flush=True)
    print(f"bfloat16 instructions on this CPU: {bf16_instructions()}")
    print(table(results, cases, variants))
    return 0


if __name__ == "__main__":
    sys.exit(main())
