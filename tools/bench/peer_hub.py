"""The ``pretrained`` workload inside a worker: tfkit.hub or KerasHub (TensorFlow or JAX) on a preset.

    load("tfkit")        # import tfkit.hub               (peer tfkit)
    load("keras3_jax")   # KERAS_BACKEND=jax, keras_hub   (peers keras3, keras3_jax)
    metrics, info = run(job, data_dir)

tfkit.hub spells KerasHub's API, so one code path drives all three peers:
``hub.models.<Task>.from_preset(preset, preprocessor=None)``, ``compile(sampler=...)``,
``generate({"token_ids", "padding_mask"}, stop_token_ids=None)`` (an encoder-decoder's
encoder inputs and ``decoder_token_ids`` / ``decoder_padding_mask``),
``backbone.enable_lora(rank)`` and ``fit``, with ``hub`` being ``tfkit.hub`` or
``keras_hub``. What a case measures is described in ``bench.pretrained``; only the
calls are timed (loading the preset is its own figure), and a class tfkit.hub does
not have yet makes the job "unavailable".
"""

from __future__ import annotations

import json
import os
import statistics
import time
from typing import Any, Callable, Sequence

import numpy as np

from bench import pretrained, timing
from bench.worker import Unavailable, describe

hub: Any = None  # tfkit.hub or keras_hub
framework: Any = None  # tfkit or keras
backend: str = ""  # "tensorflow" or "jax"


def load(peer: str) -> None:
    """Import the peer's framework: tfkit.hub, or KerasHub on the backend the peer names."""
    global hub, framework, backend
    if peer == "tfkit":
        import tfkit
        import tfkit.hub

        hub, framework, backend = tfkit.hub, tfkit, "tensorflow"
        return
    if peer not in ("keras3", "keras3_jax"):
        raise Unavailable(f"the pretrained workload runs tfkit, keras3 and keras3_jax, not {peer!r}")
    backend = "jax" if peer == "keras3_jax" else "tensorflow"
    os.environ["KERAS_BACKEND"] = backend
    if backend == "jax":
        import jax  # noqa: F401  (the bench extra's jax[cpu]; missing makes the column unavailable)
    import keras
    import keras_hub

    if keras.backend.backend() != backend:
        raise Unavailable(f"Keras backend is {keras.backend.backend()!r}, not {backend}")
    hub, framework = keras_hub, keras


def task_class(name: str) -> Any:
    """``hub.models.<name>``, or Unavailable when this framework does not have it (yet)."""
    try:
        return getattr(hub.models, name)
    except AttributeError as error:
        raise Unavailable(f"{hub.__name__}.models.{name} is not available ({describe(error)})") from error


def vocabulary_size(preset: Any) -> int:
    """The backbone's vocabulary size, read from the preset's ``config.json``."""
    return int(json.loads((preset / "config.json").read_text())["config"]["vocabulary_size"])


def prompt_ids(vocabulary: int, batch_size: int) -> np.ndarray:
    """The fixed prompts (int32, ``(batch_size, PROMPT_LENGTH)``): ids drawn from 1 .. vocabulary - 1."""
    rng = np.random.default_rng(pretrained.PROMPT_SEED)
    return rng.integers(1, vocabulary, size=(batch_size, pretrained.PROMPT_LENGTH)).astype("int32")


def padded(prompts: np.ndarray, length: int) -> dict[str, np.ndarray]:
    """The prompts as ``generate``'s inputs without a preprocessor: ids and mask padded to ``length``."""
    batch, prompt = prompts.shape
    token_ids = np.zeros((batch, length), "int32")
    token_ids[:, :prompt] = prompts
    padding_mask = np.zeros((batch, length), bool)
    padding_mask[:, :prompt] = True
    return {"token_ids": token_ids, "padding_mask": padding_mask}


