"""The seq2seq task kind (``Seq2SeqLM``, ``Seq2SeqLMPreprocessor``) and BART, side by side with KerasHub 0.32.

BART's conformance row in ``test_hub_families.py`` checks its numbers, weight paths, greedy ids and texts,
presets both ways, its Transformers checkpoint and training against KerasHub. This file checks what the row
does not: the packing of raw pairs to the token, XLA's ids, the encoder and the cross-attention projections
run once a ``generate`` call (and the beam sampler), a bare ``BartModel`` folder and KerasHub's own converter
reading the same folder, and a config the backbone cannot express.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hub_presets import TEXTS, keras_hub
from hub_presets_bart import bart_preset, bart_transformers_checkpoint

import tfkit.hub as tk_hub

LENGTHS = {"encoder_sequence_length": 12, "decoder_sequence_length": 10}
PAIRS = {"encoder_text": TEXTS, "decoder_text": ["a lazy", "", "the", "hello world"]}


def _with_lengths(task):
    # KerasHub 0.32's Seq2SeqLMPreprocessor has no get_config for its lengths: its presets reload with 1024
    task.preprocessor.encoder_sequence_length = LENGTHS["encoder_sequence_length"]
    task.preprocessor.decoder_sequence_length = LENGTHS["decoder_sequence_length"]
    return task


@pytest.fixture(scope="module")
def preset(tmp_path_factory) -> str:
    return bart_preset(str(tmp_path_factory.mktemp("bart")), **LENGTHS)


@pytest.fixture(scope="module")
def pair(preset):
    ours = _with_lengths(tk_hub.models.Seq2SeqLM.from_preset(preset))
    theirs = _with_lengths(keras_hub.models.Seq2SeqLM.from_preset(preset))
    ours.compile(sampler="greedy", run_eagerly=True)  # test_generation_compiles_with_xla compiles it once
    theirs.compile(sampler="greedy", run_eagerly=True)
    return ours, theirs


@pytest.fixture(scope="module")
def inputs(pair):
    packed = pair[1].preprocessor.generate_preprocess(dict(PAIRS))
    return {key: np.asarray(value) for key, value in packed.items()}  # as generate's preprocessing gives them


def _close(ours, theirs, atol=1e-5):
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs)
        for key in theirs:
            np.testing.assert_allclose(np.asarray(ours[key]), np.asarray(theirs[key]), atol=atol, err_msg=key)
    else:
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), atol=atol)


def test_the_preprocessor_packs_raw_pairs_as_keras_hubs(pair):
    ours, theirs = pair  # numbers, weight paths, generation, presets both ways: the bart row of test_hub_families
    for mine, reference in zip(ours.preprocessor(dict(PAIRS)), theirs.preprocessor(dict(PAIRS))):
        _close(mine, reference, atol=0)


def test_generation_compiles_with_xla_to_the_same_ids(preset, pair, inputs):
    model = tk_hub.models.BartSeq2SeqLM.from_preset(preset, preprocessor=None)
    model.compile(sampler="greedy")  # XLA: tfkit's default for generation
    pair[0].preprocessor, preprocessor = None, pair[0].preprocessor
    try:
        eager = pair[0].generate(dict(inputs), stop_token_ids=(2,))
    finally:
        pair[0].preprocessor = preprocessor
    compiled = model.generate(dict(inputs), stop_token_ids=(2,))
    np.testing.assert_array_equal(compiled["decoder_padding_mask"], eager["decoder_padding_mask"])
    mask = eager["decoder_padding_mask"]
    np.testing.assert_array_equal(
        np.where(mask, compiled["decoder_token_ids"], -1), np.where(mask, eager["decoder_token_ids"], -1)
    )


def test_generate_runs_the_encoder_and_the_cross_attention_projections_once(preset, inputs):
    model = tk_hub.models.BartSeq2SeqLM.from_preset(preset, preprocessor=None)
    model.compile(sampler="greedy", run_eagerly=True)
    calls = {"encoder": 0, "cross_keys": 0}
    encoder_block = model.backbone.encoder_transformer_layers[0]
    cross_keys = model.backbone.decoder_transformer_layers[0]._cross_attention_layer._key_dense
    for name, layer in (("encoder", encoder_block), ("cross_keys", cross_keys)):
        call = layer.call

        def counted(*args, _call=call, _name=name, **kwargs):
            calls[_name] += 1
            return _call(*args, **kwargs)

        layer.call = counted
    generated = model.generate(dict(inputs), stop_token_ids=None)
    assert calls == {"encoder": 1, "cross_keys": 1}
    assert generated["decoder_token_ids"].shape == inputs["decoder_token_ids"].shape
    model.compile(sampler=tk_hub.samplers.BeamSampler(num_beams=2), run_eagerly=True)  # every cache part per beam
    assert model.generate(dict(inputs), stop_token_ids=None)["decoder_token_ids"].shape == (4, 10)


def test_a_transformers_checkpoint_loads_in_tfkit_and_keras_hub_with_the_same_numbers(pair, inputs, tmp_path):
    pytest.importorskip("safetensors")
    theirs = pair[1]
    folder = bart_transformers_checkpoint(theirs.backbone, str(tmp_path / "hf"))  # BartForConditionalGeneration's
    bare = bart_transformers_checkpoint(theirs.backbone, str(tmp_path / "bare"), prefix="")  # BartModel's
    _close(tk_hub.models.Backbone.from_preset(bare)(inputs), theirs.backbone(inputs))
    their_converted = keras_hub.models.Seq2SeqLM.from_preset(folder)  # KerasHub 0.32's convert_bart
    assert type(their_converted).__name__ == "BartSeq2SeqLM"
    _close(their_converted(inputs), theirs(inputs))
    ours = _with_lengths(tk_hub.models.Seq2SeqLM.from_preset(folder))  # the row checks our numbers from it
    for text in TEXTS:
        np.testing.assert_array_equal(ours.preprocessor.tokenizer(text), their_converted.preprocessor.tokenizer(text))


def test_a_transformers_config_the_backbone_cannot_express_is_refused(pair, tmp_path):
    folder = bart_transformers_checkpoint(pair[1].backbone, str(tmp_path / "hf"))
    config = json.loads((tmp_path / "hf" / "config.json").read_text())
    (tmp_path / "hf" / "config.json").write_text(json.dumps({**config, "scale_embedding": True}))
    with pytest.raises(ValueError, match="scale_embedding"):
        tk_hub.models.Backbone.from_preset(folder)
