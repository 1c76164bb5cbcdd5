"""tfkit.distribution on 8 logical CPU devices, against the same run on one device.

The scenarios run in a process of their own (``tests/mesh/scenarios.py``):
logical devices can only be set before TensorFlow starts. Tolerances are float32
round-off: the distributed step sums the same gradients in another order.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import time_limits

SCRIPT = Path(__file__).parent / "mesh" / "scenarios.py"
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def scenarios() -> dict:
    """Every scenario of ``mesh/scenarios.py``, run once in one process (killed at its time limit)."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=time_limits.seconds(600)
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def figures_of(scenarios):
    def lookup(name: str) -> dict:
        figures = scenarios[name]
        assert "traceback" not in figures, figures["traceback"]
        return figures

    return lookup


def _assert_matches_one_device(figures: dict) -> None:
    assert figures["sharded"], "every weight should live on the mesh"
    assert figures["loss_fell"]
    assert figures["loss_diff"] < TOLERANCE
    assert figures["weight_diff"] < TOLERANCE
    assert figures["evaluate_diff"] < TOLERANCE
    assert figures["predict_diff"] < 1e-4  # outputs, not averages: a little more room


def test_data_parallel_on_8_devices_trains_as_one_device(figures_of):
    figures = figures_of("data_parallel_8")
    _assert_matches_one_device(figures)
    assert all(spec == ["unsharded"] * len(spec) for spec in figures["layouts"].values())
    assert figures["shard_shapes"]["d1/kernel"] == [[16, 32]] * 8  # every device holds the whole kernel


def test_in_memory_data_trains_in_the_compiled_multi_step_loop_on_a_mesh_as_on_one_device(figures_of):
    figures = figures_of("compiled_chunks")
    # the loop that cuts batches inside the graph (several steps a call) ran on the mesh, for the training batches
    assert figures["array_loops_on_mesh"] == [["array", "train", 16]]
    # and callbacks with batch hooks see the same batches as on one device
    assert figures["batch_ends"]["mesh"] == figures["batch_ends"]["one_device"] == [0, 1, 2, 3] * 2


def test_a_models_own_train_step_trains_on_a_mesh_as_on_one_device(figures_of):
    figures = figures_of("own_train_step")
    assert figures["loss_fell"]
    assert figures["loss_diff"] < TOLERANCE


def test_data_too_large_to_copy_to_every_device_trains_from_batches_read_in_python_as_one_device(figures_of):
    _assert_matches_one_device(figures_of("step_per_batch"))


def test_a_dataset_trains_in_compiled_chunks_of_stacked_batches_as_one_device(figures_of):
    figures = figures_of("dataset_chunks")
    assert figures["sharded"] and figures["loss_fell"]
    for key in ("loss_diff", "weight_diff", "evaluate_diff"):
        assert figures[key] < TOLERANCE, key
    # six full batches of 16 and a short one of 8, for fit and evaluate: a chunk loop for each batch shape
    shapes = [[[16, 16], [16, 8]], [[8, 16], [8, 8]]]
    assert figures["stacked_shapes"] == {"train": shapes, "test": shapes}
    assert figures["step_per_batch_traced"] == []  # no batch ran through the step-per-batch path


def test_steps_per_epoch_of_a_dataset_on_a_mesh_goes_on_from_epoch_to_epoch_as_on_one_device(figures_of):
    figures = figures_of("dataset_chunks")["continued"]
    assert figures["loss_fell"]
    for key in ("loss_diff", "weight_diff", "evaluate_diff"):
        assert figures[key] < TOLERANCE, key


def test_batches_of_more_shapes_than_get_chunk_loops_run_a_step_each_and_still_train_as_one_device(figures_of):
    figures = figures_of("dataset_chunks")["varied"]
    assert figures["loss_fell"]
    for key in ("loss_diff", "weight_diff", "evaluate_diff"):
        assert figures[key] < TOLERANCE, key
    assert figures["stacked_sizes"] == [8, 16, 24, 32]  # MAX_SHAPES batch shapes got a chunk loop each
    assert figures["step_per_batch_traced"] == ["test", "train"]  # the sizes 40 and 48: a step each


def test_stateful_recurrent_layers_train_on_a_mesh_with_their_states_laid_out_as_the_layout_map_says(figures_of):
    figures = figures_of("recurrent")
    _assert_matches_one_device(figures)
    # LSTM and GRU kernels split by columns over "model" (gates are cut from one product: made whole first)
    assert figures["layouts"]["lstm/lstm_cell/kernel"] == ["unsharded", "model"]
    assert figures["shard_shapes"]["gru/gru_cell/recurrent_kernel"] == [[8, 6]] * 8
    # the carried states are variables of the mesh like the weights, split over "batch" as the map says
    assert figures["state_layouts"] == [["batch", "unsharded"], ["batch", "unsharded"]]
    assert figures["state_diff"] < 1e-4


def test_string_lookup_idf_weights_live_on_the_mesh_and_weigh_as_on_one_device(figures_of):
    figures = figures_of("tf_idf_lookup")
    assert figures["idf_on_mesh"]
    assert figures["output_sum"] > 0  # the comparison below compares real weights, not zeros
    assert figures["idf_diff"] == figures["output_diff"] == figures["mapped_diff"] == 0.0
    assert figures["integer_sum"] > 0 and figures["integer_diff"] == 0.0  # an IntegerLookup called eagerly
    # inside a step on the mesh a lookup cannot run (a host table): the error names the layer and the fix
    assert "StringLookup layer 'string_lookup_1' cannot run inside a step" in figures["in_step_error"]
    assert "dataset.map" in figures["in_step_error"]


