"""tools/bench.py's ``pretrained`` section on tiny random models: plan, presets, peers, report.

KerasHub builds the tiny presets (its own subprocess, as in a real run); tfkit.hub runs its
jobs in this process and KerasHub on JAX in a worker of its own, greedy only. No timing
assertion: the figures only have to be there, and the greedy ids have to agree.
"""

from __future__ import annotations

import importlib
import pathlib

import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(TOOLS))
    modules = {
        name: importlib.import_module(f"bench.{name}")
        for name in ("cli", "spec", "report", "orchestrate", "pretrained", "peer_hub")
    }
    return type("Bench", (), modules)


def test_the_section_runs_tfkit_hub_kerashub_on_tf_and_jax_and_transformers_in_a_full_run(bench):
    assert "pretrained" in bench.cli.parse_args([]).workloads
    jobs = bench.spec.plan_jobs(["pretrained"], list(bench.spec.PEERS), {})
    cases = list(dict.fromkeys(job.case for job in jobs))
    assert cases == [
        "gen_gpt2_b1",
        "gen_gpt2_b8",
        "gen_llama_b1",
        "gen_llama_b8",
        "gen_moe_b1",
        "gen_moe_b8",
        "gen_t5_b1",
        "gen_t5_b8",
        "gen_whisper_b1",
        "gen_whisper_b8",
        "gen_moonshine_b1",
        "gen_moonshine_b8",
        "ft_bert",
        "ft_llama_lora",
    ]
    assert {job.runner for job in jobs} == {"tfkit", "keras3", "keras3_jax", "transformers_torch"}
    assert all(job.workload == "pretrained" for job in jobs)
    models = ["gpt2_124m", "llama_100m", "mixtral_moe", "t5_small", "whisper_tiny", "moonshine_tiny", "bert_base"]
    assert bench.pretrained.models_for(cases) == models
    moe_runners = {job.runner for job in jobs if job.case == "gen_moe_b1"}
    assert moe_runners == {"tfkit", "keras3", "keras3_jax"}  # the Transformers mapping has no Mixtral yet
    t5_runners = {job.runner for job in jobs if job.case == "gen_t5_b8"}
    assert t5_runners == {"tfkit", "keras3", "keras3_jax"}  # no Transformers peer for the encoder-decoders
    assert {job.runner for job in jobs if job.case == "gen_whisper_b1"} == {"tfkit"}  # KerasHub has no Whisper task
    moonshine_runners = {job.runner for job in jobs if job.case == "gen_moonshine_b8"}
    assert moonshine_runners == {"tfkit", "keras3", "keras3_jax"}  # KerasHub 0.32 has MoonshineAudioToText
    assert ("gen_t5_b1", "tokens_per_s_greedy") in {(row.case, row.metric) for row in bench.spec.ROWS}
    assert not {row.metric for row in bench.spec.ROWS if row.case == "gen_whisper_b8"} & {"tokens_per_s_top_k"}
    assert not [target for target in bench.report.TARGETS if target.case.startswith("gen_whisper")]
    assert not {row.metric for row in bench.spec.ROWS if row.case == "gen_moonshine_b8"} & {"tokens_per_s_top_k"}
    moonshine_targets = {
        (target.metric, target.peer) for target in bench.report.TARGETS if target.case == "gen_moonshine_b8"
    }
    assert moonshine_targets == {("tokens_per_s_greedy", "keras3_jax"), ("ttft_greedy_s", "keras3_jax")}
    assert bench.pretrained.models_for(["vae", "gen_gpt2_b8"]) == ["gpt2_124m"]
    rows = {(row.case, row.metric) for row in bench.spec.ROWS}
    assert {
        ("gen_llama_b8", "tokens_per_s_top_k"),
        ("gen_gpt2_b1", "ttft_greedy_s"),
        ("ft_bert", "step_steady_s"),
    } <= rows
    described = [target.description for target in bench.report.TARGETS if target.case == "gen_gpt2_b8"]
    assert any("1.20x KerasHub on JAX" in text for text in described)


