"""BERT in tfkit.hub against KerasHub: presets both ways (with task weights), Hugging Face checkpoints, training.

Tiny random BERT presets are made by KerasHub itself (``hub_presets_bert``): a ``BertTextClassifier`` (its
head in ``task.weights.h5``) and a ``BertMaskedLM`` on the same backbone. tfkit loads them and must compute
KerasHub's numbers, tokenize and pack as KerasHub does, write presets and task weights KerasHub loads, read
the Transformers checkpoint of the same weights, and fine-tune on raw strings.
"""

import json
import os

import h5py
import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, keras_hub
from hub_presets_bert import bert_presets, transformers_checkpoint

import tfkit
import tfkit.hub as tk_hub

INPUTS = {
    "token_ids": np.array([[2, 45, 31, 9, 3, 60, 3, 0], [2, 22, 36, 3, 0, 0, 0, 0]], "int32"),
    "segment_ids": np.array([[0, 0, 0, 0, 0, 1, 1, 0], [0, 0, 0, 0, 0, 0, 0, 0]], "int32"),
    "padding_mask": np.array([[1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 0, 0, 0, 0]], "int32"),
}
MASKED_INPUTS = {**INPUTS, "mask_positions": np.array([[1, 3, 5, 0], [1, 2, 0, 0]], "int32")}
LABELS = np.array([0, 1, 2, 1])
PAIRS = (["the quick fox", "hello"], ["a lazy dog jumps over the moon", "world!"])


@pytest.fixture(scope="module")
def presets(tmp_path_factory):
    return bert_presets(str(tmp_path_factory.mktemp("bert_presets")))


@pytest.fixture(scope="module")
def classifiers(presets):
    return tk_hub.models.TextClassifier.from_preset(presets[0]), keras_hub.models.TextClassifier.from_preset(presets[0])


@pytest.fixture(scope="module")
def masked_lms(presets):
    return tk_hub.models.MaskedLM.from_preset(presets[1]), keras_hub.models.MaskedLM.from_preset(presets[1])


def _close(ours, theirs, atol=1e-5):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), atol=atol)


def test_the_masked_lm_preset_loads_with_keras_hubs_numbers(classifiers, masked_lms):
    assert classifiers[0].num_classes == 3  # (the classifier's numbers: test_hub_families)
    masked_lm, reference = masked_lms
    assert isinstance(masked_lm, tk_hub.models.BertMaskedLM)
    _close(masked_lm(MASKED_INPUTS), reference(MASKED_INPUTS), atol=1e-4)


def test_the_tokenizer_and_preprocessors_give_keras_hubs_ids(presets, classifiers):
    ours, theirs = classifiers
    assert isinstance(ours.preprocessor.tokenizer, tk_hub.models.BertTokenizer)
    for text in TEXTS + ["Unknown WORDS, café?"]:
        np.testing.assert_array_equal(ours.preprocessor.tokenizer(text), theirs.preprocessor.tokenizer(text))
    for x in (TEXTS, PAIRS, TEXTS[0]):  # a batch, a batch of sentence pairs (one sequence each), one string
        for key, value in theirs.preprocessor(x=x).items():
            np.testing.assert_array_equal(ours.preprocessor(x=x)[key], value)
    dataset = tf.data.Dataset.from_tensor_slices((PAIRS, LABELS[:2])).batch(2)  # in tf.data, with labels
    (x, y), (x_ref, y_ref) = [next(iter(dataset.map(model.preprocessor))) for model in (ours, theirs)]
    np.testing.assert_array_equal(y, y_ref)
    for key in x_ref:
        np.testing.assert_array_equal(x[key], x_ref[key])
    # every word piece masked, always with [MASK]: KerasHub's deterministic case
    rates = dict(sequence_length=10, mask_selection_rate=1.0, mask_selection_length=10, mask_token_rate=1.0)
    ours_pre = tk_hub.models.MaskedLMPreprocessor.from_preset(presets[1], random_token_rate=0.0, **rates)
    theirs_pre = keras_hub.models.MaskedLMPreprocessor.from_preset(presets[1], random_token_rate=0.0, **rates)
    assert isinstance(ours_pre, tk_hub.models.BertMaskedLMPreprocessor)
    (x, y, weights), (x_ref, y_ref, weights_ref) = ours_pre(x=PAIRS), theirs_pre(x=PAIRS)
    for key in x_ref:
        np.testing.assert_array_equal(x[key], x_ref[key])
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(weights, weights_ref)


def test_num_classes_gives_a_new_head_and_the_presets_backbone(presets, classifiers):
    classifier = tk_hub.models.TextClassifier.from_preset(presets[0], num_classes=5, preprocessor=None)
    assert classifier.num_classes == 5 and classifier.preprocessor is None
    assert tuple(classifier(INPUTS).shape) == (2, 5)
    _close(classifier.backbone(INPUTS)["pooled_output"], classifiers[1].backbone(INPUTS)["pooled_output"])
    np.testing.assert_array_equal(classifier.output_dense.bias, np.zeros(5))  # fresh, not the preset's bias


