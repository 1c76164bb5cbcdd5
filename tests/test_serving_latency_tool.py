"""tools/serving_latency.py: interleaved single-sample latency of SavedModels (no timing assertion)."""

from __future__ import annotations

import importlib
import pathlib

import numpy as np
import pytest
import tensorflow as tf

import tfkit

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"


@pytest.fixture
def tool(monkeypatch):
    monkeypatch.syspath_prepend(str(TOOLS))
    return importlib.import_module("serving_latency")


def test_every_export_gets_a_median_and_the_outputs_are_the_models(tool, tmp_path, capsys):
    inputs = tfkit.Input(shape=(3,))
    model = tfkit.Model(inputs, tfkit.layers.Dense(2)(inputs))
    path = model.export(str(tmp_path / "scorer" / "1"))
    capsys.readouterr()  # export's own message
    latencies = tool.interleaved_latency_ms({"a": path, "b": path}, calls=3, warmup=1)
    assert sorted(latencies) == ["a", "b"] and all(value > 0 for value in latencies.values())
    tool.main([f"a={path}", "--calls", "2"])
    header, row = capsys.readouterr().out.splitlines()
    assert header.split() == ["export", "p50", "ms", "(ratio)", "p90", "ms", "(ratio)", "graph", "nodes"]
    words = row.split()
    assert words[0] == "a" and float(words[1]) > 0 and words[2] == "(1.00x)" and float(words[3]) >= float(words[1])
    nodes = tool.graph_nodes(tf.saved_model.load(path).signatures["serving_default"])
    assert words[5] == str(nodes) and nodes >= 4  # at least a MatMul, a BiasAdd and two reads
    assert tool.percentile([4.0, 1.0, 3.0, 2.0], 0.5) == 2.0 and tool.percentile([4.0, 1.0, 3.0, 2.0], 0.9) == 4.0
    signature = tf.saved_model.load(path).signatures["serving_default"]
    feed = tool.one_sample(signature)
    (value,) = feed.values()
    assert value.shape == (1, 3)
    (output,) = signature(**feed).values()
    np.testing.assert_allclose(output.numpy(), model.predict(value.numpy(), verbose=0), rtol=1e-5, atol=1e-6)


def test_bad_arguments_say_what_was_expected(tool, tmp_path):
    assert tool.parse_exports(["x=/a", "/b"]) == {"x": "/a", "/b": "/b"}
    with pytest.raises(ValueError, match="given twice"):
        tool.parse_exports(["x=/a", "x=/b"])
    with pytest.raises(ValueError, match="LABEL=EXPORT_DIR"):
        tool.parse_exports(["=/a"])
    with pytest.raises(ValueError, match="calls must be at least 1"):
        tool.interleaved_latency_ms({"a": str(tmp_path)}, calls=0)
