"""The TextEmbedder task kind (BERT, XLM-RoBERTa, Qwen 3) on tfkit.hub, against KerasHub 0.32 itself.

KerasHub's tiny embedder presets (``hub_presets_text_embedder``) must load in tfkit with KerasHub's embeddings,
weight paths and task config; the preprocessors must give KerasHub's tensors on strings; every pooling mode must
give KerasHub's numbers; tfkit's presets must load in KerasHub; and the task must train as KerasHub's does (it
compiles without a loss, so ``fit`` needs one from the caller in both).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Callable

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, keras_hub
from hub_presets_text_embedder import (
    bert_text_embedder_preset,
    qwen3_text_embedder_preset,
    sentence_transformers_checkpoint,
    xlm_roberta_text_embedder_preset,
)

import tfkit.hub as tk_hub

PAIRS = (["the fox", "hello world!"], ["a lazy dog", "tiny"])


@dataclasses.dataclass(frozen=True)
class Family:
    prefix: str
    make: Callable[..., str]
    modes: tuple[str, ...]
    task_arguments: dict = dataclasses.field(default_factory=dict)  # the preset's, apart from the defaults


FAMILIES = [
    Family("Bert", bert_text_embedder_preset, ("mean", "cls", "max")),
    Family("XLMRoberta", xlm_roberta_text_embedder_preset, ("mean", "cls", "max"), {"pooling_mode": "max"}),
    Family("Qwen3", qwen3_text_embedder_preset, ("last", "mean")),
]


@dataclasses.dataclass
class Built:
    family: Family
    folder: str
    ours: object
    reference: object
    expected: np.ndarray  # KerasHub's embeddings of TEXTS


@pytest.fixture(scope="module", params=FAMILIES, ids=[f.prefix for f in FAMILIES])
def built(request, tmp_path_factory):
    family = request.param
    folder = family.make(str(tmp_path_factory.mktemp(family.prefix)), **family.task_arguments)
    reference = keras_hub.models.TextEmbedder.from_preset(folder)
    ours = tk_hub.models.TextEmbedder.from_preset(folder)
    expected = np.asarray(reference(reference.preprocessor(TEXTS)))  # eager: faster than tracing predict
    return Built(family, folder, ours, reference, expected)


def _numpy(value):
    return {key: np.asarray(item) for key, item in value.items()}


def test_keras_hub_preset_loads_with_its_embeddings_and_weight_paths(built):
    ours, reference = built.ours, built.reference
    assert type(ours).__name__ == type(reference).__name__ == f"{built.family.prefix}TextEmbedder"
    assert [w.path for w in ours.weights] == [w.path for w in reference.weights]
    config = reference.get_config()
    assert (ours.pooling_mode, ours.normalize) == (config["pooling_mode"], config["normalize"])
    expected = built.expected
    np.testing.assert_allclose(ours.encode_text(TEXTS, verbose=0), expected, atol=1e-5)  # predict on raw strings
    scores = ours.similarity(expected[:1], expected)
    np.testing.assert_allclose(scores, reference.similarity(expected[:1], expected), atol=1e-6)
    assert hasattr(ours, "encode_documents") == hasattr(reference, "encode_documents")


def test_preprocessor_gives_keras_hub_tensors(built):
    ours = tk_hub.models.TextEmbedderPreprocessor.from_preset(built.folder)
    reference = built.reference.preprocessor
    assert type(ours).__name__ == type(reference).__name__
    assert ours.get_config()["sequence_length"] == reference.get_config()["sequence_length"]
    for x in (TEXTS, TEXTS[0], (tf.constant(PAIRS[0]), tf.constant(PAIRS[1]))):
        expected = _numpy(reference(x=x))  # a tuple as x: segments packed together, not (x, y)
        actual = _numpy(ours(x=x))
        assert sorted(actual) == sorted(expected)
        for key in expected:
            np.testing.assert_array_equal(actual[key], expected[key], err_msg=key)


def test_every_pooling_mode_gives_keras_hub_numbers(built):
    inputs = built.reference.preprocessor(TEXTS)
    ours_cls, reference_cls = type(built.ours), type(built.reference)
    for mode in built.family.modes:
        for normalize in (True, False):
            ours = ours_cls(built.ours.backbone, pooling_mode=mode, normalize=normalize, compile=False)
            reference = reference_cls(built.reference.backbone, pooling_mode=mode, normalize=normalize)
            np.testing.assert_allclose(ours(inputs), reference(inputs), atol=1e-5, err_msg=mode)
    with pytest.raises(ValueError) as expected:
        reference_cls(built.reference.backbone, pooling_mode="first")
    with pytest.raises(ValueError) as actual:
        ours_cls(built.ours.backbone, pooling_mode="first")
    assert str(actual.value).endswith(str(expected.value))  # tfkit names the class first


def test_saved_preset_loads_in_keras_hub(built, tmp_path):
    folder = os.path.join(tmp_path, "saved")
    built.ours.save_to_preset(folder)
    assert not os.path.exists(os.path.join(folder, "task.weights.h5"))  # no head weights, as KerasHub writes it
    reloaded = keras_hub.models.TextEmbedder.from_preset(folder)
    assert type(reloaded) is type(built.reference)
    assert [w.path for w in reloaded.weights] == [w.path for w in built.reference.weights]
    assert reloaded.get_config()["pooling_mode"] == built.reference.get_config()["pooling_mode"]
    np.testing.assert_allclose(reloaded(reloaded.preprocessor(TEXTS)), built.expected, atol=1e-5)


# each family's sentence-transformers settings, (pooling, normalize, max_seq_length), and a pooling mode to pass
CHECKPOINT_SETTINGS = {
    "Bert": ("cls", False, 10, "max"),
    "XLMRoberta": ("mean", True, 9, "cls"),
    "Qwen3": ("mean", False, 7, "last"),
}


def test_a_sentence_transformers_checkpoint_loads_as_keras_hub_reads_it(built, tmp_path):
    pooling, normalize, max_seq_length, passed = CHECKPOINT_SETTINGS[built.family.prefix]
    folder = sentence_transformers_checkpoint(built.reference, str(tmp_path), pooling, normalize, max_seq_length)
    theirs = keras_hub.models.TextEmbedder.from_preset(folder)
    ours = tk_hub.models.TextEmbedder.from_preset(folder)
    assert (ours.pooling_mode, ours.normalize) == (theirs.pooling_mode, theirs.normalize) == (pooling, normalize)
    # KerasHub's BERT and XLM-RoBERTa converters read max_seq_length; its Qwen 3 one keeps the default 256
    assert ours.preprocessor.sequence_length == theirs.preprocessor.sequence_length
    inputs = built.reference.preprocessor(TEXTS)
    np.testing.assert_allclose(ours(inputs), theirs(inputs), atol=1e-5)
    explicit = tk_hub.models.TextEmbedder.from_preset(folder, pooling_mode=passed, load_weights=False)
    assert explicit.pooling_mode == passed  # arguments passed win over the checkpoint's files
    # and the checkpoint's other preprocessors: KerasHub's preset loader gives them the converter's sequence_length
    kind = "CausalLMPreprocessor" if built.family.prefix == "Qwen3" else "TextClassifierPreprocessor"
    their_preprocessor = getattr(keras_hub.models, kind).from_preset(folder)
    our_preprocessor = getattr(tk_hub.models, kind).from_preset(folder)
    assert type(our_preprocessor).__name__ == type(their_preprocessor).__name__
    assert our_preprocessor.sequence_length == their_preprocessor.sequence_length
    assert getattr(tk_hub.models, kind).from_preset(folder, sequence_length=5).sequence_length == 5


def test_fit_needs_a_loss_then_one_step_changes_the_weights(built):  # the family's last test: it trains `ours`
    ours = built.ours
    # KerasHub's compile() sets Adam(5e-5) and no loss: its fit() raises "No loss to compute" until one is given
    assert built.reference.loss is None and ours.loss is None
    assert type(ours.optimizer).__name__ == type(built.reference.optimizer).__name__ == "Adam"
    assert float(ours.optimizer.learning_rate) == pytest.approx(float(built.reference.optimizer.learning_rate))
    targets = np.eye(len(TEXTS), built.ours.backbone.hidden_dim, dtype="float32")
    if built.family.prefix == "Bert":  # once: the base class's behaviour (a traced step that finds no loss)
        with pytest.raises(ValueError, match="loss"):
            ours.fit(TEXTS, targets, batch_size=len(TEXTS), epochs=1, verbose=0)
    ours.compile(loss="mean_squared_error")
    before = [np.array(w) for w in ours.trainable_weights]
    history = ours.fit(TEXTS, targets, batch_size=len(TEXTS), epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert any(not np.array_equal(b, np.array(w)) for b, w in zip(before, ours.trainable_weights))
