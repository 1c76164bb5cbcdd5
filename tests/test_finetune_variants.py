"""`tools/finetune_variants.py`: its variants, its arguments and its table, on fake records (no fine-tuning runs)."""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))

import finetune_variants  # noqa: E402


def test_variants_cover_xla_and_bfloat16_each_alone_and_together():
    settings = finetune_variants.VARIANTS
    assert settings["float32"] == {"dtype": None, "jit_compile": None}
    assert settings["xla"]["jit_compile"] is True and settings["xla"]["dtype"] is None
    assert settings["bf16"] == {"dtype": "mixed_bfloat16", "jit_compile": None}
    assert settings["bf16_xla"] == {"dtype": "mixed_bfloat16", "jit_compile": True}


def test_table_gives_medians_and_the_median_of_per_repeat_ratios():
    results = {
        ("ft_bert", "bf16", "tfkit"): [
            {"step_steady_s": 1.0, "fit": "jit_compile=False", "compute_dtype": "bfloat16", "loss_epoch2": 0.5},
            {"step_steady_s": 3.0, "fit": "jit_compile=False", "compute_dtype": "bfloat16", "loss_epoch2": 0.5},
        ],
        ("ft_bert", "bf16", "keras3_jax"): [
            {"step_steady_s": 4.0, "loss_epoch2": 0.25},
            {"step_steady_s": 4.0, "loss_epoch2": 0.25},
        ],
    }
    row = finetune_variants.table(results, ["ft_bert"], ["bf16"]).splitlines()[-1]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    # medians 2.0 and 4.0; per-repeat ratios 0.25 and 0.75, median 0.5
    assert cells[1:5] == ["bf16", "2.000", "4.000", "0.50x"]
    assert cells[5] == "jit_compile=False, bfloat16"
    assert cells[6] == "0.5000 / 0.2500"


def test_a_failed_run_is_shown_with_its_error_and_no_ratio():
    results = {
        ("ft_llama_lora", "xla", "tfkit"): [{"error": "ValueError: boom"}],
        ("ft_llama_lora", "xla", "keras3_jax"): [{"step_steady_s": 2.0}],
    }
    row = finetune_variants.table(results, ["ft_llama_lora"], ["xla"]).splitlines()[-1]
    assert "failed: ['ValueError: boom']" in row
    assert "| - |" in row


def test_unknown_variant_is_refused_by_name(capsys):
    with pytest.raises(SystemExit):
        finetune_variants.main(["--presets", "x", "--variants", "float32,fp8"])
    assert "unknown case or variant: fp8" in capsys.readouterr().err


def test_bfloat16_instructions_reads_the_cpu_flags(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("flags\t\t: fpu avx512f avx512_bf16 amx_bf16 amx_tile\n")
    assert finetune_variants.bf16_instructions(str(cpuinfo)) == "amx_bf16, avx512_bf16"
    cpuinfo.write_text("flags\t\t: fpu avx2 fma\n")
    assert finetune_variants.bf16_instructions(str(cpuinfo)) == "none found"
    assert finetune_variants.bf16_instructions(str(tmp_path / "absent")).startswith("unknown")