@pytest.mark.parametrize("scenario, model_axis", [("model_parallel_2x4", 4), ("model_parallel_4x2", 2)])
def test_model_parallel_splits_as_the_layout_map_says_and_trains_as_one_device(scenario, model_axis, figures_of):
    figures = figures_of(scenario)
    _assert_matches_one_device(figures)
    assert figures["layouts"]["d1/kernel"] == ["unsharded", "model"]
    assert figures["layouts"]["d2/kernel"] == ["model", "unsharded"]
    assert figures["layouts"]["d2/bias"] == ["unsharded"]  # no key matches: replicated
    # optimizer slots follow their variable
    assert figures["slot_layouts"]["d1_kernel_momentum"] == ["unsharded", "model"]
    assert figures["slot_layouts"]["d1_bias_velocity"] == ["model"]
    # per-device memory: each device holds 1/k of a sharded kernel
    assert figures["shard_shapes"]["d1/kernel"] == [[16, 32 // model_axis]] * 8
    assert figures["shard_shapes"]["d2/kernel"] == [[32 // model_axis, 8]] * 8


def test_megatron_transformer_block_splits_heads_and_mlp(figures_of):
    figures = figures_of("transformer_block")
    _assert_matches_one_device(figures)
    assert figures["layouts"]["mha/query/kernel"] == ["unsharded", "model", "unsharded"]
    assert figures["layouts"]["mha/attention_output/kernel"] == ["model", "unsharded", "unsharded"]
    assert figures["shard_shapes"]["mha/query/kernel"] == [[16, 1, 8]] * 8  # 4 heads over 4 devices
    assert figures["shard_shapes"]["mlp_up/kernel"] == [[16, 16]] * 8  # 64 hidden units over 4


def test_embedding_rows_split_over_8_devices(figures_of):
    figures = figures_of("sharded_embedding")
    _assert_matches_one_device(figures)
    assert figures["shard_shapes"]["table/embeddings"] == [[64, 16]] * 8  # 512 rows / 8
    assert figures["slot_layouts"]["table_embeddings_momentum"] == ["model", "unsharded"]


def test_files_are_ordinary_and_cross_load(figures_of):
    figures = figures_of("files")
    for name in ("model.keras", "model.h5"):
        assert figures[f"{name}_ordinary"]
        assert figures[f"{name}_on_one_device"] < 1e-5
    assert figures["weights_into_model_parallel"] < 1e-5
    assert figures["loaded_sharded"] == [[16, 8]] * 8
    assert figures["served_without_tfkit"] < 1e-5
    assert set(figures["hostile_files"].values()) == {"ValueError"}, figures["hostile_files"]
    assert figures["unchanged_after_refusals"]


def test_backup_and_checkpoints_are_ordinary_files_that_resume_on_the_mesh_or_one_device(figures_of):
    figures = figures_of("checkpoints")
    assert figures["backup_files"] == ["ckpt.data-00000-of-00001", "ckpt.index"]  # not DTensor's sharded layout
    assert figures["epochs_after_resume"] == 2
    assert figures["resumed_on_mesh"] < TOLERANCE
    assert figures["resumed_on_one_device"] < TOLERANCE
    assert figures["model_checkpoint_loads_on_one_device"]


def test_the_keras_io_guide_trains_to_the_one_device_weights_dropout_included(figures_of):
    figures = figures_of("keras_io_guide")
    for name in ("data_parallel", "model_parallel"):
        _assert_matches_one_device(figures[name])
    assert figures["model_parallel"]["layouts"]["d1/kernel"] == ["unsharded", "model"]
    assert figures["loaded_on_one_device"] < 1e-5


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_two_processes_on_loopback_form_one_mesh_of_8_devices(tmp_path):
    script = Path(__file__).parent / "mesh" / "two_processes.py"
    ports = [str(_free_port()), str(_free_port())]
    processes = [
        subprocess.Popen(
            [sys.executable, str(script), str(i), *ports, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in (0, 1)
    ]
    results = []
    try:
        for process in processes:
            out, err = process.communicate(timeout=time_limits.seconds(240))
            assert process.returncode == 0, err[-4000:]
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for process in processes:  # past the time limit, or one failed: stop both
            if process.poll() is None:
                process.kill()
                process.communicate()
    for figures in results:
        assert figures["devices"] == [f"cpu:{i}" for i in range(8)]
        for name in ("data_parallel", "model_parallel"):
            assert figures[name]["weight_diff"] < TOLERANCE
            assert figures[name]["local_shards"] == 4  # each process holds its 4 devices' parts
            # each process read only its half of every global batch of 16 (auto_shard_dataset), yet the
            # steps saw the global batches: the weights and predictions are the one-device run's
            assert figures[name]["rows_read"] == [8, 8, 8, 8]
            assert figures[name]["own_rows_are_its_block"]
            assert figures[name]["predict_diff"] < 1e-4
    assert results[0]["model_parallel"]["loss"] == results[1]["model_parallel"]["loss"]