def make_sampler(name: str) -> Any:
    """The same sampler in every peer: greedy, or top-k (k=TOP_K, seeded)."""
    if name == "greedy":
        return hub.samplers.GreedySampler()
    return hub.samplers.TopKSampler(k=pretrained.TOP_K, seed=pretrained.SAMPLER_SEED)


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def generate_call(model: Any, inputs: dict[str, np.ndarray], key: str = "token_ids") -> Callable[[], np.ndarray]:
    """One ``generate`` on fresh copies of ``inputs``, to max length, its ids (``key``) back as numpy (so it has
    finished)."""

    def call() -> np.ndarray:
        return np.asarray(model.generate(fresh, stop_token_ids=None)[key])

    fresh = {name: value.copy() for name, value in inputs.items()}
    return call


def generate_form(model: Any) -> str:
    """How this peer compiled ``generate``: XLA, a plain TensorFlow graph, or ``jax.jit``."""
    if backend == "jax":
        return "jax.jit (XLA)"
    function = getattr(model, "generate_function", None)
    jit = getattr(function, "_jit_compile", None)
    return "tf.function, XLA" if jit else "tf.function, no XLA" if jit is not None else str(type(function).__name__)


def sampler_metrics(
    sampler: str,
    batch_size: int,
    calls: int,
    first_token: Callable[[], Callable[[], np.ndarray]],
    whole: Callable[[], Callable[[], np.ndarray]],
) -> tuple[dict[str, float], np.ndarray]:
    """Time to first token, tokens per second and warm-up of one sampler, and the ids of its last whole call.

    Args:
        sampler: ``"greedy"`` or ``"top_k"`` (the metrics' suffix).
        batch_size: The prompts' rows.
        calls: Timed calls of each length after the first of each (the median is kept).
        first_token: Makes one call that generates one new token (its inputs copied before the clock starts).
        whole: Makes one call that generates all ``NEW_TOKENS``; its call returns the ids.
    """
    first_ttft, _ = timed(first_token())
    first_whole, ids = timed(whole())
    ttft, durations = [], []
    for _ in range(calls):  # alternating, so drift lands on both
        ttft.append(timed(first_token())[0])
        seconds, ids = timed(whole())
        durations.append(seconds)
    steady_ttft, steady_whole = statistics.median(ttft), statistics.median(durations)
    metrics = {
        f"ttft_{sampler}_s": steady_ttft,
        f"tokens_per_s_{sampler}": batch_size * pretrained.NEW_TOKENS / steady_whole,
        f"generate_{sampler}_s": steady_whole,
        f"warmup_{sampler}_s": max(0.0, first_ttft - steady_ttft) + max(0.0, first_whole - steady_whole),
        f"first_calls_{sampler}_s": first_ttft + first_whole,
    }
    return metrics, ids


def backbone_config(preset: Any) -> dict[str, Any]:
    """The backbone's arguments, read from the preset's ``config.json``."""
    return dict(json.loads((preset / "config.json").read_text())["config"])


def encoder_inputs(case: pretrained.PretrainedCase, config: dict[str, Any]) -> dict[str, np.ndarray]:
    """An encoder-decoder case's encoder inputs: T5's prompt ids and mask, Whisper's 30 s of random log-mel
    features (``(batch, max_encoder_sequence_length, num_mels)`` float32, seeded), or Moonshine's
    ``AUDIO_SECONDS`` of random audio (raw samples in [-1, 1), ``(batch, samples, 1)`` float32, seeded, every sample
    marked real in ``encoder_padding_mask``: what ``MoonshineAudioToText.generate`` takes without a preprocessor,
    in KerasHub and in tfkit.hub alike)."""
    task = pretrained.MODELS[case.model].task
    if task == "WhisperAudioToText":
        rng = np.random.default_rng(pretrained.PROMPT_SEED)
        shape = (case.batch_size, config["max_encoder_sequence_length"], config["num_mels"])
        return {"encoder_features": rng.standard_normal(shape).astype("float32")}
    if task == "MoonshineAudioToText":
        rng = np.random.default_rng(pretrained.PROMPT_SEED)
        samples = pretrained.AUDIO_SECONDS * pretrained.SAMPLING_RATE
        audio = rng.uniform(-1.0, 1.0, size=(case.batch_size, samples, 1)).astype("float32")
        return {"encoder_input_values": audio, "encoder_padding_mask": np.ones(audio.shape[:2], bool)}
    prompts = prompt_ids(config["vocabulary_size"], case.batch_size)
    return {"encoder_token_ids": prompts, "encoder_padding_mask": np.ones(prompts.shape, bool)}


