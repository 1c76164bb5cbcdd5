"""ParameterServerStrategy with a variable_partitioner: an Embedding split over 2 parameter servers.

The cluster (the chief, 2 workers, 2 parameter servers on loopback ports) lives
in one subprocess, ``partitioned_embedding_cluster.py``, killed if it outlives
its time limit. The table has 200,000 x 32 rows here; the closing note of issue
36 reports the 2,000,000-row run (``python tests/partitioned_embedding_cluster.py
out.json 2000000``).
"""

import json
import os
import subprocess
import sys

import pytest
import time_limits

_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "partitioned_embedding_cluster.py")
_TIME_LIMIT_S = 300


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    out_file = str(tmp_path_factory.mktemp("partitioned") / "figures.json")
    process = subprocess.Popen(
        [sys.executable, _SCRIPT, out_file],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
    )
    try:
        output, _ = process.communicate(timeout=time_limits.seconds(_TIME_LIMIT_S))
    finally:
        if process.poll() is None:  # past its time limit: stop it (its servers are threads of it)
            process.kill()
            process.communicate()
    assert process.returncode == 0 and os.path.exists(out_file), output[-4000:]
    with open(out_file) as f:
        result = json.load(f)
    assert "traceback" not in result, result["traceback"]
    return result


@pytest.mark.slow
def test_the_table_is_split_over_both_parameter_servers(figures):
    assert [shape for shape, _ in figures["parts"]] == [[100000, 32], [100000, 32]]
    assert sorted(device.split("/device")[0] for _, device in figures["parts"]) == [
        "/job:ps/replica:0/task:0",
        "/job:ps/replica:0/task:1",
    ]
    assert figures["trainable_parts"] == 4  # 2 table parts, the kernel and the bias
    assert figures["slots_on_servers"] == ["/job:ps/replica:0/task:0", "/job:ps/replica:0/task:1"]


@pytest.mark.slow
def test_lookups_and_gradients_touch_only_the_rows_in_the_batch(figures):
    assert figures["gradient_types"] == ["IndexedSlices", "IndexedSlices"]
    assert figures["changed_rows_all_used"]
    assert figures["rows_changed"] == figures["rows_used"] < 200000 // 10
    assert figures["loss"][-1] < figures["loss"][0]


@pytest.mark.slow
def test_it_saves_loads_on_one_device_and_serves_without_tfkit(figures):
    assert figures["loaded_table"] == [200000, 32]  # the file holds the whole table
    assert figures["loaded_on_one_device"] < 1e-6
    assert figures["served_without_tfkit"] < 1e-6