def test_the_full_size_models_have_the_sizes_the_issue_asks_for(bench):
    gpt2 = bench.pretrained.MODELS["gpt2_124m"].config
    assert (gpt2["num_layers"], gpt2["num_heads"], gpt2["hidden_dim"], gpt2["vocabulary_size"]) == (12, 12, 768, 50257)
    llama = bench.pretrained.MODELS["llama_100m"].config
    # Hand count: embeddings in and out, per layer q/o (768 x 768), k/v (768 x 256), gate/up/down (768 x 2048), 2 norms.
    per_layer = 2 * 768 * 768 + 2 * 768 * 256 + 3 * 768 * 2048 + 2 * 768
    params = 2 * llama["vocabulary_size"] * 768 + llama["num_layers"] * per_layer + 768
    assert 95e6 < params < 105e6
    moe = bench.pretrained.MODELS["mixtral_moe"].config
    # Hand count: embeddings in and out, per layer q/o (512 x 512), k/v (512 x 256), the router (512 x 8), 8 experts'
    # gate/up/down (512 x 1024), 2 norms; 2 of the 8 experts run for each token.
    attention = 2 * 512 * 512 + 2 * 512 * 256 + 512 * 8 + 2 * 512
    experts = moe["num_experts"] * 3 * 512 * 1024
    params = 2 * moe["vocabulary_size"] * 512 + moe["num_layers"] * (attention + experts) + 512
    assert 105e6 < params < 120e6 and (moe["num_experts"], moe["top_k"]) == (8, 2)
    t5 = bench.pretrained.MODELS["t5_small"].config
    # Hand count: the tied embedding, per encoder layer q/k/v/o (512 x 512) and wi/wo (512 x 2048) with 2 norms, per
    # decoder layer a cross-attention and a norm more, each stack's relative bias (32 buckets x 8 heads), 2 final norms.
    encoder_layer = 4 * 512 * 512 + 2 * 512 * 2048 + 2 * 512
    decoder_layer = encoder_layer + 4 * 512 * 512 + 512
    params = t5["vocabulary_size"] * 512 + 6 * (encoder_layer + decoder_layer) + 2 * 32 * 8 + 2 * 512
    assert 59e6 < params < 62e6 and not t5["use_gated_activation"] and t5["tie_embedding_weights"]
    whisper = bench.pretrained.MODELS["whisper_tiny"].config
    # 30 s of audio: 3000 log-mel frames, 1500 encoder positions after the stride-2 convolution.
    assert (whisper["max_encoder_sequence_length"], whisper["num_mels"], whisper["num_layers"]) == (3000, 80, 4)
    moonshine = bench.pretrained.MODELS["moonshine_tiny"].config
    # Hand count against KerasHub's moonshine_tiny_en metadata (27,092,736): the convolutional stem (conv1 127 x 288
    # without bias, a group norm, conv2 7 x 288 x 576, conv3 3 x 576 x 288), the tied embedding, per encoder layer
    # q/k/v/o (288 x 288), 2 scale-only norms and a GELU feed-forward 288 -> 1152 -> 288, per decoder layer a
    # cross-attention, a norm more and a SwiGLU 288 -> 2 x 1152 -> 288, 2 final norms (the rotary inv_freq vectors
    # are not trainable and not counted).
    stem = 127 * 288 + 2 * 288 + (7 * 288 * 576 + 576) + (3 * 576 * 288 + 288)
    encoder_layer = 4 * 288 * 288 + 2 * 288 + (288 * 1152 + 1152) + (1152 * 288 + 288)
    decoder_layer = 8 * 288 * 288 + 3 * 288 + (288 * 2304 + 2304) + (1152 * 288 + 288)
    params = stem + moonshine["vocabulary_size"] * 288 + 6 * (encoder_layer + decoder_layer) + 2 * 288
    assert params == 27_092_736 and moonshine["hidden_dim"] * moonshine["feedforward_expansion_factor"] == 1152
    assert (moonshine["encoder_num_layers"], moonshine["decoder_num_layers"], moonshine["decoder_num_heads"]) == (
        6,
        6,
        8,
    )
    assert not moonshine["encoder_use_swiglu_activation"] and moonshine["decoder_use_swiglu_activation"]