def decoder_prompt(case: pretrained.PretrainedCase, config: dict[str, Any], length: int) -> dict[str, np.ndarray]:
    """The decoder's prompt, padded to ``length``: the start token alone (the tiny vocabulary's last id if the
    start token is out of it)."""
    start = min(pretrained.DECODER_START[case.model], config["vocabulary_size"] - 1)
    token_ids = np.zeros((case.batch_size, length), "int32")
    token_ids[:, 0] = start
    padding_mask = np.zeros((case.batch_size, length), bool)
    padding_mask[:, 0] = True
    return {"decoder_token_ids": token_ids, "decoder_padding_mask": padding_mask}


def generate_inputs(case: pretrained.PretrainedCase, config: dict[str, Any]) -> tuple[dict, dict, str, int]:
    """``generate``'s inputs to one new token and to ``NEW_TOKENS``, the output key of the ids, and where the
    new tokens start: a decoder-only model's prompt, or an encoder-decoder's encoder inputs and start token."""
    if case.model in pretrained.DECODER_START:
        encoder = encoder_inputs(case, config)
        first, whole = (encoder | decoder_prompt(case, config, 1 + new) for new in (1, pretrained.NEW_TOKENS))
        return first, whole, "decoder_token_ids", 1
    prompts = prompt_ids(config["vocabulary_size"], case.batch_size)
    first = padded(prompts, pretrained.PROMPT_LENGTH + 1)
    whole = padded(prompts, pretrained.PROMPT_LENGTH + pretrained.NEW_TOKENS)
    return first, whole, "token_ids", pretrained.PROMPT_LENGTH


def run_generate(
    case: pretrained.PretrainedCase,
    model: Any,
    config: dict[str, Any],
    calls: int,
    samplers: Sequence[str] = pretrained.SAMPLERS,
) -> tuple[dict, dict]:
    """Time to first token, tokens per second and warm-up of each sampler (greedy first); the greedy ids."""
    first_token, whole, key, start = generate_inputs(case, config)
    metrics: dict[str, float] = {}
    info: dict[str, Any] = {}
    for sampler in samplers:
        model.compile(sampler=make_sampler(sampler))  # a new sampler: generate is traced/compiled again
        timings, ids = sampler_metrics(
            sampler,
            case.batch_size,
            calls,
            lambda: generate_call(model, first_token, key),
            lambda: generate_call(model, whole, key),
        )
        metrics.update(timings)
        if sampler == "greedy":
            info["greedy_ids"] = ids[:, start:].tolist()
        info["generate"] = generate_form(model)
    return metrics, info


def fine_tune_data(case: pretrained.PretrainedCase, vocabulary: int, samples: int) -> tuple[Any, Any, Any]:
    """Fixed random (x, y, sample_weight): a classifier's ids, segments, mask and labels, or a causal LM's
    ids and next ids (the last position weighted 0)."""
    rng = np.random.default_rng(pretrained.DATA_SEED)
    length = pretrained.FINE_TUNE_SEQUENCE
    token_ids = rng.integers(1, vocabulary, size=(samples, length)).astype("int32")
    padding_mask = np.ones((samples, length), bool)
    if case.kind == "classifier":
        x = {"token_ids": token_ids, "segment_ids": np.zeros_like(token_ids), "padding_mask": padding_mask}
        return x, rng.integers(0, pretrained.NUM_CLASSES, size=(samples,)).astype("int32"), None
    weights = np.ones((samples, length), "float32")
    weights[:, -1] = 0.0
    return {"token_ids": token_ids, "padding_mask": padding_mask}, np.roll(token_ids, -1, axis=1), weights


