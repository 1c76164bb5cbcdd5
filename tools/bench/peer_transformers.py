"""The ``pretrained`` workload in Hugging Face Transformers on PyTorch (peer ``transformers_torch``).

    load("transformers_torch")       # import torch, transformers, h5py (missing: the cells are "unavailable")
    metrics, info = run(job, data_dir)

Runs in a worker under the interpreter ``--torch-python`` names (torch,
transformers, h5py, and peft for the LoRA case; no TensorFlow, Keras or tfkit),
on the same cases, prompts and data as ``bench.peer_hub``:

- loading: the preset KerasHub wrote for the run, converted by hand
  (``bench.transformers_model``): the seconds are building the Transformers model
  from its config and filling it from ``model.weights.h5`` with h5py (not
  ``from_pretrained``); peak RSS over the weights as the other peers measure it;
- generation: ``model.generate(input_ids, attention_mask, max_new_tokens=n,
  min_new_tokens=n, use_cache=True)`` under ``torch.inference_mode`` in eval mode,
  greedy (``do_sample=False``) or top-k (``do_sample=True, top_k=5,
  temperature=1.0``, the global generator seeded with ``SAMPLER_SEED`` before each
  call); no stop token, so every row generates all tokens. Time to first token,
  tokens per second and warm-up are ``peer_hub.sampler_metrics``'s, as for the
  other peers;
- fine-tuning: an eager PyTorch loop (forward, ``loss.backward()``,
  ``optimizer.step()``) with ``torch.optim.AdamW`` at KerasHub's default learning
  rates (5e-5 for the classifier, 2e-5 for the causal LM; AdamW's default weight
  decay 0.01), epochs timed as ``fit``'s are. The BERT classifier trains in full
  (dropout on, as in ``fit``); the Llama-style model gets peft's LoRA of rank 4
  (``lora_alpha`` 4, so a scale of 1 as Keras's) on ``q_proj`` and ``v_proj``, the
  query and value projections KerasHub's ``enable_lora`` targets, the rest frozen.
  peft's adapters are ``(rank, in)`` and ``(out, rank)`` matrices, fewer
  parameters than Keras's per-head ``EinsumDense`` adapters: the section's
  parameter line shows both counts.

Threads: torch's default (``torch.get_num_threads()``, one per physical core: 2 on
the 2-core bench machine), recorded with the versions in the case's ``info``. Its
OpenMP threads wait for each other at every op, so another busy process on one of
the cores slows this column far more than the others (measured: the Llama-style
model's batch-8 generate of 64 tokens took 61 s with 2 threads and 3.9 s with 1
while another process kept one core busy).
"""

from __future__ import annotations

import pathlib
import time
from typing import Any, Callable

import numpy as np

from bench import peer_hub, pretrained, timing
from bench.worker import Unavailable, describe

PEER = "transformers_torch"
TITLE = "Transformers on PyTorch"
LEARNING_RATES = {"classifier": 5e-5, "lora": 2e-5}  # KerasHub's TextClassifier / CausalLM compile() defaults
LORA_TARGETS = ("q_proj", "v_proj")

torch: Any = None
transformers: Any = None


def load(peer: str) -> None:
    """Import torch, transformers and h5py; ``Unavailable`` naming what this interpreter lacks."""
    global torch, transformers
    if peer != PEER:
        raise Unavailable(f"bench.peer_transformers runs {PEER}, not {peer!r}")
    missing = []
    for name in ("torch", "transformers", "h5py"):
        try:
            __import__(name)
        except ImportError as error:
            missing.append(describe(error))
    if missing:
        raise Unavailable(
            f"{TITLE} needs torch, transformers and h5py in the --torch-python interpreter: " + "; ".join(missing)
        )
    import torch as torch_module
    import transformers as transformers_module

    torch, transformers = torch_module, transformers_module
    transformers.logging.set_verbosity_error()


def framework_line() -> str:
    """The versions and the thread count this peer ran with."""
    return (
        f"torch {torch.__version__}, transformers {transformers.__version__}, "
        f"{torch.get_num_threads()} intra-op threads (torch's default)"
    )


def generate_call(model: Any, prompts: np.ndarray, new_tokens: int, sampler: str) -> Callable[[], np.ndarray]:
    """One ``generate`` of ``new_tokens`` tokens after ``prompts`` (inputs made before the clock starts)."""
    input_ids = torch.from_numpy(prompts.astype(np.int64))
    attention_mask = torch.ones_like(input_ids)
    options: dict[str, Any] = {
        "max_new_tokens": new_tokens,
        "min_new_tokens": new_tokens,
        "use_cache": True,
        "pad_token_id": 0,
    }
    if sampler == "greedy":
        options["do_sample"] = False
    else:
        options.update(do_sample=True, top_k=pretrained.TOP_K, temperature=1.0, top_p=1.0)

    def call() -> np.ndarray:
        if sampler != "greedy":
            torch.manual_seed(pretrained.SAMPLER_SEED)
        with torch.inference_mode():
            return model.generate(input_ids=input_ids, attention_mask=attention_mask, **options).numpy()

    return call


def run_generate(
    case: pretrained.PretrainedCase, model: Any, vocabulary: int, calls: int, samplers: tuple[str, ...]
) -> tuple[dict[str, float], dict[str, Any]]:
    """Time to first token, tokens per second and warm-up of each sampler; the greedy ids."""
    prompts = peer_hub.prompt_ids(vocabulary, case.batch_size)
    model.eval()
    metrics: dict[str, float] = {}
    info: dict[str, Any] = {"generate": f"eager PyTorch, KV cache; {framework_line()}"}
    for sampler in samplers:
        timings, ids = peer_hub.sampler_metrics(
            sampler,
            case.batch_size,
            calls,
            lambda: generate_call(model, prompts, 1, sampler),
            lambda: generate_call(model, prompts, pretrained.NEW_TOKENS, sampler),
        )
        metrics.update(timings)
        if sampler == "greedy":
            info["greedy_ids"] = ids[:, pretrained.PROMPT_LENGTH :].tolist()
    return metrics, info


