"""The encoders' masked LMs, tokenizers, preprocessors and checkpoint variants in tfkit.hub against KerasHub.

    python -m pytest tests/test_hub_encoders.py -k roberta      # one family

Each family's conformance row (``tests/hub_family_table.py``) checks its text classifier both ways, a Transformers
checkpoint and a training step. This file checks what the rows do not, on RoBERTa, DistilBERT, XLM-RoBERTa, ALBERT
and FNet: tiny random presets made by KerasHub itself (a text classifier and a masked LM on the same backbone,
``hub_presets_encoders``, ``hub_presets_encoders2``); the masked LM both ways with KerasHub's numbers and weight
paths, the tokenizer and both preprocessors giving KerasHub's tensors (in tf.data too), every Transformers tensor
layout a converter reads, KerasHub's compile defaults, and a masked LM that learns.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Callable

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, keras_hub
from hub_presets_encoders import (
    distil_bert_presets,
    distil_bert_transformers_checkpoint,
    roberta_presets,
    roberta_transformers_checkpoint,
    xlm_roberta_presets,
    xlm_roberta_proto,
    xlm_roberta_transformers_checkpoint,
)
from hub_presets_encoders2 import albert_presets, albert_transformers_checkpoint, f_net_presets
from hub_presets_gemma import gemma_proto

import tfkit
import tfkit.hub as tk_hub

PAIRS = (["the fox", "hi"], ["a", "the"])  # short: the packed rows end in padding
LABELS = np.array([0, 2, 1, 2])
MASK_POSITIONS = np.array([[1, 3, 5, 0], [1, 2, 0, 0]], "int32")


@dataclasses.dataclass(frozen=True)
class Encoder:
    """A family: its class-name prefix, its presets' maker and its Transformers checkpoint writer."""

    name: str
    prefix: str
    make: Callable[[str], tuple[str, str]]  # folder -> (classifier preset, masked LM preset)
    learning_rate: float  # the classifier's compile() default
    checkpoint: Callable | None  # (KerasHub's backbone, folder, **variant) -> a Transformers checkpoint folder
    variants: tuple = ({},)  # the writer's keyword arguments to try; KerasHub reads the first


ENCODERS = [
    Encoder(
        "roberta",
        "Roberta",
        roberta_presets,
        5e-5,
        roberta_transformers_checkpoint,
        # KerasHub's layout; a RobertaModel's (no prefix) with a fine-tuned, nonzero token type row; tokenizer.json
        ({}, {"prefix": "", "token_type_row": np.linspace(-1, 1, 16)}, {"tokenizer_json": True}),
    ),
    Encoder(
        "distil_bert",
        "DistilBert",
        distil_bert_presets,
        5e-5,
        distil_bert_transformers_checkpoint,
        ({}, {"prefix": ""}),  # a DistilBertForMaskedLM's tensor names, and a DistilBertModel's
    ),
    Encoder(
        "xlm_roberta",
        "XLMRoberta",
        xlm_roberta_presets,
        5e-5,
        xlm_roberta_transformers_checkpoint,
        # a nonzero token type row, which KerasHub's converter folds in too; an XLMRobertaModel's tensor names
        ({"token_type_row": np.linspace(-1, 1, 16)}, {"prefix": ""}),
    ),
    Encoder(
        "albert",
        "Albert",
        albert_presets,
        1e-5,
        albert_transformers_checkpoint,
        ({}, {"prefix": ""}),  # an AlbertForPreTraining's tensor names (with heads to leave), and an AlbertModel's
    ),
    Encoder("f_net", "FNet", f_net_presets, 5e-5, None),  # no converter: KerasHub 0.32 has none
]


@dataclasses.dataclass
class Built:
    family: Encoder
    presets: tuple[str, str]
    classifiers: tuple  # (tfkit's, KerasHub's)
    masked_lms: tuple
    inputs: dict  # packed PAIRS, as KerasHub's classifier preprocessor gives them
    masked_inputs: dict


