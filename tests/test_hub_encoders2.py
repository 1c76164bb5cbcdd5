"""ALBERT, ELECTRA and FNet on tfkit.hub, against KerasHub 0.32 itself.

Each family's tiny presets are made by KerasHub (``hub_presets_encoders2``); tfkit must load them with KerasHub's
numbers, weight paths and configs, tokenize and pack as KerasHub does, write presets KerasHub loads with the
same numbers, read a Transformers-layout checkpoint of the same weights where the family has a converter (and
KerasHub's converter must agree where it has one), and train on raw strings.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Callable

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, keras, keras_hub
from hub_presets_encoders2 import albert_presets, albert_transformers_checkpoint, electra_preset, f_net_presets

import tfkit
import tfkit.hub as tk_hub

PAIRS = (["the fox", "hi"], ["a", "the"])  # short: the packed rows end in padding
LABELS = np.array([0, 2, 1, 2])
MASK_POSITIONS = np.array([[1, 3, 5, 0], [1, 2, 0, 0]], "int32")


@dataclasses.dataclass(frozen=True)
class Encoder:
    """A family with tasks: its class-name prefix, its presets' maker and its Transformers checkpoint writer."""

    name: str
    prefix: str
    make: Callable[[str], tuple[str, str]]  # folder -> (classifier preset, masked LM preset)
    learning_rate: float  # the classifier's compile() default
    checkpoint: Callable | None = None  # (KerasHub's backbone, folder, **variant) -> a checkpoint folder
    variants: tuple = ({},)  # the writer's keyword arguments to try; KerasHub reads the first