def test_encoder_decoder_cases_prompt_the_encoder_and_start_the_decoder(bench):
    """The T5, Whisper and Moonshine inputs without a model: encoder prompt, features or audio, the decoder's start
    token, padding."""
    t5_case, whisper_case = bench.pretrained.CASES["gen_t5_b8"], bench.pretrained.CASES["gen_whisper_b1"]
    config = {"vocabulary_size": 300}
    first, whole, key, start = bench.peer_hub.generate_inputs(t5_case, config)
    assert (key, start) == ("decoder_token_ids", 1)
    assert first["encoder_token_ids"].shape == (8, bench.pretrained.PROMPT_LENGTH)
    assert whole["decoder_token_ids"].shape == (8, 1 + bench.pretrained.NEW_TOKENS)
    assert whole["decoder_padding_mask"].sum() == 8 and first["decoder_token_ids"].shape == (8, 2)
    config = {"vocabulary_size": 300, "max_encoder_sequence_length": 32, "num_mels": 8}
    first, whole, key, start = bench.peer_hub.generate_inputs(whisper_case, config)
    assert first["encoder_features"].shape == (1, 32, 8) and first["encoder_features"].dtype == "float32"
    assert whole["decoder_token_ids"][0, 0] == 299  # Whisper's start token, clipped to the tiny vocabulary
    moonshine_case = bench.pretrained.CASES["gen_moonshine_b8"]
    first, whole, key, start = bench.peer_hub.generate_inputs(moonshine_case, {"vocabulary_size": 300})
    assert (key, start) == ("decoder_token_ids", 1)
    audio = whole["encoder_input_values"]  # 10 s of raw 16 kHz samples, seeded: the same in every peer
    assert audio.shape == (8, 160000, 1) and audio.dtype == "float32" and -1 <= audio.min() < audio.max() < 1
    assert whole["encoder_padding_mask"].shape == (8, 160000) and whole["encoder_padding_mask"].all()
    assert (first["encoder_input_values"] == audio).all()
    assert (whole["decoder_token_ids"][:, 0] == 1).all() and whole["decoder_token_ids"].shape == (8, 65)
    assert (whole["decoder_padding_mask"].sum(axis=1) == 1).all() and first["decoder_token_ids"].shape == (8, 2)


def test_the_run_line_lists_the_epochs_of_the_workloads_run(bench):
    counts = dict(bench.spec.DEFAULT_EPOCHS)
    assert bench.cli.run_epochs(["pretrained"], counts) == "pretrained fine-tuning 3"
    assert bench.cli.run_epochs(["vae", "memory"], counts) == f"vae {counts['vae']}, memory 10"
    assert bench.cli.run_epochs([], counts) == "none"


def test_greedy_agreement_names_the_first_difference(bench):
    same = bench.pretrained.greedy_agreement({"tfkit": [[1, 2]], "keras3": [[1, 2]], "keras3_jax": [[1, 2]]})
    assert same == "Greedy ids against tfkit.hub: KerasHub on TF identical; KerasHub on JAX identical."
    differ = bench.pretrained.greedy_agreement({"tfkit": [[1, 2], [3, 4]], "keras3_jax": [[1, 2], [3, 5]]})
    assert "KerasHub on JAX **differs** in 1 of 2 rows (first at row 1, new token 1)" in differ


