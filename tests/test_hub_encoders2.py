"""ALBERT's shared blocks and the checkpoints it refuses, and ELECTRA's backbone and tokenizer, against KerasHub 0.32.

ALBERT's and FNet's presets both ways, tokenizers, masked LMs and checkpoint variants are checked with the other
encoders in ``test_hub_encoders.py`` and by their conformance rows; ELECTRA has no KerasHub task, so no row: its
backbone presets (projected and not) load both ways here with KerasHub's numbers, and a head on it trains a step.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, keras_hub
from hub_presets_encoders2 import albert_transformers_checkpoint, electra_preset

import tfkit
import tfkit.hub as tk_hub

PAIRS = (["the fox", "hi"], ["a", "the"])  # short: the packed rows end in padding
LABELS = np.array([0, 2, 1, 2])


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
