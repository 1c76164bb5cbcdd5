"""`tfkit.config.enable_compilation_cache`: a later process loads the XLA programs an earlier one compiled.

Two child processes compile the same small `tf.function(jit_compile=True)` with the cache on: the first
writes a program to the folder, the second adds none (it loaded the first's). Folders another user could
write into are refused, since a cached program runs as machine code.
"""

import os
import subprocess
import sys

import pytest

import tfkit

CHILD = """
import sys
import tfkit
tfkit.config.enable_compilation_cache(sys.argv[1])
import tensorflow as tf
step = tf.function(lambda x: tf.reduce_sum(tf.tanh(x) * 3.0), jit_compile=True)
print(float(step(tf.ones((4, 4)))))
"""


def run_child(folder):
    environment = {key: value for key, value in os.environ.items() if key != "TF_XLA_FLAGS"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder)], env=environment, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return float(done.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_the_program_the_first_compiled(tmp_path):
    folder = tmp_path / "xla"
    assert run_child(folder) == pytest.approx(16 * 3 * 0.7615941559557649)
    programs = sorted(os.listdir(folder))
    assert programs, "the first process wrote no compiled program"
    assert run_child(folder) == pytest.approx(16 * 3 * 0.7615941559557649)
    assert sorted(os.listdir(folder)) == programs  # the second process compiled nothing new


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_folders_others_can_write_are_refused_and_nothing_is_set(tmp_path, monkeypatch):
    monkeypatch.delenv("TF_XLA_FLAGS", raising=False)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(ValueError, match=r"writable by other users \(mode drwxrwxrwx\).*chmod go-w"):
        tfkit.config.enable_compilation_cache(shared)
    assert "TF_XLA_FLAGS" not in os.environ


def test_a_second_folder_is_refused_once_one_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("TF_XLA_FLAGS", f"--tf_xla_persistent_cache_directory={tmp_path / 'first'}")
    with pytest.raises(ValueError, match="already names the cache folder"):
        tfkit.config.enable_compilation_cache(tmp_path / "second")
    assert tfkit.config.enable_compilation_cache(tmp_path / "first") == str(tmp_path / "first")