def test_task_weights_have_keras_hubs_layout_and_load_both_ways(presets, classifiers, masked_lms, tmp_path):
    def datasets(path):
        found = []
        with h5py.File(path, "r") as f:
            f.visititems(lambda name, item: found.append(name) if isinstance(item, h5py.Dataset) else None)
        return sorted(found)

    for (ours, theirs), folder in ((classifiers, presets[0]), (masked_lms, presets[1])):
        path = str(tmp_path / f"{ours.name}.weights.h5")
        ours.save_task_weights(path)
        assert datasets(path) == datasets(os.path.join(folder, "task.weights.h5"))  # no backbone weight in it
        fresh = type(theirs).from_preset(folder, load_weights=False)
        fresh.load_task_weights(path)  # KerasHub reads tfkit's head
        fresh.backbone.set_weights(theirs.backbone.get_weights())
        inputs = MASKED_INPUTS if "mask_positions" in theirs.input else INPUTS
        _close(fresh(inputs), ours(inputs), atol=1e-4)
    classifier = tk_hub.models.TextClassifier.from_preset(presets[0], load_weights=False)
    before = [np.array(w) for w in classifier.weights]
    with pytest.raises(ValueError, match=r"do not fit model .bert_text_classifier(_[0-9]+)?.; nothing was loaded"):
        classifier.load_task_weights(os.path.join(presets[0], "model.weights.h5"))  # a backbone file: refused
    for weight, value in zip(classifier.weights, before):
        np.testing.assert_array_equal(weight, value)  # and nothing changed
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`"):
        classifier.save_task_weights(str(tmp_path / "head.h5"))


def test_saved_task_presets_load_in_keras_hub_with_the_same_numbers(classifiers, masked_lms, tmp_path):
    for ours, kind, inputs in ((masked_lms[0], "MaskedLM", MASKED_INPUTS),):  # TextClassifier's: test_hub_families
        folder = tmp_path / kind
        ours.save_to_preset(str(folder))
        assert "task.weights.h5" in os.listdir(folder)
        assert json.loads((folder / "metadata.json").read_text())["tasks"] == [
            "MaskedLM",
            "TextClassifier",
            "TextEmbedder",
        ]
        theirs = getattr(keras_hub.models, kind).from_preset(str(folder))
        assert type(theirs).__name__ == type(ours).__name__
        _close(theirs(inputs), ours(inputs), atol=1e-4)
        again = getattr(tk_hub.models, kind).from_preset(str(folder))  # and tfkit reads its own preset back
        _close(again(inputs), ours(inputs), atol=0)
        assert again.preprocessor.get_config() == ours.preprocessor.get_config()


def test_a_hugging_face_checkpoint_of_the_same_weights_loads_with_the_same_numbers(classifiers, tmp_path):
    pytest.importorskip("safetensors")
    reference = classifiers[1].backbone
    expected = reference(INPUTS)
    for name, prefix, layer_norm in (("plain", "", ("weight", "bias")), ("tf", "bert.", ("gamma", "beta"))):
        folder = transformers_checkpoint(reference, str(tmp_path / name), prefix, layer_norm)
        backbone = tk_hub.models.Backbone.from_preset(folder)
        assert isinstance(backbone, tk_hub.models.BertBackbone)
        for key in expected:
            _close(backbone(INPUTS)[key], expected[key])
    theirs = keras_hub.models.Backbone.from_preset(str(tmp_path / "plain"))  # KerasHub's converter agrees
    _close(theirs(INPUTS)["pooled_output"], expected["pooled_output"])
    classifier = tk_hub.models.TextClassifier.from_preset(str(tmp_path / "plain"), num_classes=2)
    tokenizer = classifier.preprocessor.tokenizer  # from vocab.txt, lowercase from tokenizer_config.json
    assert isinstance(tokenizer, tk_hub.models.BertTokenizer) and tokenizer.lowercase
    np.testing.assert_array_equal(tokenizer("The Quick FOX"), classifiers[1].preprocessor.tokenizer("The Quick FOX"))


def test_masked_lm_fit_on_raw_strings_lowers_its_loss(presets):
    every_piece = tk_hub.models.MaskedLMPreprocessor.from_preset(  # the same masks every epoch
        presets[1], mask_selection_rate=1.0, mask_selection_length=12, mask_token_rate=1.0, random_token_rate=0.0
    )
    masked_lm = tk_hub.models.MaskedLM.from_preset(presets[1], preprocessor=every_piece)
    masked_lm.compile(optimizer=tfkit.optimizers.Adam(1e-2))
    with pytest.warns(UserWarning, match="Gradients do not exist for variables"):  # the pooler, as in Keras
        history = masked_lm.fit(TEXTS, batch_size=2, epochs=3, verbose=0)
    assert list(history.history) == ["loss", "sparse_categorical_accuracy"]
    assert history.history["loss"][-1] < history.history["loss"][0] - 0.2