def test_tiny_presets_run_in_tfkit_hub_and_kerashub_on_jax_with_equal_greedy_ids(bench, tmp_path, monkeypatch):
    pytest.importorskip("keras_hub")
    pytest.importorskip("jax")
    data_dir = str(tmp_path)
    env = bench.orchestrate.base_env()
    presets = ["gpt2_124m", "llama_100m", "moonshine_tiny"]
    bench.orchestrate.prepare_presets(data_dir, env, presets, timeout=300, tiny=True)
    preset = bench.pretrained.preset_dir(data_dir, "gpt2_124m")
    assert (preset / "config.json").is_file() and (preset / "model.weights.h5").is_file()

    def job(case, runner):
        batch = bench.pretrained.CASES[case].batch_size
        settings = {"samplers": ["greedy"]} if case.startswith("gen_") else {}
        return bench.spec.Job(case, runner, runner, "pretrained", batch, 0, settings, quick=True)

    records = []
    for case in ("gen_gpt2_b1", "gen_moonshine_b8"):
        jax_result = bench.orchestrate.run_job(job(case, "keras3_jax"), data_dir, env, timeout=300)
        records.append({"repeat": 1, "job": {"case": case, "runner": "keras3_jax"}, "result": jax_result})
        assert jax_result["status"] == "ok", jax_result.get("reason")
    jax_result, jax_moonshine = records[0]["result"], records[1]["result"]

    bench.peer_hub.load("tfkit")
    for case in ("gen_gpt2_b1", "ft_llama_lora", "gen_moonshine_b8"):
        metrics, info = bench.peer_hub.run(job(case, "tfkit").to_json(), data_dir)
        result = {"status": "ok", "metrics": metrics, "info": info, "missing": {}}
        records.append({"repeat": 1, "job": {"case": case, "runner": "tfkit"}, "result": result})

    generated = records[2]["result"]
    assert generated["metrics"]["tokens_per_s_greedy"] > 0 and generated["metrics"]["ttft_greedy_s"] > 0
    assert "tokens_per_s_top_k" not in generated["metrics"]  # the job asked for greedy only
    ids = generated["info"]["hub"]["greedy_ids"]
    assert len(ids) == 1 and len(ids[0]) == bench.pretrained.NEW_TOKENS
    assert ids == jax_result["info"]["hub"]["greedy_ids"]  # same preset, same prompt: same tokens
    for loaded in (generated, jax_result):  # loading: seconds, and peak memory over the weights' bytes
        assert loaded["metrics"]["load_s"] > 0 and loaded["metrics"]["load_rss_over_weights"] >= 0

    lora = records[3]["result"]
    assert lora["metrics"]["step_steady_s"] > 0 and "loss_epoch2" in lora["metrics"]
    hub = lora["info"]["hub"]
    # LoRA rank 4 trains only Keras's EinsumDense A (kernel shape[:-1] x 4) and B (4 x head_dim) of each layer's
    # query kernel (16, 4 heads, 4) and value kernel (16, 2 key/value heads, 4): hand count for the 2 tiny layers.
    per_layer = (16 * 4 * 4 + 4 * 4) + (16 * 2 * 4 + 4 * 4)
    assert hub["trainable_params"] == 2 * per_layer and hub["params"] > hub["trainable_params"]

    # Moonshine: 10 s of audio per row through the convolutional stem and encoder, then 64 greedy tokens after <s>;
    # the tiny preset's large weights make the rows pick varied tokens, so equal ids check more than one argmax
    moonshine = records[4]["result"]
    ids = moonshine["info"]["hub"]["greedy_ids"]
    assert len(ids) == 8 and {len(row) for row in ids} == {bench.pretrained.NEW_TOKENS}
    assert len({token for row in ids for token in row}) > 10
    assert ids == jax_moonshine["info"]["hub"]["greedy_ids"]
    assert moonshine["info"]["hub"]["params"] == jax_moonshine["info"]["hub"]["params"]
    assert moonshine["metrics"]["tokens_per_s_greedy"] > 0 and jax_moonshine["metrics"]["ttft_greedy_s"] > 0

    summary = bench.report.aggregate(records)
    lines = bench.pretrained.section_lines(summary)
    assert "GPT-2 124M generate b1" in "\n".join(lines)
    assert any("Greedy ids against tfkit.hub: KerasHub on JAX identical." in line for line in lines)
    moonshine_line = next(line for line in lines if "Moonshine-tiny 27M generate b8" in line)
    assert moonshine_line.endswith("Greedy ids against tfkit.hub: KerasHub on JAX identical.")
