"""The raw-TF floor of ``tools/bench.py`` builds its epoch ``tf.function`` once a fit and traces it once.

A few epochs of the floor's VAE on 200 random rows (a short last batch), with the
array loop and the ``tf.data`` loop: ``info["traces"]`` counts the traces of the
whole fit, so a function rebuilt or retraced each epoch would count more than 1.
"""

from __future__ import annotations

import importlib
import pathlib

import numpy as np
import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"


@pytest.fixture
def peer(monkeypatch):
    pytest.importorskip("tensorflow")
    monkeypatch.syspath_prepend(str(TOOLS))
    module = importlib.import_module("bench.peer_raw_tf")
    module.load("raw_tf")
    return module


@pytest.mark.parametrize("workload", ["vae", "tfdata"])
def test_the_floor_traces_its_epoch_function_once_per_fit(peer, workload):
    x = np.random.default_rng(0).random((200, 784)).astype("float32")
    metrics, info = peer.train({"workload": workload, "epochs": 3, "batch_size": 64}, x, x)
    assert info["traces"] == 1
    assert metrics["epochs_run"] == 3 and np.isfinite(metrics["loss_epoch2"])
    metrics, info = peer.train({"workload": workload, "epochs": 1, "batch_size": 64}, x, x)
    assert info["traces"] == 1  # a new fit builds its own function: counted from zero