def with_lora(model: Any) -> Any:
    """``model`` with peft's LoRA of rank ``LORA_RANK`` on the query and value projections, the rest frozen."""
    try:
        import peft
    except ImportError as error:
        raise Unavailable(f"the LoRA case needs peft in the --torch-python interpreter ({describe(error)})") from error
    config = peft.LoraConfig(
        r=pretrained.LORA_RANK,
        lora_alpha=pretrained.LORA_RANK,
        lora_dropout=0.0,
        target_modules=list(LORA_TARGETS),
        bias="none",
    )
    return peft.get_peft_model(model, config)


def run_fine_tune(
    case: pretrained.PretrainedCase, model: Any, vocabulary: int, quick: bool
) -> tuple[dict[str, float], dict[str, Any], Any]:
    """A steady train step, the warm-up and the loss after epoch 2, from an epoch-timed eager loop."""
    steps = pretrained.QUICK_FINE_TUNE_STEPS if quick else pretrained.FINE_TUNE_STEPS
    epochs = pretrained.QUICK_FINE_TUNE_EPOCHS if quick else pretrained.FINE_TUNE_EPOCHS
    x, y, _ = peer_hub.fine_tune_data(case, vocabulary, steps * case.batch_size)
    token_ids = torch.from_numpy(x["token_ids"].astype(np.int64))
    attention_mask = torch.from_numpy(x["padding_mask"].astype(np.int64))
    inputs: dict[str, Any] = {"input_ids": token_ids, "attention_mask": attention_mask}
    if case.kind == "classifier":
        inputs["token_type_ids"] = torch.from_numpy(x["segment_ids"].astype(np.int64))
        labels = torch.from_numpy(y.astype(np.int64))
    else:
        model = with_lora(model)
        labels = token_ids  # Transformers shifts them: position t predicts t + 1, the last predicts nothing
    trainable = [parameter for parameter in model.parameters() if parameter.requires_grad]
    learning_rate = LEARNING_RATES[case.kind]
    optimizer = torch.optim.AdamW(trainable, lr=learning_rate)
    model.train()
    batch = case.batch_size
    fit_start = time.perf_counter()
    epoch_ends, losses = [], []
    for _ in range(epochs):
        total = 0.0
        for step in range(steps):
            rows = slice(step * batch, (step + 1) * batch)
            loss = model(**{key: value[rows] for key, value in inputs.items()}, labels=labels[rows]).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            total += float(loss.detach())
        epoch_ends.append(time.perf_counter())
        losses.append(total / steps)  # as fit's epoch log: the mean over the epoch's steps
    metrics = timing.step_metrics(timing.epoch_metrics(fit_start, epoch_ends, losses), steps)
    lora = f", peft LoRA r{pretrained.LORA_RANK} on {'/'.join(LORA_TARGETS)}" if case.kind == "lora" else ""
    info = {
        "fit": f"eager PyTorch loop, AdamW(lr={learning_rate:g}){lora}; {framework_line()}",
        "trainable_params": sum(int(parameter.numel()) for parameter in trainable),
    }
    return metrics, info, model


def weights_bytes(model: Any) -> int:
    """The bytes of a model's parameters (a tied embedding once)."""
    return sum(int(parameter.numel()) * parameter.element_size() for parameter in model.parameters())


def run(job: dict[str, Any], data_dir: str) -> tuple[dict[str, float], dict[str, Any]]:
    """Convert the case's preset into the Transformers model and measure the case (``bench.pretrained``)."""
    from bench import transformers_model

    case = pretrained.CASES[job["case"]]
    preset = pretrained.preset_dir(data_dir, case.model)
    if not (preset / "config.json").is_file():
        raise RuntimeError(f"no preset for {case.model} in {preset}; the run builds it before the jobs")
    vocabulary = peer_hub.vocabulary_size(pathlib.Path(preset))
    task = "classifier" if case.kind == "classifier" else "causal_lm"
    resolved = transformers_model.resolve(preset, task)  # imports the model's module: not part of loading
    rss_before_mib = timing.current_rss_mib()
    load_s, model = peer_hub.timed(lambda: transformers_model.from_keras_preset(preset, resolved))
    load_peak_mib = timing.peak_rss_mib() - rss_before_mib  # the peak so far, over the RSS after the imports
    loaded_bytes, model_class = weights_bytes(model), type(model).__name__
    if case.kind == "generate":
        calls = pretrained.QUICK_TIMED_CALLS if job.get("quick") else pretrained.TIMED_CALLS
        samplers = tuple((job.get("settings") or {}).get("samplers", pretrained.SAMPLERS))  # tests: greedy only
        metrics, hub_info = run_generate(case, model, vocabulary, calls, samplers)
    else:
        metrics, hub_info, model = run_fine_tune(case, model, vocabulary, bool(job.get("quick")))
    metrics["load_s"] = load_s
    metrics["load_rss_over_weights"] = load_peak_mib * 2**20 / loaded_bytes
    metrics["peak_rss_mib"] = timing.peak_rss_mib()
    hub_info["params"] = sum(int(parameter.numel()) for parameter in model.parameters())
    hub_info["task"] = f"transformers.{model_class}"
    return metrics, {"hub": hub_info}
