"""tools/bench.py's Transformers on PyTorch peer without torch: the plan, "unavailable", the weight mapping.

torch is never imported here (CI does not install it): the peer's column must read
"unavailable" with its reason, and the preset-to-Transformers mapping is plain
numpy, checked on made-up arrays against the einsums Keras's layers compute.
"""

from __future__ import annotations

import importlib
import pathlib
import sys

import numpy as np
import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(TOOLS))
    modules = {
        name: importlib.import_module(f"bench.{name}")
        for name in (
            "cli",
            "spec",
            "report",
            "orchestrate",
            "pretrained",
            "worker",
            "transformers_config",
            "transformers_weights",
        )
    }
    return type("Bench", (), modules)


def _job(bench, case="gen_gpt2_b1"):
    batch = bench.pretrained.CASES[case].batch_size
    return bench.spec.Job(case, "transformers_torch", "transformers_torch", "pretrained", batch, 0, {}, quick=True)


# ------------------------------------------------------------------ the plan and the command line


def test_the_peer_runs_the_pretrained_cases_only(bench):
    jobs = bench.spec.plan_jobs(["vae", "pretrained"], list(bench.spec.PEERS), {"vae": 2})
    torch_cases = [job.case for job in jobs if job.runner == "transformers_torch"]
    # every pretrained case but the mixture of experts and the encoder-decoders (T5, Whisper, Moonshine), which the
    # Transformers mapping does not cover yet
    skipped = ("gen_moe", "gen_t5", "gen_whisper", "gen_moonshine")
    assert torch_cases == [case for case in bench.pretrained.CASE_NAMES if not case.startswith(skipped)]
    assert bench.spec.RUNNERS_BY_NAME["transformers_torch"].title == "Transformers on PyTorch"
    assert bench.cli.parse_args(["--torch-python", "/opt/t/bin/python"]).torch_python == "/opt/t/bin/python"
    assert bench.cli.parse_args([]).torch_python is None
    command = bench.cli.public_command(["--torch-python", "/opt/t/bin/python", "--quick"])
    assert command == "python tools/bench.py --torch-python python --quick"


def test_without_torch_python_the_jobs_are_unavailable_and_start_nothing(bench, tmp_path):
    assert bench.orchestrate.python_for("transformers_torch", None) is None
    assert bench.orchestrate.python_for("keras3_jax", None) == sys.executable
    assert bench.orchestrate.python_for("transformers_torch", "/t/python") == "/t/python"
    result = bench.orchestrate.run_job(_job(bench), str(tmp_path), {}, timeout=10, python=None)
    assert result["status"] == "unavailable"
    assert "--torch-python" in result["reason"]


def test_an_interpreter_that_is_not_there_is_unavailable(bench, tmp_path):
    missing = str(tmp_path / "no-such-python")
    result = bench.orchestrate.run_job(_job(bench), str(tmp_path), {}, timeout=10, python=missing)
    assert result["status"] == "unavailable"
    assert "cannot start" in result["reason"] and "no-such-python" in result["reason"]


def test_an_interpreter_without_torch_makes_the_worker_say_unavailable(bench, tmp_path):
    # A stand-in interpreter: this one, with a "torch" on its path that fails to import as a missing one does.
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "torch.py").write_text("raise ModuleNotFoundError(\"No module named 'torch'\")\n")
    python = tmp_path / "python-without-torch"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{blocker}:$PYTHONPATH" exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    env = bench.orchestrate.base_env()
    result = bench.orchestrate.run_job(_job(bench), str(tmp_path), env, timeout=120, python=str(python))
    assert result["status"] == "unavailable", result.get("reason")
    assert "Transformers on PyTorch needs torch, transformers and h5py" in result["reason"]
    assert "No module named 'torch'" in result["reason"]