ENCODERS = [
    Encoder(
        "albert",
        "Albert",
        albert_presets,
        1e-5,
        albert_transformers_checkpoint,
        ({}, {"prefix": ""}),  # an AlbertForPreTraining's tensor names (with heads to leave), and an AlbertModel's
    ),
    Encoder("f_net", "FNet", f_net_presets, 5e-5),  # no converter: KerasHub 0.32 has none
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
    """Whether ``obj`` is a ``tfkit.hub.models.<name>`` under that class name."""
    return isinstance(obj, getattr(tk_hub.models, name)) and type(obj).__name__ == name


def _close(ours, theirs, atol=1e-5):
    for a, b in zip(tf.nest.flatten(ours), tf.nest.flatten(theirs)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=atol)


def _paths(model) -> list[str]:
    return [weight.path for weight in model.weights]


def _plain(config: dict) -> dict:
    return json.loads(json.dumps({k: v for k, v in config.items() if k not in ("name", "dtype")}))


def test_keras_hub_presets_load_with_keras_hubs_numbers_weight_paths_and_config(built):
    prefix = built.family.prefix
    backbone = tk_hub.models.Backbone.from_preset(built.presets[0])
    assert _is(backbone, f"{prefix}Backbone")
    theirs_backbone = built.classifiers[1].backbone
    assert _plain(backbone.get_config()) == _plain(theirs_backbone.get_config())
    _close(backbone(built.inputs), theirs_backbone(built.inputs))
    assert _paths(backbone) == _paths(theirs_backbone)
    for (ours, theirs), inputs, kind in (
        (built.classifiers, built.inputs, "TextClassifier"),
        (built.masked_lms, built.masked_inputs, "MaskedLM"),
    ):
        assert _is(ours, f"{prefix}{kind}")
        assert _is(ours.preprocessor, f"{prefix}{kind}Preprocessor")
        assert _is(ours.preprocessor.tokenizer, f"{prefix}Tokenizer")
        assert _paths(ours) == _paths(theirs)
        assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
        _close(ours(inputs), theirs(inputs))
        assert _plain(ours.get_config()).keys() == _plain(theirs.get_config()).keys()
    ours_config, their_config = (model.get_config()["preprocessor"]["config"] for model in built.classifiers)
    ours_config.pop("tokenizer"), their_config.pop("tokenizer")
    assert _plain(ours_config) == _plain(their_config)


def test_the_tokenizer_and_preprocessors_give_keras_hubs_ids(built):
    ours, theirs = built.classifiers
    ours_tokenizer, their_tokenizer = ours.preprocessor.tokenizer, theirs.preprocessor.tokenizer
    assert ours_tokenizer.get_vocabulary() == their_tokenizer.get_vocabulary()
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


def test_presets_tfkit_saves_load_in_keras_hub_with_the_same_numbers(built, tmp_path):
    prefix = built.family.prefix
    for (ours, _), inputs, kind in (
        (built.classifiers, built.inputs, "TextClassifier"),
        (built.masked_lms, built.masked_inputs, "MaskedLM"),
    ):
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


def test_compile_defaults_and_training_on_raw_strings(built):
    ours, theirs = built.classifiers
    x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(theirs.preprocessor(TEXTS, LABELS))
    expected = float(theirs.loss(y, theirs(x), sample_weight=sample_weight))
    trained = tk_hub.models.TextClassifier.from_preset(built.presets[0])  # the fixture's stay as loaded
    trained.compile(run_eagerly=True)  # KerasHub's defaults: Adam, crossentropy on logits, accuracy
    assert type(trained.optimizer).__name__ == type(theirs.optimizer).__name__ == "Adam"
    np.testing.assert_allclose(float(trained.optimizer.learning_rate), float(theirs.optimizer.learning_rate))
    np.testing.assert_allclose(float(trained.optimizer.learning_rate), built.family.learning_rate)
    assert type(trained.loss).__name__ == type(theirs.loss).__name__ == "SparseCategoricalCrossentropy"
    assert trained.loss.get_config()["from_logits"] and theirs.loss.get_config()["from_logits"]
    loss = trained.evaluate(TEXTS, LABELS, batch_size=len(LABELS), verbose=0, return_dict=True)["loss"]
    np.testing.assert_allclose(loss, expected, rtol=1e-5)
    trained.compile(optimizer=tfkit.optimizers.Adam(1e-2), run_eagerly=True)  # (faster here than tracing)
    before = [np.array(w) for w in trained.trainable_weights]
    history = trained.fit(TEXTS, LABELS, batch_size=len(LABELS), epochs=1, verbose=0)
    assert list(history.history) == ["loss", "sparse_categorical_accuracy"]
    changed = [not np.array_equal(np.asarray(w), b) for w, b in zip(trained.trainable_weights, before)]
    assert all(changed), f"{sum(changed)} of {len(changed)} weights changed"

    every_piece = tk_hub.models.MaskedLMPreprocessor.from_preset(  # the same masks every epoch
        built.presets[1], mask_selection_rate=1.0, mask_selection_length=12, mask_token_rate=1.0, random_token_rate=0.0
    )
    masked_lm = tk_hub.models.MaskedLM.from_preset(built.presets[1], preprocessor=every_piece)
    masked_lm.compile(optimizer=tfkit.optimizers.Adam(1e-2))  # compiled steps
    history = masked_lm.fit(TEXTS, batch_size=2, epochs=3, verbose=0)
    assert list(history.history) == ["loss", "sparse_categorical_accuracy"]
    assert history.history["loss"][-1] < history.history["loss"][0] - 0.2


def test_albert_shares_its_blocks_and_refuses_what_it_cannot_read(tmp_path):
    backbone = tk_hub.models.AlbertBackbone(
        vocabulary_size=60,
        num_layers=6,
        num_heads=2,
        embedding_dim=4,
        hidden_dim=8,
        intermediate_dim=16,
        num_groups=3,
        num_inner_repetitions=2,
        max_sequence_length=8,
    )
    assert [[block.name for block in group] for group in backbone.transformer_layers] == [
        [f"group_{g}_inner_layer_{i}" for i in range(2)] for g in range(3)
    ]
    assert len(backbone.weights) == 9 + 3 * 2 * 16  # 3 embeddings, a norm, projection, pooler; 16 a block
    with pytest.raises(ValueError, match="num_layers=5 is not a multiple of num_groups=2"):
        tk_hub.models.AlbertBackbone(
            vocabulary_size=60,
            num_layers=5,
            num_heads=2,
            embedding_dim=4,
            hidden_dim=8,
            intermediate_dim=16,
            num_groups=2,
        )
    reference = keras_hub.models.AlbertBackbone(
        vocabulary_size=60,
        num_layers=2,
        num_heads=2,
        embedding_dim=4,
        hidden_dim=8,
        intermediate_dim=16,
        max_sequence_length=8,
    )
    folder = albert_transformers_checkpoint(reference, str(tmp_path / "albert"))
    config_path = os.path.join(folder, "config.json")
    config = json.loads(open(config_path).read())
    for field, value, message in (
        ("hidden_act", "gelu", "hidden_act 'gelu'; AlbertBackbone's blocks use the tanh-approximated GELU"),
        ("position_embedding_type", "relative_key", "position_embedding_type 'relative_key'"),
    ):
        with open(config_path, "w") as handle:
            json.dump({**config, field: value}, handle)
        with pytest.raises(ValueError, match=message):
            tk_hub.models.Backbone.from_preset(folder)
    with open(config_path, "w") as handle:
        json.dump({**config, "num_hidden_layers": 4, "num_hidden_groups": 2}, handle)  # 2 groups, weights for 1
    with pytest.raises(ValueError, match="lacks"):
        tk_hub.models.Backbone.from_preset(folder)
    with open(config_path, "w") as handle:
        json.dump(config, handle)
    os.remove(os.path.join(folder, "spiece.model"))
    assert isinstance(tk_hub.models.Backbone.from_preset(folder), tk_hub.models.AlbertBackbone)
    with pytest.raises(ValueError, match="has no spiece.model"):
        tk_hub.models.TextClassifier.from_preset(folder, num_classes=2)


@pytest.mark.parametrize("embedding_dim", [8, 16], ids=["projected", "unprojected"])
def test_electra_presets_load_both_ways_with_keras_hubs_numbers(embedding_dim, tmp_path):
    folder = electra_preset(str(tmp_path / "keras_hub"), embedding_dim=embedding_dim)
    theirs = keras_hub.models.Backbone.from_preset(folder)
    their_tokenizer = keras_hub.models.Tokenizer.from_preset(folder)
    ours = tk_hub.models.Backbone.from_preset(folder)
    tokenizer = tk_hub.models.Tokenizer.from_preset(folder)
    assert _is(ours, "ElectraBackbone") and _is(tokenizer, "ElectraTokenizer")
    assert hasattr(ours, "embeddings_projection") == (embedding_dim != 16)
    assert _plain(ours.get_config()) == _plain(theirs.get_config())
    assert _paths(ours) == _paths(theirs)
    ours_config, their_config = tokenizer.get_config(), their_tokenizer.get_config()
    assert _plain({key: ours_config[key] for key in their_config}) == _plain(their_config)
    for text in TEXTS + ["Unknown WORDS, café?"]:
        np.testing.assert_array_equal(tokenizer(text), their_tokenizer(text))
    packer = tk_hub.layers.MultiSegmentPacker(
        start_value=tokenizer.cls_token_id,
        end_value=tokenizer.sep_token_id,
        pad_value=tokenizer.pad_token_id,
        sequence_length=12,
    )
    token_ids, segment_ids = packer((tokenizer(PAIRS[0]), tokenizer(PAIRS[1])))
    inputs = {"token_ids": token_ids, "segment_ids": segment_ids, "padding_mask": token_ids != tokenizer.pad_token_id}
    assert not np.asarray(inputs["padding_mask"]).all()
    _close(ours(inputs), theirs(inputs))

    ours.save_to_preset(str(tmp_path / "tfkit"))  # and back: KerasHub loads tfkit's preset
    tokenizer.save_to_preset(str(tmp_path / "tfkit"))
    again = keras_hub.models.Backbone.from_preset(str(tmp_path / "tfkit"))
    assert type(again).__name__ == "ElectraBackbone"
    _close(again(inputs), theirs(inputs))
    np.testing.assert_array_equal(
        keras_hub.models.Tokenizer.from_preset(str(tmp_path / "tfkit"))(TEXTS[1]), their_tokenizer(TEXTS[1])
    )

    # one training step of a small head on the pooled output changes every weight (no KerasHub task to compare)
    pooled = ours(ours.input)["pooled_output"]
    model = tfkit.Model(ours.input, tfkit.layers.Dense(3)(pooled))
    model.compile(optimizer=tfkit.optimizers.Adam(1e-2), loss=tfkit.losses.SparseCategoricalCrossentropy(True))
    before = [np.array(w) for w in model.trainable_weights]
    model.fit(inputs, LABELS[:2], batch_size=2, epochs=1, verbose=0)
    changed = [not np.array_equal(np.asarray(w), b) for w, b in zip(model.trainable_weights, before)]
    assert all(changed), f"{sum(changed)} of {len(changed)} weights changed"