@pytest.fixture(scope="module", params=ENCODERS, ids=[f.name for f in ENCODERS])
def built(request, tmp_path_factory) -> Built:
    family = request.param
    presets = family.make(str(tmp_path_factory.mktemp(family.name)))
    classifiers = (
        tk_hub.models.TextClassifier.from_preset(presets[0]),
        keras_hub.models.TextClassifier.from_preset(presets[0]),
    )
    masked_lms = tk_hub.models.MaskedLM.from_preset(presets[1]), keras_hub.models.MaskedLM.from_preset(presets[1])
    inputs = {key: np.asarray(value) for key, value in classifiers[1].preprocessor(x=PAIRS).items()}
    assert (inputs["token_ids"] == classifiers[1].preprocessor.tokenizer.pad_token_id).any()
    return Built(family, presets, classifiers, masked_lms, inputs, {**inputs, "mask_positions": MASK_POSITIONS})


def _is(obj, name: str) -> bool:
    """Whether ``obj`` is a ``tfkit.hub.models.<name>`` under that class name (a loaded preset's class may be a
    subclass of the same name)."""
    return isinstance(obj, getattr(tk_hub.models, name)) and type(obj).__name__ == name


def _close(ours, theirs, atol=1e-5):
    for a, b in zip(tf.nest.flatten(ours), tf.nest.flatten(theirs)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=atol)


def _paths(model) -> list[str]:
    return [weight.path for weight in model.weights]


def _plain(config: dict) -> dict:
    return json.loads(json.dumps({k: v for k, v in config.items() if k not in ("name", "dtype")}))


def test_keras_hub_masked_lm_presets_load_with_keras_hubs_numbers_weight_paths_and_config(built):
    prefix, (ours, theirs) = built.family.prefix, built.masked_lms
    assert _is(ours, f"{prefix}MaskedLM")
    assert _is(ours.preprocessor, f"{prefix}MaskedLMPreprocessor")
    assert _is(ours.preprocessor.tokenizer, f"{prefix}Tokenizer")
    assert _paths(ours) == _paths(theirs)
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    _close(ours(built.masked_inputs), theirs(built.masked_inputs))
    assert _plain(ours.get_config()).keys() == _plain(theirs.get_config()).keys()
    ours_config, their_config = (model.get_config()["preprocessor"]["config"] for model in built.classifiers)
    ours_config.pop("tokenizer"), their_config.pop("tokenizer")
    assert _plain(ours_config) == _plain(their_config)


def test_the_tokenizer_and_preprocessors_give_keras_hubs_ids(built):
    ours, theirs = built.classifiers
    ours_tokenizer, their_tokenizer = ours.preprocessor.tokenizer, theirs.preprocessor.tokenizer
    assert list(ours_tokenizer.get_vocabulary()) == list(their_tokenizer.get_vocabulary())  # (a dict's keys there)
    # (KerasHub's order is a set's: tfkit's is the declaration order)
    assert sorted(ours_tokenizer.special_token_ids) == sorted(their_tokenizer.special_token_ids)
    for text in TEXTS + ["Unknown WORDS, café?", "two  spaces"]:
        np.testing.assert_array_equal(ours_tokenizer(text), their_tokenizer(text))
        assert ours_tokenizer.detokenize(ours_tokenizer(text)) == their_tokenizer.detokenize(their_tokenizer(text))
    for x in (TEXTS, PAIRS, TEXTS[0]):  # a batch, a batch of sentence pairs (one sequence each), one string
        expected = theirs.preprocessor(x=x)
        got = ours.preprocessor(x=x)
        assert sorted(got) == sorted(expected)
        for key, value in expected.items():
            np.testing.assert_array_equal(got[key], value)
    dataset = tf.data.Dataset.from_tensor_slices((PAIRS, LABELS[:2])).batch(2)  # in tf.data (a graph), with labels
    (x, y), (x_ref, y_ref) = next(iter(dataset.map(ours.preprocessor))), theirs.preprocessor(x=PAIRS, y=LABELS[:2])
    np.testing.assert_array_equal(y, y_ref)
    assert sorted(x) == sorted(x_ref)
    for key in x_ref:
        np.testing.assert_array_equal(x[key], x_ref[key])
    # every piece masked, always with the mask token: KerasHub's deterministic case
    rates = dict(sequence_length=10, mask_selection_rate=1.0, mask_selection_length=10, mask_token_rate=1.0)
    ours_pre = tk_hub.models.MaskedLMPreprocessor.from_preset(built.presets[1], random_token_rate=0.0, **rates)
    theirs_pre = keras_hub.models.MaskedLMPreprocessor.from_preset(built.presets[1], random_token_rate=0.0, **rates)
    (x, y, weights), (x_ref, y_ref, weights_ref) = ours_pre(x=PAIRS), theirs_pre(x=PAIRS)
    assert sorted(x) == sorted(x_ref)
    for key in x_ref:
        np.testing.assert_array_equal(x[key], x_ref[key])
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(weights, weights_ref)


