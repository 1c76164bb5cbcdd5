"""Two bugs keras-io's KerasHub guides found in tfkit.hub (``tools/keras_io_hub_guides.py``), each pinned.

- ``import tfkit.hub`` started TensorFlow's runtime (a module-level ``tf.constant`` in the byte tokenizer), so a
  script could no longer set up logical devices afterwards, as keras-io's data-parallel guide does after
  ``import keras_hub``.
- ``WordPieceTokenizer.detokenize`` handed an id outside the vocabulary to TensorFlow Text's kernel, which
  crashed the process; every vocabulary tokenizer now refuses one with a ``ValueError`` naming it (eagerly)
  or an ``InvalidArgumentError`` (in a graph).

Each case runs in a child process, so a regression that crashes fails the test instead of the suite.
"""

import subprocess
import sys
import textwrap

import pytest
import time_limits


def run_child(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=time_limits.seconds(120)
    )


@pytest.mark.parametrize("library", ["tfkit.hub", "keras_hub"])
def test_devices_can_be_set_up_after_importing_the_hub_as_after_keras_hub(library):
    if library == "keras_hub":
        pytest.importorskip("keras_hub")
    done = run_child(
        f"""
        import os
        os.environ["KERAS_BACKEND"] = "tensorflow"
        import tensorflow as tf
        import {library}
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        print(len(tf.config.list_logical_devices("CPU")))
        """
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "2"


def test_an_id_outside_the_vocabulary_is_refused_not_a_crash():
    done = run_child(
        """
        import sys
        import tensorflow as tf
        import tfkit.hub as keras_hub
        sys.path.insert(0, "tests")
        from hub_presets_mistral import sentence_piece_model

        word_piece = keras_hub.tokenizers.WordPieceTokenizer(vocabulary=["[PAD]", "[UNK]", "the", "fox"], name="wp")
        piece = keras_hub.tokenizers.SentencePieceTokenizer(proto=sentence_piece_model(), name="sp")
        print(word_piece.detokenize([[2, 3]]))
        for tokenizer, ids in ((word_piece, [[2, 3, 17]]), (word_piece, [[-1]]), (piece, [[2, 500]])):
            try:
                tokenizer.detokenize(ids)
            except ValueError as error:
                print("refused:", error)
        graph = tf.function(lambda ids: word_piece.detokenize(ids))
        try:
            graph(tf.ragged.constant([[2, 9]]))
        except tf.errors.InvalidArgumentError as error:
            print("graph refused:", "token ids must be in [0, 3]" in str(error))
        """
    )
    assert done.returncode == 0, done.stderr[-2000:]  # -11 (SIGSEGV) before the fix
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "['the fox']"
    assert lines[1] == "refused: WordPieceTokenizer 'wp': token ids must be in [0, 3] (the vocabulary's ids), got [17]"
    assert lines[2].endswith("got [-1]")
    assert lines[3].startswith("refused: SentencePieceTokenizer 'sp': token ids must be in [0, 79]")
    assert lines[4] == "graph refused: True"