def test_the_worker_sends_the_peer_to_its_own_module(bench, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    result = bench.worker.run_job(_job(bench).to_json(), str(tmp_path))
    assert result["status"] == "unavailable"
    assert "torch" in result["reason"]


def test_an_unavailable_column_reads_n_a_and_the_greedy_check_names_the_peer(bench):
    records = [
        {"repeat": 1, "job": {"case": "gen_gpt2_b1", "runner": runner}, "result": result}
        for runner, result in (
            ("tfkit", {"status": "ok", "metrics": {"load_s": 1.0}, "info": {"hub": {"greedy_ids": [[1, 2]]}}}),
            (
                "transformers_torch",
                {"status": "unavailable", "reason": bench.orchestrate.NO_TORCH_PYTHON, "metrics": {}, "info": {}},
            ),
        )
    ]
    summary = bench.report.aggregate(records)
    footnotes = bench.report.Footnotes()
    lines = bench.report.table(summary, ["tfkit", "transformers_torch"], ["gen_gpt2_b1"], footnotes)
    assert lines[0] == "| measurement | tfkit | Transformers on PyTorch |"
    assert any("n/a [1]" in line for line in lines)
    assert "--torch-python" in footnotes.texts[0]
    agreement = bench.pretrained.greedy_agreement({"tfkit": [[1, 2]], "transformers_torch": [[1, 2]]})
    assert agreement == "Greedy ids against tfkit.hub: Transformers on PyTorch identical."


# ------------------------------------------------------------------ config and weight mapping (numpy only)


def test_configs_keep_kerashubs_numerics(bench):
    models = bench.pretrained.MODELS
    gpt2 = bench.transformers_config.model_for("GPT2Backbone", models["gpt2_124m"].config, "causal_lm")
    assert (gpt2.model_class, gpt2.arguments["activation_function"], gpt2.arguments["n_inner"]) == (
        "GPT2LMHeadModel",
        "gelu_new",
        3072,
    )
    assert gpt2.arguments["eos_token_id"] is None and gpt2.arguments["tie_word_embeddings"]
    llama = bench.transformers_config.model_for("Llama3Backbone", models["llama_100m"].config, "causal_lm")
    assert llama.arguments["num_key_value_heads"] == 4 and not llama.arguments["tie_word_embeddings"]
    assert llama.arguments["rms_norm_eps"] == 1e-6 and llama.arguments["rope_theta"] == 10000.0
    bert = bench.transformers_config.model_for("BertBackbone", models["bert_base"].config, "classifier")
    assert (bert.model_class, bert.arguments["num_labels"], bert.arguments["layer_norm_eps"]) == (
        "BertForSequenceClassification",
        bench.pretrained.NUM_CLASSES,
        1e-12,
    )
    with pytest.raises(ValueError, match="rotary scaling"):
        bench.transformers_config.model_for(
            "Llama3Backbone", {**models["llama_100m"].config, "rope_position_scaling_factor": 8.0}, "causal_lm"
        )


def test_numbered_blocks_come_in_keras_order_and_single_groups_must_be_one(bench):
    weights = bench.transformers_weights
    groups = {f"transformer_decoder_{n}" for n in (1, 2, 10)} | {"transformer_decoder", "layer_normalization"}
    assert weights.numbered_groups(groups, "transformer_decoder", 4) == [
        "transformer_decoder",
        "transformer_decoder_1",
        "transformer_decoder_2",
        "transformer_decoder_10",
    ]
    assert weights.one_group(groups, "layer_normalization") == "layer_normalization"
    with pytest.raises(ValueError, match="expected one"):
        weights.one_group(groups | {"layer_normalization_3"}, "layer_normalization")
    with pytest.raises(ValueError, match="expected 3"):
        weights.numbered_groups(groups, "transformer_decoder", 3)


def _gpt2_file(rng, hidden=8, heads=2, layers=2, vocabulary=11, positions=6, intermediate=16):
    """Made-up arrays under the names a GPT2Backbone's model.weights.h5 holds."""
    head = hidden // heads
    arrays = {
        "layers/reversible_embedding/vars/0": rng.normal(size=(vocabulary, hidden)),
        "layers/position_embedding/vars/0": rng.normal(size=(positions, hidden)),
        "layers/layer_normalization/vars/0": rng.normal(size=(hidden,)),
        "layers/layer_normalization/vars/1": rng.normal(size=(hidden,)),
    }
    for i in range(layers):
        block = "layers/transformer_decoder" + (f"_{i}" if i else "")
        for norm in ("_self_attention_layer_norm", "_feedforward_layer_norm"):
            arrays[f"{block}/{norm}/vars/0"] = rng.normal(size=(hidden,))
            arrays[f"{block}/{norm}/vars/1"] = rng.normal(size=(hidden,))
        for name in ("query", "key", "value"):
            arrays[f"{block}/_self_attention_layer/{name}_dense/vars/0"] = rng.normal(size=(hidden, heads, head))
            arrays[f"{block}/_self_attention_layer/{name}_dense/vars/1"] = rng.normal(size=(heads, head))
        arrays[f"{block}/_self_attention_layer/output_dense/vars/0"] = rng.normal(size=(heads, head, hidden))
        arrays[f"{block}/_self_attention_layer/output_dense/vars/1"] = rng.normal(size=(hidden,))
        arrays[f"{block}/_feedforward_intermediate_dense/vars/0"] = rng.normal(size=(hidden, intermediate))
        arrays[f"{block}/_feedforward_intermediate_dense/vars/1"] = rng.normal(size=(intermediate,))
        arrays[f"{block}/_feedforward_output_dense/vars/0"] = rng.normal(size=(intermediate, hidden))
        arrays[f"{block}/_feedforward_output_dense/vars/1"] = rng.normal(size=(hidden,))
    return arrays


def _built(steps, arrays):
    return {step.target: step.combine(*(arrays[name] for name in step.sources)) for step in steps}


def test_gpt2_fuses_query_key_and_value_into_c_attn_as_conv1d_computes_it(bench):
    rng = np.random.default_rng(0)
    arrays = _gpt2_file(rng)
    steps = bench.transformers_weights.plan("GPT2Backbone", {"num_layers": 2}, arrays)
    params = _built(steps, arrays)
    assert len(params) == 2 + 2 + 12 * 2  # embeddings, final norm, 12 tensors a block; lm_head is tied to wte
    assert params["transformer.h.1.attn.c_attn.weight"].shape == (8, 24)
    x = rng.normal(size=(3, 8))
    fused = x @ params["transformer.h.1.attn.c_attn.weight"] + params["transformer.h.1.attn.c_attn.bias"]
    block = "layers/transformer_decoder_1/_self_attention_layer/"
    for third, name in enumerate(("query", "key", "value")):  # Keras: einsum("bh,hnd->bnd") + bias, heads flattened
        keras = (
            np.einsum("bh,hnd->bnd", x, arrays[f"{block}{name}_dense/vars/0"]) + arrays[f"{block}{name}_dense/vars/1"]
        )
        np.testing.assert_allclose(fused[:, third * 8 : (third + 1) * 8], keras.reshape(3, 8))
    heads = rng.normal(size=(3, 2, 4))  # the attention's per-head output into c_proj (Conv1D: x @ W + b)
    keras = np.einsum("bnd,ndh->bh", heads, arrays[f"{block}output_dense/vars/0"])
    np.testing.assert_allclose(heads.reshape(3, 8) @ params["transformer.h.1.attn.c_proj.weight"], keras)
    assert params["transformer.h.0.mlp.c_fc.weight"].shape == (8, 16)  # Conv1D keeps Keras's (in, out)


def test_llama_transposes_projections_for_nn_linear_and_keeps_the_untied_head(bench):
    rng = np.random.default_rng(1)
    hidden, heads, kv_heads, head, intermediate, vocabulary = 8, 4, 2, 2, 12, 10
    arrays = {
        "layers/reversible_embedding/vars/0": rng.normal(size=(vocabulary, hidden)),
        "layers/reversible_embedding/vars/1": rng.normal(size=(hidden, vocabulary)),
        "layers/llama_layer_norm/vars/0": rng.normal(size=(hidden,)),
    }
    block = "layers/llama_transformer_decoder"
    arrays[f"{block}/_self_attention_layernorm/vars/0"] = rng.normal(size=(hidden,))
    arrays[f"{block}/_feedforward_layernorm/vars/0"] = rng.normal(size=(hidden,))
    for name, count in (("_query_dense", heads), ("_key_dense", kv_heads), ("_value_dense", kv_heads)):
        arrays[f"{block}/_self_attention_layer/{name}/vars/0"] = rng.normal(size=(hidden, count, head))
    arrays[f"{block}/_self_attention_layer/_output_dense/vars/0"] = rng.normal(size=(heads, head, hidden))
    for name in ("_feedforward_gate_dense", "_feedforward_intermediate_dense"):
        arrays[f"{block}/{name}/vars/0"] = rng.normal(size=(hidden, intermediate))
    arrays[f"{block}/_feedforward_output_dense/vars/0"] = rng.normal(size=(intermediate, hidden))
    steps = bench.transformers_weights.plan("Llama3Backbone", {"num_layers": 1}, arrays)
    params = _built(steps, arrays)
    assert len(params) == 3 + 9
    x = rng.normal(size=(3, hidden))
    keras = np.einsum("bh,hnd->bnd", x, arrays[f"{block}/_self_attention_layer/_key_dense/vars/0"])
    np.testing.assert_allclose(x @ params["model.layers.0.self_attn.k_proj.weight"].T, keras.reshape(3, -1))
    out = rng.normal(size=(3, heads, head))
    keras = np.einsum("bnd,ndh->bh", out, arrays[f"{block}/_self_attention_layer/_output_dense/vars/0"])
    np.testing.assert_allclose(out.reshape(3, -1) @ params["model.layers.0.self_attn.o_proj.weight"].T, keras)
    assert params["lm_head.weight"].shape == (vocabulary, hidden)
    np.testing.assert_array_equal(params["lm_head.weight"], arrays["layers/reversible_embedding/vars/1"].T)
    tied = bench.transformers_weights.plan("Llama3Backbone", {"num_layers": 1, "tie_word_embeddings": True}, arrays)
    assert "lm_head.weight" not in {step.target for step in tied}


def test_a_file_that_lacks_a_dataset_is_refused_before_anything_is_copied(bench):
    arrays = _gpt2_file(np.random.default_rng(2))
    del arrays["layers/transformer_decoder_1/_feedforward_output_dense/vars/1"]
    with pytest.raises(ValueError, match="lacks 1 datasets"):
        bench.transformers_weights.plan("GPT2Backbone", {"num_layers": 2}, arrays)
    with pytest.raises(ValueError, match="no weight mapping"):
        bench.transformers_weights.plan("ViTBackbone", {}, arrays)


def test_bert_fills_the_encoder_and_pooler_and_leaves_the_classifier_head(bench):
    rng = np.random.default_rng(3)
    hidden, heads, head, intermediate = 8, 2, 4, 16
    arrays = {
        "layers/reversible_embedding/vars/0": rng.normal(size=(20, hidden)),
        "layers/position_embedding/vars/0": rng.normal(size=(12, hidden)),
        "layers/embedding/vars/0": rng.normal(size=(2, hidden)),
        "layers/layer_normalization/vars/0": rng.normal(size=(hidden,)),
        "layers/layer_normalization/vars/1": rng.normal(size=(hidden,)),
        "layers/dense/vars/0": rng.normal(size=(hidden, hidden)),
        "layers/dense/vars/1": rng.normal(size=(hidden,)),
    }
    block = "layers/transformer_encoder/"
    for name in ("query", "key", "value"):
        arrays[f"{block}_self_attention_layer/{name}_dense/vars/0"] = rng.normal(size=(hidden, heads, head))
        arrays[f"{block}_self_attention_layer/{name}_dense/vars/1"] = rng.normal(size=(heads, head))
    arrays[f"{block}_self_attention_layer/output_dense/vars/0"] = rng.normal(size=(heads, head, hidden))
    arrays[f"{block}_self_attention_layer/output_dense/vars/1"] = rng.normal(size=(hidden,))
    for norm in ("_self_attention_layer_norm", "_feedforward_layer_norm"):
        arrays[f"{block}{norm}/vars/0"] = rng.normal(size=(hidden,))
        arrays[f"{block}{norm}/vars/1"] = rng.normal(size=(hidden,))
    arrays[f"{block}_feedforward_intermediate_dense/vars/0"] = rng.normal(size=(hidden, intermediate))
    arrays[f"{block}_feedforward_intermediate_dense/vars/1"] = rng.normal(size=(intermediate,))
    arrays[f"{block}_feedforward_output_dense/vars/0"] = rng.normal(size=(intermediate, hidden))
    arrays[f"{block}_feedforward_output_dense/vars/1"] = rng.normal(size=(hidden,))
    params = _built(bench.transformers_weights.plan("BertBackbone", {"num_layers": 1}, arrays), arrays)
    assert len(params) == 5 + 16 + 2  # embeddings and their norm, one block, the pooler
    assert not any(name.startswith("classifier.") for name in params)
    x = rng.normal(size=(3, hidden))
    keras = np.einsum("bh,hnd->bnd", x, arrays[f"{block}_self_attention_layer/query_dense/vars/0"])
    keras += arrays[f"{block}_self_attention_layer/query_dense/vars/1"]
    linear = x @ params["bert.encoder.layer.0.attention.self.query.weight"].T
    np.testing.assert_allclose(linear + params["bert.encoder.layer.0.attention.self.query.bias"], keras.reshape(3, -1))
    np.testing.assert_array_equal(params["bert.pooler.dense.weight"], arrays["layers/dense/vars/0"].T)