def test_masked_lm_presets_tfkit_saves_load_in_keras_hub_with_the_same_numbers(built, tmp_path):
    prefix = built.family.prefix
    for (ours, _), inputs, kind in ((built.masked_lms, built.masked_inputs, "MaskedLM"),):
        folder = tmp_path / kind
        ours.save_to_preset(str(folder))
        config = json.loads((folder / "config.json").read_text())
        assert config["registered_name"] == f"keras_hub>{prefix}Backbone"
        tokenizer = json.loads((folder / "tokenizer.json").read_text())
        assert tokenizer["registered_name"] == f"keras_hub>{prefix}Tokenizer"
        theirs = getattr(keras_hub.models, kind).from_preset(str(folder))
        assert type(theirs).__name__ == type(ours).__name__
        _close(theirs(inputs), ours(inputs))
        for text in TEXTS:
            np.testing.assert_array_equal(theirs.preprocessor.tokenizer(text), ours.preprocessor.tokenizer(text))
        again = getattr(tk_hub.models, kind).from_preset(str(folder))  # and tfkit reads its own preset back
        _close(again(inputs), ours(inputs), atol=0)
        assert again.preprocessor.get_config() == ours.preprocessor.get_config()


def test_a_transformers_checkpoint_of_the_same_weights_loads_with_the_same_numbers(built, tmp_path):
    pytest.importorskip("safetensors")
    family, reference = built.family, built.classifiers[1]
    if family.checkpoint is None:
        pytest.skip(f"{family.prefix}: KerasHub 0.32 has no Transformers converter, nor tfkit.hub")
    expected = reference.backbone(built.inputs)
    for i, variant in enumerate(family.variants):
        folder = family.checkpoint(reference.backbone, str(tmp_path / f"checkpoint_{i}"), **variant)
        backbone = tk_hub.models.Backbone.from_preset(folder)
        assert _is(backbone, f"{family.prefix}Backbone")
        assert _plain(backbone.get_config()) == _plain(reference.backbone.get_config())
        _close(backbone(built.inputs), expected)
        classifier = tk_hub.models.TextClassifier.from_preset(folder, num_classes=2)
        assert _is(classifier.preprocessor.tokenizer, f"{family.prefix}Tokenizer")
        for text in TEXTS:
            np.testing.assert_array_equal(
                classifier.preprocessor.tokenizer(text), reference.preprocessor.tokenizer(text)
            )
        packed = classifier.preprocessor(x=PAIRS)["token_ids"]  # 512 long: the preprocessor's default
        np.testing.assert_array_equal(packed[:, :12], built.inputs["token_ids"])
        if i == 0:  # KerasHub's converter reads the same folder
            _close(keras_hub.models.Backbone.from_preset(folder)(built.inputs), expected)


def test_compile_defaults_are_keras_hubs_and_a_masked_lm_learns_on_raw_strings(built):
    ours, theirs = built.classifiers
    trained = tk_hub.models.TextClassifier.from_preset(built.presets[0])  # the fixture's stay as loaded
    trained.compile()  # KerasHub's defaults: Adam, crossentropy on logits, accuracy (the row trains a step)
    assert type(trained.optimizer).__name__ == type(theirs.optimizer).__name__ == "Adam"
    np.testing.assert_allclose(float(trained.optimizer.learning_rate), float(theirs.optimizer.learning_rate))
    np.testing.assert_allclose(float(trained.optimizer.learning_rate), built.family.learning_rate)
    assert type(trained.loss).__name__ == type(theirs.loss).__name__ == "SparseCategoricalCrossentropy"
    assert trained.loss.get_config()["from_logits"] and theirs.loss.get_config()["from_logits"]

    every_piece = tk_hub.models.MaskedLMPreprocessor.from_preset(  # the same masks every epoch
        built.presets[1], mask_selection_rate=1.0, mask_selection_length=12, mask_token_rate=1.0, random_token_rate=0.0
    )
    masked_lm = tk_hub.models.MaskedLM.from_preset(built.presets[1], preprocessor=every_piece)
    # eager steps: faster here than tracing (test_hub_bert.py trains BERT's masked LM with compiled steps)
    masked_lm.compile(optimizer=tfkit.optimizers.Adam(1e-2), run_eagerly=True)
    history = masked_lm.fit(TEXTS, batch_size=2, epochs=3, verbose=0)
    assert list(history.history) == ["loss", "sparse_categorical_accuracy"]
    assert history.history["loss"][-1] < history.history["loss"][0] - 0.2


