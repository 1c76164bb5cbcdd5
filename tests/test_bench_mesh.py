"""The device-mesh section of ``tools/bench.py`` (``--mesh``, ``tools/mesh_bench.py``) on fake runs.

Nothing is trained: the runs are dicts shaped as the mesh workers print them,
going through the same summary and table the real ones do.
"""

from __future__ import annotations

import importlib
import json
import pathlib

import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"


@pytest.fixture
def tools(monkeypatch):
    monkeypatch.syspath_prepend(str(TOOLS))
    return type(
        "Tools", (), {"mesh": importlib.import_module("mesh_bench"), "cli": importlib.import_module("bench.cli")}
    )


def run(framework, mode, epochs, cpu=1.0, loss=0.5, model="guide", round=1):
    return {
        "framework": framework,
        "mode": mode,
        "model": model,
        "round": round,
        "epochs": epochs,
        "cpu": cpu,
        "loss": loss,
    }


def test_a_round_runs_each_mode_in_both_frameworks_and_mirrored_in_tfkit_only(tools):
    assert tools.mesh.plan(["guide"], mirrored=True) == [
        ("tfkit", "one", "guide"),
        ("keras_jax", "one", "guide"),
        ("tfkit", "data_parallel", "guide"),
        ("keras_jax", "data_parallel", "guide"),
        ("tfkit", "model_parallel", "guide"),
        ("keras_jax", "model_parallel", "guide"),
        ("tfkit", "mirrored", "guide"),
    ]
    assert len(tools.mesh.plan(list(tools.mesh.MODELS))) == 12


def test_run_plan_repeats_the_plan_and_gives_keras_its_own_interpreter(tools, monkeypatch):
    seen = []

    def fake_run(python, framework, mode, model_name, epochs, timeout, env=None):
        seen.append((python, framework))
        return {"epochs": [1.0] * epochs, "cpu": 1.0, "loss": 0.5}

    monkeypatch.setattr(tools.mesh, "_run", fake_run)
    monkeypatch.delenv("TF_NUM_INTEROP_THREADS", raising=False)
    monkeypatch.setenv("TF_NUM_INTRAOP_THREADS", "1")
    result = tools.mesh.run_plan(["guide"], rounds=2, epochs=3, keras_python="/jax/python")
    assert [run["round"] for run in result["runs"]] == [1] * 6 + [2] * 6
    assert {python for python, framework in seen if framework == "keras_jax"} == {"/jax/python"}
    assert (result["modes"], result["epochs"]) == (list(tools.mesh.MODES), 3)
    json.dumps(result)  # kept as a section of a --resume file
    # TensorFlow thread settings the run was given are part of the result and of the section's text
    assert result["tf_threads"] == {"TF_NUM_INTRAOP_THREADS": "1"}
    assert "tfkit's runs had `TF_NUM_INTRAOP_THREADS=1`." in tools.mesh.section(result)


def test_the_table_gives_medians_the_ratio_to_keras_jax_and_the_overhead_over_one_device(tools):
    result = {
        "models": ["guide"],
        "modes": ["one", "data_parallel", "model_parallel", "mirrored"],
        "rounds": 2,
        "epochs": 3,
        "runs": [
            run("tfkit", "one", [0.5, 0.10, 0.10], cpu=1.0),
            run("tfkit", "one", [0.7, 0.10, 0.14], cpu=2.0, round=2),
            run("keras_jax", "one", [0.9, 0.08, 0.08]),
            run("tfkit", "data_parallel", [1.8, 0.30, 0.30]),
            run("keras_jax", "data_parallel", [1.6, 0.40, 0.40]),
            run("tfkit", "model_parallel", [2.0, 0.25, 0.25]),
            {"framework": "keras_jax", "mode": "model_parallel", "model": "guide", "round": 1, "error": "boom"},
            run("tfkit", "mirrored", [4.6, 5.0, 5.0], loss=0.34),
        ],
    }
    lines = tools.mesh.table(result).splitlines()
    assert lines[0].startswith("| model | mode | framework | first epoch [s] | steady epoch [s] | tfkit / Keras-JAX")
    assert lines[2:] == [
        "| guide | one | tfkit | 0.60 | 0.100 | 1.25x | 1.00x | 1.5 | 0.5000 |",
        "| guide | one | Keras 3 on JAX | 0.90 | 0.080 |  | 1.00x | 1.0 | 0.5000 |",
        "| guide | data_parallel | tfkit | 1.80 | 0.300 | 0.75x | 3.00x | 1.0 | 0.5000 |",
        "| guide | data_parallel | Keras 3 on JAX | 1.60 | 0.400 |  | 5.00x | 1.0 | 0.5000 |",
        "| guide | model_parallel | tfkit | 2.00 | 0.250 |  | 2.50x | 1.0 | 0.5000 |",
        "| guide | model_parallel | Keras 3 on JAX | boom ||||||",
        "| guide | mirrored | tfkit | 4.60 | 5.000 |  | 50.00x | 1.0 | 0.3400 |",
    ]
    section = tools.mesh.section(result)
    assert section.startswith("## Training on a device mesh") and "*over one device*" in section
    assert section.endswith(tools.mesh.table(result))


def test_mesh_options_and_the_section_written_where_out_says(tools, monkeypatch, tmp_path, capsys):
    args = tools.cli.parse_args(["--mesh"])
    assert (args.mesh_models, args.repeats, args.mesh_epochs, args.out) == (["guide", "mlp4x1024"], 2, 4, "-")
    quick = tools.cli.parse_args(["--mesh", "--quick", "--keras-python", "/jax/python"])
    assert (quick.mesh_models, quick.repeats, quick.keras_python) == (["guide"], 1, "/jax/python")
    for wrong in (["--mesh", "--epochs", "1"], ["--mesh", "--startup"], ["--mesh", "--out", "docs/PERFORMANCE.md"]):
        with pytest.raises(SystemExit):
            tools.cli.parse_args(wrong)
    asked = []

    def run_plan(models, rounds, epochs, mirrored, keras_python, timeout, env=None):
        asked.append((list(models), rounds, epochs, mirrored, keras_python))
        return {
            "models": ["guide"],
            "modes": ["one"],
            "rounds": rounds,
            "epochs": epochs,
            "runs": [run("tfkit", "one", [0.5, 0.1])],
        }

    monkeypatch.setattr(tools.mesh, "run_plan", run_plan)
    out = tmp_path / "mesh.md"
    argv = ["--mesh", "--mesh-models", "guide", "--repeats", "1", "--mirrored", "--keras-python", "/jax/python"]
    assert tools.cli.main(argv + ["--out", str(out)]) == 0
    assert asked == [(["guide"], 1, 4, True, "/jax/python")]
    assert "| guide | one | tfkit | 0.50 | 0.100 |  | 1.00x | 1.0 | 0.5000 |" in out.read_text()
    assert out.read_text() in capsys.readouterr().out