def fit_form(model: Any) -> str:
    """What ``fit`` compiled: tfkit's ``jit_compile="auto"`` decision, or Keras's resolved ``jit_compile``."""
    if backend == "jax":
        return "jax.jit (XLA)"
    decision = getattr(model, "jit_compile_decision", None)
    if decision is not None:
        return f"jit_compile={getattr(decision, 'jit_compile', decision)}"
    return f"jit_compile={getattr(model, 'jit_compile', '?')}"


def run_fine_tune(case: pretrained.PretrainedCase, model: Any, vocabulary: int, quick: bool) -> tuple[dict, dict]:
    """A steady train step, the warm-up and the loss after epoch 2, from ``fit`` with an epoch timer."""
    steps = pretrained.QUICK_FINE_TUNE_STEPS if quick else pretrained.FINE_TUNE_STEPS
    epochs = pretrained.QUICK_FINE_TUNE_EPOCHS if quick else pretrained.FINE_TUNE_EPOCHS
    x, y, weights = fine_tune_data(case, vocabulary, steps * case.batch_size)
    if case.kind == "lora":
        model.backbone.enable_lora(pretrained.LORA_RANK)
    model.compile()  # the task's defaults (optimizer, loss, metrics), after LoRA froze the backbone
    timer = timing.make_epoch_timer(framework.callbacks.Callback)()
    timer.start()
    model.fit(
        x,
        y,
        sample_weight=weights,
        batch_size=case.batch_size,
        epochs=epochs,
        shuffle=False,
        verbose=0,
        callbacks=[timer],
    )
    metrics = timing.step_metrics(timer.metrics(), steps)
    trainable = sum(int(np.prod(weight.shape)) for weight in model.trainable_weights)
    return metrics, {"fit": fit_form(model), "trainable_params": trainable}


def weights_bytes(model: Any) -> int:
    """The bytes of a model's weights (tfkit's dtypes are ``tf.DType``, Keras's are strings)."""
    return sum(
        int(np.prod(weight.shape)) * np.dtype(getattr(weight.dtype, "name", weight.dtype)).itemsize
        for weight in model.weights
    )


def run(job: dict[str, Any], data_dir: str) -> tuple[dict[str, float], dict[str, Any]]:
    """Load the case's preset with this peer's framework and measure the case (``bench.pretrained``)."""
    case = pretrained.CASES[job["case"]]
    model_spec = pretrained.MODELS[case.model]
    preset = pretrained.preset_dir(data_dir, case.model)
    if not (preset / "config.json").is_file():
        raise RuntimeError(f"no preset for {case.model} in {preset}; the run builds it before the jobs")
    cls = task_class(model_spec.task)
    config = backbone_config(preset)
    vocabulary = int(config["vocabulary_size"])
    kwargs: dict[str, Any] = {"preprocessor": None}
    if case.kind == "classifier":
        kwargs["num_classes"] = pretrained.NUM_CLASSES
    rss_before_mib = timing.current_rss_mib()
    load_s, model = timed(lambda: cls.from_preset(str(preset), **kwargs))
    load_peak_mib = timing.peak_rss_mib() - rss_before_mib  # the peak so far, over the RSS after the imports
    if case.kind == "generate":
        calls = pretrained.QUICK_TIMED_CALLS if job.get("quick") else pretrained.TIMED_CALLS
        samplers = tuple((job.get("settings") or {}).get("samplers", case.samplers))  # tests: greedy only
        metrics, hub_info = run_generate(case, model, config, calls, samplers)
    else:
        metrics, hub_info = run_fine_tune(case, model, vocabulary, bool(job.get("quick")))
    metrics["load_s"] = load_s
    metrics["load_rss_over_weights"] = load_peak_mib * 2**20 / weights_bytes(model)
    metrics["peak_rss_mib"] = timing.peak_rss_mib()
    hub_info["params"] = int(model.count_params())
    hub_info["task"] = f"{hub.__name__}.models.{type(model).__name__}"
    return metrics, {"hub": hub_info}