def test_xlm_roberta_tokenizer_ids_are_fairseqs_and_detokenize_as_keras_hubs():
    proto = xlm_roberta_proto()
    ours, theirs = tk_hub.models.XLMRobertaTokenizer(proto=proto), keras_hub.models.XLMRobertaTokenizer(proto=proto)
    assert ours.get_vocabulary() == theirs.get_vocabulary()
    assert ours.vocabulary_size() == theirs.vocabulary_size() == len(ours._vocabulary) + 2
    assert (ours.mask_token_id, ours.special_token_ids) == (theirs.mask_token_id, theirs.special_token_ids)
    for token in ["<s>", "<pad>", "</s>", "<unk>", "<mask>", "▁the", "not a piece"]:
        assert ours.token_to_id(token) == theirs.token_to_id(token)
    ids = np.asarray(theirs("the quick brown fox, café")).tolist()
    assert 3 in ids  # <unk>
    padded = [[0] + ids + [2, 1, 1, ours.mask_token_id]]
    assert ours.detokenize(padded) == theirs.detokenize(padded)  # (KerasHub's <pad> comes back as its ⁇ too)
    batch = tf.data.Dataset.from_tensor_slices(TEXTS).batch(4).map(ours)  # in a graph
    assert next(iter(batch)).to_list() == [np.asarray(theirs(text)).tolist() for text in TEXTS]
    with pytest.raises(ValueError, match="unknown piece has id 3; XLM-RoBERTa's ids need it at 0"):
        tk_hub.models.XLMRobertaTokenizer(proto=gemma_proto())  # Gemma's: <pad> 0, <eos> 1, <bos> 2, <unk> 3


def test_checkpoints_the_converters_cannot_read_exactly_are_refused(tmp_path):
    backbone = keras_hub.models.RobertaBackbone(
        vocabulary_size=300, num_layers=1, num_heads=2, hidden_dim=16, intermediate_dim=32, max_sequence_length=8
    )
    folder = roberta_transformers_checkpoint(backbone, str(tmp_path / "roberta"))
    config_path = os.path.join(folder, "config.json")
    config = json.loads(open(config_path).read())
    for field, value, message in (
        ("hidden_act", "relu", "hidden_act 'relu'; RobertaBackbone's blocks use 'gelu'"),
        ("position_embedding_type", "relative_key", "position_embedding_type 'relative_key'"),
    ):
        with open(config_path, "w") as handle:
            json.dump({**config, field: value}, handle)
        with pytest.raises(ValueError, match=message):
            tk_hub.models.Backbone.from_preset(folder)
    with open(config_path, "w") as handle:
        json.dump(config, handle)
    assert tk_hub.models.Backbone.from_preset(folder, max_sequence_length=4).max_sequence_length == 4  # rows cut
    distil = distil_bert_transformers_checkpoint(
        keras_hub.models.DistilBertBackbone(
            vocabulary_size=70, num_layers=1, num_heads=2, hidden_dim=16, intermediate_dim=32, max_sequence_length=8
        ),
        str(tmp_path / "distil"),
    )
    config = json.loads(open(os.path.join(distil, "config.json")).read())
    with open(os.path.join(distil, "config.json"), "w") as handle:
        json.dump({**config, "activation": "relu"}, handle)
    with pytest.raises(ValueError, match="activation 'relu'; DistilBertBackbone's blocks use 'gelu'"):
        tk_hub.models.Backbone.from_preset(distil)
    xlmr = xlm_roberta_transformers_checkpoint(backbone, str(tmp_path / "xlmr"))
    os.remove(os.path.join(xlmr, "sentencepiece.bpe.model"))
    assert isinstance(tk_hub.models.Backbone.from_preset(xlmr), tk_hub.models.XLMRobertaBackbone)
    with pytest.raises(ValueError, match="has no sentencepiece.bpe.model"):
        tk_hub.models.TextClassifier.from_preset(xlmr, num_classes=2)
